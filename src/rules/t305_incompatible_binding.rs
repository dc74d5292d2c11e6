//! T305: incompatible binding (with a witness value).
//!
//! ## What it checks
//!
//! For every `from` binding into input property `q`, the source schema (the
//! source's output schema at `at`) is contained in the target schema (`inputs.properties.q` of the
//! consumer's primitive): every value the source may produce is accepted by the consumer. When the
//! schema checker (`crate::schema::check`, SPEC §3.2) answers "no", the diagnostic carries its
//! witness: a JSON value the source admits and the target rejects, re-checked here against both
//! schemas with the `jsonschema` crate before it is reported.
//!
//! ## Why it matters
//!
//! The run would fail input validation exactly when the source produces such a
//! value, typically far from the edit that caused it.
//!
//! ## Example
//!
//! (`text` is any string; `mut.apply_patch` wants a non-empty `patch`.)
//!
//! ```text
//! "inputs": {"patch": {"from": "read_task", "at": "/text"}}
//! ```
//!
//! (witness: `""`).
//!
//! Fixture `tests/fixtures/rules/t305_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T305 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "read_task", "at": "/title"}, "grant": {"from": "gate", "at": "/grant"}}, "next": "test", "on_error": {"patch_conflict": "test"}},
//! ```
//!
//! ## Fix
//!
//! Bind a source whose schema fits, or narrow the source.
//!
//! Does not fire:
//!
//! ```text
//! "inputs": {"patch": {"from": "draft", "at": "/patch"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §3.2 (source ⊆ target, with a witness); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::{Diagnostic, Witness};
use crate::graph::Binding;
use crate::schema::CompatVerdict;
use serde_json::Value;

/// The verdict for one binding whose both ends resolve.
#[derive(Debug, Clone)]
pub struct CompatFinding {
    pub node: usize,
    pub property: String,
    pub pointer: String,
    /// `from`, as written.
    pub from: String,
    pub at: String,
    pub verdict: CompatVerdict,
}

/// Re-check a "no" witness against both schemas; a witness that fails either check is not
/// evidence, so the verdict becomes unknown rather than a false alarm.
fn confirm(verdict: CompatVerdict, source: &Value, target: &Value) -> CompatVerdict {
    match verdict {
        CompatVerdict::No { witness, reason } => {
            let admitted = jsonschema::is_valid(source, &witness);
            let rejected = !jsonschema::is_valid(target, &witness);
            if admitted && rejected {
                CompatVerdict::No { witness, reason }
            } else {
                CompatVerdict::Unknown {
                    reason: format!("the checker's witness {witness} did not check out ({reason})"),
                }
            }
        }
        other => other,
    }
}

/// The verdicts other than yes of every resolvable `from` binding, in binding order. Each
/// distinct (selected source schema, target schema) pair is decided once; a yes — the verdict
/// of nearly every edge of a working graph — costs no allocation.
pub fn compute(cx: &Context<'_>) -> Vec<CompatFinding> {
    let mut cache: rustc_hash::FxHashMap<(*const Value, *const Value), Option<CompatVerdict>> =
        Default::default();
    let mut findings = Vec::new();
    let checker = cx.registry.schema_checker();
    for b in cx.binding_infos() {
        let Binding::From { .. } = b.binding else {
            continue;
        };
        // An unselectable pointer is T304's finding, not a verdict.
        let (Some(Ok(selected)), Some(target)) = (cx.selection(b), b.target) else {
            continue;
        };
        let selected_schema: &Value = &selected.schema;
        let key = (selected_schema as *const Value, target as *const Value);
        let verdict = cache.entry(key).or_insert_with(|| {
            // Both ends are subschemas of a document (an output or the graph's input, the
            // consumer's inputs): their local `$ref`s are resolved against that document.
            let source_root = match b.origin {
                super::Origin::Input => Some(cx.input_schema),
                super::Origin::Node(node) => cx.prim(node).map(|p| &*p.outputs),
                _ => None,
            };
            let source = match source_root {
                Some(root) => crate::schema::walk::standalone(root, selected_schema),
                None => std::borrow::Cow::Borrowed(selected_schema),
            };
            let target = match cx.prim(b.node) {
                Some(prim) => crate::schema::walk::standalone(&prim.inputs, target),
                None => std::borrow::Cow::Borrowed(target),
            };
            match confirm(checker.verdict(&source, &target), &source, &target) {
                CompatVerdict::Yes => None,
                other => Some(other),
            }
        });
        let Some(verdict) = verdict else {
            continue;
        };
        findings.push(CompatFinding {
            node: b.node,
            property: b.property.to_string(),
            pointer: b.pointer(),
            from: b.from.to_string(),
            at: b.at.to_string(),
            verdict: verdict.clone(),
        });
    }
    findings
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for finding in cx.compat() {
        let CompatVerdict::No { witness, reason } = &finding.verdict else {
            continue;
        };
        let consumer = cx.prim(finding.node).map_or("?", |p| p.id.as_str());
        out.push(
            codes::T305
                .at(
                    finding.pointer.clone(),
                    format!(
                        "`{}` at `{}` may not fit input `{}` of `{consumer}`: {reason}",
                        finding.from, finding.at, finding.property
                    ),
                )
                .with_witness(Witness::Value(witness.clone())),
        );
    }
}
