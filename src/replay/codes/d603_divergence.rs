//! D603 (error): divergence — the recorded node is not the one the graph selects.
//!
//! ## What it checks
//!
//! Each step's `node` is the node the graph selects next: `entry` first, then the
//! previous step's `next`; or the branch its recorded `outcome` takes through `branches` (`"*"`
//! covers the rest); or, after an error, the handler its `error.mode` takes through `on_error`
//! (`"*"` covers the rest). An error with no handler is followed by the same node running the
//! primitive's `fallback`; with no fallback either the run must end (in `failure`). A step after a
//! terminal node, or where the graph has no edge to follow, diverges too.
//!
//! ## Why it matters
//!
//! A run that does not follow the graph was not produced by it: its other figures say
//! nothing about the graph. The verdict is `diverged`, and the first divergence names the `seq`,
//! the expected node and the recorded one. Replay then resynchronises on the recorded node.
//!
//! ## Example
//!
//! `test` recorded `"outcome":"fail"` and `branches` says `"fail": "decide"`, but the next
//! step is `{"seq":7,"node":"done",…}` (expected `decide`, actual `done`).
//!
//! Fixture `tests/fixtures/replay/d603.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D603 at line 5:
//!
//! ```json
//! {"seq":4,"node":"draft","primitive":"ctl.authorize_patch","input":{"patch":"main beta"},"output…
//! ```
//!
//! ## Fix
//!
//! The run does not follow this graph here: compare the recorded node with the edge the graph takes.
//!
//! Does not fire: The next step is `{"seq":7,"node":"decide",…}`.
//!
//! ## Implements
//!
//! SPEC §4.2 (the recorded node is the one the graph selects); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, line_object};
use super::super::graph::NodeIdx;
use super::super::next_node::Expected;
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    /// An imported step the mapping did not place (`"node": null`, SPEC §10): always a
    /// divergence, with the graph's expected node and the source's tool or span name.
    pub(crate) fn check_d603_unmapped(&mut self, expected: &Expected, source_name: &str) {
        let graph = self.graph();
        let want = match expected {
            Expected::Node { node, .. } => graph.node(*node).map(|n| Value::from(n.id.clone())),
            Expected::End { .. } => Some(Value::from("(end)")),
            Expected::Stuck { .. } | Expected::Free => None,
        };
        let shown = want
            .as_ref()
            .and_then(Value::as_str)
            .map_or_else(String::new, |w| format!("the graph selects `{w}` here; "));
        self.report(
            &codes::D603,
            "/node",
            format!(
                "{shown}the imported step `{source_name}` has no node (no mapping names it): add it to the mapping's `[tools]`"
            ),
            want,
            Some(Value::Null),
        );
    }

    /// Check the recorded node; returns the graph node the step is at (after a divergence: the
    /// recorded node, when the graph has it).
    pub(crate) fn check_d603(&mut self, expected: &Expected, recorded: &str) -> Option<NodeIdx> {
        let graph = self.graph();
        let actual = graph.index.get(recorded).copied();
        let pointer = "/node";
        match expected {
            Expected::Node { node, .. } => {
                if actual == Some(*node) {
                    return actual;
                }
                let want = graph.node(*node).map(|n| n.id.clone()).unwrap_or_default();
                let message = match actual {
                    Some(_) => {
                        format!("the graph selects `{want}` here, the run recorded `{recorded}`")
                    }
                    None => format!(
                        "the graph selects `{want}` here, the run recorded `{recorded}`, which the graph does not have"
                    ),
                };
                let related = format!("/nodes/{node}");
                self.report(
                    &codes::D603,
                    pointer,
                    message,
                    Some(Value::from(want)),
                    Some(Value::from(recorded)),
                )
                .related
                .push(crate::diagnostic::Related {
                    file: None,
                    pointer: related,
                    message: "the node the graph selects".into(),
                    line: None,
                    column: None,
                    end_line: None,
                    end_column: None,
                });
            }
            Expected::End { .. } => {
                self.report(
                    &codes::D603,
                    pointer,
                    format!("the graph ends the run here, the run recorded a step at `{recorded}`"),
                    Some(Value::from("(end)")),
                    Some(Value::from(recorded)),
                );
            }
            Expected::Stuck { reason } => {
                let message =
                    format!("{reason}: the graph selects no node, the run recorded `{recorded}`");
                self.report(
                    &codes::D603,
                    pointer,
                    message,
                    None,
                    Some(Value::from(recorded)),
                );
            }
            Expected::Free => {}
        }
        actual
    }
}

/// Fault injection (`simulate --faults`): a step recorded at another node of the graph than the
/// one it ran at.
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|_| true)?;
    let current = site.plan.steps.get(i)?.node.clone();
    let others: Vec<&str> = site
        .graph()
        .nodes
        .iter()
        .map(|n| n.id.as_str())
        .filter(|id| *id != current)
        .collect();
    let other = site.rng.pick(&others)?.to_string();
    line_object(&mut site.lines, i + 1)?.insert("node".into(), Value::from(other));
    Some((chain(&mut site.lines), i as u64 + 1))
}
