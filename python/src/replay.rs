//! Replay from Python (SPEC §4.2, §4.3): `Replayer` (a graph resolved against a registry once),
//! `replay` (one trace, a path or bytes), `replay_corpus` (files and folders in parallel), and
//! `RunReport`. Every replay runs with the GIL released.

use crate::convert;
use crate::errors::{self, Located};
use crate::registry::{self, RegistryRef};
use crate::summary::PySummary;
use primgraph::{Registry, ReplayGraph, ReplayOptions, Replayer, RunReport, Summary};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::path::{Path, PathBuf};

/// One run's report (SPEC §4.2): `verdict`, `end`, `steps`, `first_divergence` and
/// `diagnostics` (dicts shaped as §3.1 plus the event's `seq`, `line` and `byte`).
#[pyclass(name = "RunReport", module = "primgraph", frozen)]
pub struct PyRunReport {
    pub inner: RunReport,
}

#[pymethods]
impl PyRunReport {
    /// `"faithful"`, `"violated"`, `"diverged"` or `"malformed"`.
    #[getter]
    fn verdict(&self) -> &'static str {
        self.inner.verdict.as_str()
    }

    /// True when the verdict is `faithful`.
    #[getter]
    fn faithful(&self) -> bool {
        self.inner.verdict == primgraph::Verdict::Faithful
    }

    /// The recorded end status (`"success"`, `"failure"`), or `None` when the run has no end.
    #[getter]
    fn end(&self) -> Option<&'static str> {
        self.inner.end.map(|e| e.as_str())
    }

    /// Steps replayed.
    #[getter]
    fn steps(&self) -> u64 {
        self.inner.steps
    }

    /// The header's `run`, when the header could be read.
    #[getter]
    fn run(&self) -> Option<String> {
        self.inner.run.clone()
    }

    /// The trace's name (its path, or `"<bytes>"`).
    #[getter]
    fn trace(&self) -> String {
        self.inner.trace.clone()
    }

    /// The first error: a dict with `seq`, `code`, `expected`, `actual`, `pointer`, `line`,
    /// `node`; `None` for a faithful run.
    #[getter]
    fn first_divergence<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = self.inner.to_json();
        convert::to_py(
            py,
            json.get("first_divergence")
                .unwrap_or(&serde_json::Value::Null),
        )
    }

    /// Every diagnostic of the run, as dicts.
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let list: Vec<serde_json::Value> =
            self.inner.diagnostics.iter().map(|d| d.to_json()).collect();
        convert::to_py(py, &serde_json::Value::Array(list))
    }

    /// The report as one run of `primgraph replay --format json` (compact JSON text).
    fn to_json(&self) -> String {
        serde_json::to_string(&self.inner.to_json()).unwrap_or_default()
    }

    /// The report as Python values (the parsed form of `to_json`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.to_json())
    }

    /// This run's summary (merge many into a corpus's).
    fn summary(&self) -> PySummary {
        PySummary::unnamed(Summary::of_run(&self.inner))
    }

    fn __repr__(&self) -> String {
        format!(
            "RunReport(trace={:?}, verdict={:?}, end={}, steps={})",
            self.inner.trace,
            self.inner.verdict.as_str(),
            self.inner
                .end
                .map_or("None".to_string(), |e| format!("{:?}", e.as_str())),
            self.inner.steps
        )
    }
}

/// The engine: a borrowed `Replayer` for the embedded registry (built once: its compiled schema
/// validators are kept across calls), or the parts to build one for a loaded registry.
// One per `Replayer` object: the size of the variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Engine {
    Builtin(Replayer<'static>),
    Loaded(std::sync::Arc<Registry>, Box<ReplayGraph>),
    /// A graph that declares packs: it keeps its effective registry (`ReplayGraph::registry`).
    Composed(Box<ReplayGraph>),
}

impl Engine {
    fn with<T>(&self, f: impl FnOnce(&Replayer<'_>) -> T) -> T {
        match self {
            Engine::Builtin(r) => f(r),
            Engine::Loaded(registry, graph) => {
                let replayer = Replayer::new(registry, (**graph).clone(), ReplayOptions::default());
                f(&replayer)
            }
            Engine::Composed(graph) => {
                let replayer = Replayer::new(
                    graph.registry(Registry::builtin()),
                    (**graph).clone(),
                    ReplayOptions::default(),
                );
                f(&replayer)
            }
        }
    }
}

/// A graph loaded for replay against a registry, once: replay traces through it one by one
/// (`replay`), a batch of byte strings (`replay_batch`), or files and folders (`replay_corpus`).
#[pyclass(name = "Replayer", module = "primgraph", frozen)]
pub struct PyReplayer {
    engine: Engine,
    graph_file: String,
}

/// Load the graph at `path` for replay (raises `GraphError` with the first refusing diagnostic).
pub fn load_graph(
    py: Python<'_>,
    path: &Path,
    registry: &RegistryRef,
) -> PyResult<(String, ReplayGraph)> {
    let bytes = primgraph::read_input(path, primgraph::MAX_GRAPH_BYTES)
        .map_err(|e| errors::input(py, path, &e))?;
    let name = path.display().to_string();
    load_graph_bytes(py, name, &bytes, registry)
}

/// Load a graph document given as bytes; `name` is reported.
pub fn load_graph_bytes(
    py: Python<'_>,
    name: String,
    bytes: &[u8],
    registry: &RegistryRef,
) -> PyResult<(String, ReplayGraph)> {
    let loaded =
        py.detach(|| ReplayGraph::load_with(&name, bytes, registry.get(), &registry.options()));
    match loaded {
        Ok(g) => Ok((name, g)),
        Err(primgraph::GraphLoadError::Refused(diags)) => {
            let located = diags
                .first()
                .map(|d| Located::of_diagnostic(d, &name))
                .unwrap_or_else(|| Located::new("the graph does not load").in_file(&name));
            Err(errors::raise(py, "GraphError", located))
        }
        Err(other) => Err(errors::raise(
            py,
            "GraphError",
            Located::new(other.to_string()).in_file(&name),
        )),
    }
}

fn traces_of(py: Python<'_>, paths: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    let paths = convert::to_paths("paths", paths)?;
    collect_traces(py, &paths)
}

/// The trace files under `paths`; a path that cannot be read raises `InputError` with `file`
/// set to it.
pub(crate) fn collect_traces(py: Python<'_>, paths: &[PathBuf]) -> PyResult<Vec<PathBuf>> {
    py.detach(|| primgraph::collect_traces(paths)).map_err(|e| {
        let file = match &e {
            primgraph::CorpusError::Io { path, .. }
            | primgraph::CorpusError::NotRegular { path, .. } => Some(path.clone()),
            _ => None,
        };
        errors::raise(
            py,
            "InputError",
            Located {
                file,
                ..Located::new(e.to_string())
            },
        )
    })
}

pub(crate) fn jobs_of(jobs: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    match jobs {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(j) if j.is_none() => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(j) => match j.extract::<u64>() {
            Ok(n) if (1..=1024).contains(&n) && !j.is_instance_of::<pyo3::types::PyBool>() => {
                Ok(n as usize)
            }
            _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "argument `jobs` must be an int from 1 to 1024 or None, not {}",
                j.repr().map(|r| r.to_string()).unwrap_or_default()
            ))),
        },
    }
}

impl PyReplayer {
    pub fn load(
        py: Python<'_>,
        graph: &Bound<'_, PyAny>,
        registry: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyReplayer> {
        let registry = registry::resolve(registry)?;
        let path = convert::to_path("graph", graph)?;
        let (graph_file, loaded) = load_graph(py, &path, &registry)?;
        Ok(PyReplayer::of(registry, graph_file, loaded))
    }

    fn of(registry: RegistryRef, graph_file: String, loaded: ReplayGraph) -> PyReplayer {
        if !loaded.packs.is_empty() {
            let engine = Engine::Composed(Box::new(loaded));
            return PyReplayer { engine, graph_file };
        }
        let engine = match registry {
            RegistryRef::Packs(p) => match p.base.clone() {
                RegistryRef::Loaded(r) => Engine::Loaded(r, Box::new(loaded)),
                _ => Engine::Builtin(Replayer::new(
                    Registry::builtin(),
                    loaded,
                    ReplayOptions::default(),
                )),
            },
            RegistryRef::Builtin => Engine::Builtin(Replayer::new(
                Registry::builtin(),
                loaded,
                ReplayOptions::default(),
            )),
            RegistryRef::Loaded(r) => Engine::Loaded(r, Box::new(loaded)),
        };
        PyReplayer { engine, graph_file }
    }

    pub fn replay_one(&self, py: Python<'_>, trace: &Bound<'_, PyAny>) -> PyResult<PyRunReport> {
        if let Ok(b) = trace.cast::<PyBytes>() {
            let bytes = b.as_bytes();
            let report = py.detach(|| self.engine.with(|r| r.replay_slice("<bytes>", bytes)));
            return Ok(PyRunReport { inner: report });
        }
        if trace.cast::<pyo3::types::PyString>().is_err() && !trace.hasattr("__fspath__")? {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument `trace` must be a path (str or os.PathLike) or bytes, not {}",
                convert::type_name(trace)
            )));
        }
        let path = convert::to_path("trace", trace)?;
        // A FIFO, device or folder is an `InputError` at once, as `primgraph replay` refuses it
        // (opening a FIFO would wait for a writer); a file over the trace limit is a malformed
        // run (D601), as there.
        match std::fs::metadata(&path) {
            Err(e) => return Err(errors::unreadable(py, &path, &e)),
            Ok(m) if !m.is_file() => {
                let refused = primgraph::InputError::not_regular(&path, m.file_type());
                return Err(errors::input(py, &path, &refused));
            }
            Ok(_) => {}
        }
        let report = py.detach(|| self.engine.with(|r| r.replay_file(&path)));
        Ok(PyRunReport { inner: report })
    }

    pub fn corpus<'py>(
        &self,
        py: Python<'py>,
        paths: &Bound<'py, PyAny>,
        jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let jobs = jobs_of(jobs)?;
        let files = traces_of(py, paths)?;
        let done = py.detach(|| self.engine.with(|r| r.replay_corpus(&files, jobs)));
        let (runs, summary) =
            done.map_err(|e| errors::raise(py, "Error", Located::new(e.to_string())))?;
        let summary = self
            .engine
            .with(|r| PySummary::of_graph(summary, r.graph()));
        reports_and_summary(py, runs, summary)
    }
}

#[pymethods]
impl PyReplayer {
    /// Load `graph` (a path) for replay against `registry` (default: the embedded one). Raises
    /// `GraphError` when the graph does not load (any G code, or R101).
    #[new]
    #[pyo3(signature = (graph, *, registry = None))]
    fn py_new(
        py: Python<'_>,
        graph: &Bound<'_, PyAny>,
        registry: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyReplayer> {
        PyReplayer::load(py, graph, registry)
    }

    /// Load a graph document given as bytes (`name` is reported in errors and reports).
    #[staticmethod]
    #[pyo3(signature = (data, *, name = "<graph>", registry = None))]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        name: &str,
        registry: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyReplayer> {
        let registry = registry::resolve(registry)?;
        let Ok(bytes) = data.cast::<PyBytes>() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument `data` must be bytes, not {}",
                convert::type_name(data)
            )));
        };
        let (graph_file, loaded) =
            load_graph_bytes(py, name.to_string(), bytes.as_bytes(), &registry)?;
        Ok(PyReplayer::of(registry, graph_file, loaded))
    }

    /// Replay one trace: a path (str or os.PathLike) or the trace's bytes.
    fn replay(&self, py: Python<'_>, trace: &Bound<'_, PyAny>) -> PyResult<PyRunReport> {
        self.replay_one(py, trace)
    }

    /// Replay trace files and folders (recursively `*.trace.jsonl`, sorted) on `jobs` threads
    /// (default: one per core): `(reports, summary)`, the reports in file order.
    #[pyo3(signature = (paths, *, jobs = None))]
    fn replay_corpus<'py>(
        &self,
        py: Python<'py>,
        paths: &Bound<'py, PyAny>,
        jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.corpus(py, paths, jobs)
    }

    /// Replay traces given as `(names, datas)` — two equal-length lists of str and bytes — one
    /// after the other on this thread: `(reports, summary)`, for traces already in memory (a Ray
    /// worker reads its batch's files itself, with `replay_corpus(names, jobs=1)`).
    fn replay_batch<'py>(
        &self,
        py: Python<'py>,
        names: &Bound<'py, PyAny>,
        datas: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let names: Vec<String> = names.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("argument `names` must be a list of str")
        })?;
        let items = datas.try_iter().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("argument `datas` must be a list of bytes")
        })?;
        let mut bytes: Vec<Vec<u8>> = Vec::with_capacity(names.len());
        for (i, item) in items.enumerate() {
            let item = item?;
            match item.cast::<PyBytes>() {
                Ok(b) => bytes.push(b.as_bytes().to_vec()),
                Err(_) => {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "argument `datas[{i}]` must be bytes, not {}",
                        convert::type_name(&item)
                    )));
                }
            }
        }
        if bytes.len() != names.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "`names` has {} items and `datas` {}",
                names.len(),
                bytes.len()
            )));
        }
        let (runs, summary) = py.detach(|| {
            self.engine.with(|r| {
                let mut summary = Ok(Summary::default());
                let runs: Vec<RunReport> = names
                    .iter()
                    .zip(&bytes)
                    .map(|(name, data)| {
                        let run = r.replay_slice(name, data);
                        if let Ok(s) = &mut summary
                            && let Err(e) = s.add(&run)
                        {
                            summary = Err(e);
                        }
                        run
                    })
                    .collect();
                (runs, summary)
            })
        });
        let summary = summary.map_err(|e| {
            errors::raise(
                py,
                "SummaryError",
                Located::new(format!(
                    "cannot sum the batch: at {}: {}",
                    e.pointer, e.message
                )),
            )
        })?;
        let summary = self
            .engine
            .with(|r| PySummary::of_graph(summary, r.graph()));
        reports_and_summary(py, runs, summary)
    }

    /// The graph's path as loaded.
    #[getter]
    fn graph_file(&self) -> String {
        self.graph_file.clone()
    }

    /// The graph's digest (`sha256:…`, RFC 8785).
    #[getter]
    fn digest(&self) -> String {
        self.engine.with(|r| r.graph().digest.clone())
    }
}

/// Replay one recorded run (`trace`: a path or the trace's bytes) against `graph` (a path).
/// Returns its `RunReport`; a graph that does not load raises `GraphError`, a trace path that
/// cannot be read `InputError`.
#[pyfunction]
#[pyo3(signature = (graph, trace, *, registry = None))]
pub fn replay(
    py: Python<'_>,
    graph: &Bound<'_, PyAny>,
    trace: &Bound<'_, PyAny>,
    registry: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyRunReport> {
    PyReplayer::load(py, graph, registry)?.replay_one(py, trace)
}

/// Replay trace files and folders (recursively `*.trace.jsonl`) against `graph` on `jobs`
/// threads: `(reports, summary)`, the same figures as `primgraph replay`.
#[pyfunction]
#[pyo3(signature = (graph, paths, *, registry = None, jobs = None))]
pub fn replay_corpus_fn<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    paths: &Bound<'py, PyAny>,
    registry: Option<&Bound<'py, PyAny>>,
    jobs: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    PyReplayer::load(py, graph, registry)?.corpus(py, paths, jobs)
}

/// Expand files and folders into the sorted list of trace files (`*.trace.jsonl`), as
/// `replay_corpus` and `primgraph replay` do.
#[pyfunction]
pub fn collect_trace_files(py: Python<'_>, paths: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    Ok(traces_of(py, paths)?
        .into_iter()
        .map(|p| p.display().to_string())
        .collect())
}

/// What `replay_corpus` and `replay_many` return: `(list of RunReport, Summary)`.
fn reports_and_summary<'py>(
    py: Python<'py>,
    runs: Vec<RunReport>,
    summary: PySummary,
) -> PyResult<Bound<'py, PyTuple>> {
    let reports = PyList::empty(py);
    for run in runs {
        reports.append(Bound::new(py, PyRunReport { inner: run })?)?;
    }
    PyTuple::new(
        py,
        [reports.into_any(), Bound::new(py, summary)?.into_any()],
    )
}
