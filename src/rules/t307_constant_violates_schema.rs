//! T307: constant violates the input schema.
//!
//! ## What it checks
//!
//! Every `{"const": VALUE}` binding's value validates (with the `jsonschema`
//! crate) against the schema of the input property it is bound to.
//!
//! ## Why it matters
//!
//! A constant is checked once here rather than failing on every run. A value outside an
//! `enum` is reported with the allowed values, up to 20 of them (then how many more), so the fix
//! can be read off the message.
//!
//! ## Example
//!
//! (`command` must be a non-empty string.)
//!
//! ```text
//! "inputs": {"command": {"const": ""}}
//! ```
//!
//! Fixture `tests/fixtures/rules/t307_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T307 at line 18:
//!
//! ```json
//! {"id": "done", "primitive": "done.finish_success", "inputs": {"summary": {"const": 42}}},
//! ```
//!
//! ## Fix
//!
//! Give a constant the input's schema accepts.
//!
//! Does not fire:
//!
//! ```text
//! "inputs": {"command": {"const": "cargo test"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §3.2 (a `const` binding is checked by validating the value); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::graph::Binding;
use serde_json::Value;
use std::collections::HashMap;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut validators: HashMap<*const Value, Option<jsonschema::Validator>> = HashMap::new();
    for b in cx.binding_infos() {
        let Binding::Const { value } = b.binding else {
            continue;
        };
        let Some(target) = b.target else {
            continue; // T301
        };
        // The property's schema with what its local `$ref`s name: a sub-schema alone does not
        // compile when it refers into the contract's `$defs`, and a skipped check is a bypass.
        let validator = validators.entry(target as *const Value).or_insert_with(|| {
            let standalone = match cx.prim(b.node) {
                Some(prim) => crate::schema::walk::standalone(&prim.inputs, target),
                None => std::borrow::Cow::Borrowed(target),
            };
            jsonschema::validator_for(&standalone).ok()
        });
        let Some(validator) = validator else {
            continue; // the registry's schema does not compile: L505's business
        };
        let errors: Vec<String> = validator
            .iter_errors(value)
            .take(3)
            .map(|e| {
                let at = e.instance_path().to_string();
                // jsonschema names two enum values "or N other candidates": list them all (up
                // to a bound), since the allowed values are what the author needs.
                let text = match e.kind() {
                    jsonschema::error::ValidationErrorKind::Enum { options } => {
                        enum_message(e.instance(), options)
                    }
                    _ => e.to_string(),
                };
                if at.is_empty() {
                    text
                } else {
                    format!("at `{at}`: {text}")
                }
            })
            .collect();
        if errors.is_empty() {
            continue;
        }
        let prim = cx.prim(b.node).map_or("?", |p| p.id.as_str());
        out.push(
            codes::T307
                .at(
                    format!("{}/const", b.pointer()),
                    format!(
                        "constant for input `{}` of `{prim}` violates its schema: {}",
                        b.property,
                        errors.join("; ")
                    ),
                )
                .with_witness(crate::diagnostic::Witness::Value(value.clone()))
                .with_help(format!(
                    "see `inputs.properties.{}` of `{prim}` in the registry",
                    b.property
                )),
        );
    }
}

/// Allowed values listed in a T307 message; past this many, the count of the rest.
pub const MAX_LISTED_VALUES: usize = 20;

/// "`VALUE` is not one of the allowed values: a, b, c" (at most [`MAX_LISTED_VALUES`] named).
fn enum_message(instance: &Value, options: &Value) -> String {
    let values: Vec<String> = match options {
        Value::Array(items) => items.iter().map(Value::to_string).collect(),
        other => vec![other.to_string()],
    };
    let mut listed = values
        .iter()
        .take(MAX_LISTED_VALUES)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if values.len() > MAX_LISTED_VALUES {
        listed.push_str(&format!(" and {} more", values.len() - MAX_LISTED_VALUES));
    }
    format!("{instance} is not one of the allowed values: {listed}")
}
