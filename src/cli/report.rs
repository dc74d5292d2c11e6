//! `primgraph report --graph G RUNS… [--baseline-graph G0 --baseline RUNS0…] --out report.html`
//! (SPEC §11): replay the runs (and the baseline's), fold them into the report's aggregates and
//! write one self-contained HTML page. Exit codes as `replay`: 0 when every run of the candidate
//! is faithful, 1 otherwise (the page is written either way), 2 when the command cannot run (a
//! graph that does not load, a folder with no traces, an unwritable `--out`).

use primgraph::replay::corpus::collect_traces;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use primgraph::report::{self, Evaluation, Report, Side};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The graph the runs are replayed against (the one drawn).
    #[arg(long)]
    pub graph: PathBuf,
    /// Trace files and folders (recursively `*.trace.jsonl`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The baseline's graph, compared with `--graph`.
    #[arg(long, value_name = "GRAPH", requires = "baseline")]
    pub baseline_graph: Option<PathBuf>,
    /// The baseline's trace files and folders.
    #[arg(long, value_name = "RUNS", num_args = 1.., requires = "baseline_graph")]
    pub baseline: Vec<PathBuf>,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Replay threads (default: the machine's cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Confidence of the intervals, strictly between 0 and 1.
    #[arg(long, default_value_t = report::DEFAULT_CONFIDENCE)]
    pub confidence: f64,
    /// The HTML file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// The trace files under `paths`; a folder holding none is an error (a mistyped path must not
/// make an empty report).
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

fn evaluate(
    registry: &'static primgraph::registry::Registry,
    graph: &Path,
    paths: &[PathBuf],
    jobs: usize,
) -> Result<(ReplayGraph, Evaluation), String> {
    let loaded = super::replay::load_graph(graph, registry)?;
    let files = traces(paths)?;
    let replayer = Replayer::new(registry, loaded, ReplayOptions::default());
    let evaluation = Evaluation::replay(&replayer, &files, jobs).map_err(|e| e.to_string())?;
    Ok((replayer.graph().clone(), evaluation))
}

pub fn run(args: ReportArgs) -> ExitCode {
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        return super::usage_error(format!(
            "--confidence {} is not strictly between 0 and 1",
            args.confidence
        ));
    }
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let jobs = super::io::jobs(args.jobs.unwrap_or(0));
    let (graph, evaluation) = match evaluate(registry, &args.graph, &args.paths, jobs) {
        Ok(x) => x,
        Err(e) => return super::usage_error(e),
    };
    let baseline = match &args.baseline_graph {
        None => None,
        Some(g) => match evaluate(registry, g, &args.baseline, jobs) {
            Ok(x) => Some(x),
            Err(e) => return super::usage_error(format!("baseline: {e}")),
        },
    };
    // Example traces are linked relative to the page, so the page and the corpus move together.
    let out_dir = std::path::absolute(&args.out)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let href = |trace: &str| -> Option<String> {
        let dir = out_dir.as_ref()?;
        let target = std::path::absolute(trace).ok()?;
        report::relative_href(dir, &target)
    };
    let graph_file = args.graph.display().to_string();
    let baseline_file = args
        .baseline_graph
        .as_ref()
        .map(|p| p.display().to_string());
    let page = Report {
        registry,
        candidate: Side {
            graph: &graph,
            evaluation: &evaluation,
            file: Some(&graph_file),
            trace_href: &href,
        },
        baseline: baseline.as_ref().map(|(g, e)| Side {
            graph: g,
            evaluation: e,
            file: baseline_file.as_deref(),
            trace_href: &href,
        }),
        confidence: args.confidence,
    };
    let written = std::fs::File::create(&args.out).and_then(|f| {
        let mut out = std::io::BufWriter::new(f);
        report::write_html(&mut out, &page)?;
        out.flush()
    });
    if let Err(e) = written {
        return super::usage_error(format!("cannot write {}: {e}", args.out.display()));
    }
    if evaluation.summary.unfaithful() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
