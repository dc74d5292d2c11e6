//! S201: `entry` names no node.
//!
//! What it checks: the graph's `entry` is the `id` of one of its nodes.
//!
//! Why it matters: a run starts at `entry`; with no such node nothing runs, and every analysis
//! from the entry (reachability, grants, dominators) has no root.
//!
//! Fires:
//!
//! ```text
//! "entry": "start", "nodes": [{"id": "read_task", ...}]
//! ```
//!
//! Does not fire:
//!
//! ```text
//! "entry": "read_task", "nodes": [{"id": "read_task", ...}]
//! ```

use super::{Context, did_you_mean, nearest};
use crate::codes;
use crate::diagnostic::Diagnostic;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    if cx.model.entry.is_some() {
        return;
    }
    let suggestions = nearest(&cx.doc.entry, cx.doc.nodes.iter().map(|n| n.id.as_str()), 3);
    out.push(
        codes::S201
            .at(
                "/entry",
                format!("`entry` names no node: `{}`", cx.doc.entry),
            )
            .with_help(
                did_you_mean(&suggestions).unwrap_or_else(|| "name the first node's id".into()),
            ),
    );
}
