//! S203: node unreachable from `entry` (warning).
//!
//! ## What it checks
//!
//! Every node can be reached from `entry` over `next`, `branches` and `on_error`
//! edges.
//!
//! ## Why it matters
//!
//! An unreachable node never runs; it is dead code at best, and at worst a sign
//! that an edge meant to lead to it (a verifier, a failure report) is missing.
//!
//! ## Example
//!
//! ```text
//! "entry": "a", "nodes": [{"id": "a", "primitive": "done.finish_success"},
//!                         {"id": "b", "primitive": "done.report_failure"}]
//! ```
//!
//! Fixture `tests/fixtures/rules/s203_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S203 at line 20:
//!
//! ```json
//! {"id": "orphan", "primitive": "done.report_failure"}
//! ```
//!
//! ## Fix
//!
//! Remove the node or add an edge to it.
//!
//! Does not fire:
//!
//! ```text
//! "entry": "a", "nodes": [{"id": "a", ..., "on_error": {"*": "b"}},
//!                         {"id": "b", "primitive": "done.report_failure"}]
//! ```
//!
//! ## Implements
//!
//! SPEC §3.3 (reachability from `entry`); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    if cx.model.entry.is_none() {
        return; // S201 already says why nothing is reachable.
    }
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        if cx.model.reachable[i] {
            continue;
        }
        let duplicate =
            cx.model.has_duplicate_ids() && cx.model.ids.get(node.id.as_str()) != Some(&i);
        if !cx.model.reachable[i] && !duplicate {
            out.push(codes::S203.at(
                format!("/nodes/{i}"),
                format!("node `{}` is unreachable from `entry`", node.id),
            ));
        }
    }
}
