//! D609 (error): the recorded failure mode is not declared.
//!
//! ## What it checks
//!
//! A step's `error.mode` is one of the `failure_modes` of the primitive it ran.
//!
//! ## Why it matters
//!
//! `on_error` routing and the failure-mode figures of an evaluation are keyed on declared
//! modes; an undeclared one is an error class the graph could not have planned for.
//!
//! ## Example
//!
//! `mut.apply_patch` declares `patch_conflict` and `io_error`, and the step records
//! `"error":{"mode":"disk_full","message":"…"}`.
//!
//! Fixture `tests/fixtures/replay/d609.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D609 at line 3:
//!
//! ```json
//! {"seq":2,"node":"ls","primitive":"obs.list_files","input":{"path":"."},"error":{"mode":"undecla…
//! ```
//!
//! ## Fix
//!
//! Record only the failure modes the primitive declares.
//!
//! Does not fire: `"error":{"mode":"patch_conflict","message":"hunk 2 failed"}`.
//!
//! ## Implements
//!
//! SPEC §4.2 (the failure mode is declared); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, keep_prev_last, line_object};
use crate::codes;
use crate::registry::PrimIdx;
use serde_json::Value;

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
            self.report(
                &codes::D609,
                "/error/mode",
                message,
                Some(expected),
                Some(Value::from(mode)),
            );
        }
    }
}

/// Fault injection (`simulate --faults`): a step that ends in a failure mode its primitive does
/// not declare (`undeclared_failure`) instead of its output.
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|_| true)?;
    let line = line_object(&mut site.lines, i + 1)?;
    line.remove("output");
    line.remove("outcome");
    line.insert(
        "error".into(),
        serde_json::json!({"mode": "undeclared_failure", "message": "injected"}),
    );
    keep_prev_last(line);
    Some((chain(&mut site.lines), i as u64 + 1))
}
