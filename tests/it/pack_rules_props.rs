//! Pack rules (SPEC §9.4) against an independent oracle: on small random graphs, the set of
//! nodes a rule reports equals the set a brute-force enumeration of simple paths finds, and
//! every reported witness is a real path of the graph that shows the violation. The oracle
//! reads the graph document's JSON and the primitives' contracts itself; it shares nothing with
//! the engine but the registry.

use primgraph::graph::Model;
use primgraph::pack_rules::{Owners, parse_rules};
use primgraph::registry::{Primitive, Registry};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The primitives the random graphs use: classes, outcomes and effects to select by.
const POOL: &[&str] = &[
    "ver.run_target_tests", // verification, outcomes pass/fail
    "mut.apply_patch",      // mutation
    "ctl.authorize_patch",  // policy, authorize, allow/deny
    "dec.yes_no",           // s1_decision, yes/no
    "dec.accept_reject",    // s1_decision, accept/revise/reject
    "obs.list_files",       // deterministic, observation
    "tool.http_fetch",      // retrieval, network
];

/// Selectors for `target`, `from`, `to`.
const SELECTORS: &[&str] = &[
    r#"{"class": "verification"}"#,
    r#"{"class": "mutation"}"#,
    r#"{"primitive": "mut.apply_patch"}"#,
    r#"{"primitive": "obs.*"}"#,
    r#"{"effect": "network"}"#,
    r#"{"authority": "authorize"}"#,
    r#"{"family": "decision"}"#,
    r#"{"primitive": "ALLOW_OR_DENY_PATCH"}"#,
];

/// Passages (`through`, `unless_through`): selectors, and branches of a node.
const PASSAGES: &[&str] = &[
    r#"{"class": "verification"}"#,
    r#"{"class": "policy"}"#,
    r#"{"effect": "reads_workspace"}"#,
    r#"{"primitive": "dec.*"}"#,
    r#"{"class": "verification", "outcome": "pass"}"#,
    r#"{"primitive": "ctl.authorize_patch", "outcome": "allow"}"#,
    r#"{"class": "s1_decision", "outcome": "yes"}"#,
    r#"{"primitive": "dec.accept_reject", "outcome": "accept"}"#,
    r#"{"class": "s1_decision", "outcome": "revise"}"#,
];

fn prim(id: &str) -> &'static Primitive {
    Registry::builtin().lookup(id).expect("a builtin primitive")
}

/// One edge of the document, read from its JSON: (from, to, kind, label).
#[derive(Debug, Clone)]
struct Edge {
    from: usize,
    to: usize,
    branch: Option<String>,
}

/// The oracle's own view of the graph.
struct Oracle {
    prims: Vec<&'static Primitive>,
    edges: Vec<Edge>,
    terminal: Vec<bool>,
    entry: usize,
}

/// The oracle's selector matching, written from SPEC §9.4 against the contract fields.
fn selects(selector: &Value, p: &Primitive) -> bool {
    selector.as_object().unwrap().iter().all(|(k, v)| {
        let v = v.as_str().unwrap();
        match k.as_str() {
            "class" => p.class.as_str() == v,
            "family" => p.family == v,
            "authority" => p.authority.as_str() == v,
            "effect" => p.effects.iter().any(|e| e.as_str() == v),
            "primitive" => match v.strip_suffix(".*") {
                Some(prefix) => p.id.split('.').next() == Some(prefix),
                None => p.id == v || p.alias == v,
            },
            "outcome" => true,
            other => panic!("selector field {other}"),
        }
    })
}

impl Oracle {
    fn new(doc: &Value) -> Oracle {
        let nodes = doc["nodes"].as_array().unwrap();
        let index = |id: &str| nodes.iter().position(|n| n["id"] == id).unwrap();
        let mut edges = Vec::new();
        let mut terminal = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            if let Some(next) = n.get("next").and_then(Value::as_str) {
                edges.push(Edge {
                    from: i,
                    to: index(next),
                    branch: None,
                });
            }
            // `"*"` is read as what it means (SPEC §2: it covers the rest): one edge for each
            // outcome of the primitive that the other branches do not name.
            let branches = n.get("branches").and_then(Value::as_object);
            for (label, t) in branches.into_iter().flatten() {
                let to = index(t.as_str().unwrap());
                if label != "*" {
                    edges.push(Edge {
                        from: i,
                        to,
                        branch: Some(label.clone()),
                    });
                    continue;
                }
                let outcomes = prim(n["primitive"].as_str().unwrap())
                    .outcomes
                    .iter()
                    .flatten();
                for o in outcomes.filter(|o| !branches.unwrap().contains_key(o.as_str())) {
                    edges.push(Edge {
                        from: i,
                        to,
                        branch: Some(o.clone()),
                    });
                }
            }
            for (_, t) in n
                .get("on_error")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                edges.push(Edge {
                    from: i,
                    to: index(t.as_str().unwrap()),
                    branch: None,
                });
            }
            terminal.push(n.get("next").is_none() && n.get("branches").is_none());
        }
        Oracle {
            prims: nodes
                .iter()
                .map(|n| prim(n["primitive"].as_str().unwrap()))
                .collect(),
            edges,
            terminal,
            entry: index(doc["entry"].as_str().unwrap()),
        }
    }

    fn matching(&self, selector: &Value) -> Vec<bool> {
        self.prims.iter().map(|p| selects(selector, p)).collect()
    }

    /// Whether taking edge `e` passes `passage` (an outcome passage: that branch of a
    /// matching node).
    fn edge_passes(&self, passage: &Value, e: &Edge) -> bool {
        match passage.get("outcome").and_then(Value::as_str) {
            Some(outcome) => {
                e.branch.as_deref() == Some(outcome) && selects(passage, self.prims[e.from])
            }
            None => false,
        }
    }

    /// Whether visiting node `v` passes `passage` (a node passage).
    fn node_passes(&self, passage: &Value, v: usize) -> bool {
        passage.get("outcome").is_none() && selects(passage, self.prims[v])
    }

    /// Every path (as edge lists) from `start` whose inner nodes are distinct and differ from
    /// `start`; the last node may equal `start` (a cycle back). Includes the empty path.
    fn simple_paths(&self, start: usize) -> Vec<Vec<usize>> {
        let mut out = vec![vec![]];
        let mut stack: Vec<(Vec<usize>, Vec<usize>)> = vec![(vec![], vec![start])];
        while let Some((path, visited)) = stack.pop() {
            let last = *visited.last().unwrap();
            if !path.is_empty() && last == start {
                continue; // a cycle back to the start ends the path
            }
            for (ei, e) in self.edges.iter().enumerate() {
                if e.from != last {
                    continue;
                }
                if e.to != start && visited.contains(&e.to) {
                    continue;
                }
                let mut p = path.clone();
                p.push(ei);
                let mut v = visited.clone();
                v.push(e.to);
                out.push(p.clone());
                stack.push((p, v));
            }
        }
        out
    }

    fn nodes_of(&self, start: usize, path: &[usize]) -> Vec<usize> {
        let mut nodes = vec![start];
        nodes.extend(path.iter().map(|&e| self.edges[e].to));
        nodes
    }

    fn offending(&self, rule: &Value) -> BTreeSet<usize> {
        let n = self.prims.len();
        let mut out = BTreeSet::new();
        match rule["kind"].as_str().unwrap() {
            "requires_before" => {
                let targets = self.matching(&rule["target"]);
                let through = &rule["through"];
                for path in self.simple_paths(self.entry) {
                    let nodes = self.nodes_of(self.entry, &path);
                    let last = *nodes.last().unwrap();
                    if !path.is_empty() && last == self.entry {
                        continue; // not a simple path from the entry
                    }
                    let clean = nodes[..nodes.len() - 1]
                        .iter()
                        .all(|&v| !self.node_passes(through, v))
                        && path
                            .iter()
                            .all(|&e| !self.edge_passes(through, &self.edges[e]));
                    if clean && targets[last] {
                        out.insert(last);
                    }
                }
            }
            "requires_after" => {
                let targets = self.matching(&rule["target"]);
                let through = &rule["through"];
                for t in (0..n).filter(|&t| targets[t]) {
                    for path in self.simple_paths(t) {
                        let nodes = self.nodes_of(t, &path);
                        let last = *nodes.last().unwrap();
                        if !path.is_empty() && last == t {
                            continue;
                        }
                        let clean = nodes[1..].iter().all(|&v| !self.node_passes(through, v))
                            && path
                                .iter()
                                .all(|&e| !self.edge_passes(through, &self.edges[e]));
                        if clean && self.terminal[last] {
                            out.insert(t);
                        }
                    }
                }
            }
            "forbids_path" => {
                let from = self.matching(&rule["from"]);
                let to = self.matching(&rule["to"]);
                let unless = rule.get("unless_through");
                for f in (0..n).filter(|&f| from[f]) {
                    for path in self.simple_paths(f) {
                        if path.is_empty() {
                            continue;
                        }
                        let nodes = self.nodes_of(f, &path);
                        let last = *nodes.last().unwrap();
                        let clean = match unless {
                            None => true,
                            Some(u) => {
                                nodes[1..nodes.len() - 1]
                                    .iter()
                                    .all(|&v| !self.node_passes(u, v))
                                    && path.iter().all(|&e| !self.edge_passes(u, &self.edges[e]))
                            }
                        };
                        if clean && to[last] {
                            out.insert(last);
                        }
                    }
                }
            }
            "bounded" => {
                unreachable!("bounded is checked without paths")
            }
            other => panic!("kind {other}"),
        }
        out
    }
}

/// A random graph over [`POOL`]: `n` nodes, each with `next` or `branches` (or neither:
/// terminal) and maybe `on_error`.
fn graph_strategy() -> impl Strategy<Value = Value> {
    (1usize..=7).prop_flat_map(|n| {
        let node = (
            0..POOL.len(),
            0u8..4,
            proptest::collection::vec(0..n, 4),
            any::<bool>(),
            0..n,
            any::<bool>(),
        );
        (proptest::collection::vec(node, n), 0..n).prop_map(move |(nodes, entry)| {
            let mut out = Vec::new();
            for (i, (p, shape, targets, star, err, wide)) in nodes.into_iter().enumerate() {
                let id = POOL[p];
                let primitive = prim(id);
                let mut node = json!({"id": format!("n{i}"), "primitive": id});
                let t = |k: usize| json!(format!("n{}", targets[k]));
                match (shape, &primitive.outcomes) {
                    (0, _) => {} // terminal
                    (_, Some(outcomes)) => {
                        let mut branches = serde_json::Map::new();
                        // `"*"` stands for the first outcome, or the first two (a `"*"` that
                        // may carry an outcome the rule does not name).
                        let covered = if wide && outcomes.len() > 2 { 2 } else { 1 };
                        for (k, o) in outcomes.iter().enumerate() {
                            if star && k < covered {
                                continue;
                            }
                            branches.insert(o.clone(), t(k % 4));
                        }
                        if star {
                            branches.insert("*".into(), t(3));
                        }
                        node["branches"] = Value::Object(branches);
                    }
                    (_, None) => node["next"] = t(0),
                }
                if shape == 3 || shape == 0 && star {
                    node["on_error"] = json!({"*": format!("n{err}")});
                }
                out.push(node);
            }
            json!({"graph": "g", "abi": "1.0.0", "capabilities": [], "entry": format!("n{entry}"), "nodes": out})
        })
    })
}

fn rule_strategy() -> impl Strategy<Value = Value> {
    let sel = 0..SELECTORS.len();
    let pas = 0..PASSAGES.len();
    (0u8..3, sel.clone(), sel, pas, any::<bool>()).prop_map(|(kind, a, b, p, with_unless)| {
        let s = |i: usize| serde_json::from_str::<Value>(SELECTORS[i]).unwrap();
        let passage = serde_json::from_str::<Value>(PASSAGES[p]).unwrap();
        match kind {
            0 => json!({"id": "r", "kind": "requires_before", "target": s(a), "through": passage}),
            1 => json!({"id": "r", "kind": "requires_after", "target": s(a), "through": passage}),
            _ if with_unless => json!({"id": "r", "kind": "forbids_path", "from": s(a), "to": s(b), "unless_through": passage}),
            _ => json!({"id": "r", "kind": "forbids_path", "from": s(a), "to": s(b)}),
        }
    })
}

/// Check that a witness route is a path of the oracle's graph, from `start` to `end`.
fn witness_is_a_path(
    oracle: &Oracle,
    doc: &Value,
    path: &[String],
    start: Option<usize>,
    end: usize,
) -> bool {
    let index = |id: &str| {
        doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["id"] == id)
            .unwrap()
    };
    let nodes: Vec<usize> = path.iter().map(|id| index(id)).collect();
    if start.is_some_and(|s| nodes.first() != Some(&s)) || nodes.last() != Some(&end) {
        return false;
    }
    nodes
        .windows(2)
        .all(|w| oracle.edges.iter().any(|e| e.from == w[0] && e.to == w[1]))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn findings_agree_with_brute_force_paths(doc in graph_strategy(), rule in rule_strategy()) {
        let (rules, errors) = parse_rules("p", &json!([rule.clone()]), "/rules");
        prop_assert!(errors.is_empty(), "{errors:?}");
        let graph = primgraph::graph::load(&doc).unwrap();
        let model = Model::build(&graph, Registry::builtin());
        let findings = primgraph::pack_rules::check_all(&rules, &model, &Owners::default());
        let oracle = Oracle::new(&doc);
        let expected = oracle.offending(&rule);
        let mut got = BTreeSet::new();
        for f in &findings {
            prop_assert_eq!(f.code.as_str(), "p/r");
            let i: usize = f.pointer.strip_prefix("/nodes/").unwrap().parse().unwrap();
            prop_assert!(got.insert(i), "one finding per node: {:?}", findings);
            let path = f.witness.as_ref().and_then(|w| w.nodes()).unwrap();
            let start = match rule["kind"].as_str().unwrap() {
                "requires_before" => Some(oracle.entry),
                "requires_after" => Some(i),
                _ => None,
            };
            let end = match rule["kind"].as_str().unwrap() {
                "requires_after" => index_of(&doc, path.last().unwrap()),
                _ => i,
            };
            prop_assert!(witness_is_a_path(&oracle, &doc, path, start, end), "{:?} for {}", path, f.message);
            if rule["kind"] == "requires_after" {
                prop_assert!(oracle.terminal[end], "witness ends at a terminal: {:?}", path);
            }
        }
        prop_assert_eq!(got, expected, "{}\n{}", doc, rule);
    }

    #[test]
    fn bounded_agrees_with_the_node_bounds(doc in graph_strategy(), sel in 0..SELECTORS.len(), bound in 1u32..4, visits in proptest::collection::vec(proptest::option::of(1u32..6), 7)) {
        let mut doc = doc;
        for (node, v) in doc["nodes"].as_array_mut().unwrap().iter_mut().zip(&visits) {
            if let Some(v) = v {
                node["max_visits"] = json!(v);
            }
        }
        let selector: Value = serde_json::from_str(SELECTORS[sel]).unwrap();
        let rule = json!({"id": "b", "kind": "bounded", "severity": "warning", "target": selector, "max_visits": bound});
        let (rules, errors) = parse_rules("p", &json!([rule]), "/rules");
        prop_assert!(errors.is_empty());
        let graph = primgraph::graph::load(&doc).unwrap();
        let model = Model::build(&graph, Registry::builtin());
        let findings = primgraph::pack_rules::check_all(&rules, &model, &Owners::default());
        let oracle = Oracle::new(&doc);
        let targets = oracle.matching(&selector);
        let expected: BTreeSet<usize> = (0..targets.len())
            .filter(|&i| targets[i] && doc["nodes"][i].get("max_visits").and_then(Value::as_u64).is_none_or(|v| v > u64::from(bound)))
            .collect();
        let got: BTreeSet<usize> = findings
            .iter()
            .map(|f| f.pointer.strip_prefix("/nodes/").unwrap().split('/').next().unwrap().parse().unwrap())
            .collect();
        prop_assert!(findings.iter().all(|f| f.severity == primgraph::codes::Severity::Warning));
        prop_assert_eq!(got, expected);
    }
}

fn index_of(doc: &Value, id: &str) -> usize {
    doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["id"] == id)
        .unwrap()
}
