//! D610 (error): the recorded outcome is not declared.
//!
//! What it checks: a successful step of a primitive with `outcomes` records an `outcome` that is
//! one of them; a step of a primitive without `outcomes` records none.
//!
//! Why: branching follows the outcome; an outcome outside the closed decision set is a decision
//! the graph cannot route, and a missing one leaves the walk without an edge.
//!
//! Fires: `ver.run_target_tests` declares `pass` and `fail`, and the step records
//! `"outcome":"flaky"`.
//!
//! Does not fire: `"outcome":"fail"`.

use super::super::engine::RunState;
use crate::codes;
use crate::registry::PrimIdx;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d610(&mut self, prim: PrimIdx, outcome: Option<&str>) {
        let p = self.registry().get(prim);
        match (&p.outcomes, outcome) {
            (Some(declared), Some(o)) if declared.iter().any(|d| d == o) => {}
            (Some(declared), Some(o)) => {
                let message = format!(
                    "`{}` decides among [{}]; the step recorded `{o}`",
                    p.id,
                    declared.join(", ")
                );
                self.report(
                    &codes::D610,
                    "/outcome",
                    message,
                    Value::from(declared.clone()),
                    Value::from(o),
                );
            }
            (Some(declared), None) => {
                let message = format!(
                    "`{}` decides among [{}]; the step recorded no outcome",
                    p.id,
                    declared.join(", ")
                );
                self.report(
                    &codes::D610,
                    "/outcome",
                    message,
                    Value::from(declared.clone()),
                    Value::Null,
                );
            }
            (None, Some(o)) => {
                let message = format!("`{}` declares no outcomes; the step recorded `{o}`", p.id);
                self.report(
                    &codes::D610,
                    "/outcome",
                    message,
                    Value::Null,
                    Value::from(o),
                );
            }
            (None, None) => {}
        }
    }
}
