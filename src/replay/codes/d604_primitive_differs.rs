//! D604 (error): the recorded primitive differs from the node's.
//!
//! ## What it checks
//!
//! A step's `primitive` (dotted ID or alias) is the primitive of its node — or,
//! when the step follows an unhandled error, that primitive's declared `fallback`.
//!
//! ## Why it matters
//!
//! The contracts replay checks (schemas, evidence, failure modes, outcomes) are the
//! primitive's; a node that ran another primitive did something the graph does not allow.
//!
//! ## Example
//!
//! Node `apply` is `mut.apply_patch` and the step records `"primitive":"mut.write_file"`.
//!
//! Fixture `tests/fixtures/replay/d604.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D604 at line 2:
//!
//! ```json
//! {"seq":1,"node":"read_task","primitive":"synth.draft_patch_simple","input":{"text":"main"},"err…
//! ```
//!
//! ## Fix
//!
//! Record the node's own primitive, or its declared fallback after an unhandled error.
//!
//! Does not fire: `"primitive":"APPLY_PATCH"` (the alias of the same primitive), or, after
//! `synth.draft_patch` errored with no handler, `"primitive":"synth.draft_patch_simple"` (its
//! declared fallback) at the same node.
//!
//! ## Implements
//!
//! SPEC §4.2 (the primitive is the node's, or its declared fallback); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, line_object};
use super::super::graph::NodeIdx;
use super::super::next_node::Expected;
use crate::codes;
use crate::registry::PrimIdx;
use serde_json::Value;

impl RunState<'_, '_> {
    /// Check the recorded primitive; returns the primitive whose contract the step is checked
    /// against (the recorded one when the registry knows it), and whether it is one the node
    /// may run (its own, or a fallback where one is legal): only then do the node's bindings
    /// say what its input should be (D605).
    pub(crate) fn check_d604(
        &mut self,
        expected: &Expected,
        node: Option<NodeIdx>,
        recorded: &str,
    ) -> (Option<PrimIdx>, bool) {
        let registry = self.registry();
        let actual = registry.lookup(recorded).map(|p| p.index);
        let want = match expected {
            Expected::Node {
                node: n,
                primitive,
                fallback,
            } if Some(*n) == node => Some((*primitive, *fallback)),
            _ => node
                .and_then(|n| self.graph().node(n))
                .map(|n| (n.primitive, false)),
        };
        let Some((want, fallback)) = want else {
            return (actual, false);
        };
        if actual == Some(want) {
            return (actual, true);
        }
        // After a resynchronisation the fallback chain is also legal.
        let resynced = !matches!(expected, Expected::Node { node: n, .. } if Some(*n) == node);
        if resynced {
            let mut cur = registry.get(want).fallback.as_deref();
            let mut hops = 0;
            while let Some(f) = cur {
                let Some(p) = registry.lookup(f) else { break };
                if Some(p.index) == actual {
                    return (actual, true);
                }
                cur = p.fallback.as_deref();
                hops += 1;
                if hops > registry.len() {
                    break;
                }
            }
        }
        let want_id = registry.get(want).id.clone();
        let message = match (actual, fallback) {
            (None, _) => format!(
                "`{recorded}` is not a primitive of the registry; the graph runs `{want_id}` here"
            ),
            (Some(_), true) => format!(
                "after the unhandled error the node runs the fallback `{want_id}`, the run recorded `{recorded}`"
            ),
            (Some(_), false) => format!("the node runs `{want_id}`, the run recorded `{recorded}`"),
        };
        self.report(
            &codes::D604,
            "/primitive",
            message,
            Some(Value::from(want_id)),
            Some(Value::from(recorded)),
        );
        (actual, false)
    }
}

/// Fault injection (`simulate --faults`): a step recorded with another primitive of the
/// registry than its node's (an attempt that draws the node's own primitive gives up).
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|_| true)?;
    let current = site.plan.steps.get(i)?.primitive.clone();
    let all = site.registry().primitives();
    let other = all.get(site.rng.below(all.len() as u64) as usize)?;
    if other.id == current {
        return None;
    }
    line_object(&mut site.lines, i + 1)?.insert("primitive".into(), Value::from(other.id.clone()));
    Some((chain(&mut site.lines), i as u64 + 1))
}
