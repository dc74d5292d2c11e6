//! T307: constant violates the input schema.
//!
//! ## What it checks
//!
//! Every `{"const": VALUE}` binding's value validates (with the `jsonschema`
//! crate) against the schema of the input property it is bound to.
//!
//! ## Why it matters
//!
//! A constant is checked once here rather than failing on every run.
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
        let validator = validators
            .entry(target as *const Value)
            .or_insert_with(|| jsonschema::validator_for(target).ok());
        let Some(validator) = validator else {
            continue; // the registry's schema does not compile: L505's business
        };
        let errors: Vec<String> = validator
            .iter_errors(value)
            .take(3)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("at `{at}`: {e}")
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
