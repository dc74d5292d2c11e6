//! T308: binding source does not dominate its consumer.
//!
//! ## What it checks
//!
//! For every binding `{"from": X}` into node Y (Y reachable from `entry`), X
//! strictly dominates Y in the control-flow graph: every path from `entry` to Y passes X before
//! reaching Y, so X has run (and has a latest output) whenever Y runs. Dominators come from
//! petgraph's `simple_fast` over every edge kind; each query is O(1) on the numbered dominator
//! tree. The witness is a shortest path from `entry` to Y that avoids X.
//!
//! ## Why it matters
//!
//! On a path that skips X the input is missing (or stale from an earlier round),
//! and the call fails or, worse, acts on old data. A node reading its own output has nothing to
//! read on its first visit.
//!
//! ## Example
//!
//! ```text
//! entry → triage, triage branches {"bug": "draft", "question": "apply"}, draft → apply,
//! apply binds {"patch": {"from": "draft", "at": "/patch"}}
//! ```
//!
//! (the path triage → apply skips draft).
//!
//! Fixture `tests/fixtures/rules/t308_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T308 at line 19:
//!
//! ```json
//! {"id": "give_up", "primitive": "done.report_failure", "inputs": {"reason": {"from": "test", "at": "/log"}}}
//! ```
//!
//! ## Fix
//!
//! Bind from a node that runs on every path to the consumer.
//!
//! Does not fire: The same binding when every path to `apply` passes `draft`.
//!
//! ## Implements
//!
//! SPEC §3.4 (Definite assignment); the code is listed in §5.

use super::{Context, Origin};
use crate::codes;
use crate::diagnostic::{Diagnostic, Witness};
use crate::graph::model::bfs;
use petgraph::visit::EdgeRef;

/// Witness paths cost a BFS each; past this many findings in one file only the message remains.
const MAX_WITNESSES: usize = 64;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(entry) = cx.model.entry else { return };
    let mut witnesses = 0;
    for b in cx.binding_infos() {
        // `$input` and constants are always there; an unknown source is T303.
        let Origin::Node(source) = b.origin else {
            continue;
        };
        if !cx.model.reachable[b.node] {
            continue;
        }
        let from = b.from;
        if source != b.node && cx.model.dominates(source, b.node) {
            continue;
        }
        let consumer = cx.model.id(b.node).to_string();
        let message = if source == b.node {
            format!(
                "node `{consumer}` binds input `{}` from its own output, which does not exist on its first visit",
                b.property
            )
        } else {
            format!(
                "`{from}` does not dominate `{consumer}`: some path reaches `{consumer}` without running `{from}`"
            )
        };
        let mut d = codes::T308.at(format!("{}/from", b.pointer()), message)
            .with_related(format!("/nodes/{source}"), format!("`{from}` is defined here"))
            .with_help(format!("bind from a node that runs on every path to `{consumer}`, or route every path through `{from}`"));
        if witnesses < MAX_WITNESSES && source != entry {
            witnesses += 1;
            let (seen, parents) = bfs(&cx.model.graph, entry, |e| {
                e.target().index() != source || source == b.node
            });
            if seen[b.node] {
                d = d.with_witness(Witness::Path(cx.model.path_to(&parents, b.node)));
            }
        }
        out.push(d);
    }
}
