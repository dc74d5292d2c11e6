//! R101: unknown primitive.
//!
//! ## What it checks
//!
//! Every node's `primitive` names a primitive of the registry, by dotted ID or
//! alias. The help line suggests up to three of the nearest IDs and aliases (by edit distance).
//!
//! ## Why it matters
//!
//! A node whose primitive does not exist cannot run, and none of its contracts
//! (class, authority, schemas) can be checked. Replay refuses such a graph.
//!
//! ## Example
//!
//! ```text
//! {"id": "apply", "primitive": "mut.aply_patch", "next": "test"}
//! ```
//!
//! (help: did you mean `mut.apply_patch`?).
//!
//! Fixture `tests/fixtures/rules/r101_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports R101 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.aply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}}, "next": "test", "on_error": {"patch_conflict": "test"}},
//! ```
//!
//! ## Fix
//!
//! Name a primitive of the registry by dotted ID or alias.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "next": "test"}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.4 (lookup by dotted ID or alias) and §2 (`nodes[].primitive`); the code is listed in §5.

use super::{Context, nearest};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::suggest::did_you_mean;
use crate::registry::Registry;
use std::collections::HashMap;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut suggestions: HashMap<&str, Option<String>> = HashMap::new();
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        if cx.model.prim(i).is_some() {
            continue;
        }
        let help = suggestions
            .entry(node.primitive.as_str())
            .or_insert_with(|| suggestion(&node.primitive, cx.registry))
            .clone();
        out.push(diagnostic(
            format!("/nodes/{i}/primitive"),
            &node.primitive,
            cx.registry,
            help,
        ));
    }
}

/// R101 at `pointer` for `primitive`, which `registry` does not hold: what `pack lint` reports
/// at a fragment's node as well (SPEC §9.5), so a fragment says what a graph would.
pub fn unknown(pointer: String, primitive: &str, registry: &Registry) -> Diagnostic {
    diagnostic(
        pointer,
        primitive,
        registry,
        suggestion(primitive, registry),
    )
}

/// "did you mean" with up to three of the registry's nearest IDs and aliases.
fn suggestion(primitive: &str, registry: &Registry) -> Option<String> {
    let candidates = registry
        .primitives()
        .iter()
        .flat_map(|p| [p.id.as_str(), p.alias.as_str()]);
    did_you_mean(&nearest(primitive, candidates, 3))
}

fn diagnostic(
    pointer: String,
    primitive: &str,
    registry: &Registry,
    help: Option<String>,
) -> Diagnostic {
    codes::R101
        .at(
            pointer,
            format!(
                "unknown primitive `{primitive}` (registry ABI {})",
                registry.abi()
            ),
        )
        .with_help(
            help.unwrap_or_else(|| "name a primitive of the registry by dotted ID or alias".into()),
        )
}
