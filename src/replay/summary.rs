//! The corpus summary (SPEC §4.3): runs by verdict, by end status and by seal status, diagnostics by code, visits
//! per node, failure modes per primitive, steps and spend as sums and fixed-bucket histograms,
//! and first-divergence sites. It is a commutative monoid — `Summary::default()` is the unit and
//! `merge` is associative and commutative, with integer counts only (spend in nano-USD) — so a
//! corpus split across threads, processes or machines sums to exactly the same figures.
//!
//! For comparing evaluations (SPEC §6.3) it also holds, as exactly: the runs and successes per
//! task (a task is the run's header `input`, keyed by [`task_key`]), the sums of squares of
//! steps and of spend (nano-USD), so that means and variances are exact, and the steps run by
//! each primitive (the denominator of its failure rate). [`SummaryFile`] is the file
//! `replay --summary-out` writes and `compare` reads: the summary with the graph's name and
//! digest and a format version, read back with located errors.

use super::digest::{canonical_json, format_hash, sha256};
use super::report::RunReport;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The task key of a run (SPEC §4.3): `sha256:` + the SHA-256 of the RFC 8785 form of its header
/// `input`, so the same task recorded by two graph versions has the same key.
pub fn task_key(input: &Value) -> String {
    // A parsed JSON value always has a canonical form; the fallback only keeps this total.
    let bytes = canonical_json(input).unwrap_or_else(|_| input.to_string().into_bytes());
    format_hash(&sha256(&bytes))
}

/// Runs of one task, and how many of them ended `success`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskCounts {
    pub runs: u64,
    pub successes: u64,
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
    /// Σ steps² over runs.
    pub steps_sq_sum: u128,
    /// Σ spend² over runs, spend in nano-USD.
    pub spend_nanos_sq_sum: u128,
    /// Steps by the primitive that ran them.
    pub primitive_steps: Counts,
    /// Task key → runs and successes (runs whose header could not be read have no task).
    pub tasks: BTreeMap<String, TaskCounts>,
    /// Runs imported from another tool (SPEC §10); written as `"imported"` when not zero.
    pub imported: u64,
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
        self.imported += u64::from(run.imported);
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
        self.steps_sq_sum = self
            .steps_sq_sum
            .saturating_add(u128::from(run.steps) * u128::from(run.steps));
        let spend = u128::from(run.stats.spend_nanos);
        self.spend_nanos_sq_sum = self.spend_nanos_sq_sum.saturating_add(spend * spend);
        add_counts(&mut self.primitive_steps, &run.stats.primitive_steps);
        if let Some(task) = &run.stats.task {
            let counts = match self.tasks.get_mut(task) {
                Some(c) => c,
                None => self.tasks.entry(task.clone()).or_default(),
            };
            counts.runs += 1;
            if run.end == Some(super::trace::EndStatus::Success) {
                counts.successes += 1;
            }
        }
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
        self.imported += other.imported;
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
        self.steps_sq_sum = self.steps_sq_sum.saturating_add(other.steps_sq_sum);
        self.spend_nanos_sq_sum = self
            .spend_nanos_sq_sum
            .saturating_add(other.spend_nanos_sq_sum);
        add_counts(&mut self.primitive_steps, &other.primitive_steps);
        for (task, c) in &other.tasks {
            let mine = self.tasks.entry(task.clone()).or_default();
            mine.runs += c.runs;
            mine.successes += c.successes;
        }
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
        self.failure_modes
            .get(primitive)
            .map_or(0, |modes| modes.values().sum())
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
        Value::Object(m)
    }

    /// Read back what [`Summary::to_json`] wrote; errors name the JSON pointer.
    pub fn from_json(value: &Value) -> Result<Summary, SummaryError> {
        read::summary(value, "")
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
        (Some(l), Some(c)) => format!("{l}:{c}: "),
        _ if pointer.is_empty() => String::new(),
        _ => format!("at {pointer}: "),
    }
}

impl SummaryError {
    fn at(pointer: impl Into<String>, message: impl Into<String>) -> SummaryError {
        SummaryError {
            pointer: pointer.into(),
            line: None,
            column: None,
            message: message.into(),
        }
    }
}

/// The `format` of a summary file.
pub const SUMMARY_FORMAT: &str = "primgraph-summary";
/// The newest summary file version this build reads (and the one it writes).
pub const SUMMARY_VERSION: u64 = 1;

/// Which graph a summary's runs were replayed against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphIdentity {
    pub name: String,
    pub digest: String,
}

/// The summary file (`replay --summary-out`): `{"format": "primgraph-summary", "version": 1,
/// "graph": {"name", "digest"}, "summary": {…}}`, the summary as [`Summary::to_json`] writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryFile {
    pub graph: GraphIdentity,
    pub summary: Summary,
}

impl SummaryFile {
    pub fn to_json(&self) -> Value {
        json!({
            "format": SUMMARY_FORMAT,
            "version": SUMMARY_VERSION,
            "graph": {"name": self.graph.name, "digest": self.graph.digest},
            "summary": self.summary.to_json(),
        })
    }

    /// Parse a summary file's bytes. A file that is not JSON is located by line and column; one
    /// from another tool (no `"format": "primgraph-summary"`), of a newer version, or with a
    /// field of the wrong shape, by JSON pointer.
    pub fn from_slice(bytes: &[u8]) -> Result<SummaryFile, SummaryError> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| SummaryError {
            pointer: String::new(),
            line: Some(e.line()),
            column: Some(e.column()),
            message: format!("not JSON: {e}"),
        })?;
        SummaryFile::from_json(&value)
    }

    pub fn from_json(value: &Value) -> Result<SummaryFile, SummaryError> {
        let Some(doc) = value.as_object() else {
            return Err(SummaryError::at(
                "",
                format!(
                    "not a primgraph summary: the document is {}, not an object with \"format\": \"{SUMMARY_FORMAT}\"",
                    crate::graph::load::type_name(value)
                ),
            ));
        };
        match doc.get("format") {
            Some(Value::String(f)) if f == SUMMARY_FORMAT => {}
            Some(other) => {
                return Err(SummaryError::at(
                    "/format",
                    format!(
                        "not a primgraph summary: \"format\" is {other}, expected \"{SUMMARY_FORMAT}\""
                    ),
                ));
            }
            None => {
                return Err(SummaryError::at(
                    "",
                    format!(
                        "not a primgraph summary: no \"format\": \"{SUMMARY_FORMAT}\" (a file from another tool? write one with `primgraph replay --summary-out FILE`)"
                    ),
                ));
            }
        }
        let version = read::integer(doc.get("version"), "/version")?;
        if version > SUMMARY_VERSION {
            return Err(SummaryError::at(
                "/version",
                format!(
                    "summary format version {version} is newer than this primgraph reads (up to {SUMMARY_VERSION}): upgrade primgraph"
                ),
            ));
        }
        if version == 0 {
            return Err(SummaryError::at(
                "/version",
                "summary format version 0 does not exist",
            ));
        }
        read::known_fields(doc, "", &["format", "version", "graph", "summary"])?;
        let graph = read::object(doc.get("graph"), "/graph")?;
        read::known_fields(graph, "/graph", &["name", "digest"])?;
        let identity = GraphIdentity {
            name: read::string(graph.get("name"), "/graph/name")?,
            digest: read::string(graph.get("digest"), "/graph/digest")?,
        };
        let summary = read::summary(doc.get("summary").unwrap_or(&Value::Null), "/summary")?;
        Ok(SummaryFile {
            graph: identity,
            summary,
        })
    }
}

/// Reading [`Summary::to_json`]'s shape back, every error with its pointer.
mod read {
    use super::*;
    use crate::json::pointer::escape_token;

    pub(super) fn object<'v>(
        v: Option<&'v Value>,
        at: &str,
    ) -> Result<&'v Map<String, Value>, SummaryError> {
        match v {
            Some(Value::Object(m)) => Ok(m),
            Some(other) => Err(SummaryError::at(
                at,
                format!(
                    "expected an object, found {}",
                    crate::graph::load::type_name(other)
                ),
            )),
            None => Err(SummaryError::at(at, "missing")),
        }
    }

    pub(super) fn string(v: Option<&Value>, at: &str) -> Result<String, SummaryError> {
        match v {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(SummaryError::at(
                at,
                format!(
                    "expected a string, found {}",
                    crate::graph::load::type_name(other)
                ),
            )),
            None => Err(SummaryError::at(at, "missing")),
        }
    }

    pub(super) fn integer(v: Option<&Value>, at: &str) -> Result<u64, SummaryError> {
        match v {
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64().unwrap_or(0)),
            Some(other) => Err(SummaryError::at(
                at,
                format!("expected a non-negative integer, found {other}"),
            )),
            None => Err(SummaryError::at(at, "missing")),
        }
    }

    /// A `u128` written as a number or a decimal string.
    fn big(v: Option<&Value>, at: &str) -> Result<u128, SummaryError> {
        match v {
            Some(Value::String(s)) => s.parse().map_err(|_| {
                SummaryError::at(at, format!("expected a non-negative integer, found {s:?}"))
            }),
            _ => integer(v, at).map(u128::from),
        }
    }

    pub(super) fn known_fields(
        m: &Map<String, Value>,
        at: &str,
        known: &[&str],
    ) -> Result<(), SummaryError> {
        match m.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(SummaryError::at(
                format!("{at}/{}", escape_token(k)),
                format!("unknown field `{k}` (expected one of {})", known.join(", ")),
            )),
            None => Ok(()),
        }
    }

    fn counts(v: Option<&Value>, at: &str) -> Result<Counts, SummaryError> {
        let m = object(v, at)?;
        let mut out = Counts::new();
        for (k, n) in m {
            let p = format!("{at}/{}", escape_token(k));
            out.insert(k.clone(), integer(Some(n), &p)?);
        }
        Ok(out)
    }

    fn nested(v: Option<&Value>, at: &str) -> Result<BTreeMap<String, Counts>, SummaryError> {
        let m = object(v, at)?;
        let mut out = BTreeMap::new();
        for (k, inner) in m {
            let p = format!("{at}/{}", escape_token(k));
            out.insert(k.clone(), counts(Some(inner), &p)?);
        }
        Ok(out)
    }

    fn histogram<const N: usize>(
        v: Option<&Value>,
        at: &str,
        bounds: &[u64],
        scale: f64,
    ) -> Result<[u64; N], SummaryError> {
        let buckets = match v {
            Some(Value::Array(a)) => a,
            _ => return Err(SummaryError::at(at, "expected an array of buckets")),
        };
        if buckets.len() != N {
            return Err(SummaryError::at(
                at,
                format!("expected {N} buckets, found {}", buckets.len()),
            ));
        }
        let mut out = [0u64; N];
        for (i, b) in buckets.iter().enumerate() {
            let p = format!("{at}/{i}");
            let m = object(Some(b), &p)?;
            let le = m.get("le").unwrap_or(&Value::Null);
            let fits = match bounds.get(i) {
                Some(&bound) => le.as_f64() == Some(bound as f64 / scale),
                None => le.is_null(),
            };
            if !fits {
                return Err(SummaryError::at(
                    format!("{p}/le"),
                    format!("bucket bound {le} is not this primgraph's (the buckets are fixed)"),
                ));
            }
            out[i] = integer(m.get("runs"), &format!("{p}/runs"))?;
        }
        Ok(out)
    }

    pub(super) fn summary(v: &Value, at: &str) -> Result<Summary, SummaryError> {
        let m = object(Some(v), at)?;
        let field = |name: &str| format!("{at}/{name}");
        known_fields(
            m,
            at,
            &[
                "runs",
                "by_verdict",
                "by_end",
                "by_seal",
                "diagnostics_by_code",
                "visits",
                "failure_modes",
                "steps",
                "spend_usd",
                "first_divergence_sites",
                "primitive_steps",
                "tasks",
                "imported",
            ],
        )?;
        let steps = object(m.get("steps"), &field("steps"))?;
        let spend = object(m.get("spend_usd"), &field("spend_usd"))?;
        let mut tasks = BTreeMap::new();
        let tasks_at = field("tasks");
        for (k, c) in object(m.get("tasks"), &tasks_at)? {
            let p = format!("{tasks_at}/{}", escape_token(k));
            let c = object(Some(c), &p)?;
            let runs = integer(c.get("runs"), &format!("{p}/runs"))?;
            let successes = integer(c.get("successes"), &format!("{p}/successes"))?;
            if successes > runs {
                return Err(SummaryError::at(
                    format!("{p}/successes"),
                    format!("{successes} successes out of {runs} runs"),
                ));
            }
            tasks.insert(k.clone(), TaskCounts { runs, successes });
        }
        let s = Summary {
            runs: integer(m.get("runs"), &field("runs"))?,
            by_verdict: counts(m.get("by_verdict"), &field("by_verdict"))?,
            by_end: counts(m.get("by_end"), &field("by_end"))?,
            by_seal: counts(m.get("by_seal"), &field("by_seal"))?,
            diagnostics_by_code: counts(
                m.get("diagnostics_by_code"),
                &field("diagnostics_by_code"),
            )?,
            visits: counts(m.get("visits"), &field("visits"))?,
            failure_modes: nested(m.get("failure_modes"), &field("failure_modes"))?,
            steps_sum: integer(steps.get("sum"), &field("steps/sum"))?,
            steps_histogram: histogram(
                steps.get("histogram"),
                &field("steps/histogram"),
                &STEP_BUCKETS,
                1.0,
            )?,
            spend_nanos_sum: big(spend.get("sum_nanos"), &field("spend_usd/sum_nanos"))?,
            spend_histogram: histogram(
                spend.get("histogram"),
                &field("spend_usd/histogram"),
                &SPEND_BUCKETS_NANOS,
                1e9,
            )?,
            first_divergence_sites: nested(
                m.get("first_divergence_sites"),
                &field("first_divergence_sites"),
            )?,
            steps_sq_sum: big(steps.get("sum_squares"), &field("steps/sum_squares"))?,
            spend_nanos_sq_sum: big(
                spend.get("sum_squares_nanos"),
                &field("spend_usd/sum_squares_nanos"),
            )?,
            primitive_steps: counts(m.get("primitive_steps"), &field("primitive_steps"))?,
            tasks,
            imported: match m.get("imported") {
                None => 0,
                v => integer(v, &field("imported"))?,
            },
        };
        let verdicts: u64 = s.by_verdict.values().sum();
        if verdicts != s.runs {
            return Err(SummaryError::at(
                field("by_verdict"),
                format!(
                    "the verdicts add up to {verdicts}, but `runs` is {}",
                    s.runs
                ),
            ));
        }
        let ends: u64 = s.by_end.values().sum();
        if ends != s.runs {
            return Err(SummaryError::at(
                field("by_end"),
                format!(
                    "the end statuses add up to {ends}, but `runs` is {}",
                    s.runs
                ),
            ));
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn sample() -> SummaryFile {
        let mut s = Summary {
            runs: 3,
            steps_sum: 30,
            steps_sq_sum: 400,
            spend_nanos_sum: 3_000_000_000,
            // Over u64: written as a string, read back exactly.
            spend_nanos_sq_sum: u128::from(u64::MAX) * 7,
            ..Summary::default()
        };
        s.by_verdict.insert("faithful".into(), 2);
        s.by_verdict.insert("diverged".into(), 1);
        s.by_end.insert("success".into(), 2);
        s.by_end.insert("none".into(), 1);
        s.visits.insert("draft".into(), 5);
        s.primitive_steps.insert("synth.patch".into(), 5);
        s.failure_modes
            .entry("synth.patch".into())
            .or_default()
            .insert("timeout".into(), 1);
        s.steps_histogram[4] = 3;
        s.spend_histogram[6] = 3;
        s.tasks.insert(
            task_key(&json!({"issue": "x"})),
            TaskCounts {
                runs: 3,
                successes: 2,
            },
        );
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
        newer["version"] = json!(2);
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
