//! D613 (error): a node requiring authorization was entered without a recorded grant.
//!
//! ## What it checks
//!
//! Before a step of a primitive with `requires_authorization`, the run took a
//! grant edge: a `branches` edge of an `authorize` node labelled with one of its `grants` (never
//! a `"*"` edge), recorded as that node's outcome. One grant earlier in a run covers later
//! re-entries in that run.
//!
//! ## Why it matters
//!
//! Validation proves every path to such a node passes a grant (A402); replay checks that the
//! recorded run did, so a runtime that skipped the gate is caught.
//!
//! ## Example
//!
//! A run whose first step at `apply` (`mut.apply_patch`) comes before any step at `gate`
//! recorded `"outcome":"allow"`.
//!
//! Fixture `tests/fixtures/replay/d613.trace.jsonl` (replayed against `tests/fixtures/replay/d613.graph.json` with the fixture registry) reports D613 at line 6:
//!
//! ```json
//! {"seq":5,"node":"apply","primitive":"mut.apply_patch","input":{"grant":{"token":"beta alpha tes…
//! ```
//!
//! ## Fix
//!
//! Enter an authorization-requiring node only after a granting branch of a policy gate.
//!
//! Does not fire: `gate` recorded `"outcome":"allow"` (and `branches` has `"allow": "apply"`),
//! then `apply`; or a second pass through `apply` later in the same run.
//!
//! ## Implements
//!
//! SPEC §4.2 (a node requiring authorization is entered through a recorded grant); the code is listed in §5.

use super::super::engine::RunState;
use crate::codes;
use crate::registry::PrimIdx;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d613(&mut self, prim: PrimIdx) {
        let p = self.registry().get(prim);
        if p.requires_authorization && !self.granted {
            let message = format!(
                "`{}` requires authorization and no grant edge was taken before it in this run",
                p.id
            );
            self.report(
                &codes::D613,
                "/node",
                message,
                Some(Value::from("a grant edge earlier in the run")),
                None,
            );
        }
    }
}
