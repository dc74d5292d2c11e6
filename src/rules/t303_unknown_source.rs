//! T303: binding from an unknown node.
//!
//! ## What it checks
//!
//! The `from` of every binding is `$input` or the `id` of a node of the graph.
//!
//! ## Why it matters
//!
//! The value the binding promises can never exist, so the input is missing on
//! every run.
//!
//! ## Example
//!
//! ```text
//! "inputs": {"patch": {"from": "drfat", "at": "/patch"}}
//! ```
//!
//! Fixture `tests/fixtures/rules/t303_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T303 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "drfat", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}}, "next": "test", "on_error": {"patch_conflict": "test"}},
//! ```
//!
//! ## Fix
//!
//! Bind from a node id or `$input`.
//!
//! Does not fire:
//!
//! ```text
//! "inputs": {"patch": {"from": "draft", "at": "/patch"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`{"from": NODE or "$input"}`); the code is listed in §5.

use super::{Context, Origin, nearest};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::suggest::did_you_mean;

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
