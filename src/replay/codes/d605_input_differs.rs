//! D605 (error): the recorded input differs from the input recomputed from the bindings.
//!
//! ## What it checks
//!
//! A step's `input` equals the object the node's `inputs` bindings compute over
//! the run so far: `{"from": "$input", "at": P}` reads the header's `input` at pointer `P`,
//! `{"from": NODE, "at": P}` reads NODE's latest recorded output at `P`, `{"const": V}` is `V`.
//! A binding from a node that has not run, whose latest step ended in an error, or whose pointer
//! finds nothing leaves its property out. At a fallback step only the properties the fallback
//! primitive declares are bound. A step that ran a primitive the node does not run (D604) is
//! not checked: the bindings say nothing of that primitive's input. Numbers compare by value (`1` equals `1.0`). The diagnostic's
//! pointer is the first place (object keys in sorted order, arrays by index) where recorded and
//! recomputed inputs differ, e.g. `/input/patch`, with both values.
//!
//! ## Why it matters
//!
//! Replay trusts the recorded outputs; an input that is not what the graph wires into the
//! node means the runtime fed the primitive something else — a stale value, an injected one.
//!
//! ## Example
//!
//! `draft` recorded `"output":{"patch":"--- a/x\n+++ b/x…"}` and the next step at `gate`
//! records `"input":{"patch":"rm -rf /"}` (pointer `/input/patch`).
//!
//! Fixture `tests/fixtures/replay/d605.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D605 at line 2:
//!
//! ```json
//! {"seq":1,"node":"read_task","primitive":"intake.parse_issue","input":{"text":"gamma bx"},"error…
//! ```
//!
//! ## Fix
//!
//! The recorded input must equal what the node's bindings compute from the run's input and the latest outputs.
//!
//! Does not fire: `gate` records `"input":{"patch":"--- a/x\n+++ b/x…"}`, the latest output of
//! `draft` at `/patch`.
//!
//! ## Implements
//!
//! SPEC §4.2 (the recorded input equals the recomputed input); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, line_object, mutate_value};
use super::super::graph::{NodeIdx, ResolvedBinding};
use super::super::step_memo::{Difference, StepMemo};
use super::super::trace::Event;
use crate::codes;
use crate::json::pointer::escape_token as escape_pointer_token;
use crate::registry::PrimIdx;
use serde_json::{Map, Value};

/// The value one binding computes (`latest`: a node's latest output); `None` leaves it out.
fn bound<'v>(
    binding: &'v ResolvedBinding,
    run_input: &'v Value,
    latest: &impl Fn(NodeIdx) -> Option<&'v Value>,
) -> Option<&'v Value> {
    match binding {
        ResolvedBinding::Const(v) => Some(v),
        ResolvedBinding::RunInput { at } => run_input.pointer(at),
        ResolvedBinding::Node { node, at } => node.and_then(latest).and_then(|o| o.pointer(at)),
    }
}

/// The input the node's bindings compute over the run's input and the latest outputs
/// (`latest`: a node's latest output).
pub(crate) fn recompute_input<'v>(
    bindings: &'v [(String, ResolvedBinding)],
    run_input: &'v Value,
    latest: impl Fn(NodeIdx) -> Option<&'v Value>,
    declared: Option<&Map<String, Value>>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (prop, binding) in bindings {
        if let Some(declared) = declared
            && !declared.contains_key(prop)
        {
            continue;
        }
        if let Some(v) = bound(binding, run_input, &latest) {
            out.insert(prop.clone(), v.clone());
        }
    }
    out
}

/// Whether `recorded` is what [`recompute_input`] computes, as [`first_difference`] judges
/// (no difference anywhere), found without building the recomputed input: the common case, so
/// no value is copied for it. `bindings` name each property once (they come from the node's
/// `inputs` object), so the bound properties, each found equal in `recorded`, are all of its
/// keys exactly when there are as many.
fn input_matches<'v>(
    bindings: &'v [(String, ResolvedBinding)],
    run_input: &'v Value,
    latest: impl Fn(NodeIdx) -> Option<&'v Value>,
    declared: Option<&Map<String, Value>>,
    recorded: &Value,
) -> bool {
    let Value::Object(got) = recorded else {
        return false;
    };
    let mut present = 0;
    let mut path = String::new();
    for (prop, binding) in bindings {
        if let Some(declared) = declared
            && !declared.contains_key(prop)
        {
            continue;
        }
        let Some(want) = bound(binding, run_input, &latest) else {
            continue;
        };
        present += 1;
        match got.get(prop) {
            Some(r) if first_difference(want, r, &mut path).is_none() => {}
            _ => return false,
        }
    }
    present == got.len()
}

/// A step's output, if it has one.
fn output_of(event: &Event) -> Option<&Value> {
    match event {
        Event::Step(s) => s.result.as_ref().ok(),
        Event::End(_) => None,
    }
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
        (Some(x), Some(y), _, _) => x == y,
        (_, _, Some(x), Some(y)) => x == y,
        _ => a.as_f64() == b.as_f64(),
    }
}

/// [`first_difference`] one level down, at `token` (a member or an index either side may lack).
fn difference_at<'v>(
    path: &mut String,
    token: &str,
    want: Option<&'v Value>,
    got: Option<&'v Value>,
) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
    let len = path.len();
    path.push('/');
    path.push_str(token);
    let found = match (want, got) {
        (Some(x), Some(y)) => first_difference(x, y, path),
        (x, y) => Some((path.clone(), x, y)),
    };
    path.truncate(len);
    found
}

/// The pointer (relative) of the first difference and the two values there (`None`: absent).
pub(crate) fn first_difference<'v>(
    want: &'v Value,
    got: &'v Value,
    path: &mut String,
) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a
                .keys()
                .chain(b.keys().filter(|k| !a.contains_key(*k)))
                .collect();
            keys.sort();
            keys.into_iter()
                .find_map(|k| difference_at(path, &escape_pointer_token(k), a.get(k), b.get(k)))
        }
        (Value::Array(a), Value::Array(b)) => (0..a.len().max(b.len()))
            .find_map(|i| difference_at(path, &i.to_string(), a.get(i), b.get(i))),
        (Value::Number(a), Value::Number(b)) if numbers_equal(a, b) => None,
        _ if want == got => None,
        _ => Some((path.clone(), Some(want), Some(got))),
    }
}

impl RunState<'_, '_> {
    /// Where the recorded input of a step at `node` running `prim` first differs from the
    /// recomputed one (`None`: it does not, or the graph has no such node).
    fn input_difference(&self, node: NodeIdx, prim: PrimIdx, recorded: &Value) -> Difference {
        let graph = self.graph();
        let n = graph.node(node)?;
        let declared = if prim == n.primitive {
            None
        } else {
            self.registry()
                .get(prim)
                .inputs
                .get("properties")
                .and_then(Value::as_object)
        };
        let null = Value::Null;
        let run_input = self.header.as_ref().map_or(&null, |h| &h.input);
        let latest = |i: NodeIdx| {
            self.latest
                .get(i)
                .and_then(Option::as_deref)
                .and_then(output_of)
        };
        if input_matches(&n.inputs, run_input, latest, declared, recorded) {
            return None;
        }
        let want = Value::Object(recompute_input(&n.inputs, run_input, latest, declared));
        let mut path = String::new();
        first_difference(&want, recorded, &mut path)
            .map(|(at, expected, actual)| (at, expected.cloned(), actual.cloned()))
    }

    pub(crate) fn check_d605(
        &mut self,
        node: NodeIdx,
        prim: PrimIdx,
        recorded: &Value,
        memo: Option<&mut StepMemo<'_>>,
    ) {
        let difference = StepMemo::recomputed(memo, node, prim, || {
            self.input_difference(node, prim, recorded)
        });
        let Some((at, expected, actual)) = difference else {
            return;
        };
        let show = |v: Option<&Value>| v.map_or_else(|| "absent".to_string(), |v| v.to_string());
        let message = format!(
            "the recorded input differs from the recomputed one at `/input{at}`: recomputed {}, recorded {}",
            show(expected.as_ref()),
            show(actual.as_ref())
        );
        let related = format!("/nodes/{node}/inputs");
        self.report(
            &codes::D605,
            format!("/input{at}"),
            message,
            expected,
            actual,
        )
        .related
        .push(crate::diagnostic::Related {
            file: None,
            pointer: related,
            message: "the bindings that compute the input".into(),
            line: None,
            column: None,
            end_line: None,
            end_column: None,
        });
    }
}

/// Fault injection (`simulate --faults`): one field of a step's input changed, so the input no
/// longer equals the one its bindings recompute.
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|s| s.input.as_object().is_some_and(|m| !m.is_empty()))?;
    let line = line_object(&mut site.lines, i + 1)?;
    let input = line.get_mut("input")?.as_object_mut()?;
    let keys: Vec<String> = input.keys().cloned().collect();
    let key = site.rng.pick(&keys)?.clone();
    let new = mutate_value(input.get(&key)?, site.rng);
    input.insert(key, new);
    Some((chain(&mut site.lines), i as u64 + 1))
}
