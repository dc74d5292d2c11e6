//! The `.eval` importer's pipeline: one thread (the caller's) reads and inflates the zip's
//! entries in order — the zip is one file read front to back, and inflating is the floor the
//! import is measured against — while worker threads parse and map the samples already
//! inflated (entries are independent). What each entry became is recorded in the order of the
//! log, whatever order the workers finish in: findings, file names (collisions get `-2` in the
//! order runs are met) and the traces written are the same as a one-thread import's.
//!
//! A zstd entry (what Inspect writes) is handed over compressed: the worker inflates it with a
//! decompression context of its own, reused from entry to entry, and checks its CRC, so that
//! inflating, the larger half of the work, is spread over the cores too; the reader only reads
//! the compressed bytes. Other entries (deflate) are inflated by the reader.
//!
//! Entries are handed over [`BATCH`] at a time, and each batch's results come back together:
//! on a machine with few cores a thread woken per entry (the reader, a worker, the reader
//! again) spent a sixth of the import in the kernel's scheduler.
//!
//! Memory stays bounded: at most [`IN_FLIGHT_BYTES`] of entries (counted inflated, as declared)
//! and [`IN_FLIGHT_PER_WORKER`] entries per worker are waiting or being parsed; the reader
//! waits for results before reading past that. An entry larger than the budget is only read
//! when nothing else is in flight.

use super::convert::{self, Converted};
use super::{Format, ImportDiagnostic, ImportError, ImportOptions, Importer, Location, SourceRun};
use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};

/// The most inflated bytes waiting for, or in, a worker at once.
pub(crate) const IN_FLIGHT_BYTES: usize = 64 << 20;
/// The most entries waiting for, or in, a worker at once, per worker: a batch being parsed
/// and one waiting.
pub(crate) const IN_FLIGHT_PER_WORKER: usize = 2 * BATCH;
/// How many buffers are kept for the next entries, per worker (what the reader keeps of
/// entries it inflated itself, deflate ones, is not counted in the budget above).
const SPARE_PER_WORKER: usize = 4;
/// How many entries are handed to a worker at once (fewer when the reader must wait, or at
/// the end of the log).
pub(crate) const BATCH: usize = 4;

/// One entry to parse and map: its place in the log, its bytes, where it is, and the inflated
/// size it counts for in the budget.
pub(crate) struct Job {
    sequence: u64,
    bytes: Vec<u8>,
    zstd: Option<Zstd>,
    weight: usize,
    at: Location,
}

/// A zstd entry handed over compressed: what the worker needs to inflate it as the reader
/// would have (the caps of [`inspect`](super::inspect), the CRC).
pub(crate) struct Zstd {
    pub(crate) crc32: u32,
    pub(crate) declared: u64,
    pub(crate) max: u64,
}

/// A worker's own state, kept from entry to entry: a zstd context and a buffer to inflate into.
struct Inflater {
    context: zstd::zstd_safe::DCtx<'static>,
    buf: Vec<u8>,
}

/// What one entry became.
pub(crate) enum Done {
    Run(Box<Converted>),
    Finding(Box<ImportDiagnostic>),
}

/// What a worker sends back: the entry's place, what it became, its buffer to reuse, its weight.
type Returned = (u64, Done, Vec<u8>, usize);
/// A batch's results.
type Batch = Vec<Returned>;

/// `items` in `parts` batches of nearly equal size, in order (fewer when there are fewer
/// items; none when there are none): how the reader and the importer share what is left
/// between their threads.
pub(crate) fn split_into<T>(mut items: Vec<T>, parts: usize) -> impl Iterator<Item = Vec<T>> {
    let per = items.len().div_ceil(parts.max(1)).max(1);
    std::iter::from_fn(move || {
        if items.is_empty() {
            return None;
        }
        let tail = items.split_off(per.min(items.len()));
        Some(std::mem::replace(&mut items, tail))
    })
}

/// The reader's side of the pipeline (see the module doc).
pub(crate) struct Pipeline {
    jobs: Option<SyncSender<Vec<Job>>>,
    /// Jobs not yet handed over (they count as in flight).
    pending: Vec<Job>,
    results: Receiver<Batch>,
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
        let (jobs, receiver) = std::sync::mpsc::sync_channel::<Vec<Job>>(workers);
        let receiver = Arc::new(Mutex::new(receiver));
        let (sender, results) = std::sync::mpsc::channel::<Batch>();
        for _ in 0..workers {
            let receiver = Arc::clone(&receiver);
            let sender: Sender<Batch> = sender.clone();
            let options = Arc::clone(&options);
            scope.spawn(move || {
                let mut inflater = Inflater {
                    context: zstd::zstd_safe::DCtx::create(),
                    buf: Vec::new(),
                };
                loop {
                    // The lock is held only to take the next job, not while working on it.
                    let next = match receiver.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => return,
                    };
                    let Ok(batch) = next else { return };
                    let mut returned = Vec::with_capacity(batch.len());
                    for job in batch {
                        // A panic here would be a bug; caught, it is that sample's finding, so the
                        // reader, which waits for every job it handed out, never waits forever.
                        let work = std::panic::AssertUnwindSafe(|| {
                            let bytes = match &job.zstd {
                                None => &job.bytes[..],
                                Some(zstd) => match inflater.inflate(&job.bytes, zstd) {
                                    Ok(bytes) => bytes,
                                    Err(message) => {
                                        let d = ImportDiagnostic::new(
                                            &crate::codes::I901,
                                            job.at.clone(),
                                            message,
                                        );
                                        return Done::Finding(Box::new(d));
                                    }
                                },
                            };
                            match parse(bytes, &job.at) {
                                Ok(run) => Done::Run(Box::new(convert::convert(
                                    &options,
                                    Format::Inspect,
                                    run,
                                ))),
                                Err(d) => Done::Finding(Box::new(d)),
                            }
                        });
                        let done = std::panic::catch_unwind(work).unwrap_or_else(|_| {
                            Done::Finding(Box::new(ImportDiagnostic::new(
                                &crate::codes::I901,
                                job.at.clone(),
                                "the importer failed on this sample (an internal error: please \
                             report it with the log); the other samples are imported",
                            )))
                        });
                        inflater.trim();
                        returned.push((job.sequence, done, job.bytes, job.weight));
                    }
                    if sender.send(returned).is_err() {
                        return;
                    }
                }
            });
        }
        Pipeline {
            jobs: Some(jobs),
            pending: Vec::with_capacity(BATCH),
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

    /// Hand an entry to the workers: its inflated bytes, or (`zstd`) its compressed bytes and
    /// how to inflate them.
    pub(crate) fn parse(
        &mut self,
        bytes: Vec<u8>,
        zstd: Option<Zstd>,
        at: Location,
        importer: &mut Importer<'_>,
    ) -> Result<(), ImportError> {
        let sequence = self.take_sequence();
        let weight = match &zstd {
            Some(z) => usize::try_from(z.declared).unwrap_or(usize::MAX),
            None => bytes.len(),
        };
        self.in_flight += 1;
        self.in_flight_bytes = self.in_flight_bytes.saturating_add(weight);
        self.pending.push(Job {
            sequence,
            bytes,
            zstd,
            weight,
            at,
        });
        if self.pending.len() >= BATCH {
            self.hand_over()?;
        }
        self.record_ready(importer)
    }

    /// Hand the jobs not yet handed over to the workers, as one batch.
    fn hand_over(&mut self) -> Result<(), ImportError> {
        self.hand_over_in(1)
    }

    /// Hand the jobs not yet handed over to the workers in `parts` batches.
    fn hand_over_in(&mut self, parts: usize) -> Result<(), ImportError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::replace(&mut self.pending, Vec::with_capacity(BATCH));
        let jobs = self.jobs.as_ref();
        let sent = split_into(pending, parts)
            .all(|batch| jobs.is_some_and(|jobs| jobs.send(batch).is_ok()));
        if !sent {
            // The workers are gone only when one of them stopped (it never does by design).
            return Err(ImportError::Write {
                path: String::new(),
                message: "the threads parsing the samples stopped".into(),
            });
        }
        Ok(())
    }

    /// Record, in its place, something the reader found or mapped itself.
    pub(crate) fn done(
        &mut self,
        done: Done,
        importer: &mut Importer<'_>,
    ) -> Result<(), ImportError> {
        // The workers get what waits for them before the reader turns to its own work.
        self.hand_over()?;
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
        // The last few shared, so that no worker waits idle beside another's batch.
        self.hand_over_in(self.workers)?;
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
        if buf.capacity() <= 16 << 20 && self.spare.len() < self.workers * SPARE_PER_WORKER {
            self.spare.push(buf);
        }
    }

    /// Wait for a batch of results (the jobs not yet handed over are handed over first).
    fn wait_one(&mut self, importer: &mut Importer<'_>) -> Result<(), ImportError> {
        self.hand_over()?;
        let Ok(batch) = self.results.recv() else {
            return Err(ImportError::Write {
                path: String::new(),
                message: "the threads parsing the samples stopped".into(),
            });
        };
        for (sequence, done, buf, weight) in batch {
            self.received(sequence, done, buf, weight);
        }
        self.record_ready(importer)
    }

    fn received(&mut self, sequence: u64, done: Done, buf: Vec<u8>, weight: usize) {
        self.in_flight -= 1;
        self.in_flight_bytes = self.in_flight_bytes.saturating_sub(weight);
        self.ready.insert(sequence, done);
        self.keep(buf);
    }

    /// Record every result that is next in the log's order.
    fn record_ready(&mut self, importer: &mut Importer<'_>) -> Result<(), ImportError> {
        while let Ok(batch) = self.results.try_recv() {
            for (sequence, done, buf, weight) in batch {
                self.received(sequence, done, buf, weight);
            }
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

impl Inflater {
    /// Inflate a zstd entry with this worker's context, with the reader's caps (the entry's
    /// declared size was checked against them before it was handed over; what it really
    /// inflates to is checked here) and its CRC checked as `zip` checks it.
    fn inflate(&mut self, compressed: &[u8], zstd: &Zstd) -> Result<&[u8], String> {
        use std::io::Read;
        self.buf.clear();
        let cap = super::inspect::entry_cap(compressed.len() as u64, zstd.max);
        self.buf.reserve(zstd.declared.min(cap) as usize);
        let corrupt =
            |e: std::io::Error| format!("the entry cannot be inflated (truncated or corrupt): {e}");
        let decoder = zstd::stream::read::Decoder::with_context(compressed, &mut self.context);
        let read = decoder
            .take(cap + 1)
            .read_to_end(&mut self.buf)
            .map_err(corrupt)?;
        if read as u64 > cap {
            return Err(super::inspect::bomb_message(
                read as u64,
                compressed.len() as u64,
                zstd.max,
                "inflates to more than",
            ));
        }
        if crc32fast::hash(&self.buf) != zstd.crc32 {
            return Err(corrupt(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "Invalid checksum",
            )));
        }
        Ok(&self.buf)
    }

    /// A large entry's buffer is not kept for the rest of the log.
    fn trim(&mut self) {
        if self.buf.capacity() > 16 << 20 {
            self.buf = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split_into;
    use proptest::prelude::*;

    proptest! {
        /// The batches hold every item once, in order, in at most `parts` batches, none empty.
        #[test]
        fn split_keeps_every_item_in_order(len in 0usize..40, parts in 0usize..10) {
            let items: Vec<usize> = (0..len).collect();
            let batches: Vec<Vec<usize>> = split_into(items.clone(), parts).collect();
            prop_assert!(batches.len() <= parts.max(1));
            prop_assert!(batches.iter().all(|b| !b.is_empty()));
            prop_assert_eq!(batches.concat(), items);
        }
    }

    #[test]
    fn ten_in_three_parts_are_four_four_two() {
        let sizes: Vec<usize> = split_into((0..10).collect::<Vec<_>>(), 3)
            .map(|b| b.len())
            .collect();
        assert_eq!(sizes, [4, 4, 2]);
    }
}
