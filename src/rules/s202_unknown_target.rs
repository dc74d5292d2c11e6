//! S202: `next`, `branches` or `on_error` names no node.
//!
//! ## What it checks
//!
//! Every control-flow target (`next`, each `branches` value, each `on_error`
//! value) is the `id` of a node of the graph.
//!
//! ## Why it matters
//!
//! A run that takes that edge has nowhere to go; the runtime would fail at the
//! worst moment (often on an error path nobody exercised).
//!
//! ## Example
//!
//! ```text
//! {"id": "apply", ..., "next": "tset"}
//! ```
//!
//! Fixture `tests/fixtures/rules/s202_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S202 at line 16:
//!
//! ```json
//! {"id": "test", "primitive": "ver.run_target_tests", "inputs": {"test_ids": {"from": "read_task", "at": "/test_ids"}}, "branches": {"pass": "decide", "fail": "drfat"}},
//! ```
//!
//! ## Fix
//!
//! Target the id of a node of this graph.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", ..., "next": "test"}, {"id": "test", ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`next`, `branches`, `on_error`) and §3.3; the code is listed in §5.

use super::{Context, nearest};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::suggest::did_you_mean;
use crate::json::pointer::escape_token as escape_pointer_token;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    if cx.model.unresolved_targets == 0 {
        return;
    }
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        // (field, key, target): the pointer is only spelled out for a target that names no node.
        let next = node.next.iter().map(|next| ("next", None, next));
        let maps = [("branches", &node.branches), ("on_error", &node.on_error)]
            .into_iter()
            .flat_map(|(field, map)| {
                map.iter()
                    .flatten()
                    .map(move |(key, target)| (field, Some(key), target))
            });
        for (field, key, target) in next.chain(maps) {
            if cx.model.ids.contains_key(target.as_str()) {
                continue;
            }
            let pointer = match key {
                None => format!("/nodes/{i}/{field}"),
                Some(key) => format!("/nodes/{i}/{field}/{}", escape_pointer_token(key)),
            };
            let suggestions = nearest(target, cx.doc.nodes.iter().map(|n| n.id.as_str()), 3);
            out.push(
                codes::S202
                    .at(
                        pointer,
                        format!("node `{}` targets `{target}`, which names no node", node.id),
                    )
                    .with_help(
                        did_you_mean(&suggestions)
                            .unwrap_or_else(|| "target the id of a node of this graph".into()),
                    ),
            );
        }
    }
}
