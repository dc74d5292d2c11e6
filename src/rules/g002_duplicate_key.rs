//! G002: duplicate object key.
//!
//! What it checks: no object anywhere in the document has the same key twice. The diagnostic
//! points at the second occurrence and names the first as a related location.
//!
//! Why it matters: JSON parsers disagree on duplicates. A reviewer reads the first occurrence
//! while a last-wins runtime executes the second, so a duplicate can hide a change in plain sight
//! (for example a second `"next"` that skips the verifier).
//!
//! Fires:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "next": "test", "next": "done"}
//! ```
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "next": "test"}
//! ```

use crate::diagnostic::{Diagnostic, Related};
use crate::json::{JsonError, JsonErrorKind};

/// The G002 diagnostic for a duplicate key, or `None` for any other parse failure.
pub fn diagnostic(error: &JsonError) -> Option<Diagnostic> {
    let JsonErrorKind::DuplicateKey {
        key,
        pointer,
        first,
    } = &error.kind
    else {
        return None;
    };
    let mut d = Diagnostic::error(
        "G002",
        pointer.clone(),
        format!("duplicate object key `{key}`"),
    )
    .with_help("keep one member: readers and runtimes disagree on which one counts");
    d.line = error.span.line;
    d.column = error.span.column;
    d.related.push(Related {
        pointer: pointer.clone(),
        message: format!("`{key}` first defined here"),
        line: Some(first.line),
        column: Some(first.column),
    });
    Some(d)
}
