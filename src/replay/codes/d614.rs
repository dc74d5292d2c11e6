//! D614 (error): the run ended at a non-terminal node, did not end, or has events after the end.
//!
//! ## What it checks
//!
//! The end event comes where the graph ends the run — after a successful step at
//! a terminal node (one with neither `next` nor `branches`), or after an error with neither an
//! `on_error` handler nor a fallback, where the end must be `failure` (that is not a D614; ending
//! it in `success` is). A trace with no end event, and a line after the end event, fire it too.
//!
//! ## Why it matters
//!
//! A run that stops mid-graph, claims success after an unhandled failure, or continues after
//! its end is not a complete run of the graph: its outcome cannot be trusted.
//!
//! ## Example
//!
//! `{"seq":6,"end":"success"}` right after a step at `apply` (whose `next` is `test`).
//!
//! Fixture `tests/fixtures/replay/d614.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D614 at line 5:
//!
//! ```json
//! {"seq":4,"end":"failure","prev":"sha256:…"}
//! ```
//!
//! ## Fix
//!
//! End the run at a terminal node with one end event, and nothing after it.
//!
//! Does not fire: `{"seq":9,"end":"success"}` right after the step at `done` (a terminal node), or
//! `{"seq":4,"end":"failure"}` after `draft_patch_simple` (no fallback, no handler) errored.
//!
//! ## Implements
//!
//! SPEC §4.2 (the run ends at a terminal node); the code is listed in §5.

use super::super::engine::RunState;
use super::super::trace::EndStatus;
use super::d603::Expected;
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d614_end(&mut self, expected: &Expected, status: EndStatus) {
        let graph = self.graph();
        match expected {
            Expected::Node { node, .. } => {
                let id = graph.node(*node).map(|n| n.id.clone()).unwrap_or_default();
                let message = format!(
                    "the run ended ({}) but the graph selects `{id}` next",
                    status.as_str()
                );
                self.report(
                    &codes::D614,
                    "/end",
                    message,
                    Value::from(id),
                    Value::from("(end)"),
                );
            }
            Expected::End { must_fail: true } if status == EndStatus::Success => {
                self.report(&codes::D614, "/end",
                    "after an error with neither handler nor fallback the run must end in `failure`, it ended in `success`",
                    Value::from("failure"),
                    Value::from("success"),
                );
            }
            Expected::Stuck { reason } => {
                let message = format!("the run ended at a node the graph cannot leave ({reason})");
                self.report(
                    &codes::D614,
                    "/end",
                    message,
                    Value::Null,
                    Value::from("(end)"),
                );
            }
            Expected::End { .. } | Expected::Free => {}
        }
    }

    pub(crate) fn check_d614_eof(&mut self) {
        self.report(
            &codes::D614,
            "",
            format!(
                "the trace ends after seq {} without an end event",
                self.last_seq
            ),
            Value::from("an end event"),
            Value::Null,
        );
    }

    pub(crate) fn check_d614_after_end(&mut self) {
        let message = format!("line {} follows the end event", self.pos.number);
        self.report(&codes::D614, "", message, Value::Null, Value::Null);
    }
}
