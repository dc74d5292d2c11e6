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
use crate::diagnostic::{Diagnostic, Witness};
use crate::registry::Class;
use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use std::collections::VecDeque;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let n = cx.doc.nodes.len();
    let verifier = |v: usize| cx.model.class(v) == Some(Class::Verification);
    // toward[v]: the next node on a shortest unverified path from v to a terminal.
    let mut toward: Vec<Option<usize>> = vec![None; n];
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
        let mut predecessors: Vec<usize> = cx
            .model
            .graph
            .edges_directed(NodeIndex::new(w), Direction::Incoming)
            .map(|e| e.source().index())
            .collect();
        predecessors.sort_unstable();
        for v in predecessors {
            if !reaches[v] && !verifier(v) {
                reaches[v] = true;
                distance[v] = distance[w].saturating_add(1);
                toward[v] = Some(w);
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
        let first = if cx.model.terminal[i] {
            None
        } else {
            let exit = cx
                .model
                .successors(i)
                .filter(|(s, _)| reaches[*s])
                .map(|(s, _)| (distance[s], s))
                .min();
            match exit {
                Some((_, s)) => Some(s),
                None => continue,
            }
        };
        let mut path = vec![node.id.clone()];
        let mut current = first;
        while let Some(next) = current {
            if path.len() > n {
                break;
            }
            path.push(cx.model.id(next).to_string());
            current = toward.get(next).copied().flatten();
        }
        out.push(
            codes::A407.at(format!("/nodes/{i}"),
                format!(
                    "`{}` (`{}` requires a verifier) reaches a terminal without verification: {}",
                    node.id,
                    prim.id,
                    path.join(" → ")
                ),
            )
            .with_witness(Witness::Path(path)),
        );
    }
}
