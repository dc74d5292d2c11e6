//! The simulator's walker: from `entry`, it chooses outcomes, errors and fallbacks with the
//! run's PRNG, honours `max_visits` and the step budget (or, for the D611 fault, takes loops
//! past them), generates outputs that satisfy the output schemas and wires inputs as replay
//! recomputes them.

use crate::registry::{Class, PrimIdx};
use crate::replay::codes::d605_input_differs::recompute_input;
use crate::replay::digest::{format_hash, sha256};
use crate::replay::engine::Replayer;
use crate::replay::graph::NodeIdx;
use crate::replay::next_node::{Expected, select_next};
use crate::replay::schema_gen::random_instance;
use crate::replay::trace::{Cost, EndStatus, Evidence, StepError, StepEvent};
use crate::replay::writer::{Step, StepResult};
use crate::rng::Rng;
use serde_json::{Map, Value};
use std::collections::VecDeque;

/// Shortest number of steps from each node to the end of the run (over `next`/`branches`).
pub(super) fn distances_to_end(replayer: &Replayer<'_>) -> Vec<u64> {
    let g = replayer.graph();
    let n = g.nodes.len();
    let mut preds: Vec<Vec<NodeIdx>> = vec![Vec::new(); n];
    for (i, node) in g.nodes.iter().enumerate() {
        let targets = node
            .next
            .iter()
            .copied()
            .chain(node.branches.iter().flat_map(|b| b.values().copied()));
        for t in targets.flatten() {
            if let Some(p) = preds.get_mut(t) {
                p.push(i);
            }
        }
    }
    let mut dist = vec![u64::MAX; n];
    let mut queue = VecDeque::new();
    for (i, node) in g.nodes.iter().enumerate() {
        if node.is_terminal() {
            dist[i] = 1;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        for &p in &preds[i] {
            if dist[p] == u64::MAX {
                dist[p] = dist[i] + 1;
                queue.push_back(p);
            }
        }
    }
    dist
}

/// Does a terminal node end a run in failure? (`failure` when its primitive names one; the
/// end status the walk records.)
pub(super) fn names_failure(primitive: &str) -> bool {
    ["fail", "give_up", "escalat", "abort"]
        .iter()
        .any(|w| primitive.contains(w))
}

/// For each node: can a terminal that ends the run in success be reached from it over `next` and
/// `branches`?
pub(super) fn reaches_success(replayer: &Replayer<'_>) -> Vec<bool> {
    let g = replayer.graph();
    let registry = replayer.registry();
    let n = g.nodes.len();
    let mut preds: Vec<Vec<NodeIdx>> = vec![Vec::new(); n];
    for (i, node) in g.nodes.iter().enumerate() {
        let targets = node
            .next
            .iter()
            .copied()
            .chain(node.branches.iter().flat_map(|b| b.values().copied()));
        for t in targets.flatten() {
            if let Some(p) = preds.get_mut(t) {
                p.push(i);
            }
        }
    }
    let mut reached = vec![false; n];
    let mut queue = VecDeque::new();
    for (i, node) in g.nodes.iter().enumerate() {
        if node.is_terminal() && !names_failure(&registry.get(node.primitive).id) {
            reached[i] = true;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        for &p in &preds[i] {
            if !reached[p] {
                reached[p] = true;
                queue.push_back(p);
            }
        }
    }
    reached
}

pub(super) struct Walker<'a, 'r> {
    pub(super) replayer: &'a Replayer<'r>,
    pub(super) dist: &'a [u64],
    /// [`reaches_success`] of every node.
    pub(super) success: &'a [bool],
    /// Chance that a decision keeps only the outcomes that can still end in success.
    pub(super) success_bias: f64,
    pub(super) rng: Rng,
    pub(super) visits: Vec<u32>,
    pub(super) latest: Vec<Option<Value>>,
    pub(super) error_rate: f64,
    pub(super) max_steps: u64,
    /// Ignore `max_visits` and take the loops (the D611 fault), until a bound is passed.
    pub(super) ignore_bounds: bool,
    /// Take the loops (within bounds) until the run has this many steps.
    pub(super) min_steps: u64,
}

impl Walker<'_, '_> {
    fn bound_ok(&self, node: NodeIdx, extra: u32) -> bool {
        if self.ignore_bounds {
            return true;
        }
        let g = self.replayer.graph();
        match g.node(node).and_then(|n| n.max_visits) {
            Some(m) => self.visits.get(node).copied().unwrap_or(0) + extra < m,
            None => true,
        }
    }

    /// Can the walk enter `node` (and the `next` chain after it) without passing a bound?
    fn can_enter(&self, node: Option<NodeIdx>) -> bool {
        let g = self.replayer.graph();
        let mut cur = node;
        for _ in 0..8 {
            let Some(i) = cur else { return false };
            if !self.bound_ok(i, 0) {
                return false;
            }
            match g.node(i).map(|n| (n.next, n.branches.is_some())) {
                Some((Some(next), false)) if next != Some(i) => cur = next,
                _ => return true,
            }
        }
        true
    }

    fn dist(&self, node: Option<NodeIdx>) -> u64 {
        node.and_then(|n| self.dist.get(n).copied())
            .unwrap_or(u64::MAX)
    }

    fn output_for(&mut self, prim: PrimIdx, outcome: Option<&str>) -> Value {
        let registry = self.replayer.registry();
        let p = registry.get(prim);
        let validator = self.replayer.output_validator(prim);
        let mut out = Value::Object(Map::new());
        for _ in 0..16 {
            out = random_instance(&p.outputs, &mut self.rng);
            if let (Some(o), Value::Object(m)) = (outcome, &mut out) {
                if m.contains_key("decision") || p.outputs.pointer("/properties/decision").is_some()
                {
                    m.insert("decision".into(), Value::from(o));
                }
                if p.class == Class::Verification
                    && p.outputs.pointer("/properties/passed").is_some()
                {
                    m.insert("passed".into(), Value::Bool(o == "pass"));
                }
            }
            if validator.is_none_or(|v| v.is_valid(&out)) {
                break;
            }
        }
        out
    }

    pub(super) fn walk(&mut self, run_input: &Value) -> Option<(Vec<Step>, EndStatus)> {
        let mut steps = Vec::new();
        let (_, end) = self.walk_into(run_input, &mut |s| {
            steps.push(s);
            true
        })?;
        Some((steps, end))
    }

    /// Walk, handing each step to `sink` (which returns `false` to stop); returns the number of
    /// steps and the end status.
    pub(super) fn walk_into(
        &mut self,
        run_input: &Value,
        sink: &mut dyn FnMut(Step) -> bool,
    ) -> Option<(u64, EndStatus)> {
        let replayer = self.replayer;
        let g = replayer.graph();
        let registry = replayer.registry();
        let budget_nanos = g.max_spend_usd.map(crate::replay::engine::budget_nanos);
        let mut spent: u64 = 0;
        let mut count: u64 = 0;
        let mut last = String::new();
        let mut expected = Expected::start(g);
        loop {
            let (node, prim, fallback) = match expected {
                Expected::Node {
                    node,
                    primitive,
                    fallback,
                } => (node, primitive, fallback),
                Expected::End { must_fail } => {
                    let failing = names_failure(&last);
                    let status = if must_fail || failing {
                        EndStatus::Failure
                    } else {
                        EndStatus::Success
                    };
                    return Some((count, status));
                }
                Expected::Stuck { .. } | Expected::Free => return None,
            };
            let seq = count + 1;
            if seq > self.max_steps {
                return None;
            }
            let n = g.node(node)?;
            let p = registry.get(prim);
            let declared = if fallback {
                p.inputs.get("properties").and_then(Value::as_object)
            } else {
                None
            };
            let input = Value::Object(recompute_input(
                &n.inputs,
                run_input,
                |i| self.latest.get(i).and_then(Option::as_ref),
                declared,
            ));
            let remaining = self.max_steps - seq;
            // An error: only where its route stays within bounds and leaves room to finish.
            let mut result = None;
            if !p.failure_modes.is_empty()
                && remaining > 2 * self.dist(Some(node))
                && self.rng.chance(self.error_rate)
            {
                let mode = self.rng.pick(&p.failure_modes).cloned().unwrap_or_default();
                let handler = n
                    .on_error
                    .get(&mode)
                    .or_else(|| n.on_error.get("*"))
                    .copied();
                let ok = match handler {
                    Some(target) => self.can_enter(target),
                    None => match p.fallback.as_deref().and_then(|f| registry.lookup(f)) {
                        Some(_) => self.bound_ok(node, 1),
                        None => true,
                    },
                };
                if ok {
                    result = Some(StepResult::Error(StepError {
                        mode,
                        message: "simulated failure".into(),
                    }));
                }
            }
            let result = match result {
                Some(r) => r,
                None => {
                    let outcome = match (&p.outcomes, &n.branches) {
                        (Some(outcomes), Some(branches)) => {
                            let target = |o: &String| {
                                branches
                                    .get(o)
                                    .or_else(|| branches.get("*"))
                                    .copied()
                                    .flatten()
                            };
                            let mut choices: Vec<&String> = outcomes
                                .iter()
                                .filter(|o| self.can_enter(target(o)))
                                .collect();
                            let hopeful = |o: &&String| {
                                target(o).is_some_and(|t| self.success.get(t) == Some(&true))
                            };
                            if self.success_bias > 0.0
                                && choices.iter().any(hopeful)
                                && self.rng.chance(self.success_bias)
                            {
                                choices.retain(hopeful);
                            }
                            let over_a_bound = g.nodes.iter().enumerate().any(|(i, n)| {
                                n.max_visits
                                    .is_some_and(|m| self.visits.get(i).copied().unwrap_or(0) > m)
                            });
                            if (self.ignore_bounds && !over_a_bound) || seq < self.min_steps {
                                let far = choices
                                    .iter()
                                    .map(|o| self.dist(target(o)))
                                    .max()
                                    .unwrap_or(0);
                                choices.retain(|o| self.dist(target(o)) == far);
                            }
                            let tight =
                                choices.iter().any(|o| self.dist(target(o)) + 4 > remaining);
                            let late = seq > self.max_steps / 2 || over_a_bound;
                            if (tight || choices.len() > 1 && late) && seq >= self.min_steps {
                                let best = choices
                                    .iter()
                                    .map(|o| self.dist(target(o)))
                                    .min()
                                    .unwrap_or(u64::MAX);
                                choices.retain(|o| self.dist(target(o)) == best);
                            }
                            Some(
                                self.rng
                                    .pick(&choices)
                                    .map(|o| (*o).clone())
                                    .or_else(|| outcomes.first().cloned())?,
                            )
                        }
                        (Some(outcomes), None) => outcomes.first().cloned(),
                        _ => None,
                    };
                    let output = self.output_for(prim, outcome.as_deref());
                    StepResult::Output { output, outcome }
                }
            };
            let evidence = p
                .evidence
                .iter()
                .map(|kind| Evidence {
                    kind: kind.clone(),
                    digest: format_hash(&sha256(
                        format!("{}:{seq}:{kind}", self.rng.next_u64()).as_bytes(),
                    )),
                })
                .collect();
            let mut usd = self.rng.below(200) as f64 / 10_000.0;
            if let Some(b) = budget_nanos
                && spent + crate::replay::trace::usd_to_nanos(usd).unwrap_or(0) > b / 2
            {
                usd = 0.0;
            }
            spent += crate::replay::trace::usd_to_nanos(usd).unwrap_or(0);
            let cost = Some(Cost {
                usd,
                tokens: self.rng.below(4000),
            });
            let step = Step {
                node: n.id.clone(),
                primitive: p.id.clone(),
                input,
                result,
                evidence,
                cost,
            };
            let event = StepEvent {
                seq,
                node: step.node.clone(),
                primitive: step.primitive.clone(),
                input: Value::Null,
                result: match &step.result {
                    StepResult::Output { .. } => Ok(Value::Null),
                    StepResult::Error(e) => Err(e.clone()),
                },
                outcome: match &step.result {
                    StepResult::Output { outcome, .. } => outcome.clone(),
                    StepResult::Error(_) => None,
                },
                evidence: Vec::new(),
                cost: Cost::default(),
                prev: None,
                source_name: None,
                unmapped: false,
                partial: false,
                evidence_paths: Vec::new(),
            };
            let (next, _grant) = select_next(registry, g, node, prim, &event);
            if let Some(v) = self.visits.get_mut(node) {
                *v += 1;
            }
            if let Some(slot) = self.latest.get_mut(node) {
                *slot = match &step.result {
                    StepResult::Output { output, .. } => Some(output.clone()),
                    StepResult::Error(_) => None,
                };
            }
            count += 1;
            last.clone_from(&step.primitive);
            if !sink(step) {
                return None;
            }
            expected = next;
        }
    }
}
