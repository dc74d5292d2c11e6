//! S209: worst-case steps exceed `budget.max_steps`.
//!
//! What it checks: when every cycle is bounded (no S205) and the graph declares
//! `budget.max_steps`, an upper bound on the number of node entries of any run is computed and
//! compared with it. The bound is
//!
//! ```text
//! bound = L(entry) + Σ over bounded nodes b reachable from entry of max_visits(b) × (1 + Lout(b))
//! ```
//!
//! where, in the subgraph of unbounded nodes (no `max_visits`, acyclic once S205 is clean),
//! L(v) is the number of nodes on the longest path starting at v (L(entry) = 0 when the entry is
//! itself bounded), and Lout(b) is the largest L(s) over the unbounded successors s of b (0 when
//! it has none). Every edge kind counts (`next`, `branches`, `on_error`).
//!
//! Why it is an upper bound: cut any run at each entry of a bounded node. The run becomes
//! U0 b1 U1 b2 … bk Uk where each Uj is a stretch of unbounded nodes only. A stretch is a walk in
//! the unbounded subgraph, which is acyclic, so it is a simple path: U0 starts at the entry and
//! has at most L(entry) nodes; Uj (j ≥ 1) starts at a successor of bj and has at most Lout(bj)
//! nodes. A bounded node b occurs at most max_visits(b) times among the bj, and only reachable
//! nodes occur at all. Summing gives the bound. It is exact for straight-line graphs and never
//! smaller than the longest run. (The simpler "Σ max_visits + number of unbounded nodes" is not
//! an upper bound: an unbounded node after a bounded one can run once per visit of it.)
//!
//! Why it matters: a graph whose worst case exceeds its own step budget will be cut off by the
//! runtime in some run; the author should raise the budget or lower the bounds.
//!
//! Fires:
//!
//! ```text
//! "budget": {"max_steps": 5},
//! "nodes": [{"id": "fix", ..., "max_visits": 3, "next": "test"},
//!           {"id": "test", ..., "branches": {"pass": "done", "fail": "fix"}}, {"id": "done", ...}]
//! ```
//!
//! (entry `fix`: bound = 3 × (1 + 2) = 9 > 5).
//!
//! Does not fire: the same graph with `"max_steps": 9`.

use super::Context;
use super::s205_unbounded_cycle::unbounded_cycles;
use crate::diagnostic::Diagnostic;

/// The worst-case step bound of the formula above, or `None` when some cycle is unbounded or
/// there is no entry. Saturates at `u128::MAX`.
pub fn worst_case_steps(cx: &Context<'_>) -> Option<u128> {
    let entry = cx.model.entry?;
    if !unbounded_cycles(cx).is_empty() {
        return None;
    }
    let nodes = &cx.doc.nodes;
    let bounded = |v: usize| nodes.get(v).is_some_and(|n| n.max_visits.is_some());
    let n = nodes.len();
    let mut longest = vec![0u128; n];
    // Tarjan's order is reverse topological: every successor's component comes first.
    for scc in &cx.model.unbounded_sccs {
        for &v in scc {
            if bounded(v) {
                continue;
            }
            let best = cx
                .model
                .successors(v)
                .filter(|(s, _)| !bounded(*s))
                .map(|(s, _)| longest[s])
                .max()
                .unwrap_or(0);
            longest[v] = best.saturating_add(1);
        }
    }
    let mut total = if bounded(entry) { 0 } else { longest[entry] };
    for (b, node) in nodes.iter().enumerate() {
        let Some(visits) = node.max_visits else {
            continue;
        };
        if !cx.model.reachable[b] {
            continue;
        }
        let after = cx
            .model
            .successors(b)
            .filter(|(s, _)| !bounded(*s))
            .map(|(s, _)| longest[s])
            .max()
            .unwrap_or(0);
        total = total.saturating_add(u128::from(visits).saturating_mul(after.saturating_add(1)));
    }
    Some(total)
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(max_steps) = cx.doc.budget.as_ref().and_then(|b| b.max_steps) else {
        return;
    };
    let Some(bound) = worst_case_steps(cx) else {
        return;
    };
    if bound > u128::from(max_steps) {
        out.push(
            Diagnostic::error(
                "S209",
                "/budget/max_steps",
                format!("worst-case step count {bound} exceeds `budget.max_steps` {max_steps}"),
            )
            .with_help("raise `budget.max_steps` or lower the `max_visits` bounds; `primgraph explain S209` shows the formula"),
        );
    }
}
