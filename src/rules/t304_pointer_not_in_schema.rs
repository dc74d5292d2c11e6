//! T304: binding pointer not in the source's output schema.
//!
//! ## What it checks
//!
//! The `at` pointer of a `from` binding selects something the source's output
//! schema can hold, walking `properties`, `items` and `prefixItems` (for `$input`: the graph's
//! `input` schema, any object by default). A property a closed schema
//! (`additionalProperties: false`) does not declare, an index into a non-array, or a step into a
//! string all fire.
//!
//! ## Why it matters
//!
//! The pointer finds nothing in any valid output, so the input is always missing.
//!
//! ## Example
//!
//! (`synth.patch` outputs `patch` and `rationale`.)
//!
//! ```text
//! "inputs": {"patch": {"from": "draft", "at": "/diff"}}
//! ```
//!
//! Fixture `tests/fixtures/rules/t304_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T304 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/diff"}, "grant": {"from": "gate", "at": "/grant"}}, "next": "test", "on_error": {"patch_conflict": "draft"}},
//! ```
//!
//! ## Fix
//!
//! Point at a property the source's output schema declares.
//!
//! Does not fire:
//!
//! ```text
//! "inputs": {"patch": {"from": "draft", "at": "/patch"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §3.2 (the source schema: the sub-schema at `at`); the code is listed in §5.

use super::{Context, Origin};
use crate::codes;
use crate::diagnostic::Diagnostic;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for b in cx.binding_infos() {
        let Some(Err(missing)) = cx.selection(b) else {
            continue;
        };
        let from = b.from;
        let owner = match b.origin {
            Origin::Node(n) => match cx.prim(n) {
                Some(prim) => format!("the output schema of `{from}` (`{}`)", prim.id),
                None => continue,
            },
            _ => "the graph's `input` schema".to_string(),
        };
        out.push(codes::T304.at(
            format!("{}/at", b.pointer()),
            format!(
                "`{}` is not in {owner}: at `{}`, {}",
                b.at, missing.prefix, missing.reason
            ),
        ));
    }
}
