//! `primgraph import` (SPEC §10): runs recorded by other tools — Inspect AI logs (`inspect`),
//! OpenTelemetry GenAI spans (`otel`), OpenAI Agents SDK traces (`agents`) — turned into §4.1
//! traces, one per run, so that replay, summaries, `graph diff` and `compare` work on them
//! unchanged. Each format's reader (`inspect`, `otel`, `agents`) streams its source into
//! [`SourceRun`]s, the source's own vocabulary (tool calls, arguments, results, scores); `convert`
//! maps one onto the graph through the mapping file (`map`) and writes it with the
//! [`TraceWriter`](crate::replay::TraceWriter), to a temporary name renamed when complete.
//! Findings are I901–I904 (`codes/`), each located by file, zip entry, sample and JSON pointer.
//! The library prints nothing: the command line renders the [`ImportReport`].

pub mod agents;
pub mod codes;
mod convert;
pub mod inspect;
pub mod map;
pub mod otel;
mod pipeline;
mod skim;

pub use map::{MapError, Mapping};

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::registry::Registry;
use crate::replay::{ReplayGraph, SealKey};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The importer's name and version, written into every header's `imported.importer`.
pub const IMPORTER: &str = concat!("primgraph ", env!("CARGO_PKG_VERSION"));

/// A source format (SPEC §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Inspect AI: an `.eval` log (a zip of per-sample JSON) or its `.json` form.
    Inspect,
    /// OTLP/JSON span files following the GenAI semantic conventions.
    Otel,
    /// The OpenAI Agents SDK's exported traces.
    OpenaiAgents,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Inspect => "inspect",
            Format::Otel => "otel",
            Format::OpenaiAgents => "openai-agents",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "inspect" => Some(Format::Inspect),
            "otel" => Some(Format::Otel),
            "openai-agents" => Some(Format::OpenaiAgents),
            _ => None,
        }
    }
}

/// Where in a source a finding is: the file, the zip entry, the sample (or trace), the JSON
/// pointer within that entry or document, and the line and column when the source is text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    pub file: String,
    pub entry: Option<String>,
    pub sample: Option<String>,
    pub pointer: String,
    pub line: u32,
    pub column: u32,
}

impl Location {
    pub(crate) fn file(file: &str) -> Location {
        Location {
            file: file.to_string(),
            ..Location::default()
        }
    }

    pub(crate) fn with_pointer(&self, pointer: impl Into<String>) -> Location {
        Location {
            pointer: pointer.into(),
            ..self.clone()
        }
    }

    /// `file!entry` (the zip entry, when there is one).
    pub fn source(&self) -> String {
        match &self.entry {
            Some(e) => format!("{}!{e}", self.file),
            None => self.file.clone(),
        }
    }

    /// One line for people: `file!entry:line:column (sample S) at /pointer`.
    pub fn describe(&self) -> String {
        let mut s = self.source();
        if self.line > 0 {
            s.push_str(&format!(":{}:{}", self.line, self.column.max(1)));
        }
        if let Some(sample) = &self.sample {
            s.push_str(&format!(" (sample {sample})"));
        }
        if !self.pointer.is_empty() {
            s.push_str(&format!(" at {}", self.pointer));
        }
        s
    }
}

/// One finding of an import: the common diagnostic (code, severity, message, pointer, line,
/// column, help) and where in the source it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportDiagnostic {
    pub diagnostic: Diagnostic,
    pub location: Location,
}

impl ImportDiagnostic {
    pub(crate) fn new(code: &'static Code, location: Location, message: impl Into<String>) -> Self {
        let mut diagnostic = code.at(location.pointer.clone(), message);
        diagnostic.line = location.line;
        diagnostic.column = location.column;
        ImportDiagnostic {
            diagnostic,
            location,
        }
    }

    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(&self.diagnostic).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("file".into(), Value::from(self.location.file.clone()));
            m.insert(
                "entry".into(),
                self.location.entry.clone().map_or(Value::Null, Value::from),
            );
            m.insert(
                "sample".into(),
                self.location
                    .sample
                    .clone()
                    .map_or(Value::Null, Value::from),
            );
        }
        v
    }
}

/// One run as a source records it, before mapping.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SourceRun {
    /// The run's identifier in its source (log and sample and epoch, trace ID).
    pub id: String,
    /// The trace's file name without `.trace.jsonl` (sanitised; collisions get `-2`, …).
    pub file_stem: String,
    /// The header's `input` (SPEC §10): `{"input": TEXT}`, `{"messages": […]}` or `{}`.
    pub input: Value,
    pub steps: Vec<SourceStep>,
    /// The run's final answer, when the source has one.
    pub final_text: Option<String>,
    /// Scores in the source's order: scorer name and value.
    pub scores: Vec<(String, Value)>,
    /// The root span's status is an error (sources without scores).
    pub root_failed: bool,
    /// Where the run is (file, entry, sample).
    pub location: Location,
}

/// What kind of source record a step comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StepKind {
    /// A tool call: always a step (unmapped ones with `"node": null`).
    #[default]
    Tool,
    /// A nested agent span (OTel `invoke_agent` below the root): always a step, like a tool,
    /// but found only by its name in `[tools]` or as a node ID, never by a primitive.
    Agent,
    /// Any other span: a step only where its name is mapped.
    Span,
}

/// One tool call (or mapped span) as the source recorded it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SourceStep {
    /// The tool or span name.
    pub name: String,
    pub kind: StepKind,
    /// The call's arguments; `None`: not captured.
    pub arguments: Option<Value>,
    /// The call's result; `None`: not captured (or the call failed).
    pub result: Option<Value>,
    /// The error, when the call failed: a message string or an object.
    pub error: Option<Value>,
    /// Where the step is in the source (pointer within the sample or document).
    pub location: Location,
}

/// What to import into.
pub struct ImportOptions<'a> {
    pub registry: &'a Registry,
    pub graph: &'a ReplayGraph,
    pub mapping: Mapping,
    /// The folder the traces are written to (created when missing).
    pub out: PathBuf,
    /// Seal every trace with this key (it proves only that the trace was not edited after
    /// import).
    pub seal: Option<SealKey>,
    /// Largest inflated size of one `.eval` entry, and of one JSON source file.
    pub max_entry_bytes: u64,
}

/// The default [`ImportOptions::max_entry_bytes`]: 1 GiB.
pub const DEFAULT_MAX_ENTRY_BYTES: u64 = 1 << 30;

/// A run written.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenRun {
    /// The header's `run`.
    pub run: String,
    /// The trace file.
    pub trace: PathBuf,
    pub steps: u64,
    pub partial_steps: u64,
    pub unmapped_steps: u64,
    pub end: &'static str,
}

/// The end of an import: what was written and found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImportSummary {
    pub sources: u64,
    pub runs: u64,
    pub steps: u64,
    pub partial_steps: u64,
    /// Unmapped tool or span names, with how many steps had each.
    pub unmapped: BTreeMap<String, u64>,
    pub errors: u64,
    pub warnings: u64,
    /// Findings counted above but not listed in the report, by code: past
    /// [`DIAGNOSTICS_LISTED_PER_CODE`] of one code (a log of 150,000 samples each missing the
    /// same mapping would otherwise hold 150,000 alike warnings in memory and print them all).
    pub unlisted: BTreeMap<String, u64>,
}

impl ImportSummary {
    pub fn to_json(&self) -> Value {
        json!({
            "sources": self.sources,
            "runs": self.runs,
            "steps": self.steps,
            "partial_steps": self.partial_steps,
            "unmapped": Value::Object(self.unmapped.iter().map(|(k, v)| (k.clone(), Value::from(*v))).collect::<Map<_, _>>()),
            "errors": self.errors,
            "warnings": self.warnings,
            "unlisted": Value::Object(self.unlisted.iter().map(|(k, v)| (k.clone(), Value::from(*v))).collect::<Map<_, _>>()),
        })
    }
}

/// How many findings of one code an import lists in its report; the rest are counted (in the
/// summary's errors and warnings, and in `unlisted`), not kept, so an import's memory does not
/// grow with a finding repeated in every sample.
pub const DIAGNOSTICS_LISTED_PER_CODE: u64 = 1_000;

/// Everything an import produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImportReport {
    pub runs: Vec<WrittenRun>,
    pub diagnostics: Vec<ImportDiagnostic>,
    pub summary: ImportSummary,
}

impl ImportReport {
    pub fn to_json(&self) -> Value {
        json!({
            "runs": self.runs.iter().map(|r| json!({
                "run": r.run, "trace": r.trace.display().to_string(), "steps": r.steps,
                "partial_steps": r.partial_steps, "unmapped_steps": r.unmapped_steps, "end": r.end,
            })).collect::<Vec<_>>(),
            "diagnostics": self.diagnostics.iter().map(ImportDiagnostic::to_json).collect::<Vec<_>>(),
            "summary": self.summary.to_json(),
        })
    }
}

/// Why an import could not run at all (as opposed to findings in a source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    #[error("cannot create {path}: {source}")]
    OutDir {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}: {message}")]
    Write { path: String, message: String },
}

/// The state of one import: the options, the names taken, the report being built, and the
/// threads that write the traces.
pub struct Importer<'a> {
    /// Shared with the threads that parse and map samples (`inspect`'s pipeline).
    options: std::sync::Arc<ImportOptions<'a>>,
    taken: HashSet<String>,
    /// Findings listed so far, by code (see [`DIAGNOSTICS_LISTED_PER_CODE`]).
    listed: HashMap<String, u64>,
    report: ImportReport,
    writer: Option<Writer>,
    /// The output folder was empty when the import began: no trace in it to leave unchanged.
    fresh: bool,
}

/// A trace rendered, or why it could not be.
type TraceBytes = Result<Vec<u8>, String>;

/// The traces are written on threads of their own ([`WRITERS`]), taken in the order they are
/// planned, [`WRITE_BATCH`] at a time (a thread woken per trace cost more in the scheduler
/// than the write): creating a file costs the file system about as much as reading and
/// mapping a sample, and the two overlap; on a file system where creating a file is slow (the
/// kernel's own work, see docs/import.md) two threads create two at once. The first failure
/// stops them; the import learns of it at its next batch or at the end.
struct Writer {
    sender: std::sync::mpsc::SyncSender<Vec<(TraceBytes, PathBuf)>>,
    /// Traces not yet handed to the threads.
    pending: Vec<(TraceBytes, PathBuf)>,
    threads: Vec<std::thread::JoinHandle<Result<(), ImportError>>>,
}

/// How many threads write traces.
const WRITERS: usize = 2;
/// How many traces a writing thread is handed at once.
const WRITE_BATCH: usize = 8;

impl Writer {
    /// `fresh`: the output folder was empty when the import began (see [`convert::write`]).
    fn start(fresh: bool) -> Writer {
        // A few batches in flight: the reader never runs far ahead of the disk.
        let (sender, receiver) =
            std::sync::mpsc::sync_channel::<Vec<(TraceBytes, PathBuf)>>(WRITERS);
        let receiver = std::sync::Arc::new(std::sync::Mutex::new(receiver));
        let failed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let threads = (0..WRITERS)
            .map(|_| {
                let receiver = std::sync::Arc::clone(&receiver);
                let failed = std::sync::Arc::clone(&failed);
                std::thread::spawn(move || {
                    loop {
                        if failed.load(std::sync::atomic::Ordering::Relaxed) {
                            return Ok(());
                        }
                        // The lock is held only to take the next trace, not while writing it.
                        let next = match receiver.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => return Ok(()),
                        };
                        let Ok(batch) = next else {
                            return Ok(());
                        };
                        // A batch taken is written whole, as a trace taken was: the traces
                        // before a failure, in the order planned, are never lost to it.
                        for (bytes, path) in batch {
                            if let Err(e) = convert::write(&bytes, &path, fresh) {
                                failed.store(true, std::sync::atomic::Ordering::Relaxed);
                                return Err(e);
                            }
                        }
                    }
                })
            })
            .collect();
        Writer {
            sender,
            pending: Vec::with_capacity(WRITE_BATCH),
            threads,
        }
    }

    /// Hand the traces not yet handed over to the threads, in `parts` batches; `false` when
    /// they stopped (at a failure).
    fn hand_over(&mut self, parts: usize) -> bool {
        let pending = std::mem::replace(&mut self.pending, Vec::with_capacity(WRITE_BATCH));
        pipeline::split_into(pending, parts).all(|batch| self.sender.send(batch).is_ok())
    }

    /// Wait for every trace planned to be written; the first failure.
    fn join(mut self) -> Result<(), ImportError> {
        // The last traces shared between the threads. When the threads stopped, their failure
        // is the answer.
        self.hand_over(WRITERS);
        drop(self.sender);
        let mut result = Ok(());
        for thread in self.threads {
            let joined = thread.join().unwrap_or_else(|_| {
                Err(ImportError::Write {
                    path: String::new(),
                    message: "the thread writing the traces stopped".into(),
                })
            });
            if result.is_ok() {
                result = joined;
            }
        }
        result
    }
}

impl<'a> Importer<'a> {
    pub fn new(options: ImportOptions<'a>) -> Result<Importer<'a>, ImportError> {
        std::fs::create_dir_all(&options.out).map_err(|source| ImportError::OutDir {
            path: options.out.display().to_string(),
            source,
        })?;
        // Nothing in the folder: no trace to compare with (a first import).
        let fresh =
            std::fs::read_dir(&options.out).is_ok_and(|mut entries| entries.next().is_none());
        let writer = Writer::start(fresh);
        Ok(Importer {
            options: std::sync::Arc::new(options),
            taken: HashSet::new(),
            listed: HashMap::new(),
            report: ImportReport::default(),
            writer: Some(writer),
            fresh,
        })
    }

    /// Import one source file of `format`.
    pub fn import_path(&mut self, format: Format, path: &Path) -> Result<(), ImportError> {
        self.report.summary.sources += 1;
        let max = self.options.max_entry_bytes;
        match format {
            Format::Inspect => inspect::read(path, max, self),
            Format::Otel => otel::read(path, max, self),
            Format::OpenaiAgents => agents::read(path, max, self),
        }
    }

    /// Record a finding.
    pub(crate) fn diagnose(&mut self, d: ImportDiagnostic) {
        match d.diagnostic.severity {
            crate::codes::Severity::Error => self.report.summary.errors += 1,
            crate::codes::Severity::Warning => self.report.summary.warnings += 1,
            crate::codes::Severity::Info => {}
        }
        let code = d.diagnostic.code.as_str();
        let listed = match self.listed.get_mut(code) {
            Some(n) => n,
            None => self.listed.entry(code.to_owned()).or_default(),
        };
        if *listed < DIAGNOSTICS_LISTED_PER_CODE {
            *listed += 1;
            self.report.diagnostics.push(d);
        } else {
            *self
                .report
                .summary
                .unlisted
                .entry(code.to_owned())
                .or_default() += 1;
        }
    }

    /// The options, for threads that map runs while this importer records them.
    pub(crate) fn shared_options(&self) -> std::sync::Arc<ImportOptions<'a>> {
        std::sync::Arc::clone(&self.options)
    }

    /// Map and write one run.
    pub(crate) fn run(&mut self, format: Format, run: SourceRun) -> Result<(), ImportError> {
        let converted = convert::convert(&self.options, format, run);
        self.accept(converted)
    }

    /// Record and write one run mapped already (by [`convert::convert`], perhaps on another
    /// thread): its findings, its file name (taken in the order runs are accepted), its counts.
    pub(crate) fn accept(&mut self, converted: convert::Converted) -> Result<(), ImportError> {
        for d in converted.diagnostics {
            self.diagnose(d);
        }
        let name = self.file_name(&converted.file_stem);
        let path = self.options.out.join(format!("{name}.trace.jsonl"));
        let mut written = converted.written;
        written.trace = path.clone();
        self.send(converted.bytes, path)?;
        let s = &mut self.report.summary;
        s.runs += 1;
        s.steps += written.steps;
        s.partial_steps += written.partial_steps;
        for (n, c) in converted.unmapped {
            *s.unmapped.entry(n).or_insert(0) += c;
        }
        self.report.runs.push(written);
        Ok(())
    }

    /// Hand a trace to the writer; a write that failed before stops the import here.
    fn send(&mut self, bytes: TraceBytes, path: PathBuf) -> Result<(), ImportError> {
        let Some(writer) = &mut self.writer else {
            return convert::write(&bytes, &path, self.fresh);
        };
        writer.pending.push((bytes, path));
        if writer.pending.len() >= WRITE_BATCH && !writer.hand_over(1) {
            // The writer stopped at a failure: that failure is the import's.
            return self.complete();
        }
        Ok(())
    }

    /// Wait until every trace planned so far is written; the first write that failed.
    pub fn complete(&mut self) -> Result<(), ImportError> {
        match self.writer.take() {
            Some(writer) => {
                let result = writer.join();
                if result.is_ok() {
                    self.writer = Some(Writer::start(self.fresh));
                }
                result
            }
            None => Ok(()),
        }
    }

    /// A file name for a run not yet used in this import: runs whose IDs collide after
    /// sanitising get `-2`, `-3`, … in the order they are met.
    fn file_name(&mut self, stem: &str) -> String {
        let mut name = stem.to_string();
        let mut k = 1;
        while !self.taken.insert(name.clone()) {
            k += 1;
            name = format!("{stem}-{k}");
        }
        name
    }

    /// The report. Call [`Importer::complete`] first to learn whether every trace was written.
    pub fn finish(mut self) -> ImportReport {
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
        self.report
    }
}

/// Import `sources` of `format` (the library entry point behind `primgraph import`).
pub fn import_paths(
    format: Format,
    sources: &[PathBuf],
    options: ImportOptions<'_>,
) -> Result<ImportReport, ImportError> {
    let mut importer = Importer::new(options)?;
    for path in sources {
        importer.import_path(format, path)?;
    }
    importer.complete()?;
    Ok(importer.finish())
}

/// One document of a file of JSON documents, or why it could not be read.
pub(crate) enum Document<T> {
    /// The document and the line and column of its first byte.
    Read(T, u32, u32),
    /// A document that does not parse: the I901 error, located by line and column in the file.
    Failed(Box<ImportDiagnostic>),
}

/// The JSON documents of a file one after another (JSON Lines, or documents spanning lines).
/// A document that does not parse is reported — invalid UTF-8 and duplicate keys named, by the
/// line it is on — and reading resumes at the next line that starts a document (`{` or `[` in
/// column 1), so that one damaged line of a collector's file loses that line only.
pub(crate) struct Documents<'b, T> {
    bytes: &'b [u8],
    base: usize,
    location: Location,
    what: &'static str,
    stream: serde_json::StreamDeserializer<'b, serde_json::de::SliceRead<'b>, T>,
}

impl<'b, T: serde::de::DeserializeOwned> Documents<'b, T> {
    pub(crate) fn new(bytes: &'b [u8], location: Location, what: &'static str) -> Self {
        Documents {
            bytes,
            base: 0,
            location,
            what,
            stream: serde_json::Deserializer::from_slice(bytes).into_iter(),
        }
    }

    /// The byte offset of a serde_json error (its line and column within the current slice).
    fn offset_of(&self, e: &serde_json::Error) -> usize {
        let slice = &self.bytes[self.base..];
        let line_start = if e.line() <= 1 {
            0
        } else {
            memchr::memchr_iter(b'\n', slice)
                .nth(e.line() - 2)
                .map_or(slice.len(), |i| i + 1)
        };
        (self.base + line_start + e.column().saturating_sub(1)).min(self.bytes.len())
    }
}

impl<T: serde::de::DeserializeOwned> Iterator for Documents<'_, T> {
    type Item = Document<T>;

    fn next(&mut self) -> Option<Document<T>> {
        let start = self.base + self.stream.byte_offset();
        let next = self.stream.next()?;
        let bytes = self.bytes;
        let first = bytes[start..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .map_or(start, |i| start + i);
        match next {
            Ok(doc) => {
                let (line, column) = line_column(bytes, first);
                Some(Document::Read(doc, line, column))
            }
            Err(e) => {
                let at = self.offset_of(&e);
                let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
                let line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
                // The document up to the end of the line the error is on: its duplicate key or
                // invalid UTF-8, located within that line.
                let from = if first <= line_start {
                    line_start
                } else {
                    first
                };
                let le = crate::replay::trace::json_error(&bytes[from..line_end], &e);
                let duplicate = le.is_duplicate_key();
                let message = if le.message.starts_with("invalid UTF-8") || duplicate {
                    le.message.clone()
                } else {
                    let text = e.to_string();
                    text.split(" at line ")
                        .next()
                        .unwrap_or_default()
                        .to_string()
                };
                let (line, column) = line_column(bytes, at);
                let column = if duplicate && le.column > 0 {
                    le.column
                } else {
                    column
                };
                let mut d = ImportDiagnostic::new(
                    &crate::codes::I901,
                    Location {
                        line,
                        column,
                        pointer: le.pointer.clone(),
                        ..self.location.clone()
                    },
                    format!("not {}: {message}", self.what),
                );
                d.diagnostic.line = line;
                d.diagnostic.column = column;
                // Resume at the next line that starts a document.
                let mut resume = line_end;
                while resume < bytes.len() {
                    let line = resume + 1;
                    if matches!(bytes.get(line), Some(b'{' | b'[')) {
                        break;
                    }
                    resume = memchr::memchr(b'\n', &bytes[line.min(bytes.len())..])
                        .map_or(bytes.len(), |i| line + i);
                }
                self.base = (resume + 1).min(bytes.len());
                self.stream = serde_json::Deserializer::from_slice(&bytes[self.base..]).into_iter();
                Some(Document::Failed(Box::new(d)))
            }
        }
    }
}

/// Is `path` a source file of `format` (when folders are searched)?
fn wanted(format: Format, path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    match format {
        Format::Inspect => name.ends_with(".eval") || name.ends_with(".json"),
        _ => name.ends_with(".json") || name.ends_with(".jsonl"),
    }
}

/// A source path that cannot be read while the sources are collected: the path (so a caller can
/// locate the error, as the Python package's `InputError.file` does) and why.
#[derive(Debug)]
pub struct SourceError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

impl SourceError {
    fn at(path: &Path) -> impl FnOnce(std::io::Error) -> SourceError + '_ {
        move |error| SourceError {
            path: path.to_path_buf(),
            error,
        }
    }
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for SourceError {}

/// The source files among `paths`: a file named is taken as it is; a folder is searched
/// recursively for the files of `format` (`.eval`/`.json` Inspect logs, `.json`/`.jsonl` span
/// and trace exports), sorted. An error names the path that cannot be read.
pub fn collect_sources(format: Format, paths: &[PathBuf]) -> Result<Vec<PathBuf>, SourceError> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(SourceError::at(path))?;
        if !meta.is_dir() {
            out.push(path.clone());
            continue;
        }
        let mut stack = vec![path.clone()];
        let mut found = Vec::new();
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).map_err(SourceError::at(&dir))?;
            for entry in entries {
                let entry = entry.map_err(SourceError::at(&dir))?;
                let p = entry.path();
                let kind = entry.file_type().map_err(SourceError::at(&p))?;
                if kind.is_dir() {
                    stack.push(p);
                } else if kind.is_file() && wanted(format, &p) {
                    found.push(p);
                }
            }
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// A file-name-safe form of an identifier: ASCII letters, digits, `.`, `-` and `_` kept, every
/// other character `_`, at most 120 bytes, never empty or starting with a dot.
pub(crate) fn sanitize(id: &str) -> String {
    let mut out: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(120)
        .collect();
    if out.is_empty() || out.starts_with('.') {
        out.insert(0, 'r');
    }
    out
}

/// The line and column of a byte offset in a text (1-based; column in chars).
pub(crate) fn line_column(bytes: &[u8], offset: usize) -> (u32, u32) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line as u32, column as u32)
}
