//! Validation driver (SPEC §3): parse each file with the spanned JSON parser (G001/G002), load it
//! into a `GraphDoc` (G003), run every rule of `crate::rules` on the shared model, resolve each
//! diagnostic's pointer to a line and column, and sort. Files are independent: one broken file
//! never hides the diagnostics of another, and many files are checked in parallel (rayon) with
//! the reports in a stable order.

use crate::codes;
use crate::diagnostic::{Diagnostic, FileReport};
use crate::registry::Registry;
use crate::rules;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Limits on the input document.
    pub limits: crate::json::Limits,
}

/// Why validation of a set of paths could not run.
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start {jobs} worker threads: {message}")]
    Threads { jobs: usize, message: String },
}

/// The deterministic order of diagnostics: line, column, code, pointer, message.
pub fn sort_diagnostics(diagnostics: &mut [Diagnostic]) {
    crate::diagnostic::sort(diagnostics);
}

/// Check one graph document given as bytes; `file` is the name reported.
pub fn check_source(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &Options,
) -> FileReport {
    let parsed = match crate::json::parse(bytes, &options.limits) {
        Ok(parsed) => parsed,
        Err(error) => {
            let d = rules::g002_duplicate_key::diagnostic(&error)
                .unwrap_or_else(|| rules::g001_invalid_json::diagnostic(&error));
            // Only a document that does not parse needs its own (lossy) copy of the source; a
            // parsed one shares the parser's.
            return FileReport {
                file: file.to_string(),
                graph: None,
                diagnostics: vec![d],
                source: Arc::from(String::from_utf8_lossy(bytes).as_ref()),
            };
        }
    };
    let mut report = FileReport {
        file: file.to_string(),
        graph: None,
        diagnostics: Vec::new(),
        source: parsed.source_arc(),
    };
    report.graph = parsed
        .value
        .get("graph")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string);
    let mut diagnostics = match crate::graph::load(&parsed.value) {
        Err(errors) => errors
            .iter()
            .map(rules::g003_document_shape::diagnostic)
            .collect(),
        Ok(doc) => rules::run_all(&doc, registry),
    };
    crate::diagnostic::resolve(&mut diagnostics, &parsed);
    sort_diagnostics(&mut diagnostics);
    report.diagnostics = diagnostics;
    report
}

/// Read and check one file.
pub fn check_file(
    path: &Path,
    registry: &Registry,
    options: &Options,
) -> Result<FileReport, ValidateError> {
    let bytes = std::fs::read(path).map_err(|source| ValidateError::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok(check_source(
        &path.display().to_string(),
        &bytes,
        registry,
        options,
    ))
}

/// Check every file in parallel on `jobs` threads (0: one per core); the reports come back in
/// the order of `paths`. Fails when a file cannot be read.
pub fn try_check_paths(
    paths: &[PathBuf],
    registry: &Registry,
    options: &Options,
    jobs: usize,
) -> Result<Vec<FileReport>, ValidateError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| ValidateError::Threads {
            jobs,
            message: e.to_string(),
        })?;
    pool.install(|| {
        paths
            .par_iter()
            .map(|path| check_file(path, registry, options))
            .collect()
    })
}

/// Check every file in parallel on `jobs` threads (0: one per core), reports in the order of
/// `paths`. A file that cannot be read gets a report with one G001 diagnostic saying so (use
/// [`try_check_paths`] to treat that as a failure of the whole run instead).
pub fn check_paths(
    paths: &[PathBuf],
    registry: &Registry,
    options: &Options,
    jobs: usize,
) -> Vec<FileReport> {
    let run = |path: &PathBuf| match check_file(path, registry, options) {
        Ok(report) => report,
        Err(error) => FileReport {
            file: path.display().to_string(),
            graph: None,
            diagnostics: vec![{
                let mut d = codes::G001
                    .at("", error.to_string())
                    .with_help("check that the path names a readable graph file");
                d.line = 1;
                d.column = 1;
                d
            }],
            source: Arc::from(""),
        },
    };
    match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
        Ok(pool) => pool.install(|| paths.par_iter().map(run).collect()),
        Err(_) => paths.iter().map(run).collect(),
    }
}

fn is_graph_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".graph.json"))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        // Symlinked directories are not followed (no loops); symlinked files are.
        if kind.is_dir() {
            walk(&path, out)?;
        } else if is_graph_file(&path) && std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            out.push(path);
        }
    }
    Ok(())
}

/// Expand files and folders (recursively `*.graph.json`) into a sorted, deduplicated list of
/// files. A file named explicitly is kept whatever its name; a path that does not exist is an
/// error.
pub fn collect_paths(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        if metadata.is_dir() {
            walk(path, &mut files)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        } else {
            files.push(path.clone());
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}
