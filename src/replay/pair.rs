//! Paired replay (SPEC §6.2 `graph diff --runs`): every trace replayed against two graphs in one
//! pass over the file. The trace is read once; each event line is parsed and hashed once and
//! handed to both runs, which keep their own state (expected node, bindings, visits, bounds), so
//! each report is exactly what replaying the trace against that graph alone gives (a test checks
//! it). A line that only one run still reads — the other has stopped or ended — goes to that run
//! alone, through the ordinary path.

use super::codes::d616::parse_line;
use super::corpus::{CorpusError, open_trace};
use super::digest::sha256;
use super::engine::{Replayer, RunState};
use super::report::RunReport;
use super::trace::{Line, LineReader};
use rayon::prelude::*;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

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
                        run.stop_malformed(
                            pos,
                            format!("cannot read the trace: {e}"),
                            String::new(),
                            1,
                        );
                    }
                }
                break;
            }
            Ok(None) => break,
            Ok(Some((pos, line))) => {
                // The common case: both runs check this event line; parse and hash it once.
                if a_reads
                    && b_reads
                    && a.awaits_event()
                    && b.awaits_event()
                    && let Line::Text { bytes, terminated } = &line
                    && bytes.len() <= first.options.max_line_bytes
                    && bytes.len() <= second.options.max_line_bytes
                    && let Ok(event) = parse_line(bytes, *terminated, pos.number)
                {
                    let hash = sha256(bytes);
                    let line_cr = bytes.last() == Some(&b'\r');
                    a_reads = a.event_at(pos, event.clone(), line_cr, hash);
                    b_reads = b.event_at(pos, event, line_cr, hash);
                    continue;
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| CorpusError::Pool {
            jobs,
            message: e.to_string(),
        })?;
    Ok(pool.install(|| {
        files
            .par_iter()
            .map(|f| replay_pair_file(first, second, f))
            .collect()
    }))
}
