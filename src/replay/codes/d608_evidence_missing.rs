//! D608 (error): required evidence is missing.
//!
//! ## What it checks
//!
//! Every evidence kind the primitive's contract lists in `evidence` appears as
//! the `kind` of at least one item of the step's `evidence` (on steps that errored too).
//!
//! ## Why it matters
//!
//! Replay runs nothing; the evidence digests are what lets a reviewer or a later audit
//! confirm that the recorded outputs came from real work (the test log, the diff, the model call).
//!
//! ## Example
//!
//! `ver.run_target_tests` requires `test_log` and the step records `"evidence":[]`.
//!
//! Fixture `tests/fixtures/replay/d608.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D608 at line 2:
//!
//! ```json
//! {"seq":1,"node":"read_task","primitive":"intake.parse_issue","input":{"text":"test beta"},"erro…
//! ```
//!
//! ## Fix
//!
//! Attach evidence of every kind the primitive's contract lists.
//!
//! Does not fire: `"evidence":[{"kind":"test_log","digest":"sha256:…"}]`.
//!
//! ## Implements
//!
//! SPEC §4.2 (the evidence kinds are present); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, line_object};
use super::super::trace::Evidence;
use crate::codes;
use crate::registry::PrimIdx;
use serde_json::Value;

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
                self.report(
                    &codes::D608,
                    "/evidence",
                    message,
                    Some(Value::from(kind.clone())),
                    Some(actual),
                );
            }
        }
    }
}

/// Fault injection (`simulate --faults`): a step's evidence dropped (recorded as `[]`) where
/// the run carried some.
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|s| !s.evidence.is_empty())?;
    line_object(&mut site.lines, i + 1)?.insert("evidence".into(), Value::Array(Vec::new()));
    Some((chain(&mut site.lines), i as u64 + 1))
}
