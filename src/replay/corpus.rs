//! Corpus replay (SPEC §4.3): collect trace files from files and folders (recursively
//! `*.trace.jsonl`, sorted), replay them in parallel on a rayon pool of `jobs` threads, each
//! streamed from disk, and sum their summaries. Reports come back in file order whatever the
//! thread count, so the output is byte-identical across `--jobs`.

use super::engine::Replayer;
use super::report::RunReport;
use super::summary::Summary;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A FIFO, socket or device named as a trace: opening it would block or never end.
    #[error("{path}: not a regular file (it is {kind}); name a trace file or a folder of them")]
    NotRegular { path: String, kind: &'static str },
    #[error("cannot start {jobs} replay threads: {message}")]
    Pool { jobs: usize, message: String },
    #[error("cannot write the report: {0}")]
    Write(#[source] std::io::Error),
    /// The corpus summary's counts cannot be summed exactly (a count past 2^64 − 1).
    #[error("cannot sum the corpus: {0}")]
    Summary(#[from] super::summary::SummaryError),
}

/// The trace files below `dir` (symlinked folders are not entered: a link loop would recurse
/// forever).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CorpusError> {
    crate::batch::walk(dir, ".trace.jsonl", out).map_err(|e| CorpusError::Io {
        path: e.path.display().to_string(),
        source: e.source,
    })
}

/// Expand files and folders into the sorted list of trace files (a file named explicitly is
/// kept whatever its name).
pub fn collect_traces(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CorpusError> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|source| CorpusError::Io {
            path: p.display().to_string(),
            source,
        })?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)?;
            found.sort();
            out.extend(found);
        } else if meta.is_file() {
            out.push(p.clone());
        } else {
            return Err(CorpusError::NotRegular {
                path: p.display().to_string(),
                kind: crate::input::kind_of(meta.file_type()),
            });
        }
    }
    Ok(out)
}

/// Replay one trace file (an unreadable file is a `malformed` run).
pub fn replay_file(replayer: &Replayer<'_>, path: &Path) -> RunReport {
    replayer.replay_reader(&path.display().to_string(), open_trace(path))
}

/// The largest trace file replayed (1 GiB): a trace is read line by line, so this bounds the
/// time a named file can take, not the memory (each line has its own limit).
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// A trace file opened for reading (through [`crate::input::open_capped`]: a regular file of at
/// most [`MAX_TRACE_BYTES`]), or (when it cannot be opened) a reader that fails at once, so the
/// failure is reported through the engine as a `malformed` run.
pub(crate) enum TraceSource {
    File(crate::input::CappedFile),
    Failing(FailingReader),
}

impl std::io::Read for TraceSource {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            TraceSource::File(f) => f.read(buf),
            TraceSource::Failing(f) => f.read(buf),
        }
    }
}

pub(crate) fn open_trace(path: &Path) -> TraceSource {
    use crate::input::InputError;
    // A FIFO or device is refused before it is opened (opening a FIFO blocks until a writer
    // comes); a file over the limit before a byte is read.
    match crate::input::open_capped(path, MAX_TRACE_BYTES) {
        Ok(f) => TraceSource::File(f),
        Err(InputError::NotRegular { kind, .. }) => {
            let msg = format!("cannot open the trace: not a regular file (it is {kind})");
            TraceSource::Failing(FailingReader(Some(std::io::ErrorKind::InvalidInput), msg))
        }
        Err(InputError::TooLarge { size, limit, .. }) => {
            let msg = format!(
                "cannot open the trace: the file is {size} bytes, over the limit of {limit} bytes"
            );
            TraceSource::Failing(FailingReader(Some(std::io::ErrorKind::InvalidData), msg))
        }
        Err(InputError::Io { source, .. }) => {
            let msg = format!("cannot open the trace: {source}");
            TraceSource::Failing(FailingReader(Some(source.kind()), msg))
        }
    }
}

/// A reader that fails at once, so an unopenable file reports through the engine.
pub(crate) struct FailingReader(Option<std::io::ErrorKind>, String);

impl std::io::Read for FailingReader {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        Err(std::io::Error::new(
            self.0.unwrap_or(std::io::ErrorKind::Other),
            self.1.clone(),
        ))
    }
}

/// Replay every file on `jobs` threads; `on_done` is called after each run (for a progress bar).
pub fn replay_corpus(
    replayer: &Replayer<'_>,
    files: &[PathBuf],
    jobs: usize,
    on_done: &(dyn Fn() + Sync),
) -> Result<(Vec<RunReport>, Summary), CorpusError> {
    let pool = crate::workers::pool(jobs).map_err(|e| CorpusError::Pool {
        jobs,
        message: e.to_string(),
    })?;
    let runs: Vec<RunReport> = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let r = replay_file(replayer, f);
                on_done();
                r
            })
            .collect()
    });
    let summary = pool.install(|| {
        runs.par_iter()
            .try_fold(Summary::default, |mut s, r| s.add(r).map(|()| s))
            .try_reduce(Summary::default, |mut a, b| a.merge(&b).map(|()| a))
    })?;
    Ok((runs, summary))
}

/// Replay every file on `jobs` threads and hand each report to `sink` in file order as soon as
/// its chunk is done, so a corpus of any size streams with memory bounded by one chunk. The
/// summary is the merge of the chunks' summaries: the same figures as [`replay_corpus`].
pub fn replay_corpus_streaming(
    replayer: &Replayer<'_>,
    files: &[PathBuf],
    jobs: usize,
    on_done: &(dyn Fn() + Sync),
    sink: &mut dyn FnMut(&RunReport) -> std::io::Result<()>,
) -> Result<Summary, CorpusError> {
    let jobs = crate::workers::effective_jobs(jobs);
    let pool = crate::workers::pool(jobs).map_err(|e| CorpusError::Pool {
        jobs,
        message: e.to_string(),
    })?;
    // Large enough to keep every thread busy, small enough that a chunk's reports stay small.
    let chunk_len = jobs * 32;
    let mut summary = Summary::default();
    for chunk in files.chunks(chunk_len) {
        let runs: Vec<RunReport> = pool.install(|| {
            chunk
                .par_iter()
                .map(|f| {
                    let r = replay_file(replayer, f);
                    on_done();
                    r
                })
                .collect()
        });
        for run in &runs {
            summary.add(run)?;
            sink(run).map_err(CorpusError::Write)?;
        }
    }
    Ok(summary)
}
