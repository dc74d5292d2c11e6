//! The control-flow model of a loaded graph (SPEC §3.3), built once per file and shared by every
//! rule: a petgraph graph whose node `i` is `nodes[i]` of the document, with one edge per
//! resolvable `next`, `branches` and `on_error` target; the primitives resolved against the
//! registry; reachability from `entry` (with BFS parents for shortest witnesses); the strongly
//! connected components of the graph minus bounded nodes; and the dominator tree from `entry`,
//! numbered so that "does X dominate Y" is answered in O(1). Everything is near-linear in the size
//! of the graph.

use super::doc::GraphDoc;
use crate::registry::{Class, Primitive, Registry};
use petgraph::algo::TarjanScc;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::{HashMap, VecDeque};

/// The kind of a control-flow edge; outcomes and modes borrow from the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeKind<'a> {
    Next,
    Branch { outcome: &'a str },
    OnError { mode: &'a str },
}

/// The control-flow graph of a document plus the analyses the rules share.
#[derive(Debug)]
pub struct Model<'a> {
    pub doc: &'a GraphDoc,
    /// The primitive of each node, `None` when the registry does not know it (R101).
    pub prims: Vec<Option<&'a Primitive>>,
    /// Node ID → index of its first occurrence. Every binding and edge target is looked up
    /// here, so the hasher is a fast one (lookups only: the map is never iterated).
    pub ids: HashMap<&'a str, usize, rustc_hash::FxBuildHasher>,
    pub graph: DiGraph<(), EdgeKind<'a>, u32>,
    /// Index of the entry node, when `entry` names one.
    pub entry: Option<usize>,
    /// Whether each node is reachable from `entry` over every edge kind.
    pub reachable: Vec<bool>,
    /// BFS parent of each reachable node (the entry is its own parent).
    pub bfs_parent: Vec<Option<usize>>,
    /// Structural terminals: neither `next` nor `branches`.
    pub terminal: Vec<bool>,
    /// SCCs of the graph restricted to nodes without `max_visits`, in reverse topological order
    /// (petgraph's Tarjan order: sinks first).
    pub unbounded_sccs: Vec<Vec<usize>>,
    /// Whether node `i` has an edge to itself.
    pub self_loop: Vec<bool>,
    /// How many `next`/`branches`/`on_error` targets name no node (S202 reads them only then).
    pub unresolved_targets: usize,
    dom: Option<DomTree>,
}

/// Dominator tree numbered by an Euler tour: X dominates Y iff `enter[X] <= enter[Y]` and
/// `exit[Y] <= exit[X]`.
#[derive(Debug)]
struct DomTree {
    enter: Vec<u32>,
    exit: Vec<u32>,
    in_tree: Vec<bool>,
}

impl<'a> Model<'a> {
    pub fn build(doc: &'a GraphDoc, registry: &'a Registry) -> Model<'a> {
        let n = doc.nodes.len();
        let mut ids = HashMap::with_capacity_and_hasher(n, Default::default());
        for (i, node) in doc.nodes.iter().enumerate() {
            ids.entry(node.id.as_str()).or_insert(i);
        }
        let prims = doc
            .nodes
            .iter()
            .map(|node| registry.lookup(&node.primitive))
            .collect();
        let mut graph: DiGraph<(), EdgeKind<'a>, u32> = DiGraph::with_capacity(n, n);
        for _ in 0..n {
            graph.add_node(());
        }
        let mut self_loop = vec![false; n];
        let mut unresolved_targets = 0;
        for (i, node) in doc.nodes.iter().enumerate() {
            let mut add = |target: &str, kind: EdgeKind<'a>| {
                if let Some(&j) = ids.get(target) {
                    if i == j {
                        self_loop[i] = true;
                    }
                    graph.add_edge(NodeIndex::new(i), NodeIndex::new(j), kind);
                } else {
                    unresolved_targets += 1;
                }
            };
            if let Some(next) = &node.next {
                add(next, EdgeKind::Next);
            }
            for (outcome, target) in node.branches.iter().flatten() {
                add(
                    target,
                    EdgeKind::Branch {
                        outcome: outcome.as_str(),
                    },
                );
            }
            for (mode, target) in node.on_error.iter().flatten() {
                add(
                    target,
                    EdgeKind::OnError {
                        mode: mode.as_str(),
                    },
                );
            }
        }
        let terminal = doc
            .nodes
            .iter()
            .map(|node| node.next.is_none() && node.branches.is_none())
            .collect();
        let entry = ids.get(doc.entry.as_str()).copied();
        let (reachable, bfs_parent) = match entry {
            Some(e) => bfs(&graph, e, |_| true),
            None => (vec![false; n], vec![None; n]),
        };

        let mut bounded_free = DiGraph::<(), (), u32>::with_capacity(n, n);
        for _ in 0..n {
            bounded_free.add_node(());
        }
        for edge in graph.edge_references() {
            let (a, b) = (edge.source().index(), edge.target().index());
            let unbounded = |k: usize| doc.nodes.get(k).is_some_and(|x| x.max_visits.is_none());
            if unbounded(a) && unbounded(b) {
                bounded_free.add_edge(edge.source(), edge.target(), ());
            }
        }
        let mut unbounded_sccs = Vec::new();
        TarjanScc::new().run(&bounded_free, |scc: &[NodeIndex<u32>]| {
            unbounded_sccs.push(scc.iter().map(|x| x.index()).collect());
        });

        let dom = entry.map(|e| {
            let idom = immediate_dominators(&graph, e);
            let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
            for (v, reached) in reachable.iter().enumerate() {
                if *reached
                    && v != e
                    && let Some(d) = idom[v]
                {
                    children[d].push(v);
                }
            }
            let mut enter = vec![0u32; n];
            let mut exit = vec![0u32; n];
            let mut in_tree = vec![false; n];
            let mut clock = 0u32;
            let mut stack = vec![(e, 0usize)];
            in_tree[e] = true;
            enter[e] = clock;
            while let Some((v, child)) = stack.pop() {
                if let Some(&c) = children[v].get(child) {
                    stack.push((v, child + 1));
                    clock += 1;
                    enter[c] = clock;
                    in_tree[c] = true;
                    stack.push((c, 0));
                } else {
                    clock += 1;
                    exit[v] = clock;
                }
            }
            DomTree {
                enter,
                exit,
                in_tree,
            }
        });

        Model {
            doc,
            prims,
            ids,
            graph,
            entry,
            reachable,
            bfs_parent,
            terminal,
            unbounded_sccs,
            self_loop,
            unresolved_targets,
            dom,
        }
    }

    pub fn len(&self) -> usize {
        self.doc.nodes.len()
    }

    /// Whether two nodes share an ID (`ids` keeps the first of each): the rules that tell the
    /// later ones apart look only then, which spares a hash lookup per node of a clean graph.
    pub fn has_duplicate_ids(&self) -> bool {
        self.ids.len() != self.doc.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc.nodes.is_empty()
    }

    /// The node ID of index `i`.
    pub fn id(&self, i: usize) -> &str {
        self.doc.nodes.get(i).map_or("", |n| n.id.as_str())
    }

    pub fn prim(&self, i: usize) -> Option<&'a Primitive> {
        self.prims.get(i).copied().flatten()
    }

    pub fn class(&self, i: usize) -> Option<Class> {
        self.prim(i).map(|p| p.class)
    }

    /// Successors of `i` with the edge kinds, in insertion order reversed (petgraph's order).
    pub fn successors(&self, i: usize) -> impl Iterator<Item = (usize, &EdgeKind<'a>)> + '_ {
        self.graph
            .edges(NodeIndex::new(i))
            .map(|e| (e.target().index(), e.weight()))
    }

    /// Whether `x` dominates `y` (every path from `entry` to `y` passes `x`; reflexive).
    /// `false` when either is unreachable.
    pub fn dominates(&self, x: usize, y: usize) -> bool {
        let Some(dom) = &self.dom else { return false };
        match (dom.in_tree.get(x), dom.in_tree.get(y)) {
            (Some(true), Some(true)) => dom.enter[x] <= dom.enter[y] && dom.exit[y] <= dom.exit[x],
            _ => false,
        }
    }

    /// The IDs along the BFS-parent chain from `entry` to `target`, given a parent array.
    /// The route witness from `start` along `edges` (consecutive edges of the graph from it).
    pub fn route(&self, start: usize, edges: &[EdgeIndex<u32>]) -> crate::diagnostic::Witness {
        let mut path = Vec::with_capacity(edges.len() + 1);
        path.push(self.id(start).to_string());
        let mut steps = Vec::with_capacity(edges.len());
        for &e in edges {
            let Some((a, b)) = self.graph.edge_endpoints(e) else {
                continue;
            };
            let (kind, label) = match self.graph[e] {
                EdgeKind::Next => ("next", None),
                EdgeKind::Branch { outcome } => ("branch", Some(outcome.to_string())),
                EdgeKind::OnError { mode } => ("on_error", Some(mode.to_string())),
            };
            steps.push(crate::diagnostic::RouteEdge {
                from: self.id(a.index()).to_string(),
                to: self.id(b.index()).to_string(),
                kind,
                label,
            });
            path.push(self.id(b.index()).to_string());
        }
        crate::diagnostic::Witness::Route { path, edges: steps }
    }

    /// The edges from `start` of a [`bfs_edges`] tree down to `target`, in order.
    pub fn edges_to(
        &self,
        parents: &[Option<EdgeIndex<u32>>],
        target: usize,
    ) -> Vec<EdgeIndex<u32>> {
        let mut edges = Vec::new();
        let mut current = target;
        // A parent chain is a tree path: bounded by the node count.
        for _ in 0..=self.len() {
            match parents.get(current).copied().flatten() {
                Some(e) => {
                    edges.push(e);
                    match self.graph.edge_endpoints(e) {
                        Some((a, _)) => current = a.index(),
                        None => break,
                    }
                }
                None => break,
            }
        }
        edges.reverse();
        edges
    }

    pub fn path_to(&self, parents: &[Option<usize>], target: usize) -> Vec<String> {
        let mut path = Vec::new();
        let mut current = target;
        // A parent chain is a tree path: bounded by the node count even if corrupted.
        for _ in 0..=self.len() {
            path.push(self.id(current).to_string());
            match parents.get(current).copied().flatten() {
                Some(p) if p != current => current = p,
                _ => break,
            }
        }
        path.reverse();
        path
    }
}

/// The immediate dominator of every node reachable from `entry` (`None` for `entry` itself and
/// for unreachable nodes), by Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast
/// Dominance Algorithm") over flat arrays: the dominator tree is unique, so this is the tree
/// petgraph's `simple_fast` computes, without its hash map of predecessor sets per node.
fn immediate_dominators(
    graph: &DiGraph<(), EdgeKind<'_>, u32>,
    entry: usize,
) -> Vec<Option<usize>> {
    let n = graph.node_count();
    const NONE: u32 = u32::MAX;
    let mut idom = vec![None; n];
    if entry >= n {
        return idom;
    }
    // Postorder by an iterative DFS from `entry`.
    let mut post = vec![NONE; n];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, petgraph::graph::Neighbors<'_, EdgeKind<'_>, u32>)> = Vec::new();
    seen[entry] = true;
    stack.push((entry, graph.neighbors(NodeIndex::new(entry))));
    while let Some((v, successors)) = stack.last_mut() {
        let v = *v;
        match successors.next() {
            Some(w) => {
                let w = w.index();
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, graph.neighbors(NodeIndex::new(w))));
                }
            }
            None => {
                post[v] = order.len() as u32;
                order.push(v);
                stack.pop();
            }
        }
    }
    // Predecessors of reachable nodes, flat: `preds[first[v]..first[v + 1]]`.
    let mut first = vec![0u32; n + 1];
    for edge in graph.raw_edges() {
        let (a, b) = (edge.source().index(), edge.target().index());
        if seen[a] && seen[b] {
            first[b + 1] += 1;
        }
    }
    for v in 0..n {
        first[v + 1] += first[v];
    }
    let mut fill = first.clone();
    let mut preds = vec![0u32; first[n] as usize];
    for edge in graph.raw_edges() {
        let (a, b) = (edge.source().index(), edge.target().index());
        if seen[a] && seen[b] {
            preds[fill[b] as usize] = a as u32;
            fill[b] += 1;
        }
    }
    // Dominators by postorder number; `NONE` is "not yet known".
    let mut dom = vec![NONE; n];
    dom[entry] = post[entry];
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().rev() {
            if v == entry {
                continue;
            }
            let mut new_idom = NONE;
            for &p in &preds[first[v] as usize..first[v + 1] as usize] {
                let p = p as usize;
                if dom[p] == NONE {
                    continue;
                }
                new_idom = if new_idom == NONE {
                    post[p]
                } else {
                    intersect(&dom, &order, post[p], new_idom)
                };
            }
            if new_idom != NONE && dom[v] != new_idom {
                dom[v] = new_idom;
                changed = true;
            }
        }
    }
    for &v in &order {
        if v != entry && dom[v] != NONE {
            idom[v] = Some(order[dom[v] as usize]);
        }
    }
    idom
}

/// The nearest common dominator of two nodes given by postorder number.
fn intersect(dom: &[u32], order: &[usize], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a < b {
            a = dom[order[a as usize]];
        }
        while b < a {
            b = dom[order[b as usize]];
        }
    }
    a
}

/// Breadth-first search from `start` over edges accepted by `keep` (given the edge's source,
/// target and kind through the closure's argument). Returns visited flags and BFS parents
/// (shortest paths in edge count).
/// [`bfs`], remembering the edge by which each node was first reached (`None` for `start` and
/// for unreached nodes), so that a witness can name the edge taken. Among several edges to the
/// same node the first in document order wins (`next`, then `branches`, then `on_error`).
pub fn bfs_edges<'a>(
    graph: &DiGraph<(), EdgeKind<'a>, u32>,
    start: usize,
    keep: impl Fn(petgraph::graph::EdgeReference<'_, EdgeKind<'a>, u32>) -> bool,
) -> (Vec<bool>, Vec<Option<EdgeIndex<u32>>>) {
    let n = graph.node_count();
    let mut seen = vec![false; n];
    let mut parent = vec![None; n];
    if start >= n {
        return (seen, parent);
    }
    let mut queue = VecDeque::new();
    seen[start] = true;
    queue.push_back(start);
    let mut steps: Vec<(usize, EdgeIndex<u32>)> = Vec::new();
    while let Some(v) = queue.pop_front() {
        // Ascending target, then edge order, so witnesses do not depend on petgraph's order.
        steps.clear();
        steps.extend(
            graph
                .edges(NodeIndex::new(v))
                .filter(|e| keep(*e))
                .map(|e| (e.target().index(), e.id())),
        );
        steps.sort_unstable();
        for &(t, e) in &steps {
            if !seen[t] {
                seen[t] = true;
                parent[t] = Some(e);
                queue.push_back(t);
            }
        }
    }
    (seen, parent)
}

pub fn bfs<'a>(
    graph: &DiGraph<(), EdgeKind<'a>, u32>,
    start: usize,
    keep: impl Fn(petgraph::graph::EdgeReference<'_, EdgeKind<'a>, u32>) -> bool,
) -> (Vec<bool>, Vec<Option<usize>>) {
    // The same walk as `bfs_edges` (same visiting order), naming each parent node instead.
    let (seen, edges) = bfs_edges(graph, start, keep);
    let mut parent: Vec<Option<usize>> = edges
        .iter()
        .map(|e| {
            e.and_then(|e| graph.edge_endpoints(e))
                .map(|(s, _)| s.index())
        })
        .collect();
    if let Some(own) = parent.get_mut(start) {
        *own = Some(start);
    }
    (seen, parent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::algo::dominators::simple_fast;

    /// The flat-array dominators agree with petgraph's on many small random graphs (with
    /// self-loops, parallel edges and unreachable nodes).
    #[test]
    fn immediate_dominators_match_petgraph() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        for _ in 0..500 {
            let n = 1 + next(24);
            let mut graph = DiGraph::<(), EdgeKind<'_>, u32>::with_capacity(n, 0);
            for _ in 0..n {
                graph.add_node(());
            }
            for _ in 0..next(3 * n + 1) {
                let (a, b) = (next(n), next(n));
                graph.add_edge(NodeIndex::new(a), NodeIndex::new(b), EdgeKind::Next);
            }
            let entry = next(n);
            let ours = immediate_dominators(&graph, entry);
            let theirs = simple_fast(&graph, NodeIndex::new(entry));
            for (v, idom) in ours.iter().enumerate() {
                let expected = theirs
                    .immediate_dominator(NodeIndex::new(v))
                    .map(|d| d.index());
                assert_eq!(*idom, expected, "node {v} of {n}, entry {entry}");
            }
        }
    }
}
