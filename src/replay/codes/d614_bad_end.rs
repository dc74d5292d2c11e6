//! D614 (error): the run ended at a non-terminal node, or has events after the end.
//!
//! ## What it checks
//!
//! The end event comes where the graph ends the run — after a successful step at
//! a terminal node (one with neither `next` nor `branches`), or after an error with neither an
//! `on_error` handler nor a fallback, where the end must be `failure` (that is not a D614; ending
//! it in `success` is). Any line after the end event fires it too — an event, a second trace header
//! (two runs in one file), a blank line, a line that does not parse: a trace is one run. A trace with no end event at
//! all is not a D614 but a D616 at the end of the file (SPEC §4.2): a recorder that crashed has
//! not broken a contract, its record is incomplete.
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
use super::super::fault::{FaultSite, chain};
use super::super::next_node::Expected;
use super::super::trace::EndStatus;
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
                    Some(Value::from(id)),
                    Some(Value::from("(end)")),
                );
            }
            Expected::End { must_fail: true } if status == EndStatus::Success => {
                self.report(&codes::D614, "/end",
                    "after an error with neither handler nor fallback the run must end in `failure`, it ended in `success`",
                    Some(Value::from("failure")),
                    Some(Value::from("success")),
                );
            }
            Expected::Stuck { reason } => {
                let message = format!("the run ended at a node the graph cannot leave ({reason})");
                self.report(
                    &codes::D614,
                    "/end",
                    message,
                    None,
                    Some(Value::from("(end)")),
                );
            }
            Expected::End { .. } | Expected::Free => {}
        }
    }

    /// `second_header`: the line is a trace header (a second run appended to this one).
    pub(crate) fn check_d614_after_end(&mut self, second_header: bool) {
        let what = if second_header {
            "a second trace header"
        } else {
            "an event"
        };
        let message = format!(
            "line {} follows the end event: {what} after the end (one run per file)",
            self.pos.number
        );
        self.report(&codes::D614, "", message, None, None);
    }
}

/// Fault injection (`simulate --faults`): an event after the end (even attempts), or the run
/// ended right after a step at a non-terminal node (odd attempts).
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    if site.attempt.is_multiple_of(2) {
        // events after the end: the end line again, one `seq` later
        let seq = site.lines.len() as u64;
        let mut extra = site.lines.last()?.clone();
        extra
            .as_object_mut()?
            .insert("seq".into(), Value::from(seq));
        site.lines.push(extra);
        Some((chain(&mut site.lines), seq))
    } else {
        // end right after a step at a non-terminal node
        let g = site.graph();
        let i = site.pick_step(|s| {
            g.index
                .get(&s.node)
                .and_then(|&n| g.node(n))
                .is_some_and(|n| !n.is_terminal())
        })?;
        let mut end = site.lines.last()?.clone();
        end.as_object_mut()?
            .insert("seq".into(), Value::from(i as u64 + 2));
        end.as_object_mut()?
            .insert("end".into(), Value::from("success"));
        site.lines.truncate(i + 2);
        site.lines.push(end);
        Some((chain(&mut site.lines), i as u64 + 2))
    }
}
