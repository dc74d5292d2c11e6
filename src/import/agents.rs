//! OpenAI Agents SDK traces (SPEC §10 `openai-agents`): the items the SDK exports — a trace
//! (`{"object": "trace", "id", "workflow_name", …}`) and its spans (`{"object": "trace.span",
//! "id", "trace_id", "parent_id", "started_at", "ended_at", "span_data": {…}, "error"}`) — one
//! item per line as a `TracingProcessor` writes them, or in batches as the SDK's backend
//! exporter sends them (`{"data": [items]}`, or an array). A trace is a run. `function` spans
//! are tool steps (`span_data.name`; `input` is a JSON string of the arguments, `output` a
//! string; `null` when the SDK was told not to include sensitive data: partial); `handoff`
//! spans are steps named `handoff:<to_agent>` with input `{"from_agent", "to_agent"}`; `agent`
//! spans are steps only where their name is mapped. Steps are ordered depth-first by parent,
//! siblings by `started_at`; the trace's root span's `error` makes the run a failure.

use super::{
    Format, ImportDiagnostic, ImportError, Importer, Location, SourceRun, SourceStep, StepKind,
};
use crate::codes::{I901, I904};
use crate::replay::trace::StrictValue;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

struct Span {
    id: String,
    parent: Option<String>,
    started: String,
    data: Value,
    error: Option<Value>,
    location: Location,
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
    let mut traces: Vec<(String, Option<String>, Vec<Span>)> = Vec::new();
    let mut by_trace: HashMap<String, usize> = HashMap::new();
    let mut slot_of = |trace: &str, traces: &mut Vec<(String, Option<String>, Vec<Span>)>| {
        *by_trace.entry(trace.to_string()).or_insert_with(|| {
            traces.push((trace.to_string(), None, Vec::new()));
            traces.len() - 1
        })
    };
    for next in
        super::Documents::<StrictValue>::new(&bytes, location.clone(), "an Agents SDK trace export")
    {
        let (doc, line, column) = match next {
            super::Document::Read(StrictValue(doc), line, column) => (doc, line, column),
            super::Document::Failed(d) => {
                importer.diagnose(*d);
                continue;
            }
        };
        let at = Location {
            line,
            column,
            ..location.clone()
        };
        let (items, base): (Vec<Value>, &str) = match doc {
            Value::Array(a) => (a, ""),
            Value::Object(mut m) if m.contains_key("data") && !m.contains_key("object") => {
                match m.remove("data") {
                    Some(Value::Array(a)) => (a, "/data"),
                    _ => (Vec::new(), "/data"),
                }
            }
            other => (vec![other], "#"),
        };
        for (k, item) in items.into_iter().enumerate() {
            let pointer = if base == "#" {
                String::new()
            } else {
                format!("{base}/{k}")
            };
            let item_at = at.with_pointer(pointer.clone());
            let object = item.get("object").and_then(Value::as_str).unwrap_or("");
            let str_field = |name: &str| item.get(name).and_then(Value::as_str).map(str::to_string);
            match object {
                "trace" => {
                    let Some(id) = str_field("id") else {
                        importer.diagnose(ImportDiagnostic::new(
                            &I901,
                            item_at,
                            "a trace item without an `id`: skipped",
                        ));
                        continue;
                    };
                    let slot = slot_of(&id, &mut traces);
                    traces[slot].1 = str_field("workflow_name");
                }
                "trace.span" => {
                    let (Some(id), Some(trace)) = (str_field("id"), str_field("trace_id")) else {
                        importer.diagnose(ImportDiagnostic::new(
                            &I901,
                            item_at,
                            "a span item needs `id` and `trace_id`: skipped",
                        ));
                        continue;
                    };
                    let slot = slot_of(&trace, &mut traces);
                    traces[slot].2.push(Span {
                        id,
                        parent: str_field("parent_id"),
                        started: str_field("started_at").unwrap_or_default(),
                        data: item.get("span_data").cloned().unwrap_or(Value::Null),
                        error: item.get("error").cloned().filter(|e| !e.is_null()),
                        location: Location {
                            sample: Some(trace),
                            ..item_at
                        },
                    });
                }
                other => {
                    importer.diagnose(ImportDiagnostic::new(
                        &I901,
                        item_at.with_pointer(format!("{pointer}/object")),
                        format!(
                            "not an Agents SDK trace item: `object` is {other:?}, not \"trace\" or \"trace.span\": skipped"
                        ),
                    ));
                }
            }
        }
    }
    for (trace, workflow, spans) in traces {
        let run = build_run(&file, &trace, workflow, spans, importer);
        importer.run(Format::OpenaiAgents, run)?;
    }
    Ok(())
}

/// A span's error as the text its failure mode is read from: the SDK records a failed tool as
/// `{"message": "Error running tool", "data": {"error": "…"}}`, whose `data.error` is the tool's
/// own message (`path_not_found: …`); else `message`; else the error as written.
fn error_text(e: &Value) -> Value {
    let own = e
        .get("data")
        .and_then(|d| d.get("error"))
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty());
    match own.or_else(|| e.get("message").and_then(Value::as_str)) {
        Some(m) => Value::String(m.to_string()),
        None => e.clone(),
    }
}

fn build_run(
    file: &str,
    trace: &str,
    workflow: Option<String>,
    spans: Vec<Span>,
    importer: &mut Importer<'_>,
) -> SourceRun {
    let at = Location {
        sample: Some(trace.to_string()),
        ..Location::file(file)
    };
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut keep = vec![true; spans.len()];
    for (i, s) in spans.iter().enumerate() {
        if index.contains_key(s.id.as_str()) {
            keep[i] = false;
            importer.diagnose(ImportDiagnostic::new(
                &I901,
                s.location.clone(),
                format!(
                    "span ID {} appears twice in trace {trace}: the second is skipped",
                    s.id
                ),
            ));
        } else {
            index.insert(&s.id, i);
        }
    }
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        if keep[i] {
            let parent = s.parent.as_deref().and_then(|p| index.get(p).copied());
            children.entry(parent).or_default().push(i);
        }
    }
    let mut tie_reported = false;
    for list in children.values_mut() {
        list.sort_by(|&a, &b| {
            (&spans[a].started, &spans[a].id).cmp(&(&spans[b].started, &spans[b].id))
        });
        if !tie_reported
            && let Some(w) = list
                .windows(2)
                .find(|w| spans[w[0]].started == spans[w[1]].started)
        {
            tie_reported = true;
            importer.diagnose(ImportDiagnostic::new(
                &I904,
                spans[w[1]].location.clone(),
                format!(
                    "spans {} and {} of trace {trace} have the same parent and `started_at`: their order is taken by span ID",
                    spans[w[0]].id, spans[w[1]].id
                ),
            ));
        }
    }
    let mut order = Vec::new();
    let mut visited = vec![false; spans.len()];
    let mut stack: Vec<usize> = children.get(&None).cloned().unwrap_or_default();
    stack.reverse();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut visited[i], true) {
            continue;
        }
        order.push(i);
        if let Some(kids) = children.get(&Some(i)) {
            stack.extend(kids.iter().rev());
        }
    }
    let looped = (0..spans.len()).filter(|&i| keep[i] && !visited[i]).count();
    if looped > 0
        && let Some(first) = (0..spans.len()).find(|&i| keep[i] && !visited[i])
    {
        importer.diagnose(ImportDiagnostic::new(
            &I901,
            spans[first].location.clone(),
            format!(
                "{looped} span(s) of trace {trace} form a parent loop (span {} among them): skipped",
                spans[first].id
            ),
        ));
    }
    let mut steps = Vec::new();
    let mut final_text = None;
    let mut input = json!({});
    for &i in &order {
        let s = &spans[i];
        let kind = s.data.get("type").and_then(Value::as_str).unwrap_or("");
        let field = |k: &str| s.data.get(k).cloned().filter(|v| !v.is_null());
        match kind {
            "function" => steps.push(SourceStep {
                name: s
                    .data
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                kind: StepKind::Tool,
                arguments: field("input"),
                result: if s.error.is_some() {
                    None
                } else {
                    field("output")
                },
                error: s.error.as_ref().map(error_text),
                location: s.location.clone(),
            }),
            "handoff" => {
                let to = s.data.get("to_agent").and_then(Value::as_str).unwrap_or("");
                steps.push(SourceStep {
                    name: format!("handoff:{to}"),
                    kind: StepKind::Tool,
                    arguments: Some(json!({
                        "from_agent": s.data.get("from_agent").cloned().unwrap_or(Value::Null),
                        "to_agent": to,
                    })),
                    result: if s.error.is_some() {
                        None
                    } else {
                        Some(json!({ "to_agent": to }))
                    },
                    error: s.error.as_ref().map(error_text),
                    location: s.location.clone(),
                });
            }
            "agent" => steps.push(SourceStep {
                name: s
                    .data
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                kind: StepKind::Span,
                arguments: None,
                result: None,
                error: s.error.as_ref().map(error_text),
                location: s.location.clone(),
            }),
            "generation" => {
                if input == json!({})
                    && let Some(messages) = field("input")
                {
                    input = json!({ "messages": messages });
                }
                if let Some(text) = field("output").as_ref().and_then(output_text) {
                    final_text = Some(text);
                }
            }
            _ => {}
        }
    }
    let root_failed = children
        .get(&None)
        .and_then(|r| r.first())
        .is_some_and(|&r| spans[r].error.is_some());
    let _ = workflow;
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

/// The text of a generation span's output (a list of messages; the last one's `content`).
fn output_text(output: &Value) -> Option<String> {
    let last = output.as_array()?.last()?;
    match last.get("content")? {
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
