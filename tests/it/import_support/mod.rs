//! Helpers the import tests share (`use crate::import_support;`): the graph the runs are mapped
//! onto, Inspect samples shaped as Inspect writes them (`EvalSample`: `id`, `epoch`, `input`,
//! `messages`, `output`, `scores`, `events` with `ToolEvent`s), and `.eval` zips of them with
//! the entries Inspect writes (`_journal/start.json`, `header.json`, `samples/ID_epoch_N.json`).
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// The graph the import fixtures map onto: `search` (obs.search_text) → `read`
/// (obs.read_file) → `answer` (done.finish_success), failures to `fail`.
pub const GRAPH: &str = "tests/fixtures/import/lookup.graph.json";

/// A `ToolEvent` as Inspect records it (a result as text; `error` null).
pub fn tool(function: &str, arguments: Value, result: Value) -> Value {
    json!({
        "event": "tool", "timestamp": "2025-01-01T00:00:01+00:00", "working_start": 1.0,
        "type": "function", "id": format!("call_{function}"), "function": function,
        "arguments": arguments, "internal": null, "view": null, "result": result,
        "truncated": null, "error": null, "events": [], "completed": "2025-01-01T00:00:02+00:00",
        "working_time": 0.5, "agent": null, "failed": null
    })
}

/// An `EvalSample`: the prompt, a model event before each tool event (as Inspect interleaves
/// them), the final assistant message, and one `match` score.
pub fn sample(id: Value, epoch: u64, tools: &[Value], score: &str, answer: &str) -> Vec<u8> {
    let mut events = vec![
        json!({"event": "sample_init", "timestamp": "2025-01-01T00:00:00+00:00",
        "sample": {"input": "where is main?", "id": id}, "state": {}}),
    ];
    for t in tools {
        events.push(
            json!({"event": "model", "timestamp": "2025-01-01T00:00:00+00:00",
            "model": "mockllm/model", "input": [], "tools": [], "tool_choice": "auto",
            "config": {}, "output": {"model": "mockllm/model", "choices": []}}),
        );
        events.push(t.clone());
    }
    let doc = json!({
        "id": id, "epoch": epoch, "input": "where is main?", "target": "src/lib.rs",
        "messages": [
            {"role": "user", "content": "where is main?", "source": "input"},
            {"role": "assistant", "content": [{"type": "text", "text": answer}], "model": "mockllm/model"}
        ],
        "output": {"model": "mockllm/model", "choices": [{"message": {"role": "assistant",
            "content": answer}, "stop_reason": "stop"}], "completion": answer,
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}},
        "scores": {"match": {"value": score, "answer": answer, "explanation": null}},
        "metadata": {}, "store": {},
        "events": events,
        "model_usage": {}, "total_time": 1.0, "working_time": 1.0, "uuid": "u",
        "error": null, "attachments": {}, "limit": null
    });
    serde_json::to_vec(&doc).unwrap()
}

/// Write an `.eval` log: `_journal/start.json`, the entries given, and `header.json` when
/// the eval finished.
pub fn eval_log(
    path: &Path,
    entries: &[(String, Vec<u8>)],
    finished: bool,
    method: zip::CompressionMethod,
) {
    let file = std::fs::File::create(path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    let header = json!({"version": 2, "status": "success",
        "eval": {"task": "lookup", "model": "mockllm/model"}, "plan": {}, "results": null});
    zip.start_file("_journal/start.json", options).unwrap();
    zip.write_all(header.to_string().as_bytes()).unwrap();
    for (name, bytes) in entries {
        zip.start_file(name.as_str(), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    if finished {
        zip.start_file("header.json", options).unwrap();
        zip.write_all(header.to_string().as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}
