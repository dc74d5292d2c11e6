//! D611 (error): a node's `max_visits` is exceeded.
//!
//! What it checks: the number of steps recorded at a node (each step counts, a fallback re-run of
//! the same node included) stays within its `max_visits`. Fires once per node, at the first step
//! over the bound.
//!
//! Why: bounds are what makes every cycle of the graph finite and its worst-case step count
//! known; a run past a bound ran a loop the graph promised would stop.
//!
//! Fires: `apply` has `"max_visits": 3` and the run records a fourth step at `apply`.
//!
//! Does not fire: a run with three steps at `apply`.

use super::super::engine::RunState;
use super::super::graph::NodeIdx;
use serde_json::Value;

/// The help line of every D611 diagnostic.
pub(crate) const HELP: &str = "the run entered the node more often than its `max_visits` allows";

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
            self.error(
                "D611",
                "/node",
                message,
                Some(Value::from(bound)),
                Some(Value::from(visits)),
            )
            .related
            .push(crate::diagnostic::Related {
                pointer: format!("/nodes/{node}/max_visits"),
                message: "the bound".into(),
                line: None,
                column: None,
            });
        }
    }
}
