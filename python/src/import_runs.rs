//! `primgraph.import_runs` (SPEC §10 from Python): runs recorded by Inspect AI, OpenTelemetry or
//! the OpenAI Agents SDK written as traces into a folder, the same engine as `primgraph import`,
//! with the GIL released while sources are read and traces written. What cannot start (a format
//! that is not one, a graph, mapping file or key that does not load, a source that cannot be
//! found) raises before anything is written; findings in the sources (I901–I904) are returned in
//! the report, and with `strict=True` (the default) an I901 error raises `InputError` once the
//! import is done — carrying the code, file, line and column, the zip `entry`, `sample` and JSON
//! `pointer`, and the whole `report` — the runs that could be read having been written.

use crate::convert;
use crate::errors::{self, Located};
use crate::registry;
use crate::replay::load_graph;
use primgraph::SealKey;
use primgraph::import::{
    DEFAULT_MAX_ENTRY_BYTES, Format, ImportOptions, ImportReport, Mapping, collect_sources,
    import_paths,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Import runs recorded by another tool as traces; returns the report as a dict: `runs` (one
/// per trace written: `run`, `trace`, `steps`, `partial_steps`, `unmapped_steps`, `end`),
/// `diagnostics` (each with `code`, `severity`, `message`, `file`, `entry`, `sample`,
/// `pointer`, `line`, `column`) and `summary` (`sources`, `runs`, `steps`, `partial_steps`,
/// `unmapped`, `errors`, `warnings`).
#[pyfunction]
#[pyo3(signature = (
    format, sources, *, graph, out, map = None, sign = None, registry = None,
    max_entry_bytes = DEFAULT_MAX_ENTRY_BYTES, strict = true
))]
#[allow(clippy::too_many_arguments)]
pub fn import_runs<'py>(
    py: Python<'py>,
    format: &Bound<'py, PyAny>,
    sources: &Bound<'py, PyAny>,
    graph: &Bound<'py, PyAny>,
    out: &Bound<'py, PyAny>,
    map: Option<&Bound<'py, PyAny>>,
    sign: Option<&Bound<'py, PyAny>>,
    registry: Option<&Bound<'py, PyAny>>,
    max_entry_bytes: u64,
    strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let name = convert::to_str("format", format)?;
    let Some(format) = Format::parse(&name) else {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "format: {name:?} is not one of \"inspect\", \"otel\", \"openai-agents\""
        )));
    };
    let sources = convert::to_paths("sources", sources)?;
    let out = convert::to_path("out", out)?;
    let registry = registry::resolve(registry)?;
    let graph_path = convert::to_path("graph", graph)?;
    let (_, graph) = load_graph(py, &graph_path, &registry)?;
    let mapping = match map.filter(|m| !m.is_none()) {
        None => Mapping::default(),
        Some(m) => {
            let path = convert::to_path("map", m)?;
            // As the CLI reads `--map`: a regular file of at most 16 MiB.
            let bytes =
                primgraph::read_input(&path, 16 << 20).map_err(|e| errors::input(py, &path, &e))?;
            let file = path.display().to_string();
            let text = String::from_utf8(bytes).map_err(|e| {
                errors::raise(
                    py,
                    "InputError",
                    Located::new(format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()))
                        .in_file(&file),
                )
            })?;
            Mapping::parse(&file, &text, &graph).map_err(|e| {
                errors::raise(
                    py,
                    "InputError",
                    Located {
                        code: None,
                        message: e.message.clone(),
                        file: Some(e.file.clone()),
                        line: Some(e.line as u32),
                        column: Some(e.column as u32),
                    },
                )
            })?
        }
    };
    let seal = match sign.filter(|s| !s.is_none()) {
        None => None,
        Some(s) => {
            let path = convert::to_path("sign", s)?;
            Some(SealKey::read(&path).map_err(|e| {
                errors::raise(
                    py,
                    "InputError",
                    Located::new(e.to_string()).in_file(path.display().to_string()),
                )
            })?)
        }
    };
    let files = py
        .detach(|| collect_sources(format, &sources))
        .map_err(|e| {
            errors::raise(
                py,
                "InputError",
                Located::new(e.error.to_string()).in_file(e.path.display().to_string()),
            )
        })?;
    let registry_ref = registry.get();
    let result = py.detach(|| {
        import_paths(
            format,
            &files,
            ImportOptions {
                registry: registry_ref,
                graph: &graph,
                mapping,
                out: out.clone(),
                seal,
                max_entry_bytes,
            },
        )
    });
    let report = result.map_err(|e| {
        errors::raise(
            py,
            "InputError",
            Located::new(e.to_string()).in_file(out.display().to_string()),
        )
    })?;
    let dict = convert::to_py(py, &report.to_json())?;
    if strict && report.summary.errors > 0 {
        return Err(source_error(py, &report, &dict));
    }
    Ok(dict)
}

/// `InputError` for the first I901 error of a report, with its location and the report.
fn source_error(py: Python<'_>, report: &ImportReport, dict: &Bound<'_, PyAny>) -> PyErr {
    let Some(first) = report
        .diagnostics
        .iter()
        .find(|d| d.diagnostic.severity == primgraph::Severity::Error)
    else {
        return errors::raise(py, "InputError", Located::new("the import found errors"));
    };
    let l = &first.location;
    let more = report.summary.errors - 1;
    let mut message = format!("{}: {}", l.describe(), first.diagnostic.message);
    if more > 0 {
        message.push_str(&format!(" (and {more} more error(s): see .report)"));
    }
    let err = errors::raise(
        py,
        "InputError",
        Located {
            code: Some(first.diagnostic.code.to_string()),
            message,
            file: Some(l.file.clone()),
            line: (l.line > 0).then_some(l.line),
            column: (l.column > 0).then_some(l.column),
        },
    );
    let value = err.value(py);
    let attrs = PyDict::new(py);
    let set = || -> PyResult<()> {
        attrs.set_item("entry", l.entry.as_deref())?;
        attrs.set_item("sample", l.sample.as_deref())?;
        attrs.set_item("pointer", l.pointer.as_str())?;
        attrs.set_item("report", dict)?;
        for (k, v) in attrs.iter() {
            value.setattr(k.extract::<String>()?, v)?;
        }
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}
