//! D608 (error): required evidence is missing.
//!
//! What it checks: every evidence kind the primitive's contract lists in `evidence` appears as
//! the `kind` of at least one item of the step's `evidence` (on steps that errored too).
//!
//! Why: replay runs nothing; the evidence digests are what lets a reviewer or a later audit
//! confirm that the recorded outputs came from real work (the test log, the diff, the model call).
//!
//! Fires: `ver.run_target_tests` requires `test_log` and the step records `"evidence":[]`.
//!
//! Does not fire: `"evidence":[{"kind":"test_log","digest":"sha256:…"}]`.

use super::super::engine::RunState;
use super::super::trace::Evidence;
use crate::registry::PrimIdx;
use serde_json::Value;

/// The help line of every D608 diagnostic.
pub(crate) const HELP: &str = "attach evidence of every kind the primitive's contract lists";

impl RunState<'_, '_> {
    pub(crate) fn check_d608(&mut self, prim: PrimIdx, evidence: &[Evidence]) {
        let p = self.registry().get(prim);
        for kind in &p.evidence {
            if !evidence.iter().any(|e| &e.kind == kind) {
                let message = format!(
                    "`{}` requires evidence of kind `{kind}`; the step has none",
                    p.id
                );
                let actual =
                    Value::from(evidence.iter().map(|e| e.kind.clone()).collect::<Vec<_>>());
                self.error(
                    "D608",
                    "/evidence",
                    message,
                    Some(Value::from(kind.clone())),
                    Some(actual),
                );
            }
        }
    }
}
