//! T301: input property the primitive does not declare.
//!
//! ## What it checks
//!
//! Every key of a node's `inputs` is a property declared in its primitive's
//! `inputs.properties`.
//!
//! ## Why it matters
//!
//! Registry input schemas are closed (`additionalProperties: false`); an
//! undeclared property makes every call fail validation at run time, and usually is a misspelling
//! of a declared one that is then left unbound.
//!
//! ## Example
//!
//! (`mut.apply_patch` declares `patch` and `grant`.)
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"diff": {"from": "draft", "at": "/patch"}, ...}}
//! ```
//!
//! Fixture `tests/fixtures/rules/t301_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T301 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}, "diff": {"from": "draft", "at": "/patch"}}, "next": "test", "on_error": {"patch_conflict": "test"}},
//! ```
//!
//! ## Fix
//!
//! Bind only the input properties the primitive declares.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}, ...}}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`nodes[].inputs`) and §1.2 (the contract's `inputs`); the code is listed in §5.

use super::{Context, nearest};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::suggest::did_you_mean;
use serde_json::Value;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for b in cx.binding_infos() {
        // A declared property is exactly one with a target schema.
        if b.target.is_some() {
            continue;
        }
        let Some(prim) = cx.prim(b.node) else {
            continue;
        };
        let properties = prim.inputs.get("properties").and_then(Value::as_object);
        let declared: Vec<&str> = properties
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let help =
            did_you_mean(&nearest(b.property, declared.iter().copied(), 3)).unwrap_or_else(|| {
                if declared.is_empty() {
                    format!("`{}` takes no inputs", prim.id)
                } else {
                    format!("declared inputs: {}", declared.join(", "))
                }
            });
        out.push(
            codes::T301
                .at(
                    b.pointer(),
                    format!("`{}` declares no input property `{}`", prim.id, b.property),
                )
                .with_help(help),
        );
    }
}
