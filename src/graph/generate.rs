//! A seeded generator of realistic agent graphs that validate clean by construction, for the
//! benchmarks, the property tests and `primgraph graph generate`.
//!
//! A graph is a sequence of *segments* joined end to end, drawn with a seeded PRNG (the same
//! size, seed and registry always give the same document):
//!
//! - **chain**: one to four ordinary steps (deterministic, retrieval or generation primitives
//!   without outcomes), some with an `on_error` edge to a failure terminal;
//! - **fan-out**: an `s1_decision` node branching on every outcome into short arms that join
//!   again (or, for one arm, end at a failure terminal);
//! - **gated change**: a `policy` gate whose grant outcomes lead to a primitive that
//!   `requires_authorization` (bound to the gate's `grant`), followed — when the primitive
//!   `requires_verifier` — by a `verification` node; the change's `on_error` edges go to that
//!   verifier; the gate's other outcomes end at a failure terminal or continue;
//! - **bounded loop**: a step with `max_visits` opening a body (steps, maybe a gated change)
//!   closed by a decision or a verifier whose "retry" edge returns to the bounded step.
//!
//! The last segment's open edges end at a success terminal. Every cycle passes the bounded step
//! that opens its loop (no S205); every privileged node is entered only by a grant edge (no A402,
//! no A404); every change is followed by a verifier (no A407); `budget.max_steps` is an upper
//! bound of the S209 bound (`n + Σ max_visits × (n + 1)`).
//!
//! Data edges are bound afterwards, on the finished control flow: each required input (and some
//! optional ones) reads the nearest dominating node (no T308) whose *required* output property of
//! the same name has the same schema (annotations aside, so no T305/T306/T309); authority inputs
//! read the nearest dominating policy node's grant (no A403); sink inputs read only untainted
//! sources (no A405). An input no dominator provides reads `$input`, whose schema gains a required
//! property with the target's schema. All nodes stay in the `main` workspace (no A406) and
//! `capabilities` lists the `prefix.*` of every family used.

use crate::registry::{Authority, Class, Effect, Primitive, Registry};
use crate::rng::Rng;
use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Why no graph can be generated from a registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error(
        "the registry has no {0} primitive the generator can use (it needs at least an ordinary step and a terminal)"
    )]
    MissingPool(&'static str),
}

fn has_annotation(schema: &Value, key: &str) -> bool {
    match schema {
        Value::Object(map) => {
            map.get(key).is_some_and(|v| v != &Value::Bool(false))
                || map.values().any(|v| has_annotation(v, key))
        }
        Value::Array(items) => items.iter().any(|v| has_annotation(v, key)),
        _ => false,
    }
}

/// The schema without `x-…` annotations (recursively).
fn strip_annotations(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !k.starts_with("x-"))
                .map(|(k, v)| (k.clone(), strip_annotations(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_annotations).collect()),
        other => other.clone(),
    }
}

fn properties(schema: &Value) -> impl Iterator<Item = (&String, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

fn required(schema: &Value) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn needs_authority_input(p: &Primitive) -> bool {
    properties(&p.inputs).any(|(_, s)| has_annotation(s, "x-authority"))
}

const PRIVILEGED: [Effect; 3] = [
    Effect::MintsPermission,
    Effect::RaisesSpend,
    Effect::CrossesWorkspace,
];

/// The primitives of each role.
struct Pools<'r> {
    steps: Vec<&'r Primitive>,
    decisions: Vec<&'r Primitive>,
    gates: Vec<&'r Primitive>,
    changes: Vec<&'r Primitive>,
    verifiers: Vec<&'r Primitive>,
    success: Vec<&'r Primitive>,
    failure: Vec<&'r Primitive>,
}

impl<'r> Pools<'r> {
    fn new(registry: &'r Registry) -> Result<Pools<'r>, GenerateError> {
        let all = registry.primitives();
        let ordinary = |p: &Primitive| {
            !p.requires_authorization
                && !p.terminal
                && !needs_authority_input(p)
                && !PRIVILEGED.iter().any(|e| p.has_effect(*e))
        };
        let steps: Vec<&Primitive> = all
            .iter()
            .filter(|p| {
                ordinary(p)
                    && p.outcomes.is_none()
                    && matches!(
                        p.class,
                        Class::Deterministic | Class::Retrieval | Class::Generation
                    )
            })
            .collect();
        let with_outcomes = |p: &Primitive| p.outcomes.as_ref().is_some_and(|o| o.len() >= 2);
        let decisions = all
            .iter()
            .filter(|p| ordinary(p) && p.class == Class::S1Decision && with_outcomes(p))
            .collect();
        let gates = all
            .iter()
            .filter(|p| {
                p.class == Class::Policy
                    && p.authority == Authority::Authorize
                    && !p.grants.is_empty()
                    && with_outcomes(p)
                    && !needs_authority_input(p)
                    && !p.terminal
            })
            .collect();
        let changes = all
            .iter()
            .filter(|p| p.requires_authorization && !p.terminal && p.class != Class::Policy)
            .collect();
        let verifiers = all
            .iter()
            .filter(|p| ordinary(p) && p.class == Class::Verification && with_outcomes(p))
            .collect();
        let terminals: Vec<&Primitive> = all
            .iter()
            .filter(|p| {
                p.terminal
                    && p.outcomes.is_none()
                    && !p.requires_authorization
                    && !needs_authority_input(p)
                    && !PRIVILEGED.iter().any(|e| p.has_effect(*e))
            })
            .collect();
        let named = |words: &[&str]| -> Vec<&'r Primitive> {
            terminals
                .iter()
                .copied()
                .filter(|p| words.iter().any(|w| p.id.contains(w)))
                .collect()
        };
        let mut success = named(&["success", "finish", "answer"]);
        let mut failure = named(&["fail", "give_up", "escalat"]);
        if success.is_empty() {
            success = terminals.clone();
        }
        if failure.is_empty() {
            failure = terminals.clone();
        }
        if steps.is_empty() {
            return Err(GenerateError::MissingPool("ordinary step"));
        }
        if terminals.is_empty() {
            return Err(GenerateError::MissingPool("terminal"));
        }
        Ok(Pools {
            steps,
            decisions,
            gates,
            changes,
            verifiers,
            success,
            failure,
        })
    }
}

/// An edge still to be connected to whatever comes next.
#[derive(Debug, Clone)]
enum Hole {
    Next(usize),
    Branch(usize, String),
}

struct Node<'r> {
    id: String,
    prim: &'r Primitive,
    next: Option<usize>,
    branches: BTreeMap<String, usize>,
    on_error: BTreeMap<String, usize>,
    max_visits: Option<u32>,
    inputs: Map<String, Value>,
}

struct Builder<'r> {
    rng: Rng,
    pools: Pools<'r>,
    nodes: Vec<Node<'r>>,
    counter: HashMap<String, usize>,
}

impl<'r> Builder<'r> {
    fn add(&mut self, prim: &'r Primitive) -> usize {
        let short = prim.id.rsplit('.').next().unwrap_or("node");
        let count = self.counter.entry(short.to_string()).or_insert(0);
        *count += 1;
        let id = format!("{short}_{count}");
        self.nodes.push(Node {
            id,
            prim,
            next: None,
            branches: BTreeMap::new(),
            on_error: BTreeMap::new(),
            max_visits: None,
            inputs: Map::new(),
        });
        self.nodes.len() - 1
    }

    fn connect(&mut self, holes: &[Hole], target: usize) {
        for hole in holes {
            match hole {
                Hole::Next(a) => {
                    if let Some(node) = self.nodes.get_mut(*a) {
                        node.next = Some(target);
                    }
                }
                Hole::Branch(a, outcome) => {
                    if let Some(node) = self.nodes.get_mut(*a) {
                        node.branches.insert(outcome.clone(), target);
                    }
                }
            }
        }
    }

    /// The open edges of a node once placed: `next`, or one per outcome.
    fn exits(&self, node: usize) -> Vec<Hole> {
        match self.nodes.get(node).and_then(|n| n.prim.outcomes.as_ref()) {
            Some(outcomes) => outcomes
                .iter()
                .map(|o| Hole::Branch(node, o.clone()))
                .collect(),
            None => vec![Hole::Next(node)],
        }
    }

    fn terminal(&mut self, success: bool) -> usize {
        let pool = if success {
            &self.pools.success
        } else {
            &self.pools.failure
        };
        let prim = pool[self.rng.index(pool.len())];
        self.add(prim)
    }

    fn step(&mut self) -> usize {
        let prim = self.pools.steps[self.rng.index(self.pools.steps.len())];
        let node = self.add(prim);
        if !prim.failure_modes.is_empty() && self.rng.percent(15) {
            let mode = prim.failure_modes[self.rng.index(prim.failure_modes.len())].clone();
            let fail = self.terminal(false);
            self.nodes[node].on_error.insert(mode, fail);
        }
        node
    }

    /// A run of `len` steps; returns its first node and its open edges.
    fn chain(&mut self, holes: &[Hole], len: usize) -> Vec<Hole> {
        let mut holes = holes.to_vec();
        for _ in 0..len.max(1) {
            let node = self.step();
            self.connect(&holes, node);
            holes = vec![Hole::Next(node)];
        }
        holes
    }

    fn fan_out(&mut self, holes: &[Hole]) -> Vec<Hole> {
        let Some(&decision) = self.rng.pick(&self.pools.decisions) else {
            return self.chain(holes, 2);
        };
        let node = self.add(decision);
        self.connect(holes, node);
        let outcomes = decision.outcomes.clone().unwrap_or_default();
        let stop_arm = if outcomes.len() > 2 && self.rng.percent(50) {
            Some(self.rng.index(outcomes.len()))
        } else {
            None
        };
        let mut joined = Vec::new();
        for (k, outcome) in outcomes.iter().enumerate() {
            let arm = [Hole::Branch(node, outcome.clone())];
            if Some(k) == stop_arm {
                let fail = self.terminal(false);
                self.connect(&arm, fail);
            } else if self.rng.percent(30) {
                joined.extend(arm);
            } else {
                let len = 1 + self.rng.index(2);
                joined.extend(self.chain(&arm, len));
            }
        }
        joined
    }

    /// A gate, the change it grants and its verifier. Returns the open edges and the edges that
    /// leave the verifier on failure (for a loop to retry on), which are also among the open
    /// edges unless `retry` takes them.
    fn gated_change(&mut self, holes: &[Hole], retry: bool) -> (Vec<Hole>, Vec<Hole>) {
        let (Some(&gate), Some(&change)) = (
            self.rng.pick(&self.pools.gates),
            self.rng.pick(&self.pools.changes),
        ) else {
            return (self.chain(holes, 2), Vec::new());
        };
        let gate_node = self.add(gate);
        self.connect(holes, gate_node);
        let change_node = self.add(change);
        let mut open = Vec::new();
        for outcome in gate.outcomes.iter().flatten() {
            let hole = [Hole::Branch(gate_node, outcome.clone())];
            if gate.grants.contains(outcome) {
                self.connect(&hole, change_node);
            } else if self.rng.percent(70) {
                let fail = self.terminal(false);
                self.connect(&hole, fail);
            } else {
                open.extend(hole);
            }
        }
        let after_change = self.exits(change_node);
        let verifier = if change.requires_verifier || self.rng.percent(50) {
            self.rng.pick(&self.pools.verifiers).copied()
        } else {
            None
        };
        let Some(verifier) = verifier else {
            open.extend(after_change);
            return (open, Vec::new());
        };
        let check = self.add(verifier);
        self.connect(&after_change, check);
        for mode in &change.failure_modes {
            if self.rng.percent(60) {
                self.nodes[change_node].on_error.insert(mode.clone(), check);
            }
        }
        let mut failed = Vec::new();
        let outcomes = verifier.outcomes.clone().unwrap_or_default();
        let has_pass = outcomes.iter().any(|o| o == "pass");
        for (k, outcome) in outcomes.iter().enumerate() {
            let hole = Hole::Branch(check, outcome.clone());
            let passing = outcome == "pass" || (!has_pass && k == 0);
            if passing {
                open.push(hole);
            } else if retry {
                failed.push(hole);
            } else if self.rng.percent(50) {
                let fail = self.terminal(false);
                self.connect(&[hole], fail);
            } else {
                open.push(hole);
            }
        }
        if failed.is_empty() && retry {
            // A verifier with no failing outcome: retry is not possible through it.
            return (open, Vec::new());
        }
        (open, failed)
    }

    fn bounded_loop(&mut self, holes: &[Hole]) -> Vec<Hole> {
        let head = self.step();
        self.connect(holes, head);
        self.nodes[head].max_visits = Some(2 + self.rng.index(4) as u32);
        let mut open = vec![Hole::Next(head)];
        if self.rng.percent(50) {
            let len = 1 + self.rng.index(2);
            open = self.chain(&open, len);
        }
        if self.rng.percent(50) {
            let (after, failed) = self.gated_change(&open, true);
            if !failed.is_empty() {
                self.connect(&failed, head);
                return after;
            }
            open = after;
        }
        let Some(&decision) = self.rng.pick(&self.pools.decisions) else {
            return open;
        };
        let stop = self.add(decision);
        self.connect(&open, stop);
        let outcomes = decision.outcomes.clone().unwrap_or_default();
        let retry = outcomes
            .iter()
            .position(|o| o.contains("retry") || o.contains("continue") || o.contains("again"))
            .unwrap_or(outcomes.len().saturating_sub(1));
        let mut out = Vec::new();
        for (k, outcome) in outcomes.iter().enumerate() {
            let hole = [Hole::Branch(stop, outcome.clone())];
            if k == retry {
                self.connect(&hole, head);
            } else if k != 0 && (outcome.contains("give_up") || outcome.contains("fail")) {
                let fail = self.terminal(false);
                self.connect(&hole, fail);
            } else {
                out.extend(hole);
            }
        }
        out
    }
}

/// Bind every node's inputs on the finished control flow (see the module documentation).
/// Returns the graph's input schema.
fn bind(nodes: &mut [Node<'_>], rng: &mut Rng) -> Value {
    let n = nodes.len();
    let mut graph = DiGraph::<(), (), u32>::with_capacity(n, n * 2);
    for _ in 0..n {
        graph.add_node(());
    }
    for (i, node) in nodes.iter().enumerate() {
        let targets = node
            .next
            .iter()
            .chain(node.branches.values())
            .chain(node.on_error.values());
        for &t in targets {
            graph.add_edge(NodeIndex::new(i), NodeIndex::new(t), ());
        }
    }
    let dominators = simple_fast(&graph, NodeIndex::new(0));
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for v in 1..n {
        if let Some(idom) = dominators.immediate_dominator(NodeIndex::new(v)) {
            children[idom.index()].push(v);
        }
    }

    // Per output property name: the stack of dominating providers (node, schema, untrusted).
    let mut providers: HashMap<String, Vec<(usize, Value, bool)>> = HashMap::new();
    let mut tainted = vec![false; n];
    let mut input_props: Map<String, Value> = Map::new();
    let mut input_required: Vec<String> = Vec::new();
    const SCAN: usize = 8;

    enum Step {
        Enter(usize),
        Leave(usize),
    }
    let mut stack = vec![Step::Enter(0)];
    while let Some(step) = stack.pop() {
        let v = match step {
            Step::Leave(v) => {
                for (name, _) in properties(&nodes[v].prim.outputs) {
                    if let Some(list) = providers.get_mut(name) {
                        list.pop();
                    }
                }
                continue;
            }
            Step::Enter(v) => v,
        };
        let prim = nodes[v].prim;
        let needed = required(&prim.inputs);
        let mut inputs = Map::new();
        let mut reads_tainted = false;
        for (name, target) in properties(&prim.inputs) {
            let is_required = needed.contains(name.as_str());
            let authority = has_annotation(target, "x-authority");
            let sink = has_annotation(target, "x-sink");
            let want = strip_annotations(target);
            let found = providers.get(name).and_then(|list| {
                list.iter()
                    .rev()
                    .take(SCAN)
                    .find(|(source, schema, untrusted)| {
                        let source_prim = nodes[*source].prim;
                        if authority {
                            source_prim.class == Class::Policy
                                && has_annotation(schema, "x-authority")
                        } else {
                            strip_annotations(schema) == want
                                && !(sink && (*untrusted || tainted[*source]))
                        }
                    })
            });
            match found {
                Some((source, _, untrusted)) if is_required || rng.percent(50) => {
                    if nodes[*source].prim.class != Class::Policy
                        && nodes[*source].prim.class != Class::Verification
                    {
                        reads_tainted |= *untrusted || tainted[*source];
                    } else {
                        reads_tainted |= *untrusted;
                    }
                    inputs.insert(
                        name.clone(),
                        json!({"from": nodes[*source].id, "at": format!("/{}", crate::json::pointer::escape_token(name))}),
                    );
                }
                None if is_required && !authority => {
                    let mut key = name.clone();
                    let mut k = 1;
                    while input_props.get(&key).is_some_and(|s| s != &want) {
                        k += 1;
                        key = format!("{name}_{k}");
                    }
                    if !input_props.contains_key(&key) {
                        input_props.insert(key.clone(), want.clone());
                        input_required.push(key.clone());
                    }
                    inputs.insert(
                        name.clone(),
                        json!({"from": super::INPUT_WORD, "at": format!("/{}", crate::json::pointer::escape_token(&key))}),
                    );
                }
                _ => {}
            }
        }
        let sanitizes = matches!(prim.class, Class::Policy | Class::Verification);
        tainted[v] = reads_tainted && !sanitizes;
        nodes[v].inputs = inputs;
        let outputs_required = required(&prim.outputs);
        for (name, schema) in properties(&prim.outputs) {
            if outputs_required.contains(name.as_str()) {
                providers.entry(name.clone()).or_default().push((
                    v,
                    schema.clone(),
                    has_annotation(schema, "x-trust"),
                ));
            } else {
                // Keep the stack balanced for `Leave`: an optional output provides nothing.
                providers
                    .entry(name.clone())
                    .or_default()
                    .push((v, Value::Bool(false), true));
            }
        }
        stack.push(Step::Leave(v));
        for &c in children[v].iter().rev() {
            stack.push(Step::Enter(c));
        }
    }
    json!({
        "type": "object",
        "properties": Value::Object(input_props),
        "required": input_required,
        "additionalProperties": false,
    })
}

/// Generate a graph of about `nodes` nodes (at least a few) from `seed`, against `registry`.
pub fn generate(nodes: usize, seed: u64, registry: &Registry) -> Result<Value, GenerateError> {
    let pools = Pools::new(registry)?;
    let mut b = Builder {
        rng: Rng::new(seed ^ 0x005E_ED0F_A9E7_u64.rotate_left(17)),
        pools,
        nodes: Vec::with_capacity(nodes + 8),
        counter: HashMap::new(),
    };
    let first = b.step();
    let mut holes = b.exits(first);
    while b.nodes.len() + 1 < nodes {
        holes = match b.rng.index(10) {
            0..=2 => {
                let len = 1 + b.rng.index(4);
                b.chain(&holes, len)
            }
            3..=4 => b.fan_out(&holes),
            5..=7 => b.gated_change(&holes, false).0,
            _ => b.bounded_loop(&holes),
        };
    }
    let done = b.terminal(true);
    b.connect(&holes, done);
    let mut rng = b.rng.clone();
    let input = bind(&mut b.nodes, &mut rng);

    let n = b.nodes.len() as u64;
    let visits: u64 = b
        .nodes
        .iter()
        .filter_map(|node| node.max_visits)
        .map(u64::from)
        .sum();
    let max_steps = n.saturating_add(visits.saturating_mul(n + 1));
    let families: BTreeSet<String> = b
        .nodes
        .iter()
        .map(|node| {
            let prefix = node.prim.id.split('.').next().unwrap_or_default();
            format!("{prefix}.*")
        })
        .collect();
    let ids: Vec<String> = b.nodes.iter().map(|node| node.id.clone()).collect();
    let node_values: Vec<Value> = b
        .nodes
        .into_iter()
        .map(|node| {
            let mut object = Map::new();
            object.insert("id".into(), Value::String(node.id));
            object.insert("primitive".into(), Value::String(node.prim.id.clone()));
            if let Some(max) = node.max_visits {
                object.insert("max_visits".into(), json!(max));
            }
            if !node.inputs.is_empty() {
                object.insert("inputs".into(), Value::Object(node.inputs));
            }
            if let Some(next) = node.next {
                object.insert("next".into(), Value::String(ids[next].clone()));
            }
            if !node.branches.is_empty() {
                let branches: Map<String, Value> = node
                    .branches
                    .into_iter()
                    .map(|(k, t)| (k, Value::String(ids[t].clone())))
                    .collect();
                object.insert("branches".into(), Value::Object(branches));
            }
            if !node.on_error.is_empty() {
                let on_error: Map<String, Value> = node
                    .on_error
                    .into_iter()
                    .map(|(k, t)| (k, Value::String(ids[t].clone())))
                    .collect();
                object.insert("on_error".into(), Value::Object(on_error));
            }
            Value::Object(object)
        })
        .collect();
    Ok(json!({
        "graph": format!("generated-{nodes}-{seed}"),
        "abi": registry.abi(),
        "description": format!("Generated: {} nodes from seed {seed}.", node_values.len()),
        "capabilities": families.into_iter().collect::<Vec<_>>(),
        "budget": {"max_steps": max_steps, "max_spend_usd": 10.0},
        "input": input,
        "entry": ids.first().cloned().unwrap_or_default(),
        "nodes": node_values,
    }))
}
