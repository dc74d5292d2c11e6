//! G003: document shape: a missing, unknown or mistyped field.
//!
//! ## What it checks
//!
//! The document has the shape of SPEC §2. Required fields (`graph`, `abi`,
//! `entry`, `nodes`; per node `id` and `primitive`) are present (an absent `capabilities` is an
//! empty tool boundary, which R104 reports node by node); no unknown field
//! appears (`$schema`, for editors, is allowed); every field has its type; `graph` matches
//! `^[a-z0-9][a-z0-9-]*$`, node IDs `^[a-z][a-z0-9_]*$`, `abi` is `MAJOR.MINOR.PATCH`,
//! `max_visits` is a positive integer, `budget` values are non-negative, `input` is a JSON Schema,
//! and each binding is exactly `{"from", "at"?}` (with `at` a JSON pointer) or `{"const"}`.
//! Every shape error of the document is reported, each at its own pointer.
//!
//! ## Why it matters
//!
//! A misspelt field (`"on_eror"`) silently ignored would leave a failure path
//! unhandled while the author believes it is handled.
//!
//! ## Example
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "max_visits": 0, "on_eror": {"*": "done"}}
//! ```
//!
//! (`max_visits` is not positive; `on_eror` is unknown).
//!
//! Fixture `tests/fixtures/rules/g003_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports G003 at line 7:
//!
//! ```json
//! "budget": {"max_steps": "many", "max_spend_usd": 4.0},
//! ```
//!
//! ## Fix
//!
//! See SPEC §2 for the graph document's fields.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "max_visits": 3, "on_error": {"*": "done"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (the document's fields; unknown fields are an error); the code is listed in §5.

use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::graph::ShapeError;

/// The G003 diagnostic for one shape error.
pub fn diagnostic(error: &ShapeError) -> Diagnostic {
    codes::G003.at(error.pointer.clone(), error.message.clone())
}
