//! `registry lint` as the library runs it: strict parsing (a duplicate JSON key is L501), the
//! shape check, every check of [`super::lint`], and each finding turned into a
//! [`Diagnostic`] with its JSON pointer resolved to a line and column. Input that is not a
//! registry at all — empty, not JSON, too large, or of the wrong shape — is a [`LintError`]
//! (unusable input, exit 2 in the binary), still with its location.

use super::lint;
use crate::diagnostic::{self, Diagnostic};
use crate::json::{self, JsonError};

/// Why a file could not be linted at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LintError {
    /// Not (strict) JSON: empty, a BOM, invalid UTF-8, a syntax error, too deep or too large.
    #[error("{0}")]
    Json(JsonError),
    /// JSON, but not of a registry's shape.
    #[error("{message}{}", at_pointer(pointer))]
    Shape {
        pointer: String,
        message: String,
        line: u32,
        column: u32,
    },
}

/// " (at /primitives/3)", or nothing for the document root.
fn at_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        String::new()
    } else {
        format!(" (at {pointer})")
    }
}

impl LintError {
    /// The 1-based line and column of the problem.
    pub fn location(&self) -> (u32, u32) {
        match self {
            LintError::Json(e) => (e.span.line, e.span.column),
            LintError::Shape { line, column, .. } => (*line, *column),
        }
    }
}

/// Lint a registry file's bytes: the diagnostics (sorted by line, column, code), or why the
/// file is unusable.
pub fn lint_source(bytes: &[u8]) -> Result<Vec<Diagnostic>, LintError> {
    let parsed = match json::parse(bytes, &super::LIMITS) {
        Ok(parsed) => parsed,
        Err(error) => {
            return duplicate_key(&error)
                .map(|d| vec![d])
                .ok_or(LintError::Json(error));
        }
    };
    let findings = lint::lint_value(&parsed.value).map_err(|e| {
        let span = diagnostic::anchor_span(&parsed, &e.pointer);
        LintError::Shape {
            message: e.message,
            pointer: e.pointer,
            line: span.line,
            column: span.column,
        }
    })?;
    let mut diags: Vec<Diagnostic> = findings.into_iter().map(to_diagnostic).collect();
    diagnostic::resolve(&mut diags, &parsed);
    diagnostic::sort(&mut diags);
    Ok(diags)
}

fn to_diagnostic(f: lint::Finding) -> Diagnostic {
    let mut d = f.code.at(f.pointer, f.message);
    if let Some((pointer, message)) = f.related {
        d = d.with_related(pointer, message);
    }
    d
}

/// A duplicate JSON key is L501, located at its second occurrence.
fn duplicate_key(error: &JsonError) -> Option<Diagnostic> {
    crate::diagnostic::duplicate_key(&crate::codes::L501, error).map(|d| {
        d.with_help("keep one member: a reader sees the first, a last-wins loader uses the second")
    })
}
