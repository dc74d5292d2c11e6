//! A405: untrusted data reaches a sink.
//!
//! ## What it checks
//!
//! Taint along data edges (bindings). A value is tainted when it comes from an
//! output property marked `"x-trust": "untrusted"` (or contains one), or from a `$input` property
//! the graph's `input` schema marks so. A node other than a `verification` or `policy` node that
//! takes any tainted input has all its outputs tainted; verification and policy nodes sanitize.
//! Tainted data must not be bound to an input marked `"x-sink": true` (a command line, a path to
//! write). One breadth-first pass over the bindings from every taint source finds every tainted
//! binding; the witness is the shortest chain of nodes from the source to the sink's node.
//!
//! ## Why it matters
//!
//! Retrieved text and model output are attacker-controllable; passing them
//! through a planner into `exec.run_command` is a prompt-injection path to code execution.
//!
//! ## Example
//!
//! ```text
//! plan (plan.propose_command, outputs an untrusted `command`) → run (exec.run_command) binds
//! {"command": {"from": "plan", "at": "/command"}}
//! ```
//!
//! Fixture `tests/fixtures/rules/a405_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports A405 at line 14:
//!
//! ```json
//! {"id": "run", "primitive": "exec.run_command", "inputs": {"command": {"from": "plan", "at": "/command"}, "grant": {"from": "cmd_gate", "at": "/grant"}}, "next": "locate"},
//! ```
//!
//! ## Fix
//!
//! Pass the value through a verification or policy node before the sink.
//!
//! Does not fire:
//!
//! ```text
//! the command passes a policy gate first, and `run` binds it from the gate's output.
//! ```
//!
//! ## Implements
//!
//! SPEC §3.4 (Untrusted data); the code is listed in §5.

use super::{BindingInfo, Context, Origin};
use crate::codes;
use crate::diagnostic::{Diagnostic, Witness};
use crate::registry::Class;
use std::collections::VecDeque;

struct Edge<'b, 'a> {
    /// Source node; `None` for `$input`.
    source: Option<usize>,
    consumer: usize,
    binding: &'b BindingInfo<'a>,
    direct: bool,
    sink: bool,
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let n = cx.doc.nodes.len();
    let mut edges = Vec::new();
    for b in cx.binding_infos() {
        let source_node = match b.origin {
            Origin::Input => None,
            Origin::Node(s) => Some(s),
            Origin::Const | Origin::Unknown => continue,
        };
        let direct = cx
            .selection(b)
            .is_some_and(|selected| selected.as_ref().is_ok_and(|s| s.untrusted()));
        let sink = b.target_annotations.sink;
        edges.push(Edge {
            source: source_node,
            consumer: b.node,
            binding: b,
            direct,
            sink,
        });
    }
    if !edges.iter().any(|e| e.direct) {
        return; // nothing untrusted is read anywhere
    }
    // The bindings reading each node, flat: `outgoing[first[v]..first[v + 1]]`, in binding order.
    let mut first = vec![0usize; n + 1];
    for edge in &edges {
        if let Some(s) = edge.source {
            first[s + 1] += 1;
        }
    }
    for v in 0..n {
        first[v + 1] += first[v];
    }
    let mut fill = first.clone();
    let mut outgoing = vec![0usize; first[n]];
    for (k, edge) in edges.iter().enumerate() {
        if let Some(s) = edge.source {
            outgoing[fill[s]] = k;
            fill[s] += 1;
        }
    }
    // tainted_by[v]: the binding that first tainted node v's outputs.
    let mut tainted_by: Vec<Option<usize>> = vec![None; n];
    // via[e]: for a binding tainted through its source node, that node's tainting binding.
    let mut edge_tainted = vec![false; edges.len()];
    let mut queue: VecDeque<usize> = VecDeque::new();
    for (k, edge) in edges.iter().enumerate() {
        if edge.direct {
            edge_tainted[k] = true;
            queue.push_back(k);
        }
    }
    while let Some(k) = queue.pop_front() {
        let Some(edge) = edges.get(k) else { continue };
        let consumer = edge.consumer;
        let sanitizer = matches!(
            cx.model.class(consumer),
            Some(Class::Verification | Class::Policy)
        );
        if sanitizer || tainted_by[consumer].is_some() {
            continue;
        }
        tainted_by[consumer] = Some(k);
        for &next in &outgoing[first[consumer]..first[consumer + 1]] {
            if !edge_tainted[next] {
                edge_tainted[next] = true;
                queue.push_back(next);
            }
        }
    }
    let chain = |k: usize| -> Vec<String> {
        let mut nodes = Vec::new();
        let mut current = Some(k);
        let mut guard = 0;
        while let Some(e) = current.and_then(|k| edges.get(k)) {
            nodes.push(cx.model.id(e.consumer).to_string());
            guard += 1;
            if e.direct || guard > n + 1 {
                nodes.push(match e.source {
                    Some(s) => cx.model.id(s).to_string(),
                    None => crate::graph::INPUT_WORD.to_string(),
                });
                break;
            }
            current = e.source.and_then(|s| tainted_by[s]);
        }
        nodes.reverse();
        nodes
    };
    for (k, edge) in edges.iter().enumerate() {
        if !(edge.sink && edge_tainted[k]) {
            continue;
        }
        let path = chain(k);
        let consumer = cx.prim(edge.consumer).map_or("?", |p| p.id.as_str());
        out.push(
            codes::A405
                .at(
                    edge.binding.pointer(),
                    format!(
                        "untrusted data reaches sink input `{}` of `{consumer}`: {}",
                        edge.binding.property,
                        path.join(" → ")
                    ),
                )
                .with_witness(Witness::Path(path)),
        );
    }
}
