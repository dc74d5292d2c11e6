//! Paired replay (SPEC §6.2 `graph diff --runs`): every trace replayed against two graphs in one
//! pass over the file. The trace is read once; the header and each event line are parsed and
//! hashed once and handed to both runs (shared, not copied), which keep their own state
//! (expected node, visits, bounds), so each report is exactly what replaying the trace against
//! that graph alone gives (tests check it). A line that only one run still reads — the other has
//! stopped or ended — goes to that run alone, through the ordinary path.
//!
//! Checks of a step whose result cannot differ between the two graphs are made once, by the
//! first run, and reused by the second (`StepMemo`): the input and output schema checks
//! (D606, D607) of the same primitive when both graphs are checked against the same registry,
//! and the recomputed input (D605) at a node with the same primitive and bindings in both, when
//! both graphs list the same node IDs in the same order (then node indices agree, and both runs
//! have seen the same steps, so their latest outputs are the same). Each run still reports the
//! result itself, at its own line, seq and site. What is shared is decided once per corpus
//! (`Sharing`).

use super::corpus::{CorpusError, open_trace};
use super::digest::{sha256, task_key};
use super::engine::{Replayer, RunState};
use super::report::RunReport;
use super::step_memo::{Sharing, StepMemo};
use super::trace::{Line, LineReader, parse_header, parse_line};
use rayon::prelude::*;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the runs of `first` and `second` share.
fn sharing_of(first: &Replayer<'_>, second: &Replayer<'_>) -> Sharing {
    Sharing::new(
        std::ptr::eq(first.registry, second.registry),
        &first.graph.nodes,
        &second.graph.nodes,
    )
}

/// The same line again (a [`Line`] borrows the reader's buffer; this copies the view, not the
/// bytes).
fn again<'l>(line: &Line<'l>) -> Line<'l> {
    match line {
        Line::Text { bytes, terminated } => Line::Text {
            bytes,
            terminated: *terminated,
        },
        Line::TooLong { len } => Line::TooLong { len: *len },
    }
}

/// Replay one trace against `first` and `second` in one pass.
pub fn replay_pair_bufread<R: BufRead>(
    first: &Replayer<'_>,
    second: &Replayer<'_>,
    trace: &str,
    reader: R,
) -> (RunReport, RunReport) {
    pair_bufread(first, second, &sharing_of(first, second), trace, reader)
}

fn pair_bufread<R: BufRead>(
    first: &Replayer<'_>,
    second: &Replayer<'_>,
    sharing: &Sharing,
    trace: &str,
    reader: R,
) -> (RunReport, RunReport) {
    let max_line = first
        .options
        .max_line_bytes
        .max(second.options.max_line_bytes);
    let mut lines = LineReader::new(reader, max_line);
    let mut a = RunState::new(first);
    let mut b = RunState::new(second);
    let (mut a_reads, mut b_reads) = (true, true);
    while a_reads || b_reads {
        match lines.next_line() {
            Err(e) => {
                let pos = lines.position();
                for (run, reads) in [(&mut a, a_reads), (&mut b, b_reads)] {
                    if reads {
                        run.stop_unreadable(pos, &e);
                    }
                }
                break;
            }
            Ok(None) => break,
            Ok(Some((pos, line))) => {
                // The common case: both runs check this line; parse and hash it once. Anything
                // else (a line that does not parse, one run past its end) takes the ordinary
                // path, run by run.
                if a_reads
                    && b_reads
                    && let Line::Text { bytes, terminated } = &line
                    && bytes.len() <= first.options.max_line_bytes
                    && bytes.len() <= second.options.max_line_bytes
                {
                    let line_cr = bytes.last() == Some(&b'\r');
                    if a.awaits_event()
                        && b.awaits_event()
                        && let Ok(event) = parse_line(bytes, *terminated, pos.number)
                    {
                        let hash = sha256(bytes);
                        let event = Arc::new(event);
                        let mut memo = StepMemo::new(sharing);
                        a_reads = a.event_at(pos, Arc::clone(&event), line_cr, hash, &mut memo);
                        b_reads = b.event_at(pos, event, line_cr, hash, &mut memo);
                        continue;
                    }
                    if a.awaits_header()
                        && b.awaits_header()
                        && *terminated
                        && let Ok(header) = parse_header(bytes)
                    {
                        let hash = sha256(bytes);
                        let task = task_key(&header.input);
                        let header = Arc::new(header);
                        a_reads =
                            a.header_at(pos, Arc::clone(&header), line_cr, hash, task.clone());
                        b_reads = b.header_at(pos, header, line_cr, hash, task);
                        continue;
                    }
                }
                if a_reads {
                    a_reads = a.line(pos, again(&line));
                }
                if b_reads {
                    b_reads = b.line(pos, line);
                }
            }
        }
    }
    let eof = lines.position();
    a.finish(eof);
    b.finish(eof);
    (a.into_report(trace), b.into_report(trace))
}

/// Replay one trace given as a reader.
pub fn replay_pair_reader<R: Read>(
    first: &Replayer<'_>,
    second: &Replayer<'_>,
    trace: &str,
    reader: R,
) -> (RunReport, RunReport) {
    replay_pair_bufread(
        first,
        second,
        trace,
        BufReader::with_capacity(64 * 1024, reader),
    )
}

/// Replay one trace file against both graphs (an unreadable file is `malformed` under both).
pub fn replay_pair_file(
    first: &Replayer<'_>,
    second: &Replayer<'_>,
    path: &Path,
) -> (RunReport, RunReport) {
    let name = path.display().to_string();
    replay_pair_reader(first, second, &name, open_trace(path))
}

/// Replay every file against both graphs on `jobs` threads; the pairs come back in file order.
pub fn replay_pair_corpus(
    first: &Replayer<'_>,
    second: &Replayer<'_>,
    files: &[PathBuf],
    jobs: usize,
) -> Result<Vec<(RunReport, RunReport)>, CorpusError> {
    replay_pair_corpus_with_progress(first, second, files, jobs, &|| {})
}

/// As [`replay_pair_corpus`], calling `on_done` once per trace as its pair of reports is done
/// (from the worker threads: a progress bar's tick).
pub fn replay_pair_corpus_with_progress(
    first: &Replayer<'_>,
    second: &Replayer<'_>,
    files: &[PathBuf],
    jobs: usize,
    on_done: &(dyn Fn() + Sync),
) -> Result<Vec<(RunReport, RunReport)>, CorpusError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| CorpusError::Pool {
            jobs,
            message: e.to_string(),
        })?;
    let sharing = sharing_of(first, second);
    Ok(pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let name = f.display().to_string();
                let reader = BufReader::with_capacity(64 * 1024, open_trace(f));
                let pair = pair_bufread(first, second, &sharing, &name, reader);
                on_done();
                pair
            })
            .collect()
    }))
}
