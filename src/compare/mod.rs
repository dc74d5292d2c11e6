//! Evaluations compared (SPEC §6.3): two corpus summaries (baseline and candidate) turned into
//! metrics, each side's estimate with its interval, the difference candidate − baseline with
//! its interval, and a label — `regression` when the difference's interval lies wholly on the
//! metric's bad side of zero, `improvement` when wholly on its good side, `none` otherwise. This
//! module owns the metrics and the [`Comparison`](crate::compare::Comparison) document; `stats` the interval estimators and
//! `render` the human and Markdown tables. It is a pure function of the two summaries.
//!
//! | metric | estimate | interval |
//! |---|---|---|
//! | `success_rate` | runs ending `success` / runs | Wilson per side, Newcombe hybrid for the difference |
//! | `faithful_rate` | runs with verdict `faithful` / runs | as above |
//! | `mean_steps`, `mean_spend_usd` | means | t per side, Welch for the difference |
//! | `failure_rate` per primitive | error steps / steps of it | Wilson / Newcombe at the run-level effective size ([`stats::ClusteredRate`](crate::compare::stats::ClusteredRate)) |
//! | `visits_per_run` per node | visits / runs | none (and never labelled) |
//! | `paired_success` | mean over shared tasks of the per-task difference in success rate | t over the tasks |

pub mod render;
pub mod stats;

use crate::replay::summary::{GraphIdentity, Summary, TaskCounts};
use serde_json::{Map, Value, json};
use stats::{Interval, Moments};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// The label of a difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Regression,
    Improvement,
    None,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Regression => "regression",
            Change::Improvement => "improvement",
            Change::None => "none",
        }
    }

    /// The label seen from the other side.
    pub fn swapped(self) -> Change {
        match self {
            Change::Regression => Change::Improvement,
            Change::Improvement => Change::Regression,
            Change::None => Change::None,
        }
    }
}

/// Which way a metric is bad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bad {
    /// Lower is worse (success and faithful rates).
    Lower,
    /// Higher is worse (failure rates, steps, spend).
    Higher,
    /// Neither: the metric is reported, never labelled (visits per run).
    Neither,
}

/// The metric names, as in the JSON document and `--fail-on`.
pub const METRICS: [&str; 7] = [
    "failure_rate",
    "faithful_rate",
    "mean_spend_usd",
    "mean_steps",
    "paired_success",
    "success_rate",
    "visits_per_run",
];

/// One side of a metric: the estimate (`None` when the side has no observations), its interval
/// when there is one, and the number of observations it rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub estimate: Option<f64>,
    pub interval: Option<Interval>,
    pub n: u64,
}

/// The difference candidate − baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub estimate: Option<f64>,
    pub interval: Option<Interval>,
}

/// How the shared tasks moved (`paired_success` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskMoves {
    pub improved: u64,
    pub worsened: u64,
    pub unchanged: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub metric: &'static str,
    /// The primitive ID (`failure_rate`) or node ID (`visits_per_run`); `None` otherwise.
    pub key: Option<String>,
    pub bad: Bad,
    pub baseline: Estimate,
    pub candidate: Estimate,
    pub difference: Difference,
    pub change: Change,
    pub tasks: Option<TaskMoves>,
    /// Why the difference has no interval and no label, when the data cannot support one
    /// (`paired_success` over fewer than two shared tasks, a v1 summary's failure rates, …); `None`
    /// otherwise.
    pub reason: Option<String>,
}

/// One side's identity in the report.
#[derive(Debug, Clone, PartialEq)]
pub struct SideInfo {
    pub graph: Option<GraphIdentity>,
    pub runs: u64,
}

/// The comparison of two evaluations (SPEC §6.3).
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub confidence: f64,
    pub baseline: SideInfo,
    pub candidate: SideInfo,
    /// Sorted by metric, then key (`None` first).
    pub metrics: Vec<Metric>,
}

/// A confidence level must lie strictly between 0 and 1.
pub fn valid_confidence(confidence: f64) -> bool {
    confidence > 0.0 && confidence < 1.0
}

fn label(bad: Bad, interval: Option<Interval>) -> Change {
    let Some(i) = interval else {
        return Change::None;
    };
    // What a rise means, and what a fall means.
    let (rise, fall) = match bad {
        Bad::Higher => (Change::Regression, Change::Improvement),
        Bad::Lower => (Change::Improvement, Change::Regression),
        Bad::Neither => return Change::None,
    };
    if i.low > 0.0 {
        rise
    } else if i.high < 0.0 {
        fall
    } else {
        Change::None
    }
}

fn ratio(k: u64, n: u64) -> Option<f64> {
    (n > 0).then(|| k as f64 / n as f64)
}

/// A proportion metric: Wilson per side, Newcombe for the difference.
fn proportion(
    metric: &'static str,
    key: Option<String>,
    bad: Bad,
    (kb, nb): (u64, u64),
    (kc, nc): (u64, u64),
    z: Option<f64>,
) -> Metric {
    let side = |k: u64, n: u64| Estimate {
        estimate: ratio(k, n),
        interval: z.and_then(|z| stats::wilson(k, n, z)),
        n,
    };
    let difference = Difference {
        estimate: ratio(kc, nc).zip(ratio(kb, nb)).map(|(c, b)| c - b),
        interval: z.and_then(|z| stats::newcombe(kc, nc, kb, nb, z)),
    };
    Metric {
        metric,
        key,
        bad,
        baseline: side(kb, nb),
        candidate: side(kc, nc),
        change: label(bad, difference.interval),
        difference,
        tasks: None,
        reason: None,
    }
}

/// A primitive's failure rate with the run as the unit ([`stats::ClusteredRate`](crate::compare::stats::ClusteredRate)): Wilson per
/// side and Newcombe for the difference, at the effective sample sizes. A summary without the
/// per-run sums (a version 1 file) gives the estimates and no interval, saying why.
fn failure_rate(p: &str, baseline: &Summary, candidate: &Summary, z: Option<f64>) -> Metric {
    let counts = |s: &Summary| {
        let n = s.primitive_steps.get(p).copied().unwrap_or(0);
        (s.error_steps(p).min(n), n)
    };
    let clustered = |s: &Summary| -> Result<Option<stats::ClusteredRate>, ()> {
        let (errors, steps) = counts(s);
        let per_run = s.primitive_runs.as_ref().ok_or(())?;
        Ok(per_run.get(p).and_then(|r| {
            stats::ClusteredRate::new(
                errors,
                steps,
                r.runs,
                r.errors_sq,
                r.steps_sq,
                r.errors_steps,
            )
        }))
    };
    let (kb, nb) = counts(baseline);
    let (kc, nc) = counts(candidate);
    let (rb, rc) = match (clustered(baseline), clustered(candidate)) {
        (Ok(b), Ok(c)) => (b, c),
        _ => {
            let mut m = proportion(
                "failure_rate",
                Some(p.to_string()),
                Bad::Higher,
                (kb, nb),
                (kc, nc),
                None,
            );
            m.reason = Some(
                "no interval: a summary file without per-run sums (version 1) cannot give one that treats runs as the unit"
                    .into(),
            );
            return m;
        }
    };
    let side = |r: Option<stats::ClusteredRate>, n: u64| Estimate {
        estimate: r.map(|r| r.rate),
        interval: r.zip(z).and_then(|(r, z)| r.interval(z)),
        n,
    };
    let difference = Difference {
        estimate: rc.zip(rb).map(|(c, b)| c.rate - b.rate),
        interval: match (rc, rb, z) {
            (Some(c), Some(b), Some(z)) => {
                stats::newcombe_effective(c.rate, c.effective_n, b.rate, b.effective_n, z)
            }
            _ => None,
        },
    };
    Metric {
        metric: "failure_rate",
        key: Some(p.to_string()),
        bad: Bad::Higher,
        baseline: side(rb, nb),
        candidate: side(rc, nc),
        change: label(Bad::Higher, difference.interval),
        difference,
        tasks: None,
        reason: None,
    }
}

/// A mean metric: t per side, Welch for the difference.
fn mean(
    metric: &'static str,
    baseline: Option<Moments>,
    candidate: Option<Moments>,
    confidence: f64,
) -> Metric {
    let side = |m: &Option<Moments>| Estimate {
        estimate: m.map(|m| m.mean),
        interval: m.as_ref().and_then(|m| stats::t_interval(m, confidence)),
        n: m.map_or(0, |m| m.n),
    };
    let difference = Difference {
        estimate: candidate.zip(baseline).map(|(c, b)| c.mean - b.mean),
        interval: candidate
            .zip(baseline)
            .and_then(|(c, b)| stats::welch(&c, &b, confidence)),
    };
    Metric {
        metric,
        key: None,
        bad: Bad::Higher,
        baseline: side(&baseline),
        candidate: side(&candidate),
        change: label(Bad::Higher, difference.interval),
        difference,
        tasks: None,
        reason: None,
    }
}

fn success_rate(t: &TaskCounts) -> f64 {
    t.successes as f64 / t.runs as f64
}

/// `paired_success`: over the tasks both sides ran (a merge join of the two sorted task maps),
/// the per-task difference in success rate, its mean with a t interval over the tasks, and how
/// many tasks improved, worsened or stayed (decided exactly, on the integer cross products).
fn paired(baseline: &Summary, candidate: &Summary, confidence: f64) -> Metric {
    let mut diffs = Vec::new();
    let (mut sum_b, mut sum_c) = (0.0, 0.0);
    let mut moves = TaskMoves::default();
    let mut b = baseline.tasks.iter().peekable();
    let mut c = candidate.tasks.iter().peekable();
    while let (Some((kb, tb)), Some((kc, tc))) = (b.peek(), c.peek()) {
        match kb.cmp(kc) {
            Ordering::Less => {
                b.next();
            }
            Ordering::Greater => {
                c.next();
            }
            Ordering::Equal => {
                if tb.runs > 0 && tc.runs > 0 {
                    let (rb, rc) = (success_rate(tb), success_rate(tc));
                    sum_b += rb;
                    sum_c += rc;
                    diffs.push(rc - rb);
                    let lhs = u128::from(tc.successes) * u128::from(tb.runs);
                    let rhs = u128::from(tb.successes) * u128::from(tc.runs);
                    match lhs.cmp(&rhs) {
                        Ordering::Greater => moves.improved += 1,
                        Ordering::Less => moves.worsened += 1,
                        Ordering::Equal => moves.unchanged += 1,
                    }
                }
                b.next();
                c.next();
            }
        }
    }
    let n = diffs.len() as u64;
    let moments = Moments::from_values(&diffs);
    // SPEC §6.3: a t interval over the tasks whenever it is defined (two tasks or more); equal
    // per-task differences give the point interval at their mean, labelled by the same rule as
    // every other metric (as `mean_steps` with zero variance is).
    let reason = match n {
        0 => Some("no task was run by both sides".to_string()),
        1 => Some("1 shared task: a t interval over the tasks needs two".to_string()),
        _ => None,
    };
    let difference = Difference {
        estimate: moments.map(|m| m.mean),
        interval: moments
            .as_ref()
            .and_then(|m| stats::t_interval(m, confidence)),
    };
    let side = |sum: f64| Estimate {
        estimate: (n > 0).then(|| sum / n as f64),
        interval: None,
        n,
    };
    Metric {
        metric: "paired_success",
        key: None,
        bad: Bad::Lower,
        baseline: side(sum_b),
        candidate: side(sum_c),
        change: label(Bad::Lower, difference.interval),
        difference,
        tasks: Some(moves),
        reason,
    }
}

fn steps_moments(s: &Summary) -> Option<Moments> {
    Moments::from_sums(s.runs, u128::from(s.steps_sum), s.steps_sq_sum)
}

fn spend_moments(s: &Summary) -> Option<Moments> {
    Moments::from_sums(s.runs, s.spend_nanos_sum, s.spend_nanos_sq_sum).map(|m| m.scaled(1e-9))
}

/// Compare two summaries at `confidence` (e.g. 0.95). Every difference is candidate −
/// baseline. A confidence outside (0, 1) gives the estimates alone: no interval and no label
/// (check it first with [`valid_confidence`]).
pub fn compare(baseline: &Summary, candidate: &Summary, confidence: f64) -> Comparison {
    let z = stats::z_quantile(confidence);
    let mut metrics = vec![
        proportion(
            "success_rate",
            None,
            Bad::Lower,
            (baseline.successes(), baseline.runs),
            (candidate.successes(), candidate.runs),
            z,
        ),
        proportion(
            "faithful_rate",
            None,
            Bad::Lower,
            (baseline.faithful(), baseline.runs),
            (candidate.faithful(), candidate.runs),
            z,
        ),
        mean(
            "mean_steps",
            steps_moments(baseline),
            steps_moments(candidate),
            confidence,
        ),
        mean(
            "mean_spend_usd",
            spend_moments(baseline),
            spend_moments(candidate),
            confidence,
        ),
        paired(baseline, candidate, confidence),
    ];
    let primitives: BTreeSet<&String> = baseline
        .primitive_steps
        .keys()
        .chain(candidate.primitive_steps.keys())
        .chain(baseline.failure_modes.keys())
        .chain(candidate.failure_modes.keys())
        .collect();
    for p in primitives {
        metrics.push(failure_rate(p, baseline, candidate, z));
    }
    let nodes: BTreeSet<&String> = baseline
        .visits
        .keys()
        .chain(candidate.visits.keys())
        .collect();
    for node in nodes {
        let side = |s: &Summary| Estimate {
            estimate: ratio(s.visits.get(node.as_str()).copied().unwrap_or(0), s.runs),
            interval: None,
            n: s.runs,
        };
        let (b, c) = (side(baseline), side(candidate));
        metrics.push(Metric {
            metric: "visits_per_run",
            key: Some(node.clone()),
            bad: Bad::Neither,
            difference: Difference {
                estimate: c.estimate.zip(b.estimate).map(|(c, b)| c - b),
                interval: None,
            },
            baseline: b,
            candidate: c,
            change: Change::None,
            tasks: None,
            reason: None,
        });
    }
    metrics.sort_by(|a, b| (a.metric, &a.key).cmp(&(b.metric, &b.key)));
    Comparison {
        confidence,
        baseline: SideInfo {
            graph: None,
            runs: baseline.runs,
        },
        candidate: SideInfo {
            graph: None,
            runs: candidate.runs,
        },
        metrics,
    }
}

/// A finite number as JSON (the estimators never produce a non-finite one; this keeps a NaN out
/// of the document whatever happens).
fn number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

fn estimate_json(estimate: Option<f64>, interval: Option<Interval>, n: Option<u64>) -> Value {
    let mut m = Map::new();
    m.insert("estimate".into(), estimate.map_or(Value::Null, number));
    if let Some(i) = interval
        && i.low.is_finite()
        && i.high.is_finite()
    {
        m.insert("low".into(), number(i.low));
        m.insert("high".into(), number(i.high));
    }
    if let Some(n) = n {
        m.insert("n".into(), Value::from(n));
    }
    Value::Object(m)
}

impl Comparison {
    /// Name the graph each side was replayed against (the report then says whether they differ).
    pub fn with_graphs(
        mut self,
        baseline: Option<GraphIdentity>,
        candidate: Option<GraphIdentity>,
    ) -> Comparison {
        self.baseline.graph = baseline;
        self.candidate.graph = candidate;
        self
    }

    /// Whether both sides name a graph and the digests differ.
    pub fn graphs_differ(&self) -> bool {
        match (&self.baseline.graph, &self.candidate.graph) {
            (Some(a), Some(b)) => a.digest != b.digest,
            _ => false,
        }
    }

    /// Did any metric named `metric` (any key) regress?
    pub fn regressed(&self, metric: &str) -> bool {
        self.metrics
            .iter()
            .any(|m| m.metric == metric && m.change == Change::Regression)
    }

    /// The SPEC §6.3 document. `paired_success` also carries `"tasks": {"improved", "worsened",
    /// "unchanged"}`; a side with no observations has `"estimate": null` and no interval; a
    /// metric whose data cannot support an interval says why in `"reason"`.
    pub fn to_json(&self) -> Value {
        let side = |s: &SideInfo| {
            json!({
                "graph": s.graph.as_ref().map(|g| g.name.clone()),
                "digest": s.graph.as_ref().map(|g| g.digest.clone()),
                "runs": s.runs,
            })
        };
        let metrics: Vec<Value> = self
            .metrics
            .iter()
            .map(|m| {
                let mut o = Map::new();
                o.insert("metric".into(), Value::from(m.metric));
                o.insert("key".into(), m.key.clone().map_or(Value::Null, Value::from));
                o.insert(
                    "baseline".into(),
                    estimate_json(m.baseline.estimate, m.baseline.interval, Some(m.baseline.n)),
                );
                o.insert(
                    "candidate".into(),
                    estimate_json(
                        m.candidate.estimate,
                        m.candidate.interval,
                        Some(m.candidate.n),
                    ),
                );
                o.insert(
                    "difference".into(),
                    estimate_json(m.difference.estimate, m.difference.interval, None),
                );
                o.insert("change".into(), Value::from(m.change.as_str()));
                if let Some(reason) = &m.reason {
                    o.insert("reason".into(), Value::from(reason.as_str()));
                }
                if let Some(t) = m.tasks {
                    o.insert(
                        "tasks".into(),
                        json!({"improved": t.improved, "worsened": t.worsened, "unchanged": t.unchanged}),
                    );
                }
                Value::Object(o)
            })
            .collect();
        json!({
            "confidence": number(self.confidence),
            "baseline": side(&self.baseline),
            "candidate": side(&self.candidate),
            "metrics": metrics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two summaries over the same tasks: `(baseline successes, candidate successes)` per task,
    /// `runs` runs of each task on each side.
    fn paired_sides(per_task: &[(u64, u64)], runs: u64) -> (Summary, Summary) {
        let (mut b, mut c) = (Summary::default(), Summary::default());
        for (i, &(sb, sc)) in per_task.iter().enumerate() {
            let key = format!("task-{i:03}");
            for (side, successes) in [(&mut b, sb), (&mut c, sc)] {
                side.runs += runs;
                *side.by_end.entry("success".into()).or_insert(0) += successes;
                *side.by_end.entry("failure".into()).or_insert(0) += runs - successes;
                side.tasks
                    .insert(key.clone(), TaskCounts { runs, successes });
            }
        }
        (b, c)
    }

    fn paired_of(c: &Comparison) -> &Metric {
        c.metrics
            .iter()
            .find(|m| m.metric == "paired_success")
            .expect("paired_success")
    }

    /// SPEC §6.3: "a t interval over the tasks" — with two tasks and zero variance (each going
    /// from 2/2 to 1/2) it is the point [−50 pp, −50 pp], wholly on the bad side: a regression,
    /// as `mean_steps` with zero variance is.
    #[test]
    fn paired_success_with_zero_variance_is_the_point_interval_labelled_by_the_rule() {
        let (b, c) = paired_sides(&[(2, 1), (2, 1)], 2);
        let cmp = compare(&b, &c, 0.95);
        let m = paired_of(&cmp);
        assert_eq!(m.difference.estimate, Some(-0.5));
        assert_eq!(
            m.difference.interval,
            Some(Interval {
                low: -0.5,
                high: -0.5
            })
        );
        assert_eq!((m.change, m.reason.as_deref()), (Change::Regression, None));
        assert!(cmp.regressed("paired_success"));
        let (b, c) = paired_sides(&[(1, 2); 3], 2);
        assert_eq!(
            paired_of(&compare(&b, &c, 0.95)).change,
            Change::Improvement
        );
        let (b, c) = paired_sides(&[(1, 1); 3], 2);
        let same = compare(&b, &c, 0.95);
        let m = paired_of(&same);
        assert_eq!(
            m.difference.interval,
            Some(Interval {
                low: 0.0,
                high: 0.0
            })
        );
        assert_eq!(m.change, Change::None);
    }

    #[test]
    fn paired_success_over_few_tasks_has_the_t_interval_with_n_minus_1_df() {
        // Three tasks moving −1/2, −1/2, −1: mean −2/3, sd 0.288675, t(0.975; 2) = 4.302653.
        let (b, c) = paired_sides(&[(2, 1), (2, 1), (2, 0)], 2);
        let m = paired_of(&compare(&b, &c, 0.95)).clone();
        let i = m.difference.interval.expect("an interval");
        let half = 4.302_653 * 0.288_675_1 / 3f64.sqrt();
        assert!((i.low - (-2.0 / 3.0 - half)).abs() < 1e-5, "{i:?}");
        assert!((i.high - (-2.0 / 3.0 + half)).abs() < 1e-5, "{i:?}");
        assert_eq!((m.change, m.reason), (Change::None, None));
    }

    #[test]
    fn paired_success_over_one_task_or_none_has_no_interval_and_says_why() {
        let (b, c) = paired_sides(&[(2, 0)], 2);
        let cmp = compare(&b, &c, 0.95);
        let m = paired_of(&cmp);
        assert_eq!(
            (m.difference.estimate, m.difference.interval),
            (Some(-1.0), None)
        );
        assert_eq!(m.change, Change::None);
        let reason = m.reason.as_deref().expect("a reason");
        assert!(reason.contains("needs two"), "{reason}");
        assert!(render::human(&cmp, false).contains(&format!("paired_success: {reason}")));
        assert!(render::markdown(&cmp).contains("**No verdict:**"));
        let (b, c) = paired_sides(&[], 2);
        let m = paired_of(&compare(&b, &c, 0.95)).clone();
        assert_eq!(m.difference.estimate, None);
        assert!(m.reason.unwrap().contains("no task"));
    }
}
