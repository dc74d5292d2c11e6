//! The trace format of SPEC §4.1: the header and event types, and a streaming line reader that
//! keeps the line number and byte offset of every line and never holds more than one line (up to
//! a limit) in memory.
//!
//! A line is the bytes up to (not including) a `\n`; a `\r` before it belongs to the line (JSON
//! treats it as whitespace, the chain hashes it). `prev` is the SHA-256 of the previous line's
//! bytes so defined; the header is the line before `seq` 1.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{self, BufRead};

/// The version of the trace format this crate reads and writes.
pub const TRACE_VERSION: &str = "1";

/// The default bound on one line's length; a longer line is malformed (D616).
pub const DEFAULT_MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// The first line of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceHeader {
    pub trace: String,
    pub run: String,
    pub graph: String,
    pub graph_digest: String,
    pub abi: String,
    #[serde(default = "empty_object")]
    pub input: Value,
}

pub(crate) fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// One evidence item of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    pub kind: String,
    pub digest: String,
}

/// The recorded error of a step that ended in a failure mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepError {
    pub mode: String,
    #[serde(default)]
    pub message: String,
}

/// What a step cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    #[serde(default)]
    pub usd: f64,
    #[serde(default)]
    pub tokens: u64,
}

/// Every field an event line may carry; which ones are present decides its kind.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEvent {
    seq: Option<u64>,
    node: Option<String>,
    primitive: Option<String>,
    input: Option<Value>,
    output: Option<Value>,
    outcome: Option<String>,
    error: Option<StepError>,
    evidence: Option<Vec<Evidence>>,
    cost: Option<Cost>,
    prev: Option<String>,
    end: Option<String>,
}

/// A recorded step: one node ran one primitive.
#[derive(Debug, Clone, PartialEq)]
pub struct StepEvent {
    pub seq: u64,
    pub node: String,
    pub primitive: String,
    pub input: Value,
    /// `Ok(output)` or `Err(error)`: a step has exactly one of them.
    pub result: Result<Value, StepError>,
    pub outcome: Option<String>,
    pub evidence: Vec<Evidence>,
    pub cost: Cost,
    pub prev: Option<String>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndStatus {
    Success,
    Failure,
}

impl EndStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            EndStatus::Success => "success",
            EndStatus::Failure => "failure",
        }
    }
}

/// The last event of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct EndEvent {
    pub seq: u64,
    pub end: EndStatus,
    pub prev: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // one event at a time: boxing would cost an allocation a step
pub enum Event {
    Step(StepEvent),
    End(EndEvent),
}

impl Event {
    pub fn seq(&self) -> u64 {
        match self {
            Event::Step(s) => s.seq,
            Event::End(e) => e.seq,
        }
    }

    pub fn prev(&self) -> Option<&str> {
        match self {
            Event::Step(s) => s.prev.as_deref(),
            Event::End(e) => e.prev.as_deref(),
        }
    }
}

/// Why a line is not an event (D616), with the pointer within the line where it is known.
#[derive(Debug, Clone, PartialEq)]
pub struct LineError {
    pub message: String,
    pub pointer: String,
    pub column: u32,
}

impl LineError {
    fn at(pointer: &str, message: impl Into<String>) -> LineError {
        LineError {
            message: message.into(),
            pointer: pointer.to_string(),
            column: 1,
        }
    }
}

/// A serde_json error, refined: invalid UTF-8 is named with its byte offset within the line.
pub(crate) fn json_error(bytes: &[u8], e: &serde_json::Error) -> LineError {
    if let Err(utf8) = std::str::from_utf8(bytes) {
        return LineError {
            message: format!("invalid UTF-8 at byte {} of the line", utf8.valid_up_to()),
            pointer: String::new(),
            column: 1,
        };
    }
    let mut message = e.to_string();
    if let Some(cut) = message.find(" at line ") {
        message.truncate(cut);
    }
    LineError {
        message: format!("invalid JSON: {message}"),
        pointer: String::new(),
        column: e.column().max(1) as u32,
    }
}

/// Parse one event line.
pub fn parse_event(bytes: &[u8]) -> Result<Event, LineError> {
    let raw: RawEvent = serde_json::from_slice(bytes).map_err(|e| json_error(bytes, &e))?;
    let Some(seq) = raw.seq else {
        return Err(LineError::at("", "an event needs `seq`"));
    };
    if let Some(end) = raw.end {
        let extra = raw.node.is_some()
            || raw.primitive.is_some()
            || raw.input.is_some()
            || raw.output.is_some()
            || raw.outcome.is_some()
            || raw.error.is_some()
            || raw.evidence.is_some()
            || raw.cost.is_some();
        if extra {
            return Err(LineError::at(
                "/end",
                "an end event carries only `seq`, `end` and `prev`",
            ));
        }
        let end = match end.as_str() {
            "success" => EndStatus::Success,
            "failure" => EndStatus::Failure,
            other => {
                return Err(LineError::at(
                    "/end",
                    format!("`end` is `success` or `failure`, not `{other}`"),
                ));
            }
        };
        return Ok(Event::End(EndEvent {
            seq,
            end,
            prev: raw.prev,
        }));
    }
    let Some(node) = raw.node else {
        return Err(LineError::at(
            "",
            "a step needs `node` (or an end event `end`)",
        ));
    };
    let Some(primitive) = raw.primitive else {
        return Err(LineError::at("", "a step needs `primitive`"));
    };
    let input = raw.input.unwrap_or_else(empty_object);
    if !input.is_object() {
        return Err(LineError::at("/input", "`input` must be an object"));
    }
    let result = match (raw.output, raw.error) {
        (Some(_), Some(_)) => {
            return Err(LineError::at(
                "/error",
                "a step has `output` or `error`, not both",
            ));
        }
        (None, None) => {
            return Err(LineError::at("", "a step needs `output` or `error`"));
        }
        (Some(output), None) => {
            if !output.is_object() {
                return Err(LineError::at("/output", "`output` must be an object"));
            }
            Ok(output)
        }
        (None, Some(error)) => {
            if raw.outcome.is_some() {
                return Err(LineError::at(
                    "/outcome",
                    "a step that ended in an error has no `outcome`",
                ));
            }
            Err(error)
        }
    };
    let cost = raw.cost.unwrap_or_default();
    if !cost.usd.is_finite() || cost.usd < 0.0 {
        return Err(LineError::at(
            "/cost/usd",
            "`cost.usd` must be a non-negative number",
        ));
    }
    Ok(Event::Step(StepEvent {
        seq,
        node,
        primitive,
        input,
        result,
        outcome: raw.outcome,
        evidence: raw.evidence.unwrap_or_default(),
        cost,
        prev: raw.prev,
    }))
}

/// Parse the header line.
pub fn parse_header(bytes: &[u8]) -> Result<TraceHeader, LineError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| json_error(bytes, &e))?;
    if value.get("seq").is_some() {
        return Err(LineError::at(
            "/seq",
            "the first line is an event, not a trace header",
        ));
    }
    let header = TraceHeader::deserialize(&value)
        .map_err(|e| LineError::at("", format!("invalid trace header: {e}")))?;
    if header.trace != TRACE_VERSION {
        return Err(LineError::at(
            "/trace",
            format!(
                "trace format `{}` is not supported (this reader knows `{TRACE_VERSION}`)",
                header.trace
            ),
        ));
    }
    if !header.input.is_object() {
        return Err(LineError::at(
            "/input",
            "the run's `input` must be an object",
        ));
    }
    Ok(header)
}

/// One line as the reader found it.
#[derive(Debug)]
pub enum Line<'a> {
    /// The line's bytes (without the `\n`) and whether a `\n` ended it.
    Text { bytes: &'a [u8], terminated: bool },
    /// A line longer than the limit; its bytes were skipped, not kept.
    TooLong { len: u64 },
}

/// Where a line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinePos {
    /// 1-based line number.
    pub number: u32,
    /// Byte offset of the line's first byte in the file.
    pub offset: u64,
}

/// Reads a trace line by line with one reused buffer bounded by `max_line_bytes`.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    max_line_bytes: usize,
    next_number: u32,
    next_offset: u64,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, max_line_bytes: usize) -> LineReader<R> {
        LineReader {
            inner,
            buf: Vec::new(),
            max_line_bytes,
            next_number: 1,
            next_offset: 0,
        }
    }

    /// The position just past the last line read (line number of the next line, file length at
    /// the end).
    pub fn position(&self) -> LinePos {
        LinePos {
            number: self.next_number,
            offset: self.next_offset,
        }
    }

    /// The next line, or `None` at the end of the input.
    pub fn next_line(&mut self) -> io::Result<Option<(LinePos, Line<'_>)>> {
        self.buf.clear();
        let pos = self.position();
        let mut len: u64 = 0;
        let mut too_long = false;
        let mut terminated = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            let (take, found) = match memchr_newline(chunk) {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            if !too_long {
                if self.buf.len() + take > self.max_line_bytes {
                    too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(&chunk[..take]);
                }
            }
            len += take as u64;
            let consumed = if found { take + 1 } else { take };
            self.inner.consume(consumed);
            if found {
                terminated = true;
                break;
            }
        }
        if len == 0 && !terminated {
            return Ok(None);
        }
        self.next_number = self.next_number.saturating_add(1);
        self.next_offset += len + u64::from(terminated);
        let line = if too_long {
            Line::TooLong { len }
        } else {
            Line::Text {
                bytes: &self.buf,
                terminated,
            }
        };
        Ok(Some((pos, line)))
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_offsets_and_numbers() {
        let data = b"ab\n\ncde\nf";
        let mut r = LineReader::new(&data[..], 100);
        let mut got = Vec::new();
        while let Some((pos, line)) = r.next_line().unwrap() {
            match line {
                Line::Text { bytes, terminated } => {
                    got.push((pos.number, pos.offset, bytes.to_vec(), terminated))
                }
                Line::TooLong { .. } => panic!("not too long"),
            }
        }
        assert_eq!(
            got,
            vec![
                (1, 0, b"ab".to_vec(), true),
                (2, 3, b"".to_vec(), true),
                (3, 4, b"cde".to_vec(), true),
                (4, 8, b"f".to_vec(), false),
            ]
        );
    }

    #[test]
    fn long_lines_are_skipped_not_kept() {
        let mut data = vec![b'x'; 1000];
        data.extend_from_slice(b"\nok\n");
        let mut r = LineReader::new(std::io::BufReader::with_capacity(64, &data[..]), 100);
        let (pos, line) = r.next_line().unwrap().unwrap();
        assert_eq!(pos.number, 1);
        assert!(matches!(line, Line::TooLong { len: 1000 }));
        let (pos, line) = r.next_line().unwrap().unwrap();
        assert_eq!((pos.number, pos.offset), (2, 1001));
        assert!(matches!(
            line,
            Line::Text {
                bytes: b"ok",
                terminated: true
            }
        ));
        assert!(r.next_line().unwrap().is_none());
    }

    #[test]
    fn both_output_and_error_is_malformed() {
        let e = parse_event(
            br#"{"seq":1,"node":"a","primitive":"p","input":{},"output":{},"error":{"mode":"m"}}"#,
        )
        .unwrap_err();
        assert_eq!(e.pointer, "/error");
    }

    #[test]
    fn invalid_utf8_is_named() {
        let e = parse_event(b"{\"seq\":1,\"node\":\"\xff\"}").unwrap_err();
        assert!(
            e.message.contains("invalid UTF-8 at byte 17"),
            "{}",
            e.message
        );
    }
}
