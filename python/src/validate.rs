//! `primgraph.validate`: one graph, from a path or from text, to a `ValidationReport` whose
//! diagnostics are dicts shaped as SPEC §3.1's JSON.

use crate::convert;
use crate::errors;
use crate::registry;
use primgraph::{FileReport, Severity};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// The diagnostics of one graph document (SPEC §3.1), sorted by line, column and code.
#[pyclass(name = "ValidationReport", module = "primgraph", frozen)]
pub struct PyValidationReport {
    report: FileReport,
}

fn diagnostics_of<'py>(
    py: Python<'py>,
    report: &FileReport,
    keep: impl Fn(Severity) -> bool,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in report.diagnostics.iter().filter(|d| keep(d.severity)) {
        let value = serde_json::to_value(d)
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        list.append(convert::to_py(py, &value)?)?;
    }
    Ok(list)
}

#[pymethods]
impl PyValidationReport {
    /// True when there is no error (warnings and infos allowed).
    #[getter]
    fn ok(&self) -> bool {
        !self
            .report
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// Every diagnostic, as §3.1 dicts: `code`, `severity`, `message`, `pointer`, `line`,
    /// `column`, `related`, and `witness`/`help` where there is one.
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diagnostics_of(py, &self.report, |_| true)
    }

    /// The error-severity diagnostics.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diagnostics_of(py, &self.report, |s| s == Severity::Error)
    }

    /// The warning-severity diagnostics.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diagnostics_of(py, &self.report, |s| s == Severity::Warning)
    }

    /// The file name reported (the path, or the `file=` given with `text=`).
    #[getter]
    fn file(&self) -> String {
        self.report.file.clone()
    }

    /// The graph's `graph` name, when the document got that far.
    #[getter]
    fn graph(&self) -> Option<String> {
        self.report.graph.clone()
    }

    /// The report as `primgraph validate --format json` prints it for this one file.
    fn to_json(&self) -> String {
        primgraph::diagnostics_json(std::slice::from_ref(&self.report))
    }

    fn __bool__(&self) -> bool {
        self.ok()
    }

    fn __repr__(&self) -> String {
        let count = |s: Severity| {
            self.report
                .diagnostics
                .iter()
                .filter(|d| d.severity == s)
                .count()
        };
        format!(
            "ValidationReport(file={:?}, ok={}, errors={}, warnings={})",
            self.report.file,
            if self.ok() { "True" } else { "False" },
            count(Severity::Error),
            count(Severity::Warning)
        )
    }
}

/// Validate one graph document (SPEC §3): give its `path`, or its `text` (str or bytes) with an
/// optional `file` name for the report. Returns a `ValidationReport`; raises `InputError` when
/// the path cannot be read.
#[pyfunction]
#[pyo3(signature = (path = None, *, text = None, registry = None, file = None))]
pub fn validate(
    py: Python<'_>,
    path: Option<&Bound<'_, PyAny>>,
    text: Option<&Bound<'_, PyAny>>,
    registry: Option<&Bound<'_, PyAny>>,
    file: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyValidationReport> {
    let registry = registry::resolve(registry)?;
    let path = path.filter(|p| !p.is_none());
    let text = text.filter(|t| !t.is_none());
    let file = convert::to_opt_str("file", file)?;
    let (name, bytes) = match (path, text) {
        (Some(_), Some(_)) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "validate() takes a path or text=…, not both",
            ));
        }
        (None, None) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "validate() needs a path or text=…",
            ));
        }
        (Some(p), None) => {
            // A named file is read as `primgraph validate` reads it: a regular file only (a FIFO or
            // device is an `InputError` at once), and one over the size limit a G001 finding.
            let p = convert::to_path("path", p)?;
            let checked = py.detach(|| {
                // With the registry's pack path (`with_packs`), as text is validated below.
                primgraph::validate_path_with(&p, registry.get(), &registry.options())
            });
            let mut report = checked.map_err(|e| match e {
                primgraph::ValidateError::Input(e) => errors::input(py, &p, &e),
                other => errors::raise(py, "InputError", errors::Located::new(other.to_string())),
            })?;
            if let Some(file) = file {
                report.file = file;
            }
            return Ok(PyValidationReport { report });
        }
        (None, Some(t)) => {
            let bytes = if let Ok(s) = t.cast::<pyo3::types::PyString>() {
                s.to_cow()?.as_bytes().to_vec()
            } else if let Ok(b) = t.cast::<pyo3::types::PyBytes>() {
                b.as_bytes().to_vec()
            } else {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "argument `text` must be str or bytes, not {}",
                    convert::type_name(t)
                )));
            };
            (file.unwrap_or_else(|| "<text>".to_string()), bytes)
        }
    };
    let report =
        py.detach(|| primgraph::validate_bytes(&name, &bytes, registry.get(), &registry.options()));
    Ok(PyValidationReport { report })
}

/// The expanded document of a graph (SPEC §9.3, `primgraph graph expand`): every fragment use
/// replaced by the fragment's nodes (IDs `use/node`). `packs` is the pack path (folders: a pack,
/// or a folder of packs). Returns the document as Python values (a graph without uses comes
/// back as it is); raises `GraphError` (with the first error's code and location, in the
/// fragment file when it is there) when a use does not expand, `InputError` when the path
/// cannot be read.
#[pyfunction]
#[pyo3(signature = (path, *, packs = None, registry = None))]
pub fn expand<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    packs: Option<&Bound<'py, PyAny>>,
    registry: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let registry = registry::resolve(registry)?;
    let path = convert::to_path("path", path)?;
    let packs = match packs.filter(|p| !p.is_none()) {
        Some(p) => convert::to_paths("packs", p)?,
        None => Vec::new(),
    };
    let bytes = primgraph::read_input(&path, primgraph::MAX_GRAPH_BYTES)
        .map_err(|e| errors::input(py, &path, &e))?;
    let file = path.display().to_string();
    let reg = registry.get();
    let base_of = |r: &registry::RegistryRef| match r {
        registry::RegistryRef::Loaded(r) => Some(r.clone()),
        _ => None,
    };
    // A registry made `with_packs` brings its pack path; `packs=` names one explicitly.
    let options = match (&registry, packs.is_empty()) {
        (registry::RegistryRef::Packs(set), true) => {
            primgraph::ValidateOptions::with_packs(&set.packs)
        }
        (registry::RegistryRef::Packs(set), false) => primgraph::ValidateOptions::with_packs(
            &primgraph::Packs::scan(base_of(&set.base), &packs),
        ),
        (r, _) => {
            primgraph::ValidateOptions::with_packs(&primgraph::Packs::scan(base_of(r), &packs))
        }
    };
    let result = py.detach(|| primgraph::expand_graph(&file, &bytes, reg, &options));
    match result {
        Ok(value) => convert::to_py(py, &value),
        Err(report) => {
            let first = report
                .diagnostics
                .iter()
                .find(|d| d.severity == Severity::Error)
                .or(report.diagnostics.first());
            let located = match first {
                Some(d) => errors::Located::of_diagnostic(d, d.file.as_deref().unwrap_or(&file)),
                None => errors::Located::new(format!("{file} does not expand")).in_file(&file),
            };
            Err(errors::raise(py, "GraphError", located))
        }
    }
}
