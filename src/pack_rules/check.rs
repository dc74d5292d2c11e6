//! The four rule kinds over a graph's control-flow model: each a breadth-first search (forward
//! from `entry` or from the `from` nodes, backward from the terminals) that does not pass the
//! rule's passage, so every finding comes with the shortest route that shows it.

use super::{Kind, Owners, PackRule, Passage, Selector};
use crate::diagnostic::Diagnostic;
use crate::graph::model::bfs_edges;
use crate::graph::{EdgeKind, Model};
use petgraph::Direction;
use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::VecDeque;

/// Check one rule, appending its findings (one per offending node).
pub fn check(rule: &PackRule, model: &Model<'_>, owners: &Owners, out: &mut Vec<Diagnostic>) {
    match &rule.kind {
        Kind::RequiresBefore { target, through } => {
            requires_before(rule, model, owners, target, through, out)
        }
        Kind::RequiresAfter { target, through } => {
            requires_after(rule, model, owners, target, through, out)
        }
        Kind::ForbidsPath {
            from,
            to,
            unless_through,
        } => forbids_path(rule, model, owners, from, to, unless_through.as_ref(), out),
        Kind::Bounded { target, max_visits } => {
            bounded(rule, model, owners, target, *max_visits, out)
        }
    }
}

/// For each node, whether its primitive satisfies `selector` (a node of an unknown primitive
/// matches nothing).
fn matching(model: &Model<'_>, owners: &Owners, selector: &Selector) -> Vec<bool> {
    (0..model.len())
        .map(|i| model.prim(i).is_some_and(|p| selector.matches(p, owners)))
        .collect()
}

/// What passing a [`Passage`] blocks: nodes (no outcome) or `branches` edges (with one).
struct Blocked {
    nodes: Vec<bool>,
    /// The outcome of the blocked branch edges of the matching nodes, when the passage is one.
    outcome: Option<String>,
    /// For each node, whether its `"*"` branch carries the passage's outcome alone: `"*"` covers
    /// the outcomes the node's other branches do not name (SPEC §2), and taking it passes that
    /// branch only when every outcome it can stand for is the one the passage names.
    star: Vec<bool>,
}

impl Blocked {
    fn of(model: &Model<'_>, owners: &Owners, passage: Option<&Passage>) -> Blocked {
        match passage {
            None => Blocked {
                nodes: vec![false; model.len()],
                outcome: None,
                star: vec![false; model.len()],
            },
            Some(p) => {
                let nodes = matching(model, owners, &p.0);
                let outcome = p.outcome().map(str::to_string);
                let star = (0..model.len())
                    .map(|v| {
                        nodes[v]
                            && outcome
                                .as_deref()
                                .is_some_and(|o| star_is_only(model, v, o))
                    })
                    .collect();
                Blocked {
                    nodes,
                    outcome,
                    star,
                }
            }
        }
    }

    /// Whether node `v` is passed by being visited (a node passage).
    fn node(&self, v: usize) -> bool {
        self.outcome.is_none() && self.nodes[v]
    }

    /// Whether the edge from `source` of `kind` is passed by being taken (an outcome passage).
    fn edge(&self, source: usize, kind: &EdgeKind<'_>) -> bool {
        match (&self.outcome, kind) {
            (Some(outcome), EdgeKind::Branch { outcome: label }) => {
                self.nodes[source] && (label == outcome || (*label == "*" && self.star[source]))
            }
            _ => false,
        }
    }
}

/// Whether node `v`'s `"*"` branch can carry no outcome but `outcome`: every outcome of its
/// primitive that its other branches do not name is `outcome`.
fn star_is_only(model: &Model<'_>, v: usize, outcome: &str) -> bool {
    let (Some(prim), Some(branches)) = (model.prim(v), &model.doc.nodes[v].branches) else {
        return false;
    };
    prim.outcomes
        .iter()
        .flatten()
        .filter(|o| !branches.contains_key(o))
        .all(|o| o == outcome)
}

fn finding(rule: &PackRule, pointer: String, text: String, default_help: &str) -> Diagnostic {
    let message = match &rule.summary {
        Some(summary) => format!("{text} ({summary})"),
        None => text,
    };
    Diagnostic::new(rule.code.clone(), rule.severity, pointer, message).with_help(
        rule.help
            .clone()
            .unwrap_or_else(|| default_help.to_string()),
    )
}

fn label(model: &Model<'_>, i: usize) -> String {
    match model.prim(i) {
        Some(p) => format!("`{}` (`{}`)", model.id(i), p.id),
        None => format!("`{}`", model.id(i)),
    }
}

fn requires_before(
    rule: &PackRule,
    model: &Model<'_>,
    owners: &Owners,
    target: &Selector,
    through: &Passage,
    out: &mut Vec<Diagnostic>,
) {
    let Some(entry) = model.entry else { return };
    let targets = matching(model, owners, target);
    let blocked = Blocked::of(model, owners, Some(through));
    let (seen, parents) = bfs_edges(&model.graph, entry, |e| {
        let source = e.source().index();
        !blocked.node(source) && !blocked.edge(source, e.weight())
    });
    for i in (0..model.len()).filter(|&i| targets[i] && seen[i]) {
        let witness = model.route(entry, &model.edges_to(&parents, i));
        let text = format!(
            "{} is reached from the entry without passing `through` {}: {}",
            label(model, i),
            through.0.describe(),
            witness.describe()
        );
        out.push(
            finding(
                rule,
                format!("/nodes/{i}"),
                text,
                "route every path from the entry to this node through a node the rule's `through` selects",
            )
            .with_witness(witness),
        );
    }
}

fn requires_after(
    rule: &PackRule,
    model: &Model<'_>,
    owners: &Owners,
    target: &Selector,
    through: &Passage,
    out: &mut Vec<Diagnostic>,
) {
    let n = model.len();
    let targets = matching(model, owners, target);
    if !targets.contains(&true) {
        return;
    }
    let blocked = Blocked::of(model, owners, Some(through));
    // reaches[v]: a terminal is reachable from v without passing the passage (v included);
    // toward[v]: the first edge of a shortest such path.
    let mut reaches = vec![false; n];
    let mut distance = vec![usize::MAX; n];
    let mut toward: Vec<Option<EdgeIndex<u32>>> = vec![None; n];
    let mut queue = VecDeque::new();
    for v in 0..n {
        if model.terminal[v] && !blocked.node(v) {
            reaches[v] = true;
            distance[v] = 0;
            queue.push_back(v);
        }
    }
    while let Some(w) = queue.pop_front() {
        let mut predecessors: Vec<(usize, EdgeIndex<u32>)> = model
            .graph
            .edges_directed(NodeIndex::new(w), Direction::Incoming)
            .filter(|e| !blocked.edge(e.source().index(), e.weight()))
            .map(|e| (e.source().index(), e.id()))
            .collect();
        predecessors.sort_unstable();
        for (v, e) in predecessors {
            if !reaches[v] && !blocked.node(v) {
                reaches[v] = true;
                distance[v] = distance[w].saturating_add(1);
                toward[v] = Some(e);
                queue.push_back(v);
            }
        }
    }
    for i in (0..n).filter(|&i| targets[i]) {
        // The node itself never counts as its own passage: a terminal target ends unpassed;
        // otherwise its best exit of any kind leads to a node that reaches a terminal.
        let mut edges: Vec<EdgeIndex<u32>> = Vec::new();
        if !model.terminal[i] {
            let exit = model
                .graph
                .edges(NodeIndex::new(i))
                .filter(|e| !blocked.edge(i, e.weight()) && reaches[e.target().index()])
                .map(|e| (distance[e.target().index()], e.target().index(), e.id()))
                .min();
            let Some((_, mut current, first)) = exit else {
                continue;
            };
            edges.push(first);
            while let Some(e) = toward.get(current).copied().flatten() {
                if edges.len() > n {
                    break;
                }
                edges.push(e);
                current = model
                    .graph
                    .edge_endpoints(e)
                    .map_or(current, |(_, b)| b.index());
            }
        }
        let witness = model.route(i, &edges);
        let text = format!(
            "{} reaches a terminal without passing `through` {}: {}",
            label(model, i),
            through.0.describe(),
            witness.describe()
        );
        out.push(
            finding(
                rule,
                format!("/nodes/{i}"),
                text,
                "route every path from this node to a terminal, its on_error edges included, through a node the rule's `through` selects",
            )
            .with_witness(witness),
        );
    }
}

fn forbids_path(
    rule: &PackRule,
    model: &Model<'_>,
    owners: &Owners,
    from: &Selector,
    to: &Selector,
    unless_through: Option<&Passage>,
    out: &mut Vec<Diagnostic>,
) {
    let n = model.len();
    let sources = matching(model, owners, from);
    let targets = matching(model, owners, to);
    if !sources.contains(&true) || !targets.contains(&true) {
        return;
    }
    let blocked = Blocked::of(model, owners, unless_through);
    // A multi-source search from every `from` node: a path has at least one edge, and only the
    // nodes strictly between its ends can excuse it.
    let mut reached = vec![false; n];
    let mut expanded = vec![false; n];
    let mut parent: Vec<Option<EdgeIndex<u32>>> = vec![None; n];
    let mut queue = VecDeque::new();
    let mut steps: Vec<(usize, EdgeIndex<u32>)> = Vec::new();
    let mut expand = |v: usize,
                      reached: &mut Vec<bool>,
                      parent: &mut Vec<Option<EdgeIndex<u32>>>,
                      queue: &mut VecDeque<usize>| {
        steps.clear();
        steps.extend(
            model
                .graph
                .edges(NodeIndex::new(v))
                .filter(|e| !blocked.edge(v, e.weight()))
                .map(|e| (e.target().index(), e.id())),
        );
        steps.sort_unstable();
        for &(t, e) in &steps {
            if !reached[t] {
                reached[t] = true;
                parent[t] = Some(e);
                queue.push_back(t);
            }
        }
    };
    for v in (0..n).filter(|&v| sources[v]) {
        expanded[v] = true;
        expand(v, &mut reached, &mut parent, &mut queue);
    }
    while let Some(v) = queue.pop_front() {
        if expanded[v] || blocked.node(v) {
            continue;
        }
        expanded[v] = true;
        expand(v, &mut reached, &mut parent, &mut queue);
    }
    for i in (0..n).filter(|&i| targets[i] && reached[i]) {
        // Back along the parents to the nearest `from` node: the nodes between were expanded,
        // so none of them is an `unless_through` node.
        let mut edges = Vec::new();
        let mut current = i;
        for _ in 0..=n {
            let Some(e) = parent[current] else { break };
            edges.push(e);
            current = model
                .graph
                .edge_endpoints(e)
                .map_or(current, |(a, _)| a.index());
            if sources[current] {
                break;
            }
        }
        edges.reverse();
        let witness = model.route(current, &edges);
        let excuse = match unless_through {
            Some(p) => format!(" without passing `unless_through` {}", p.0.describe()),
            None => String::new(),
        };
        let text = format!(
            "{} is reached from `from` node {} ({}){excuse}: {}",
            label(model, i),
            label(model, current),
            from.describe(),
            witness.describe()
        );
        out.push(
            finding(
                rule,
                format!("/nodes/{i}"),
                text,
                "remove the path, or route it through a node the rule's `unless_through` selects",
            )
            .with_witness(witness),
        );
    }
}

fn bounded(
    rule: &PackRule,
    model: &Model<'_>,
    owners: &Owners,
    target: &Selector,
    bound: u32,
    out: &mut Vec<Diagnostic>,
) {
    let targets = matching(model, owners, target);
    for i in (0..model.len()).filter(|&i| targets[i]) {
        let visits = model.doc.nodes[i].max_visits;
        let (pointer, text) = match visits {
            Some(v) if v <= bound => continue,
            Some(v) => (
                format!("/nodes/{i}/max_visits"),
                format!(
                    "{} has `max_visits` {v}, above the rule's bound {bound}",
                    label(model, i)
                ),
            ),
            None => (
                format!("/nodes/{i}"),
                format!(
                    "{} has no `max_visits`; the rule bounds it by {bound}",
                    label(model, i)
                ),
            ),
        };
        let help = format!("set `max_visits` to at most {bound} on this node");
        out.push(finding(rule, pointer, text, &help));
    }
}
