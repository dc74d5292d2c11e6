//! The native half of the `primgraph` Python package (`primgraph._primgraph`): the registry,
//! validation, the trace writer, replay and the corpus summary, over the same engine as the
//! command line. Work in Rust runs with the GIL released (`Python::detach`); every bad argument
//! is a `TypeError`/`ValueError` naming it, every failure of the engine an exception of
//! `primgraph._errors` carrying the code and the location.

#![forbid(unsafe_code)]

mod convert;
mod errors;
mod import_runs;
mod registry;
mod replay;
mod report;
mod summary;
mod validate;
mod writer;

use pyo3::prelude::*;

#[pymodule]
fn _primgraph(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<registry::PyRegistry>()?;
    m.add_class::<validate::PyValidationReport>()?;
    m.add_class::<writer::PyTraceWriter>()?;
    m.add_class::<replay::PyReplayer>()?;
    m.add_class::<replay::PyRunReport>()?;
    m.add_class::<summary::PySummary>()?;
    m.add_function(wrap_pyfunction!(validate::validate, m)?)?;
    m.add_function(wrap_pyfunction!(validate::expand, m)?)?;
    m.add_function(wrap_pyfunction!(replay::replay, m)?)?;
    m.add(
        "replay_corpus",
        wrap_pyfunction!(replay::replay_corpus_fn, m)?,
    )?;
    m.add_function(wrap_pyfunction!(replay::collect_trace_files, m)?)?;
    m.add_function(wrap_pyfunction!(report::report, m)?)?;
    m.add_function(wrap_pyfunction!(import_runs::import_runs, m)?)?;
    m.add("ABI", primgraph::Registry::builtin().abi())?;
    Ok(())
}
