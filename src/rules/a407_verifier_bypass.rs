//! A407: verifier bypass.
//!
//! ## What it checks
//!
//! From every node whose primitive has `requires_verifier`, every path to a
//! terminal node (one with neither `next` nor `branches`) passes a `verification` node. Every
//! edge kind counts along the path, `on_error` included — also the `on_error` edges leaving the
//! node itself (SPEC §3.4): a mutation that fails may have written part of its change (a timeout
//! half-way through an apply), so its error path must be verified like its success path. A
//! retry loop back to an earlier step is fine as long as that loop, too, ends only through a
//! verifier. One reverse breadth-first
//! search from the terminals, through non-verification nodes only, finds every node that can
//! reach a terminal unverified, with its distance and next step on a shortest such path; the
//! witness is that path.
//!
//! ## Why it matters
//!
//! A change to the workspace that can reach "done" without a test run or check
//! is an unverified change shipped as finished.
//!
//! ## Example
//!
//! ```text
//! apply (mut.apply_patch) → done (done.finish_success)
//! ```
//!
//! ```text
//! apply → test (ver.run_target_tests) → done, but apply on_error {"*": "give_up"} (give_up is
//! terminal: the half-applied patch ends the run unverified)
//! ```
//!
//! Fixture `tests/fixtures/rules/a407_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports A407 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}}, "next": "done", "on_error": {"patch_conflict": "draft"}},
//! ```
//!
//! ## Fix
//!
//! Route every path from it to a terminal through a verification node.
//!
//! Does not fire:
//!
//! ```text
//! apply → test (ver.run_target_tests), test branches {"pass": "done", "fail": "give_up"},
//! apply on_error {"*": "check"} with check (a verification node) → give_up
//! ```
//!
//! ## Implements
//!
//! SPEC §3.4 (Verifier); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::registry::Class;
use petgraph::Direction;
use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::VecDeque;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let n = cx.doc.nodes.len();
    let verifier = |v: usize| cx.model.class(v) == Some(Class::Verification);
    // toward[v]: the edge from v to the next node on a shortest unverified path to a terminal
    // (the edge itself, not just the node: two edges may join the same two nodes).
    let mut toward: Vec<Option<EdgeIndex<u32>>> = vec![None; n];
    let mut reaches = vec![false; n];
    let mut distance = vec![usize::MAX; n];
    let mut queue = VecDeque::new();
    for v in 0..n {
        if cx.model.terminal[v] && !verifier(v) {
            reaches[v] = true;
            distance[v] = 0;
            queue.push_back(v);
        }
    }
    while let Some(w) = queue.pop_front() {
        let mut predecessors: Vec<(usize, EdgeIndex<u32>)> = cx
            .model
            .graph
            .edges_directed(NodeIndex::new(w), Direction::Incoming)
            .map(|e| (e.source().index(), e.id()))
            .collect();
        predecessors.sort_unstable();
        for (v, e) in predecessors {
            if !reaches[v] && !verifier(v) {
                reaches[v] = true;
                distance[v] = distance[w].saturating_add(1);
                toward[v] = Some(e);
                queue.push_back(v);
            }
        }
    }
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let Some(prim) = cx.model.prim(i) else {
            continue;
        };
        if !prim.requires_verifier {
            continue;
        }
        // The first step: none if the node ends the graph itself, else its best exit of any kind
        // (its own `on_error` edges included, SPEC §3.4).
        let mut edges: Vec<EdgeIndex<u32>> = Vec::new();
        if !cx.model.terminal[i] {
            let exit = cx
                .model
                .graph
                .edges(NodeIndex::new(i))
                .map(|e| (e.target().index(), e.id()))
                .filter(|(s, _)| reaches[*s])
                .map(|(s, e)| (distance[s], s, e))
                .min();
            let Some((_, mut current, first)) = exit else {
                continue;
            };
            edges.push(first);
            while let Some(e) = toward.get(current).copied().flatten() {
                if edges.len() > n {
                    break;
                }
                edges.push(e);
                current = cx
                    .model
                    .graph
                    .edge_endpoints(e)
                    .map_or(current, |(_, b)| b.index());
            }
        }
        let witness = cx.model.route(i, &edges);
        out.push(
            codes::A407
                .at(
                    format!("/nodes/{i}"),
                    format!(
                        "`{}` (`{}` requires a verifier) reaches a terminal without verification: {}",
                        node.id,
                        prim.id,
                        witness.describe()
                    ),
                )
                .with_witness(witness),
        );
    }
}
