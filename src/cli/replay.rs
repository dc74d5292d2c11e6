//! `primgraph replay --graph G PATH…`: replay recorded runs (files and folders of
//! `*.trace.jsonl`) against a graph and print per-run reports and the corpus summary.
//! Exit 0 when every run is faithful, 1 otherwise, 2 when the command cannot run.
//! `--format github` writes one workflow command per diagnostic (file = the trace, line = its
//! trace line).

use primgraph::registry::Registry;
use primgraph::replay::corpus::{
    CorpusError, collect_traces, replay_corpus, replay_corpus_streaming,
};
use primgraph::replay::render;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Jsonl,
    /// GitHub Actions workflow commands: one annotation per diagnostic, at the trace line.
    Github,
}

#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// The graph the runs are replayed against.
    #[arg(long)]
    pub graph: PathBuf,
    /// Trace files and folders (recursively `*.trace.jsonl`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long)]
    pub registry: Option<PathBuf>,
    /// Replay threads (default: the machine's cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Longest line accepted, in bytes (a longer one is malformed, D616).
    #[arg(long, default_value_t = primgraph::replay::trace::DEFAULT_MAX_LINE_BYTES)]
    pub max_line_bytes: usize,
}

/// The registry for the whole process (a file-loaded one lives until exit).
pub(crate) fn load_graph(
    path: &std::path::Path,
    registry: &Registry,
) -> Result<ReplayGraph, String> {
    let bytes = super::io::read_input(path, primgraph::json::Limits::default().max_bytes)?;
    ReplayGraph::load(&path.display().to_string(), &bytes, registry)
        .map_err(|e| format!("{}: {e}", path.display()))
}

pub fn run(args: ReplayArgs) -> ExitCode {
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let graph = match load_graph(&args.graph, registry) {
        Ok(g) => g,
        Err(e) => return super::usage_error(e),
    };
    let files = match collect_traces(&args.paths) {
        Ok(f) => f,
        Err(e) => return super::usage_error(e),
    };
    let options = ReplayOptions {
        max_line_bytes: args.max_line_bytes,
    };
    let replayer = Replayer::new(registry, graph, options);
    let jobs = super::io::jobs(args.jobs.unwrap_or(0));
    let bar = if std::io::stderr().is_terminal() && files.len() > 1 {
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed}")
        {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let tick = || bar.inc(1);
    let mut out = anstream::stdout().lock();
    let summary = match args.format {
        // One document: every run has to be in hand before it is written.
        Format::Json => match replay_corpus(&replayer, &files, jobs, &tick) {
            Ok((runs, summary)) => {
                bar.finish_and_clear();
                let doc = render::json_document(&runs, &summary);
                if let Err(e) = out.write_all(doc.as_bytes()) {
                    return super::io::write_failed(&e);
                }
                summary
            }
            Err(e) => return super::usage_error(e),
        },
        // Streams: each run is printed as soon as its chunk is replayed, the summary last.
        Format::Jsonl | Format::Human | Format::Github => {
            let format = args.format;
            let mut sink = |r: &primgraph::replay::RunReport| {
                let text = match format {
                    Format::Jsonl => render::jsonl_run(r),
                    Format::Github => primgraph::diagnostic::github::render(
                        r.diagnostics
                            .iter()
                            .map(|d| (r.trace.as_str(), &d.diagnostic)),
                    ),
                    _ => render::human_run(r),
                };
                bar.suspend(|| out.write_all(text.as_bytes()))
            };
            let summary = match replay_corpus_streaming(&replayer, &files, jobs, &tick, &mut sink) {
                Ok(s) => s,
                Err(CorpusError::Write(e)) => return super::io::write_failed(&e),
                Err(e) => return super::usage_error(e),
            };
            bar.finish_and_clear();
            let text = match format {
                Format::Jsonl => render::jsonl_summary(&summary),
                // Only diagnostics annotate; the summary goes to the job log on stderr.
                Format::Github => {
                    eprint!("{}", render::human_summary(&summary));
                    String::new()
                }
                _ => render::human_summary(&summary),
            };
            if let Err(e) = out.write_all(text.as_bytes()) {
                return super::io::write_failed(&e);
            }
            summary
        }
    };
    if let Err(e) = out.flush() {
        return super::io::write_failed(&e);
    }
    if summary.unfaithful() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
