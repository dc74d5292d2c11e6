//! The summary read back (SPEC §6.3): [`SummaryFile`], the file `replay --summary-out` writes
//! and `compare` reads (`{"format": "primgraph-summary", "version": 2, "graph": {…},
//! "summary": {…}}`), and [`Summary::from_json`]/[`Summary::from_slice`] for a bare summary —
//! strict JSON (no duplicate key at any depth), every field's shape checked, and figures no
//! runs could give refused, each error with its JSON pointer and its line and column. The
//! monoid itself, and what a summary's figures must satisfy, are `summary.rs`.

use super::summary::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

impl Summary {
    /// Read back what [`Summary::to_json`] wrote; errors name the JSON pointer. A summary that
    /// cannot come from any runs (see [`Summary::check`]) is refused. Without `primitive_runs`
    /// (a summary written before version 2) it reads with `primitive_runs: None`.
    pub fn from_json(value: &Value) -> Result<Summary, SummaryError> {
        read::summary(value, "", read::PrimitiveRunsField::Optional)
    }

    /// Parse a summary's JSON text (the `summary` member of `replay --format json`, or
    /// `to_json`'s text): a duplicate key anywhere is an error (a last-wins reader and a
    /// first-wins reader would see different figures), located by line and column like any
    /// text that is not JSON; then as [`Summary::from_json`].
    pub fn from_slice(bytes: &[u8]) -> Result<Summary, SummaryError> {
        Summary::from_json(&read::strict_json(bytes)?)
    }
}

/// The `format` of a summary file.
pub const SUMMARY_FORMAT: &str = "primgraph-summary";
/// The newest summary file version this build reads (and the one it writes). Version 2 added
/// `summary.primitive_runs` (the per-run sums behind `failure_rate`'s interval); a version 1
/// file is still read, without them.
pub const SUMMARY_VERSION: u64 = 2;

/// The summary file (`replay --summary-out`): `{"format": "primgraph-summary", "version": 2,
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

    /// Parse a summary file's bytes. A file that is not JSON, or has a duplicate key anywhere,
    /// is located by line and column; one from another tool (no `"format":
    /// "primgraph-summary"`), of a newer version, with a field of the wrong shape, or with
    /// figures no runs could give (see [`Summary::check`]), by JSON pointer and by the line and
    /// column of that value.
    pub fn from_slice(bytes: &[u8]) -> Result<SummaryFile, SummaryError> {
        let parsed = read::strict_parse(bytes)?;
        SummaryFile::from_json(&parsed.value).map_err(|mut e| {
            let span = parsed.locate_nearest(&e.pointer);
            e.line = Some(span.line as usize);
            e.column = Some(span.column as usize);
            e
        })
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
        let field = if version >= 2 {
            read::PrimitiveRunsField::Required
        } else {
            read::PrimitiveRunsField::Absent
        };
        let summary = read::summary(
            doc.get("summary").unwrap_or(&Value::Null),
            "/summary",
            field,
        )?;
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

    /// Whether a summary has `primitive_runs`: a version 2 file must, a version 1 file must not,
    /// a bare summary (Python's `Summary.from_json`) may.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum PrimitiveRunsField {
        Required,
        Absent,
        Optional,
    }

    /// Strict JSON: no duplicate key at any depth (serde_json's `Value` keeps the last of two),
    /// no BOM, valid UTF-8; errors by line and column.
    pub(super) fn strict_parse(bytes: &[u8]) -> Result<crate::json::Parsed, SummaryError> {
        let limits = crate::json::Limits {
            max_bytes: usize::MAX,
            max_depth: 64,
        };
        crate::json::parse(bytes, &limits).map_err(|e| {
            let (pointer, message) = match &e.kind {
                crate::json::JsonErrorKind::DuplicateKey { pointer, .. } => (
                    pointer.clone(),
                    format!(
                        "{}: a reader keeping the first value and one keeping the last would see \
                         different figures",
                        e.kind
                    ),
                ),
                other => (String::new(), format!("not JSON: {other}")),
            };
            SummaryError {
                pointer,
                line: Some(e.span.line as usize),
                column: Some(e.span.column as usize),
                message,
            }
        })
    }

    pub(super) fn strict_json(bytes: &[u8]) -> Result<Value, SummaryError> {
        let parsed = strict_parse(bytes)?;
        Ok(parsed.value)
    }

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

    fn primitive_runs(
        v: Option<&Value>,
        at: &str,
    ) -> Result<BTreeMap<String, PrimitiveRuns>, SummaryError> {
        let m = object(v, at)?;
        let mut out = BTreeMap::new();
        for (k, r) in m {
            let p = format!("{at}/{}", escape_token(k));
            let fields = [
                "runs",
                "steps_sum_squares",
                "errors_sum_squares",
                "errors_steps_sum",
            ];
            let r = object(Some(r), &p)?;
            known_fields(r, &p, &fields)?;
            let f = |name: &str| format!("{p}/{name}");
            out.insert(
                k.clone(),
                PrimitiveRuns {
                    runs: integer(r.get("runs"), &f("runs"))?,
                    steps_sq: big(r.get("steps_sum_squares"), &f("steps_sum_squares"))?,
                    errors_sq: big(r.get("errors_sum_squares"), &f("errors_sum_squares"))?,
                    errors_steps: big(r.get("errors_steps_sum"), &f("errors_steps_sum"))?,
                },
            );
        }
        Ok(out)
    }

    pub(super) fn summary(
        v: &Value,
        at: &str,
        primitive_runs_field: PrimitiveRunsField,
    ) -> Result<Summary, SummaryError> {
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
                "primitive_runs",
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
            primitive_runs: match (primitive_runs_field, m.get("primitive_runs")) {
                (PrimitiveRunsField::Absent, Some(_)) => {
                    return Err(SummaryError::at(
                        field("primitive_runs"),
                        "a version 1 summary file has no `primitive_runs` (they came with version 2)",
                    ));
                }
                (PrimitiveRunsField::Required, None) => {
                    return Err(SummaryError::at(
                        field("primitive_runs"),
                        "missing (a version 2 summary file has the per-run sums of each primitive)",
                    ));
                }
                (_, None) => None,
                (_, Some(v)) => Some(primitive_runs(Some(v), &field("primitive_runs"))?),
            },
            imported: match m.get("imported") {
                None => 0,
                v => integer(v, &field("imported"))?,
            },
        };
        if let Some(sum) = spend.get("sum") {
            let exact = s.spend_usd();
            let close = sum
                .as_f64()
                .is_some_and(|x| (x - exact).abs() <= 1e-12 * exact.abs());
            if !close || !sum.is_number() {
                return Err(SummaryError::at(
                    field("spend_usd/sum"),
                    format!(
                        "{sum} USD is not `sum_nanos` ({}) nano-USD",
                        s.spend_nanos_sum
                    ),
                ));
            }
        }
        s.check().map_err(|e| e.under(at))?;
        Ok(s)
    }
}
