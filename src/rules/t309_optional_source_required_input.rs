//! T309: optional source bound to a required input.
//!
//! ## What it checks
//!
//! A `from` binding into an input the consumer's primitive lists as `required`
//! selects a value that every valid source output has: each property on the `at` path is
//! `required` in its object schema, and each array index is below `minItems`. For `$input` the
//! graph's `input` schema is used (by default any object, where nothing is required).
//!
//! ## Why it matters
//!
//! When the source omits the optional value, the binding leaves the required
//! input out and the call fails validation.
//!
//! ## Example
//!
//! (`loc.localize_failure` may omit `line`; the consumer requires it.)
//!
//! ```text
//! "inputs": {"line": {"from": "locate", "at": "/line"}}
//! ```
//!
//! Fixture `tests/fixtures/rules/t309_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T309 at line 11:
//!
//! ```json
//! {"id": "read_task", "primitive": "intake.parse_issue", "inputs": {"text": {"from": "$input", "at": "/issue"}}, "next": "locate"},
//! ```
//!
//! ## Fix
//!
//! Bind from a required property of the source.
//!
//! Does not fire: A binding from a property the source's schema lists in `required`.
//!
//! ## Implements
//!
//! SPEC §3.2 and §3.4 (Definite assignment: an optional source may be absent); the code is listed in §5.

use super::{Context, Origin};
use crate::codes;
use crate::diagnostic::Diagnostic;
use serde_json::Value;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for b in cx.binding_infos() {
        // The shared selection answers first: most bindings select a value that is always there.
        let Some(Ok(selected)) = cx.selection(b) else {
            continue; // a constant, an unknown source (T303, R101) or not in the schema (T304)
        };
        if !selected.optional {
            continue;
        }
        let from = b.from;
        let Some(prim) = cx.prim(b.node) else {
            continue;
        };
        let required = prim
            .inputs
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(b.property)));
        if !required {
            continue;
        }
        let from_node = b.origin != Origin::Input;
        let owner = if from_node {
            format!("the output of `{from}`")
        } else {
            "the graph's `input`".to_string()
        };
        out.push(
            codes::T309.at(b.pointer(),
                format!(
                    "required input `{}` of `{}` is bound from `{}` in {owner}, which may be absent",
                    b.property, prim.id, b.at
                ),
            )
            .with_help(if from_node {
                "bind from a required property of the source".to_string()
            } else {
                "declare the property in the graph's `input` schema and list it in `required`".to_string()
            }),
        );
    }
}
