//! Diagnostics: the one shape every check reports (SPEC §3.1), their resolution from JSON
//! pointers to lines and columns, their deterministic order, and their renderings (human,
//! JSON, SARIF, GitHub workflow commands) in the submodules.

pub mod github;
// Only the command line renders for a terminal: the renderer and annotate-snippets come with the
// `cli` feature.
#[cfg(feature = "cli")]
pub mod human;
pub mod json;
pub mod sarif;
pub mod suggest;

pub use crate::codes::{Code, CodeName, Severity};
use crate::json::{Parsed, Span};
use serde::Serialize;
use serde_json::Value;

/// A second location a diagnostic points at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Related {
    /// The file it is in when that is not the diagnostic's own file's report (SPEC §3.1, §9.3:
    /// a fragment's use site in the graph, or an enclosing fragment's file); such a location
    /// is resolved already.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub pointer: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// What shows a violation: a path of node IDs, a control-flow route (the node IDs and the edge
/// taken between each two, since two edges may join the same nodes), or a JSON value.
///
/// JSON: `{"path": [...]}`, `{"path": [...], "edges": [{"from", "to", "kind", "label"?}]}`
/// (`path` keeps its meaning for readers that know only it), `{"value": V}`.
#[derive(Debug, Clone, PartialEq)]
pub enum Witness {
    Path(Vec<String>),
    Route {
        path: Vec<String>,
        edges: Vec<RouteEdge>,
    },
    Value(Value),
}

/// One step of a [`Witness::Route`]: the edge from `from` to `to`, of `kind` `next`, `branch`
/// (labelled with the outcome) or `on_error` (labelled with the failure mode, or `*`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RouteEdge {
    pub from: String,
    pub to: String,
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl RouteEdge {
    /// `→`, `→[allow]`, `→[on_error: *]`: the arrow of a route step, for one-line text.
    pub fn arrow(&self) -> String {
        match (self.kind, &self.label) {
            ("on_error", Some(label)) => format!("→[on_error: {label}]"),
            (_, Some(label)) => format!("→[{label}]"),
            (_, None) => "→".to_string(),
        }
    }
}

impl Serialize for Witness {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self {
            Witness::Path(path) => map.serialize_entry("path", path)?,
            Witness::Route { path, edges } => {
                map.serialize_entry("path", path)?;
                map.serialize_entry("edges", edges)?;
            }
            Witness::Value(value) => map.serialize_entry("value", value)?,
        }
        map.end()
    }
}

/// One finding. Rules fill `code`, `severity`, `message`, `pointer`, and the optional parts;
/// `line`/`column` are resolved from the pointer against the parsed source afterwards.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// The file this diagnostic is in when it is not its report's file: a pack's `pack.json`
    /// (or another pack file) when a graph declares a pack with an error (SPEC §9.1). Such a
    /// diagnostic is located already; its related locations are in the report's file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// A row of the code table, or a pack rule's `PACK/RULE` (SPEC §9.4).
    pub code: CodeName,
    pub severity: Severity,
    pub message: String,
    pub pointer: String,
    pub line: u32,
    pub column: u32,
    /// Always written, `[]` when empty: SPEC §3.1 gives every diagnostic related locations.
    pub related: Vec<Related>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Witness>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Replay only: the `seq` of the event the diagnostic is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// The `primgraph.toml` setting that changed this diagnostic's severity or turned it off
    /// (SPEC §8: an override is reported, never silent). `severity` is then the new severity,
    /// or the original one when the override turned the diagnostic off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overridden_by: Option<Box<Override>>,
    /// The text of the other files this diagnostic or its related locations point into (a
    /// fragment file, SPEC §9.3), so a renderer can quote them: (file, text). Not serialized.
    #[serde(skip)]
    pub sources: Vec<(String, std::sync::Arc<str>)>,
    /// Where each step of a path witness is, when the path crosses files (nodes expanded from a
    /// fragment, SPEC §9.3): (file, line, column) of the step's node `id`, by step; empty when
    /// every step is a node of the report's file. Not serialized (SARIF code flows read it).
    #[serde(skip)]
    pub steps: Vec<Option<(String, u32, u32)>>,
}

/// What a `primgraph.toml` severity override can set a code to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Off,
    Info,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// The severity this level sets, `None` for `off`.
    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Off => None,
            Level::Info => Some(Severity::Info),
            Level::Warning => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

/// Which configuration setting changed a diagnostic, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Override {
    /// The configuration file, as the user named it or as it was found.
    pub config: String,
    /// The setting's key path: `severity.R102`, or `overrides[1].severity.S203`.
    pub setting: String,
    /// Where the setting is written in the configuration file (1-based).
    pub line: u32,
    pub column: u32,
    /// The severity the rule gave.
    pub from: Severity,
    /// What the setting made of it.
    pub to: Level,
}

impl Override {
    /// `primgraph.toml:7:1 overrides[0].severity.S203 = "off"`.
    pub fn describe(&self) -> String {
        format!(
            "{}:{}:{} {} = \"{}\"",
            self.config,
            self.line,
            self.column,
            self.setting,
            self.to.as_str()
        )
    }
}

impl Code {
    /// A diagnostic of this code about the value at `pointer`, with the row's severity and help
    /// line: how every check reports.
    pub fn at(&'static self, pointer: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.code, self.severity, pointer, message).with_help(self.help)
    }

    /// As [`Code::at`], for the codes whose severity is the direction of a change (SPEC §6.1:
    /// V709–V716 are an error one way and a warning or info the other): the row still names the
    /// code; the caller says which direction this finding is.
    pub fn at_severity(
        &'static self,
        severity: Severity,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(self.code, severity, pointer, message).with_help(self.help)
    }
}

impl Diagnostic {
    /// A diagnostic of any code and severity, with no help line. Checks report through their
    /// row of the code table instead ([`Code::at`]); this is for renderers' tests and tools
    /// that carry diagnostics of codes they do not own.
    pub fn new(
        code: impl Into<CodeName>,
        severity: Severity,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            file: None,
            code: code.into(),
            severity,
            message: message.into(),
            pointer: pointer.into(),
            line: 0,
            column: 0,
            related: Vec::new(),
            witness: None,
            help: None,
            seq: None,
            overridden_by: None,
            sources: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// Turned off by a configuration override: rendered only where the output can say so (JSON
    /// `suppressed`, SARIF `suppressions`), never counted.
    pub fn is_suppressed(&self) -> bool {
        self.overridden_by
            .as_ref()
            .is_some_and(|o| o.to == Level::Off)
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_witness(mut self, witness: Witness) -> Self {
        self.witness = Some(witness);
        self
    }

    pub fn with_related(mut self, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        self.related.push(Related {
            file: None,
            pointer: pointer.into(),
            message: message.into(),
            line: None,
            column: None,
        });
        self
    }
}

/// The diagnostics of one checked file, in a stable order (line, column, code).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileReport {
    pub file: String,
    /// The graph's name, when the document got that far.
    pub graph: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// The source text, for renderers that quote it (not serialized).
    #[serde(skip)]
    pub source: std::sync::Arc<str>,
}

/// Where a diagnostic about `pointer` points in the source: the member's key when the value
/// (or, for a pointer that names nothing, its nearest existing ancestor) is an object member —
/// rustc-style, the name of the offending thing — else the value.
pub fn anchor_span(parsed: &Parsed, pointer: &str) -> Span {
    let nearest = parsed.nearest(pointer);
    nearest.key.unwrap_or(nearest.value)
}

/// The span to underline for `pointer` (or its nearest existing ancestor): for a member, its
/// key through the end of its value when the value ends on the key's line (else just the key);
/// otherwise the value, cut to its opening char when it spans several lines.
pub fn highlight_span(parsed: &Parsed, pointer: &str) -> Span {
    let nearest = parsed.nearest(pointer);
    let value = nearest.value;
    if let Some(key) = nearest.key {
        return if value.end_line == key.line {
            parsed.span_of(key.start, value.end)
        } else {
            key
        };
    }
    if value.end_line > value.line {
        let first_char_end = parsed
            .source()
            .get(value.start..)
            .and_then(|rest| rest.chars().next())
            .map_or(value.start, |c| value.start + c.len_utf8());
        parsed.span_of(value.start, first_char_end)
    } else {
        value
    }
}

/// Fill `line`/`column` of every diagnostic and related location from its pointer, falling back
/// to the nearest existing ancestor when the pointer names nothing in `parsed`.
pub fn resolve(diags: &mut [Diagnostic], parsed: &Parsed) {
    for diag in diags.iter_mut() {
        if diag.file.is_some() {
            // Located in its own file already; a related location in the report's file not
            // yet located (a fragment's use site in the graph) is located here.
            for related in diag.related.iter_mut() {
                if related.file.is_none() && related.line.is_none() {
                    let span = anchor_span(parsed, &related.pointer);
                    related.line = Some(span.line);
                    related.column = Some(span.column);
                }
            }
            continue;
        }
        let span = anchor_span(parsed, &diag.pointer);
        diag.line = span.line;
        diag.column = span.column;
        for related in diag.related.iter_mut() {
            if related.file.is_some() {
                // In another file, located already.
                continue;
            }
            let span = anchor_span(parsed, &related.pointer);
            related.line = Some(span.line);
            related.column = Some(span.column);
        }
    }
}

/// Sort by (line, column, code, pointer, message): the deterministic order of every output.
pub fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| {
        (a.line, a.column, &a.code, &a.pointer, &a.message)
            .cmp(&(b.line, b.column, &b.code, &b.pointer, &b.message))
    });
}

/// How many diagnostics of each severity a set of reports holds (a tally, named apart from the
/// replay corpus `Summary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Tally {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Tally {
    pub fn of(reports: &[FileReport]) -> Tally {
        let mut summary = Tally {
            files: reports.len(),
            ..Tally::default()
        };
        let counted = reports
            .iter()
            .flat_map(|r| &r.diagnostics)
            .filter(|d| !d.is_suppressed());
        for diag in counted {
            match diag.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
        }
        summary
    }
}

/// `1 run`, `2 runs`, `0 runs`: a count with its noun in the right number, for every report
/// that prints counts (no `1 runs`).
pub fn counted(n: u64, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("{n} {singular}")
    } else {
        format!("{n} {plural}")
    }
}

impl std::fmt::Display for Tally {
    /// `2 errors, 1 warning in 3 files` (infos only when there are some).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn plural(n: usize, word: &str) -> String {
            if n == 1 {
                format!("{n} {word}")
            } else {
                format!("{n} {word}s")
            }
        }
        write!(
            f,
            "{}, {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        )?;
        if self.infos > 0 {
            write!(f, ", {}", plural(self.infos, "info"))?;
        }
        write!(f, " in {}", plural(self.files, "file"))
    }
}

impl Witness {
    /// One line: `a → b → c` for a path, the compact JSON for a value.
    pub fn describe(&self) -> String {
        match self {
            Witness::Path(path) => path.join(" → "),
            Witness::Route { path, edges } => {
                let mut text = path.first().cloned().unwrap_or_default();
                for (edge, node) in edges.iter().zip(path.iter().skip(1)) {
                    text.push(' ');
                    text.push_str(&edge.arrow());
                    text.push(' ');
                    text.push_str(node);
                }
                text
            }
            Witness::Value(value) => value.to_string(),
        }
    }

    /// The node IDs of a path or route witness.
    pub fn nodes(&self) -> Option<&[String]> {
        match self {
            Witness::Path(path) | Witness::Route { path, .. } => Some(path),
            Witness::Value(_) => None,
        }
    }
}

/// The highlight range of a diagnostic for a renderer that reparsed the report's source: the
/// pointer's span when it is where the diagnostic was resolved (or nothing was resolved), else
/// `None`, and the renderer uses the resolved line and column. A report whose source did not
/// parse keeps a lossy copy (invalid UTF-8 replaced), which can reparse: its diagnostics must
/// stay where the driver put them, so human, SARIF and JSON output agree on one location.
pub(crate) fn reparsed_span(
    parsed: &Parsed,
    pointer: &str,
    line: u32,
    column: u32,
) -> Option<Span> {
    if line != 0 {
        let anchor = anchor_span(parsed, pointer);
        if (anchor.line, anchor.column) != (line, column) {
            return None;
        }
    }
    Some(highlight_span(parsed, pointer))
}

/// Parse a report's source again to locate its diagnostics (renderers only get the text).
pub(crate) fn reparse(source: &str) -> Option<Parsed> {
    let limits = crate::json::Limits {
        max_bytes: usize::MAX,
        max_depth: 4096,
    };
    crate::json::parse(source.as_bytes(), &limits).ok()
}

/// The diagnostic for a duplicate object key (G002 in graphs, L501 in registries), located at
/// the second occurrence with the first as a related location; `None` for any other parse error.
pub fn duplicate_key(code: &'static Code, error: &crate::json::JsonError) -> Option<Diagnostic> {
    let crate::json::JsonErrorKind::DuplicateKey {
        key,
        pointer,
        first,
    } = &error.kind
    else {
        return None;
    };
    let mut d = code.at(pointer.clone(), format!("duplicate object key `{key}`"));
    d.line = error.span.line;
    d.column = error.span.column;
    d.related.push(Related {
        file: None,
        pointer: pointer.clone(),
        message: format!("`{key}` first defined here"),
        line: Some(first.line),
        column: Some(first.column),
    });
    Some(d)
}
