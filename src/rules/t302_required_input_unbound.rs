//! T302: required input not bound.
//!
//! ## What it checks
//!
//! Every property in the `required` list of a node's primitive's input schema
//! has a binding in the node's `inputs`.
//!
//! ## Why it matters
//!
//! The call would be rejected by the primitive's input schema on every run; a
//! graph that cannot make a valid call at a node cannot pass that node.
//!
//! ## Example
//!
//! (`mut.apply_patch` requires `patch` and `grant`.)
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}}}
//! ```
//!
//! Fixture `tests/fixtures/rules/t302_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T302 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}}, "next": "test", "on_error": {"patch_conflict": "draft"}},
//! ```
//!
//! ## Fix
//!
//! Bind every required input property in `inputs`.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch",
//!  "inputs": {"patch": {"from": "draft", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}}}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`nodes[].inputs`) and §1.2; the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use serde_json::Value;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let Some(prim) = cx.model.prim(i) else {
            continue;
        };
        let Some(required) = prim.inputs.get("required").and_then(Value::as_array) else {
            continue;
        };
        for property in required.iter().filter_map(Value::as_str) {
            if node.inputs.contains_key(property) {
                continue;
            }
            let pointer = if node.inputs.is_empty() {
                format!("/nodes/{i}")
            } else {
                format!("/nodes/{i}/inputs")
            };
            out.push(
                codes::T302
                    .at(
                        pointer,
                        format!(
                            "node `{}` does not bind required input `{property}` of `{}`",
                            node.id, prim.id
                        ),
                    )
                    .with_help(format!(
                        "add `\"{property}\": {{\"from\": NODE, \"at\": POINTER}}` to `inputs`"
                    )),
            );
        }
    }
}
