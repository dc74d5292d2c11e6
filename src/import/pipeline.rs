//! The `.eval` importer's pipeline: one thread (the caller's) reads and inflates the zip's
//! entries in order — the zip is one file read front to back, and inflating is the floor the
//! import is measured against — while worker threads parse and map the samples already
//! inflated (entries are independent). What each entry became is recorded in the order of the
//! log, whatever order the workers finish in: findings, file names (collisions get `-2` in the
//! order runs are met) and the traces written are the same as a one-thread import's.
//!
//! Memory stays bounded: at most [`IN_FLIGHT_BYTES`] of inflated entries (and
//! [`IN_FLIGHT_PER_WORKER`] entries per worker) are waiting or being parsed; the reader waits
//! for results before inflating past that. An entry larger than the budget is only read when
//! nothing else is in flight.

use super::convert::{self, Converted};
use super::{Format, ImportDiagnostic, ImportError, ImportOptions, Importer, Location, SourceRun};
use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};

/// The most inflated bytes waiting for, or in, a worker at once.
pub(crate) const IN_FLIGHT_BYTES: usize = 64 << 20;
/// The most entries waiting for, or in, a worker at once, per worker.
pub(crate) const IN_FLIGHT_PER_WORKER: usize = 4;

/// One inflated entry to parse and map: its place in the log, its bytes, where it is.
pub(crate) struct Job {
    sequence: u64,
    bytes: Vec<u8>,
    at: Location,
}

/// What one entry became.
pub(crate) enum Done {
    Run(Box<Converted>),
    Finding(Box<ImportDiagnostic>),
}

/// What a worker sends back: the entry's place, what it became, its buffer to reuse.
type Returned = (u64, Done, Vec<u8>);

/// The reader's side of the pipeline (see the module doc).
pub(crate) struct Pipeline {
    jobs: Option<SyncSender<Job>>,
    results: Receiver<Returned>,
    workers: usize,
    next_sequence: u64,
    next_to_record: u64,
    ready: BTreeMap<u64, Done>,
    in_flight: usize,
    in_flight_bytes: usize,
    spare: Vec<Vec<u8>>,
}

/// How many threads parse and map: the machine's cores (the reader and the trace writer are
/// mostly waiting on the zip and the disk), at least one.
pub(crate) fn worker_count() -> usize {
    crate::workers::effective_jobs(0)
}

impl Pipeline {
    /// Start `workers` threads in `scope`, each parsing an entry with `parse` and mapping the
    /// run it gives with `options`.
    pub(crate) fn start<'scope, 'env, 'a: 'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        options: Arc<ImportOptions<'a>>,
        workers: usize,
        parse: fn(&[u8], &Location) -> Result<SourceRun, ImportDiagnostic>,
    ) -> Pipeline {
        let workers = workers.max(1);
        let (jobs, receiver) = std::sync::mpsc::sync_channel::<Job>(workers);
        let receiver = Arc::new(Mutex::new(receiver));
        let (sender, results) = std::sync::mpsc::channel::<Returned>();
        for _ in 0..workers {
            let receiver = Arc::clone(&receiver);
            let sender: Sender<Returned> = sender.clone();
            let options = Arc::clone(&options);
            scope.spawn(move || {
                loop {
                    // The lock is held only to take the next job, not while working on it.
                    let next = match receiver.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => return,
                    };
                    let Ok(job) = next else { return };
                    // A panic here would be a bug; caught, it is that sample's finding, so the
                    // reader, which waits for every job it handed out, never waits forever.
                    let work = std::panic::AssertUnwindSafe(|| match parse(&job.bytes, &job.at) {
                        Ok(run) => {
                            Done::Run(Box::new(convert::convert(&options, Format::Inspect, run)))
                        }
                        Err(d) => Done::Finding(Box::new(d)),
                    });
                    let done = std::panic::catch_unwind(work).unwrap_or_else(|_| {
                        Done::Finding(Box::new(ImportDiagnostic::new(
                            &crate::codes::I901,
                            job.at.clone(),
                            "the importer failed on this sample (an internal error: please \
                             report it with the log); the other samples are imported",
                        )))
                    });
                    if sender.send((job.sequence, done, job.bytes)).is_err() {
                        return;
                    }
                }
            });
        }
        Pipeline {
            jobs: Some(jobs),
            results,
            workers,
            next_sequence: 0,
            next_to_record: 0,
            ready: BTreeMap::new(),
            in_flight: 0,
            in_flight_bytes: 0,
            spare: Vec::new(),
        }
    }

    /// A buffer to inflate the next entry of `size` bytes into, once the entries in flight
    /// leave room for it (results that came back meanwhile are recorded).
    pub(crate) fn buffer(
        &mut self,
        size: usize,
        importer: &mut Importer<'_>,
    ) -> Result<Vec<u8>, ImportError> {
        while self.in_flight > 0
            && (self.in_flight_bytes.saturating_add(size) > IN_FLIGHT_BYTES
                || self.in_flight >= self.workers * IN_FLIGHT_PER_WORKER)
        {
            self.wait_one(importer)?;
        }
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        Ok(buf)
    }

    /// Hand an inflated entry to the workers.
    pub(crate) fn parse(
        &mut self,
        bytes: Vec<u8>,
        at: Location,
        importer: &mut Importer<'_>,
    ) -> Result<(), ImportError> {
        let sequence = self.take_sequence();
        self.in_flight += 1;
        self.in_flight_bytes += bytes.len();
        let job = Job {
            sequence,
            bytes,
            at,
        };
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok());
        if !sent {
            // The workers are gone only when one of them stopped (it never does by design).
            return Err(ImportError::Write {
                path: String::new(),
                message: "the threads parsing the samples stopped".into(),
            });
        }
        self.record_ready(importer)
    }

    /// Record, in its place, something the reader found or mapped itself.
    pub(crate) fn done(
        &mut self,
        done: Done,
        importer: &mut Importer<'_>,
    ) -> Result<(), ImportError> {
        let sequence = self.take_sequence();
        self.ready.insert(sequence, done);
        self.record_ready(importer)
    }

    /// A buffer the reader is done with, kept for the next entry.
    pub(crate) fn give_back(&mut self, buf: Vec<u8>) {
        self.keep(buf);
    }

    /// Wait for every entry in flight and record it; the workers stop.
    pub(crate) fn finish(mut self, importer: &mut Importer<'_>) -> Result<(), ImportError> {
        while self.in_flight > 0 {
            self.wait_one(importer)?;
        }
        self.jobs = None;
        self.record_ready(importer)
    }

    fn take_sequence(&mut self) -> u64 {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        sequence
    }

    fn keep(&mut self, buf: Vec<u8>) {
        // A large entry's buffer is not kept for the rest of the log.
        if buf.capacity() <= 16 << 20 && self.spare.len() < self.workers * IN_FLIGHT_PER_WORKER {
            self.spare.push(buf);
        }
    }

    fn wait_one(&mut self, importer: &mut Importer<'_>) -> Result<(), ImportError> {
        let Ok((sequence, done, buf)) = self.results.recv() else {
            return Err(ImportError::Write {
                path: String::new(),
                message: "the threads parsing the samples stopped".into(),
            });
        };
        self.received(sequence, done, buf);
        self.record_ready(importer)
    }

    fn received(&mut self, sequence: u64, done: Done, buf: Vec<u8>) {
        self.in_flight -= 1;
        self.in_flight_bytes -= buf.len();
        self.ready.insert(sequence, done);
        self.keep(buf);
    }

    /// Record every result that is next in the log's order.
    fn record_ready(&mut self, importer: &mut Importer<'_>) -> Result<(), ImportError> {
        while let Ok((sequence, done, buf)) = self.results.try_recv() {
            self.received(sequence, done, buf);
        }
        while let Some(done) = self.ready.remove(&self.next_to_record) {
            self.next_to_record += 1;
            match done {
                Done::Run(converted) => importer.accept(*converted)?,
                Done::Finding(d) => importer.diagnose(*d),
            }
        }
        Ok(())
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // The workers stop once the jobs they were given are done (on an early return too).
        self.jobs = None;
    }
}
