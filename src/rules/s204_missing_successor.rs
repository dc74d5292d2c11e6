//! S204: non-terminal primitive with no successor.
//!
//! ## What it checks
//!
//! A node with neither `next` nor `branches` ends the graph, so its primitive
//! must be a terminal one (`terminal: true` in the registry, the `done.*` family).
//!
//! ## Why it matters
//!
//! A run that stops after, say, `mut.apply_patch` ends without reporting success
//! or failure; the caller cannot tell a finished run from a crashed one.
//!
//! ## Example
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {...}}
//! ```
//!
//! Fixture `tests/fixtures/rules/s204_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S204 at line 18:
//!
//! ```json
//! {"id": "done", "primitive": "triage.classify_issue"},
//! ```
//!
//! ## Fix
//!
//! Add `next`, or end the graph with a terminal (`done.*`) node.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {...}, "next": "test"}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (a node with neither `next` nor `branches` ends the graph) and §3.3; the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let Some(prim) = cx.model.prim(i) else {
            continue;
        };
        if cx.model.terminal[i] && !prim.terminal {
            out.push(
                codes::S204
                    .at(
                        format!("/nodes/{i}"),
                        format!(
                            "node `{}` has no successor but `{}` is not a terminal primitive",
                            node.id, prim.id
                        ),
                    )
                    .with_help(if prim.outcomes.is_some() {
                        "add `branches` for its outcomes"
                    } else {
                        "add `next`, or end the graph with a terminal (`done.*`) node"
                    }),
            );
        }
    }
}
