//! D607 (error): the recorded output violates the output schema.
//!
//! ## What it checks
//!
//! A step's `output` validates against its primitive's `outputs` schema (compiled
//! once per corpus). The pointer is the first failing place, e.g. `/output/confidence`.
//!
//! ## Why it matters
//!
//! Every later binding reads recorded outputs; one outside the contract means the primitive
//! (or the recorder) broke its promise, and the consumers' inputs are suspect too.
//!
//! ## Example
//!
//! `synth.draft_patch` declares `confidence` in [0, 1] and the step records
//! `"output":{"patch":"…","confidence":1.7}`.
//!
//! Fixture `tests/fixtures/replay/d607.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D607 at line 2:
//!
//! ```json
//! {"seq":1,"node":"read_task","primitive":"intake.parse_issue","input":{"text":"patch alpha alph"…
//! ```
//!
//! ## Fix
//!
//! The recorded output must validate against the primitive's output schema.
//!
//! Does not fire: `"output":{"patch":"…","confidence":0.7}`.
//!
//! ## Implements
//!
//! SPEC §4.2 (output validates against the contract); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::FaultSite;
use super::super::step_memo::StepMemo;
use super::super::writer::StepResult;
use super::d606_input_schema::{first_schema_error, violate_schema};
use crate::codes;
use crate::registry::PrimIdx;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d607(
        &mut self,
        prim: PrimIdx,
        output: &Value,
        memo: Option<&mut StepMemo<'_>>,
    ) {
        let replayer = self.replayer;
        let Some(validator) = replayer.registry().output_validator(prim) else {
            return;
        };
        let error = StepMemo::output_error(memo, prim, || first_schema_error(validator, output));
        if let Some((at, message)) = error {
            let id = &self.registry().get(prim).id;
            let message = format!("the output violates the output schema of `{id}`: {message}");
            self.report(
                &codes::D607,
                format!("/output{at}"),
                message,
                None,
                output.pointer(&at).cloned(),
            );
        }
    }
}

/// Fault injection (`simulate --faults`): a step's output outside its schema, as D606 breaks
/// an input (an undeclared field, or a field set to `null`), at a step that recorded an output.
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|s| matches!(s.result, StepResult::Output { .. }))?;
    violate_schema(site, i, "output")
}
