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
use crate::registry::PrimIdx;
use serde_json::Value;

/// The help line of every D610 diagnostic.
pub(crate) const HELP: &str = "record an outcome from the primitive's declared decision set (and none for a primitive without outcomes)";

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
                self.error(
                    "D610",
                    "/outcome",
                    message,
                    Some(Value::from(declared.clone())),
                    Some(Value::from(o)),
                );
            }
            (Some(declared), None) => {
                let message = format!(
                    "`{}` decides among [{}]; the step recorded no outcome",
                    p.id,
                    declared.join(", ")
                );
                self.error(
                    "D610",
                    "/outcome",
                    message,
                    Some(Value::from(declared.clone())),
                    None,
                );
            }
            (None, Some(o)) => {
                let message = format!("`{}` declares no outcomes; the step recorded `{o}`", p.id);
                self.error("D610", "/outcome", message, None, Some(Value::from(o)));
            }
            (None, None) => {}
        }
    }
}
