//! S205: unbounded cycle.
//!
//! ## What it checks
//!
//! Every cycle of the control-flow graph passes through a node with
//! `max_visits`; equivalently, the graph minus bounded nodes is acyclic. Each strongly connected
//! component of unbounded nodes that holds a cycle is reported once, at its first node, with one
//! of its cycles as the witness path.
//!
//! ## Why it matters
//!
//! An unbounded cycle can loop forever (retrying a failing patch, re-asking a
//! model), burning budget with no worst-case bound; S209 can only bound steps when every cycle is
//! bounded.
//!
//! ## Example
//!
//! ```text
//! {"id": "draft", ..., "next": "test"},
//! {"id": "test", ..., "branches": {"pass": "done", "fail": "draft"}}
//! ```
//!
//! Fixture `tests/fixtures/rules/s205_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S205 at line 13:
//!
//! ```json
//! {"id": "draft", "primitive": "synth.patch", "inputs": {"paths": {"from": "locate", "at": "/paths"}}, "next": "gate"},
//! ```
//!
//! ## Fix
//!
//! Set `max_visits` on a node of the cycle.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "draft", ..., "max_visits": 3, "next": "test"},
//! {"id": "test", ..., "branches": {"pass": "done", "fail": "draft"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §3.4 (Bounds: every cycle passes a node with `max_visits`); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::{Diagnostic, Witness};
use std::collections::{HashMap, VecDeque};

/// The SCCs of unbounded nodes that hold a cycle, each sorted by node index.
pub fn unbounded_cycles(cx: &Context<'_>) -> Vec<Vec<usize>> {
    let mut cycles: Vec<Vec<usize>> = cx
        .model
        .unbounded_sccs
        .iter()
        // The model keeps bounded nodes as singleton components (with no edges): a self-loop
        // counts only on an unbounded node, since a bounded one bounds its own cycle.
        .filter(|scc| {
            scc.len() > 1
                || scc.first().is_some_and(|&v| {
                    cx.model.self_loop[v]
                        && cx.doc.nodes.get(v).is_some_and(|n| n.max_visits.is_none())
                })
        })
        .map(|scc| {
            let mut scc = scc.clone();
            scc.sort_unstable();
            scc
        })
        .collect();
    cycles.sort_unstable();
    cycles
}

/// The shortest cycle through `start` inside `members` (BFS back to `start`).
fn cycle_through(cx: &Context<'_>, start: usize, members: &[usize]) -> Vec<String> {
    let inside: HashMap<usize, ()> = members.iter().map(|&v| (v, ())).collect();
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        let mut targets: Vec<usize> = cx
            .model
            .successors(v)
            .map(|(t, _)| t)
            .filter(|t| inside.contains_key(t))
            .collect();
        targets.sort_unstable();
        for t in targets {
            if t == start {
                let mut path = vec![cx.model.id(start).to_string()];
                let mut chain = vec![v];
                let mut current = v;
                while current != start {
                    match parent.get(&current) {
                        Some(&p) => {
                            current = p;
                            chain.push(p);
                        }
                        None => break,
                    }
                }
                chain.pop(); // `start` itself, already first.
                path.extend(chain.iter().rev().map(|&c| cx.model.id(c).to_string()));
                path.push(cx.model.id(start).to_string());
                return path;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(t) {
                e.insert(v);
                queue.push_back(t);
            }
        }
    }
    vec![cx.model.id(start).to_string()]
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for scc in unbounded_cycles(cx) {
        let Some(&first) = scc.first() else { continue };
        let path = cycle_through(cx, first, &scc);
        let mut d = codes::S205
            .at(
                format!("/nodes/{first}"),
                format!(
                    "unbounded cycle: {} (no node on it has `max_visits`)",
                    path.join(" → ")
                ),
            )
            .with_witness(Witness::Path(path));
        for &other in scc.iter().skip(1).take(8) {
            d = d.with_related(
                format!("/nodes/{other}"),
                format!("`{}` is on the same cycle", cx.model.id(other)),
            );
        }
        out.push(d);
    }
}
