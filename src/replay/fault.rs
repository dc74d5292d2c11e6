//! The toolkit a D code's injector uses to write one defect into a faithful run (`simulate
//! --faults`): [`FaultSite`], the run and what may be edited of it for one attempt, and the
//! helpers injectors share — picking a step, editing a line, changing a value, re-chaining the
//! lines into trace bytes. Each injector is `inject` in its code's file (`codes/d6xx_*.rs`,
//! beside the check that must catch it); the driver that chooses the code, reseals the result
//! and keeps it only when replay reports that code first is `src/simulate/faults.rs`.

use super::digest::{format_hash, sha256};
use super::graph::ReplayGraph;
use super::writer::{Plan, Step};
use crate::registry::Registry;
use crate::rng::Rng;
use serde_json::{Map, Value};

/// An injector: one candidate trace with a defect of its code, and the `seq` replay should
/// report it at; `None` when this run (or this attempt) offers no place for the defect.
pub(crate) type Injector = fn(&mut FaultSite<'_>) -> Option<(Vec<u8>, u64)>;

/// One faithful run offered to an injector for one attempt.
pub(crate) struct FaultSite<'a> {
    /// The graph and registry the candidate will be replayed against: they say what the run
    /// was allowed to do, and so what would break it.
    pub graph: &'a ReplayGraph,
    pub registry: &'a Registry,
    /// The faithful run as simulated (its steps, before any edit).
    pub plan: &'a Plan,
    /// The run's unsealed trace as JSON values, one a line: the header is line 0, so step `i`
    /// (0-based in `plan.steps`) is line `i + 1`. Injectors edit these and [`chain`] them.
    pub lines: Vec<Value>,
    /// The run's fault stream: every draw an injector takes comes from it, in a fixed order,
    /// so one seed gives one corpus.
    pub rng: &'a mut Rng,
    /// Which try at this code this is (0 to 5); injectors with two kinds of defect alternate
    /// on it, so a run that does not admit one can still get the other.
    pub attempt: u64,
    /// A walk of the same run's input that ignores `max_visits` (seeded by its argument), for
    /// the one defect no edit of a faithful run can write: a loop taken too often.
    pub looping_walk: &'a mut dyn FnMut(u64) -> Option<Plan>,
}

impl<'a> FaultSite<'a> {
    /// The site for one attempt: a fresh copy of the trace's lines, so an attempt starts from
    /// the faithful run whatever the attempt before it edited. `None` when the run cannot be
    /// written (it was written once already, so in practice never).
    pub(crate) fn new(
        graph: &'a ReplayGraph,
        registry: &'a Registry,
        plan: &'a Plan,
        rng: &'a mut Rng,
        attempt: u64,
        looping_walk: &'a mut dyn FnMut(u64) -> Option<Plan>,
    ) -> Option<Self> {
        Some(FaultSite {
            graph,
            registry,
            plan,
            lines: plan_lines(plan)?,
            rng,
            attempt,
            looping_walk,
        })
    }

    pub(crate) fn graph(&self) -> &'a ReplayGraph {
        self.graph
    }

    pub(crate) fn registry(&self) -> &'a Registry {
        self.registry
    }

    /// A step of the run that `wanted` accepts, drawn uniformly (its index in `plan.steps`);
    /// `None` when no step qualifies.
    pub(crate) fn pick_step(&mut self, wanted: impl Fn(&Step) -> bool) -> Option<usize> {
        let candidates: Vec<usize> = (0..self.plan.steps.len())
            .filter(|&i| self.plan.steps.get(i).is_some_and(&wanted))
            .collect();
        self.rng.pick(&candidates).copied()
    }
}

/// The bytes of `plan` as the writer records them, unsealed (the driver seals the result once
/// the defect is in).
pub(crate) fn unsealed_trace(plan: &Plan) -> Option<Vec<u8>> {
    plan.write(None).ok()
}

/// The trace of `plan` as JSON values, one a line (header first).
fn plan_lines(plan: &Plan) -> Option<Vec<Value>> {
    let bytes = unsealed_trace(plan)?;
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).ok())
        .collect()
}

/// Line `i` as a JSON object, to edit in place (`None` past the end or for a non-object).
pub(crate) fn line_object(lines: &mut [Value], i: usize) -> Option<&mut Map<String, Value>> {
    lines.get_mut(i)?.as_object_mut()
}

/// Serialize lines, recomputing every `prev` link from the line before it as serialized (the
/// header is the line before seq 1), so an edit leaves the chain intact and is the trace's only
/// defect.
pub(crate) fn chain(lines: &mut [Value]) -> Vec<u8> {
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

/// Serialize lines as they are, `prev` links untouched (for a defect in the chain itself).
pub(crate) fn join_lines(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

/// A value of the same JSON type as `v` but different from it (a string with text appended, a
/// number moved towards zero, an array one shorter, …), so a recorded field no longer matches.
pub(crate) fn mutate_value(v: &Value, rng: &mut Rng) -> Value {
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

/// Move `prev` back to the end of an event line after fields were removed or added, where the
/// writer puts it.
pub(crate) fn keep_prev_last(line: &mut Map<String, Value>) {
    let prev = line.remove("prev");
    if let Some(p) = prev {
        line.insert("prev".into(), p);
    }
}
