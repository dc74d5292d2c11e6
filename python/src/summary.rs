//! `primgraph.Summary`: the corpus summary monoid of SPEC §4.3 — `merge`, JSON in and out
//! (`to_json` is the exact text the summary has in `primgraph replay --format json`, compact),
//! equality, and pickling through `__reduce__` (Ray, Dask and Spark ship it between processes).
//! A summary from a replay also knows its graph's name and digest (`graph`), which `compare`
//! reports as the `primgraph compare` of summary files does.

use crate::convert;
use crate::errors::{self, Located};
use primgraph::{GraphIdentity, Summary};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::collections::BTreeMap;

/// A corpus summary: runs by verdict and end, diagnostics by code, visits per node, failure
/// modes per primitive, steps and spend (sums and histograms). Summaries merge exactly, in any
/// order: `Summary()` is the empty one.
#[pyclass(name = "Summary", module = "primgraph", frozen, eq)]
#[derive(Clone)]
pub struct PySummary {
    pub inner: Summary,
    pub graph: SummaryGraph,
}

/// Equality is of the figures: the same runs replayed against the same graph, summed here or
/// read back from JSON (which has no graph), are equal.
impl PartialEq for PySummary {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}

/// The graph a summary's runs were replayed against. Merging keeps it when both sides agree
/// (the empty summary agrees with every graph) and gives `Mixed` otherwise, so merging stays
/// associative and commutative.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SummaryGraph {
    /// The empty summary, or one read from JSON text.
    #[default]
    Unknown,
    One(GraphIdentity),
    /// Merged from summaries of different graphs.
    Mixed,
}

impl SummaryGraph {
    fn merge(&self, other: &SummaryGraph) -> SummaryGraph {
        match (self, other) {
            (SummaryGraph::Unknown, g) | (g, SummaryGraph::Unknown) => g.clone(),
            (SummaryGraph::One(a), SummaryGraph::One(b)) if a == b => self.clone(),
            _ => SummaryGraph::Mixed,
        }
    }

    fn identity(&self) -> Option<GraphIdentity> {
        match self {
            SummaryGraph::One(g) => Some(g.clone()),
            _ => None,
        }
    }
}

impl PySummary {
    /// A summary of runs replayed against `graph`.
    pub fn of_graph(inner: Summary, graph: &primgraph::ReplayGraph) -> PySummary {
        PySummary {
            inner,
            graph: SummaryGraph::One(GraphIdentity {
                name: graph.name.clone(),
                digest: graph.digest.clone(),
            }),
        }
    }

    /// A summary whose graph is not known.
    pub fn unnamed(inner: Summary) -> PySummary {
        PySummary {
            inner,
            graph: SummaryGraph::Unknown,
        }
    }
}

pub fn summary_to_json(s: &Summary) -> String {
    serde_json::to_string(&s.to_json()).unwrap_or_default()
}

#[pymethods]
impl PySummary {
    /// The empty summary (the monoid's unit).
    #[new]
    fn new() -> PySummary {
        PySummary::unnamed(Summary::default())
    }

    /// A new summary: this one and `other` added together (exact, commutative, associative).
    /// Raises `SummaryError` (naming the field's JSON pointer) when a count would pass 2^64 − 1:
    /// nothing wraps.
    fn merge(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PySummary> {
        let Ok(other) = other.cast::<PySummary>() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument `other` must be a primgraph.Summary, not {}",
                convert::type_name(other)
            )));
        };
        let mut merged = self.inner.clone();
        merged.merge(&other.get().inner).map_err(|e| {
            errors::raise(
                py,
                "SummaryError",
                Located::new(format!("cannot merge: at {}: {}", e.pointer, e.message)),
            )
        })?;
        Ok(PySummary {
            inner: merged,
            graph: self.graph.merge(&other.get().graph),
        })
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
        // The library's strict reader: a duplicate key is refused (by line and column), and so
        // are figures no runs could give (by JSON pointer).
        primgraph::Summary::from_slice(&bytes)
            .map(PySummary::unnamed)
            .map_err(|e| {
                let message = if e.pointer.is_empty() {
                    e.message
                } else {
                    format!("{}: {}", e.pointer, e.message)
                };
                errors::raise(
                    py,
                    "SummaryError",
                    Located {
                        code: None,
                        message,
                        file: None,
                        line: e.line.map(|l| l as u32),
                        column: e.column.map(|c| c as u32),
                    },
                )
            })
    }

    /// Compare this summary (the baseline) with `candidate` (SPEC §6.3): every metric with its
    /// estimate per side, the difference (candidate − baseline) with its interval at
    /// `confidence`, and the label `regression`, `improvement` or `none`. Returns the JSON
    /// document of `primgraph compare --format json`, as Python values.
    #[pyo3(signature = (candidate, *, confidence = 0.95))]
    fn compare<'py>(
        &self,
        py: Python<'py>,
        candidate: &Bound<'py, PyAny>,
        confidence: f64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Ok(candidate) = candidate.cast::<PySummary>() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument `candidate` must be a Summary, not {}",
                convert::type_name(candidate)
            )));
        };
        if !(confidence.is_finite() && confidence > 0.0 && confidence < 1.0) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "argument `confidence` must lie strictly between 0 and 1, not {confidence}"
            )));
        }
        let graphs = (self.graph.identity(), candidate.get().graph.identity());
        let (baseline, candidate) = (&self.inner, &candidate.get().inner);
        let document = py.detach(|| {
            primgraph::compare::compare(baseline, candidate, confidence)
                .with_graphs(graphs.0, graphs.1)
                .to_json()
        });
        convert::to_py(py, &document)
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

    /// The graph the runs were replayed against, `{"name", "digest"}`; `None` for the empty
    /// summary, one read with `from_json`, or one merged from runs of different graphs.
    #[getter]
    fn graph<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = self.graph.identity().map_or(
            serde_json::Value::Null,
            |g| serde_json::json!({"name": g.name, "digest": g.digest}),
        );
        convert::to_py(py, &value)
    }

    /// Rebuild a pickled summary: its JSON text and its graph (`None`, `(name, digest)`, or
    /// `"mixed"`).
    #[staticmethod]
    fn _restore(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        graph: &Bound<'_, PyAny>,
    ) -> PyResult<PySummary> {
        let mut summary = PySummary::from_json(py, text)?;
        summary.graph = if graph.is_none() {
            SummaryGraph::Unknown
        } else if let Ok((name, digest)) = graph.extract::<(String, String)>() {
            SummaryGraph::One(GraphIdentity { name, digest })
        } else {
            SummaryGraph::Mixed
        };
        Ok(summary)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let restore = py.get_type::<PySummary>().getattr("_restore")?;
        let graph = match &self.graph {
            SummaryGraph::Unknown => py.None().into_bound(py),
            SummaryGraph::One(g) => (g.name.clone(), g.digest.clone())
                .into_pyobject(py)?
                .into_any(),
            SummaryGraph::Mixed => "mixed".into_pyobject(py)?.into_any(),
        };
        let args = PyTuple::new(py, [self.to_json().into_pyobject(py)?.into_any(), graph])?;
        PyTuple::new(py, [restore, args.into_any()])
    }

    /// The summary as HTML for notebooks (Jupyter shows it instead of the repr): run counts,
    /// failure rates with intervals, steps and spend charts, diagnostics; everything escaped.
    fn _repr_html_(&self) -> String {
        crate::report::summary_html(&self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "Summary(runs={}, by_verdict={:?})",
            self.inner.runs, self.inner.by_verdict
        )
    }
}
