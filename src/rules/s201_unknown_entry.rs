//! S201: `entry` names no node.
//!
//! ## What it checks
//!
//! The graph's `entry` is the `id` of one of its nodes.
//!
//! ## Why it matters
//!
//! A run starts at `entry`; with no such node nothing runs, and every analysis
//! from the entry (reachability, grants, dominators) has no root.
//!
//! ## Example
//!
//! ```text
//! "entry": "start", "nodes": [{"id": "read_task", ...}]
//! ```
//!
//! Fixture `tests/fixtures/rules/s201_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S201 at line 9:
//!
//! ```json
//! "entry": "start",
//! ```
//!
//! ## Fix
//!
//! Name the first node's id.
//!
//! Does not fire:
//!
//! ```text
//! "entry": "read_task", "nodes": [{"id": "read_task", ...}]
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`entry`) and §3.3; the code is listed in §5.

use super::{Context, nearest};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::suggest::did_you_mean;

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
