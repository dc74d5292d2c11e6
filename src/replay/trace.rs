//! The trace format of SPEC §4.1: the header and event types, all their parsing (the header,
//! an event, and an event line as read, a cut last line named as such: `parse_line`), and a
//! streaming line reader that keeps the line number and byte offset of every line and never
//! holds more than one line (up to a limit) in memory.
//!
//! A line is the bytes up to (not including) a `\n`; a `\r` before it belongs to the line (JSON
//! treats it as whitespace, the chain hashes it). `prev` is the SHA-256 of the previous line's
//! bytes so defined; the header is the line before `seq` 1.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
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
    /// Set by `primgraph import` (SPEC §10): where the run was recorded; absent for a run a
    /// `TraceWriter` recorded itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<Imported>,
    /// The packs the run's graph ran with (SPEC §9.2): replay compares each recorded digest
    /// with the loaded pack's (D619).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packs: Option<Vec<RecordedPack>>,
}

/// One pack a trace header records (SPEC §9.2): `{"name", "version", "digest"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedPack {
    pub name: String,
    pub version: String,
    pub digest: String,
}

/// The provenance of an imported run (SPEC §10): the source format, the file (and entry) it
/// came from, its identifier there, and the importer that wrote the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Imported {
    pub format: String,
    pub source: String,
    pub id: String,
    pub importer: String,
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

/// An evidence item as a line holds it: imported evidence (SPEC §10) is marked
/// `"imported": true` (its digest was computed by the importer from the recorded output).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvidence {
    kind: String,
    digest: String,
    #[serde(default)]
    #[allow(dead_code)] // read so that the line is not malformed; replay checks kinds only
    imported: bool,
    /// The workspace path the evidence is of, when it names one (checked against the pack
    /// context rules of the step's primitive, D620).
    path: Option<String>,
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

/// The largest spend one step may record: `u64::MAX` nano-USD, as a float bound (2^64 exactly;
/// a spend that rounds to it or above has no integer nano-USD value).
const NANOS_LIMIT: f64 = 18_446_744_073_709_551_616.0;

/// USD to integer nano-USD (rounded to the nearest), or `None` when the amount is negative,
/// not finite, or too large for a `u64` of nano-USD. Nothing saturates.
pub fn usd_to_nanos(usd: f64) -> Option<u64> {
    if !usd.is_finite() || usd < 0.0 {
        return None;
    }
    let n = (usd * 1e9).round();
    if n.is_finite() && n < NANOS_LIMIT {
        Some(n as u64)
    } else {
        None
    }
}

/// A JSON value read with duplicate object keys refused at any depth (serde_json's own `Value`
/// keeps the last of two equal keys; SPEC §4.1 makes the line malformed instead).
pub(crate) struct StrictValue(pub(crate) Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<StrictValue, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let StrictValue(v) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// A field that may be present with a value, present as `null` (`Some(None)`), or absent
/// (`None`, through `#[serde(default)]`).
fn present_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

fn strict_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Option::<StrictValue>::deserialize(d).map(|o| o.map(|v| v.0))
}

/// Every field an event line may carry; which ones are present decides its kind. The payloads
/// are read strictly (duplicate keys refused); serde's derive refuses a repeated field itself.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEvent {
    seq: Option<u64>,
    /// `Some(None)`: `"node": null`, an imported step the mapping did not place (SPEC §10).
    #[serde(default, deserialize_with = "present_or_null")]
    node: Option<Option<String>>,
    #[serde(default, deserialize_with = "present_or_null")]
    primitive: Option<Option<String>>,
    source_name: Option<String>,
    partial: Option<bool>,
    #[serde(default, deserialize_with = "strict_opt")]
    input: Option<Value>,
    #[serde(default, deserialize_with = "strict_opt")]
    output: Option<Value>,
    outcome: Option<String>,
    error: Option<StepError>,
    evidence: Option<Vec<RawEvidence>>,
    cost: Option<Cost>,
    prev: Option<String>,
    end: Option<String>,
    signer: Option<String>,
    sig: Option<String>,
}

/// A recorded step: one node ran one primitive.
#[derive(Debug, Clone, PartialEq)]
pub struct StepEvent {
    pub seq: u64,
    /// The recorded node; empty for an imported step the mapping did not place (`unmapped`).
    pub node: String,
    pub primitive: String,
    pub input: Value,
    /// `Ok(output)` or `Err(error)`: a step has exactly one of them.
    pub result: Result<Value, StepError>,
    pub outcome: Option<String>,
    pub evidence: Vec<Evidence>,
    pub cost: Cost,
    pub prev: Option<String>,
    /// Imported steps (SPEC §10): the tool or span name in the source, when recorded.
    pub source_name: Option<String>,
    /// `"node": null`: an imported step with no node (replay reports it as a divergence).
    pub unmapped: bool,
    /// `"partial": true`: the source did not capture the step's input or output, so replay
    /// skips the checks that need them.
    pub partial: bool,
    /// The `path` an evidence item names, by its index in `evidence` (D620).
    pub evidence_paths: Vec<(usize, String)>,
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

/// The last event of a run, with its seal when it has one (SPEC §4.1).
#[derive(Debug, Clone, PartialEq)]
pub struct EndEvent {
    pub seq: u64,
    pub end: EndStatus,
    pub prev: Option<String>,
    /// `ed25519:` + the public key in hex, as recorded.
    pub signer: Option<String>,
    /// `ed25519:` + the signature in hex, as recorded.
    pub sig: Option<String>,
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
    /// Whether the line was refused for a duplicate object key (D616 even on the header line:
    /// SPEC §4.1 makes a duplicate key anywhere in any line malformed).
    pub fn is_duplicate_key(&self) -> bool {
        self.message.starts_with(DUPLICATE_KEY)
    }

    fn at(pointer: &str, message: impl Into<String>) -> LineError {
        LineError {
            message: message.into(),
            pointer: pointer.to_string(),
            column: 1,
        }
    }
}

/// A serde_json error, refined: invalid UTF-8 is named with its byte offset within the line,
/// and a duplicate key with its JSON pointer and column (from the spanned parser, which runs only
/// on this error path).
pub(crate) fn json_error(bytes: &[u8], e: &serde_json::Error) -> LineError {
    if let Err(utf8) = std::str::from_utf8(bytes) {
        let column = utf8.valid_up_to() + 1;
        return LineError {
            message: format!(
                "invalid UTF-8 at byte {} of the line (column {column})",
                utf8.valid_up_to()
            ),
            pointer: String::new(),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        };
    }
    let mut message = e.to_string();
    if let Some(cut) = message.find(" at line ") {
        message.truncate(cut);
    }
    if message.starts_with("duplicate ")
        && let Some(dup) = duplicate_key(bytes)
    {
        return dup;
    }
    let syntax = matches!(
        e.classify(),
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof
    );
    LineError {
        message: if syntax {
            format!("invalid JSON: {message}")
        } else {
            message
        },
        pointer: String::new(),
        column: e.column().max(1) as u32,
    }
}

/// Valid JSON that is not an event (a wrong type, a missing or unknown field), named with the
/// pointer to what is wrong: each top-level field is read on its own (every field of a
/// `RawEvent` is optional, so a one-field object fails only for that field), then the items of
/// `evidence`, `error` and `cost`.
fn shape_error(bytes: &[u8], e: &serde_json::Error) -> LineError {
    let Ok(StrictValue(value)) = serde_json::from_slice::<StrictValue>(bytes) else {
        return json_error(bytes, e);
    };
    let Value::Object(fields) = &value else {
        return LineError::at(
            "",
            format!(
                "an event line is a JSON object, not {}",
                crate::graph::load::type_name(&value)
            ),
        );
    };
    let problem = |pointer: String, e: serde_json::Error| LineError::at(&pointer, e.to_string());
    for (key, field) in fields {
        let pointer = format!("/{}", crate::json::pointer::escape_token(key));
        let one = Value::Object(Map::from_iter([(key.clone(), field.clone())]));
        if let Err(e) = RawEvent::deserialize(&one) {
            if key == "evidence"
                && let Value::Array(items) = field
            {
                for (i, item) in items.iter().enumerate() {
                    if let Err(e) = RawEvidence::deserialize(item) {
                        return problem(format!("{pointer}/{i}"), e);
                    }
                }
            }
            return problem(pointer, e);
        }
    }
    json_error(bytes, e)
}

const DUPLICATE_KEY: &str = "duplicate key `";

/// The first duplicate key of a line, located.
fn duplicate_key(bytes: &[u8]) -> Option<LineError> {
    let limits = crate::json::Limits {
        max_bytes: usize::MAX,
        max_depth: 256,
    };
    let e = crate::json::parse(bytes, &limits).err()?;
    let crate::json::JsonErrorKind::DuplicateKey {
        key,
        pointer,
        first,
        ..
    } = e.kind
    else {
        return None;
    };
    let shown = if pointer.is_empty() { "/" } else { &pointer };
    Some(LineError {
        message: format!(
            "{DUPLICATE_KEY}{key}` at {shown} (first at column {}): a reader that keeps the first value and one that keeps the last see different events",
            first.column
        ),
        pointer,
        column: e.span.column.max(1),
    })
}

/// The fields of an end event (SPEC §4.1): the end status, its place in the chain and the seal.
const END_FIELDS: [&str; 5] = ["seq", "end", "prev", "signer", "sig"];

/// Parse one event line.
pub fn parse_event(bytes: &[u8]) -> Result<Event, LineError> {
    let raw: RawEvent = serde_json::from_slice(bytes).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => shape_error(bytes, &e),
        _ => json_error(bytes, &e),
    })?;
    let Some(seq) = raw.seq else {
        return Err(LineError::at("", "an event needs `seq`"));
    };
    if let Some(end) = raw.end {
        // By key, not by value: `"node": null` reads as no node, yet it is a field the end
        // event does not have, and the seal does not cover the line's bytes — so a field
        // beyond these five would be an unsealed spelling of a sealed line.
        let keys: std::collections::BTreeMap<String, serde::de::IgnoredAny> =
            serde_json::from_slice(bytes).map_err(|e| json_error(bytes, &e))?;
        if let Some(extra) = keys.keys().find(|k| !END_FIELDS.contains(&k.as_str())) {
            return Err(LineError::at(
                &format!("/{}", crate::json::pointer::escape_token(extra)),
                format!(
                    "an end event carries only `seq`, `end`, `prev` and its seal (`signer`, `sig`), not `{extra}`"
                ),
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
            signer: raw.signer,
            sig: raw.sig,
        }));
    }
    if raw.signer.is_some() || raw.sig.is_some() {
        let field = if raw.signer.is_some() {
            "signer"
        } else {
            "sig"
        };
        return Err(LineError::at(
            &format!("/{field}"),
            format!("only the end event carries a seal; a step has no `{field}`"),
        ));
    }
    let (node, unmapped) = match raw.node {
        None => {
            return Err(LineError::at(
                "",
                "a step needs `node` (or an end event `end`)",
            ));
        }
        Some(Some(node)) => (node, false),
        Some(None) => {
            if raw.source_name.is_none() {
                return Err(LineError::at(
                    "/node",
                    "`node` is null only on an imported step the mapping did not place, which names its `source_name`",
                ));
            }
            (String::new(), true)
        }
    };
    let primitive = match raw.primitive {
        Some(Some(p)) => p,
        Some(None) if unmapped => String::new(),
        Some(None) => {
            return Err(LineError::at(
                "/primitive",
                "`primitive` is null only on a step whose `node` is null",
            ));
        }
        None => return Err(LineError::at("", "a step needs `primitive`")),
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
        // An imported step whose output the source did not capture has neither (SPEC §10:
        // absent, not invented); replay skips the checks of its content.
        (None, None) if raw.partial == Some(true) => Ok(empty_object()),
        (None, None) => {
            return Err(LineError::at(
                "",
                "a step needs `output` or `error` (only a `\"partial\": true` step has neither)",
            ));
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
    if usd_to_nanos(cost.usd).is_none() {
        return Err(LineError::at(
            "/cost/usd",
            format!(
                "`cost.usd` is {}: spend is a non-negative amount of at most 18446744073.709551615 USD (it is summed in integer nano-USD)",
                cost.usd
            ),
        ));
    }
    Ok(Event::Step(StepEvent {
        seq,
        node,
        primitive,
        input,
        result,
        outcome: raw.outcome,
        evidence_paths: raw
            .evidence
            .iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, e)| e.path.clone().map(|p| (i, p)))
            .collect(),
        evidence: raw
            .evidence
            .unwrap_or_default()
            .into_iter()
            .map(|e| Evidence {
                kind: e.kind,
                digest: e.digest,
            })
            .collect(),
        cost,
        prev: raw.prev,
        source_name: raw.source_name,
        unmapped,
        partial: raw.partial.unwrap_or(false),
    }))
}

/// Parse the header line.
pub fn parse_header(bytes: &[u8]) -> Result<TraceHeader, LineError> {
    let StrictValue(value) = serde_json::from_slice(bytes).map_err(|e| json_error(bytes, &e))?;
    if value.get("seq").is_some() {
        return Err(LineError::at(
            "/seq",
            "the first line is an event, not a trace header",
        ));
    }
    let header = TraceHeader::deserialize(&value).map_err(|e| header_shape_error(&value, &e))?;
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

/// The `run` a header line names when the line is an object (without a duplicate key) with a
/// string `run`, whether or not it is a valid header.
pub(crate) fn header_run_id(bytes: &[u8]) -> Option<String> {
    let StrictValue(value) = serde_json::from_slice(bytes).ok()?;
    if value.get("seq").is_some() {
        return None;
    }
    value.get("run")?.as_str().map(str::to_owned)
}

/// The fields a trace header may carry (SPEC §4.1, §9.2, §10).
const HEADER_FIELDS: [&str; 8] = [
    "trace",
    "run",
    "graph",
    "graph_digest",
    "abi",
    "input",
    "imported",
    "packs",
];

/// A header that is valid JSON but not a header, with the pointer to what is wrong where it is
/// one field: an unknown field, or a known one of the wrong type.
fn header_shape_error(value: &Value, e: &serde_json::Error) -> LineError {
    let Value::Object(fields) = value else {
        return LineError::at(
            "",
            format!(
                "a trace header is a JSON object, not {}",
                crate::graph::load::type_name(value)
            ),
        );
    };
    if let Some(extra) = fields.keys().find(|k| !HEADER_FIELDS.contains(&k.as_str())) {
        return LineError::at(
            &format!("/{}", crate::json::pointer::escape_token(extra)),
            format!("unknown header field `{extra}`"),
        );
    }
    let strings = ["trace", "run", "graph", "graph_digest", "abi"];
    if let Some(key) = strings
        .iter()
        .find(|k| fields.get(**k).is_some_and(|v| !v.is_string()))
    {
        return LineError::at(&format!("/{key}"), format!("`{key}` must be a string"));
    }
    LineError::at("", format!("invalid trace header: {e}"))
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

/// Parse an event line, naming a cut last line (no newline) as such: whatever it holds, the
/// recorder did not finish writing it.
pub(crate) fn parse_line(bytes: &[u8], terminated: bool, number: u32) -> Result<Event, LineError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(LineError {
            message: if terminated {
                "empty line".into()
            } else {
                format!("the trace stops inside line {number} (no newline) without an end event")
            },
            pointer: String::new(),
            column: 1,
        });
    }
    match parse_event(bytes) {
        // JSON Lines makes the last newline optional (SPEC §4.1): a last line that parses is
        // read; a step there still leaves the run without an end event (D616 at the end).
        Ok(event) => Ok(event),
        Err(mut e) => {
            if !terminated {
                e.message = format!(
                    "the trace was cut inside line {number} (no newline, no end event): {}",
                    e.message
                );
            }
            Err(e)
        }
    }
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
