//! Raising the package's exceptions (defined in Python, `primgraph/_errors.py`, so that they
//! are ordinary classes with documented attributes): each carries `code`, `message`, `file`,
//! `line` and `column`.

use primgraph::Diagnostic;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Where an error points and what it is.
#[derive(Debug, Default, Clone)]
pub struct Located {
    pub code: Option<String>,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl Located {
    pub fn new(message: impl Into<String>) -> Located {
        Located {
            message: message.into(),
            ..Located::default()
        }
    }

    pub fn in_file(mut self, file: impl Into<String>) -> Located {
        self.file = Some(file.into());
        self
    }

    /// From a diagnostic that has been resolved to a line and column.
    pub fn of_diagnostic(d: &Diagnostic, file: &str) -> Located {
        Located {
            code: Some(d.code.to_string()),
            message: d.message.clone(),
            file: Some(file.to_string()),
            line: (d.line > 0).then_some(d.line),
            column: (d.column > 0).then_some(d.column),
        }
    }
}

/// An exception of class `class` (a name in `primgraph._errors`).
pub fn raise(py: Python<'_>, class: &str, located: Located) -> PyErr {
    match build(py, class, &located) {
        Ok(err) => err,
        Err(err) => err,
    }
}

fn build(py: Python<'_>, class: &str, l: &Located) -> PyResult<PyErr> {
    let cls = py.import("primgraph._errors")?.getattr(class)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("code", l.code.as_deref())?;
    kwargs.set_item("file", l.file.as_deref())?;
    kwargs.set_item("line", l.line)?;
    kwargs.set_item("column", l.column)?;
    let instance = cls.call((l.message.as_str(),), Some(&kwargs))?;
    Ok(PyErr::from_value(instance))
}

/// `InputError` for a named input refused by `primgraph::read_input` (not a regular file, over its
/// size limit, or unreadable); the message names the path.
pub fn input(py: Python<'_>, path: &std::path::Path, error: &primgraph::InputError) -> PyErr {
    // The message without the path its display starts with: `file` carries it, and the
    // exception's text names it once.
    let text = error.to_string();
    let message = text
        .strip_prefix(error.path())
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(&text);
    raise(
        py,
        "InputError",
        Located::new(message.to_string()).in_file(path.display().to_string()),
    )
}

/// `InputError` for a file that cannot be read.
pub fn unreadable(py: Python<'_>, path: &std::path::Path, error: &std::io::Error) -> PyErr {
    let file = path.display().to_string();
    raise(
        py,
        "InputError",
        Located::new(format!("cannot read: {error}")).in_file(file),
    )
}
