//! `registry diff OLD NEW` (SPEC §6.1): every difference between two registry files as a
//! located diagnostic V701–V720, the semver bump the differences require (and V718 when NEW's
//! `abi` does not rise that much), and the graph-aware gate (V719) that validates real graphs
//! under both. This module owns the two loaded sides ([`DiffSide`]), the findings
//! ([`Finding`]: a common [`Diagnostic`] plus where it lives and what bump it requires) and the
//! driver [`diff`]; the comparisons live one concern per file: `contract` (the primitive set,
//! aliases and every non-schema field), `schemas` (inputs/outputs through the §3.2 checker),
//! `locations` (output locations and the `x-*` annotations, location by location), [`graphs`]
//! (V719), [`bump`] (semver and V718), [`render`] (human, JSON, SARIF, Markdown) and `codes`
//! (the documentation `primgraph explain V7xx` prints). [`edits`] makes seeded edits of a
//! registry for benchmarks and property tests.

pub mod bump;
mod codes;
mod contract;
pub mod edits;
pub mod graphs;
mod locations;
pub mod render;
mod schemas;

pub use bump::{Bump, Version};

use crate::diagnostic::{self, Diagnostic, FileReport, Severity};
use crate::json::Parsed;
use crate::registry::{BUILTIN_JSON, LIMITS, LintError, Registry};
use std::path::PathBuf;
use std::sync::Arc;

/// The file name reported for the embedded registry.
pub const BUILTIN_FILE: &str = "<builtin kernel-abi-1.0.0.json>";

enum Loaded {
    Builtin(&'static Registry),
    Owned(Box<Registry>),
}

/// One side of a diff: a registry, its file name and its spanned source (to locate pointers).
pub struct DiffSide {
    file: String,
    registry: Loaded,
    parsed: Parsed,
}

/// Why a side cannot be diffed.
#[derive(Debug)]
pub enum SideError {
    /// Not a registry at all (not JSON, wrong shape, too large), located in the file; `line`
    /// 0 when the file could not be read at all (missing, not a regular file, too large).
    Unusable {
        file: String,
        line: u32,
        column: u32,
        message: String,
    },
    /// A registry that fails its own lint (L501–L510): a diff of it means nothing.
    Lint(FileReport),
}

impl std::fmt::Display for SideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SideError::Unusable {
                file,
                line,
                column,
                message,
            } if *line == 0 => write!(f, "{file}: {message}"),
            SideError::Unusable {
                file,
                line,
                column,
                message,
            } => write!(f, "{file}:{line}:{column}: not a registry: {message}"),
            SideError::Lint(report) => write!(
                f,
                "{} fails its own lint ({} finding{}); fix it with `primgraph registry lint` first",
                report.file,
                report.diagnostics.len(),
                if report.diagnostics.len() == 1 {
                    ""
                } else {
                    "s"
                }
            ),
        }
    }
}

impl std::error::Error for SideError {}

impl DiffSide {
    /// The embedded Kernel ABI 1.0.0 (checked by the build, so it needs no lint here).
    pub fn builtin() -> DiffSide {
        let parsed = crate::json::parse(BUILTIN_JSON.as_bytes(), &LIMITS)
            .expect("the frozen registry is checked at build time");
        DiffSide {
            file: BUILTIN_FILE.to_string(),
            registry: Loaded::Builtin(Registry::builtin()),
            parsed,
        }
    }

    /// Load a registry file's bytes and lint it: unusable input and lint findings are errors.
    pub fn load(file: &str, bytes: &[u8]) -> Result<DiffSide, SideError> {
        let side = DiffSide::load_unlinted(file, bytes)?;
        match crate::registry::lint_source(bytes) {
            Ok(findings) if findings.is_empty() => Ok(side),
            Ok(findings) => Err(side.lint_report(findings)),
            Err(error) => Err(unusable(file, &error)),
        }
    }

    /// Load without the lint (the registry must still parse and have distinct IDs and
    /// aliases): for embedders and tests that diff registries they know to be broken.
    pub fn load_unlinted(file: &str, bytes: &[u8]) -> Result<DiffSide, SideError> {
        let parsed = crate::json::parse(bytes, &LIMITS);
        let registry = Registry::from_slice(bytes, file);
        match (parsed, registry) {
            (Ok(parsed), Ok(registry)) => Ok(DiffSide {
                file: file.to_string(),
                registry: Loaded::Owned(Box::new(registry)),
                parsed,
            }),
            (_, Err(load_error)) => {
                // The lint locates what the loader refuses: a JSON or shape error, or a finding
                // such as a duplicate key or ID.
                Err(match crate::registry::lint_source(bytes) {
                    Err(error) => unusable(file, &error),
                    Ok(findings) if !findings.is_empty() => SideError::Lint(FileReport {
                        file: file.to_string(),
                        graph: None,
                        diagnostics: findings,
                        source: Arc::from(String::from_utf8_lossy(bytes).as_ref()),
                    }),
                    Ok(_) => SideError::Unusable {
                        file: file.to_string(),
                        line: 1,
                        column: 1,
                        message: load_error.to_string(),
                    },
                })
            }
            (Err(error), Ok(_)) => Err(SideError::Unusable {
                file: file.to_string(),
                line: error.span.line,
                column: error.span.column,
                message: error.to_string(),
            }),
        }
    }

    /// A side from a registry already in hand and the document its findings point into (`pack
    /// diff`, SPEC §9.6: a pack's primitives as a registry, located in its `pack.json`, whose
    /// `/primitives/N` are the registry's primitives in order).
    pub fn from_registry(file: &str, registry: Registry, parsed: Parsed) -> DiffSide {
        DiffSide {
            file: file.to_string(),
            registry: Loaded::Owned(Box::new(registry)),
            parsed,
        }
    }

    /// Read and load a file, or `builtin` for the embedded registry.
    pub fn open(path: &str) -> Result<DiffSide, SideError> {
        if path == "builtin" {
            return Ok(DiffSide::builtin());
        }
        // A file that cannot be read has no position in it: `line` 0 says so (no `:1:1:`).
        let bytes = crate::input::read_capped(std::path::Path::new(path), LIMITS.max_bytes)
            .map_err(|e| SideError::Unusable {
                file: path.to_string(),
                line: 0,
                column: 0,
                message: unreadable(&e),
            })?;
        DiffSide::load(path, &bytes)
    }

    fn lint_report(&self, findings: Vec<Diagnostic>) -> SideError {
        SideError::Lint(FileReport {
            file: self.file.clone(),
            graph: None,
            diagnostics: findings,
            source: self.parsed.source_arc(),
        })
    }

    pub fn file(&self) -> &str {
        &self.file
    }

    pub fn registry(&self) -> &Registry {
        match &self.registry {
            Loaded::Builtin(r) => r,
            Loaded::Owned(r) => r,
        }
    }

    pub fn parsed(&self) -> &Parsed {
        &self.parsed
    }
}

/// Why a named file could not be read, without repeating its path: a missing file says so.
fn unreadable(error: &crate::input::InputError) -> String {
    use crate::input::InputError;
    match error {
        InputError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            "no such file (it is missing)".into()
        }
        InputError::Io { source, .. } => format!("cannot read: {source}"),
        InputError::NotRegular { kind, .. } => format!("not a regular file (it is {kind})"),
        InputError::TooLarge { size, limit, .. } => {
            format!("the file is {size} bytes, over the limit of {limit} for a registry")
        }
    }
}

fn unusable(file: &str, error: &LintError) -> SideError {
    let (line, column) = error.location();
    SideError::Unusable {
        file: file.to_string(),
        line,
        column,
        message: error.to_string(),
    }
}

/// Which document a finding's pointer is into.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    /// OLD: a removal (the thing is gone from NEW).
    Old,
    New,
    /// A graph file (V719).
    Graph(String),
}

/// The verdict of the §3.2 checker behind a schema finding (V705, V706, V720).
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaVerdict {
    /// `"no"`, `"unknown"` or `"yes"`.
    pub verdict: &'static str,
    /// The checker's reason (for `unknown`: why it could not decide).
    pub reason: String,
}

/// One difference: the common diagnostic, the primitive it is about, the document it points
/// into and the version bump it requires.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub diagnostic: Diagnostic,
    pub primitive: Option<String>,
    pub place: Place,
    pub bump: Bump,
    pub verdict: Option<SchemaVerdict>,
    /// For a finding in OLD: the nearest place in NEW (where a renderer that shows only NEW's
    /// file, SARIF, puts it).
    pub new_anchor: Option<String>,
    /// For a finding in OLD: the diagnostic moved to its `new_anchor` (NEW's root without one) and located in NEW,
    /// its message saying where it is in OLD (resolved with the diff, so no renderer parses NEW
    /// again).
    pub shown_in_new: Option<Box<Diagnostic>>,
}

/// One side's identity in the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideInfo {
    pub file: String,
    pub abi: String,
}

/// Graphs checked by the gate (`--graphs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GateSummary {
    pub checked: usize,
    /// Graphs with errors under OLD already (not V719 candidates).
    pub failing_under_old: usize,
    /// Graphs that break under NEW (one V719 each).
    pub broken: usize,
}

/// The result of a diff, findings sorted (file, line, column, code).
#[derive(Debug, Clone)]
pub struct RegistryDiff {
    pub old: SideInfo,
    pub new: SideInfo,
    pub required_bump: Bump,
    pub findings: Vec<Finding>,
    pub gate: Option<GateSummary>,
    /// A `pack diff` (SPEC §9.6): the sides are packs, whose `abi` here is their `version`.
    pub pack: bool,
    old_source: Arc<str>,
    new_source: Arc<str>,
    graph_sources: Vec<(String, Arc<str>)>,
}

/// Counts by severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl RegistryDiff {
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for f in &self.findings {
            match f.diagnostic.severity {
                Severity::Error => counts.errors += 1,
                Severity::Warning => counts.warnings += 1,
                Severity::Info => counts.infos += 1,
            }
        }
        counts
    }

    /// Whether the diff should fail a gate: errors, or warnings with `deny_warnings`.
    pub fn fails(&self, deny_warnings: bool) -> bool {
        let counts = self.counts();
        counts.errors > 0 || (deny_warnings && counts.warnings > 0)
    }

    /// The findings of one code (tests, embedders).
    pub fn of_code<'a>(&'a self, code: &'a str) -> impl Iterator<Item = &'a Finding> + 'a {
        self.findings
            .iter()
            .filter(move |f| f.diagnostic.code == code)
    }

    fn file_of<'a>(&'a self, place: &'a Place) -> &'a str {
        match place {
            Place::Old => &self.old.file,
            Place::New => &self.new.file,
            Place::Graph(file) => file,
        }
    }
}

/// Where the comparisons put their findings.
pub(crate) struct Sink {
    findings: Vec<Finding>,
}

/// What one finding says, before it is located.
pub(crate) struct Draft {
    pub code: &'static crate::codes::Code,
    pub severity: Severity,
    pub bump: Bump,
    pub place: Place,
    pub primitive: Option<String>,
    pub pointer: String,
    pub message: String,
    pub help: String,
}

/// The severity and bump of each kind of change, written once: an incompatible change, one a
/// reviewer must look at, a compatible addition, and metadata.
pub(crate) const BREAKING: (Severity, Bump) = (Severity::Error, Bump::Major);
pub(crate) const REVIEW: (Severity, Bump) = (Severity::Warning, Bump::Minor);
pub(crate) const COMPATIBLE: (Severity, Bump) = (Severity::Info, Bump::Minor);
pub(crate) const METADATA: (Severity, Bump) = (Severity::Info, Bump::Patch);

impl Draft {
    /// A finding about primitive `id`, located in NEW (where most findings are).
    pub(crate) fn in_new(
        code: &'static crate::codes::Code,
        (severity, bump): (Severity, Bump),
        id: &str,
        pointer: String,
        message: String,
        help: impl Into<String>,
    ) -> Draft {
        Draft {
            code,
            severity,
            bump,
            place: Place::New,
            primitive: Some(id.to_string()),
            pointer,
            message,
            help: help.into(),
        }
    }
}

impl Sink {
    pub(crate) fn push(&mut self, draft: Draft) -> &mut Finding {
        let diagnostic = draft
            .code
            .at_severity(draft.severity, draft.pointer, draft.message)
            .with_help(draft.help);
        self.findings.push(Finding {
            diagnostic,
            primitive: draft.primitive,
            place: draft.place,
            bump: draft.bump,
            verdict: None,
            new_anchor: None,
            shown_in_new: None,
        });
        self.findings.last_mut().expect("just pushed")
    }
}

/// The pointer of a primitive's field: `/primitives/3/inputs`.
pub(crate) fn field_pointer(p: &crate::registry::Primitive, field: &str) -> String {
    if field.is_empty() {
        format!("/primitives/{}", p.index)
    } else {
        format!("/primitives/{}/{field}", p.index)
    }
}

/// Compare OLD with NEW: every difference of §6.1 but V719, the required bump and V718.
pub fn diff(old: &DiffSide, new: &DiffSide) -> RegistryDiff {
    finish(old, new, compare(old, new), None, Vec::new(), "/abi")
}

/// The §6.1 comparison of two sides plus findings of the caller's own, in the same report,
/// the same required bump and the same V718 rule: `pack diff` (SPEC §9.6) adds its fragment
/// (P860/P861) and rule (P862) findings and its own `--graphs` gate. `extra` findings in
/// [`Place::Old`]/[`Place::New`] are located here; [`Place::Graph`] ones must be located
/// already, with their file's text in `sources`. `version_pointer` is where NEW states the
/// version V718 checks (`/version` of a `pack.json`).
pub fn diff_with(
    old: &DiffSide,
    new: &DiffSide,
    extra: Vec<Finding>,
    gate: Option<GateSummary>,
    sources: Vec<(String, Arc<str>)>,
    version_pointer: &str,
) -> RegistryDiff {
    let mut sink = compare(old, new);
    sink.findings.extend(extra);
    finish(old, new, sink, gate, sources, version_pointer)
}

/// [`diff`], then the graph-aware gate over `paths` (files, or folders searched recursively for
/// `*.graph.json`): V719 per graph valid under OLD that has errors under NEW.
pub fn diff_with_graphs(
    old: &DiffSide,
    new: &DiffSide,
    paths: &[PathBuf],
) -> Result<RegistryDiff, graphs::GateError> {
    let none = crate::validate::Options::default();
    diff_with_graphs_on(old, new, paths, (&none, &none))
}

/// [`diff_with_graphs`] with the validation options of each side: a pack path whose composer
/// is built over OLD's registry, and one over NEW's (`registry diff --pack`), so graphs that
/// declare packs are checked with them.
pub fn diff_with_graphs_on(
    old: &DiffSide,
    new: &DiffSide,
    paths: &[PathBuf],
    options: (&crate::validate::Options, &crate::validate::Options),
) -> Result<RegistryDiff, graphs::GateError> {
    let mut sink = compare(old, new);
    let gated = graphs::gate(old, new, paths, options)?;
    sink.findings.extend(gated.findings);
    Ok(finish(
        old,
        new,
        sink,
        Some(gated.summary),
        gated.sources,
        "/abi",
    ))
}

fn compare(old: &DiffSide, new: &DiffSide) -> Sink {
    let mut sink = Sink {
        findings: Vec::new(),
    };
    let (old_reg, new_reg) = (old.registry(), new.registry());
    contract::compare_sets(&mut sink, old_reg, new_reg);
    for old_prim in old_reg.primitives() {
        let Some(new_prim) = new_reg.lookup(&old_prim.id).filter(|p| p.id == old_prim.id) else {
            continue;
        };
        contract::compare_fields(&mut sink, old_prim, new_prim);
        schemas::compare(
            &mut sink,
            old_reg,
            new_reg,
            old_prim,
            new_prim,
            new.parsed(),
        );
        locations::compare(&mut sink, old_prim, new_prim);
    }
    sink
}

fn finish(
    old: &DiffSide,
    new: &DiffSide,
    mut sink: Sink,
    gate: Option<GateSummary>,
    graph_sources: Vec<(String, Arc<str>)>,
    version_pointer: &str,
) -> RegistryDiff {
    let old_info = SideInfo {
        file: old.file.clone(),
        abi: old.registry().abi().to_string(),
    };
    let new_info = SideInfo {
        file: new.file.clone(),
        abi: new.registry().abi().to_string(),
    };
    let required = sink
        .findings
        .iter()
        .map(|f| f.bump)
        .max()
        .unwrap_or(Bump::None);
    bump::check_rise(&mut sink, &old_info.abi, &new_info.abi, required);
    if version_pointer != "/abi" {
        // A pack's `version` (SPEC §9.6), worded as such.
        for f in sink
            .findings
            .iter_mut()
            .filter(|f| f.diagnostic.code == crate::codes::V718.code)
        {
            f.diagnostic.pointer = version_pointer.to_string();
            f.diagnostic.message = f.diagnostic.message.replace("abi", "version");
            if let Some(help) = &mut f.diagnostic.help {
                *help = help
                    .replace("`abi`", "`version`")
                    .replace("; graphs target a registry of the same major and a minor at least theirs (G005)", "");
            }
        }
    }
    for finding in &mut sink.findings {
        let parsed = match &finding.place {
            Place::Old => old.parsed(),
            Place::New => new.parsed(),
            // Graph findings are located by the gate against their own file.
            Place::Graph(_) => continue,
        };
        diagnostic::resolve(std::slice::from_mut(&mut finding.diagnostic), parsed);
        if finding.place == Place::Old {
            let mut moved = finding.diagnostic.clone();
            moved.message = format!(
                "{} (in OLD: {}:{}:{}, {})",
                moved.message, old_info.file, moved.line, moved.column, moved.pointer
            );
            moved.pointer = finding.new_anchor.clone().unwrap_or_default();
            diagnostic::resolve(std::slice::from_mut(&mut moved), new.parsed());
            finding.shown_in_new = Some(Box::new(moved));
        }
    }
    let mut diff = RegistryDiff {
        old: old_info,
        new: new_info,
        required_bump: required,
        findings: Vec::new(),
        gate,
        pack: version_pointer != "/abi",
        old_source: old.parsed().source_arc(),
        new_source: new.parsed().source_arc(),
        graph_sources,
    };
    let mut findings = sink.findings;
    findings.sort_by(|a, b| {
        let (da, db) = (&a.diagnostic, &b.diagnostic);
        (
            diff.file_of(&a.place),
            da.line,
            da.column,
            &da.code,
            &da.pointer,
            &da.message,
        )
            .cmp(&(
                diff.file_of(&b.place),
                db.line,
                db.column,
                &db.code,
                &db.pointer,
                &db.message,
            ))
    });
    diff.findings = findings;
    diff
}
