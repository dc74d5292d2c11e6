//! One [`SourceRun`] mapped onto the graph (SPEC §10) and written as a §4.1 trace: each step's
//! node from `[tools]`, a node ID or a primitive at exactly one node; input from the arguments,
//! output from the result (a string holding a JSON object is that object, anything else
//! `{"result": V}`); outcome, error mode and evidence as the mapping says; the final answer as a
//! last step; `end` from the score or the last node. Nothing the source did not give is
//! invented: absent content makes the step `partial` (I903), an unmapped name keeps the step
//! with `"node": null` (I902).

use super::map::OutcomeRule;
use super::{
    Format, IMPORTER, ImportDiagnostic, ImportError, ImportOptions, SourceRun, SourceStep,
    StepKind, WrittenRun, sanitize,
};
use crate::codes;
use crate::replay::digest::{canonical_json, format_hash, sha256};
use crate::replay::trace::{Evidence, StepError};
use crate::replay::{
    EndStatus, Imported, SealKey, Step, StepOrigin, StepResult, TraceHeader, TraceWriter,
};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// A run ready to write: its trace's bytes rendered already (on the thread that mapped it),
/// so that the thread writing the traces only touches the file system.
pub(crate) struct Converted {
    pub file_stem: String,
    /// What the run records; its `trace` is the path once the file is named.
    pub written: WrittenRun,
    /// The trace's bytes, or why the [`TraceWriter`] refused it (an error when written).
    pub bytes: Result<Vec<u8>, String>,
    pub diagnostics: Vec<ImportDiagnostic>,
    pub unmapped: BTreeMap<String, u64>,
}

struct PlannedTrace {
    pub header: TraceHeader,
    pub steps: Vec<(Step, StepOrigin)>,
    pub end: EndStatus,
}

/// The object a source value becomes: a JSON object as is, a string holding a JSON object
/// that object, anything else `{key: V}`.
fn as_object(value: Value, key: &str) -> Value {
    match value {
        Value::Object(_) => value,
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({ key: s }),
        },
        other => json!({ key: other }),
    }
}

/// The node a source name maps to: `[tools]`, then a node ID, then a primitive (ID, alias, or
/// alias in lower case) that occurs at exactly one node.
fn node_for(options: &ImportOptions<'_>, name: &str, kind: StepKind) -> Option<usize> {
    let graph = options.graph;
    if let Some(id) = options.mapping.tools.get(name) {
        return graph.index.get(id).copied();
    }
    if let Some(&i) = graph.index.get(name) {
        return Some(i);
    }
    if kind != StepKind::Tool {
        return None;
    }
    // A tool named like a primitive's alias in snake case (`search_text` for `SEARCH_TEXT`).
    let prim = options
        .registry
        .lookup_index(name)
        .or_else(|| options.registry.lookup_index(&name.to_ascii_uppercase()))?;
    let mut at = graph
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.primitive == prim);
    match (at.next(), at.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn evidence_digest(value: &Value) -> String {
    let bytes = canonical_json(value).unwrap_or_else(|_| value.to_string().into_bytes());
    format_hash(&sha256(&bytes))
}

/// A failed step's message: the `message` of an error object (Inspect's `{type, message}`),
/// else the error's text.
fn error_message(error: &Value) -> String {
    match error {
        Value::Object(m) => m
            .get("message")
            .map(text_of)
            .unwrap_or_else(|| error.to_string()),
        other => text_of(other),
    }
}

/// The failure mode and message of a failed step (SPEC §10 `[errors]`).
fn error_of(options: &ImportOptions<'_>, node: usize, error: &Value) -> StepError {
    let graph = options.graph;
    let n = &graph.nodes[node];
    let modes = &options.registry.get(n.primitive).failure_modes;
    let message = error_message(error);
    if let Some(pointer) = options.mapping.errors.get(&n.id) {
        // The pointer reads the error itself when it is an object (or a string holding one),
        // else the object its message holds: Inspect wraps a tool's error text in its own
        // `{type, message}`, and a tool that reports JSON puts it in that text.
        let as_object = |text: &str| {
            serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_object)
        };
        let own = match error {
            Value::Object(_) => Some(error.clone()),
            Value::String(s) => as_object(s),
            _ => None,
        };
        let in_message = match error {
            Value::Object(m) => m.get("message").and_then(Value::as_str).and_then(as_object),
            _ => None,
        };
        if let Some(mode) = [own, in_message]
            .iter()
            .flatten()
            .find_map(|o| o.pointer(pointer).and_then(Value::as_str))
        {
            return StepError {
                mode: mode.to_string(),
                message,
            };
        }
    }
    for mode in modes {
        if let Some(rest) = message.strip_prefix(mode.as_str())
            && rest.starts_with(':')
        {
            return StepError {
                mode: mode.clone(),
                message,
            };
        }
    }
    StepError {
        mode: "tool_error".into(),
        message,
    }
}

fn outcome_of(options: &ImportOptions<'_>, node: usize, output: &Value) -> Option<String> {
    let n = &options.graph.nodes[node];
    match options.mapping.outcomes.get(&n.id)? {
        OutcomeRule::Pointer(p) => output.pointer(p)?.as_str().map(str::to_string),
        // A string is the outcome itself (SPEC §10), unless the map names it; other values go
        // through the map by their JSON text.
        OutcomeRule::Mapped { at, map } => match output.pointer(at)? {
            Value::String(s) => Some(map.get(s).unwrap_or(s).clone()),
            other => map.get(&other.to_string()).cloned(),
        },
    }
}

/// Whether a score value means success (SPEC §10: by default `"C"`, `1`, `1.0`, `true`).
fn is_success(value: &Value, success: Option<&[Value]>) -> bool {
    match success {
        Some(list) => list.iter().any(|s| match (s, value) {
            (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
            (a, b) => a == b,
        }),
        None => match value {
            Value::String(s) => s == "C",
            Value::Number(n) => n.as_f64() == Some(1.0),
            Value::Bool(b) => *b,
            _ => false,
        },
    }
}

pub(crate) fn convert(options: &ImportOptions<'_>, format: Format, run: SourceRun) -> Converted {
    let graph = options.graph;
    let mut diagnostics = Vec::new();
    let mut unmapped: BTreeMap<String, u64> = BTreeMap::new();
    let mut steps = Vec::with_capacity(run.steps.len() + 1);
    let mut last_node: Option<usize> = None;
    for SourceStep {
        name,
        kind,
        arguments,
        result,
        error,
        location,
    } in run.steps
    {
        let node = node_for(options, &name, kind);
        let Some(node) = node else {
            if kind == StepKind::Span {
                continue;
            }
            let count = unmapped.entry(name.clone()).or_insert(0);
            *count += 1;
            if *count == 1 {
                let what = if kind == StepKind::Agent {
                    "agent span"
                } else {
                    "tool"
                };
                diagnostics.push(ImportDiagnostic::new(
                    &codes::I902,
                    location,
                    format!(
                        "the {what} `{name}` maps to no node of graph `{}`: the step is kept with `\"node\": null` (replay reports it as a divergence); name it in the mapping's `[tools]`",
                        graph.name
                    ),
                ));
            }
            let input_missing = arguments.is_none();
            let output_missing = result.is_none() && error.is_none();
            let input = arguments.map_or_else(|| json!({}), |a| as_object(a, "arguments"));
            let result = match error {
                Some(e) => StepResult::Error(StepError {
                    mode: "tool_error".into(),
                    message: error_message(&e),
                }),
                None => StepResult::Output {
                    output: result.map_or_else(|| json!({}), |r| as_object(r, "result")),
                    outcome: None,
                },
            };
            steps.push((
                Step {
                    node: String::new(),
                    primitive: String::new(),
                    input,
                    result,
                    evidence: Vec::new(),
                    cost: None,
                },
                StepOrigin {
                    source_name: Some(name),
                    unmapped: true,
                    input_missing,
                    output_missing,
                    evidence_imported: false,
                },
            ));
            last_node = None;
            continue;
        };
        let n = &graph.nodes[node];
        let primitive = options.registry.get(n.primitive).id.clone();
        let input_missing = arguments.is_none();
        let output_missing = result.is_none() && error.is_none();
        let missing: Vec<&str> = [(input_missing, "arguments"), (output_missing, "result")]
            .into_iter()
            .filter_map(|(missing, what)| missing.then_some(what))
            .collect();
        if !missing.is_empty() {
            diagnostics.push(ImportDiagnostic::new(
                &codes::I903,
                location.clone(),
                format!(
                    "the source did not capture the {} of `{name}` (node `{}`): the step is written `\"partial\": true` and replay skips the checks that need them",
                    missing.join(" and "),
                    n.id
                ),
            ));
        }
        let input = arguments.map_or_else(|| json!({}), |a| as_object(a, "arguments"));
        let (result, recorded) = match error {
            Some(e) => {
                let err = error_of(options, node, &e);
                let recorded = json!({"mode": err.mode, "message": err.message});
                (StepResult::Error(err), recorded)
            }
            None => {
                let output = result.map_or_else(|| json!({}), |r| as_object(r, "result"));
                let outcome = outcome_of(options, node, &output);
                let recorded = output.clone();
                (StepResult::Output { output, outcome }, recorded)
            }
        };
        let evidence: Vec<Evidence> = match options.mapping.evidence.get(&n.id) {
            Some(kinds) => {
                let digest = evidence_digest(&recorded);
                kinds
                    .iter()
                    .map(|k| Evidence {
                        kind: k.clone(),
                        digest: digest.clone(),
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        steps.push((
            Step {
                node: n.id.clone(),
                primitive,
                input,
                result,
                evidence: evidence.clone(),
                cost: None,
            },
            StepOrigin {
                source_name: Some(name),
                unmapped: false,
                input_missing,
                output_missing,
                evidence_imported: !evidence.is_empty(),
            },
        ));
        last_node = Some(node);
    }
    if let (Some(id), None) = (&options.mapping.final_node, &run.final_text) {
        // `[final]` asks for a step the source cannot give: say so rather than end the run at
        // another node without a word (SPEC §10: absent, not invented).
        diagnostics.push(ImportDiagnostic::new(
            &codes::I903,
            run.location.clone(),
            format!(
                "the source did not capture run `{}`'s final answer: no step is added at `{id}` (`[final]`), and the run ends where its last recorded step is",
                run.id
            ),
        ));
    }
    if let (Some(id), Some(text)) = (&options.mapping.final_node, &run.final_text)
        && let Some(&node) = graph.index.get(id)
    {
        let n = &graph.nodes[node];
        let output = json!({ "text": text });
        let evidence: Vec<Evidence> = options
            .mapping
            .evidence
            .get(id)
            .map(|kinds| {
                let digest = evidence_digest(&output);
                kinds
                    .iter()
                    .map(|k| Evidence {
                        kind: k.clone(),
                        digest: digest.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let imported = !evidence.is_empty();
        steps.push((
            Step {
                node: id.clone(),
                primitive: options.registry.get(n.primitive).id.clone(),
                input: json!({}),
                result: StepResult::Output {
                    output,
                    outcome: None,
                },
                evidence,
                cost: None,
            },
            // The final answer's input is not a recorded call: it was not captured.
            StepOrigin {
                source_name: Some("(final answer)".into()),
                unmapped: false,
                input_missing: true,
                output_missing: false,
                evidence_imported: imported,
            },
        ));
        last_node = Some(node);
    }
    let end_rule = &options.mapping.end;
    let at_node =
        |nodes: &[String]| last_node.is_some_and(|i| nodes.iter().any(|n| *n == graph.nodes[i].id));
    let success = if let Some(nodes) = &end_rule.success_nodes {
        at_node(nodes)
    } else if !run.scores.is_empty() || format == Format::Inspect {
        let score = match &end_rule.scorer {
            Some(name) => run.scores.iter().find(|(n, _)| n == name),
            None => run.scores.first(),
        };
        score.is_some_and(|(_, v)| is_success(v, end_rule.success.as_deref()))
    } else if run.root_failed {
        false
    } else {
        last_node.is_some_and(|i| graph.nodes[i].is_terminal())
    };
    let source = run.location.source();
    let header = TraceHeader {
        trace: crate::replay::trace::TRACE_VERSION.into(),
        run: format!("{}:{}", format.as_str(), run.id),
        graph: graph.name.clone(),
        graph_digest: graph.digest.clone(),
        abi: graph.abi.clone(),
        input: if run.input.is_object() {
            run.input
        } else {
            json!({})
        },
        imported: Some(Imported {
            format: format.as_str().into(),
            source,
            id: run.id.clone(),
            importer: IMPORTER.into(),
        }),
        packs: (!graph.packs.is_empty()).then(|| graph.packs.clone()),
    };
    let trace = PlannedTrace {
        header,
        steps,
        end: if success {
            EndStatus::Success
        } else {
            EndStatus::Failure
        },
    };
    let mut bytes = Vec::new();
    let rendered = render(options.seal.as_ref(), &trace, &mut bytes).map(|()| bytes);
    Converted {
        file_stem: sanitize(if run.file_stem.is_empty() {
            &run.id
        } else {
            &run.file_stem
        }),
        written: written(&trace),
        bytes: rendered,
        diagnostics,
        unmapped,
    }
}

/// Write a trace's bytes to `path` through a temporary file in the same folder, renamed when
/// complete: nothing half-written ever has the trace's name. A trace already at `path` with
/// the same bytes (a source imported again, unchanged) is left as it is: the import is
/// deterministic, and replacing a file costs the file system far more than reading it (a new
/// inode, the old one evicted, ext4 flushing the data of a file renamed over another). In a
/// folder that was empty when the import began (`fresh`) there is nothing to compare with,
/// and no look-up is made.
pub(crate) fn write(
    bytes: &Result<Vec<u8>, String>,
    path: &Path,
    fresh: bool,
) -> Result<(), ImportError> {
    let failed = |message: String| ImportError::Write {
        path: path.display().to_string(),
        message,
    };
    let bytes = bytes.as_ref().map_err(|e| failed(e.clone()))?;
    let unchanged = !fresh
        && std::fs::symlink_metadata(path)
            .ok()
            .filter(|m| m.is_file() && m.len() == bytes.len() as u64)
            .is_some_and(|_| {
                crate::input::read_capped(path, bytes.len()).is_ok_and(|b| b == *bytes)
            });
    if unchanged {
        return Ok(());
    }
    replace(path, bytes).map_err(failed)
}

/// What a trace records: its run, end and step counts (the file is set when it is named).
fn written(trace: &PlannedTrace) -> WrittenRun {
    let mut written = WrittenRun {
        run: trace.header.run.clone(),
        trace: std::path::PathBuf::new(),
        steps: 0,
        partial_steps: 0,
        unmapped_steps: 0,
        end: trace.end.as_str(),
    };
    for (_, origin) in &trace.steps {
        written.steps += 1;
        written.partial_steps += u64::from(origin.partial());
        written.unmapped_steps += u64::from(origin.unmapped);
    }
    written
}

/// The trace's lines, through the [`TraceWriter`] (sealed when the options say so).
fn render<W: Write>(seal: Option<&SealKey>, trace: &PlannedTrace, out: W) -> Result<(), String> {
    let mut writer = TraceWriter::new(out, &trace.header).map_err(|e| e.to_string())?;
    if let Some(key) = seal {
        writer = writer.sealed(key.clone());
    }
    for (step, origin) in &trace.steps {
        writer.step_from(step, origin).map_err(|e| e.to_string())?;
    }
    writer.end(trace.end).map_err(|e| e.to_string())?;
    let mut out = writer.finish().map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())
}

/// Write `bytes` to `path` through a temporary file in its folder (one `write` of the whole
/// trace) renamed over it when complete; on any failure the temporary file is removed.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let pid = PID.get_or_init(std::process::id);
    let tmp = path.with_file_name(format!(".{file_name}.{pid}.tmp"));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp).map_err(|e| e.to_string())?;
        file.write_all(bytes).map_err(|e| e.to_string())?;
        drop(file);
        std::fs::rename(&tmp, path).map_err(|e| e.to_string())
    })();
    if result.is_err() {
        // Nothing half-done is left behind: not the complete trace under a temporary name.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The header `input` of a prompt (SPEC §10): `{"input": TEXT}` for text, `{"messages": […]}`
/// for a list of messages, `{}` when not captured.
pub(crate) fn run_input(prompt: Option<Value>) -> Value {
    match prompt {
        Some(Value::String(s)) => json!({ "input": s }),
        Some(Value::Array(a)) => json!({ "messages": a }),
        Some(Value::Null) | None => Value::Object(Map::new()),
        Some(other) => json!({ "input": other }),
    }
}
