//! D611 (error): a node's `max_visits` is exceeded.
//!
//! ## What it checks
//!
//! The number of steps recorded at a node (each step counts, a fallback re-run of
//! the same node included) stays within its `max_visits`. Fires once per node, at the first step
//! over the bound.
//!
//! ## Why it matters
//!
//! Bounds are what makes every cycle of the graph finite and its worst-case step count
//! known; a run past a bound ran a loop the graph promised would stop.
//!
//! ## Example
//!
//! `apply` has `"max_visits": 3` and the run records a fourth step at `apply`.
//!
//! Fixture `tests/fixtures/replay/d611.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D611 at line 20:
//!
//! ```json
//! {"seq":19,"node":"gate","primitive":"ctl.authorize_patch","input":{"patch":"beta fix"},"output"…
//! ```
//!
//! ## Fix
//!
//! The run entered the node more often than its `max_visits` allows.
//!
//! Does not fire: A run with three steps at `apply`.
//!
//! ## Implements
//!
//! SPEC §4.2 (visits stay within `max_visits`); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, unsealed_trace};
use super::super::graph::NodeIdx;
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d611(&mut self, node: NodeIdx) {
        let graph = self.graph();
        let Some(n) = graph.node(node) else { return };
        let Some(bound) = n.max_visits else { return };
        let visits = self.visits.get(node).copied().unwrap_or(0);
        if visits > bound && !self.visits_reported.get(node).copied().unwrap_or(true) {
            if let Some(r) = self.visits_reported.get_mut(node) {
                *r = true;
            }
            let message = format!("`{}` allows {bound} visits; this is visit {visits}", n.id);
            self.report(
                &codes::D611,
                "/node",
                message,
                Some(Value::from(bound)),
                Some(Value::from(visits)),
            )
            .related
            .push(crate::diagnostic::Related {
                file: None,
                pointer: format!("/nodes/{node}/max_visits"),
                message: "the bound".into(),
                line: None,
                column: None,
                end_line: None,
                end_column: None,
            });
        }
    }
}

/// Fault injection (`simulate --faults`): a run walked with `max_visits` ignored, reported at
/// its first visit over a bound (no edit of a faithful run loops more often).
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let g = site.graph();
    if !g.nodes.iter().any(|n| n.max_visits.is_some()) {
        return None;
    }
    let looping = (site.looping_walk)(site.attempt)?;
    let mut counts = vec![0u32; g.nodes.len()];
    for (i, s) in looping.steps.iter().enumerate() {
        let n = *g.index.get(&s.node)?;
        counts[n] += 1;
        if g.nodes.get(n)?.max_visits.is_some_and(|m| counts[n] > m) {
            return Some((unsealed_trace(&looping)?, i as u64 + 1));
        }
    }
    None
}
