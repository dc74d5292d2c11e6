//! OpenTelemetry GenAI spans (SPEC §10 `otel`): OTLP/JSON files — the collector's file exporter
//! writes one `{"resourceSpans": …}` document per line, in no particular order; a file may also
//! hold one document — with trace and span IDs in hex or base64 and enums as numbers or names.
//! A trace is a run. `execute_tool` spans are tool steps (`gen_ai.tool.name`, arguments from
//! `gen_ai.tool.call.arguments`, result from `gen_ai.tool.call.result`: both opt-in, so absent
//! means `partial`); a nested `invoke_agent` span (`gen_ai.agent.name`) is a step, unmapped
//! (I902) when its name maps to no node; the root agent span (the run) and other spans are steps
//! only where their name is mapped. Steps are ordered depth-first by parent, siblings by start time;
//! siblings that start at the same time are ordered by span ID and reported (I904). A span
//! whose parent is missing is a root; spans in a parent loop are reported (I901) and skipped;
//! a span ID seen twice in one trace keeps the first.

use super::{
    Format, ImportDiagnostic, ImportError, Importer, Location, SourceRun, SourceStep, StepKind,
};
use crate::codes::{I901, I904};
use crate::replay::trace::StrictValue;
use base64::Engine;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;

#[derive(Deserialize)]
struct Doc {
    #[serde(rename = "resourceSpans", alias = "resource_spans")]
    resource_spans: Option<Vec<ResourceSpans>>,
}

#[derive(Deserialize)]
struct ResourceSpans {
    #[serde(
        rename = "scopeSpans",
        alias = "scope_spans",
        alias = "instrumentationLibrarySpans",
        default
    )]
    scope_spans: Vec<ScopeSpans>,
}

#[derive(Deserialize)]
struct ScopeSpans {
    #[serde(default)]
    spans: Vec<RawSpan>,
}

#[derive(Deserialize)]
struct RawSpan {
    #[serde(rename = "traceId", alias = "trace_id", default)]
    trace_id: String,
    #[serde(rename = "spanId", alias = "span_id", default)]
    span_id: String,
    #[serde(rename = "parentSpanId", alias = "parent_span_id", default)]
    parent_span_id: Option<String>,
    #[serde(default)]
    name: String,
    #[serde(rename = "startTimeUnixNano", alias = "start_time_unix_nano", default)]
    start: Option<Value>,
    #[serde(default)]
    attributes: Vec<KeyValue>,
    #[serde(default)]
    status: Option<Status>,
    #[serde(default)]
    events: Vec<RawEvent>,
}

/// A span event: only `exception` events are read (their `exception.message`).
#[derive(Deserialize)]
struct RawEvent {
    #[serde(default)]
    name: String,
    #[serde(default)]
    attributes: Vec<KeyValue>,
}

impl RawEvent {
    fn exception_message(&self) -> Option<String> {
        if self.name != "exception" {
            return None;
        }
        self.attributes
            .iter()
            .find(|kv| kv.key == "exception.message")
            .and_then(|kv| kv.value.as_ref())
            .map(|v| any_value(&v.0))
            .and_then(|v| v.as_str().map(str::to_string))
            .filter(|m| !m.is_empty())
    }
}

#[derive(Deserialize)]
struct KeyValue {
    key: String,
    value: Option<StrictValue>,
}

#[derive(Deserialize)]
struct Status {
    code: Option<Value>,
    message: Option<String>,
}

/// A span as the importer keeps it.
struct Span {
    span_id: String,
    parent: Option<String>,
    name: String,
    start: u64,
    attributes: Map<String, Value>,
    error: Option<String>,
    location: Location,
}

/// An OTLP `AnyValue` as plain JSON.
fn any_value(v: &Value) -> Value {
    let Some(m) = v.as_object() else {
        return v.clone();
    };
    if let Some(s) = m.get("stringValue").or_else(|| m.get("string_value")) {
        return s.clone();
    }
    if let Some(b) = m.get("boolValue").or_else(|| m.get("bool_value")) {
        return b.clone();
    }
    if let Some(i) = m.get("intValue").or_else(|| m.get("int_value")) {
        return match i {
            Value::String(s) => s.parse::<i64>().map_or_else(|_| i.clone(), Value::from),
            other => other.clone(),
        };
    }
    if let Some(d) = m.get("doubleValue").or_else(|| m.get("double_value")) {
        return d.clone();
    }
    if let Some(a) = m.get("arrayValue").or_else(|| m.get("array_value")) {
        let values = a.get("values").and_then(Value::as_array);
        return Value::Array(values.map_or_else(Vec::new, |vs| vs.iter().map(any_value).collect()));
    }
    if let Some(kv) = m.get("kvlistValue").or_else(|| m.get("kvlist_value")) {
        let mut out = Map::new();
        for item in kv
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(k) = item.get("key").and_then(Value::as_str) {
                out.insert(
                    k.to_string(),
                    item.get("value").map_or(Value::Null, any_value),
                );
            }
        }
        return Value::Object(out);
    }
    if let Some(b) = m.get("bytesValue").or_else(|| m.get("bytes_value")) {
        return b.clone();
    }
    Value::Null
}

/// An ID in hex (of `bytes` bytes) or base64, as lowercase hex; `None` when it is neither.
pub(crate) fn normalize_id(id: &str, bytes: usize) -> Option<String> {
    if id.len() == bytes * 2 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(id.to_ascii_lowercase());
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(id)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(id))
        .ok()?;
    (decoded.len() == bytes).then(|| decoded.iter().map(|b| format!("{b:02x}")).collect())
}

/// A status code as a number or a name: is it `ERROR`?
fn is_error(code: &Value) -> bool {
    match code {
        Value::Number(n) => n.as_u64() == Some(2),
        Value::String(s) => s == "STATUS_CODE_ERROR" || s == "ERROR" || s == "2",
        _ => false,
    }
}

fn nanos(v: &Option<Value>) -> u64 {
    match v {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        _ => 0,
    }
}

/// A JSON string attribute parsed, any other value as it is.
fn json_attribute(v: &Value) -> Value {
    match v {
        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| v.clone()),
        other => other.clone(),
    }
}

/// The text of the last message of a `gen_ai.output.messages` value (parts' `content` or
/// `text`, or a message's `content` string).
fn last_message_text(messages: &Value) -> Option<String> {
    // A plain text attribute (not the GenAI JSON form) is the text itself.
    if let Value::String(text) = messages {
        return Some(text.clone());
    }
    let last = messages.as_array()?.last()?;
    if let Some(s) = last.get("content").and_then(Value::as_str) {
        return Some(s.to_string());
    }
    let parts = last.get("parts")?.as_array()?;
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| {
            p.get("content")
                .or_else(|| p.get("text"))
                .and_then(Value::as_str)
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

pub(crate) fn read(path: &Path, max: u64, importer: &mut Importer<'_>) -> Result<(), ImportError> {
    let file = path.display().to_string();
    let location = Location::file(&file);
    let bytes = match crate::input::read_capped(path, usize::try_from(max).unwrap_or(usize::MAX)) {
        Ok(b) => b,
        Err(e) => {
            importer.diagnose(ImportDiagnostic::new(&I901, location, e.to_string()));
            return Ok(());
        }
    };
    let mut traces: Vec<(String, Vec<Span>)> = Vec::new();
    let mut by_trace: HashMap<String, usize> = HashMap::new();
    let mut doc_no = 0usize;
    for next in super::Documents::<Doc>::new(&bytes, location.clone(), "OTLP/JSON") {
        let (doc, line, column) = match next {
            super::Document::Read(doc, line, column) => (doc, line, column),
            super::Document::Failed(d) => {
                importer.diagnose(*d);
                continue;
            }
        };
        doc_no += 1;
        let at = Location {
            line,
            column,
            ..location.clone()
        };
        let Some(resource_spans) = doc.resource_spans else {
            importer.diagnose(ImportDiagnostic::new(
                &I901,
                at,
                format!("not OTLP/JSON: document {doc_no} has no `resourceSpans`"),
            ));
            continue;
        };
        for (r, rs) in resource_spans.into_iter().enumerate() {
            for (s, ss) in rs.scope_spans.into_iter().enumerate() {
                for (k, raw) in ss.spans.into_iter().enumerate() {
                    let pointer = format!("/resourceSpans/{r}/scopeSpans/{s}/spans/{k}");
                    let span_at = at.with_pointer(pointer.clone());
                    let (Some(trace), Some(span_id)) = (
                        normalize_id(&raw.trace_id, 16),
                        normalize_id(&raw.span_id, 8),
                    ) else {
                        importer.diagnose(ImportDiagnostic::new(
                            &I901,
                            span_at,
                            format!(
                                "a span's `traceId` ({:?}) or `spanId` ({:?}) is neither hex nor base64 of 16 and 8 bytes: skipped",
                                raw.trace_id, raw.span_id
                            ),
                        ));
                        continue;
                    };
                    let parent = match raw.parent_span_id.as_deref() {
                        None | Some("") => None,
                        Some(p) => match normalize_id(p, 8) {
                            Some(p) => Some(p),
                            None => {
                                importer.diagnose(ImportDiagnostic::new(
                                    &I901,
                                    span_at.with_pointer(format!("{pointer}/parentSpanId")),
                                    format!("`parentSpanId` {p:?} is neither hex nor base64 of 8 bytes: the span is taken as a root"),
                                ));
                                None
                            }
                        },
                    };
                    let mut attributes = Map::new();
                    for kv in raw.attributes {
                        if kv.key.starts_with("gen_ai.") || kv.key == "error.type" {
                            let v = kv.value.map_or(Value::Null, |v| any_value(&v.0));
                            attributes.insert(kv.key, v);
                        }
                    }
                    let error = raw.status.as_ref().and_then(|st| {
                        st.code.as_ref().filter(|c| is_error(c)).map(|_| {
                            st.message
                                .clone()
                                .filter(|m| !m.is_empty())
                                .or_else(|| raw.events.iter().find_map(RawEvent::exception_message))
                                .or_else(|| {
                                    attributes
                                        .get("error.type")
                                        .and_then(Value::as_str)
                                        .map(str::to_string)
                                })
                                .unwrap_or_else(|| "error".to_string())
                        })
                    });
                    let slot = *by_trace.entry(trace.clone()).or_insert_with(|| {
                        traces.push((trace.clone(), Vec::new()));
                        traces.len() - 1
                    });
                    traces[slot].1.push(Span {
                        span_id,
                        parent,
                        name: raw.name,
                        start: nanos(&raw.start),
                        attributes,
                        error,
                        location: Location {
                            sample: Some(trace.clone()),
                            ..span_at
                        },
                    });
                }
            }
        }
    }
    for (trace, spans) in traces {
        let run = build_run(&file, &trace, spans, importer);
        importer.run(Format::Otel, run)?;
    }
    Ok(())
}

fn build_run(file: &str, trace: &str, spans: Vec<Span>, importer: &mut Importer<'_>) -> SourceRun {
    let at = Location {
        sample: Some(trace.to_string()),
        ..Location::file(file)
    };
    // Colliding span IDs: the first is kept.
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut keep = vec![true; spans.len()];
    for (i, s) in spans.iter().enumerate() {
        if let Some(&first) = index.get(s.span_id.as_str()) {
            keep[i] = false;
            importer.diagnose(ImportDiagnostic::new(
                &I901,
                s.location.clone(),
                format!(
                    "span ID {} appears twice in trace {trace} (first at line {}): the second is skipped",
                    s.span_id, spans[first].location.line
                ),
            ));
        } else {
            index.insert(&s.span_id, i);
        }
    }
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        let parent = s
            .parent
            .as_deref()
            .and_then(|p| index.get(p).copied())
            .filter(|&p| p != i);
        let parent = if s.parent.as_deref() == Some(s.span_id.as_str()) {
            Some(i) // its own parent: a loop of one
        } else {
            parent
        };
        children.entry(parent).or_default().push(i);
    }
    let mut tie_reported = false;
    for list in children.values_mut() {
        list.sort_by(|&a, &b| {
            (spans[a].start, &spans[a].span_id).cmp(&(spans[b].start, &spans[b].span_id))
        });
        if !tie_reported
            && let Some(w) = list
                .windows(2)
                .find(|w| spans[w[0]].start == spans[w[1]].start)
        {
            tie_reported = true;
            importer.diagnose(ImportDiagnostic::new(
                &I904,
                spans[w[1]].location.clone(),
                format!(
                    "spans {} (`{}`) and {} (`{}`) of trace {trace} have the same parent and start time: their order is taken by span ID",
                    spans[w[0]].span_id, spans[w[0]].name, spans[w[1]].span_id, spans[w[1]].name
                ),
            ));
        }
    }
    // Depth first from the roots (iteratively: a deep chain cannot overflow the stack).
    let mut order = Vec::with_capacity(spans.len());
    let mut visited = vec![false; spans.len()];
    let mut stack: Vec<usize> = children.get(&None).cloned().unwrap_or_default();
    stack.reverse();
    while let Some(i) = stack.pop() {
        if visited[i] {
            continue;
        }
        visited[i] = true;
        order.push(i);
        if let Some(kids) = children.get(&Some(i)) {
            stack.extend(kids.iter().rev().filter(|&&k| k != i));
        }
    }
    let looped: Vec<usize> = (0..spans.len())
        .filter(|&i| keep[i] && !visited[i])
        .collect();
    if let Some(&first) = looped.first() {
        importer.diagnose(ImportDiagnostic::new(
            &I901,
            spans[first].location.clone(),
            format!(
                "{} span(s) of trace {trace} form a parent loop (span {} `{}` among them), so no root reaches them: skipped",
                looped.len(),
                spans[first].span_id,
                spans[first].name
            ),
        ));
    }
    let root = children.get(&None).and_then(|r| r.first().copied());
    let mut steps = Vec::new();
    for &i in &order {
        let s = &spans[i];
        let op = s
            .attributes
            .get("gen_ai.operation.name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let tool = op == "execute_tool" || s.name.starts_with("execute_tool");
        let (name, kind, arguments, result) = if tool {
            let name = s
                .attributes
                .get("gen_ai.tool.name")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| s.name.trim_start_matches("execute_tool").trim().to_string());
            (
                name,
                StepKind::Tool,
                s.attributes.get("gen_ai.tool.call.arguments").cloned(),
                s.attributes.get("gen_ai.tool.call.result").cloned(),
            )
        } else if op == "invoke_agent" {
            let name = s
                .attributes
                .get("gen_ai.agent.name")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| s.name.trim_start_matches("invoke_agent").trim().to_string());
            let messages = |k: &str| {
                s.attributes
                    .get(k)
                    .map(|v| json!({ "messages": json_attribute(v) }))
            };
            // The root agent span is the run itself (its output the final answer); a nested
            // one is a step, kept unmapped when no name maps it (SPEC §10, I902).
            let kind = if children.get(&None).is_some_and(|roots| roots.contains(&i)) {
                StepKind::Span
            } else {
                StepKind::Agent
            };
            (
                name,
                kind,
                messages("gen_ai.input.messages"),
                messages("gen_ai.output.messages"),
            )
        } else {
            (s.name.clone(), StepKind::Span, None, None)
        };
        steps.push(SourceStep {
            name,
            kind,
            arguments,
            result: if s.error.is_some() { None } else { result },
            error: s.error.clone().map(Value::String),
            location: s.location.clone(),
        });
    }
    let (input, final_text, root_failed) = match root {
        Some(r) => {
            let a = &spans[r].attributes;
            // SPEC §10: `{"input": TEXT}` for a text prompt, `{"messages": […]}` otherwise.
            let input = match a.get("gen_ai.input.messages").map(json_attribute) {
                Some(Value::String(text)) => json!({ "input": text }),
                Some(messages) => json!({ "messages": messages }),
                None => json!({}),
            };
            let text = a
                .get("gen_ai.output.messages")
                .map(json_attribute)
                .and_then(|m| last_message_text(&m));
            (input, text, spans[r].error.is_some())
        }
        None => (json!({}), None, false),
    };
    SourceRun {
        id: trace.to_string(),
        file_stem: trace.to_string(),
        input,
        steps,
        final_text,
        scores: Vec::new(),
        root_failed,
        location: at,
    }
}
