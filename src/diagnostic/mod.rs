//! Diagnostics: the one shape every check reports (SPEC §3.1), and their renderings
//! (human, JSON, SARIF) in the submodules.
//!
//! SKELETON: renderers are filled in by the diagnostics work; the types keep their shape.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// A second location a diagnostic points at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Related {
    pub pointer: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// What shows a violation: a path of node IDs, or a JSON value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Witness {
    Path(Vec<String>),
    Value(Value),
}

/// One finding. Rules fill `code`, `severity`, `message`, `pointer`, and the optional parts;
/// `line`/`column` are resolved from the pointer against the parsed source afterwards.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub pointer: String,
    pub line: u32,
    pub column: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Witness>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Replay only: the `seq` of the event the diagnostic is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

impl Diagnostic {
    pub fn new(
        code: &'static str,
        severity: Severity,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            pointer: pointer.into(),
            line: 0,
            column: 0,
            related: Vec::new(),
            witness: None,
            help: None,
            seq: None,
        }
    }

    pub fn error(
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(code, Severity::Error, pointer, message)
    }

    pub fn warning(
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(code, Severity::Warning, pointer, message)
    }

    pub fn info(
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(code, Severity::Info, pointer, message)
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
            pointer: pointer.into(),
            message: message.into(),
            line: None,
            column: None,
        });
        self
    }
}

/// Escape one reference token for a JSON pointer (RFC 6901).
pub fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The documentation of one diagnostic code, as `primgraph explain CODE` prints it.
#[derive(Debug, Clone, Copy)]
pub struct CodeDoc {
    pub code: &'static str,
    pub severity: Severity,
    /// One line: what the code means.
    pub title: &'static str,
    /// The full text: what it checks, why, an example that fires and one that does not.
    pub doc: &'static str,
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
