//! D612 (error): the graph's budget is exceeded.
//!
//! ## What it checks
//!
//! The number of steps stays within `budget.max_steps` and the sum of the steps'
//! `cost.usd` within `budget.max_spend_usd` (summed exactly, in nano-dollars). Fires once for
//! steps and once for spend, at the first step over.
//!
//! ## Why it matters
//!
//! The budget is the graph's promise to whoever pays for it; a run over it is a run that
//! should have been stopped.
//!
//! ## Example
//!
//! `"budget": {"max_spend_usd": 4.0}` and steps costing 1.5, 1.5 and 1.5 USD (at the
//! third, 4.5 > 4.0).
//!
//! Fixture `tests/fixtures/replay/d612.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D612 at line 3:
//!
//! ```json
//! {"seq":2,"node":"ls","primitive":"obs.list_files","input":{"path":"."},"output":{"paths":["alph…
//! ```
//!
//! ## Fix
//!
//! The run exceeded the graph's `budget` (steps or spend).
//!
//! Does not fire: Steps costing 1.5, 1.5 and 1.0 USD (4.0 is within the budget).
//!
//! ## Implements
//!
//! SPEC §4.2 (totals stay within the budget); the code is listed in §5.

use super::super::engine::{RunState, budget_nanos};
use super::super::fault::{FaultSite, chain, line_object};
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d612(&mut self) {
        let graph = self.graph();
        if let Some(max) = graph.max_steps
            && self.steps > max
            && !self.steps_reported
        {
            self.steps_reported = true;
            let message = format!("the budget allows {max} steps; this is step {}", self.steps);
            self.report(
                &codes::D612,
                "/seq",
                message,
                Some(Value::from(max)),
                Some(Value::from(self.steps)),
            );
        }
        if let Some(max) = graph.max_spend_usd
            && self.spend_nanos > budget_nanos(max)
            && !self.spend_reported
        {
            self.spend_reported = true;
            let spent = self.spend_nanos as f64 / 1e9;
            let message = format!("the budget allows {max} USD; the run has spent {spent} USD");
            self.report(
                &codes::D612,
                "/cost/usd",
                message,
                Some(Value::from(max)),
                Some(Value::from(spent)),
            );
        }
    }
}

/// Fault injection (`simulate --faults`): one step that alone costs more than the budget
/// (`max_spend_usd` + 1), in a graph that has one.
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let max = site.graph().max_spend_usd?;
    let i = site.pick_step(|_| true)?;
    let line = line_object(&mut site.lines, i + 1)?;
    let cost = line.get_mut("cost")?.as_object_mut()?;
    cost.insert("usd".into(), Value::from(max + 1.0));
    Some((chain(&mut site.lines), i as u64 + 1))
}
