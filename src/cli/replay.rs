//! `primgraph replay --graph G PATH…`: replay recorded runs (files and folders of
//! `*.trace.jsonl`) against a graph and print per-run reports and the corpus summary.
//! Exit 0 when every run is faithful, 1 otherwise, 2 when the command cannot run — which
//! includes a folder holding no `*.trace.jsonl` (a mistyped CI path must not pass) unless
//! `--allow-empty`. `--trust KEY.pub` (repeatable) requires every run to be sealed by one of
//! those keys (D618). `--format github` writes one workflow command per diagnostic (file = the
//! trace, line = its trace line).
//!
//! The human form folds repeated reports: a run whose verdict and diagnostics equal an earlier
//! run's is counted, not printed again, and one line before the summary says how many there
//! were and names a few (`--no-fold` prints every run). `--quiet` prints the summary alone
//! (human, jsonl; github writes no annotations, only the summary on stderr; json is one document
//! and unchanged).
//!
//! The progress bar (on a terminal, for more than one trace) redraws at most 10 times a second,
//! and report text is written around it in batches (at most every 250 ms, or 256 KiB): every
//! write around a bar clears and redraws it, so writing each run on its own redrew the bar once
//! per run.

use indicatif::{ProgressBar, ProgressDrawTarget};
use primgraph::registry::Registry;
use primgraph::replay::corpus::{
    CorpusError, collect_traces, replay_corpus, replay_corpus_streaming,
};
use primgraph::replay::render;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer, TrustedKey};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The unfaithful runs with their diagnostics (repeats folded), then the corpus summary.
    Human,
    /// One document: `{"runs": [...], "summary": {...}}` (SPEC §4.2).
    Json,
    /// JSON Lines: one run report a line as each is replayed, the `{"summary": …}` line last.
    Jsonl,
    /// GitHub Actions workflow commands: one annotation per diagnostic, at the trace line.
    Github,
}

#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// The graph the runs are replayed against.
    #[arg(long, value_name = "G")]
    pub graph: PathBuf,
    /// Trace files and folders (recursively `*.trace.jsonl`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Replay threads (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Print only the corpus summary, no per-run reports (human, jsonl, github).
    #[arg(long, short = 'q', visible_alias = "summary-only")]
    pub quiet: bool,
    /// Print every unfaithful run in full, even when its diagnostics repeat an earlier run's
    /// (human; by default repeats are counted in one line).
    #[arg(long)]
    pub no_fold: bool,
    /// Longest line accepted, in bytes (a longer one is malformed, D616).
    #[arg(long, value_name = "BYTES", default_value_t = primgraph::replay::trace::DEFAULT_MAX_LINE_BYTES)]
    pub max_line_bytes: usize,
    /// Require every run to be sealed by this public key (`KEY.pub` from `primgraph keygen`);
    /// repeat for several keys. A missing seal or another signer is D618.
    #[arg(long, value_name = "KEY.pub")]
    pub trust: Vec<PathBuf>,
    /// Accept a folder that holds no `*.trace.jsonl` (0 runs, exit 0) instead of exit 2.
    #[arg(long)]
    pub allow_empty: bool,
    /// Also write the summary alone, with the graph's name and digest, as JSON to FILE (what
    /// `primgraph compare` reads), whatever `--format` prints.
    #[arg(long, value_name = "FILE")]
    pub summary_out: Option<PathBuf>,
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

/// Report text written around a progress bar: buffered, and written in batches, because every
/// write around a visible bar clears and redraws it.
pub(crate) struct ReportOut<'b, W: Write> {
    bar: &'b ProgressBar,
    out: W,
    pending: Vec<u8>,
    last_write: Instant,
}

const BATCH_INTERVAL: Duration = Duration::from_millis(250);
const BATCH_BYTES: usize = 256 * 1024;

impl<'b, W: Write> ReportOut<'b, W> {
    pub(crate) fn new(bar: &'b ProgressBar, out: W) -> ReportOut<'b, W> {
        ReportOut {
            bar,
            out,
            pending: Vec::new(),
            last_write: Instant::now(),
        }
    }

    pub(crate) fn write(&mut self, text: &[u8]) -> std::io::Result<()> {
        if self.bar.is_hidden() {
            return self.out.write_all(text);
        }
        self.pending.extend_from_slice(text);
        if !self.pending.is_empty()
            && (self.pending.len() >= BATCH_BYTES || self.last_write.elapsed() >= BATCH_INTERVAL)
        {
            self.flush_pending()?;
        }
        Ok(())
    }

    pub(crate) fn flush_pending(&mut self) -> std::io::Result<()> {
        self.last_write = Instant::now();
        if self.pending.is_empty() {
            return Ok(());
        }
        let (out, pending) = (&mut self.out, &self.pending);
        self.bar.suspend(|| out.write_all(pending))?;
        self.pending.clear();
        Ok(())
    }

    pub(crate) fn into_inner(mut self) -> std::io::Result<W> {
        self.flush_pending()?;
        Ok(self.out)
    }
}

/// The corpus progress bar on `target`.
pub(crate) fn progress_bar(len: u64, target: ProgressDrawTarget) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), target);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed}")
    {
        bar.set_style(style);
    }
    bar
}

/// Write a summary file (`replay --summary-out`, SPEC §4.3).
pub(crate) fn write_summary_file(
    path: &std::path::Path,
    graph: &ReplayGraph,
    summary: &primgraph::replay::Summary,
) -> Result<(), String> {
    use primgraph::replay::summary::GraphIdentity;
    use primgraph::replay::summary_file::SummaryFile;
    let file = SummaryFile {
        graph: GraphIdentity {
            name: graph.name.clone(),
            digest: graph.digest.clone(),
        },
        summary: summary.clone(),
    };
    let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let out = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut out = std::io::BufWriter::new(out);
    serde_json::to_writer(&mut out, &file.to_json()).map_err(|e| fail(&e))?;
    out.write_all(b"\n").map_err(|e| fail(&e))?;
    out.flush().map_err(|e| fail(&e))
}

/// The registry for the whole process (a file-loaded one lives until exit).
pub(crate) fn load_graph(
    path: &std::path::Path,
    registry: &Registry,
) -> Result<ReplayGraph, String> {
    load_graph_with(path, registry, None)
}

/// [`load_graph`] on a pack path: a graph that declares packs is resolved against their
/// effective registry (`graph.registry(base)` is the one to replay with).
pub(crate) fn load_graph_with(
    path: &std::path::Path,
    registry: &Registry,
    packs: Option<std::sync::Arc<primgraph::pack::compose::Composer>>,
) -> Result<ReplayGraph, String> {
    let bytes = super::io::read_input(path, primgraph::json::Limits::default().max_bytes)?;
    let options = primgraph::validate::Options {
        packs,
        ..Default::default()
    };
    ReplayGraph::load_with(&path.display().to_string(), &bytes, registry, &options)
        .map_err(|e| e.located(&path.display().to_string()))
}

pub fn run(args: ReplayArgs) -> ExitCode {
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let composer = match args.packs.discover(registry) {
        Ok(c) => c,
        Err(e) => return super::usage_error(e),
    };
    let graph = match load_graph_with(&args.graph, registry, composer) {
        Ok(g) => g,
        Err(e) => return super::usage_error(e),
    };
    // A graph that declares packs replays against their effective registry (SPEC §9.2).
    let composition = graph.composition.clone();
    let registry: &Registry = composition.as_ref().map_or(registry, |c| &c.registry);
    let mut files = Vec::new();
    for path in &args.paths {
        let found = match collect_traces(std::slice::from_ref(path)) {
            Ok(f) => f,
            Err(e) => return super::usage_error(e),
        };
        if found.is_empty() && !args.allow_empty {
            return super::usage_error(format!(
                "no *.trace.jsonl under {} (pass --allow-empty to accept an empty folder)",
                path.display()
            ));
        }
        files.extend(found);
    }
    let mut trusted = Vec::with_capacity(args.trust.len());
    for path in &args.trust {
        match TrustedKey::read(path) {
            Ok(k) => trusted.push(k),
            Err(e) => return super::usage_error(e),
        }
    }
    let options = ReplayOptions {
        max_line_bytes: args.max_line_bytes,
    };
    let replayer = Replayer::new(registry, graph, options).with_trusted_keys(trusted);
    let jobs = super::io::jobs(args.jobs.unwrap_or(0));
    let bar = if std::io::stderr().is_terminal() && files.len() > 1 {
        progress_bar(files.len() as u64, ProgressDrawTarget::stderr_with_hz(10))
    } else {
        ProgressBar::hidden()
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
            let mut report_out = ReportOut::new(&bar, &mut out);
            let mut folded = render::FoldedRuns::default();
            let (quiet, fold) = (args.quiet, !args.no_fold);
            let mut sink = |r: &primgraph::replay::RunReport| {
                if quiet {
                    return Ok(());
                }
                let text = match format {
                    Format::Jsonl => render::jsonl_run(r),
                    Format::Github => primgraph::diagnostic::github::render(
                        r.diagnostics
                            .iter()
                            .map(|d| (r.trace.as_str(), &d.diagnostic)),
                    ),
                    _ if fold => folded.run(r),
                    _ => render::human_run(r),
                };
                report_out.write(text.as_bytes())
            };
            let summary = match replay_corpus_streaming(&replayer, &files, jobs, &tick, &mut sink) {
                Ok(s) => s,
                Err(CorpusError::Write(e)) => return super::io::write_failed(&e),
                Err(e) => return super::usage_error(e),
            };
            if let Err(e) = report_out.write(folded.tail().as_bytes()) {
                return super::io::write_failed(&e);
            }
            if let Err(e) = report_out.into_inner() {
                return super::io::write_failed(&e);
            }
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
    if let Some(path) = &args.summary_out
        && let Err(e) = write_summary_file(path, replayer.graph(), &summary)
    {
        return super::usage_error(e);
    }
    if summary.unfaithful() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A terminal that only counts the bytes the bar sends it (escape sequences estimated at
    /// their usual length).
    #[derive(Debug, Clone, Default)]
    struct CountingTerm(Arc<AtomicUsize>);

    impl CountingTerm {
        fn add(&self, n: usize) -> std::io::Result<()> {
            self.0.fetch_add(n, Ordering::Relaxed);
            Ok(())
        }
    }

    impl indicatif::TermLike for CountingTerm {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            self.add(4)
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            self.add(4)
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            self.add(4)
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            self.add(4)
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.add(s.len() + 1)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.add(s.len())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.add(4)
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// 50,000 runs through the same bar and writer the CLI uses, every tenth one unfaithful
    /// (printed): the bar's output stays small. Writing each run around the bar on its own
    /// (the old code) costs one clear-and-redraw per run, over 100 bytes each: 5 MB here.
    #[test]
    fn the_progress_bar_does_not_redraw_once_per_run() {
        let runs = 50_000u64;
        let measure = |batched: bool| {
            let term = CountingTerm::default();
            let bar = progress_bar(
                runs,
                ProgressDrawTarget::term_like_with_hz(Box::new(term.clone()), 10),
            );
            let mut report = Vec::new();
            {
                let mut out = ReportOut::new(&bar, &mut report);
                for i in 0..runs {
                    bar.inc(1);
                    let text = if i % 10 == 0 { "r: diverged\n" } else { "" };
                    if batched {
                        out.write(text.as_bytes()).unwrap();
                    } else {
                        bar.suspend(|| std::io::Write::write_all(&mut out.out, text.as_bytes()))
                            .unwrap();
                    }
                }
                out.into_inner().unwrap();
            }
            bar.finish_and_clear();
            assert_eq!(report.len(), 5_000 * "r: diverged\n".len());
            term.0.load(Ordering::Relaxed)
        };
        let unbatched = measure(false);
        let batched = measure(true);
        assert!(unbatched > 4_000_000, "the old way wrote {unbatched} bytes");
        assert!(
            batched < 100_000,
            "the bar wrote {batched} bytes for {runs} runs"
        );
    }
}
