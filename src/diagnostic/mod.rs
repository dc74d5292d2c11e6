//! Diagnostics: the one shape every check reports (SPEC §3.1), their resolution from JSON
//! pointers to extents (start and end line and column: what a renderer underlines), their
//! deterministic order, and their renderings (human, JSON, SARIF, GitHub workflow commands) in
//! the submodules. Resolution is the one place a pointer meets the parsed source: every renderer
//! reads the extents it carries and none parses the source again.

pub mod github;
// Only the command line renders for a terminal: the renderer and annotate-snippets come with the
// `cli` feature.
#[cfg(feature = "cli")]
pub mod human;
pub mod json;
pub mod sarif;
pub mod suggest;

pub use crate::codes::{Code, CodeName, Severity};
use crate::json::{LineIndex, Parsed, Span};
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
    /// The position just after the location's last char (exclusive, as in SARIF), when its
    /// extent is known (a location given only as a line and column has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u32>,
}

impl Related {
    /// A related location at `span` of the file it is in.
    pub(crate) fn set_span(&mut self, span: Span) {
        self.line = Some(span.line);
        self.column = Some(span.column);
        self.end_line = Some(span.end_line);
        self.end_column = Some(span.end_column);
    }

    /// Where it is, when located: a location without an end is the point at its start.
    pub fn extent(&self) -> Option<Extent> {
        let (line, column) = (self.line.filter(|&l| l > 0)?, self.column.unwrap_or(1));
        Some(Extent::new(
            (line, column),
            self.end_line.zip(self.end_column),
        ))
    }
}

/// A located range of a file: 1-based line and column (in chars) of its first char and of the
/// position just after its last (exclusive, as SARIF's `endLine`/`endColumn`). An empty extent
/// is a point (a location known only by its line and column); renderers show it as one char.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Extent {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

impl Extent {
    /// The file's first char, where a renderer puts what has no location.
    pub const FILE_START: Extent = Extent {
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 1,
    };

    /// From a start and an end that may be missing or (from a stale location) before the start:
    /// the end is then the start.
    fn new((line, column): (u32, u32), end: Option<(u32, u32)>) -> Extent {
        let column = column.max(1);
        let (end_line, end_column) = end
            .filter(|&end| end >= (line, column))
            .unwrap_or((line, column));
        Extent {
            line,
            column,
            end_line,
            end_column,
        }
    }

    pub(crate) fn of(span: Span) -> Extent {
        Extent::new(
            (span.line, span.column),
            Some((span.end_line, span.end_column)),
        )
    }

    pub fn is_empty(&self) -> bool {
        (self.end_line, self.end_column) <= (self.line, self.column)
    }

    /// The byte range of this extent in `text` (indexed by `lines`), clamped to its lines; an
    /// empty extent covers the char at its start (none at a line's end).
    #[cfg(feature = "cli")]
    pub(crate) fn range(&self, text: &str, lines: &LineIndex) -> Option<std::ops::Range<usize>> {
        let start = lines.offset(text, self.line, self.column)?;
        let end = if self.is_empty() {
            LineIndex::char_end(text, start)
        } else {
            lines
                .offset(text, self.end_line, self.end_column)
                .unwrap_or(text.len())
        };
        Some(start..end.max(start))
    }
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
    /// The position just after the last char of what the diagnostic points at (exclusive, as
    /// SARIF's `endColumn`); 0, and not written, while only the start is known (a location
    /// given by a line and column alone).
    #[serde(skip_serializing_if = "is_zero")]
    pub end_line: u32,
    #[serde(skip_serializing_if = "is_zero")]
    pub end_column: u32,
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
    /// Where each step of a path witness names a node of the report's file: the extent of the
    /// node's `id` member, by step (`None` for a step that names none, such as `$input`); filled
    /// by [`resolve`]. Not serialized (SARIF code flows read it).
    #[serde(skip)]
    pub step_extents: Vec<Option<Extent>>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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
            end_line: 0,
            end_column: 0,
            related: Vec::new(),
            witness: None,
            help: None,
            seq: None,
            overridden_by: None,
            sources: Vec::new(),
            steps: Vec::new(),
            step_extents: Vec::new(),
        }
    }

    /// Located at `span` of the file it is in.
    pub(crate) fn set_span(&mut self, span: Span) {
        self.line = span.line;
        self.column = span.column;
        self.end_line = span.end_line;
        self.end_column = span.end_column;
    }

    /// Where it is, when located (`line` 0: not located in any text).
    pub fn extent(&self) -> Option<Extent> {
        (self.line > 0).then(|| {
            Extent::new(
                (self.line, self.column),
                (self.end_line > 0).then_some((self.end_line, self.end_column)),
            )
        })
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
            end_line: None,
            end_column: None,
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

/// Where a diagnostic about `pointer` starts in the source: the member's key when the value
/// (or, for a pointer that names nothing, its nearest existing ancestor) is an object member —
/// rustc-style, the name of the offending thing — else the value.
pub fn anchor_span(parsed: &Parsed, pointer: &str) -> Span {
    let nearest = parsed.nearest(pointer);
    nearest.key.unwrap_or(nearest.value)
}

/// How many chars an underline may run: a member (key through value) or a value longer than this
/// is underlined by its key or its opening instead, so the underline names the offending thing
/// rather than running under a whole long line.
pub const SHORT_SPAN: usize = 80;

/// What a diagnostic about `pointer` (or its nearest existing ancestor) points at, from its
/// [`anchor_span`]: a member's key through the end of its value when the value ends on the
/// key's line and the whole is short ([`SHORT_SPAN`]), else the key; a value without a key (an
/// array element such as a node, the root) whole when it is short and on one line, else from its
/// opening char through its first member (as a member is underlined, or its key when the whole
/// would not be short) when that member starts on the same line (a node's `{"id": "fetch"` names
/// it), else its opening char.
pub fn location_span(parsed: &Parsed, pointer: &str) -> Span {
    let nearest = parsed.nearest(pointer);
    let value = nearest.value;
    if let Some(key) = nearest.key {
        return member_span(parsed, key, value);
    }
    if value.end_line == value.line && is_short(parsed.source(), value.start, value.end) {
        return value;
    }
    if let Some((key, member)) = parsed.first_member(pointer)
        && key.line == value.line
    {
        let member = member_span(parsed, key, member);
        let end = if is_short(parsed.source(), value.start, member.end) {
            member.end
        } else {
            key.end
        };
        return parsed.span_of(value.start, end);
    }
    let first_char_end = LineIndex::char_end(parsed.source(), value.start);
    parsed.span_of(value.start, first_char_end)
}

/// A member's key through its value when that ends on the key's line and is short, else the key.
fn member_span(parsed: &Parsed, key: Span, value: Span) -> Span {
    if value.end_line == key.line && is_short(parsed.source(), key.start, value.end) {
        parsed.span_of(key.start, value.end)
    } else {
        key
    }
}

/// Whether `text[start..end]` is at most [`SHORT_SPAN`] chars (bytes bound the count first, so
/// a long value is never walked).
fn is_short(text: &str, start: usize, end: usize) -> bool {
    let bytes = end.saturating_sub(start);
    bytes <= SHORT_SPAN
        || (bytes <= SHORT_SPAN * 4
            && text
                .get(start..end)
                .is_some_and(|t| t.chars().count() <= SHORT_SPAN))
}

/// Locate every diagnostic and related location of the report's file from its pointer
/// ([`location_span`]: start and end), falling back to the nearest existing ancestor when the
/// pointer names nothing in `parsed`, and every step of a path witness at its node's `id`.
/// This is the only place a pointer becomes a position: renderers read the extents.
pub fn resolve(diags: &mut [Diagnostic], parsed: &Parsed) {
    let mut node_ids: Option<std::collections::HashMap<String, usize>> = None;
    for diag in diags.iter_mut() {
        if diag.file.is_some() {
            // Located in its own file already; a related location in the report's file not
            // yet located (a fragment's use site in the graph) is located here.
            for related in diag.related.iter_mut() {
                if related.file.is_none() && related.line.is_none() {
                    related.set_span(location_span(parsed, &related.pointer));
                }
            }
            continue;
        }
        diag.set_span(location_span(parsed, &diag.pointer));
        for related in diag.related.iter_mut() {
            if related.file.is_some() {
                // In another file, located already.
                continue;
            }
            related.set_span(location_span(parsed, &related.pointer));
        }
        if let Some(path) = diag.witness.as_ref().and_then(Witness::nodes) {
            let ids = node_ids.get_or_insert_with(|| node_index(parsed));
            diag.step_extents = path
                .iter()
                .map(|id| {
                    let index = ids.get(id)?;
                    let pointer = format!("/nodes/{index}/id");
                    Some(Extent::of(location_span(parsed, &pointer)))
                })
                .collect();
        }
    }
}

/// The first index of every node ID of a graph document, read from the source through the
/// span table (the value tree may have been taken by the loader).
fn node_index(parsed: &Parsed) -> std::collections::HashMap<String, usize> {
    let mut ids = std::collections::HashMap::new();
    for index in 0.. {
        let node = format!("/nodes/{index}");
        let Some(span) = parsed.locate(&format!("{node}/id")) else {
            if parsed.contains(&node) {
                continue;
            }
            break;
        };
        let id = parsed
            .source()
            .get(span.start..span.end)
            .and_then(|text| serde_json::from_str::<String>(text).ok());
        if let Some(id) = id {
            ids.entry(id).or_insert(index);
        }
    }
    ids
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

/// Text from a file or a recorded run made safe to print on a terminal: every control character
/// (a line break included) and every bidirectional override or isolate is shown as an escape
/// (`\r`, `\n`, `\t`, `\u{1b}`, `\u{202e}`), so what a trace or graph holds cannot move the
/// cursor, clear the screen, colour the output, start a forged line or reorder what is shown.
/// Text without such characters is returned as it is.
///
/// ```
/// use primgraph::diagnostic::visible;
/// assert_eq!(visible("allow"), "allow");
/// assert_eq!(visible("allow\r\u{1b}[2Jok\n"), "allow\\r\\u{1b}[2Jok\\n");
/// ```
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    fn hidden(c: char) -> bool {
        c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    }
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
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
    d.set_span(error.span);
    let mut first_defined = Related {
        file: None,
        pointer: pointer.clone(),
        message: format!("`{key}` first defined here"),
        line: None,
        column: None,
        end_line: None,
        end_column: None,
    };
    first_defined.set_span(*first);
    d.related.push(first_defined);
    Some(d)
}
