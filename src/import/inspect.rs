//! Inspect AI logs (SPEC §10 `inspect`): an `.eval` log — a zip whose entries are compressed
//! with zstd (method 93) or deflate, one `samples/ID_epoch_N.json` per sample and epoch, and a
//! `header.json` written only when the eval finished — or the `.json` form, one document whose
//! `samples` array holds the same objects. One run per sample and epoch; the sample's `tool`
//! events become steps in the order of its event list; its first score (or the mapping's
//! scorer) decides `end`; the last assistant message is the final answer.
//!
//! Streamed: an `.eval` is read entry by entry (the central directory, then one inflated sample
//! at a time, never the whole log); the `.json` form is read sample by sample from a buffered
//! reader. Each entry is guarded: its inflated size is capped, and so is its ratio to the
//! compressed size past 1 MiB (a zip bomb stops at the cap, never filling memory); a name that
//! escapes the archive (`../`, an absolute path) is refused; a truncated zip or entry, a CRC
//! mismatch, JSON that is not UTF-8 or repeats a key the importer reads, are I901 errors
//! located by file, entry, sample, line and column.

// A sample that is not one is an error per sample, rare beside the runs: not worth a box.
#![allow(clippy::result_large_err)]

use super::convert::run_input;
use super::pipeline::{self, Done, Pipeline};
use super::skim;
use super::{Format, ImportDiagnostic, ImportError, Importer, Location, SourceRun, SourceStep};
use crate::codes::I901;
use crate::replay::trace::StrictValue;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::io::{BufReader, Read};
use std::path::Path;

/// Past this inflated size an entry must not inflate more than [`MAX_RATIO`] times its
/// compressed size.
pub const RATIO_FLOOR: u64 = 1 << 20;
/// The largest inflated/compressed ratio of an entry past [`RATIO_FLOOR`] (Inspect's JSON
/// compresses 5–30× with zstd; a bomb inflates thousands of times).
pub const MAX_RATIO: u64 = 200;

/// A sample as the importer reads it: what it needs, every other field skipped unparsed.
#[derive(Deserialize)]
struct Sample<'a> {
    id: Option<StrictValue>,
    epoch: Option<u64>,
    input: Option<StrictValue>,
    #[serde(default)]
    scores: Option<StrictValue>,
    #[serde(default, borrow)]
    events: Option<Vec<Event<'a>>>,
    #[serde(default, borrow)]
    messages: Option<Raw<'a>>,
    #[serde(default, borrow)]
    output: Option<Raw<'a>>,
    #[serde(default, borrow)]
    attachments: Option<Raw<'a>>,
}

/// A field kept as its JSON text, checked but not parsed (parsed only when the run needs it).
#[derive(Clone, Copy)]
struct Raw<'a>(&'a str);

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Raw<'a>, D::Error> {
        <&RawValue>::deserialize(d).map(|r| Raw(r.get()))
    }
}

/// The fields [`Sample`] and [`Event`] read, for [`skim`].
const SAMPLE_FIELDS: &[&str] = &[
    "id",
    "epoch",
    "input",
    "scores",
    "messages",
    "output",
    "attachments",
];
const EVENT_FIELDS: &[&str] = &["event", "function", "arguments", "result", "error"];

impl<'a> Sample<'a> {
    /// The sample read by [`skim`]'s scanner: `None` when serde_json must read it (malformed,
    /// or unusual: see `skim`'s doc); otherwise what serde_json reads.
    fn skimmed(bytes: &'a [u8]) -> Option<Sample<'a>> {
        let skimmed = skim::skim(bytes, SAMPLE_FIELDS, EVENT_FIELDS)?;
        let fields = &skimmed.fields;
        // A raw field is checked as serde_json's `RawValue` checks it: valid JSON (the scanner
        // did that) in UTF-8.
        let raw = |name: &str| -> Option<Option<Raw<'a>>> {
            match fields.iter().find(|(n, _)| *n == name) {
                None => Some(None),
                Some((_, b"null")) => Some(None),
                Some((_, bytes)) => std::str::from_utf8(bytes).ok().map(|t| Some(Raw(t))),
            }
        };
        let events = match skimmed.events {
            None => None,
            Some(events) => Some(
                events
                    .iter()
                    .map(|e| {
                        Some(Event {
                            event: skim::parse(e, "event")?,
                            function: skim::parse(e, "function")?,
                            arguments: skim::parse(e, "arguments")?,
                            result: skim::parse(e, "result")?,
                            error: skim::parse(e, "error")?,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?,
            ),
        };
        Some(Sample {
            id: skim::parse(fields, "id")?,
            epoch: skim::parse(fields, "epoch")?,
            input: skim::parse(fields, "input")?,
            scores: skim::parse(fields, "scores")?,
            events,
            messages: raw("messages")?,
            output: raw("output")?,
            attachments: raw("attachments")?,
        })
    }
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow)]
    event: Option<std::borrow::Cow<'a, str>>,
    function: Option<StrictValue>,
    arguments: Option<StrictValue>,
    result: Option<StrictValue>,
    error: Option<StrictValue>,
}

/// A sample owned (the `.json` form reads from a stream, which cannot lend).
#[derive(Deserialize)]
struct OwnedSample {
    id: Option<StrictValue>,
    epoch: Option<u64>,
    input: Option<StrictValue>,
    #[serde(default)]
    scores: Option<StrictValue>,
    #[serde(default)]
    events: Option<Vec<OwnedEvent>>,
    #[serde(default)]
    messages: Option<LastAssistant>,
    #[serde(default)]
    output: Option<StrictValue>,
    #[serde(default)]
    attachments: Option<StrictValue>,
}

/// Of a streamed sample's messages, only the last assistant message is kept (the final
/// answer when the output has none): one message in memory at a time, never the conversation.
struct LastAssistant(Option<Value>);

impl<'de> Deserialize<'de> for LastAssistant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LastAssistant, D::Error> {
        struct Messages;
        impl<'de> Visitor<'de> for Messages {
            type Value = LastAssistant;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of messages")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LastAssistant, A::Error> {
                let mut last = None;
                while let Some(StrictValue(message)) = seq.next_element()? {
                    if message.get("role").and_then(Value::as_str) == Some("assistant") {
                        last = Some(message);
                    }
                }
                Ok(LastAssistant(last))
            }
        }
        d.deserialize_seq(Messages)
    }
}

#[derive(Deserialize)]
struct OwnedEvent {
    event: Option<String>,
    function: Option<StrictValue>,
    arguments: Option<StrictValue>,
    result: Option<StrictValue>,
    error: Option<StrictValue>,
}

/// Read one Inspect log (`.eval` or `.json`) into the importer.
pub(crate) fn read(path: &Path, max: u64, importer: &mut Importer<'_>) -> Result<(), ImportError> {
    let file = path.display().to_string();
    let location = Location::file(&file);
    let opened = match crate::input::open_regular(path) {
        Ok(f) => f,
        Err(e) => {
            importer.diagnose(ImportDiagnostic::new(&I901, location, e.to_string()));
            return Ok(());
        }
    };
    let mut magic = [0u8; 4];
    let is_zip = {
        let mut f = &opened;
        let n = f.read(&mut magic).unwrap_or(0);
        n == 4 && (magic == *b"PK\x03\x04" || magic == *b"PK\x05\x06")
    };
    use std::io::Seek;
    let mut opened = opened;
    if let Err(e) = opened.seek(std::io::SeekFrom::Start(0)) {
        importer.diagnose(ImportDiagnostic::new(&I901, location, e.to_string()));
        return Ok(());
    }
    if is_zip || path.extension().is_some_and(|e| e == "eval") {
        read_eval(opened, &file, max, importer)
    } else {
        read_json(opened, &file, max, importer)
    }
}

fn stem_of(file: &str) -> String {
    Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Does a zip entry's name stay inside the archive?
fn name_escapes(name: &str) -> bool {
    name.starts_with('/')
        || name.starts_with('\\')
        || name.contains(':')
        || name.split(['/', '\\']).any(|part| part == "..")
}

/// `samples/ID_epoch_N.json` → (ID, N).
fn sample_entry(name: &str) -> Option<(&str, u64)> {
    let rest = name.strip_prefix("samples/")?.strip_suffix(".json")?;
    if rest.contains('/') {
        return None;
    }
    let (id, epoch) = rest.rsplit_once("_epoch_")?;
    Some((id, epoch.parse().ok()?))
}

fn read_eval(
    file_handle: std::fs::File,
    file: &str,
    max: u64,
    importer: &mut Importer<'_>,
) -> Result<(), ImportError> {
    let location = Location::file(file);
    let mut archive = match zip::ZipArchive::new(SeekBuf::new(file_handle)) {
        Ok(a) => a,
        Err(e) => {
            importer.diagnose(ImportDiagnostic::new(
                &I901,
                location,
                format!(
                    "not an Inspect `.eval` log: the zip cannot be read ({e}); a truncated log has no central directory"
                ),
            ));
            return Ok(());
        }
    };
    let stem = stem_of(file);
    let mut chunked = chunked_entries(&archive);
    let mut found_samples = 0u64;
    let options = importer.shared_options();
    std::thread::scope(|scope| -> Result<(), ImportError> {
        let mut pipeline = Pipeline::start(scope, options, pipeline::worker_count(), parse_sample);
        for index in 0..archive.len() {
            let Some(name) = archive.name_for_index(index).map(str::to_string) else {
                continue;
            };
            let at = Location {
                entry: Some(name.clone()),
                ..location.clone()
            };
            if name_escapes(&name) {
                let d = ImportDiagnostic::new(
                    &I901,
                    at,
                    format!(
                        "the entry `{name}` names a path outside the archive (`..` or absolute): skipped"
                    ),
                );
                pipeline.done(Done::Finding(Box::new(d)), importer)?;
                continue;
            }
            if let Some(prefix) = name
                .strip_prefix("samples/")
                .and_then(|rest| rest.strip_suffix("/sample.json"))
                .filter(|p| !p.contains('/'))
            {
                found_samples += 1;
                let entries = chunked.remove(prefix).unwrap_or_default();
                let at = Location {
                    sample: Some(prefix.replacen("_epoch_", " epoch ", 1)),
                    ..at
                };
                let read = read_chunked(&mut archive, index, &entries, max, &stem, &at);
                pipeline.done(mapped(importer, read), importer)?;
                continue;
            }
            let Some((id, epoch)) = sample_entry(&name) else {
                continue;
            };
            found_samples += 1;
            let sample_at = Location {
                sample: Some(format!("{id} epoch {epoch}")),
                ..at
            };
            // A zstd entry (what Inspect writes) goes to the workers compressed: they inflate it.
            match read_compressed(&mut archive, index, max, &mut pipeline, importer)? {
                Compressed::Read(bytes, zstd) => {
                    pipeline.parse(bytes, Some(zstd), sample_at, importer)?;
                    continue;
                }
                Compressed::Refused(message) => {
                    let d = ImportDiagnostic::new(&I901, sample_at, message);
                    pipeline.done(Done::Finding(Box::new(d)), importer)?;
                    continue;
                }
                Compressed::Other => {}
            }
            // Opened once: whether it is streamed is read off the opened entry.
            let entry = match archive.by_index(index) {
                Ok(entry) => entry,
                Err(e) => {
                    let message = format!("the entry cannot be read: {e}");
                    let d = ImportDiagnostic::new(&I901, sample_at, message);
                    pipeline.done(Done::Finding(Box::new(d)), importer)?;
                    continue;
                }
            };
            if entry.size() > STREAM_PAST {
                let read = read_streamed(entry, max, &stem, &sample_at);
                pipeline.done(mapped(importer, read), importer)?;
                continue;
            }
            let declared = usize::try_from(entry.size()).unwrap_or(usize::MAX);
            let mut buf = pipeline.buffer(declared, importer)?;
            if let Err(message) = inflate_entry(entry, max, &mut buf) {
                pipeline.give_back(buf);
                let d = ImportDiagnostic::new(&I901, sample_at, message);
                pipeline.done(Done::Finding(Box::new(d)), importer)?;
                continue;
            }
            pipeline.parse(buf, None, sample_at, importer)?;
        }
        pipeline.finish(importer)
    })?;
    if found_samples == 0 && archive.index_for_name("header.json").is_none() {
        importer.diagnose(ImportDiagnostic::new(
            &I901,
            location,
            "not an Inspect `.eval` log: the zip has neither `header.json` nor `samples/ID_epoch_N.json` entries",
        ));
    }
    Ok(())
}

/// The log's file, buffered, for the zip reader: a seek to a place the buffer holds (the next
/// entry's header, right after the entry just read) moves within the buffer instead of
/// dropping it (as `BufReader`'s `seek` does), so the log is read from the file about once,
/// not a buffer's worth per entry.
struct SeekBuf {
    inner: BufReader<std::fs::File>,
    position: u64,
}

impl SeekBuf {
    fn new(file: std::fs::File) -> SeekBuf {
        SeekBuf {
            inner: BufReader::with_capacity(256 * 1024, file),
            position: 0,
        }
    }
}

impl Read for SeekBuf {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.position += n as u64;
        Ok(n)
    }
}

impl std::io::Seek for SeekBuf {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            std::io::SeekFrom::Start(n) => Some(n),
            std::io::SeekFrom::Current(d) => self.position.checked_add_signed(d),
            std::io::SeekFrom::End(_) => None,
        };
        match target.and_then(|t| i64::try_from(i128::from(t) - i128::from(self.position)).ok()) {
            Some(delta) => {
                self.inner.seek_relative(delta)?;
                self.position = self.position.wrapping_add_signed(delta);
            }
            None => self.position = self.inner.seek(to)?,
        }
        Ok(self.position)
    }

    fn stream_position(&mut self) -> std::io::Result<u64> {
        Ok(self.position)
    }
}

/// What [`read_compressed`] made of an entry.
enum Compressed {
    /// A zstd entry's compressed bytes, for a worker to inflate.
    Read(Vec<u8>, pipeline::Zstd),
    /// A zstd entry refused before it is inflated (it declares more than its caps, or its
    /// bytes cannot be read): the I901 message.
    Refused(String),
    /// Not an entry the workers inflate (deflate, encrypted, or streamed past
    /// [`STREAM_PAST`]): the reader opens it itself.
    Other,
}

/// A zstd sample entry's compressed bytes, read in a buffer of the pipeline once the entries
/// in flight leave room for it inflated; the caps on its declared size are checked here, the
/// rest (what it really inflates to, its CRC) by the worker that inflates it.
fn read_compressed<R: Read + std::io::Seek>(
    archive: &mut zip::ZipArchive<R>,
    index: usize,
    max: u64,
    pipeline: &mut Pipeline,
    importer: &mut Importer<'_>,
) -> Result<Compressed, ImportError> {
    let mut raw = match archive.by_index_raw(index) {
        Ok(raw)
            if raw.compression() == zip::CompressionMethod::Zstd
                && !raw.encrypted()
                && raw.size() <= STREAM_PAST =>
        {
            raw
        }
        _ => return Ok(Compressed::Other),
    };
    let (declared, compressed, crc32) = (raw.size(), raw.compressed_size(), raw.crc32());
    let cap = entry_cap(compressed, max);
    if declared > cap {
        let message = bomb_message(declared, compressed, max, "declares");
        return Ok(Compressed::Refused(message));
    }
    let weight = usize::try_from(declared).unwrap_or(usize::MAX);
    let mut buf = pipeline.buffer(weight, importer)?;
    let read = raw.read_to_end(&mut buf);
    match read {
        Ok(n) if n as u64 == compressed => Ok(Compressed::Read(
            buf,
            pipeline::Zstd {
                crc32,
                declared,
                max,
            },
        )),
        Ok(n) => {
            pipeline.give_back(buf);
            Ok(Compressed::Refused(format!(
                "the entry cannot be inflated (truncated or corrupt): {n} of its {compressed} compressed bytes"
            )))
        }
        Err(e) => {
            pipeline.give_back(buf);
            Ok(Compressed::Refused(format!(
                "the entry cannot be inflated (truncated or corrupt): {e}"
            )))
        }
    }
}

/// The most an entry of `compressed` bytes may inflate to: `max`, and past [`RATIO_FLOOR`]
/// [`MAX_RATIO`] times its compressed size.
pub(crate) fn entry_cap(compressed: u64, max: u64) -> u64 {
    max.min(compressed.saturating_mul(MAX_RATIO).max(RATIO_FLOOR))
}

/// One sample entry inflated: parsed (its typed fields borrowed from the bytes) into a run.
/// Runs on the pipeline's workers.
fn parse_sample(bytes: &[u8], at: &Location) -> Result<SourceRun, ImportDiagnostic> {
    let stem = stem_of(&at.file);
    if let Some(sample) = Sample::skimmed(bytes) {
        return borrowed_run(sample, &stem, at, "");
    }
    match serde_json::from_slice::<Sample<'_>>(bytes) {
        Ok(sample) => borrowed_run(sample, &stem, at, ""),
        Err(e) => Err(json_error(bytes, &e, at.clone())),
    }
}

/// A run the reader read itself (chunked or streamed), mapped on its thread.
fn mapped(importer: &Importer<'_>, read: Result<SourceRun, Box<ImportDiagnostic>>) -> Done {
    match read {
        Ok(run) => Done::Run(Box::new(super::convert::convert(
            &importer.shared_options(),
            Format::Inspect,
            run,
        ))),
        Err(d) => Done::Finding(d),
    }
}

/// The entries of one chunked sample (Inspect's `samples/ID_epoch_N/` layout): each
/// sequence's chunks as (first index, zip index), in index order.
#[derive(Default)]
struct ChunkedEntries {
    events: Vec<(u64, usize)>,
    attachments: Vec<(u64, usize)>,
    messages: Vec<(u64, usize)>,
}

/// Every chunked sample's entries, by its prefix `ID_epoch_N`, from the central directory
/// (the only record of a chunked sample's layout): `events/START.json`,
/// `attachments/START.json` and `messages/START.json`; the sidecars (`skeleton.json`,
/// `events/stats.json`, `events/uuids.json`, `calls/…`, `metadata.json`) are not needed.
fn chunked_entries<R: Read + std::io::Seek>(
    archive: &zip::ZipArchive<R>,
) -> std::collections::HashMap<String, ChunkedEntries> {
    let mut out: std::collections::HashMap<String, ChunkedEntries> = Default::default();
    for index in 0..archive.len() {
        let Some(name) = archive.name_for_index(index) else {
            continue;
        };
        let Some(rest) = name.strip_prefix("samples/") else {
            continue;
        };
        let mut parts = rest.split('/');
        let (Some(prefix), Some(sequence), Some(chunk), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Some(start) = chunk
            .strip_suffix(".json")
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let entries = out.entry(prefix.to_string()).or_default();
        match sequence {
            "events" => entries.events.push((start, index)),
            "attachments" => entries.attachments.push((start, index)),
            "messages" => entries.messages.push((start, index)),
            _ => {}
        }
    }
    for entries in out.values_mut() {
        entries.events.sort_unstable();
        entries.attachments.sort_unstable();
        entries.messages.sort_unstable();
    }
    out
}

/// A chunked sample's shell (`sample.json`): the sample without its messages, events and
/// attachments, its final conversation as ranges into the `messages` sequence.
#[derive(Deserialize)]
struct Shell {
    id: Option<StrictValue>,
    epoch: Option<u64>,
    input: Option<StrictValue>,
    #[serde(default)]
    scores: Option<StrictValue>,
    #[serde(default)]
    output: Option<StrictValue>,
    #[serde(default)]
    message_refs: Option<Vec<(u64, u64)>>,
}

/// Inflate and parse one entry of a chunked sample, errors located in that entry.
fn chunk_of<R: Read + std::io::Seek, T: serde::de::DeserializeOwned>(
    archive: &mut zip::ZipArchive<R>,
    index: usize,
    max: u64,
    at: &Location,
) -> Result<T, Box<ImportDiagnostic>> {
    let at = Location {
        entry: archive.name_for_index(index).map(str::to_string),
        ..at.clone()
    };
    let mut buf = Vec::new();
    inflate(archive, index, max, &mut buf)
        .map_err(|message| Box::new(ImportDiagnostic::new(&I901, at.clone(), message)))?;
    serde_json::from_slice(&buf).map_err(|e| Box::new(json_error(&buf, &e, at)))
}

/// One sample in Inspect's chunked layout: the shell, then the events chunks in order (tool
/// events kept, each located in its chunk), the attachments its tool calls, input or answer
/// refer to (`attachment://INDEX`, only those kept), and — when the output has no completion —
/// the last assistant message of its final conversation.
fn read_chunked<R: Read + std::io::Seek>(
    archive: &mut zip::ZipArchive<R>,
    shell_index: usize,
    entries: &ChunkedEntries,
    max: u64,
    stem: &str,
    at: &Location,
) -> Result<SourceRun, Box<ImportDiagnostic>> {
    let shell: Shell = chunk_of(archive, shell_index, max, at)?;
    let mut events = Vec::new();
    let mut buf = Vec::new();
    for &(_, index) in &entries.events {
        let chunk_at = Location {
            entry: archive.name_for_index(index).map(str::to_string),
            ..at.clone()
        };
        buf.clear();
        inflate(archive, index, max, &mut buf)
            .map_err(|message| Box::new(ImportDiagnostic::new(&I901, chunk_at.clone(), message)))?;
        let chunk: Vec<Event<'_>> = serde_json::from_slice(&buf)
            .map_err(|e| Box::new(json_error(&buf, &e, chunk_at.clone())))?;
        for (i, event) in chunk.into_iter().enumerate() {
            events.push(EventParts::of(
                event,
                Some(chunk_at.with_pointer(format!("/{i}"))),
            ));
        }
    }
    let output = shell.output.map(|v| v.0);
    let input = shell.input.map(|v| v.0);
    let mut wanted = std::collections::HashSet::new();
    let mut refer = |v: &Value| collect_attachments(v, &mut wanted);
    if let Some(i) = &input {
        refer(i);
    }
    if let Some(c) = completion(&output) {
        refer(&Value::String(c));
    }
    for e in &events {
        for v in [&e.arguments, &e.result, &e.error].into_iter().flatten() {
            refer(v);
        }
    }
    let mut attachments = serde_json::Map::new();
    if !wanted.is_empty() {
        for &(start, index) in &entries.attachments {
            let chunk: Vec<StrictValue> = chunk_of(archive, index, max, at)?;
            for (i, content) in chunk.into_iter().enumerate() {
                let key = (start + i as u64).to_string();
                if wanted.contains(&key) {
                    attachments.insert(key, content.0);
                }
            }
        }
    }
    let mut messages = None;
    if completion(&output).is_none() {
        messages = last_assistant(archive, entries, shell.message_refs.as_deref(), max, at)?;
    }
    let parts = Parts {
        id: shell.id.map(|v| v.0),
        epoch: shell.epoch,
        input,
        scores: shell.scores.map(|v| v.0),
        events,
        messages: messages.map(|m| Value::Array(vec![m])),
        output,
        attachments: Some(Value::Object(attachments)),
    };
    build_run(parts, stem, at, "").map_err(Box::new)
}

/// The attachment keys (`attachment://KEY`) a value refers to.
fn collect_attachments(v: &Value, into: &mut std::collections::HashSet<String>) {
    match v {
        Value::String(s) => {
            if let Some(key) = s.strip_prefix(ATTACHMENT) {
                into.insert(key.to_string());
            }
        }
        Value::Array(a) => a.iter().for_each(|v| collect_attachments(v, into)),
        Value::Object(m) => m.values().for_each(|v| collect_attachments(v, into)),
        _ => {}
    }
}

/// The last assistant message of a chunked sample's final conversation (`message_refs`:
/// half-open ranges into the `messages` sequence), read from the chunk that holds it.
fn last_assistant<R: Read + std::io::Seek>(
    archive: &mut zip::ZipArchive<R>,
    entries: &ChunkedEntries,
    refs: Option<&[(u64, u64)]>,
    max: u64,
    at: &Location,
) -> Result<Option<Value>, Box<ImportDiagnostic>> {
    let Some(refs) = refs else {
        return Ok(None);
    };
    let mut loaded: Option<(u64, Vec<StrictValue>)> = None;
    for &(start, end) in refs.iter().rev() {
        for index in (start..end).rev() {
            // The chunk holding `index`: the one with the greatest start at or before it.
            let Some(&(chunk_start, zip_index)) =
                entries.messages.iter().rev().find(|(s, _)| *s <= index)
            else {
                continue;
            };
            if loaded.as_ref().is_none_or(|(s, _)| *s != chunk_start) {
                loaded = Some((chunk_start, chunk_of(archive, zip_index, max, at)?));
            }
            let Some((_, chunk)) = &loaded else {
                continue;
            };
            let Some(message) = chunk.get((index - chunk_start) as usize) else {
                continue;
            };
            if message.0.get("role").and_then(Value::as_str) == Some("assistant") {
                return Ok(Some(message.0.clone()));
            }
        }
    }
    Ok(None)
}

/// A sample entry larger than this (inflated) is parsed as it inflates, never held whole:
/// its memory is what the run keeps (its tool calls, the last assistant message, the
/// attachments), not the size of the entry. Smaller ones are inflated first and parsed from
/// memory, which is faster.
pub const STREAM_PAST: u64 = 64 << 20;

/// The marker of a streamed entry that inflated past its cap (an I/O error to serde_json).
const OVER_CAP: &str = "inflated past the cap";

/// A reader that fails once more than `left` bytes would be read from it.
struct Capped<R> {
    inner: R,
    left: u64,
    read: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(std::io::Error::other(OVER_CAP)),
            };
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        self.read += n as u64;
        Ok(n)
    }
}

/// One large sample entry parsed as it inflates (see [`STREAM_PAST`]); the same caps as
/// [`inflate`], errors located by line and column in the entry.
fn read_streamed<R: Read>(
    entry: zip::read::ZipFile<'_, R>,
    max: u64,
    stem: &str,
    at: &Location,
) -> Result<SourceRun, Box<ImportDiagnostic>> {
    let fail = |message: String| Box::new(ImportDiagnostic::new(&I901, at.clone(), message));
    let compressed = entry.compressed_size();
    let declared = entry.size();
    let cap = entry_cap(compressed, max);
    if declared > cap {
        return Err(fail(bomb_message(declared, compressed, max, "declares")));
    }
    let capped = Capped {
        inner: entry,
        left: cap,
        read: 0,
    };
    let mut de =
        serde_json::Deserializer::from_reader(BufReader::with_capacity(256 * 1024, capped));
    let parsed = OwnedSample::deserialize(&mut de).and_then(|s| de.end().map(|()| s));
    match parsed {
        Ok(sample) => owned_run(sample, stem, at, "").map_err(Box::new),
        Err(e) if e.is_io() && e.to_string().contains(OVER_CAP) => Err(fail(bomb_message(
            cap.saturating_add(1),
            compressed,
            max,
            "inflates to more than",
        ))),
        Err(e) if e.is_io() => Err(fail(format!(
            "the entry cannot be inflated (truncated or corrupt): {e}"
        ))),
        Err(e) => {
            let mut message = e.to_string();
            if let Some(cut) = message.find(" at line ") {
                message.truncate(cut);
            }
            let mut d = ImportDiagnostic::new(
                &I901,
                Location {
                    line: e.line() as u32,
                    column: e.column().max(1) as u32,
                    ..at.clone()
                },
                format!("not an Inspect sample: {message}"),
            );
            d.diagnostic.line = e.line() as u32;
            d.diagnostic.column = e.column().max(1) as u32;
            Err(Box::new(d))
        }
    }
}

/// Inflate one entry into `buf`, refusing it past `max` bytes or a zip bomb's ratio.
fn inflate<R: Read + std::io::Seek>(
    archive: &mut zip::ZipArchive<R>,
    index: usize,
    max: u64,
    buf: &mut Vec<u8>,
) -> Result<(), String> {
    let entry = archive
        .by_index(index)
        .map_err(|e| format!("the entry cannot be read: {e}"))?;
    inflate_entry(entry, max, buf)
}

/// Inflate an opened entry into `buf`, with the caps of [`inflate`].
fn inflate_entry<R: Read>(
    mut entry: zip::read::ZipFile<'_, R>,
    max: u64,
    buf: &mut Vec<u8>,
) -> Result<(), String> {
    let compressed = entry.compressed_size();
    let declared = entry.size();
    let cap = entry_cap(compressed, max);
    if declared > cap {
        return Err(bomb_message(declared, compressed, max, "declares"));
    }
    buf.reserve(declared.min(cap) as usize);
    let read = (&mut entry)
        .take(cap + 1)
        .read_to_end(buf)
        .map_err(|e| format!("the entry cannot be inflated (truncated or corrupt): {e}"))?;
    if read as u64 > cap {
        return Err(bomb_message(
            read as u64,
            compressed,
            max,
            "inflates to more than",
        ));
    }
    Ok(())
}

pub(crate) fn bomb_message(size: u64, compressed: u64, max: u64, verb: &str) -> String {
    if size > max {
        format!(
            "the entry {verb} {size} bytes, over the limit of {max} bytes per entry (raise it with --max-entry-bytes): skipped"
        )
    } else {
        format!(
            "the entry {verb} {size} bytes from {compressed} compressed ({}× past {RATIO_FLOOR} bytes, over the limit of {MAX_RATIO}×: a zip bomb?): skipped",
            size / compressed.max(1)
        )
    }
}

/// A JSON error located in its entry or file.
fn json_error(bytes: &[u8], e: &serde_json::Error, at: Location) -> ImportDiagnostic {
    let line_error = crate::replay::trace::json_error(bytes, e);
    let mut message = e.to_string();
    if let Some(cut) = message.find(" at line ") {
        message.truncate(cut);
    }
    if line_error.message.starts_with("invalid UTF-8") || line_error.is_duplicate_key() {
        message = line_error.message;
    }
    let mut d = ImportDiagnostic::new(
        &I901,
        Location {
            pointer: line_error.pointer,
            line: e.line() as u32,
            column: e.column() as u32,
            ..at
        },
        format!("not an Inspect sample: {message}"),
    );
    d.diagnostic.line = e.line() as u32;
    d.diagnostic.column = e.column().max(1) as u32;
    d
}

/// How a value refers to an attachment: `attachment://HASH` in a sample entry,
/// `attachment://INDEX` (into the sample's `attachments/` sequence) in a chunked sample.
const ATTACHMENT: &str = "attachment://";

/// Resolve `attachment://HASH` strings anywhere in a value from the sample's attachments.
fn resolve(value: Value, attachments: &Option<serde_json::Map<String, Value>>) -> Value {
    let Some(att) = attachments else {
        return value;
    };
    match value {
        Value::String(s) => match s.strip_prefix(ATTACHMENT) {
            Some(key) => att.get(key).cloned().unwrap_or(Value::String(s)),
            None => Value::String(s),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(|v| resolve(v, attachments)).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, resolve(v, attachments)))
                .collect(),
        ),
        other => other,
    }
}

fn mentions_attachment(v: &Value) -> bool {
    match v {
        Value::String(s) => s.starts_with(ATTACHMENT),
        Value::Array(a) => a.iter().any(mentions_attachment),
        Value::Object(m) => m.values().any(mentions_attachment),
        _ => false,
    }
}

/// Text of a message's `content`: a string, or the `text` of its text parts.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// A tool result as a value: Inspect stores text, numbers, booleans, or a list of content
/// parts (text parts become their text).
fn tool_result(result: Value) -> Value {
    match result {
        Value::Array(parts)
            if parts
                .iter()
                .all(|p| p.get("type").and_then(Value::as_str) == Some("text")) =>
        {
            Value::String(
                parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        }
        other => other,
    }
}

/// One event as the run is built from it: its kind, and for a tool event its function,
/// arguments, result and error; where it is when that is not `/events/N` of the sample's
/// entry (a chunked sample's events are in entries of their own).
struct EventParts {
    kind: Option<String>,
    function: Option<Value>,
    arguments: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
    at: Option<Location>,
}

impl EventParts {
    fn of(e: Event<'_>, at: Option<Location>) -> EventParts {
        if e.event.as_deref() != Some("tool") {
            return EventParts {
                kind: e.event.map(std::borrow::Cow::into_owned),
                function: None,
                arguments: None,
                result: None,
                error: None,
                at,
            };
        }
        EventParts {
            kind: Some("tool".into()),
            function: e.function.map(|v| v.0),
            arguments: e.arguments.map(|v| v.0),
            result: e.result.map(|v| v.0),
            error: e.error.map(|v| v.0),
            at,
        }
    }

    fn mentions_attachment(&self) -> bool {
        [&self.arguments, &self.result, &self.error]
            .iter()
            .any(|v| v.as_ref().is_some_and(mentions_attachment))
    }
}

struct Parts {
    id: Option<Value>,
    epoch: Option<u64>,
    input: Option<Value>,
    scores: Option<Value>,
    events: Vec<EventParts>,
    messages: Option<Value>,
    output: Option<Value>,
    attachments: Option<Value>,
}

fn borrowed_run(
    s: Sample<'_>,
    stem: &str,
    at: &Location,
    base: &str,
) -> Result<SourceRun, ImportDiagnostic> {
    let raw = |r: Option<Raw<'_>>, what: &str| -> Result<Option<Value>, ImportDiagnostic> {
        match r {
            None => Ok(None),
            Some(Raw(text)) => serde_json::from_str::<StrictValue>(text)
                .map(|v| Some(v.0))
                .map_err(|e| {
                    ImportDiagnostic::new(
                        &I901,
                        at.with_pointer(format!("{base}/{what}")),
                        format!("not an Inspect sample: `{what}`: {e}"),
                    )
                }),
        }
    };
    let parts = Parts {
        id: s.id.map(|v| v.0),
        epoch: s.epoch,
        input: s.input.map(|v| v.0),
        scores: s.scores.map(|v| v.0),
        events: s
            .events
            .unwrap_or_default()
            .into_iter()
            .map(|e| EventParts::of(e, None))
            .collect(),
        messages: None,
        output: raw(s.output, "output")?,
        attachments: None,
    };
    // Parsed only when needed: the final answer's messages when the output has no text, and
    // the attachments when a tool call refers to one.
    let needs_attachments = parts.input.as_ref().is_some_and(mentions_attachment)
        || completion(&parts.output).is_some_and(|c| c.starts_with(ATTACHMENT))
        || parts.events.iter().any(EventParts::mentions_attachment);
    let mut parts = parts;
    if needs_attachments {
        parts.attachments = raw(s.attachments, "attachments")?;
    }
    if completion(&parts.output).is_none() {
        parts.messages = raw(s.messages, "messages")?;
    }
    build_run(parts, stem, at, base)
}

fn owned_run(
    s: OwnedSample,
    stem: &str,
    at: &Location,
    base: &str,
) -> Result<SourceRun, ImportDiagnostic> {
    let parts = Parts {
        id: s.id.map(|v| v.0),
        epoch: s.epoch,
        input: s.input.map(|v| v.0),
        scores: s.scores.map(|v| v.0),
        events: s
            .events
            .unwrap_or_default()
            .into_iter()
            .map(|e| EventParts {
                kind: e.event,
                function: e.function.map(|v| v.0),
                arguments: e.arguments.map(|v| v.0),
                result: e.result.map(|v| v.0),
                error: e.error.map(|v| v.0),
                at: None,
            })
            .collect(),
        messages: s.messages.and_then(|m| m.0).map(|m| Value::Array(vec![m])),
        output: s.output.map(|v| v.0),
        attachments: s.attachments.map(|v| v.0),
    };
    build_run(parts, stem, at, base)
}

fn completion(output: &Option<Value>) -> Option<String> {
    output
        .as_ref()?
        .get("completion")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn id_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn build_run(
    p: Parts,
    stem: &str,
    at: &Location,
    base: &str,
) -> Result<SourceRun, ImportDiagnostic> {
    let Some(id) = p.id.as_ref().filter(|v| v.is_string() || v.is_number()) else {
        return Err(ImportDiagnostic::new(
            &I901,
            at.with_pointer(format!("{base}/id")),
            "not an Inspect sample: no `id` (a string or a number)",
        ));
    };
    let sample = id_text(id);
    let epoch = p.epoch.unwrap_or(1);
    let at = Location {
        sample: Some(format!("{sample} epoch {epoch}")),
        ..at.clone()
    };
    let attachments = match p.attachments {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    };
    let mut steps = Vec::new();
    for (i, event) in p.events.into_iter().enumerate() {
        let EventParts {
            kind,
            function,
            arguments,
            result,
            error,
            at: event_at,
        } = event;
        if kind.as_deref() != Some("tool") {
            continue;
        }
        let event_at = event_at.unwrap_or_else(|| at.with_pointer(format!("{base}/events/{i}")));
        let Some(Value::String(name)) = function else {
            let pointer = format!("{}/function", event_at.pointer);
            return Err(ImportDiagnostic::new(
                &I901,
                event_at.with_pointer(pointer),
                "not an Inspect tool event: `function` is not a string",
            ));
        };
        let error = error.filter(|e| !e.is_null());
        steps.push(SourceStep {
            name,
            kind: super::StepKind::Tool,
            arguments: arguments.map(|a| resolve(a, &attachments)),
            result: if error.is_some() {
                None
            } else {
                result.map(|r| tool_result(resolve(r, &attachments)))
            },
            error: error.map(|e| resolve(e, &attachments)),
            location: event_at,
        });
    }
    let mut scores = Vec::new();
    if let Some(Value::Object(m)) = p.scores {
        for (name, score) in m {
            let value = score.get("value").cloned().unwrap_or(Value::Null);
            scores.push((name, value));
        }
    }
    let final_text = completion(&p.output).or_else(|| {
        let Some(Value::Array(messages)) = &p.messages else {
            return None;
        };
        messages
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .and_then(|m| m.get("content"))
            .and_then(content_text)
    });
    let final_text = final_text.map(|t| match resolve(Value::String(t), &attachments) {
        Value::String(t) => t,
        other => other.to_string(),
    });
    let input = p.input.map(|i| resolve(i, &attachments));
    Ok(SourceRun {
        id: format!("{stem}/{sample}_epoch_{epoch}"),
        file_stem: format!("{sample}_epoch_{epoch}"),
        input: run_input(input),
        steps,
        final_text,
        scores,
        root_failed: false,
        location: at,
    })
}

/// The `.json` form, streamed: the top-level object's `samples` array is read one sample at a
/// time (its text, then the sample from that text, so that a malformed sample is located and
/// skipped while the others import); every other member is skipped.
fn read_json(
    file_handle: std::fs::File,
    file: &str,
    max: u64,
    importer: &mut Importer<'_>,
) -> Result<(), ImportError> {
    let location = Location::file(file);
    let stem = stem_of(file);
    let position = std::rc::Rc::new(std::cell::RefCell::new(Position::default()));
    let reader = Positioned {
        inner: BufReader::with_capacity(256 * 1024, file_handle.take(max)),
        position: position.clone(),
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut state = JsonState {
        importer,
        stem,
        location: location.clone(),
        failure: None,
        samples: 0,
        position,
    };
    let result = (&mut de).deserialize_map(LogVisitor(&mut state));
    let result = result.and_then(|()| de.end());
    if let Some(e) = state.failure.take() {
        return Err(e);
    }
    if let Err(e) = result {
        let mut d = ImportDiagnostic::new(
            &I901,
            Location {
                line: e.line() as u32,
                column: e.column().max(1) as u32,
                ..location
            },
            format!(
                "not an Inspect log: {}",
                e.to_string().split(" at line ").next().unwrap_or_default()
            ),
        );
        d.diagnostic.line = e.line() as u32;
        d.diagnostic.column = e.column().max(1) as u32;
        state.importer.diagnose(d);
    }
    Ok(())
}

/// Where the `.json` form's reader is: the bytes, lines and column consumed, and, from a mark
/// set before each sample, the offsets of the first newlines after it (the whitespace before
/// the sample's text), so that a sample's first byte is located exactly.
#[derive(Default)]
struct Position {
    offset: u64,
    line: u32,
    column: u32,
    mark: (u64, u32, u32),
    newlines_since_mark: Vec<u64>,
}

/// How many newlines after a mark are remembered: the whitespace between two samples.
const NEWLINES_KEPT: usize = 64;

impl Position {
    fn set_mark(&mut self) {
        self.mark = (self.offset, self.line, self.column);
        self.newlines_since_mark.clear();
    }

    /// The line and column of the byte at `start` (after the mark), given the newlines between
    /// it and the present position.
    fn at(&self, start: u64, newlines_after: usize) -> (u32, u32) {
        let (mark_offset, mark_line, mark_column) = self.mark;
        let total = (self.line - mark_line) as usize;
        let before = total.saturating_sub(newlines_after);
        if before == 0 {
            return (
                mark_line + 1,
                mark_column + 1 + (start - mark_offset) as u32,
            );
        }
        match self.newlines_since_mark.get(before - 1) {
            Some(&nl) => (mark_line + 1 + before as u32, (start - nl) as u32),
            None => (mark_line + 1 + before as u32, 1),
        }
    }
}

/// A reader that keeps a [`Position`] of what serde_json consumed (it reads byte by byte).
struct Positioned<R> {
    inner: R,
    position: std::rc::Rc<std::cell::RefCell<Position>>,
}

impl<R: Read> Read for Positioned<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut p = self.position.borrow_mut();
        for &b in &buf[..n] {
            if b == b'\n' {
                if p.newlines_since_mark.len() < NEWLINES_KEPT {
                    let at = p.offset;
                    p.newlines_since_mark.push(at);
                }
                p.line += 1;
                p.column = 0;
            } else {
                p.column += 1;
            }
            p.offset += 1;
        }
        Ok(n)
    }
}

struct JsonState<'i, 'a> {
    importer: &'i mut Importer<'a>,
    stem: String,
    location: Location,
    failure: Option<ImportError>,
    samples: usize,
    position: std::rc::Rc<std::cell::RefCell<Position>>,
}

impl JsonState<'_, '_> {
    /// A sample whose text does not read as a sample: located in the file (line and column),
    /// by the sample's ID and epoch when it has them, and by the member that is wrong.
    fn sample_error(
        &self,
        text: &str,
        e: &serde_json::Error,
        at: &Location,
        base: &str,
    ) -> ImportDiagnostic {
        let position = self.position.borrow();
        let start = position.offset - text.len() as u64;
        let newlines = text.bytes().filter(|&b| b == b'\n').count();
        let (line, column) = position.at(start, newlines);
        let mut d = json_error(text.as_bytes(), e, at.clone());
        let in_text = (d.location.line, d.location.column);
        let (line, column) = if in_text.0 <= 1 {
            (line, column + in_text.1.saturating_sub(1))
        } else {
            (line + in_text.0 - 1, in_text.1)
        };
        let value = serde_json::from_str::<Value>(text).ok();
        let pointer = if d.location.pointer.is_empty() {
            let member = value.as_ref().and_then(wrong_member).unwrap_or_default();
            format!("{base}{member}")
        } else {
            format!("{base}{}", d.location.pointer)
        };
        let sample = value.as_ref().and_then(|v| {
            let id = v.get("id").filter(|id| id.is_string() || id.is_number())?;
            let epoch = v.get("epoch").and_then(Value::as_u64).unwrap_or(1);
            Some(format!("{} epoch {epoch}", id_text(id)))
        });
        d.location = Location {
            sample,
            pointer,
            line,
            column,
            ..d.location
        };
        d.diagnostic.pointer = d.location.pointer.clone();
        d.diagnostic.line = line;
        d.diagnostic.column = column;
        d
    }
}

/// The pointer of the first member of a sample that does not read as its type (`/events`, or
/// `/events/3` for one event), when a type is what is wrong.
fn wrong_member(sample: &Value) -> Option<String> {
    fn fails<T: serde::de::DeserializeOwned>(v: &Value) -> bool {
        T::deserialize(v).is_err()
    }
    let sample = sample.as_object()?;
    for (key, v) in sample {
        let wrong = match key.as_str() {
            "id" | "input" | "scores" | "output" | "attachments" => fails::<StrictValue>(v),
            "epoch" => fails::<Option<u64>>(v),
            "messages" => fails::<Option<LastAssistant>>(v),
            "events" => {
                if let Some(events) = v.as_array() {
                    if let Some(i) = events.iter().position(fails::<OwnedEvent>) {
                        return Some(format!("/events/{i}"));
                    }
                    false
                } else {
                    fails::<Option<Vec<OwnedEvent>>>(v)
                }
            }
            _ => false,
        };
        if wrong {
            return Some(format!("/{key}"));
        }
    }
    None
}

struct LogVisitor<'s, 'i, 'a>(&'s mut JsonState<'i, 'a>);

impl<'de> Visitor<'de> for LogVisitor<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an Inspect log object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen_samples = false;
        // Any JSON object would otherwise read as an empty log (an OTLP document, say): a log
        // has at least one of the members every Inspect log writes.
        let mut seen_log_member = false;
        while let Some(key) = map.next_key::<String>()? {
            seen_log_member |= ["version", "status", "eval", "samples"].contains(&key.as_str());
            if key == "samples" {
                if seen_samples {
                    return Err(de::Error::custom("duplicate key `samples`"));
                }
                seen_samples = true;
                map.next_value_seed(SamplesSeed(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !seen_log_member {
            return Err(de::Error::custom(
                "the object has none of an Inspect log's members (`version`, `status`, `eval`, \
                 `samples`)",
            ));
        }
        Ok(())
    }
}

struct SamplesSeed<'s, 'i, 'a>(&'s mut JsonState<'i, 'a>);

impl<'de> DeserializeSeed<'de> for SamplesSeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SamplesSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of samples (or null)")
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let state = self.0;
        loop {
            state.position.borrow_mut().set_mark();
            let Some(text) = seq.next_element::<Box<RawValue>>()? else {
                break;
            };
            let k = state.samples;
            state.samples += 1;
            let base = format!("/samples/{k}");
            let at = state.location.with_pointer(base.clone());
            let read = serde_json::from_str::<OwnedSample>(text.get())
                .map_err(|e| state.sample_error(text.get(), &e, &at, &base))
                .and_then(|sample| owned_run(sample, &state.stem, &at, &base));
            match read {
                Ok(run) => {
                    if let Err(e) = state.importer.run(Format::Inspect, run) {
                        state.failure = Some(e);
                        return Err(de::Error::custom("the import stopped"));
                    }
                }
                Err(d) => state.importer.diagnose(d),
            }
        }
        Ok(())
    }
}
