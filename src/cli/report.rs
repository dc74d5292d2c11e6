//! `primgraph report --graph G RUNS… [--baseline-graph G0 --baseline RUNS0…] [--pack DIR]…
//! --out report.html` (SPEC §11): replay the runs (and the baseline's) — a graph that uses
//! fragments as its expansion, each use framed in the picture — fold them into the report's
//! aggregates and write one self-contained HTML page. Exit codes as `replay`: 0 when every run of the candidate
//! is faithful, 1 otherwise (the page is written either way), 2 when the command cannot run (a
//! graph that does not load, a folder with no traces, an unwritable `--out`).

use primgraph::report::{self, Request};
use std::path::PathBuf;
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
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
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
    let options = match args.packs.discover(registry) {
        Ok(packs) => primgraph::validate::Options {
            packs,
            ..Default::default()
        },
        Err(e) => return super::usage_error(e),
    };
    let request = Request {
        options: &options,
        registry,
        graph: &args.graph,
        runs: &args.paths,
        baseline: args
            .baseline_graph
            .as_deref()
            .map(|g| (g, args.baseline.as_slice())),
        jobs: super::io::jobs(args.jobs.unwrap_or(0)),
        confidence: args.confidence,
        out: &args.out,
    };
    match report::write_report(&request) {
        Err(e) => super::usage_error(e.to_string()),
        Ok(written) if written.unfaithful == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
    }
}
