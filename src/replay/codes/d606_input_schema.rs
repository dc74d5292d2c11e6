//! D606 (error): the recorded input violates the input schema.
//!
//! ## What it checks
//!
//! A step's `input` validates against its primitive's `inputs` schema (JSON
//! Schema draft 2020-12, compiled once per corpus); and the header's `input` validates against
//! the graph's `input` schema (reported at `seq` 0, line 1). The pointer is the first failing
//! place, e.g. `/input/patch`.
//!
//! ## Why it matters
//!
//! A primitive's contract is its schemas; a call outside its input schema is a call the
//! primitive never promised to handle, whatever the graph says.
//!
//! ## Example
//!
//! `mut.apply_patch` requires `patch` (a non-empty string) and the step records
//! `"input":{"patch":"","grant":{…}}`.
//!
//! Fixture `tests/fixtures/replay/d606.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D606 at line 2:
//!
//! ```json
//! {"seq":1,"node":"read_task","primitive":"intake.parse_issue","input":{"text":"alpha fix gamma",…
//! ```
//!
//! ## Fix
//!
//! The recorded input must validate against the primitive's input schema.
//!
//! Does not fire: `"input":{"patch":"--- a/x\n+++ b/x\n…","grant":{"token":"…16+ chars…","scope":"repo"}}`.
//!
//! ## Implements
//!
//! SPEC §4.2 (input validates against the contract); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, line_object};
use super::super::step_memo::{SchemaError, StepMemo};
use super::super::trace::TraceHeader;
use crate::codes;
use crate::registry::{CompiledSchema, PrimIdx};
use serde_json::Value;

/// The first error of `instance` against `validator`: (pointer within the instance, message).
pub(crate) fn first_schema_error(validator: &CompiledSchema, instance: &Value) -> SchemaError {
    let violation = validator.validate(instance).err()?;
    Some((violation.instance_path, violation.message))
}

impl RunState<'_, '_> {
    pub(crate) fn check_d606(
        &mut self,
        prim: PrimIdx,
        input: &Value,
        memo: Option<&mut StepMemo<'_>>,
    ) {
        let replayer = self.replayer;
        let Some(validator) = replayer.registry().input_validator(prim) else {
            return;
        };
        let error = StepMemo::input_error(memo, prim, || first_schema_error(validator, input));
        if let Some((at, message)) = error {
            let id = &self.registry().get(prim).id;
            let message = format!("the input violates the input schema of `{id}`: {message}");
            self.report(
                &codes::D606,
                format!("/input{at}"),
                message,
                None,
                input.pointer(&at).cloned(),
            );
        }
    }

    /// The run's input against the graph's `input` schema.
    pub(crate) fn check_run_input(&mut self, header: &TraceHeader) {
        let replayer = self.replayer;
        let Some(validator) = replayer.run_input.as_ref() else {
            return;
        };
        if let Some((at, message)) = first_schema_error(validator, &header.input) {
            let message = format!("the run's input violates the graph's `input` schema: {message}");
            self.report(
                &codes::D606,
                format!("/input{at}"),
                message,
                None,
                header.input.pointer(&at).cloned(),
            );
        }
    }
}

/// Fault injection (`simulate --faults`): a step's input outside its schema, with a field the
/// schema does not declare or (odd attempts) a field set to `null`.
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|_| true)?;
    violate_schema(site, i, "input")
}

/// Put the `field` object (`input` or `output`) of step `i` outside its schema: an undeclared
/// field added on even attempts (or when the object is empty), one field set to `null` on odd
/// ones. D607 injects through it too, on `output`.
pub(super) fn violate_schema(
    site: &mut FaultSite<'_>,
    i: usize,
    field: &str,
) -> Option<(Vec<u8>, u64)> {
    let line = line_object(&mut site.lines, i + 1)?;
    let target = line.get_mut(field)?.as_object_mut()?;
    if site.attempt.is_multiple_of(2) || target.is_empty() {
        target.insert("unexpected_field".into(), Value::from(true));
    } else {
        let keys: Vec<String> = target.keys().cloned().collect();
        let key = site.rng.pick(&keys)?.clone();
        target.insert(key, Value::Null);
    }
    Some((chain(&mut site.lines), i as u64 + 1))
}
