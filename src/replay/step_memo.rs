//! The checks of one step that give the same result under both graphs of a paired replay
//! (SPEC §6.2 `graph diff --runs`), made once by the first run and reused by the second
//! (`StepMemo`): the input and output schema checks (D606, D607) of the same primitive when
//! both graphs are checked against the same registry, and the recomputed input (D605) at a
//! node with the same primitive and bindings in both, when both graphs list the same node IDs
//! in the same order. What is shared is decided once per corpus (`Sharing`). It sits beside
//! the engine, which carries a memo (or none) through every step; `pair.rs` makes them.

use super::graph::{NodeIdx, ReplayNode};
use crate::registry::PrimIdx;
use serde_json::Value;

/// A schema check's first error: (pointer within the instance, message); `None`: valid.
pub(crate) type SchemaError = Option<(String, String)>;

/// Where a recorded input first differs from the recomputed one: (relative pointer, recomputed
/// value, recorded value; `None` where absent); `None`: it does not differ.
pub(crate) type Difference = Option<(String, Option<Value>, Option<Value>)>;

/// Which checks of a step give the same result under both graphs of a paired replay.
pub(crate) struct Sharing {
    /// Both are checked against the same registry, so a primitive's schema checks agree.
    same_registry: bool,
    /// By node index: the recomputed input (D605) agrees — same registry, the same node IDs in
    /// the same order in both graphs, and this node has the same primitive and bindings.
    same_input: Vec<bool>,
}

impl Sharing {
    /// What two graphs' runs share: `same_registry` when both are checked against one
    /// registry, and the nodes of each graph.
    pub(crate) fn new(same_registry: bool, a: &[ReplayNode], b: &[ReplayNode]) -> Sharing {
        let aligned =
            same_registry && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.id == y.id);
        let same_input = a
            .iter()
            .zip(b)
            .map(|(x, y)| aligned && x.primitive == y.primitive && x.inputs == y.inputs)
            .collect();
        Sharing {
            same_registry,
            same_input,
        }
    }
}

/// The shareable checks of one event line, made by the first run of a pair and reused by the
/// second; made afresh for every line.
pub(crate) struct StepMemo<'s> {
    sharing: &'s Sharing,
    input: Option<(PrimIdx, SchemaError)>,
    output: Option<(PrimIdx, SchemaError)>,
    recomputed: Option<((NodeIdx, PrimIdx), Difference)>,
}

/// The value `slot` holds for `key`, else `compute`'s, kept in `slot`.
fn cached<K: PartialEq, T: Clone>(
    slot: &mut Option<(K, T)>,
    key: K,
    compute: impl FnOnce() -> T,
) -> T {
    if let Some((k, v)) = slot.as_ref()
        && *k == key
    {
        return v.clone();
    }
    let v = compute();
    *slot = Some((key, v.clone()));
    v
}

impl<'s> StepMemo<'s> {
    pub(crate) fn new(sharing: &'s Sharing) -> StepMemo<'s> {
        StepMemo {
            sharing,
            input: None,
            output: None,
            recomputed: None,
        }
    }

    /// D606: the step's input against `prim`'s input schema.
    pub(crate) fn input_error(
        memo: Option<&mut Self>,
        prim: PrimIdx,
        compute: impl FnOnce() -> SchemaError,
    ) -> SchemaError {
        match memo {
            Some(m) if m.sharing.same_registry => cached(&mut m.input, prim, compute),
            _ => compute(),
        }
    }

    /// D607: the step's output against `prim`'s output schema.
    pub(crate) fn output_error(
        memo: Option<&mut Self>,
        prim: PrimIdx,
        compute: impl FnOnce() -> SchemaError,
    ) -> SchemaError {
        match memo {
            Some(m) if m.sharing.same_registry => cached(&mut m.output, prim, compute),
            _ => compute(),
        }
    }

    /// D605: the step's input against the one `node`'s bindings compute (running `prim`).
    pub(crate) fn recomputed(
        memo: Option<&mut Self>,
        node: NodeIdx,
        prim: PrimIdx,
        compute: impl FnOnce() -> Difference,
    ) -> Difference {
        match memo {
            Some(m) if m.sharing.same_input.get(node) == Some(&true) => {
                cached(&mut m.recomputed, (node, prim), compute)
            }
            _ => compute(),
        }
    }
}
