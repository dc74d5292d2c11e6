//! T306: compatibility could not be decided (warning).
//!
//! ## What it checks
//!
//! The bindings for which the schema checker (SPEC §3.2) could neither prove that
//! the source schema fits the target schema nor find a value that breaks it, for example two
//! different `pattern`s. The message gives the checker's reason.
//!
//! ## Why it matters
//!
//! "unknown" is never a silent yes: the edge may fail at run time, and a reviewer
//! should look at it (or simplify the schemas until the checker can decide).
//!
//! ## Example
//!
//! (different patterns cannot be compared.)
//!
//! ```text
//! source {"type": "string", "pattern": "^[a-z]+$"}  →  target {"type": "string", "pattern": "^[a-z0-9]+$"}
//! ```
//!
//! Fixture `tests/fixtures/rules/t306_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T306 at line 13:
//!
//! ```json
//! {"id": "branch", "primitive": "vcs.create_branch", "inputs": {"name": {"from": "name", "at": "/name"}}, "next": "locate"},
//! ```
//!
//! ## Fix
//!
//! Check this edge by hand, or simplify the schemas.
//!
//! Does not fire:
//!
//! ```text
//! source {"type": "string", "minLength": 1}  →  target {"type": "string"}
//! ```
//!
//! ## Implements
//!
//! SPEC §3.2 (unknown is a warning, never a silent yes); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::schema::Verdict;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for finding in cx.compat() {
        let Verdict::Unknown { reason } = &finding.verdict else {
            continue;
        };
        let consumer = cx.prim(finding.node).map_or("?", |p| p.id.as_str());
        out.push(codes::T306.at(
            finding.pointer.clone(),
            format!(
                "could not decide whether `{}` at `{}` fits input `{}` of `{consumer}`: {reason}",
                finding.from, finding.at, finding.property
            ),
        ));
    }
}
