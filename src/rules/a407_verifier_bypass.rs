//! A407: verifier bypass.
//!
//! What it checks: from every node whose primitive has `requires_verifier`, every path to a
//! terminal node (one with neither `next` nor `branches`) passes a `verification` node. Every
//! edge kind counts, `on_error` included. One reverse breadth-first search from the terminals,
//! through non-verification nodes only, finds every node that can reach a terminal unverified,
//! with its next step on a shortest such path; the witness is that path.
//!
//! Why it matters: a change to the workspace that can reach "done" without a test run or check
//! is an unverified change shipped as finished.
//!
//! Fires:
//!
//!     apply (mut.apply_patch) → done (done.finish_success)
//!
//! Does not fire:
//!
//!     apply → test (ver.run_target_tests), test branches {"pass": "done", "fail": "give_up"}

use super::Context;
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
    let mut queue = VecDeque::new();
    for v in 0..n {
        if cx.model.terminal[v] && !verifier(v) {
            reaches[v] = true;
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
                toward[v] = Some(w);
                queue.push_back(v);
            }
        }
    }
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let Some(prim) = cx.model.prim(i) else { continue };
        if !prim.requires_verifier || !reaches[i] {
            continue;
        }
        let mut path = vec![node.id.clone()];
        let mut current = i;
        while let Some(next) = toward.get(current).copied().flatten() {
            if path.len() > n {
                break;
            }
            path.push(cx.model.id(next).to_string());
            current = next;
        }
        out.push(
            Diagnostic::error(
                "A407",
                format!("/nodes/{i}"),
                format!(
                    "`{}` (`{}` requires a verifier) reaches a terminal without verification: {}",
                    node.id,
                    prim.id,
                    path.join(" → ")
                ),
            )
            .with_witness(Witness::Path(path))
            .with_help("route every path from it to a terminal through a verification node"),
        );
    }
}
