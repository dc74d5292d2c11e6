//! G004: duplicate node id.
//!
//! ## What it checks
//!
//! No two nodes share an `id`. The diagnostic points at the later node and names
//! the first one as related; the rules resolve the ID to its first occurrence.
//!
//! ## Why it matters
//!
//! Edges and bindings name nodes by ID; with two nodes of one ID, which one a
//! `next` or a binding means depends on the reader.
//!
//! ## Example
//!
//! ```text
//! "nodes": [{"id": "a", "primitive": "done.finish_success"},
//!           {"id": "a", "primitive": "done.report_failure"}]
//! ```
//!
//! Fixture `tests/fixtures/rules/g004_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports G004 at line 20:
//!
//! ```json
//! {"id": "done", "primitive": "done.report_failure"}
//! ```
//!
//! ## Fix
//!
//! Give every node its own id.
//!
//! Does not fire:
//!
//! ```text
//! "nodes": [{"id": "a", "primitive": "done.finish_success"},
//!           {"id": "b", "primitive": "done.report_failure"}]
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`nodes[].id` is unique); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    if !cx.model.has_duplicate_ids() {
        return;
    }
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        if let Some(&first) = cx.model.ids.get(node.id.as_str())
            && first != i
        {
            out.push(
                codes::G004
                    .at(
                        format!("/nodes/{i}/id"),
                        format!("duplicate node id `{}`", node.id),
                    )
                    .with_related(format!("/nodes/{first}/id"), "first defined here"),
            );
        }
    }
}
