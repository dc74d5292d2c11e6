//! One report from files, as `primgraph report` and Python's `pg.report` ask for it: load the
//! graphs (capped reads), collect the traces (a path holding none is an error, so a mistyped
//! folder never makes an empty page), replay both sides, link example traces relative to the
//! page, and write the page. The command line and the binding call this one function, so they
//! write the same bytes for the same request. A graph that declares packs is replayed against
//! its effective registry, and one that uses fragments as its expansion (SPEC §9.3), each use
//! framed in the picture and labelled with its use site (`pack::fragment_map::use_groups`).

use super::{Evaluation, Report, Side};
use crate::registry::Registry;
use crate::replay::corpus::collect_traces;
use crate::replay::{ReplayGraph, ReplayOptions, Replayer};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What to report on.
pub struct Request<'a> {
    pub registry: &'a Registry,
    /// The graph the runs are replayed against (the one drawn).
    pub graph: &'a Path,
    /// Trace files and folders (recursively `*.trace.jsonl`).
    pub runs: &'a [PathBuf],
    /// The baseline's graph and its trace files and folders.
    pub baseline: Option<(&'a Path, &'a [PathBuf])>,
    /// Replay threads (at least 1).
    pub jobs: usize,
    /// Confidence of the intervals, strictly between 0 and 1.
    pub confidence: f64,
    /// The HTML file written.
    pub out: &'a Path,
    /// The pack path (SPEC §9.2) the graphs are read with.
    pub options: &'a crate::validate::Options,
}

/// What was written: the candidate's run counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub runs: u64,
    /// Runs of the candidate that are not faithful (`primgraph report` exits 1 when any).
    pub unfaithful: u64,
}

/// Why no page was written (the message names the file or argument).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RequestError(pub String);

fn traces(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        let found = collect_traces(std::slice::from_ref(path)).map_err(|e| e.to_string())?;
        if found.is_empty() {
            return Err(format!("no *.trace.jsonl under {}", path.display()));
        }
        files.extend(found);
    }
    Ok(files)
}

/// One side replayed: its graph (expanded), its evaluation and its fragment uses framed.
type Evaluated = (ReplayGraph, Evaluation, Vec<super::svg::Cluster>);

fn evaluate(
    registry: &Registry,
    options: &crate::validate::Options,
    graph: &Path,
    paths: &[PathBuf],
    jobs: usize,
) -> Result<Evaluated, String> {
    let bytes = crate::input::read_capped(graph, crate::json::Limits::default().max_bytes)
        .map_err(|e| e.to_string())?;
    let file = graph.display().to_string();
    let loaded =
        ReplayGraph::load_with(&file, &bytes, registry, options).map_err(|e| e.located(&file))?;
    let fragments = match crate::validate::expansion_source(&file, &bytes, registry, options) {
        Ok((parsed, Some(expansion))) => {
            let (groups, _) = crate::pack::fragment_map::use_groups(&expansion, &file, &parsed);
            super::svg::fragment_clusters(&groups)
        }
        _ => Vec::new(),
    };
    let files = traces(paths)?;
    let replayer = Replayer::new(
        loaded.registry(registry),
        loaded.clone(),
        ReplayOptions::default(),
    );
    let evaluation =
        Evaluation::replay(&replayer, &files, jobs.max(1)).map_err(|e| e.to_string())?;
    Ok((replayer.graph().clone(), evaluation, fragments))
}

/// Replay, evaluate and write the page to `request.out`.
pub fn write_report(request: &Request<'_>) -> Result<Written, RequestError> {
    let fail = |e: String| RequestError(e);
    if !(request.confidence > 0.0 && request.confidence < 1.0) {
        return Err(fail(format!(
            "confidence {} is not strictly between 0 and 1",
            request.confidence
        )));
    }
    if request.runs.is_empty() {
        return Err(fail("no runs given (name trace files or folders)".into()));
    }
    let (graph, evaluation, fragments) = evaluate(
        request.registry,
        request.options,
        request.graph,
        request.runs,
        request.jobs,
    )
    .map_err(fail)?;
    let baseline = match request.baseline {
        None => None,
        Some((g, runs)) => Some(
            evaluate(request.registry, request.options, g, runs, request.jobs)
                .map_err(|e| fail(format!("baseline: {e}")))?,
        ),
    };
    // Example traces are linked relative to the page, so the page and the corpus move together.
    let out_dir = std::path::absolute(request.out)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let href = |trace: &str| -> Option<String> {
        let dir = out_dir.as_ref()?;
        let target = std::path::absolute(trace).ok()?;
        super::relative_href(dir, &target)
    };
    let graph_file = request.graph.display().to_string();
    let baseline_file = request.baseline.map(|(g, _)| g.display().to_string());
    let page = Report {
        // Contracts as the candidate's effective registry has them (its packs' primitives).
        registry: graph.registry(request.registry),
        candidate: Side {
            graph: &graph,
            evaluation: &evaluation,
            file: Some(&graph_file),
            trace_href: &href,
            fragments: &fragments,
        },
        baseline: baseline.as_ref().map(|(g, e, f)| Side {
            graph: g,
            evaluation: e,
            file: baseline_file.as_deref(),
            trace_href: &href,
            fragments: f,
        }),
        confidence: request.confidence,
    };
    let written = std::fs::File::create(request.out).and_then(|f| {
        let mut out = std::io::BufWriter::new(f);
        super::write_html(&mut out, &page)?;
        out.flush()
    });
    if let Err(e) = written {
        return Err(fail(format!("cannot write {}: {e}", request.out.display())));
    }
    Ok(Written {
        runs: evaluation.summary.runs,
        unfaithful: evaluation.summary.unfaithful(),
    })
}
