//! S209: worst-case steps exceed `budget.max_steps`.
//!
//! ## What it checks
//!
//! When every cycle is bounded (no S205) and the graph declares
//! `budget.max_steps`, an upper bound on the number of node entries of any run is computed and
//! compared with it.
//!
//! The bound. Cut any run at each entry of a bounded node (one with `max_visits`):
//! U0 b1 U1 b2 … bk Uk, where each Uj is a stretch of unbounded nodes only. The unbounded
//! subgraph is acyclic once S205 is clean, so a stretch is a simple path in it. Every stretch
//! but the last ends because the run enters a bounded node next; only the last may end the run.
//! So, over the unbounded subgraph, with every edge kind counted (`next`, `branches`,
//! `on_error`):
//!
//! - L(v): the nodes on the longest path starting at v;
//! - C(v): the nodes on the longest path starting at v whose last node has an edge into a
//!   bounded node (none when no such path exists);
//! - for a bounded b: Lout(b) = the largest L(s) over its unbounded successors s (0 when none),
//!   and C(b) = the largest C(s) over them, or 0 when b has a bounded successor (none when
//!   neither);
//!
//! ```text
//! bound = max( L(entry)                                      — runs that never enter a bounded node
//!            , C0 + Σ_b max_visits(b)·(1 + C(b)) + max_b δ(b) )
//! C0    = 0 when the entry is bounded, else C(entry)
//! δ(b)  = Lout(b) − C(b), or 1 + Lout(b) when C(b) is none
//! ```
//!
//! Summing and maximising over the bounded nodes b reachable from the entry (a b with no C(b)
//! can only be the last bounded entry of a run, so it counts only in δ). Each of the first k−1
//! stretches after a bounded b has at most C(b) nodes, the last at most Lout(b), and b occurs at
//! most max_visits(b) times; so the bound is never smaller than the longest run (a property test
//! replays random runs against it), and it is exact for straight lines and for the usual retry
//! loop. (The simpler "Σ max_visits + number of unbounded nodes" is not an upper bound: an
//! unbounded node after a bounded one can run once per visit of it.)
//!
//! ## Why it matters
//!
//! A graph whose worst case exceeds its own step budget will be cut off by the
//! runtime in some run; the author should raise the budget or lower the bounds.
//!
//! ## Example
//!
//! ```text
//! "budget": {"max_steps": 5},
//! "nodes": [{"id": "fix", ..., "max_visits": 3, "next": "test"},
//!           {"id": "test", ..., "branches": {"pass": "done", "fail": "fix"}}, {"id": "done", ...}]
//! ```
//!
//! (entry `fix`, bounded: C(fix) = 1 (`test`, which leads back to `fix`), Lout(fix) = 2
//! (`test`, `done`); bound = 3 × (1 + 1) + (2 − 1) = 7 > 5 — the run fix test fix test fix test
//! done).
//!
//! Fixture `tests/fixtures/rules/s209_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S209 at line 7:
//!
//! ```json
//! "budget": {"max_steps": 10, "max_spend_usd": 4.0},
//! ```
//!
//! ## Fix
//!
//! Raise `budget.max_steps` or lower the `max_visits` bounds; `primgraph explain S209` shows the formula.
//!
//! Does not fire: The same graph with `"max_steps": 7`.
//!
//! ## Implements
//!
//! SPEC §3.4 (Bounds: the worst-case step count against `budget.max_steps`); the code is listed in §5.

use super::Context;
use super::s205_unbounded_cycle::unbounded_cycles;
use crate::codes;
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
    // L(v) and C(v) of every unbounded node (C: `None` when no such path exists).
    let mut longest = vec![0u128; n];
    let mut continuing: Vec<Option<u128>> = vec![None; n];
    // Over the successors of v: the largest L and C among the unbounded ones, and C = 0 for a
    // bounded one (the stretch may end right here). This is Lout(v), C(v) of a bounded v, and
    // one node short of L(v), C(v) of an unbounded v.
    let after = |v: usize, longest: &[u128], continuing: &[Option<u128>]| {
        let mut out = 0;
        let mut cont = None;
        for (s, _) in cx.model.successors(v) {
            if bounded(s) {
                cont = cont.max(Some(0));
            } else {
                out = out.max(longest[s]);
                cont = cont.max(continuing[s]);
            }
        }
        (out, cont)
    };
    // Tarjan's order is reverse topological: every successor's component comes first.
    for scc in &cx.model.unbounded_sccs {
        for &v in scc {
            if bounded(v) {
                continue;
            }
            let (out, cont) = after(v, &longest, &continuing);
            longest[v] = out.saturating_add(1);
            continuing[v] = cont.map(|c| c.saturating_add(1));
        }
    }
    let mut repeated: u128 = 0;
    let mut last: Option<u128> = None;
    for (b, node) in nodes.iter().enumerate() {
        let Some(visits) = node.max_visits else {
            continue;
        };
        if !cx.model.reachable[b] {
            continue;
        }
        let (out, cont) = after(b, &longest, &continuing);
        let delta = match cont {
            Some(cont) => {
                repeated = repeated
                    .saturating_add(u128::from(visits).saturating_mul(cont.saturating_add(1)));
                out.saturating_sub(cont)
            }
            None => out.saturating_add(1),
        };
        last = last.max(Some(delta));
    }
    let never_bounded = if bounded(entry) { 0 } else { longest[entry] };
    let lead_in = if bounded(entry) {
        Some(0)
    } else {
        continuing[entry]
    };
    let through_bounded = match (lead_in, last) {
        (Some(lead_in), Some(last)) => lead_in.saturating_add(repeated).saturating_add(last),
        _ => 0,
    };
    Some(never_bounded.max(through_bounded))
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(max_steps) = cx.doc.budget.as_ref().and_then(|b| b.max_steps) else {
        return;
    };
    let Some(bound) = worst_case_steps(cx) else {
        return;
    };
    if bound > u128::from(max_steps) {
        out.push(codes::S209.at(
            "/budget/max_steps",
            format!("worst-case step count {bound} exceeds `budget.max_steps` {max_steps}"),
        ));
    }
}
