//! D610 (error): the recorded outcome is not declared.
//!
//! ## What it checks
//!
//! A successful step of a primitive with `outcomes` records an `outcome` that is
//! one of them; a step of a primitive without `outcomes` records none.
//!
//! ## Why it matters
//!
//! Branching follows the outcome; an outcome outside the closed decision set is a decision
//! the graph cannot route, and a missing one leaves the walk without an edge.
//!
//! ## Example
//!
//! `ver.run_target_tests` declares `pass` and `fail`, and the step records
//! `"outcome":"flaky"`.
//!
//! Fixture `tests/fixtures/replay/d610.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D610 at line 3:
//!
//! ```json
//! {"seq":2,"node":"give_up","primitive":"done.failure","input":{},"output":{},"evidence":[],"cost…
//! ```
//!
//! ## Fix
//!
//! Record an outcome from the primitive's declared decision set (and none for a primitive without outcomes).
//!
//! Does not fire: `"outcome":"fail"`.
//!
//! ## Implements
//!
//! SPEC §4.2 (the outcome is declared); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, keep_prev_last, line_object};
use super::super::writer::StepResult;
use crate::codes;
use crate::registry::PrimIdx;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d610(&mut self, prim: PrimIdx, outcome: Option<&str>) {
        let p = self.registry().get(prim);
        match (&p.outcomes, outcome) {
            (Some(declared), Some(o)) if declared.iter().any(|d| d == o) => {}
            (Some(declared), recorded) => {
                let message = format!(
                    "`{}` decides among [{}]; the step recorded {}",
                    p.id,
                    declared.join(", "),
                    recorded.map_or("no outcome".to_string(), |o| format!("`{o}`"))
                );
                self.report(
                    &codes::D610,
                    "/outcome",
                    message,
                    Some(Value::from(declared.clone())),
                    recorded.map(Value::from),
                );
            }
            (None, Some(o)) => {
                let message = format!("`{}` declares no outcomes; the step recorded `{o}`", p.id);
                self.report(
                    &codes::D610,
                    "/outcome",
                    message,
                    None,
                    Some(Value::from(o)),
                );
            }
            (None, None) => {}
        }
    }
}

/// Fault injection (`simulate --faults`): a step that recorded an output, given an outcome its
/// primitive does not declare (`undeclared_outcome`).
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|s| matches!(s.result, StepResult::Output { .. }))?;
    let line = line_object(&mut site.lines, i + 1)?;
    line.insert("outcome".into(), Value::from("undeclared_outcome"));
    keep_prev_last(line);
    Some((chain(&mut site.lines), i as u64 + 1))
}
