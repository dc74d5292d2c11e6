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
//!
//! The walk is in `walk`, the unbuffered long run of [`simulate_stream`] in `stream`, and the
//! fault-injection driver in `faults`; the injector that writes each code's defect is `inject`
//! in its file under `replay/codes/` (beside the check that must catch it), using the toolkit
//! of `replay/fault.rs`.

mod faults;
mod stream;
mod walk;

pub use faults::FAULT_CODES;
pub use stream::simulate_stream;

use faults::inject;
use walk::{Walker, distances_to_end};

use crate::replay::engine::Replayer;
use crate::replay::graph::ReplayGraph;
use crate::replay::report::Verdict;
use crate::replay::schema_gen::random_instance;
use crate::replay::seal::SealKey;
use crate::replay::trace::{TRACE_VERSION, TraceHeader};
use crate::replay::writer::{Plan, WriteError};
use crate::rng::Rng;
use serde_json::{Map, Value};

#[derive(Debug, Clone)]
pub struct SimOptions {
    pub seed: u64,
    /// Share of runs (0 to 1) that get one defect.
    pub fault_rate: f64,
    /// Chance that a step with declared failure modes ends in one.
    pub error_rate: f64,
    /// Chance that a decision takes only outcomes from which a success terminal can still be
    /// reached (when there are any): real agents mostly succeed, so a default corpus should
    /// too; the rest of the time every outcome within bounds is equally likely.
    pub success_bias: f64,
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
            // With these, about four runs in five of the example graphs end in success (as a
            // recorded corpus of a working agent would), the rest through a denied patch, a
            // give-up or an error route.
            error_rate: 0.02,
            success_bias: 0.9,
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
    Write(#[from] WriteError),
}

/// Simulate run `index` (0-based) of a corpus.
pub fn simulate_run(
    replayer: &Replayer<'_>,
    options: &SimOptions,
    index: u64,
) -> Result<SimRun, SimError> {
    let dist = distances_to_end(replayer);
    let success = walk::reaches_success(replayer);
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
            success: &success,
            success_bias: options.success_bias,
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
        let bytes = plan.write(options.seal.as_ref())?;
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
                    success: &success,
                    success_bias: 0.0,
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
            Some(s) => random_instance(s, input_rng),
            None => Value::Object(Map::new()),
        },
        imported: None,
        packs: (!g.packs.is_empty()).then(|| g.packs.clone()),
    }
}

/// The seed of task inputs (`SimOptions::tasks`): fixed, so every corpus shares them.
const TASK_SEED: u64 = 0x7a5c_0000_0000_0013;
