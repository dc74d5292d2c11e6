//! D609 (error): the recorded failure mode is not declared.
//!
//! What it checks: a step's `error.mode` is one of the `failure_modes` of the primitive it ran.
//!
//! Why: `on_error` routing and the failure-mode figures of an evaluation are keyed on declared
//! modes; an undeclared one is an error class the graph could not have planned for.
//!
//! Fires: `mut.apply_patch` declares `patch_conflict` and `io_error`, and the step records
//! `"error":{"mode":"disk_full","message":"…"}`.
//!
//! Does not fire: `"error":{"mode":"patch_conflict","message":"hunk 2 failed"}`.

use super::super::engine::RunState;
use crate::registry::PrimIdx;
use serde_json::Value;

/// The help line of every D609 diagnostic.
pub(crate) const HELP: &str = "record only the failure modes the primitive declares";

impl RunState<'_, '_> {
    pub(crate) fn check_d609(&mut self, prim: PrimIdx, mode: &str) {
        let p = self.registry().get(prim);
        if !p.failure_modes.iter().any(|m| m == mode) {
            let message = format!(
                "`{}` declares the failure modes [{}]; the step recorded `{mode}`",
                p.id,
                p.failure_modes.join(", ")
            );
            let expected = Value::from(p.failure_modes.clone());
            self.error(
                "D609",
                "/error/mode",
                message,
                Some(expected),
                Some(Value::from(mode)),
            );
        }
    }
}
