//! Which node comes next (SPEC §4.2): what the graph selects as a run's next event
//! ([`Expected`]) after the entry and after each step — a branch by outcome, a handler or
//! fallback after an error, `next`, or the end — as replay checks it (D603, D614) and as the
//! simulator walks it. It sits beside the replay graph, below the engine and the walker that
//! both follow it.

use super::graph::{NodeIdx, ReplayGraph};
use super::trace::StepEvent;
use crate::registry::{Authority, PrimIdx, Registry};

/// What the graph selects as the next event.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    /// A step at `node` running `primitive` (the node's, or a fallback after an unhandled error).
    Node {
        node: NodeIdx,
        primitive: PrimIdx,
        fallback: bool,
    },
    /// The end of the run; after an unhandled error with no fallback it must be `failure`.
    End { must_fail: bool },
    /// The graph has no edge to follow (an edge names no node, or a branch is missing).
    Stuck { reason: String },
    /// After a step at a node the graph does not have: anything.
    Free,
}

impl Expected {
    pub(crate) fn start(graph: &ReplayGraph) -> Expected {
        match graph
            .entry
            .and_then(|e| graph.node(e).map(|n| (e, n.primitive)))
        {
            Some((node, primitive)) => Expected::Node {
                node,
                primitive,
                fallback: false,
            },
            None => Expected::Stuck {
                reason: format!("`entry` (`{}`) names no node", graph.doc.entry),
            },
        }
    }

    fn at(graph: &ReplayGraph, target: Option<NodeIdx>, edge: &str) -> Expected {
        match target.and_then(|t| graph.node(t).map(|n| (t, n.primitive))) {
            Some((node, primitive)) => Expected::Node {
                node,
                primitive,
                fallback: false,
            },
            None => Expected::Stuck {
                reason: format!("{edge} names no node"),
            },
        }
    }
}

/// The next event the graph selects after `step` at `node` (running `prim`), and whether the
/// edge taken is a grant edge (a non-`"*"` branch of an authorize node labelled with a grant).
pub(crate) fn select_next(
    registry: &Registry,
    graph: &ReplayGraph,
    node: NodeIdx,
    prim: PrimIdx,
    step: &StepEvent,
) -> (Expected, bool) {
    let Some(n) = graph.node(node) else {
        return (Expected::Free, false);
    };
    let p = registry.get(prim);
    match &step.result {
        Err(error) => {
            let handler = n
                .on_error
                .get(&error.mode)
                .map(|t| (t, error.mode.as_str()))
                .or_else(|| n.on_error.get("*").map(|t| (t, "*")));
            if let Some((target, label)) = handler {
                return (
                    Expected::at(
                        graph,
                        *target,
                        &format!("`on_error` `{label}` of `{}`", n.id),
                    ),
                    false,
                );
            }
            match p.fallback.as_deref().and_then(|f| registry.lookup(f)) {
                Some(fb) => (
                    Expected::Node {
                        node,
                        primitive: fb.index,
                        fallback: true,
                    },
                    false,
                ),
                None => (Expected::End { must_fail: true }, false),
            }
        }
        Ok(_) => {
            if let Some(branches) = &n.branches {
                let Some(outcome) = step.outcome.as_deref() else {
                    return (
                        Expected::Stuck {
                            reason: format!("`{}` branches but the step recorded no outcome", n.id),
                        },
                        false,
                    );
                };
                if let Some(target) = branches.get(outcome) {
                    let grant = p.authority == Authority::Authorize
                        && p.grants.iter().any(|g| g == outcome);
                    return (
                        Expected::at(graph, *target, &format!("branch `{outcome}` of `{}`", n.id)),
                        grant,
                    );
                }
                if let Some(target) = branches.get("*") {
                    return (
                        Expected::at(graph, *target, &format!("branch `*` of `{}`", n.id)),
                        false,
                    );
                }
                return (
                    Expected::Stuck {
                        reason: format!("`{}` has no branch for outcome `{outcome}`", n.id),
                    },
                    false,
                );
            }
            match n.next {
                Some(target) => (
                    Expected::at(graph, target, &format!("`next` of `{}`", n.id)),
                    false,
                ),
                None => (Expected::End { must_fail: false }, false),
            }
        }
    }
}
