//! The corpus summary (SPEC §4.3): runs by verdict, by end status and by seal status, diagnostics by code, visits
//! per node, failure modes per primitive, steps and spend as sums and fixed-bucket histograms,
//! and first-divergence sites. It is a commutative monoid — `Summary::default()` is the unit and
//! `merge` is associative and commutative, with integer counts only (spend in nano-USD) — so a
//! corpus split across threads, processes or machines sums to exactly the same figures.
//!
//! For comparing evaluations (SPEC §6.3) it also holds, as exactly: the runs and successes per
//! task (a task is the run's header `input`, keyed by [`task_key`]), the sums of squares of
//! steps and of spend (nano-USD), so that means and variances are exact, and the steps run by
//! each primitive (the denominator of its failure rate). The file `replay --summary-out` writes
//! and `compare` reads, and a summary read back from JSON, are `summary_file.rs`.

use super::report::RunReport;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

pub use super::digest::task_key;

/// Runs of one task, and how many of them ended `success`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskCounts {
    pub runs: u64,
    pub successes: u64,
}

/// One primitive's failure counts summed run by run, so that its failure rate can have an
/// interval that takes the run, not the step, as the unit (steps of one run are correlated: a
/// run that loops on a failing patch fails ten times). With `e` a run's error steps of the
/// primitive and `s` its steps of it, over the runs that ran it: how many, `Σs²`, `Σe²` and
/// `Σe·s` (`Σe` and `Σs` are the summary's `failure_modes` and `primitive_steps`). Integers, so
/// they merge exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrimitiveRuns {
    /// Runs that ran the primitive at least once.
    pub runs: u64,
    /// Σ over those runs of (steps of the primitive)².
    pub steps_sq: u128,
    /// Σ over those runs of (error steps of the primitive)².
    pub errors_sq: u128,
    /// Σ over those runs of error steps × steps of the primitive.
    pub errors_steps: u128,
}

/// Inclusive upper bounds of the step-count buckets; the last bucket is unbounded.
pub const STEP_BUCKETS: [u64; 12] = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 10000];
/// Inclusive upper bounds of the spend buckets, in nano-USD; the last bucket is unbounded.
pub const SPEND_BUCKETS_NANOS: [u64; 10] = [
    0,
    10_000_000,
    50_000_000,
    100_000_000,
    500_000_000,
    1_000_000_000,
    2_000_000_000,
    5_000_000_000,
    10_000_000_000,
    50_000_000_000,
];

pub(super) type Counts = BTreeMap<String, u64>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub runs: u64,
    pub by_verdict: Counts,
    pub by_end: Counts,
    /// Runs by seal status (`verified`, `unverified`, `absent`).
    pub by_seal: Counts,
    pub diagnostics_by_code: Counts,
    pub visits: Counts,
    pub failure_modes: BTreeMap<String, Counts>,
    pub steps_sum: u64,
    pub steps_histogram: [u64; STEP_BUCKETS.len() + 1],
    pub spend_nanos_sum: u128,
    pub spend_histogram: [u64; SPEND_BUCKETS_NANOS.len() + 1],
    /// node (or `(end)`, `(header)`, …) → code → runs whose first divergence is there.
    pub first_divergence_sites: BTreeMap<String, Counts>,
    /// Σ steps² over runs.
    pub steps_sq_sum: u128,
    /// Σ spend² over runs, spend in nano-USD.
    pub spend_nanos_sq_sum: u128,
    /// Steps by the primitive that ran them.
    pub primitive_steps: Counts,
    /// Task key → runs and successes (runs whose header could not be read have no task).
    pub tasks: BTreeMap<String, TaskCounts>,
    /// Primitive → its failure counts summed run by run. `None` when some of the runs were
    /// summed by a primgraph that did not keep them (a version 1 summary file): `None` absorbs
    /// in a merge, and `compare` then gives `failure_rate` no interval, saying why.
    pub primitive_runs: Option<BTreeMap<String, PrimitiveRuns>>,
    /// Runs imported from another tool (SPEC §10); written as `"imported"` when not zero.
    pub imported: u64,
}

impl Default for Summary {
    /// The empty summary, the monoid's unit.
    fn default() -> Summary {
        Summary {
            runs: 0,
            by_verdict: Counts::new(),
            by_end: Counts::new(),
            by_seal: Counts::new(),
            diagnostics_by_code: Counts::new(),
            visits: Counts::new(),
            failure_modes: BTreeMap::new(),
            steps_sum: 0,
            steps_histogram: [0; STEP_BUCKETS.len() + 1],
            spend_nanos_sum: 0,
            spend_histogram: [0; SPEND_BUCKETS_NANOS.len() + 1],
            first_divergence_sites: BTreeMap::new(),
            steps_sq_sum: 0,
            spend_nanos_sq_sum: 0,
            primitive_steps: Counts::new(),
            tasks: BTreeMap::new(),
            primitive_runs: Some(BTreeMap::new()),
            imported: 0,
        }
    }
}

fn bucket(bounds: &[u64], x: u64) -> usize {
    bounds.iter().position(|&b| x <= b).unwrap_or(bounds.len())
}

/// The two passes of an addition to a summary: `Check` computes every sum with checked
/// arithmetic and changes nothing, `Apply` then writes them. An `add` or `merge` runs both, so a
/// sum that would overflow leaves the summary as it was. Every slot is touched at most once per
/// pass, so the check sees exactly the sums the apply writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Check,
    Apply,
}

fn overflow(pointer: String) -> SummaryError {
    SummaryError::at(
        pointer,
        "this count would pass the largest the summary holds (2^64 − 1 for counts, 2^128 − 1 for \
         sums of squares and nano-USD): the sum cannot be represented exactly",
    )
}

/// `*slot += x` in `pass`, or the pointer `at()` of a sum that does not fit.
fn add_u64(
    pass: Pass,
    slot: &mut u64,
    x: u64,
    at: impl FnOnce() -> String,
) -> Result<(), SummaryError> {
    let sum = slot.checked_add(x).ok_or_else(|| overflow(at()))?;
    if pass == Pass::Apply {
        *slot = sum;
    }
    Ok(())
}

fn add_u128(
    pass: Pass,
    slot: &mut u128,
    x: u128,
    at: impl FnOnce() -> String,
) -> Result<(), SummaryError> {
    let sum = slot.checked_add(x).ok_or_else(|| overflow(at()))?;
    if pass == Pass::Apply {
        *slot = sum;
    }
    Ok(())
}

fn pointer(parts: &[&str]) -> String {
    let mut p = String::new();
    for part in parts {
        p.push('/');
        p.push_str(&crate::json::pointer::escape_token(part));
    }
    p
}

/// `into[key] += x` (an absent key is 0).
fn add_key(
    pass: Pass,
    into: &mut Counts,
    key: &str,
    x: u64,
    at: &[&str],
) -> Result<(), SummaryError> {
    match into.get_mut(key) {
        Some(slot) => add_u64(pass, slot, x, || pointer(&[at, &[key]].concat())),
        None => {
            if pass == Pass::Apply {
                into.insert(key.to_string(), x);
            }
            Ok(())
        }
    }
}

fn add_counts(
    pass: Pass,
    into: &mut Counts,
    from: &Counts,
    at: &[&str],
) -> Result<(), SummaryError> {
    for (k, &v) in from {
        add_key(pass, into, k, v, at)?;
    }
    Ok(())
}

fn add_nested(
    pass: Pass,
    into: &mut BTreeMap<String, Counts>,
    from: &BTreeMap<String, Counts>,
    at: &str,
) -> Result<(), SummaryError> {
    for (k, inner) in from {
        match into.get_mut(k) {
            Some(mine) => add_counts(pass, mine, inner, &[at, k])?,
            None => {
                if pass == Pass::Apply {
                    into.insert(k.clone(), inner.clone());
                }
            }
        }
    }
    Ok(())
}

fn add_task(
    pass: Pass,
    tasks: &mut BTreeMap<String, TaskCounts>,
    key: &str,
    add: TaskCounts,
) -> Result<(), SummaryError> {
    match tasks.get_mut(key) {
        Some(mine) => {
            add_u64(pass, &mut mine.runs, add.runs, || {
                pointer(&["tasks", key, "runs"])
            })?;
            add_u64(pass, &mut mine.successes, add.successes, || {
                pointer(&["tasks", key, "successes"])
            })
        }
        None => {
            if pass == Pass::Apply {
                tasks.insert(key.to_string(), add);
            }
            Ok(())
        }
    }
}

fn add_primitive_runs(
    pass: Pass,
    into: &mut BTreeMap<String, PrimitiveRuns>,
    key: &str,
    add: PrimitiveRuns,
) -> Result<(), SummaryError> {
    match into.get_mut(key) {
        Some(mine) => {
            let at = |field: &str| pointer(&["primitive_runs", key, field]);
            add_u64(pass, &mut mine.runs, add.runs, || at("runs"))?;
            add_u128(pass, &mut mine.steps_sq, add.steps_sq, || {
                at("steps_sum_squares")
            })?;
            add_u128(pass, &mut mine.errors_sq, add.errors_sq, || {
                at("errors_sum_squares")
            })?;
            add_u128(pass, &mut mine.errors_steps, add.errors_steps, || {
                at("errors_steps_sum")
            })
        }
        None => {
            if pass == Pass::Apply {
                into.insert(key.to_string(), add);
            }
            Ok(())
        }
    }
}

fn add_histogram(pass: Pass, into: &mut [u64], from: &[u64], at: &str) -> Result<(), SummaryError> {
    for (i, (a, &b)) in into.iter_mut().zip(from).enumerate() {
        add_u64(pass, a, b, || format!("/{at}/histogram/{i}/runs"))?;
    }
    Ok(())
}

impl Summary {
    /// The summary of one run.
    pub fn of_run(run: &RunReport) -> Summary {
        let mut s = Summary::default();
        // Every figure of one run fits the empty summary.
        let _ = s.add(run);
        s
    }

    /// Add one run. Every sum is checked: a count that would pass 2^64 − 1 (or a sum of squares
    /// 2^128 − 1) is an error naming the field's JSON pointer, and leaves the summary unchanged.
    pub fn add(&mut self, run: &RunReport) -> Result<(), SummaryError> {
        self.add_pass(Pass::Check, run)?;
        self.add_pass(Pass::Apply, run)
    }

    fn add_pass(&mut self, pass: Pass, run: &RunReport) -> Result<(), SummaryError> {
        add_u64(pass, &mut self.runs, 1, || "/runs".into())?;
        add_u64(pass, &mut self.imported, u64::from(run.imported), || {
            "/imported".into()
        })?;
        add_key(
            pass,
            &mut self.by_verdict,
            run.verdict.as_str(),
            1,
            &["by_verdict"],
        )?;
        let end = run.end.map_or("none", |e| e.as_str());
        add_key(pass, &mut self.by_end, end, 1, &["by_end"])?;
        add_key(pass, &mut self.by_seal, run.seal.as_str(), 1, &["by_seal"])?;
        add_counts(
            pass,
            &mut self.diagnostics_by_code,
            &run.stats.codes,
            &["diagnostics_by_code"],
        )?;
        add_counts(pass, &mut self.visits, &run.stats.visits, &["visits"])?;
        add_nested(
            pass,
            &mut self.failure_modes,
            &run.stats.failure_modes,
            "failure_modes",
        )?;
        add_u64(pass, &mut self.steps_sum, run.steps, || "/steps/sum".into())?;
        let b = bucket(&STEP_BUCKETS, run.steps);
        add_u64(pass, &mut self.steps_histogram[b], 1, || {
            format!("/steps/histogram/{b}/runs")
        })?;
        let spend = u128::from(run.stats.spend_nanos);
        add_u128(pass, &mut self.spend_nanos_sum, spend, || {
            "/spend_usd/sum_nanos".into()
        })?;
        let b = bucket(&SPEND_BUCKETS_NANOS, run.stats.spend_nanos);
        add_u64(pass, &mut self.spend_histogram[b], 1, || {
            format!("/spend_usd/histogram/{b}/runs")
        })?;
        // A u64 squared fits a u128.
        let steps = u128::from(run.steps);
        add_u128(pass, &mut self.steps_sq_sum, steps * steps, || {
            "/steps/sum_squares".into()
        })?;
        add_u128(pass, &mut self.spend_nanos_sq_sum, spend * spend, || {
            "/spend_usd/sum_squares_nanos".into()
        })?;
        add_counts(
            pass,
            &mut self.primitive_steps,
            &run.stats.primitive_steps,
            &["primitive_steps"],
        )?;
        if let Some(task) = &run.stats.task {
            let success = run.end == Some(super::trace::EndStatus::Success);
            let one = TaskCounts {
                runs: 1,
                successes: u64::from(success),
            };
            add_task(pass, &mut self.tasks, task, one)?;
        }
        if let Some(f) = &run.first_divergence {
            let at = ["first_divergence_sites", f.site.as_str()];
            match self.first_divergence_sites.get_mut(&f.site) {
                Some(codes) => add_key(pass, codes, &f.code, 1, &at)?,
                None => {
                    if pass == Pass::Apply {
                        let codes = Counts::from([(f.code.to_string(), 1)]);
                        self.first_divergence_sites.insert(f.site.clone(), codes);
                    }
                }
            }
        }
        if let Some(per_primitive) = &mut self.primitive_runs {
            for (prim, &steps) in &run.stats.primitive_steps {
                let errors = run
                    .stats
                    .failure_modes
                    .get(prim)
                    .map_or(0u128, |modes| modes.values().map(|&n| u128::from(n)).sum());
                let steps = u128::from(steps);
                let one = PrimitiveRuns {
                    runs: 1,
                    steps_sq: steps * steps,
                    // Error steps never exceed steps (each is a step), so these fit too.
                    errors_sq: errors.saturating_mul(errors),
                    errors_steps: errors.saturating_mul(steps),
                };
                add_primitive_runs(pass, per_primitive, prim, one)?;
            }
        }
        Ok(())
    }

    /// Add `other` into this summary: exact, commutative and associative. Every sum is checked:
    /// one that would pass 2^64 − 1 (2^128 − 1 for sums of squares and nano-USD) is an error
    /// naming the field's JSON pointer, and leaves this summary unchanged.
    pub fn merge(&mut self, other: &Summary) -> Result<(), SummaryError> {
        self.merge_pass(Pass::Check, other)?;
        self.merge_pass(Pass::Apply, other)
    }

    fn merge_pass(&mut self, pass: Pass, other: &Summary) -> Result<(), SummaryError> {
        add_u64(pass, &mut self.runs, other.runs, || "/runs".into())?;
        add_u64(pass, &mut self.imported, other.imported, || {
            "/imported".into()
        })?;
        add_counts(
            pass,
            &mut self.by_verdict,
            &other.by_verdict,
            &["by_verdict"],
        )?;
        add_counts(pass, &mut self.by_end, &other.by_end, &["by_end"])?;
        add_counts(pass, &mut self.by_seal, &other.by_seal, &["by_seal"])?;
        add_counts(
            pass,
            &mut self.diagnostics_by_code,
            &other.diagnostics_by_code,
            &["diagnostics_by_code"],
        )?;
        add_counts(pass, &mut self.visits, &other.visits, &["visits"])?;
        add_nested(
            pass,
            &mut self.failure_modes,
            &other.failure_modes,
            "failure_modes",
        )?;
        add_u64(pass, &mut self.steps_sum, other.steps_sum, || {
            "/steps/sum".into()
        })?;
        add_histogram(
            pass,
            &mut self.steps_histogram,
            &other.steps_histogram,
            "steps",
        )?;
        add_u128(
            pass,
            &mut self.spend_nanos_sum,
            other.spend_nanos_sum,
            || "/spend_usd/sum_nanos".into(),
        )?;
        add_histogram(
            pass,
            &mut self.spend_histogram,
            &other.spend_histogram,
            "spend_usd",
        )?;
        add_nested(
            pass,
            &mut self.first_divergence_sites,
            &other.first_divergence_sites,
            "first_divergence_sites",
        )?;
        add_u128(pass, &mut self.steps_sq_sum, other.steps_sq_sum, || {
            "/steps/sum_squares".into()
        })?;
        add_u128(
            pass,
            &mut self.spend_nanos_sq_sum,
            other.spend_nanos_sq_sum,
            || "/spend_usd/sum_squares_nanos".into(),
        )?;
        add_counts(
            pass,
            &mut self.primitive_steps,
            &other.primitive_steps,
            &["primitive_steps"],
        )?;
        for (task, &c) in &other.tasks {
            add_task(pass, &mut self.tasks, task, c)?;
        }
        match (&mut self.primitive_runs, &other.primitive_runs) {
            (Some(mine), Some(theirs)) => {
                for (prim, &r) in theirs {
                    add_primitive_runs(pass, mine, prim, r)?;
                }
            }
            // Runs summed without them make the whole incomplete.
            (mine, _) => {
                if pass == Pass::Apply {
                    *mine = None;
                }
            }
        }
        Ok(())
    }

    /// Runs that ended `success`.
    pub fn successes(&self) -> u64 {
        self.by_end.get("success").copied().unwrap_or(0)
    }

    /// Runs whose verdict is `faithful`.
    pub fn faithful(&self) -> u64 {
        self.by_verdict.get("faithful").copied().unwrap_or(0)
    }

    /// Error steps of a primitive: the sum of its failure modes.
    pub fn error_steps(&self, primitive: &str) -> u64 {
        self.failure_modes.get(primitive).map_or(0, |modes| {
            modes.values().fold(0u64, |a, &b| a.saturating_add(b))
        })
    }

    /// Runs that are not faithful.
    pub fn unfaithful(&self) -> u64 {
        self.runs.saturating_sub(self.faithful())
    }

    fn histogram(bounds: &[u64], counts: &[u64], scale: f64) -> Value {
        let mut out: Vec<Value> = bounds
            .iter()
            .zip(counts)
            .map(|(&b, &c)| {
                let le = if scale == 1.0 {
                    Value::from(b)
                } else {
                    Value::from(b as f64 / scale)
                };
                json!({"le": le, "runs": c})
            })
            .collect();
        out.push(json!({"le": null, "runs": counts.last().copied().unwrap_or(0)}));
        Value::Array(out)
    }

    /// Spend as USD (from the exact integer sum).
    pub fn spend_usd(&self) -> f64 {
        self.spend_nanos_sum as f64 / 1e9
    }

    pub fn to_json(&self) -> Value {
        let counts = |c: &Counts| {
            Value::Object(
                c.iter()
                    .map(|(k, v)| (k.clone(), Value::from(*v)))
                    .collect::<Map<_, _>>(),
            )
        };
        let nested = |c: &BTreeMap<String, Counts>| {
            Value::Object(
                c.iter()
                    .map(|(k, v)| (k.clone(), counts(v)))
                    .collect::<Map<_, _>>(),
            )
        };
        let mut m = Map::new();
        m.insert("runs".into(), Value::from(self.runs));
        if self.imported > 0 {
            m.insert("imported".into(), Value::from(self.imported));
        }
        m.insert("by_verdict".into(), counts(&self.by_verdict));
        m.insert("by_end".into(), counts(&self.by_end));
        m.insert("by_seal".into(), counts(&self.by_seal));
        m.insert(
            "diagnostics_by_code".into(),
            counts(&self.diagnostics_by_code),
        );
        m.insert("visits".into(), counts(&self.visits));
        m.insert("failure_modes".into(), nested(&self.failure_modes));
        m.insert(
            "steps".into(),
            json!({"sum": self.steps_sum, "sum_squares": big_integer(self.steps_sq_sum),
                   "histogram": Summary::histogram(&STEP_BUCKETS, &self.steps_histogram, 1.0)}),
        );
        m.insert(
            "spend_usd".into(),
            json!({"sum": self.spend_usd(), "sum_nanos": self.spend_nanos_sum.to_string(),
                   "sum_squares_nanos": self.spend_nanos_sq_sum.to_string(),
                   "histogram": Summary::histogram(&SPEND_BUCKETS_NANOS, &self.spend_histogram, 1e9)}),
        );
        m.insert(
            "first_divergence_sites".into(),
            nested(&self.first_divergence_sites),
        );
        m.insert("primitive_steps".into(), counts(&self.primitive_steps));
        m.insert(
            "tasks".into(),
            Value::Object(
                self.tasks
                    .iter()
                    .map(|(k, c)| (k.clone(), json!({"runs": c.runs, "successes": c.successes})))
                    .collect::<Map<_, _>>(),
            ),
        );
        if let Some(per_primitive) = &self.primitive_runs {
            m.insert(
                "primitive_runs".into(),
                Value::Object(
                    per_primitive
                        .iter()
                        .map(|(k, r)| {
                            let v = json!({
                                "runs": r.runs,
                                "steps_sum_squares": big_integer(r.steps_sq),
                                "errors_sum_squares": big_integer(r.errors_sq),
                                "errors_steps_sum": big_integer(r.errors_steps),
                            });
                            (k.clone(), v)
                        })
                        .collect::<Map<_, _>>(),
                ),
            );
        }
        Value::Object(m)
    }

    /// Whether the figures could come from folding run reports: every count of runs (by
    /// verdict, end, seal, histogram bucket) adds up to `runs`; each sum lies within what its
    /// histogram allows; each sum of squares lies between `(Σx)²/n` and `(Σx)²` (and at least
    /// `Σx`, the figures being integers); steps per primitive and visits add up to the steps;
    /// no primitive has more error steps than steps; first divergences are at most the
    /// unfaithful runs; a task has at least one run and no more successes than runs, and the
    /// tasks no more runs or successes than the summary; the per-run sums of each primitive are
    /// those of some runs (Cauchy–Schwarz both ways). The error names the JSON pointer of the
    /// figure that cannot be (relative to the summary).
    pub fn check(&self) -> Result<(), SummaryError> {
        consistency::check(self)
    }
}

/// A `u128` as a JSON number when it fits a `u64`, else as a decimal string (read back either way).
fn big_integer(x: u128) -> Value {
    match u64::try_from(x) {
        Ok(small) => Value::from(small),
        Err(_) => Value::from(x.to_string()),
    }
}

/// A summary that cannot be read: where (a JSON pointer, or a line and column for a file that is
/// not JSON) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("{}{message}", location_prefix(.line, .column, .pointer))]
pub struct SummaryError {
    /// The JSON pointer of the offending value (`""`: the document).
    pub pointer: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

fn location_prefix(line: &Option<usize>, column: &Option<usize>, pointer: &str) -> String {
    match (line, column) {
        (Some(l), Some(c)) if !pointer.is_empty() => format!("{l}:{c}: at {pointer}: "),
        (Some(l), Some(c)) => format!("{l}:{c}: "),
        _ if pointer.is_empty() => String::new(),
        _ => format!("at {pointer}: "),
    }
}

impl SummaryError {
    pub(super) fn at(pointer: impl Into<String>, message: impl Into<String>) -> SummaryError {
        SummaryError {
            pointer: pointer.into(),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// The same error with `prefix` before its pointer (a summary's error inside a file).
    pub(super) fn under(mut self, prefix: &str) -> SummaryError {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }
}

/// Which graph a summary's runs were replayed against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphIdentity {
    pub name: String,
    pub digest: String,
}

/// The figures no fold of run reports can give ([`Summary::check`]).
mod consistency {
    use super::*;
    use num_bigint::BigUint;

    fn refuse(pointer: String, message: String) -> Result<(), SummaryError> {
        Err(SummaryError::at(pointer, message))
    }

    fn total(c: &Counts) -> u128 {
        c.values().map(|&v| u128::from(v)).sum()
    }

    fn adds_up_to_runs(c: &Counts, runs: u64, at: &str, what: &str) -> Result<(), SummaryError> {
        let sum = total(c);
        if sum != u128::from(runs) {
            return refuse(
                format!("/{at}"),
                format!("the {what} add up to {sum}, but `runs` is {runs}"),
            );
        }
        Ok(())
    }

    fn big(x: u128) -> BigUint {
        BigUint::from(x)
    }

    /// `n` non-negative integers with sum `sum` and sum of squares `sum_sq`: `(Σx)² ≤ n·Σx²`
    /// (Cauchy–Schwarz: a variance is never negative), `Σx² ≤ (Σx)²` (no cross term is
    /// negative), and `Σx ≤ Σx²` (an integer is at most its square).
    fn squares(n: u64, sum: u128, sum_sq: u128, at: &str, what: &str) -> Result<(), SummaryError> {
        let square_of_sum = big(sum) * big(sum);
        if BigUint::from(n) * big(sum_sq) < square_of_sum {
            return refuse(
                at.to_string(),
                format!(
                    "the sum of squares of {what}, {sum_sq}, is below (Σx)²/n = {sum}²/{n}: the \
                     variance would be negative"
                ),
            );
        }
        if big(sum_sq) > square_of_sum {
            return refuse(
                at.to_string(),
                format!(
                    "the sum of squares of {what}, {sum_sq}, is above the square of their sum \
                     {sum}: non-negative figures cannot give it"
                ),
            );
        }
        if sum_sq < sum {
            return refuse(
                at.to_string(),
                format!(
                    "the sum of squares of {what}, {sum_sq}, is below their sum {sum}: whole \
                     numbers cannot give it"
                ),
            );
        }
        Ok(())
    }

    /// A sum lies between what its histogram's buckets allow: each run in bucket `i` has at
    /// least the bound below plus one and at most the bucket's own bound.
    fn within_histogram(
        bounds: &[u64],
        counts: &[u64],
        sum: u128,
        at: &str,
    ) -> Result<(), SummaryError> {
        let mut low = 0u128;
        let mut high = Some(0u128);
        for (i, &c) in counts.iter().enumerate() {
            let c = u128::from(c);
            let lower = match i {
                0 => 0,
                _ => u128::from(bounds[i - 1]) + 1,
            };
            low = low.saturating_add(lower.saturating_mul(c));
            high = match (high, bounds.get(i)) {
                (Some(h), Some(&b)) => Some(h.saturating_add(u128::from(b).saturating_mul(c))),
                (Some(h), None) if c == 0 => Some(h),
                _ => None,
            };
        }
        if sum < low || high.is_some_and(|h| sum > h) {
            let range = match high {
                Some(h) => format!("{low} to {h}"),
                None => format!("at least {low}"),
            };
            return refuse(
                format!("/{at}"),
                format!("the sum {sum} is not what the histogram's buckets allow ({range})"),
            );
        }
        Ok(())
    }

    pub(super) fn check(s: &Summary) -> Result<(), SummaryError> {
        adds_up_to_runs(&s.by_verdict, s.runs, "by_verdict", "verdicts")?;
        adds_up_to_runs(&s.by_end, s.runs, "by_end", "end statuses")?;
        adds_up_to_runs(&s.by_seal, s.runs, "by_seal", "seal statuses")?;
        for (name, histogram) in [
            ("steps", &s.steps_histogram[..]),
            ("spend_usd", &s.spend_histogram[..]),
        ] {
            let sum: u128 = histogram.iter().map(|&c| u128::from(c)).sum();
            if sum != u128::from(s.runs) {
                return refuse(
                    format!("/{name}/histogram"),
                    format!(
                        "the histogram's buckets add up to {sum} runs, but `runs` is {}",
                        s.runs
                    ),
                );
            }
        }
        within_histogram(
            &STEP_BUCKETS,
            &s.steps_histogram,
            u128::from(s.steps_sum),
            "steps/sum",
        )?;
        within_histogram(
            &SPEND_BUCKETS_NANOS,
            &s.spend_histogram,
            s.spend_nanos_sum,
            "spend_usd/sum_nanos",
        )?;
        squares(
            s.runs,
            u128::from(s.steps_sum),
            s.steps_sq_sum,
            "/steps/sum_squares",
            "the runs' steps",
        )?;
        squares(
            s.runs,
            s.spend_nanos_sum,
            s.spend_nanos_sq_sum,
            "/spend_usd/sum_squares_nanos",
            "the runs' spend",
        )?;
        for (name, counts) in [
            ("primitive_steps", &s.primitive_steps),
            ("visits", &s.visits),
        ] {
            let sum = total(counts);
            if sum != u128::from(s.steps_sum) {
                return refuse(
                    format!("/{name}"),
                    format!(
                        "these add up to {sum} steps, but the runs have {} (`steps.sum`)",
                        s.steps_sum
                    ),
                );
            }
        }
        for (prim, modes) in &s.failure_modes {
            let errors = total(modes);
            let steps = s.primitive_steps.get(prim).copied().unwrap_or(0);
            if errors > u128::from(steps) {
                return refuse(
                    pointer(&["failure_modes", prim]),
                    format!("{errors} error steps, but `{prim}` ran {steps} steps"),
                );
            }
        }
        if s.imported > s.runs {
            return refuse(
                "/imported".into(),
                format!("{} imported runs, but {} runs in all", s.imported, s.runs),
            );
        }
        let divergences: u128 = s.first_divergence_sites.values().map(total).sum();
        if divergences > u128::from(s.unfaithful()) {
            return refuse(
                "/first_divergence_sites".into(),
                format!(
                    "{divergences} first divergences, but only {} runs are not faithful",
                    s.unfaithful()
                ),
            );
        }
        let (mut task_runs, mut task_successes) = (0u128, 0u128);
        for (key, t) in &s.tasks {
            if t.runs == 0 {
                return refuse(
                    pointer(&["tasks", key, "runs"]),
                    "a task with no runs (a task is counted when a run of it is)".into(),
                );
            }
            if t.successes > t.runs {
                return refuse(
                    pointer(&["tasks", key, "successes"]),
                    format!("{} successes out of {} runs", t.successes, t.runs),
                );
            }
            task_runs += u128::from(t.runs);
            task_successes += u128::from(t.successes);
        }
        if task_runs > u128::from(s.runs) {
            return refuse(
                "/tasks".into(),
                format!("the tasks have {task_runs} runs, but `runs` is {}", s.runs),
            );
        }
        if task_successes > u128::from(s.successes()) {
            return refuse(
                "/tasks".into(),
                format!(
                    "the tasks have {task_successes} successes, but `by_end` counts {}",
                    s.successes()
                ),
            );
        }
        if let Some(per_primitive) = &s.primitive_runs {
            check_primitive_runs(s, per_primitive)?;
        }
        Ok(())
    }

    fn check_primitive_runs(
        s: &Summary,
        per_primitive: &BTreeMap<String, PrimitiveRuns>,
    ) -> Result<(), SummaryError> {
        if let Some(prim) = s
            .primitive_steps
            .keys()
            .find(|p| !per_primitive.contains_key(*p))
        {
            return refuse(
                pointer(&["primitive_runs"]),
                format!("`{prim}` ran steps (`primitive_steps`) but has no per-run sums here"),
            );
        }
        for (prim, r) in per_primitive {
            let at = |field: &str| pointer(&["primitive_runs", prim, field]);
            let steps = s.primitive_steps.get(prim).copied().unwrap_or(0);
            let errors = s.failure_modes.get(prim).map_or(0, total);
            if r.runs == 0 || r.runs > s.runs || r.runs > steps {
                return refuse(
                    at("runs"),
                    format!(
                        "{} runs ran `{prim}`: it must be at least 1 and at most the runs ({}) and \
                         its steps ({steps})",
                        r.runs, s.runs
                    ),
                );
            }
            squares(
                r.runs,
                u128::from(steps),
                r.steps_sq,
                &at("steps_sum_squares"),
                &format!("`{prim}`'s steps per run"),
            )?;
            squares(
                r.runs,
                errors,
                r.errors_sq,
                &at("errors_sum_squares"),
                &format!("`{prim}`'s error steps per run"),
            )?;
            // 0 ≤ e ≤ s in every run: e² ≤ e·s ≤ s², and e ≤ e·s; and Cauchy–Schwarz.
            let cross = r.errors_steps;
            let cs = big(cross) * big(cross) <= big(r.errors_sq) * big(r.steps_sq);
            if cross < r.errors_sq || cross > r.steps_sq || cross < errors || !cs {
                return refuse(
                    at("errors_steps_sum"),
                    format!(
                        "Σ errors·steps = {cross} is not what any runs give with Σ errors² = {}, \
                         Σ steps² = {} and {errors} errors",
                        r.errors_sq, r.steps_sq
                    ),
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::summary_file::{SUMMARY_VERSION, SummaryFile};

    #[test]
    fn the_task_key_is_sha256_of_the_rfc8785_form() {
        // `printf '{"a":"x","b":1}' | sha256sum`: member order does not matter, the canonical
        // form sorts it.
        let want = "sha256:cdab067e9f3beb32d1252cfd63e492592fecbf591b0d08cadb24bb17f3864246";
        assert_eq!(task_key(&json!({"b": 1, "a": "x"})), want);
        assert_eq!(task_key(&json!({"a": "x", "b": 1})), want);
        // `printf '{}' | sha256sum`: the default input.
        assert_eq!(
            task_key(&json!({})),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    /// Three runs folded as replay folds them (so every consistency check holds), one of them
    /// spending enough that the sum of squares passes 2^64 and is written as a string.
    fn sample() -> SummaryFile {
        use super::super::report::{RunStats, SealStatus, Verdict};
        use super::super::trace::EndStatus;
        let run = |verdict, end, steps, spend_nanos: u64, timeout: bool| {
            let mut stats = RunStats {
                spend_nanos,
                task: Some(task_key(&json!({"issue": "x"}))),
                ..RunStats::default()
            };
            stats.visits.insert("draft".into(), steps);
            stats.primitive_steps.insert("synth.patch".into(), steps);
            if timeout {
                stats
                    .failure_modes
                    .entry("synth.patch".into())
                    .or_default()
                    .insert("timeout".into(), 1);
            }
            RunReport {
                run: None,
                trace: "t".into(),
                verdict,
                end,
                steps,
                first_divergence: None,
                diagnostics: Vec::new(),
                stats,
                seal: SealStatus::Absent,
                signer: None,
                imported: false,
            }
        };
        let mut s = Summary::default();
        for report in [
            run(
                Verdict::Faithful,
                Some(EndStatus::Success),
                8,
                1_000_000_000,
                false,
            ),
            run(
                Verdict::Faithful,
                Some(EndStatus::Success),
                10,
                2_000_000_000,
                true,
            ),
            run(Verdict::Diverged, None, 12, 1 << 36, false),
        ] {
            s.add(&report).unwrap();
        }
        assert!(s.spend_nanos_sq_sum > u128::from(u64::MAX));
        SummaryFile {
            graph: GraphIdentity {
                name: "fix".into(),
                digest: "sha256:00".into(),
            },
            summary: s,
        }
    }

    #[test]
    fn a_summary_file_round_trips() {
        let file = sample();
        let bytes = serde_json::to_vec(&file.to_json()).unwrap();
        assert_eq!(SummaryFile::from_slice(&bytes).unwrap(), file);
        let empty = SummaryFile {
            summary: Summary::default(),
            ..sample()
        };
        let bytes = serde_json::to_vec(&empty.to_json()).unwrap();
        assert_eq!(SummaryFile::from_slice(&bytes).unwrap(), empty);
    }

    fn error_of(value: Value) -> SummaryError {
        SummaryFile::from_json(&value).unwrap_err()
    }

    #[test]
    fn a_foreign_or_newer_or_broken_file_is_a_located_error() {
        let e = SummaryFile::from_slice(b"{\"format\": \n  oops}").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(3)));
        let e = error_of(json!({"runs": 3, "tool": "other"}));
        assert_eq!(e.pointer, "");
        assert!(e.message.contains("not a primgraph summary"), "{e}");
        let e = error_of(json!({"format": "pytest-report", "version": 1}));
        assert_eq!(e.pointer, "/format");
        let mut newer = sample().to_json();
        newer["version"] = json!(SUMMARY_VERSION + 1);
        let e = error_of(newer);
        assert_eq!(e.pointer, "/version");
        assert!(e.message.contains("newer"), "{e}");
        let mut bad = sample().to_json();
        bad["summary"]["tasks"]
            .as_object_mut()
            .unwrap()
            .values_mut()
            .for_each(|t| t["successes"] = json!(9));
        let e = error_of(bad);
        assert!(e.pointer.starts_with("/summary/tasks/sha256:"), "{e}");
        assert!(e.pointer.ends_with("/successes"), "{e}");
        let mut bad = sample().to_json();
        bad["summary"]["steps"]["histogram"][2]["le"] = json!(3);
        assert_eq!(error_of(bad).pointer, "/summary/steps/histogram/2/le");
        let mut bad = sample().to_json();
        bad["summary"]["runs"] = json!(-1);
        assert_eq!(error_of(bad).pointer, "/summary/runs");
        let mut bad = sample().to_json();
        bad["summary"]["runs"] = json!(4);
        assert_eq!(error_of(bad).pointer, "/summary/by_verdict");
        let e = error_of(json!([1]));
        assert!(e.to_string().contains("array"), "{e}");
    }
}
