//! primgraph validates agent graphs against the frozen Kernel ABI primitive registry and replays
//! recorded runs of them deterministically. The `primgraph` binary only parses arguments and
//! prints; everything it does is here. See `ARCHITECTURE.md` for the code map.
//!
//! This page is the API a runtime author embeds (SPEC §7):
//!
//! - [`Registry`]: the embedded Kernel ABI 1.0.0 ([`Registry::builtin`]) or a registry file
//!   ([`Registry::from_path`], [`Registry::from_slice`]), and [`Registry::lookup`] by dotted ID
//!   or alias — a perfect-hash probe that allocates nothing.
//! - [`validate_str`] and [`validate_path`]: one graph document to a [`FileReport`] of §3.1
//!   [`Diagnostic`]s; [`diagnostics_json`] renders reports as the §3.1 JSON document.
//! - [`TraceWriter`]: record a run in the trace format of §4.1.
//! - [`Replayer`]: replay one trace ([`Replayer::replay_slice`], [`Replayer::replay_file`]) or a
//!   corpus ([`Replayer::replay_corpus`]) into [`RunReport`]s and a [`Summary`], the commutative
//!   monoid that merges exactly.
//! - [`check_schemas`]: the §3.2 schema compatibility check (is every value the source admits
//!   admitted by the target?).
//! - [`Packs`]: a pack path (SPEC §9.2) for validation and replay
//!   ([`ValidateOptions::with_packs`], [`validate_bytes`], [`ReplayGraph::load_with`]);
//!   [`lint_registry`], [`read_input`], [`collect_traces`] and [`write_report`] do what the
//!   commands of the same names do.
//!
//! Embedding pulls in no command-line dependency: `primgraph = { default-features = false }`
//! leaves out clap, indicatif, anstream and annotate-snippets (the `cli` feature).
//!
//! ```
//! use primgraph::Registry;
//!
//! let registry = Registry::builtin();
//! let apply = registry.lookup("APPLY_PATCH").expect("an alias of Kernel ABI 1.0.0");
//! assert_eq!(apply.id, "mut.apply_patch");
//! assert!(apply.requires_authorization);
//! // The dotted ID finds the same contract.
//! assert_eq!(registry.lookup("mut.apply_patch").map(|p| p.index), Some(apply.index));
//! assert!(registry.lookup("mut.apply_pach").is_none());
//! assert_eq!(registry.len(), 191);
//! ```
//!
//! The modules below the re-exports are the engine's internals (rules, codes, the perfect hash,
//! the checker's parts): the command line and the integration tests use them, and they are not
//! part of the API.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

#[doc(hidden)]
pub mod batch;
#[doc(hidden)]
pub mod codes;
/// Evaluations compared (SPEC §6.3): [`compare::compare`] two [`Summary`]s into a
/// [`compare::Comparison`] with [`compare::Comparison::to_json`].
pub mod compare;
#[cfg(feature = "config")]
#[doc(hidden)]
pub mod config;
#[doc(hidden)]
pub mod diagnostic;
#[doc(hidden)]
pub mod graph;
// Runs recorded by other tools imported as traces (SPEC §10; feature `import`, on by default
// with the command line); its own `//!` header documents it.
#[cfg(feature = "import")]
pub mod import;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod json;
#[cfg(feature = "lsp")]
#[doc(hidden)]
pub mod lsp;
#[doc(hidden)]
pub mod pack;
#[doc(hidden)]
pub mod pack_rules;
#[doc(hidden)]
pub mod pack_tools;
#[doc(hidden)]
pub mod plugin;
pub mod registry;
#[doc(hidden)]
pub mod replay;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod rng;
#[doc(hidden)]
pub mod rules;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod simulate;
#[doc(hidden)]
pub mod validate;
#[doc(hidden)]
pub mod versions;
#[doc(hidden)]
pub mod workers;

pub use codes::CodeName;
pub use diagnostic::{
    Diagnostic, Extent, FileReport, Level as OverrideLevel, Override, Related, Severity, Witness,
};
pub use registry::{Authority, Class, Effect, Primitive, RegistryError};

/// Embed the registry and look primitives up:
///
/// ```
/// use primgraph::Registry;
///
/// let builtin = Registry::builtin();
/// let test = builtin.lookup("ver.run_target_tests").unwrap();
/// assert_eq!(builtin.lookup("RUN_TARGET_TESTS").map(|p| &p.id), Some(&test.id));
///
/// // Another registry file, from its bytes (or `Registry::from_path`).
/// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("registry/kernel-abi-1.0.0.json");
/// let loaded = Registry::from_slice(&std::fs::read(&path).unwrap(), "copy.json").unwrap();
/// assert_eq!(loaded.abi(), "1.0.0");
/// assert_eq!(loaded.lookup("RUN_TARGET_TESTS").unwrap().index, test.index);
/// assert!(Registry::from_slice(b"{}", "empty.json").is_err());
/// ```
pub use registry::Registry;
pub use replay::corpus::CorpusError;
pub use replay::report::{FirstDivergence, RunStats, SealStatus, TraceDiagnostic, Via};
pub use replay::seal::{SealError, SealKey, TrustedKey};
pub use replay::summary::{GraphIdentity, PrimitiveRuns, SummaryError, TaskCounts};
pub use replay::trace::{Cost, Evidence, Imported, RecordedPack, StepError};
pub use replay::writer::StepOrigin;
pub use replay::{
    EndStatus, GraphLoadError, ReplayGraph, ReplayOptions, RunReport, Step, StepResult,
    TraceHeader, Verdict, WriteError,
};

/// Record a run with a `TraceWriter`, and replay it:
///
/// ```
/// use primgraph::{
///     EndStatus, Evidence, Registry, ReplayGraph, ReplayOptions, Replayer, Step, StepResult,
///     TraceWriter, Verdict,
/// };
/// use serde_json::json;
///
/// let graph_text = r#"{"graph": "say-done", "abi": "1.0.0", "capabilities": ["done.*"],
///   "entry": "done",
///   "nodes": [{"id": "done", "primitive": "done.finish_success",
///              "inputs": {"summary": {"from": "$input", "at": "/summary"}}}]}"#;
/// let document: serde_json::Value = serde_json::from_str(graph_text).unwrap();
///
/// let mut writer =
///     TraceWriter::for_graph(Vec::new(), "r-1", &document, json!({"summary": "fixed"})).unwrap();
/// writer
///     .step(&Step {
///         node: "done".into(),
///         primitive: "done.finish_success".into(),
///         input: json!({"summary": "fixed"}),
///         result: StepResult::Output {
///             output: json!({"status": "success", "summary": "fixed"}),
///             outcome: None,
///         },
///         evidence: vec![Evidence { kind: "run_record".into(), digest: format!("sha256:{}", "0".repeat(64)) }],
///         cost: None,
///     })
///     .unwrap();
/// writer.end(EndStatus::Success).unwrap();
/// let trace = writer.finish().unwrap();
///
/// let registry = Registry::builtin();
/// let graph = ReplayGraph::load("say-done.graph.json", graph_text.as_bytes(), registry).unwrap();
/// let replayer = Replayer::new(registry, graph, ReplayOptions::default());
/// let run = replayer.replay_slice("r-1.trace.jsonl", &trace);
/// assert_eq!(run.verdict, Verdict::Faithful);
/// assert_eq!((run.steps, run.end), (1, Some(EndStatus::Success)));
///
/// // One edited byte breaks the chain.
/// let mut edited = trace.clone();
/// let at = edited.windows(5).position(|w| w == b"fixed").unwrap();
/// edited[at] = b'F';
/// assert_ne!(replayer.replay_slice("edited", &edited).verdict, Verdict::Faithful);
/// ```
pub use replay::TraceWriter;

/// Replay one trace against a graph:
///
/// ```
/// use primgraph::{Registry, ReplayGraph, ReplayOptions, Replayer, Verdict};
///
/// let runs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/runs");
/// let registry = Registry::builtin();
/// let graph_bytes = std::fs::read(runs.join("fix-failing-test.graph.json")).unwrap();
/// let graph = ReplayGraph::load("fix-failing-test.graph.json", &graph_bytes, registry).unwrap();
/// let replayer = Replayer::new(registry, graph, ReplayOptions::default());
///
/// let trace = std::fs::read(runs.join("faithful-loop.trace.jsonl")).unwrap();
/// let run = replayer.replay_slice("faithful-loop.trace.jsonl", &trace);
/// assert_eq!(run.verdict, Verdict::Faithful);
/// assert!(run.first_divergence.is_none());
/// ```
pub use replay::Replayer;

/// Merge two summaries (the monoid of SPEC §4.3):
///
/// ```
/// use primgraph::{Registry, ReplayGraph, ReplayOptions, Replayer, Summary};
///
/// let runs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/runs");
/// let registry = Registry::builtin();
/// let graph_bytes = std::fs::read(runs.join("fix-failing-test.graph.json")).unwrap();
/// let graph = ReplayGraph::load("g", &graph_bytes, registry).unwrap();
/// let replayer = Replayer::new(registry, graph, ReplayOptions::default());
/// let one = Summary::of_run(&replayer.replay_file(&runs.join("faithful-loop.trace.jsonl")));
/// let other = Summary::of_run(&replayer.replay_file(&runs.join("violated.trace.jsonl")));
///
/// let mut both = one.clone();
/// both.merge(&other).unwrap();
/// let mut reversed = other.clone();
/// reversed.merge(&one).unwrap();
/// assert_eq!(both, reversed);
/// assert_eq!(both.runs, 2);
/// assert_eq!(both.unfaithful(), 1);
/// assert_eq!(both.to_json()["by_verdict"]["violated"], 1);
/// ```
pub use replay::Summary;
pub use schema::{
    CompatVerdict as SchemaVerdict, Decision as SchemaDecision, Reason as SchemaReason,
    SchemaError, Side as SchemaSide,
};
pub use validate::{Options as ValidateOptions, ValidateError};

pub use input::InputError;
pub use pack::packs::{PackOptions, Packs};
pub use registry::LintError;
pub use report::{
    DEFAULT_CONFIDENCE, Request as ReportRequest, RequestError as ReportError,
    Written as ReportWritten,
};

/// The largest graph document read by default (64 MiB), as `primgraph validate` reads one.
pub const MAX_GRAPH_BYTES: usize = 64 * 1024 * 1024;

/// Read a named input as every command does: a regular file only (a FIFO, socket or device is
/// refused before it is opened, so reading never blocks), at most `limit` bytes (a larger file
/// is refused from its metadata).
///
/// ```
/// use primgraph::{InputError, MAX_GRAPH_BYTES, read_input};
/// use std::path::Path;
///
/// let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/fix-failing-test.graph.json");
/// assert!(read_input(&path, MAX_GRAPH_BYTES).unwrap().starts_with(b"{"));
/// assert!(matches!(read_input(&path, 10), Err(InputError::TooLarge { limit: 10, .. })));
/// // A folder is not a regular file.
/// let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs");
/// assert!(matches!(read_input(&folder, MAX_GRAPH_BYTES), Err(InputError::NotRegular { .. })));
/// ```
pub fn read_input(path: &Path, limit: usize) -> Result<Vec<u8>, InputError> {
    input::read_capped(path, limit)
}

/// Lint a registry file given as bytes (SPEC §1.3, `primgraph registry lint`): the located
/// L5xx findings of a file that parses, or why it is not a registry at all.
///
/// ```
/// use primgraph::{Severity, lint_registry};
///
/// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("registry/kernel-abi-1.0.0.json");
/// let findings = lint_registry(&std::fs::read(&path).unwrap()).unwrap();
/// assert!(findings.iter().all(|d| d.severity != Severity::Error));
/// // Not JSON: an error with its line and column, no findings.
/// assert!(lint_registry(b"{\n  \"abi\": ,").is_err());
/// ```
pub fn lint_registry(bytes: &[u8]) -> Result<Vec<Diagnostic>, LintError> {
    registry::lint_source(bytes)
}

/// [`validate_str`] for bytes and with options (a pack path: [`ValidateOptions::with_packs`]).
/// Bytes that are not UTF-8 are a located G001, as for a file.
///
/// ```
/// use primgraph::{PackOptions, Packs, Registry, ValidateOptions, validate_bytes};
///
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packs");
/// let graph = std::fs::read(dir.join("uses-pyfix.graph.json")).unwrap();
/// // Without the pack path the declared pack is missing; with it the graph is clean.
/// let alone = validate_bytes("g.graph.json", &graph, Registry::builtin(), &ValidateOptions::default());
/// assert!(alone.diagnostics.iter().any(|d| d.code == "P804"));
/// let packs = Packs::scan(None, &[dir.join("path")]);
/// let with = validate_bytes("g.graph.json", &graph, packs.base(), &ValidateOptions::with_packs(&packs));
/// assert!(with.diagnostics.iter().all(|d| d.code != "P804"));
///
/// let report = validate_bytes("x.graph.json", b"{\"graph\": \"\xff\"}", Registry::builtin(), &ValidateOptions::default());
/// assert_eq!(report.diagnostics[0].code, "G001");
/// ```
pub fn validate_bytes(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &ValidateOptions,
) -> FileReport {
    validate::check_source(file, bytes, registry, options)
}

/// [`validate_path`] with options (a pack path: [`ValidateOptions::with_packs`]).
///
/// ```
/// use primgraph::{Registry, ValidateOptions, validate_path_with};
///
/// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/fix-failing-test.graph.json");
/// let report = validate_path_with(&path, Registry::builtin(), &ValidateOptions::default()).unwrap();
/// assert!(report.diagnostics.is_empty());
/// ```
pub fn validate_path_with(
    path: &Path,
    registry: &Registry,
    options: &ValidateOptions,
) -> Result<FileReport, ValidateError> {
    validate::check_file(path, registry, options)
}

/// The expanded document of a graph (SPEC §9.3, `primgraph graph expand`): every fragment use
/// replaced by the fragment's nodes (IDs `use/node`); a graph without uses comes back as it
/// is. `Err`: the report of a document that does not parse, or whose uses do not expand.
///
/// ```
/// use primgraph::{Registry, ValidateOptions, expand_graph};
///
/// let graph = br#"{"graph": "g", "abi": "1.0.0", "capabilities": [], "entry": "done", "nodes": []}"#;
/// let same = expand_graph("g.graph.json", graph, Registry::builtin(), &ValidateOptions::default()).unwrap();
/// assert_eq!(same["graph"], "g");
/// assert!(expand_graph("x.graph.json", b"{", Registry::builtin(), &ValidateOptions::default()).is_err());
/// ```
pub fn expand_graph(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &ValidateOptions,
) -> Result<serde_json::Value, FileReport> {
    validate::expand_source(file, bytes, registry, options)
}

/// Write the self-contained HTML report of a graph's runs (SPEC §6.4, `primgraph report`).
///
/// ```
/// use primgraph::{DEFAULT_CONFIDENCE, Registry, ReportRequest, ValidateOptions, write_report};
/// use std::path::Path;
///
/// let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/runs");
/// let out = std::env::temp_dir().join(format!("primgraph-doctest-{}.html", std::process::id()));
/// let written = write_report(&ReportRequest {
///     registry: Registry::builtin(),
///     graph: &runs.join("fix-failing-test.graph.json"),
///     runs: &[runs.clone()],
///     baseline: None,
///     jobs: 1,
///     confidence: DEFAULT_CONFIDENCE,
///     out: &out,
///     options: &ValidateOptions::default(),
/// })
/// .unwrap();
/// assert!(written.runs > 0 && written.unfaithful > 0);
/// assert!(std::fs::read_to_string(&out).unwrap().contains("<html"));
/// std::fs::remove_file(&out).unwrap();
/// ```
pub fn write_report(request: &ReportRequest<'_>) -> Result<ReportWritten, ReportError> {
    report::write_report(request)
}

/// A summary as an HTML fragment (its figures with `confidence` intervals), as the report
/// shows it.
///
/// ```
/// use primgraph::{DEFAULT_CONFIDENCE, Summary, summary_html};
///
/// assert!(summary_html(&Summary::default(), DEFAULT_CONFIDENCE).contains("0"));
/// ```
pub fn summary_html(summary: &Summary, confidence: f64) -> String {
    report::summary_html(summary, confidence)
}

impl Cost {
    /// The spend in integer nano-USD, as replay sums it: `None` for a negative or non-finite
    /// spend, or one of `u64::MAX` nano-USD or more.
    ///
    /// ```
    /// use primgraph::Cost;
    ///
    /// assert_eq!(Cost { usd: 0.25, tokens: 0 }.usd_nanos(), Some(250_000_000));
    /// assert_eq!(Cost { usd: -1.0, tokens: 0 }.usd_nanos(), None);
    /// assert_eq!(Cost { usd: 1e11, tokens: 0 }.usd_nanos(), None);
    /// ```
    pub fn usd_nanos(&self) -> Option<u64> {
        replay::trace::usd_to_nanos(self.usd)
    }
}

/// Validate one graph document given as a string (SPEC §3); `file` is the name the report
/// carries. Never fails: a document that does not parse is a G001 diagnostic with its line
/// and column.
///
/// ```
/// use primgraph::{Registry, Severity, validate_str};
///
/// let graph = r#"{"graph": "say-done", "abi": "1.0.0", "capabilities": ["done.*"],
///   "entry": "done",
///   "nodes": [{"id": "done", "primitive": "done.finish_success", "next": "nowhere"}]}"#;
/// let report = validate_str("say-done.graph.json", graph, Registry::builtin());
/// let errors: Vec<_> = report
///     .diagnostics
///     .iter()
///     .filter(|d| d.severity == Severity::Error)
///     .map(|d| (d.code.as_str(), d.pointer.as_str(), d.line))
///     .collect();
/// // `next` names no node (S202), on line 3 of the string.
/// assert!(errors.contains(&("S202", "/nodes/0/next", 3)));
///
/// let broken = validate_str("x.graph.json", "{\n  \"graph\": ,\n}", Registry::builtin());
/// let d = &broken.diagnostics[0];
/// assert_eq!((d.code.as_str(), d.line, d.column), ("G001", 2, 12));
/// ```
pub fn validate_str(file: &str, text: &str, registry: &Registry) -> FileReport {
    validate::check_source(
        file,
        text.as_bytes(),
        registry,
        &validate::Options::default(),
    )
}

/// Read and validate one graph file; fails only when it cannot be read.
///
/// ```
/// use primgraph::{Registry, validate_path};
///
/// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/fix-failing-test.graph.json");
/// let report = validate_path(&path, Registry::builtin()).unwrap();
/// assert_eq!(report.graph.as_deref(), Some("fix-failing-test"));
/// assert!(report.diagnostics.is_empty());
/// assert!(validate_path("no/such.graph.json".as_ref(), Registry::builtin()).is_err());
/// ```
pub fn validate_path(path: &Path, registry: &Registry) -> Result<FileReport, ValidateError> {
    validate::check_file(path, registry, &validate::Options::default())
}

/// The reports as SPEC §3.1's JSON document (`{"files": […], "summary": {…}}`), as
/// `primgraph validate --format json` prints it.
///
/// ```
/// use primgraph::{Registry, diagnostics_json, validate_str};
///
/// let report = validate_str("x.graph.json", "[]", Registry::builtin());
/// let doc: serde_json::Value = serde_json::from_str(&diagnostics_json(&[report])).unwrap();
/// assert_eq!(doc["files"][0]["diagnostics"][0]["code"], "G003");
/// assert_eq!(doc["summary"]["errors"], 1);
/// ```
pub fn diagnostics_json(reports: &[FileReport]) -> String {
    diagnostic::json::render(reports)
}

/// Decide the §3.2 schema compatibility of a data edge: is every value `source` admits admitted
/// by `target`? The answer is [`SchemaDecision::Yes`], [`SchemaDecision::No`] with a witness
/// value (confirmed against both schemas), or [`SchemaDecision::Unknown`] — never a wrong yes.
/// A schema the checker cannot use at all is a [`SchemaError`].
///
/// ```
/// use primgraph::{SchemaDecision, check_schemas};
/// use serde_json::json;
///
/// let integer = json!({"type": "integer", "minimum": 0});
/// let number = json!({"type": "number"});
/// assert!(matches!(check_schemas(&integer, &number), Ok(SchemaDecision::Yes { .. })));
///
/// let Ok(SchemaDecision::No { witness, .. }) = check_schemas(&number, &integer) else {
///     panic!("a number is not always a non-negative integer");
/// };
/// // The witness is a value the source admits and the target rejects.
/// assert!(witness.is_number() && !(witness.is_u64()));
/// ```
pub fn check_schemas(
    source: &serde_json::Value,
    target: &serde_json::Value,
) -> Result<SchemaDecision, SchemaError> {
    schema::check_with_reasons(source, target)
}

/// The trace files under `paths`: each a trace file, or a folder searched recursively for
/// `*.trace.jsonl`; sorted, as [`Replayer::replay_corpus`] and `primgraph replay` take them.
///
/// ```
/// use primgraph::collect_traces;
///
/// let runs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/runs");
/// let traces = collect_traces(&[runs.clone()]).unwrap();
/// assert!(traces.len() >= 3);
/// assert!(traces.windows(2).all(|w| w[0] < w[1]));
/// assert!(traces.iter().all(|t| t.to_string_lossy().ends_with(".trace.jsonl")));
/// assert!(collect_traces(&[runs.join("no-such-folder")]).is_err());
/// ```
pub fn collect_traces(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CorpusError> {
    replay::corpus::collect_traces(paths)
}

impl Replayer<'_> {
    /// Replay one trace file, streaming it line by line. A file that cannot be opened is a
    /// `malformed` run (the report says why).
    ///
    /// ```
    /// use primgraph::{Registry, ReplayGraph, ReplayOptions, Replayer, Verdict};
    /// use std::path::Path;
    ///
    /// let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/runs");
    /// let registry = Registry::builtin();
    /// let graph_bytes = std::fs::read(runs.join("fix-failing-test.graph.json")).unwrap();
    /// let graph = ReplayGraph::load("fix-failing-test.graph.json", &graph_bytes, registry).unwrap();
    /// let replayer = Replayer::new(registry, graph, ReplayOptions::default());
    ///
    /// let run = replayer.replay_file(&runs.join("diverged.trace.jsonl"));
    /// assert_eq!(run.verdict, Verdict::Diverged);
    /// let first = run.first_divergence.as_ref().unwrap();
    /// // The fixture's sidecar names the defect the simulator put in.
    /// let sidecar = std::fs::read_to_string(runs.join("diverged.expected.json")).unwrap();
    /// let expected: serde_json::Value = serde_json::from_str(&sidecar).unwrap();
    /// assert_eq!(first.code, "D603");
    /// assert_eq!(Some(first.seq), expected["seq"].as_u64());
    /// ```
    pub fn replay_file(&self, path: &Path) -> RunReport {
        replay::corpus::replay_file(self, path)
    }

    /// Replay trace files and folders (recursively `*.trace.jsonl`, sorted) on `jobs` threads:
    /// the reports in file order and their [`Summary`], the same whatever `jobs` is.
    ///
    /// ```
    /// use primgraph::{Registry, ReplayGraph, ReplayOptions, Replayer, Summary};
    /// use std::path::{Path, PathBuf};
    ///
    /// let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/runs");
    /// let registry = Registry::builtin();
    /// let graph_bytes = std::fs::read(runs.join("fix-failing-test.graph.json")).unwrap();
    /// let graph = ReplayGraph::load("fix-failing-test.graph.json", &graph_bytes, registry).unwrap();
    /// let replayer = Replayer::new(registry, graph, ReplayOptions::default());
    ///
    /// let (reports, summary) = replayer.replay_corpus(&[runs.clone()], 2).unwrap();
    /// assert_eq!(summary.runs, reports.len() as u64);
    /// assert_eq!(summary.by_verdict["faithful"], 3);
    ///
    /// // Summaries merge exactly: two halves give the whole.
    /// let (mut first, mut second) = (Summary::default(), Summary::default());
    /// for (i, run) in reports.iter().enumerate() {
    ///     if i % 2 == 0 { first.add(run).unwrap() } else { second.add(run).unwrap() }
    /// }
    /// first.merge(&second).unwrap();
    /// assert_eq!(first, summary);
    /// ```
    pub fn replay_corpus(
        &self,
        paths: &[PathBuf],
        jobs: usize,
    ) -> Result<(Vec<RunReport>, Summary), CorpusError> {
        let files = replay::corpus::collect_traces(paths)?;
        replay::corpus::replay_corpus(self, &files, jobs, &|| {})
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn max_graph_bytes_is_the_parser_default() {
        assert_eq!(
            super::MAX_GRAPH_BYTES,
            crate::json::Limits::default().max_bytes
        );
    }
}
