//! T304: binding pointer not in the source's output schema.
//!
//! What it checks: the `at` pointer of a `from` binding selects something the source's output
//! schema can hold, walking `properties`, `items` and `prefixItems` (for `$input`: the graph's
//! `input` schema, any object by default). A property a closed schema
//! (`additionalProperties: false`) does not declare, an index into a non-array, or a step into a
//! string all fire.
//!
//! Why it matters: the pointer finds nothing in any valid output, so the input is always missing.
//!
//! Fires (`synth.patch` outputs `patch` and `rationale`):
//!
//! ```text
//! "inputs": {"patch": {"from": "draft", "at": "/diff"}}
//! ```
//!
//! Does not fire:
//!
//! ```text
//! "inputs": {"patch": {"from": "draft", "at": "/patch"}}
//! ```

use super::Context;
use super::schema_walk::select;
use crate::diagnostic::Diagnostic;
use crate::graph::Binding;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for b in cx.bindings() {
        let Some(source) = cx.source(b.binding) else {
            continue;
        };
        let Err(missing) = select(source.schema, source.at) else {
            continue;
        };
        let from = match b.binding {
            Binding::From { from, .. } => from.as_str(),
            Binding::Const { .. } => continue,
        };
        let owner = match source.node.and_then(|n| cx.prim(n)) {
            Some(prim) => format!("the output schema of `{from}` (`{}`)", prim.id),
            None => "the graph's `input` schema".to_string(),
        };
        out.push(
            Diagnostic::error(
                "T304",
                format!("{}/at", b.pointer),
                format!(
                    "`{}` is not in {owner}: at `{}`, {}",
                    source.at, missing.prefix, missing.reason
                ),
            )
            .with_help("point at a property the source's output schema declares"),
        );
    }
}
