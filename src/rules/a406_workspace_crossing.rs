//! A406: workspace crossing outside a crossing primitive.
//!
//! ## What it checks
//!
//! A binding whose source node and consumer node have different `workspace`
//! labels (default `"main"`) is allowed only into a primitive with the `crosses_workspace`
//! effect. `$input` and constants belong to no workspace and never cross.
//!
//! ## Why it matters
//!
//! Workspaces are residency boundaries (a sandbox, another tenant's checkout);
//! data moves across them only through a primitive that declares, and is authorized for, the
//! crossing.
//!
//! ## Example
//!
//! ```text
//! {"id": "read", "workspace": "sandbox", ...}, {"id": "apply", "primitive": "mut.apply_patch",
//!  "inputs": {"patch": {"from": "read", "at": "/text"}}, ...}
//! ```
//!
//! Fixture `tests/fixtures/rules/a406_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports A406 at line 12:
//!
//! ```json
//! {"id": "locate", "primitive": "loc.localize_failure", "inputs": {"test_ids": {"from": "read_task", "at": "/test_ids"}}, "next": "draft", "workspace": "sandbox"},
//! ```
//!
//! ## Fix
//!
//! Move the data through a primitive with the `crosses_workspace` effect.
//!
//! Does not fire: Both nodes in the same workspace, or the consumer is `route.delegate`
//! (which has `crosses_workspace`).
//!
//! ## Implements
//!
//! SPEC §3.4 (Workspaces); the code is listed in §5.

use super::{Context, Origin};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::registry::Effect;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for b in cx.binding_infos() {
        let Origin::Node(source) = b.origin else {
            continue;
        };
        let from = b.from;
        let (Some(source_node), Some(consumer_node)) =
            (cx.doc.nodes.get(source), cx.doc.nodes.get(b.node))
        else {
            continue;
        };
        if source_node.workspace() == consumer_node.workspace() {
            continue;
        }
        let Some(prim) = cx.prim(b.node) else {
            continue;
        };
        if prim.has_effect(Effect::CrossesWorkspace) {
            continue;
        }
        out.push(
            codes::A406.at(b.pointer(),
                format!(
                    "input `{}` of `{}` (workspace `{}`) is bound from `{from}` (workspace `{}`), but `{}` does not cross workspaces",
                    b.property,
                    consumer_node.id,
                    consumer_node.workspace(),
                    source_node.workspace(),
                    prim.id
                ),
            )
            .with_related(format!("/nodes/{source}"), format!("`{from}` runs in `{}`", source_node.workspace())),
        );
    }
}
