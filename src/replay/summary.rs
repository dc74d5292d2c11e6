//! The corpus summary (SPEC §4.3): runs by verdict, by end status and by seal status, diagnostics by code, visits
//! per node, failure modes per primitive, steps and spend as sums and fixed-bucket histograms,
//! and first-divergence sites. It is a commutative monoid — `Summary::default()` is the unit and
//! `merge` is associative and commutative, with integer counts only (spend in nano-USD) — so a
//! corpus split across threads, processes or machines sums to exactly the same figures.

use super::report::RunReport;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

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

type Counts = BTreeMap<String, u64>;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
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
}

fn bucket(bounds: &[u64], x: u64) -> usize {
    bounds.iter().position(|&b| x <= b).unwrap_or(bounds.len())
}

fn add_counts(into: &mut Counts, from: &Counts) {
    for (k, v) in from {
        *into.entry(k.clone()).or_insert(0) += v;
    }
}

impl Summary {
    /// The summary of one run.
    pub fn of_run(run: &RunReport) -> Summary {
        let mut s = Summary::default();
        s.add(run);
        s
    }

    pub fn add(&mut self, run: &RunReport) {
        self.runs += 1;
        *self
            .by_verdict
            .entry(run.verdict.as_str().into())
            .or_insert(0) += 1;
        let end = run.end.map_or("none", |e| e.as_str());
        *self.by_end.entry(end.into()).or_insert(0) += 1;
        *self.by_seal.entry(run.seal.as_str().into()).or_insert(0) += 1;
        add_counts(&mut self.diagnostics_by_code, &run.stats.codes);
        add_counts(&mut self.visits, &run.stats.visits);
        for (prim, modes) in &run.stats.failure_modes {
            add_counts(self.failure_modes.entry(prim.clone()).or_default(), modes);
        }
        self.steps_sum += run.steps;
        self.steps_histogram[bucket(&STEP_BUCKETS, run.steps)] += 1;
        self.spend_nanos_sum += u128::from(run.stats.spend_nanos);
        self.spend_histogram[bucket(&SPEND_BUCKETS_NANOS, run.stats.spend_nanos)] += 1;
        if let Some(f) = &run.first_divergence {
            *self
                .first_divergence_sites
                .entry(f.site.clone())
                .or_default()
                .entry(f.code.into())
                .or_insert(0) += 1;
        }
    }

    pub fn merge(&mut self, other: &Summary) {
        self.runs += other.runs;
        add_counts(&mut self.by_verdict, &other.by_verdict);
        add_counts(&mut self.by_end, &other.by_end);
        add_counts(&mut self.by_seal, &other.by_seal);
        add_counts(&mut self.diagnostics_by_code, &other.diagnostics_by_code);
        add_counts(&mut self.visits, &other.visits);
        for (prim, modes) in &other.failure_modes {
            add_counts(self.failure_modes.entry(prim.clone()).or_default(), modes);
        }
        self.steps_sum += other.steps_sum;
        for (a, b) in self.steps_histogram.iter_mut().zip(other.steps_histogram) {
            *a += b;
        }
        self.spend_nanos_sum += other.spend_nanos_sum;
        for (a, b) in self.spend_histogram.iter_mut().zip(other.spend_histogram) {
            *a += b;
        }
        for (site, codes) in &other.first_divergence_sites {
            add_counts(
                self.first_divergence_sites.entry(site.clone()).or_default(),
                codes,
            );
        }
    }

    /// Runs that are not faithful.
    pub fn unfaithful(&self) -> u64 {
        self.runs - self.by_verdict.get("faithful").copied().unwrap_or(0)
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
            json!({"sum": self.steps_sum, "histogram": Summary::histogram(&STEP_BUCKETS, &self.steps_histogram, 1.0)}),
        );
        m.insert(
            "spend_usd".into(),
            json!({"sum": self.spend_usd(), "sum_nanos": self.spend_nanos_sum.to_string(),
                   "histogram": Summary::histogram(&SPEND_BUCKETS_NANOS, &self.spend_histogram, 1e9)}),
        );
        m.insert(
            "first_divergence_sites".into(),
            nested(&self.first_divergence_sites),
        );
        Value::Object(m)
    }
}
