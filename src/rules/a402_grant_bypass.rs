//! A402: authorization-requiring node reachable without a grant.
//!
//! ## What it checks
//!
//! Every node whose primitive has `requires_authorization` is unreachable from
//! `entry` once every grant edge is removed. A grant edge is a `branches` edge of a node whose
//! primitive has `authorize` authority, labelled with one of the primitive's `grants` (a `"*"`
//! edge never grants). One BFS from `entry` over the remaining edges finds every such node; the
//! witness is the shortest path that reaches it without a grant.
//!
//! ## Why it matters
//!
//! A mutation, a spend or a permission must be preceded by a policy decision that
//! granted it. A single edge around the gate (an `on_error` fallback, a `"*"` branch) turns the
//! gate into decoration.
//!
//! ## Example
//!
//! ```text
//! draft → apply (mut.apply_patch), with gate (ctl.authorize_patch) branches {"allow": "apply"}
//! elsewhere: the path draft → apply skips the grant.
//! ```
//!
//! Fixture `tests/fixtures/rules/a402_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports A402 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}}, "next": "test", "on_error": {"patch_conflict": "draft"}},
//! ```
//!
//! ## Fix
//!
//! Route every path to it through a granting branch of a policy gate (e.g. `allow`).
//!
//! Does not fire:
//!
//! ```text
//! draft → gate, gate branches {"allow": "apply", "deny": "give_up"}: apply is reached only
//! through the `allow` grant.
//! ```
//!
//! ## Implements
//!
//! SPEC §3.4 (Grant); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::{Diagnostic, Witness};
use crate::graph::EdgeKind;
use crate::graph::model::bfs;
use crate::registry::Authority;
use petgraph::visit::EdgeRef;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(entry) = cx.model.entry else { return };
    let is_grant = |source: usize, kind: &EdgeKind| match (kind, cx.model.prim(source)) {
        (EdgeKind::Branch { outcome }, Some(prim)) => {
            prim.authority == Authority::Authorize
                && *outcome != "*"
                && prim.grants.iter().any(|g| g == outcome)
        }
        _ => false,
    };
    let (seen, parents) = bfs(&cx.model.graph, entry, |e| {
        !is_grant(e.source().index(), e.weight())
    });
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let Some(prim) = cx.model.prim(i) else {
            continue;
        };
        if !prim.requires_authorization || !seen[i] {
            continue;
        }
        let path = cx.model.path_to(&parents, i);
        out.push(
            codes::A402
                .at(
                    format!("/nodes/{i}"),
                    format!(
                        "node `{}` (`{}` requires authorization) is reachable without a grant: {}",
                        node.id,
                        prim.id,
                        path.join(" → ")
                    ),
                )
                .with_witness(Witness::Path(path)),
        );
    }
}
