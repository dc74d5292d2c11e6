//! `primgraph compare BASELINE CANDIDATE` (SPEC §6.3): compare two evaluations, each a summary
//! file (`replay --summary-out`) or, with `--baseline-graph G --baseline PATH…` /
//! `--candidate-graph G --candidate PATH…`, runs replayed first (both sides at once). Prints the
//! metrics as an aligned table (colour on a terminal unless `NO_COLOR`), Markdown or JSON.
//! Exit 1 when a metric named in `--fail-on` regressed, else 0; 2 when the command cannot run.
//!
//! `--metrics` keeps the rows of the metrics named, `--changes-only` the rows labelled a
//! regression or an improvement; both only shape what is printed (every format), never what
//! `--fail-on` decides, which reads the whole comparison. `--fail-on visits_per_run` is refused:
//! that metric is never labelled, so it could never fail the run. Replaying a side shows a
//! progress bar on a terminal (stderr).

use indicatif::{ProgressBar, ProgressDrawTarget};
use primgraph::compare::{self, METRICS};
use primgraph::replay::corpus::{collect_traces, replay_corpus};
use primgraph::replay::summary::GraphIdentity;
use primgraph::replay::summary_file::SummaryFile;
use primgraph::replay::{ReplayOptions, Replayer};
use serde_json::Value;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned table (colour on a terminal unless `NO_COLOR`).
    Human,
    /// The SPEC §6.3 document.
    Json,
    /// A table for a pull-request comment.
    Markdown,
}

/// The metrics `--fail-on` accepts: every metric that can be labelled a regression.
const FAIL_ON_HELP: &str = "Exit 1 when one of these metrics regressed (comma-separated): \
failure_rate, faithful_rate, mean_spend_usd, mean_steps, paired_success, success_rate \
(not visits_per_run, which is never labelled and so can never regress)";

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Summary files (`replay --summary-out`): the baseline, then the candidate. A side given
    /// with `--baseline-graph`/`--candidate-graph` takes no file.
    #[arg(value_name = "SUMMARY", num_args = 0..=2)]
    pub summaries: Vec<PathBuf>,
    /// Replay the baseline's runs against this graph instead of reading a summary.
    #[arg(long, value_name = "G", requires = "baseline")]
    pub baseline_graph: Option<PathBuf>,
    /// The baseline's trace files and folders (with `--baseline-graph`).
    #[arg(long, value_name = "PATH", num_args = 1.., requires = "baseline_graph")]
    pub baseline: Vec<PathBuf>,
    /// Replay the candidate's runs against this graph instead of reading a summary.
    #[arg(long, value_name = "G", requires = "candidate")]
    pub candidate_graph: Option<PathBuf>,
    /// The candidate's trace files and folders (with `--candidate-graph`).
    #[arg(long, value_name = "PATH", num_args = 1.., requires = "candidate_graph")]
    pub candidate: Vec<PathBuf>,
    /// The confidence level of every interval, strictly between 0 and 1.
    #[arg(long, value_name = "C", default_value_t = 0.95)]
    pub confidence: f64,
    #[arg(long, value_name = "METRIC,…", value_delimiter = ',', help = FAIL_ON_HELP)]
    pub fail_on: Vec<String>,
    /// Print only these metrics (comma-separated names, as for `--fail-on`, plus
    /// visits_per_run).
    #[arg(long, value_name = "METRIC,…", value_delimiter = ',')]
    pub metrics: Vec<String>,
    /// Print only the rows labelled a regression or an improvement.
    #[arg(long)]
    pub changes_only: bool,
    /// A registry file instead of the embedded Kernel ABI 1.0.0 (for replayed sides).
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Replay threads in all (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

/// Where one side's summary comes from.
enum Source {
    File(PathBuf),
    Replay { graph: PathBuf, paths: Vec<PathBuf> },
}

/// The largest summary file read (64 MiB, as for graphs).
const MAX_SUMMARY_BYTES: usize = 64 << 20;

/// One side of the comparison: its summary, and the graph it was replayed against when the
/// source names it.
struct Side {
    graph: Option<GraphIdentity>,
    summary: primgraph::Summary,
}

/// Read a summary file (a regular file of at most [`MAX_SUMMARY_BYTES`]): `replay
/// --summary-out`'s, or the bare summary the Python API's `Summary.to_json()` writes (SPEC
/// §6.3: "a summary file (`replay --summary-out`, or the Python API)"), which names no graph.
/// Errors are `FILE:LINE:COL: …` or `FILE: at POINTER: …`.
fn read_summary_file(path: &Path) -> Result<Side, String> {
    let bytes = super::io::read_input(path, MAX_SUMMARY_BYTES)?;
    let located = |e: primgraph::SummaryError| match e.line {
        Some(_) => format!("{}:{e}", path.display()),
        None => format!("{}: {e}", path.display()),
    };
    match SummaryFile::from_slice(&bytes) {
        Ok(file) => Ok(Side {
            graph: Some(file.graph),
            summary: file.summary,
        }),
        Err(e) if is_bare_summary(&bytes) => primgraph::Summary::from_slice(&bytes)
            .map(|summary| Side {
                graph: None,
                summary,
            })
            .map_err(|_| located(e)),
        Err(e) => Err(located(e)),
    }
}

/// Whether a document that is no summary file is an object with no `format` but a summary's
/// `runs` (what `Summary.to_json()` writes).
fn is_bare_summary(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|v| {
        v.get("format").is_none() && v.get("summary").is_none() && v.get("runs").is_some()
    })
}

fn replay_side(
    registry: &'static primgraph::registry::Registry,
    packs: &super::pack_path::PackArgs,
    graph: &Path,
    paths: &[PathBuf],
    jobs: usize,
    bar: &ProgressBar,
) -> Result<SummaryFile, String> {
    let composer = packs.discover(registry)?;
    let graph = super::replay::load_graph_with(graph, registry, composer)?;
    // A graph that declares packs replays against their effective registry (SPEC §9.2).
    let composition = graph.composition.clone();
    let registry: &primgraph::registry::Registry =
        composition.as_ref().map_or(registry, |c| &c.registry);
    let files = collect_traces(paths).map_err(|e| e.to_string())?;
    bar.inc_length(files.len() as u64);
    let identity = GraphIdentity {
        name: graph.name.clone(),
        digest: graph.digest.clone(),
    };
    let replayer = Replayer::new(registry, graph, ReplayOptions::default());
    let (_, summary) =
        replay_corpus(&replayer, &files, jobs, &|| bar.inc(1)).map_err(|e| e.to_string())?;
    Ok(SummaryFile {
        graph: identity,
        summary,
    })
}

fn load_side(
    source: &Source,
    registry: &Option<PathBuf>,
    packs: &super::pack_path::PackArgs,
    jobs: usize,
    bar: &ProgressBar,
) -> Result<Side, String> {
    match source {
        Source::File(path) => read_summary_file(path),
        Source::Replay { graph, paths } => {
            let registry = super::load_registry(registry)?;
            let file = replay_side(registry, packs, graph, paths, jobs, bar)?;
            Ok(Side {
                graph: Some(file.graph),
                summary: file.summary,
            })
        }
    }
}

fn sources(args: &CompareArgs) -> Result<(Source, Source), String> {
    let mut files = args.summaries.iter().cloned();
    let mut side = |graph: &Option<PathBuf>, paths: &[PathBuf], name: &str| match graph {
        Some(g) => Ok(Source::Replay {
            graph: g.clone(),
            paths: paths.to_vec(),
        }),
        None => files.next().map(Source::File).ok_or_else(|| {
            format!("no {name}: give a summary file or --{name}-graph G --{name} PATH…")
        }),
    };
    let baseline = side(&args.baseline_graph, &args.baseline, "baseline")?;
    let candidate = side(&args.candidate_graph, &args.candidate, "candidate")?;
    if files.next().is_some() {
        return Err("too many summary files: a side given with --…-graph takes none".into());
    }
    Ok((baseline, candidate))
}

pub fn run(args: CompareArgs) -> ExitCode {
    if !compare::valid_confidence(args.confidence) {
        return super::usage_error(format!(
            "--confidence {} is not strictly between 0 and 1",
            args.confidence
        ));
    }
    let can_regress: Vec<&str> = METRICS
        .iter()
        .copied()
        .filter(|m| *m != "visits_per_run")
        .collect();
    if let Some(never) = args.fail_on.iter().find(|m| *m == "visits_per_run") {
        return super::usage_error(format!(
            "--fail-on: `{never}` is reported but never labelled, so it can never regress (one of {})",
            can_regress.join(", ")
        ));
    }
    if let Some(unknown) = args.fail_on.iter().find(|m| !METRICS.contains(&m.as_str())) {
        return super::usage_error(format!(
            "--fail-on: unknown metric `{unknown}` (one of {})",
            can_regress.join(", ")
        ));
    }
    if let Some(unknown) = args.metrics.iter().find(|m| !METRICS.contains(&m.as_str())) {
        return super::usage_error(format!(
            "--metrics: unknown metric `{unknown}` (one of {})",
            METRICS.join(", ")
        ));
    }
    let (baseline, candidate) = match sources(&args) {
        Ok(s) => s,
        Err(e) => return super::usage_error(e),
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Both sides at once, each on half the threads.
    let side_jobs = jobs.div_ceil(2).max(1);
    let replays =
        matches!(baseline, Source::Replay { .. }) || matches!(candidate, Source::Replay { .. });
    let bar = if replays && std::io::stderr().is_terminal() {
        super::replay::progress_bar(0, ProgressDrawTarget::stderr_with_hz(10))
    } else {
        ProgressBar::hidden()
    };
    let (b, c) = std::thread::scope(|scope| {
        let b = scope.spawn(|| load_side(&baseline, &args.registry, &args.packs, side_jobs, &bar));
        let c = load_side(&candidate, &args.registry, &args.packs, side_jobs, &bar);
        let b = b
            .join()
            .unwrap_or_else(|_| Err("the baseline's replay thread failed".into()));
        (b, c)
    });
    let (b, c) = match (b, c) {
        (Ok(b), Ok(c)) => (b, c),
        (Err(e), _) | (_, Err(e)) => return super::usage_error(e),
    };
    bar.finish_and_clear();
    let comparison =
        compare::compare(&b.summary, &c.summary, args.confidence).with_graphs(b.graph, c.graph);
    let failed = args.fail_on.iter().any(|m| comparison.regressed(m));
    let mut comparison = comparison;
    comparison.metrics.retain(|m| {
        (args.metrics.is_empty() || args.metrics.iter().any(|name| name == m.metric))
            && (!args.changes_only || m.change != compare::Change::None)
    });
    let text = match args.format {
        Format::Json => {
            let mut t = serde_json::to_string_pretty(&comparison.to_json()).unwrap_or_default();
            t.push('\n');
            t
        }
        Format::Markdown => compare::render::markdown(&comparison),
        Format::Human => {
            let color = std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            compare::render::human(&comparison, color)
        }
    };
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        return super::usage_error(format!("cannot write the report: {e}"));
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
