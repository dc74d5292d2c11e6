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

use crate::diagnostic::Diagnostic;
use crate::json::JsonError;

/// The G002 diagnostic for a duplicate key, or `None` for any other parse failure.
pub fn diagnostic(error: &JsonError) -> Option<Diagnostic> {
    crate::diagnostic::duplicate_key(&crate::codes::G002, error)
}
