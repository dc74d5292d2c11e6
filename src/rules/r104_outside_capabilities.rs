//! R104: node primitive outside the graph's capabilities.
//!
//! ## What it checks
//!
//! Every node's primitive is admitted by some entry of `capabilities` (an exact
//! ID, an alias of the same primitive, or `prefix.*` covering its ID).
//!
//! A graph with an empty `capabilities` list declares an empty boundary: every node is outside
//! it. (A graph without the field is G003: SPEC §2 requires it.)
//!
//! ## Why it matters
//!
//! `capabilities` is the graph's tool boundary, the list a reviewer approves. A
//! node outside it is a tool the graph uses without having declared it.
//!
//! ## Example
//!
//! ```text
//! "capabilities": ["obs.*"],
//! "nodes": [{"id": "run", "primitive": "exec.run_command", ...}]
//! ```
//!
//! Fixture `tests/fixtures/rules/r104_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports R104 at line 13:
//!
//! ```json
//! {"id": "draft", "primitive": "synth.patch", "max_visits": 3, "inputs": {"paths": {"from": "locate", "at": "/paths"}}, "next": "gate"},
//! ```
//!
//! ## Fix
//!
//! Add the primitive (or its family's `prefix.*`) to `capabilities`.
//!
//! Does not fire:
//!
//! ```text
//! "capabilities": ["obs.*", "exec.run_command"],
//! "nodes": [{"id": "run", "primitive": "exec.run_command", ...}]
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`capabilities`: every node's primitive must match one); the code is listed in §5.

use super::Context;
use super::r103_capability_matches_nothing::admits;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::registry::Primitive;
use std::collections::HashMap;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // The verdict depends on the primitive alone, and a graph uses few of them.
    let mut verdicts: HashMap<*const Primitive, bool, rustc_hash::FxBuildHasher> =
        HashMap::default();
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let Some(prim) = cx.model.prim(i) else {
            continue;
        };
        let allowed = *verdicts.entry(prim as *const Primitive).or_insert_with(|| {
            cx.doc
                .capabilities
                .iter()
                .any(|pattern| admits(cx.registry, pattern, prim))
        });
        if !allowed {
            out.push(
                codes::R104
                    .at(
                        format!("/nodes/{i}/primitive"),
                        format!(
                            "primitive `{}` of node `{}` is outside the graph's capabilities",
                            prim.id, node.id
                        ),
                    )
                    .with_related(
                        "/capabilities",
                        if cx.doc.capabilities.is_empty() {
                            "the graph declares no capabilities"
                        } else {
                            "the graph's tool boundary"
                        },
                    )
                    .with_help(format!(
                        "add `{}` (or `{}.*`) to `capabilities`",
                        prim.id,
                        prim.id.split('.').next().unwrap_or_default()
                    )),
            );
        }
    }
}
