//! `primgraph.Summary`: the corpus summary monoid of SPEC §4.3 — `merge`, JSON in and out
//! (`to_json` is the exact text the summary has in `primgraph replay --format json`, compact),
//! equality, and pickling through `__reduce__` (Ray, Dask and Spark ship it between processes).

use crate::convert;
use crate::errors::{self, Located};
use primgraph::replay::Summary;
use primgraph::replay::summary::{SPEND_BUCKETS_NANOS, STEP_BUCKETS};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use serde_json::Value;
use std::collections::BTreeMap;

/// A corpus summary: runs by verdict and end, diagnostics by code, visits per node, failure
/// modes per primitive, steps and spend (sums and histograms). Summaries merge exactly, in any
/// order: `Summary()` is the empty one.
#[pyclass(name = "Summary", module = "primgraph", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PySummary {
    pub inner: Summary,
}

type Counts = BTreeMap<String, u64>;

fn bad(message: String) -> String {
    message
}

fn counts(v: &Value, field: &str) -> Result<Counts, String> {
    let Some(m) = v.as_object() else {
        return Err(bad(format!("`{field}` must be an object of counts")));
    };
    m.iter()
        .map(|(k, c)| {
            c.as_u64()
                .map(|c| (k.clone(), c))
                .ok_or_else(|| format!("`{field}/{k}` must be a non-negative integer"))
        })
        .collect()
}

fn nested(v: &Value, field: &str) -> Result<BTreeMap<String, Counts>, String> {
    let Some(m) = v.as_object() else {
        return Err(format!("`{field}` must be an object"));
    };
    m.iter()
        .map(|(k, c)| Ok((k.clone(), counts(c, &format!("{field}/{k}"))?)))
        .collect()
}

fn histogram<const N: usize>(
    v: &Value,
    field: &str,
    bounds: &[u64],
    scale: f64,
) -> Result<[u64; N], String> {
    let Some(items) = v.as_array() else {
        return Err(format!("`{field}` must be an array"));
    };
    if items.len() != N || bounds.len() + 1 != N {
        return Err(format!("`{field}` must have {N} buckets"));
    }
    let mut out = [0u64; N];
    for (i, item) in items.iter().enumerate() {
        let le = item.get("le");
        let expected_ok = match bounds.get(i) {
            None => le.is_some_and(Value::is_null),
            Some(&b) => le.and_then(Value::as_f64).is_some_and(|x| {
                let want = if scale == 1.0 {
                    b as f64
                } else {
                    b as f64 / scale
                };
                x == want
            }),
        };
        if !expected_ok {
            return Err(format!(
                "`{field}/{i}/le` is not this version's bucket bound"
            ));
        }
        out[i] = item
            .get("runs")
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("`{field}/{i}/runs` must be a non-negative integer"))?;
    }
    Ok(out)
}

/// The inverse of `Summary::to_json`.
pub fn summary_from_value(v: &Value) -> Result<Summary, String> {
    let field = |name: &str| v.get(name).ok_or_else(|| format!("`{name}` is missing"));
    if !v.is_object() {
        return Err("a summary is a JSON object".into());
    }
    let steps = field("steps")?;
    let spend = field("spend_usd")?;
    let sum_nanos = spend
        .get("sum_nanos")
        .and_then(Value::as_str)
        .and_then(|s| s.parse::<u128>().ok())
        .ok_or("`spend_usd/sum_nanos` must be a decimal integer string")?;
    let summary = Summary {
        runs: field("runs")?
            .as_u64()
            .ok_or("`runs` must be a non-negative integer")?,
        by_verdict: counts(field("by_verdict")?, "by_verdict")?,
        by_end: counts(field("by_end")?, "by_end")?,
        diagnostics_by_code: counts(field("diagnostics_by_code")?, "diagnostics_by_code")?,
        visits: counts(field("visits")?, "visits")?,
        failure_modes: nested(field("failure_modes")?, "failure_modes")?,
        steps_sum: steps
            .get("sum")
            .and_then(Value::as_u64)
            .ok_or("`steps/sum` must be a non-negative integer")?,
        steps_histogram: histogram(
            steps.get("histogram").unwrap_or(&Value::Null),
            "steps/histogram",
            &STEP_BUCKETS,
            1.0,
        )?,
        spend_nanos_sum: sum_nanos,
        spend_histogram: histogram(
            spend.get("histogram").unwrap_or(&Value::Null),
            "spend_usd/histogram",
            &SPEND_BUCKETS_NANOS,
            1e9,
        )?,
        first_divergence_sites: nested(field("first_divergence_sites")?, "first_divergence_sites")?,
    };
    // Everything the text says must survive the round trip: a field this version does not know,
    // or a figure it would write differently, is refused rather than dropped.
    if summary.to_json() != *v {
        return Err("the summary has fields or figures this version does not write".into());
    }
    Ok(summary)
}

pub fn summary_to_json(s: &Summary) -> String {
    serde_json::to_string(&s.to_json()).unwrap_or_default()
}

#[pymethods]
impl PySummary {
    /// The empty summary (the monoid's unit).
    #[new]
    fn new() -> PySummary {
        PySummary {
            inner: Summary::default(),
        }
    }

    /// A new summary: this one and `other` added together (exact, commutative, associative).
    fn merge(&self, other: &Bound<'_, PyAny>) -> PyResult<PySummary> {
        let Ok(other) = other.cast::<PySummary>() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument `other` must be a primgraph.Summary, not {}",
                convert::type_name(other)
            )));
        };
        let mut merged = self.inner.clone();
        merged.merge(&other.get().inner);
        Ok(PySummary { inner: merged })
    }

    /// The summary as compact JSON text: the `summary` member of `primgraph replay --format
    /// json`, byte for byte once re-serialized compactly.
    fn to_json(&self) -> String {
        summary_to_json(&self.inner)
    }

    /// The summary as Python values (the parsed form of `to_json`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.to_json())
    }

    /// Read a summary written by `to_json` (or the `summary` of `primgraph replay --format
    /// json`). Raises `SummaryError` for text that is not one.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<PySummary> {
        let bytes = if let Ok(s) = text.cast::<pyo3::types::PyString>() {
            s.to_cow()?.as_bytes().to_vec()
        } else if let Ok(b) = text.cast::<pyo3::types::PyBytes>() {
            b.as_bytes().to_vec()
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument `text` must be str or bytes, not {}",
                convert::type_name(text)
            )));
        };
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
            errors::raise(
                py,
                "SummaryError",
                Located {
                    code: None,
                    message: format!("not JSON: {e}"),
                    file: None,
                    line: Some(e.line() as u32),
                    column: Some(e.column() as u32),
                },
            )
        })?;
        summary_from_value(&value)
            .map(|inner| PySummary { inner })
            .map_err(|m| errors::raise(py, "SummaryError", Located::new(m)))
    }

    /// Runs summed.
    #[getter]
    fn runs(&self) -> u64 {
        self.inner.runs
    }

    /// Runs that are not `faithful`.
    #[getter]
    fn unfaithful(&self) -> u64 {
        self.inner.unfaithful()
    }

    /// Runs by verdict (`faithful`, `violated`, `diverged`, `malformed`).
    #[getter]
    fn by_verdict(&self) -> BTreeMap<String, u64> {
        self.inner.by_verdict.clone()
    }

    /// Runs by end status (`success`, `failure`, `none`).
    #[getter]
    fn by_end(&self) -> BTreeMap<String, u64> {
        self.inner.by_end.clone()
    }

    /// Diagnostics by code.
    #[getter]
    fn diagnostics_by_code(&self) -> BTreeMap<String, u64> {
        self.inner.diagnostics_by_code.clone()
    }

    /// Steps recorded per node.
    #[getter]
    fn visits(&self) -> BTreeMap<String, u64> {
        self.inner.visits.clone()
    }

    /// Steps summed over the runs.
    #[getter]
    fn steps(&self) -> u64 {
        self.inner.steps_sum
    }

    /// Spend summed over the runs, in USD (from the exact nano-USD sum).
    #[getter]
    fn spend_usd(&self) -> f64 {
        self.inner.spend_usd()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let from_json = py.get_type::<PySummary>().getattr("from_json")?;
        PyTuple::new(
            py,
            [from_json, PyTuple::new(py, [self.to_json()])?.into_any()],
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Summary(runs={}, by_verdict={:?})",
            self.inner.runs, self.inner.by_verdict
        )
    }
}
