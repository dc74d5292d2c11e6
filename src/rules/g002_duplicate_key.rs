//! G002: duplicate object key.
//!
//! ## What it checks
//!
//! No object anywhere in the document has the same key twice. The diagnostic
//! points at the second occurrence and names the first as a related location.
//!
//! ## Why it matters
//!
//! JSON parsers disagree on duplicates. A reviewer reads the first occurrence
//! while a last-wins runtime executes the second, so a duplicate can hide a change in plain sight
//! (for example a second `"next"` that skips the verifier).
//!
//! ## Example
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "next": "test", "next": "done"}
//! ```
//!
//! Fixture `tests/fixtures/rules/g002_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports G002 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}}, "next": "test", "next": "done", "on_error": {"patch_conflict": "draft"}},
//! ```
//!
//! ## Fix
//!
//! Keep one member: readers and runtimes disagree on which one counts.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "next": "test"}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (duplicate object keys are an error); the code is listed in §5.

use crate::diagnostic::Diagnostic;
use crate::json::JsonError;

/// The G002 diagnostic for a duplicate key, or `None` for any other parse failure.
pub fn diagnostic(error: &JsonError) -> Option<Diagnostic> {
    crate::diagnostic::duplicate_key(&crate::codes::G002, error)
}
