//! Synthetic traces (SPEC §4.3): `simulate` walks a graph from `entry` choosing outcomes,
//! errors and fallbacks with a seeded PRNG, generates outputs that satisfy the output schemas,
//! wires inputs exactly as replay recomputes them, carries the required evidence, honours
//! `max_visits` and the budget, and writes the run with `TraceWriter` (so chain and digest are
//! right). Every run is replayed before it is returned: a walk that would not replay `faithful`
//! is retried with fewer errors, and a graph that admits no faithful run is an error.
//!
//! With a fault rate, a seeded share of runs gets one defect of a known D code, verified by
//! replay to be the run's first divergence at the named `seq`; the sidecar
//! `NAME.expected.json` is `{"code": "D6xx", "seq": N}`.

use super::codes::d603::{Expected, select_next};
use super::codes::d605::recompute_input;
use super::digest::{format_hash, sha256};
use super::engine::Replayer;
use super::graph::{NodeIdx, ReplayGraph};
use super::report::Verdict;
use super::schema_gen::{Rng, generate};
use super::seal::SealKey;
use super::trace::{Cost, EndStatus, Evidence, StepError, StepEvent, TRACE_VERSION, TraceHeader};
use super::writer::{Step, StepResult, TraceWriter};
use crate::registry::{Class, PrimIdx};
use serde_json::{Map, Value};
use std::collections::VecDeque;

/// The fault kinds `--faults` can inject, each named by the code replay reports first.
pub const FAULT_CODES: &[&str] = &[
    "D601", "D603", "D604", "D605", "D606", "D607", "D608", "D609", "D610", "D611", "D612", "D614",
    "D615", "D616", "D617",
];

#[derive(Debug, Clone)]
pub struct SimOptions {
    pub seed: u64,
    /// Share of runs (0 to 1) that get one defect.
    pub fault_rate: f64,
    /// Chance that a step with declared failure modes ends in one.
    pub error_rate: f64,
    /// Step cap when the graph has no `budget.max_steps`.
    pub default_max_steps: u64,
    /// Take loops (within their bounds) until a run has this many steps: long traces for
    /// benchmarks.
    pub min_steps: u64,
    /// Seal every run with this key (`simulate --sign KEY`); a seeded defect is sealed too, so
    /// it stays the run's only defect.
    pub seal: Option<SealKey>,
    /// When positive, run `i` records task `i mod tasks`: its input is drawn from the graph's
    /// `input` schema by a generator seeded with the task number alone (not `seed`), so corpora
    /// of two graph versions with the same input schema share their tasks (`paired_success`).
    pub tasks: u64,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: 0,
            fault_rate: 0.0,
            error_rate: 0.15,
            default_max_steps: 200,
            min_steps: 0,
            seal: None,
            tasks: 0,
        }
    }
}

/// The defect a faulty run carries (the sidecar's content).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectedFault {
    pub code: &'static str,
    pub seq: u64,
}

impl InjectedFault {
    pub fn sidecar(&self) -> String {
        format!("{{\"code\":\"{}\",\"seq\":{}}}\n", self.code, self.seq)
    }
}

#[derive(Debug, Clone)]
pub struct SimRun {
    /// `run-000001` and so on: the file stem.
    pub name: String,
    pub trace: Vec<u8>,
    pub fault: Option<InjectedFault>,
}

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("the graph admits no faithful run the simulator could find (run {run}): {reason}")]
    NoFaithfulRun { run: u64, reason: String },
    #[error("cannot write the trace: {0}")]
    Write(#[from] super::writer::WriteError),
}

struct Plan {
    header: TraceHeader,
    steps: Vec<Step>,
    end: EndStatus,
}

/// Shortest number of steps from each node to the end of the run (over `next`/`branches`).
fn distances_to_end(replayer: &Replayer<'_>) -> Vec<u64> {
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

struct Walker<'a, 'r> {
    replayer: &'a Replayer<'r>,
    dist: &'a [u64],
    rng: Rng,
    visits: Vec<u32>,
    latest: Vec<Option<Value>>,
    error_rate: f64,
    max_steps: u64,
    /// Ignore `max_visits` and take the loops (the D611 fault), until a bound is passed.
    ignore_bounds: bool,
    /// Take the loops (within bounds) until the run has this many steps.
    min_steps: u64,
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
            out = generate(&p.outputs, &mut self.rng);
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

    fn walk(&mut self, run_input: &Value) -> Option<(Vec<Step>, EndStatus)> {
        let mut steps = Vec::new();
        let (_, end) = self.walk_into(run_input, &mut |s| {
            steps.push(s);
            true
        })?;
        Some((steps, end))
    }

    /// Walk, handing each step to `sink` (which returns `false` to stop); returns the number of
    /// steps and the end status.
    fn walk_into(
        &mut self,
        run_input: &Value,
        sink: &mut dyn FnMut(Step) -> bool,
    ) -> Option<(u64, EndStatus)> {
        let replayer = self.replayer;
        let g = replayer.graph();
        let registry = replayer.registry();
        let budget_nanos = g.max_spend_usd.map(super::engine::budget_nanos);
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
                    let failing = ["fail", "give_up", "escalat", "abort"]
                        .iter()
                        .any(|w| last.contains(w));
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
                && spent + super::trace::usd_to_nanos(usd).unwrap_or(0) > b / 2
            {
                usd = 0.0;
            }
            spent += super::trace::usd_to_nanos(usd).unwrap_or(0);
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

fn write_plan(plan: &Plan, seal: Option<&SealKey>) -> Result<Vec<u8>, SimError> {
    let mut w = TraceWriter::new(Vec::new(), &plan.header)?;
    if let Some(key) = seal {
        w = w.sealed(key.clone());
    }
    for s in &plan.steps {
        w.step(s)?;
    }
    w.end(plan.end)?;
    Ok(w.finish()?)
}

/// Simulate run `index` (0-based) of a corpus.
pub fn simulate_run(
    replayer: &Replayer<'_>,
    options: &SimOptions,
    index: u64,
) -> Result<SimRun, SimError> {
    let dist = distances_to_end(replayer);
    let g = replayer.graph();
    let name = format!("run-{:06}", index + 1);
    let mut last_reason = String::new();
    let attempts = 12;
    for attempt in 0..attempts {
        let mut rng = Rng::derive(options.seed, index, attempt);
        let header = run_header(g, options, index, &mut rng);
        let run_input = header.input.clone();
        let scale = 1.0 - attempt as f64 / (attempts - 1) as f64;
        let mut walker = Walker {
            replayer,
            dist: &dist,
            rng: rng.clone(),
            visits: vec![0; g.nodes.len()],
            latest: vec![None; g.nodes.len()],
            error_rate: options.error_rate * scale,
            max_steps: g.max_steps.unwrap_or(options.default_max_steps),
            ignore_bounds: false,
            min_steps: options.min_steps,
        };
        let Some((steps, end)) = walker.walk(&run_input) else {
            last_reason = "the walk found no way to a terminal node within the bounds".into();
            continue;
        };
        let plan = Plan { header, steps, end };
        let bytes = write_plan(&plan, options.seal.as_ref())?;
        let report = replayer.replay_slice(&name, &bytes);
        if report.verdict != Verdict::Faithful {
            last_reason = report
                .first_divergence
                .map(|f| format!("{} at seq {}", f.code, f.seq))
                .unwrap_or_default();
            continue;
        }
        let mut fault_rng = Rng::derive(options.seed ^ 0xfa17, index, 0);
        if options.fault_rate > 0.0 && fault_rng.chance(options.fault_rate) {
            let mut looping_walk = |k: u64| {
                let mut w = Walker {
                    replayer,
                    dist: &dist,
                    rng: Rng::derive(options.seed ^ 0xd611, index, k),
                    visits: vec![0; g.nodes.len()],
                    latest: vec![None; g.nodes.len()],
                    error_rate: 0.0,
                    max_steps: 10 * g.max_steps.unwrap_or(options.default_max_steps),
                    ignore_bounds: true,
                    min_steps: 0,
                };
                w.walk(&plan.header.input).map(|(steps, end)| Plan {
                    header: plan.header.clone(),
                    steps,
                    end,
                })
            };
            if let Some((trace, fault)) = inject(
                replayer,
                &plan,
                &mut fault_rng,
                options.seal.as_ref(),
                &mut looping_walk,
            ) {
                return Ok(SimRun {
                    name,
                    trace,
                    fault: Some(fault),
                });
            }
        }
        return Ok(SimRun {
            name,
            trace: bytes,
            fault: None,
        });
    }
    Err(SimError::NoFaithfulRun {
        run: index + 1,
        reason: last_reason,
    })
}

/// The trace as JSON values, one a line (header first).
fn plan_lines(plan: &Plan) -> Option<Vec<Value>> {
    let bytes = write_plan(plan, None).ok()?;
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).ok())
        .collect()
}

/// Serialize lines, recomputing `seq`-independent `prev` links (header is the line before seq 1).
fn chain(lines: &mut [Value]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev: Option<[u8; 32]> = None;
    for line in lines.iter_mut() {
        if let (Some(h), Value::Object(m)) = (prev, &mut *line)
            && m.contains_key("prev")
        {
            m.insert("prev".into(), Value::from(format_hash(&h)));
        }
        let text = line.to_string();
        prev = Some(sha256(text.as_bytes()));
        out.extend_from_slice(text.as_bytes());
        out.push(b'\n');
    }
    out
}

fn join_lines(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

/// Seal (again) the first end event of `bytes` with `key`, as a recorder holding the key would
/// have sealed the run it recorded; a trace without a readable end event is left as it is.
fn reseal(bytes: Vec<u8>, run: &str, key: &SealKey) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 200);
    let mut done = false;
    for piece in bytes.split_inclusive(|&b| b == b'\n') {
        let (line, newline) = match piece.strip_suffix(b"\n") {
            Some(l) => (l, true),
            None => (piece, false),
        };
        let resealed = if done {
            None
        } else {
            serde_json::from_slice::<Value>(line)
                .ok()
                .and_then(|mut v| {
                    let m = v.as_object_mut()?;
                    let end = m.get("end")?.as_str()?.to_string();
                    let seq = m.get("seq")?.as_u64()?;
                    let prev = m.get("prev")?.as_str()?.to_string();
                    m.insert("signer".into(), Value::from(key.signer()));
                    m.insert(
                        "sig".into(),
                        Value::from(key.sign_end(run, seq, &end, &prev)),
                    );
                    Some(v.to_string())
                })
        };
        match resealed {
            Some(text) => {
                done = true;
                out.extend_from_slice(text.as_bytes());
            }
            None => out.extend_from_slice(line),
        }
        if newline {
            out.push(b'\n');
        }
    }
    out
}

/// Try to give the run one defect of a seeded kind (falling back to other kinds); the result is
/// kept only when replay names exactly that code at exactly that `seq` first.
fn inject(
    replayer: &Replayer<'_>,
    plan: &Plan,
    rng: &mut Rng,
    seal: Option<&SealKey>,
    looping_walk: &mut dyn FnMut(u64) -> Option<Plan>,
) -> Option<(Vec<u8>, InjectedFault)> {
    let start = rng.below(FAULT_CODES.len() as u64) as usize;
    for k in 0..FAULT_CODES.len() {
        let code = FAULT_CODES[(start + k) % FAULT_CODES.len()];
        for attempt in 0..6u64 {
            let Some((bytes, seq)) = candidate(replayer, plan, code, rng, attempt, looping_walk)
            else {
                continue;
            };
            let bytes = match seal {
                Some(key) => reseal(bytes, &plan.header.run, key),
                None => bytes,
            };
            let report = replayer.replay_slice("<fault>", &bytes);
            if let Some(f) = &report.first_divergence
                && f.code == code
                && f.seq == seq
                && report
                    .diagnostics
                    .iter()
                    .all(|d| d.diagnostic.code != "D618")
            {
                return Some((bytes, InjectedFault { code, seq }));
            }
        }
    }
    None
}

fn obj(lines: &mut [Value], i: usize) -> Option<&mut Map<String, Value>> {
    lines.get_mut(i)?.as_object_mut()
}

fn mutate_value(v: &Value, rng: &mut Rng) -> Value {
    match v {
        Value::String(s) => Value::from(format!(
            "{s}{}",
            ["x", " (edited)", "!"][rng.below(3) as usize]
        )),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Value::from(if i > 0 { i - 1 } else { i + 1 }),
            None => Value::from(
                n.as_f64()
                    .map_or(0.5, |f| if f > 0.5 { f / 2.0 } else { f + 0.25 }),
            ),
        },
        Value::Bool(b) => Value::Bool(!b),
        Value::Array(a) if !a.is_empty() => Value::Array(a[..a.len() - 1].to_vec()),
        Value::Array(_) => Value::Array(vec![Value::from("extra")]),
        Value::Object(m) => {
            let mut m = m.clone();
            m.insert("edited".into(), Value::Bool(true));
            Value::Object(m)
        }
        Value::Null => Value::from(0),
    }
}

/// One candidate trace with a defect of `code`, and the `seq` it should be reported at.
fn candidate(
    replayer: &Replayer<'_>,
    plan: &Plan,
    code: &str,
    rng: &mut Rng,
    attempt: u64,
    looping_walk: &mut dyn FnMut(u64) -> Option<Plan>,
) -> Option<(Vec<u8>, u64)> {
    let registry = replayer.registry();
    let g = replayer.graph();
    let mut lines = plan_lines(plan)?;
    let n_steps = plan.steps.len();
    let pick_step = |rng: &mut Rng, filter: &dyn Fn(&Step) -> bool| -> Option<usize> {
        let idx: Vec<usize> = (0..n_steps)
            .filter(|&i| plan.steps.get(i).is_some_and(filter))
            .collect();
        rng.pick(&idx).copied()
    };
    match code {
        "D601" => {
            let h = obj(&mut lines, 0)?;
            h.insert("graph".into(), Value::from(format!("{}-other", g.name)));
            Some((chain(&mut lines), 0))
        }
        "D603" => {
            let i = pick_step(rng, &|_| true)?;
            let current = plan.steps.get(i)?.node.clone();
            let others: Vec<&str> = g
                .nodes
                .iter()
                .map(|n| n.id.as_str())
                .filter(|id| *id != current)
                .collect();
            let other = rng.pick(&others)?.to_string();
            obj(&mut lines, i + 1)?.insert("node".into(), Value::from(other));
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D604" => {
            let i = pick_step(rng, &|_| true)?;
            let current = plan.steps.get(i)?.primitive.clone();
            let all = registry.primitives();
            let other = all.get(rng.below(all.len() as u64) as usize)?;
            if other.id == current {
                return None;
            }
            obj(&mut lines, i + 1)?.insert("primitive".into(), Value::from(other.id.clone()));
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D605" => {
            let i = pick_step(rng, &|s| s.input.as_object().is_some_and(|m| !m.is_empty()))?;
            let line = obj(&mut lines, i + 1)?;
            let input = line.get_mut("input")?.as_object_mut()?;
            let keys: Vec<String> = input.keys().cloned().collect();
            let key = rng.pick(&keys)?.clone();
            let new = mutate_value(input.get(&key)?, rng);
            input.insert(key, new);
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D606" | "D607" => {
            let field = if code == "D606" { "input" } else { "output" };
            let i = pick_step(rng, &|s| {
                code == "D606" || matches!(s.result, StepResult::Output { .. })
            })?;
            let line = obj(&mut lines, i + 1)?;
            let target = line.get_mut(field)?.as_object_mut()?;
            if attempt.is_multiple_of(2) || target.is_empty() {
                target.insert("unexpected_field".into(), Value::from(true));
            } else {
                let keys: Vec<String> = target.keys().cloned().collect();
                let key = rng.pick(&keys)?.clone();
                target.insert(key, Value::Null);
            }
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D608" => {
            let i = pick_step(rng, &|s| !s.evidence.is_empty())?;
            obj(&mut lines, i + 1)?.insert("evidence".into(), Value::Array(Vec::new()));
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D609" => {
            let i = pick_step(rng, &|_| true)?;
            let line = obj(&mut lines, i + 1)?;
            line.remove("output");
            line.remove("outcome");
            line.insert(
                "error".into(),
                serde_json::json!({"mode": "undeclared_failure", "message": "injected"}),
            );
            // keep `prev` last, as the writer does
            let prev = line.remove("prev");
            if let Some(p) = prev {
                line.insert("prev".into(), p);
            }
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D610" => {
            let i = pick_step(rng, &|s| matches!(s.result, StepResult::Output { .. }))?;
            let line = obj(&mut lines, i + 1)?;
            line.insert("outcome".into(), Value::from("undeclared_outcome"));
            let prev = line.remove("prev");
            if let Some(p) = prev {
                line.insert("prev".into(), p);
            }
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D611" => {
            if !g.nodes.iter().any(|n| n.max_visits.is_some()) {
                return None;
            }
            let looping = looping_walk(attempt)?;
            let mut counts = vec![0u32; g.nodes.len()];
            for (i, s) in looping.steps.iter().enumerate() {
                let n = *g.index.get(&s.node)?;
                counts[n] += 1;
                if g.nodes.get(n)?.max_visits.is_some_and(|m| counts[n] > m) {
                    return Some((write_plan(&looping, None).ok()?, i as u64 + 1));
                }
            }
            None
        }
        "D612" => {
            let max = g.max_spend_usd?;
            let i = pick_step(rng, &|_| true)?;
            let line = obj(&mut lines, i + 1)?;
            let cost = line.get_mut("cost")?.as_object_mut()?;
            cost.insert("usd".into(), Value::from(max + 1.0));
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D614" => {
            if attempt.is_multiple_of(2) {
                // events after the end
                let seq = lines.len() as u64;
                let end = lines.last()?.clone();
                let mut extra = end;
                extra
                    .as_object_mut()?
                    .insert("seq".into(), Value::from(seq));
                lines.push(extra);
                Some((chain(&mut lines), seq))
            } else {
                // end right after a step at a non-terminal node
                let i = pick_step(rng, &|s| {
                    g.index
                        .get(&s.node)
                        .and_then(|&n| g.node(n))
                        .is_some_and(|n| !n.is_terminal())
                })?;
                let mut end = lines.last()?.clone();
                end.as_object_mut()?
                    .insert("seq".into(), Value::from(i as u64 + 2));
                end.as_object_mut()?
                    .insert("end".into(), Value::from("success"));
                lines.truncate(i + 2);
                lines.push(end);
                Some((chain(&mut lines), i as u64 + 2))
            }
        }
        "D615" => {
            let i = pick_step(rng, &|_| true)?;
            let mut bytes_lines = lines.clone();
            let line = obj(&mut bytes_lines, i + 1)?;
            let cost = line.get_mut("cost")?.as_object_mut()?;
            let tokens = cost.get("tokens").and_then(Value::as_u64).unwrap_or(0);
            cost.insert("tokens".into(), Value::from(tokens + 1));
            let _ = chain(&mut lines);
            // the original chain, with one line edited after it was chained
            let mut edited = lines.clone();
            if let Some(l) = edited.get_mut(i + 1) {
                *l = bytes_lines.get(i + 1)?.clone();
                if let (Some(m), Some(p)) = (
                    l.as_object_mut(),
                    lines.get(i + 1).and_then(|o| o.get("prev")).cloned(),
                ) {
                    m.insert("prev".into(), p);
                }
            }
            Some((join_lines(&edited), i as u64 + 2))
        }
        "D616" => {
            let i = pick_step(rng, &|_| true)?;
            let mut bytes = Vec::new();
            let chained = chain(&mut lines);
            let all: Vec<&[u8]> = chained
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .collect();
            for (k, l) in all.iter().enumerate() {
                if k == i + 1 {
                    let cut = l.len() / 2;
                    bytes.extend_from_slice(l.get(..cut)?);
                    if attempt % 2 == 1 {
                        // invalid JSON mid-file; the rest follows
                        bytes.push(b'\n');
                        continue;
                    }
                    // a truncated last line
                    return Some((bytes, i as u64 + 1));
                }
                bytes.extend_from_slice(l);
                bytes.push(b'\n');
            }
            Some((bytes, i as u64 + 1))
        }
        "D617" => {
            let i = pick_step(rng, &|_| true)?;
            let gap = 1 + rng.below(3);
            for l in lines.iter_mut().skip(i + 1) {
                let m = l.as_object_mut()?;
                let seq = m.get("seq").and_then(Value::as_u64)?;
                m.insert("seq".into(), Value::from(seq + gap));
            }
            Some((chain(&mut lines), i as u64 + 1 + gap))
        }
        _ => None,
    }
}

/// Write one long run straight to `out` without holding it in memory and without the replay
/// check `simulate_run` makes (for benchmark traces of any size; replay it to check it). Errors
/// are off so the walk cannot end early; returns the number of steps.
pub fn simulate_stream<W: std::io::Write>(
    replayer: &Replayer<'_>,
    options: &SimOptions,
    index: u64,
    out: W,
) -> Result<u64, SimError> {
    let dist = distances_to_end(replayer);
    let g = replayer.graph();
    let mut rng = Rng::derive(options.seed, index, 0);
    let header = run_header(g, options, index, &mut rng);
    let run_input = header.input.clone();
    let mut writer = TraceWriter::new(out, &header)?;
    if let Some(key) = &options.seal {
        writer = writer.sealed(key.clone());
    }
    let mut walker = Walker {
        replayer,
        dist: &dist,
        rng,
        visits: vec![0; g.nodes.len()],
        latest: vec![None; g.nodes.len()],
        error_rate: 0.0,
        max_steps: g.max_steps.unwrap_or(options.default_max_steps),
        ignore_bounds: false,
        min_steps: options.min_steps,
    };
    let mut failure = None;
    let walked = walker.walk_into(&run_input, &mut |step| match writer.step(&step) {
        Ok(_) => true,
        Err(e) => {
            failure = Some(e);
            false
        }
    });
    if let Some(e) = failure {
        return Err(e.into());
    }
    let Some((steps, end)) = walked else {
        return Err(SimError::NoFaithfulRun {
            run: index + 1,
            reason: "the walk found no way to a terminal node within the bounds".into(),
        });
    };
    writer.end(end)?;
    writer.finish()?;
    Ok(steps)
}

/// The header of simulated run `index`: its run id and an input generated from the graph's
/// `input` schema (an empty object without one).
fn run_header(g: &ReplayGraph, options: &SimOptions, index: u64, rng: &mut Rng) -> TraceHeader {
    let seed = options.seed;
    let mut task_rng;
    let input_rng = if options.tasks > 0 {
        task_rng = Rng::derive(TASK_SEED, index % options.tasks, 0);
        &mut task_rng
    } else {
        rng
    };
    TraceHeader {
        trace: TRACE_VERSION.into(),
        run: format!("sim-{seed}-{:06}", index + 1),
        graph: g.name.clone(),
        graph_digest: g.digest.clone(),
        abi: g.abi.clone(),
        input: match &g.input_schema {
            Some(s) => generate(s, input_rng),
            None => Value::Object(Map::new()),
        },
    }
}

/// The seed of task inputs (`SimOptions::tasks`): fixed, so every corpus shares them.
const TASK_SEED: u64 = 0x7a5c_0000_0000_0013;
