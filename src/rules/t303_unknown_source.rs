//! T303: binding from an unknown node.
//!
//! What it checks: the `from` of every binding is `$input` or the `id` of a node of the graph.
//!
//! Why it matters: the value the binding promises can never exist, so the input is missing on
//! every run.
//!
//! Fires:
//!
//! ```text
//! "inputs": {"patch": {"from": "drfat", "at": "/patch"}}
//! ```
//!
//! Does not fire:
//!
//! ```text
//! "inputs": {"patch": {"from": "draft", "at": "/patch"}}
//! ```

use super::{Context, Origin, did_you_mean, nearest};
use crate::codes;
use crate::diagnostic::Diagnostic;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for b in cx.binding_infos() {
        if b.origin != Origin::Unknown {
            continue;
        }
        let from = b.from;
        let suggestions = nearest(from, cx.doc.nodes.iter().map(|n| n.id.as_str()), 3);
        out.push(
            codes::T303
                .at(
                    format!("{}/from", b.pointer()),
                    format!(
                        "input `{}` is bound from `{from}`, which names no node",
                        b.property
                    ),
                )
                .with_help(
                    did_you_mean(&suggestions)
                        .unwrap_or_else(|| "bind from a node id or `$input`".into()),
                ),
        );
    }
}
