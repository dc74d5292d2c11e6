//! `primgraph.TraceWriter`: record a run from Python in the format of SPEC §4.1. The primitive
//! of each step comes from the graph; every argument is converted and checked before anything
//! is written, so a step that would break the format raises and leaves the file as it was. Each
//! event is written with one `write` call as it is recorded: nothing written is lost if the
//! process dies. Used after `end`, or after an exception inside its `with` block, the writer is
//! closed — the trace then has no end event and replays `malformed`.
//!
//! What replay would refuse is refused at `step()`: a `cost.usd` that has no integer nano-USD
//! value, a spend that passes what replay can sum, a line replay's parser or line limit refuses
//! (the library writer reads every line back before writing it) — a `ValueError` naming the
//! argument. `create()` never replaces a file silently: an existing path needs
//! `overwrite=True`, and the graph, registry and key files in use are refused even then.

use crate::convert;
use crate::errors::{self, Located};
use crate::registry::{self, RegistryRef};
use crate::replay::load_graph;
use primgraph::{
    Cost, EndStatus, Evidence, ReplayGraph, Step, StepError, StepResult, TraceWriter, WriteError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::fs::File;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    Ended,
    /// Closed without an end event (an exception, or `close()` before `end`).
    Closed,
}

/// Records one run to a `*.trace.jsonl` file. Create it with `TraceWriter.create(...)`, use it
/// as a context manager, record `step(...)`s and finish with `end("success" | "failure")`.
#[pyclass(name = "TraceWriter", module = "primgraph")]
pub struct PyTraceWriter {
    writer: Option<TraceWriter<File>>,
    state: State,
    path: String,
    graph: ReplayGraph,
    registry: RegistryRef,
    /// Lines written so far (the header is line 1).
    lines: u64,
}

fn opt<'a, 'py>(v: Option<&'a Bound<'py, PyAny>>) -> Option<&'a Bound<'py, PyAny>> {
    v.filter(|v| !v.is_none())
}

fn type_error(message: String) -> PyErr {
    pyo3::exceptions::PyTypeError::new_err(message)
}

fn step_error(value: &Bound<'_, PyAny>) -> PyResult<StepError> {
    if let Ok(mode) = value.cast::<PyString>() {
        return Ok(StepError {
            mode: mode.to_cow()?.into_owned(),
            message: String::new(),
        });
    }
    let Ok(d) = value.cast::<PyDict>() else {
        return Err(type_error(format!(
            "argument `error` must be a str (the failure mode) or a dict with `mode` and \
             `message`, not {}",
            convert::type_name(value)
        )));
    };
    let mut mode = None;
    let mut message = String::new();
    for (k, v) in d.iter() {
        let key = convert::to_str("error (a key)", &k)?;
        match key.as_str() {
            "mode" => mode = Some(convert::to_str("error.mode", &v)?),
            "message" => message = convert::to_str("error.message", &v)?,
            other => {
                return Err(type_error(format!(
                    "argument `error`: unknown key `{other}` (an error has `mode` and `message`)"
                )));
            }
        }
    }
    let Some(mode) = mode else {
        return Err(type_error("argument `error` needs a `mode`".into()));
    };
    Ok(StepError { mode, message })
}

fn evidence_list(value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Evidence>> {
    let Some(value) = opt(value) else {
        return Ok(Vec::new());
    };
    if value.cast::<PyString>().is_ok() || value.cast::<PyDict>().is_ok() {
        return Err(type_error(format!(
            "argument `evidence` must be a list of dicts with `kind` and `digest`, not {}",
            convert::type_name(value)
        )));
    }
    let iter = value.try_iter().map_err(|_| {
        type_error(format!(
            "argument `evidence` must be a list of dicts with `kind` and `digest`, not {}",
            convert::type_name(value)
        ))
    })?;
    let mut out = Vec::new();
    for (i, item) in iter.enumerate() {
        let item = item?;
        let arg = format!("evidence[{i}]");
        let Ok(d) = item.cast::<PyDict>() else {
            return Err(type_error(format!(
                "argument `{arg}` must be a dict with `kind` and `digest`, not {}",
                convert::type_name(&item)
            )));
        };
        let mut kind = None;
        let mut digest = None;
        for (k, v) in d.iter() {
            let key = convert::to_str(&format!("{arg} (a key)"), &k)?;
            match key.as_str() {
                "kind" => kind = Some(convert::to_str(&format!("{arg}.kind"), &v)?),
                "digest" => digest = Some(convert::to_str(&format!("{arg}.digest"), &v)?),
                other => {
                    return Err(type_error(format!(
                        "argument `{arg}`: unknown key `{other}` (evidence has `kind` and `digest`)"
                    )));
                }
            }
        }
        match (kind, digest) {
            (Some(kind), Some(digest)) => out.push(Evidence { kind, digest }),
            _ => {
                return Err(type_error(format!(
                    "argument `{arg}` needs both `kind` and `digest`"
                )));
            }
        }
    }
    Ok(out)
}

fn cost_of(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Cost>> {
    let Some(value) = opt(value) else {
        return Ok(None);
    };
    let Ok(d) = value.cast::<PyDict>() else {
        return Err(type_error(format!(
            "argument `cost` must be a dict with `usd` and `tokens`, not {}",
            convert::type_name(value)
        )));
    };
    let mut cost = Cost::default();
    for (k, v) in d.iter() {
        let key = convert::to_str("cost (a key)", &k)?;
        match key.as_str() {
            "usd" => {
                let number = convert::to_json("cost.usd", &v)?;
                cost.usd = number
                    .as_f64()
                    .filter(|_| number.is_number())
                    .ok_or_else(|| {
                        type_error(format!(
                            "argument `cost.usd` must be a number, not {}",
                            convert::type_name(&v)
                        ))
                    })?;
                if cost.usd < 0.0 {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "argument `cost.usd` must not be negative, not {}",
                        cost.usd
                    )));
                }
                if cost.usd_nanos().is_none() {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "argument `cost.usd` must be at most 18446744073.709551615 USD (replay \
                         sums spend in integer nano-USD), not {}",
                        cost.usd
                    )));
                }
            }
            "tokens" => {
                cost.tokens = match convert::to_json("cost.tokens", &v)? {
                    serde_json::Value::Number(n)
                        if n.is_u64() && !v.is_instance_of::<pyo3::types::PyBool>() =>
                    {
                        n.as_u64().unwrap_or(0)
                    }
                    _ => {
                        return Err(pyo3::exceptions::PyValueError::new_err(format!(
                            "argument `cost.tokens` must be a non-negative int, not {}",
                            v.repr().map(|r| r.to_string()).unwrap_or_default()
                        )));
                    }
                }
            }
            other => {
                return Err(type_error(format!(
                    "argument `cost`: unknown key `{other}` (a cost has `usd` and `tokens`)"
                )));
            }
        }
    }
    Ok(Some(cost))
}

/// Do `a` and `b` name the same file (through links, `..`, or another spelling)? A path that
/// does not exist is no file in use.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
        false
    }
    #[cfg(not(unix))]
    {
        match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

impl PyTraceWriter {
    fn located(&self, message: String) -> Located {
        Located {
            code: None,
            message,
            file: Some(self.path.clone()),
            line: Some(self.lines as u32 + 1),
            column: None,
        }
    }

    fn check_open(&self, py: Python<'_>) -> PyResult<()> {
        match self.state {
            State::Open => Ok(()),
            State::Ended => Err(errors::raise(
                py,
                "WriterClosedError",
                self.located("the run has ended: no event may follow the end".into()),
            )),
            State::Closed => Err(errors::raise(
                py,
                "WriterClosedError",
                self.located(
                    "the writer is closed (an exception left its `with` block, or close() was \
                     called): the trace has no end event"
                        .into(),
                ),
            )),
        }
    }

    fn write_error(&self, py: Python<'_>, e: WriteError) -> PyErr {
        match e {
            WriteError::BadCost(_) | WriteError::SpendOverflow(_) => {
                pyo3::exceptions::PyValueError::new_err(format!("argument {e}"))
            }
            WriteError::Unreadable { pointer, message } => {
                // The argument is the event's top-level field the pointer starts in.
                let field = pointer.split('/').nth(1).unwrap_or_default();
                let arg = match field {
                    "" => "step()".to_string(),
                    "error" | "input" | "output" | "outcome" | "evidence" | "cost" | "node"
                    | "primitive" => format!("argument `{field}`"),
                    other => format!("field `{other}`"),
                };
                pyo3::exceptions::PyValueError::new_err(format!(
                    "{arg}: replay would refuse this step{}: {message}",
                    if pointer.is_empty() {
                        String::new()
                    } else {
                        format!(" (at `{pointer}`)")
                    }
                ))
            }
            WriteError::Io(io) => errors::raise(
                py,
                "InputError",
                self.located(format!("cannot write the trace: {io}")),
            ),
            other => errors::raise(py, "TraceFormatError", self.located(other.to_string())),
        }
    }

    fn close_now(&mut self) {
        if let Some(w) = self.writer.take() {
            // Every event was written whole as it was recorded; flushing a `File` is a no-op,
            // and dropping it closes the descriptor.
            let _ = w.finish();
        }
        if self.state == State::Open {
            self.state = State::Closed;
        }
    }
}

#[pymethods]
impl PyTraceWriter {
    /// Start recording run `run` of `graph` (a path) to `path`, with the run's `input` (a dict).
    /// The header (with the graph's digest) is written at once. With `sign_key` (the path of a
    /// private key file from `primgraph keygen`) the end event is sealed (SPEC §4.1). An
    /// existing `path` is refused (`FileExistsError`) unless `overwrite=True`; the graph, the
    /// registry file and the key in use are refused even then (`ValueError`). Raises
    /// `GraphError` when the graph does not load, `InputError` for an unreadable or invalid key,
    /// `TypeError`/`ValueError` for a bad argument (nothing is created).
    #[staticmethod]
    #[pyo3(signature = (path, *, graph, run, input = None, registry = None, sign_key = None, overwrite = false))]
    #[allow(clippy::too_many_arguments)]
    fn create(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        graph: &Bound<'_, PyAny>,
        run: &Bound<'_, PyAny>,
        input: Option<&Bound<'_, PyAny>>,
        registry: Option<&Bound<'_, PyAny>>,
        sign_key: Option<&Bound<'_, PyAny>>,
        overwrite: bool,
    ) -> PyResult<PyTraceWriter> {
        let path = convert::to_path("path", path)?;
        let graph_path = convert::to_path("graph", graph)?;
        let run = convert::to_str("run", run)?;
        if run.is_empty() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "argument `run` must not be empty",
            ));
        }
        let input = match opt(input) {
            None => serde_json::Value::Object(serde_json::Map::new()),
            Some(i) => convert::to_json_object("input", i)?,
        };
        // The files this writer reads: never the one it writes.
        let mut in_use: Vec<(&str, std::path::PathBuf)> = vec![("graph", graph_path.clone())];
        if let Some(r) = opt(registry)
            && r.cast::<registry::PyRegistry>().is_ok()
        {
            let origin: String = r.getattr("origin")?.extract()?;
            if std::path::Path::new(&origin).is_file() {
                in_use.push(("registry", origin.into()));
            }
        }
        let seal = match opt(sign_key) {
            None => None,
            Some(key) => {
                let key_path = convert::to_path("sign_key", key)?;
                in_use.push(("sign_key", key_path.clone()));
                let key_name = key_path.display().to_string();
                Some(primgraph::SealKey::read(&key_path).map_err(|e| {
                    errors::raise(
                        py,
                        "InputError",
                        Located::new(e.to_string()).in_file(&key_name),
                    )
                })?)
            }
        };
        let registry = registry::resolve(registry)?;
        let (_, loaded) = load_graph(py, &graph_path, &registry)?;
        let name = path.display().to_string();
        let header_error = |e: WriteError| match e {
            WriteError::Unreadable { pointer, message }
                if pointer.is_empty() || pointer.starts_with("/input") =>
            {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "argument `input`: replay would refuse the header: {message}"
                ))
            }
            e => errors::raise(
                py,
                "TraceFormatError",
                Located {
                    line: Some(1),
                    ..Located::new(e.to_string()).in_file(&name)
                },
            ),
        };
        // The header is checked before the file is touched: a bad one creates nothing.
        TraceWriter::for_loaded_graph(std::io::sink(), &run, &loaded, input.clone())
            .map_err(header_error)?;
        for (arg, used) in &in_use {
            if same_file(&path, used) {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "argument `path`: {name} is the {} file this writer uses (argument `{arg}`); \
                     a trace is never written over it",
                    if *arg == "sign_key" { "key" } else { *arg }
                )));
            }
        }
        let opened = if overwrite {
            File::create(&path)
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
        };
        let file = opened.map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                pyo3::exceptions::PyFileExistsError::new_err((
                    17,
                    format!(
                        "{name} exists; pass overwrite=True to replace it (a trace never \
                         replaces a file silently)"
                    ),
                    name.clone(),
                ))
            } else {
                errors::raise(
                    py,
                    "InputError",
                    Located::new(format!("cannot create {name}: {e}")).in_file(&name),
                )
            }
        })?;
        let writer =
            TraceWriter::for_loaded_graph(file, &run, &loaded, input).map_err(header_error)?;
        let writer = match seal {
            Some(key) => writer.sealed(key),
            None => writer,
        };
        Ok(PyTraceWriter {
            writer: Some(writer),
            state: State::Open,
            path: name,
            graph: loaded,
            registry,
            lines: 1,
        })
    }

    /// Record one step of node `node` (its primitive comes from the graph; pass `primitive=`
    /// for a fallback step, or a node the graph does not have). Give `output=` (a dict, with
    /// `outcome=` for a decision primitive) or `error=` (a failure mode, or a dict with `mode`
    /// and `message`). Returns the step's `seq`. A step that would break the format raises
    /// `TraceFormatError` (or `TypeError`/`ValueError`) and writes nothing.
    #[pyo3(signature = (node, *, input, output = None, error = None, outcome = None, evidence = None, cost = None, primitive = None))]
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        py: Python<'_>,
        node: &Bound<'_, PyAny>,
        input: &Bound<'_, PyAny>,
        output: Option<&Bound<'_, PyAny>>,
        error: Option<&Bound<'_, PyAny>>,
        outcome: Option<&Bound<'_, PyAny>>,
        evidence: Option<&Bound<'_, PyAny>>,
        cost: Option<&Bound<'_, PyAny>>,
        primitive: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        self.check_open(py)?;
        let node = convert::to_str("node", node)?;
        let input = convert::to_json_object("input", input)?;
        let outcome = convert::to_opt_str("outcome", outcome)?;
        let result = match (opt(output), opt(error)) {
            (Some(_), Some(_)) => {
                return Err(type_error(
                    "step() takes output=… or error=…, not both".into(),
                ));
            }
            (None, None) => {
                return Err(type_error("step() needs output=… or error=…".into()));
            }
            (Some(o), None) => StepResult::Output {
                output: convert::to_json_object("output", o)?,
                outcome,
            },
            (None, Some(e)) => {
                if outcome.is_some() {
                    return Err(type_error(
                        "step(): a step that ended in an error has no outcome".into(),
                    ));
                }
                StepResult::Error(step_error(e)?)
            }
        };
        let evidence = evidence_list(evidence)?;
        let cost = cost_of(cost)?;
        let primitive = match convert::to_opt_str("primitive", primitive)? {
            Some(p) => match self.graph.registry(self.registry.get()).lookup(&p) {
                Some(prim) => prim.id.clone(),
                None => {
                    return Err(errors::raise(
                        py,
                        "TraceFormatError",
                        self.located(format!("`{p}` is not a primitive of the registry")),
                    ));
                }
            },
            None => match self.graph.index.get(&node) {
                Some(&idx) => self
                    .graph
                    .registry(self.registry.get())
                    .get(self.graph.nodes[idx].primitive)
                    .id
                    .clone(),
                None => {
                    return Err(errors::raise(
                        py,
                        "TraceFormatError",
                        self.located(format!(
                            "graph `{}` has no node `{node}` (pass primitive=… to record it anyway)",
                            self.graph.name
                        )),
                    ));
                }
            },
        };
        let step = Step {
            node,
            primitive,
            input,
            result,
            evidence,
            cost,
        };
        let Some(writer) = self.writer.as_mut() else {
            return Err(self.check_open(py).err().unwrap_or_else(|| {
                pyo3::exceptions::PyRuntimeError::new_err("the writer has no output")
            }));
        };
        let written = writer.step(&step);
        match written {
            Ok(seq) => {
                self.lines += 1;
                Ok(seq)
            }
            // A refusal of the whole line (nesting past replay's parser): name the argument
            // that alone is refused.
            Err(WriteError::Unreadable { pointer, message }) if pointer.is_empty() => {
                let reads_back = |v: &serde_json::Value| {
                    serde_json::to_vec(v)
                        .is_ok_and(|b| serde_json::from_slice::<serde_json::Value>(&b).is_ok())
                };
                let culprit = if !reads_back(&step.input) {
                    "/input"
                } else {
                    match &step.result {
                        StepResult::Output { output, .. } if !reads_back(output) => "/output",
                        _ => "",
                    }
                };
                Err(self.write_error(
                    py,
                    WriteError::Unreadable {
                        pointer: culprit.into(),
                        message,
                    },
                ))
            }
            Err(e) => Err(self.write_error(py, e)),
        }
    }

    /// Record the end of the run (`"success"` or `"failure"`) and close the file. Returns the
    /// end event's `seq`.
    fn end(&mut self, py: Python<'_>, status: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.check_open(py)?;
        let status = match convert::to_str("status", status)?.as_str() {
            "success" => EndStatus::Success,
            "failure" => EndStatus::Failure,
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "argument `status` must be \"success\" or \"failure\", not {other:?}"
                )));
            }
        };
        let Some(writer) = self.writer.as_mut() else {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "the writer has no output",
            ));
        };
        let seq = writer.end(status).map_err(|e| self.write_error(py, e))?;
        self.lines += 1;
        self.state = State::Ended;
        self.close_now();
        Ok(seq)
    }

    /// Close the file. Before `end`, the trace is left without an end event (it replays
    /// `malformed`: a recorder that stopped). Closing twice is harmless.
    fn close(&mut self) {
        self.close_now();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Leaving the `with` block closes the writer; after an exception the trace keeps every
    /// event written so far and no end event. The exception is not suppressed.
    #[pyo3(signature = (_exc_type = None, _exc = None, _tb = None))]
    fn __exit__(
        &mut self,
        _exc_type: Option<&Bound<'_, PyAny>>,
        _exc: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close_now();
        false
    }

    /// The trace file's path.
    #[getter]
    fn path(&self) -> String {
        self.path.clone()
    }

    /// Events written after the header (the last `seq`).
    #[getter]
    fn seq(&self) -> u64 {
        self.lines - 1
    }

    /// True once the run has ended or the writer was closed.
    #[getter]
    fn closed(&self) -> bool {
        self.state != State::Open
    }

    /// True once `end` was recorded.
    #[getter]
    fn ended(&self) -> bool {
        self.state == State::Ended
    }

    fn __repr__(&self) -> String {
        let state = match self.state {
            State::Open => "open",
            State::Ended => "ended",
            State::Closed => "closed",
        };
        format!(
            "TraceWriter(path={:?}, graph={:?}, seq={}, {state})",
            self.path,
            self.graph.name,
            self.lines - 1
        )
    }
}
