//! `primgraph.report(...)`: the page of `primgraph report` (SPEC §11) written from Python — the
//! same library function as the command line, so the same request gives the same bytes — and
//! the HTML fragment behind `Summary._repr_html_` (a notebook shows a summary as tables and
//! charts, escaped like the page).

use crate::convert;
use crate::errors::{self, Located};
use crate::registry;
use crate::replay::{collect_traces, jobs_of, load_graph};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Replay `runs` (trace files and folders) against `graph` — and `baseline` against
/// `baseline_graph` when given — and write the report page to `out`. Returns a dict with the
/// page's `path`, the candidate's `runs` and how many are `unfaithful` (the command line exits
/// 1 when any). Raises `GraphError` for a graph that does not load, `InputError` for a path
/// with no traces or an `out` that cannot be written, `TypeError`/`ValueError` for a bad
/// argument.
#[pyfunction]
#[pyo3(signature = (graph, runs, *, out, baseline_graph = None, baseline = None, registry = None, confidence = primgraph::DEFAULT_CONFIDENCE, jobs = None))]
#[allow(clippy::too_many_arguments)]
pub fn report<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    runs: &Bound<'py, PyAny>,
    out: &Bound<'py, PyAny>,
    baseline_graph: Option<&Bound<'py, PyAny>>,
    baseline: Option<&Bound<'py, PyAny>>,
    registry: Option<&Bound<'py, PyAny>>,
    confidence: f64,
    jobs: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let graph = convert::to_path("graph", graph)?;
    let runs = convert::to_paths("runs", runs)?;
    let out = convert::to_path("out", out)?;
    let some = |v: Option<&Bound<'py, PyAny>>| v.filter(|v| !v.is_none()).cloned();
    let baseline = match (some(baseline_graph), some(baseline)) {
        (None, None) => None,
        (Some(g), Some(r)) => Some((
            convert::to_path("baseline_graph", &g)?,
            convert::to_paths("baseline", &r)?,
        )),
        _ => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "report(): `baseline_graph` and `baseline` go together (the baseline's graph \
                 and its runs)",
            ));
        }
    };
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "argument `confidence` must be strictly between 0 and 1, not {confidence}"
        )));
    }
    if runs.is_empty() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "argument `runs` names no trace file or folder",
        ));
    }
    let jobs = jobs_of(jobs)?;
    let registry = registry::resolve(registry)?;
    // Each graph loads first, so a refused one is a `GraphError` with its location.
    load_graph(py, &graph, &registry)?;
    if let Some((g, _)) = &baseline {
        load_graph(py, g, &registry)?;
    }
    // Each runs path is found first, so one that is missing or holds no trace is an
    // `InputError` whose `file` is that path (the page writer's error is text only).
    let all_runs = runs
        .iter()
        .chain(baseline.iter().flat_map(|(_, r)| r.iter()));
    for path in all_runs {
        if collect_traces(py, std::slice::from_ref(path))?.is_empty() {
            return Err(errors::raise(
                py,
                "InputError",
                Located::new("no *.trace.jsonl under it").in_file(path.display().to_string()),
            ));
        }
    }
    let written = py.detach(|| {
        primgraph::write_report(&primgraph::ReportRequest {
            registry: registry.get(),
            graph: &graph,
            runs: &runs,
            baseline: baseline.as_ref().map(|(g, r)| (g.as_path(), r.as_slice())),
            jobs,
            confidence,
            out: &out,
            options: &registry.options(),
        })
    });
    let written = written.map_err(|e| errors::raise(py, "InputError", Located::new(e.0)))?;
    let result = PyDict::new(py);
    result.set_item("path", out.display().to_string())?;
    result.set_item("runs", written.runs)?;
    result.set_item("unfaithful", written.unfaithful)?;
    Ok(result)
}

/// The summary as an HTML fragment (`Summary._repr_html_`).
pub fn summary_html(summary: &primgraph::Summary) -> String {
    primgraph::summary_html(summary, primgraph::DEFAULT_CONFIDENCE)
}
