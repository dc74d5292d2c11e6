//! Bad input to `primgraph import` (issue 26 "Bad input"), through the library: a zip bomb (an
//! entry that inflates 1,000×), a truncated zip and a corrupt entry, an entry whose name escapes
//! the archive (`../`), JSON that is not UTF-8 or repeats a key, a malformed message history
//! (skipped by the importer's scanner, still an error), OTel spans in a parent loop or
//! whose parent is missing, IDs that collide, samples parsed on several threads finishing out
//! of order. Each is a located I901 error (or correct output), the rest of the source still
//! imports, and no file is left outside the output folder or under a trace's name
//! half-written.

use crate::import_support;

use import_support::{GRAPH, eval_log, sample, tool};
use primgraph::import::{
    DEFAULT_MAX_ENTRY_BYTES, Format, ImportOptions, ImportReport, Mapping, import_paths,
};
use primgraph::registry::Registry;
use primgraph::replay::ReplayGraph;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use zip::CompressionMethod::{Deflated, Zstd};

fn import(format: Format, sources: &[PathBuf], out: &Path) -> ImportReport {
    import_mapped(format, sources, out, "")
}

fn import_mapped(format: Format, sources: &[PathBuf], out: &Path, map: &str) -> ImportReport {
    let bytes = std::fs::read(GRAPH).unwrap();
    let graph = ReplayGraph::load(GRAPH, &bytes, Registry::builtin()).unwrap();
    let options = ImportOptions {
        registry: Registry::builtin(),
        graph: &graph,
        mapping: Mapping::parse("map.toml", map, &graph).unwrap(),
        out: out.to_path_buf(),
        seal: None,
        max_entry_bytes: DEFAULT_MAX_ENTRY_BYTES,
    };
    import_paths(format, sources, options).unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// An I901's place and message: (entry, sample, pointer, line, message).
type Located901 = (Option<String>, Option<String>, String, u32, String);

/// The I901 errors of a report.
fn errors(report: &ImportReport) -> Vec<Located901> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.diagnostic.code == "I901")
        .map(|d| {
            (
                d.location.entry.clone(),
                d.location.sample.clone(),
                d.location.pointer.clone(),
                d.location.line,
                d.diagnostic.message.clone(),
            )
        })
        .collect()
}

fn good(id: u64) -> (String, Vec<u8>) {
    (
        format!("samples/{id}_epoch_1.json"),
        sample(
            json!(id),
            1,
            &[tool("search_text", json!({"query": "q"}), json!("{}"))],
            "C",
            "a",
        ),
    )
}

#[test]
fn a_zip_bomb_entry_is_refused_and_the_other_samples_import() {
    let dir = tempfile::tempdir().unwrap();
    // A valid sample followed by 64 MiB of spaces: zstd squeezes it far past 1,000×.
    let mut bomb = sample(json!(2), 1, &[], "C", "a");
    bomb.extend(std::iter::repeat_n(b' ', 64 << 20));
    let log = dir.path().join("bomb.eval");
    eval_log(
        &log,
        &[good(1), ("samples/2_epoch_1.json".into(), bomb), good(3)],
        true,
        Zstd,
    );
    let compressed = std::fs::metadata(&log).unwrap().len();
    assert!(
        compressed < (64 << 20) / 1000,
        "the entry inflates over 1,000× ({compressed} bytes)"
    );
    let out = dir.path().join("out");
    let report = import(Format::Inspect, &[log], &out);
    let errs = errors(&report);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0.as_deref(), Some("samples/2_epoch_1.json"));
    assert_eq!(errs[0].1.as_deref(), Some("2 epoch 1"));
    assert!(errs[0].4.contains("zip bomb"), "{}", errs[0].4);
    assert_eq!(
        names(&out),
        ["1_epoch_1.trace.jsonl", "3_epoch_1.trace.jsonl"]
    );
}

#[test]
fn a_truncated_zip_and_a_corrupt_entry_are_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("whole.eval");
    eval_log(&log, &[good(1), good(2)], true, Zstd);
    let bytes = std::fs::read(&log).unwrap();
    // Cut in half: no central directory.
    let cut = dir.path().join("cut.eval");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = dir.path().join("out");
    let report = import(Format::Inspect, std::slice::from_ref(&cut), &out);
    let errs = errors(&report);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].4.contains("truncated"), "{}", errs[0].4);
    assert_eq!(
        report.diagnostics[0].location.file,
        cut.display().to_string()
    );
    assert!(names(&out).is_empty());

    // The bytes of the second sample's compressed data flipped: its CRC or its zstd frame fails,
    // the first sample still imports.
    let mut corrupt = bytes.clone();
    let name = b"samples/2_epoch_1.json";
    let at = corrupt.windows(name.len()).position(|w| w == name).unwrap();
    // The local header's name, then the data (no extra field from the writer).
    for b in &mut corrupt[at + name.len() + 8..at + name.len() + 40] {
        *b ^= 0x5a;
    }
    let bad = dir.path().join("corrupt.eval");
    std::fs::write(&bad, &corrupt).unwrap();
    let out = dir.path().join("out2");
    let report = import(Format::Inspect, &[bad], &out);
    let errs = errors(&report);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0.as_deref(), Some("samples/2_epoch_1.json"));
    assert_eq!(names(&out), ["1_epoch_1.trace.jsonl"]);

    // A `.json` log cut off in the middle of a sample: the samples before it import.
    let docs: Vec<Value> = [good(1), good(2)]
        .iter()
        .map(|(_, b)| serde_json::from_slice(b).unwrap())
        .collect();
    let text = serde_json::to_string(&json!({"version": 2, "samples": docs})).unwrap();
    let second = text.rfind("{\"id\":2").unwrap_or(text.len() * 3 / 4);
    let json_log = dir.path().join("cut.json");
    std::fs::write(&json_log, &text[..second + 20]).unwrap();
    let out = dir.path().join("out3");
    let report = import(Format::Inspect, &[json_log], &out);
    let errs = errors(&report);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].3, 1, "located by line: {errs:?}");
    assert_eq!(names(&out), ["1_epoch_1.trace.jsonl"]);
}

#[test]
fn an_entry_that_escapes_the_archive_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("in");
    std::fs::create_dir_all(&inner).unwrap();
    let log = inner.join("escape.eval");
    let evil = good(9).1;
    eval_log(
        &log,
        &[
            good(1),
            ("../samples/9_epoch_1.json".into(), evil.clone()),
            ("samples/../../9_epoch_1.json".into(), evil.clone()),
            ("/samples/9_epoch_1.json".into(), evil),
        ],
        true,
        Deflated,
    );
    let out = inner.join("out");
    let report = import(Format::Inspect, &[log], &out);
    let errs = errors(&report);
    assert_eq!(errs.len(), 3, "{errs:?}");
    for e in &errs {
        assert!(e.4.contains("outside the archive"), "{e:?}");
    }
    assert_eq!(names(&out), ["1_epoch_1.trace.jsonl"]);
    assert_eq!(
        names(&inner),
        ["escape.eval", "out"],
        "nothing written beside"
    );
    assert_eq!(names(dir.path()), ["in"]);
}

#[test]
fn json_that_is_not_utf8_or_repeats_a_key_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let mut latin1 = sample(json!(2), 1, &[], "C", "caf\u{e9}");
    let at = latin1
        .windows(2)
        .position(|w| w == "\u{e9}".as_bytes())
        .unwrap();
    latin1.splice(at..at + 2, [0xe9]);
    let dup = br#"{"id": 3, "epoch": 1, "id": 4, "events": []}"#.to_vec();
    let dup_inner = br#"{"id": 5, "epoch": 1,
 "events": [{"event": "tool", "function": "search_text", "arguments": {"query": "a", "query": "b"}, "result": "x"}]}"#
        .to_vec();
    let log = dir.path().join("text.eval");
    eval_log(
        &log,
        &[
            good(1),
            ("samples/2_epoch_1.json".into(), latin1.clone()),
            ("samples/3_epoch_1.json".into(), dup),
            ("samples/5_epoch_1.json".into(), dup_inner),
        ],
        true,
        Zstd,
    );
    let out = dir.path().join("out");
    let report = import(Format::Inspect, &[log], &out);
    let errs = errors(&report);
    assert_eq!(errs.len(), 3, "{errs:?}");
    let utf8 = errs
        .iter()
        .find(|e| e.0.as_deref() == Some("samples/2_epoch_1.json"))
        .unwrap();
    assert!(utf8.4.contains("UTF-8"), "{utf8:?}");
    assert_eq!(utf8.3, 1);
    let dup = errs
        .iter()
        .find(|e| e.0.as_deref() == Some("samples/3_epoch_1.json"))
        .unwrap();
    assert!(dup.4.contains("duplicate"), "{dup:?}");
    let inner = errs
        .iter()
        .find(|e| e.0.as_deref() == Some("samples/5_epoch_1.json"))
        .unwrap();
    assert!(
        inner.4.contains("duplicate") && inner.4.contains("query"),
        "{inner:?}"
    );
    assert_eq!(inner.3, 2, "line 2 of the entry: {inner:?}");
    assert_eq!(names(&out), ["1_epoch_1.trace.jsonl"]);

    // The same in an OTel file and an Agents SDK export: located by line.
    let otel = dir.path().join("bad.otel.jsonl");
    let line = std::fs::read_to_string("tests/fixtures/import/i904.otel.jsonl").unwrap();
    let first = line.lines().next().unwrap().as_bytes().to_vec();
    let mut bytes = first.clone();
    bytes.push(b'\n');
    bytes.extend(b"{\"resourceSpans\": [], \"resourceSpans\": []}\n");
    bytes.extend(b"{\"resourceSpans\": [\"\xff\"]}\n");
    std::fs::write(&otel, &bytes).unwrap();
    let report = import(Format::Otel, &[otel], &dir.path().join("o"));
    let errs = errors(&report);
    // Each damaged line is reported on its own line; the good line still imports.
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(
        errs[0].3 == 2 && errs[0].4.contains("duplicate"),
        "{errs:?}"
    );
    assert!(errs[1].3 == 3 && errs[1].4.contains("UTF-8"), "{errs:?}");
    assert_eq!(report.summary.runs, 1);

    let agents = dir.path().join("bad.agents.jsonl");
    std::fs::write(
        &agents,
        b"{\"object\": \"trace\", \"id\": \"t\", \"id\": \"u\"}\n",
    )
    .unwrap();
    let report = import(Format::OpenaiAgents, &[agents], &dir.path().join("a"));
    let errs = errors(&report);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].4.contains("duplicate"), "{errs:?}");
    assert_eq!(errs[0].3, 1);
}

fn span(trace: &str, id: &str, parent: Option<&str>, start: u64, tool_name: &str) -> Value {
    let mut s = json!({
        "traceId": trace, "spanId": id, "name": format!("execute_tool {tool_name}"), "kind": 1,
        "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 1).to_string(),
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": tool_name}},
            {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{\"query\": \"q\"}"}},
            {"key": "gen_ai.tool.call.result", "value": {"stringValue": "{\"text\": \"t\"}"}}
        ]
    });
    if let Some(p) = parent {
        s["parentSpanId"] = json!(p);
    }
    s
}

fn otel_line(spans: &[Value]) -> String {
    json!({"resourceSpans": [{"resource": {"attributes": []},
        "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})
    .to_string()
}

const T1: &str = "0af7651916cd43dd8448eb211c80319c";
const T2: &str = "1af7651916cd43dd8448eb211c80319c";

#[test]
fn spans_in_a_parent_loop_are_skipped_and_orphans_are_roots() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spans.jsonl");
    // Trace 1: a root step, then two spans that are each other's parent, and one its own.
    // Trace 2: a span whose parent never arrives (lost by the exporter) and its child.
    let lines = [
        otel_line(&[span(T1, "1111111111111111", None, 10, "search_text")]),
        otel_line(&[
            span(
                T1,
                "2222222222222222",
                Some("3333333333333333"),
                20,
                "read_file",
            ),
            span(
                T1,
                "3333333333333333",
                Some("2222222222222222"),
                30,
                "read_file",
            ),
        ]),
        otel_line(&[span(
            T1,
            "4444444444444444",
            Some("4444444444444444"),
            40,
            "read_file",
        )]),
        otel_line(&[span(
            T2,
            "6666666666666666",
            Some("5555555555555555"),
            20,
            "read_file",
        )]),
        otel_line(&[span(
            T2,
            "7777777777777777",
            Some("6666666666666666"),
            10,
            "search_text",
        )]),
    ];
    std::fs::write(&file, lines.join("\n")).unwrap();
    let out = dir.path().join("out");
    let report = import(Format::Otel, &[file], &out);
    let errs = errors(&report);
    // One finding for the trace: the loop of two and the span that is its own parent.
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].4.contains("3 span(s)") && errs[0].4.contains("parent loop"),
        "{errs:?}"
    );
    assert_eq!(errs[0].1.as_deref(), Some(T1));
    assert_eq!(report.summary.runs, 2);
    let by_run: Vec<(String, u64)> = report
        .runs
        .iter()
        .map(|r| (r.run.clone(), r.steps))
        .collect();
    // Trace 1 keeps its root step; trace 2 keeps both, the orphan first (it is the parent).
    assert_eq!(
        by_run.iter().map(|r| r.1).collect::<Vec<_>>(),
        [1, 2],
        "{by_run:?}"
    );
    let t2 = std::fs::read_to_string(&report.runs[1].trace).unwrap();
    let nodes: Vec<String> = t2
        .lines()
        .filter_map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["node"]
                .as_str()
                .map(String::from)
        })
        .collect();
    assert_eq!(nodes, ["read", "search"]);
}

#[test]
fn colliding_ids_get_distinct_files_and_a_repeated_span_keeps_the_first() {
    let dir = tempfile::tempdir().unwrap();
    // Sample IDs that collide once made file-name safe, and the same sample in two logs.
    let entries = |ids: &[&str]| -> Vec<(String, Vec<u8>)> {
        ids.iter()
            .map(|id| {
                (
                    format!("samples/{id}_epoch_1.json"),
                    sample(json!(id), 1, &[], "C", "a"),
                )
            })
            .collect()
    };
    let a = dir.path().join("a.eval");
    eval_log(&a, &entries(&["x y", "x_y", "x?y"]), true, Zstd);
    let b = dir.path().join("b.eval");
    eval_log(&b, &entries(&["x y"]), true, Zstd);
    let out = dir.path().join("out");
    let report = import(Format::Inspect, &[a, b], &out);
    assert!(errors(&report).is_empty(), "{:?}", report.diagnostics);
    assert_eq!(
        names(&out),
        [
            "x_y_epoch_1-2.trace.jsonl",
            "x_y_epoch_1-3.trace.jsonl",
            "x_y_epoch_1-4.trace.jsonl",
            "x_y_epoch_1.trace.jsonl"
        ]
    );
    let ids: Vec<Value> = report
        .runs
        .iter()
        .map(|r| {
            let first = std::fs::read_to_string(&r.trace).unwrap();
            let header: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
            header["imported"]["id"].clone()
        })
        .collect();
    assert_eq!(
        ids,
        [
            json!("a/x y_epoch_1"),
            json!("a/x_y_epoch_1"),
            json!("a/x?y_epoch_1"),
            json!("b/x y_epoch_1")
        ]
    );
    let runs: std::collections::HashSet<&str> =
        report.runs.iter().map(|r| r.run.as_str()).collect();
    assert_eq!(runs.len(), 4, "every run has its own ID");

    // A span ID seen twice in one trace: the second is reported and skipped.
    let file = dir.path().join("spans.jsonl");
    std::fs::write(
        &file,
        [
            otel_line(&[span(T1, "1111111111111111", None, 10, "search_text")]),
            otel_line(&[span(T1, "1111111111111111", None, 20, "read_file")]),
        ]
        .join("\n"),
    )
    .unwrap();
    let report = import(Format::Otel, &[file], &dir.path().join("o"));
    let errs = errors(&report);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].4.contains("appears twice"), "{errs:?}");
    assert_eq!(errs[0].3, 2, "the second line");
    assert_eq!(report.runs[0].steps, 1);
}

/// A chunked sample (Inspect's `samples/ID_epoch_N/` layout) built by hand: the shell, its
/// events in two chunks, attachments by index, its conversation in two message chunks.
fn chunked(id: &str, events_second_chunk: &[u8]) -> Vec<(String, Vec<u8>)> {
    let at = |rest: &str| format!("samples/{id}_epoch_1/{rest}");
    let shell = json!({"id": id, "epoch": 1, "input": "attachment://1",
        "output": {"model": "mockllm/model", "choices": [], "completion": ""},
        "scores": {"match": {"value": "C"}}, "message_refs": [[0, 2], [3, 4]]});
    let first = json!([
        {"event": "sample_init", "sample": {"input": "attachment://1"}},
        tool("search_text", json!({"query": "attachment://0"}), json!("{}")),
    ]);
    vec![
        (at("sample.json"), shell.to_string().into_bytes()),
        (at("skeleton.json"), b"{}".to_vec()),
        // Out of order in the zip: read in the order of their first index.
        (at("events/2.json"), events_second_chunk.to_vec()),
        (at("events/0.json"), first.to_string().into_bytes()),
        (at("events/stats.json"), b"{}".to_vec()),
        (
            at("attachments/0.json"),
            json!(["the long query", "where is main, at length?"])
                .to_string()
                .into_bytes(),
        ),
        (
            at("messages/0.json"),
            json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": "first"}])
                .to_string()
                .into_bytes(),
        ),
        (
            at("messages/2.json"),
            json!([{"role": "assistant", "content": "not in the conversation"},
                   {"role": "assistant", "content": [{"type": "text", "text": "the answer"}]}])
            .to_string()
            .into_bytes(),
        ),
    ]
}

#[test]
fn a_chunked_sample_is_read_in_index_order_and_a_bad_chunk_is_located_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let second = json!([tool(
        "read_file",
        json!({"path": "src/lib.rs"}),
        json!("{}")
    )]);
    let mut entries = chunked("good", second.to_string().as_bytes());
    entries.extend(chunked("bad", br#"[{"event": "tool", "function": 7}]"#));
    entries.push(good(3));
    let log = dir.path().join("chunked.eval");
    eval_log(&log, &entries, true, Zstd);
    let out = dir.path().join("out");
    let report = import_mapped(
        Format::Inspect,
        &[log],
        &out,
        "[final]\nnode = \"answer\"\n",
    );
    let errs = errors(&report);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(
        errs[0].0.as_deref(),
        Some("samples/bad_epoch_1/events/2.json")
    );
    assert_eq!(errs[0].1.as_deref(), Some("bad epoch 1"));
    assert_eq!(errs[0].2, "/0/function");
    assert_eq!(
        names(&out),
        ["3_epoch_1.trace.jsonl", "good_epoch_1.trace.jsonl"]
    );
    let lines: Vec<Value> = std::fs::read_to_string(out.join("good_epoch_1.trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0]["input"],
        json!({"input": "where is main, at length?"})
    );
    let steps: Vec<&Value> = lines.iter().filter(|l| l.get("seq").is_some()).collect();
    assert_eq!(steps[0]["node"], "search");
    assert_eq!(steps[0]["input"], json!({"query": "the long query"}));
    assert_eq!(steps[1]["node"], "read");
    // No completion: the answer is the last assistant message of the conversation (message 3,
    // in the second chunk; message 2 is not in `message_refs`).
    assert_eq!(steps[2]["node"], "answer");
    assert_eq!(steps[2]["output"], json!({"text": "the answer"}));
    assert_eq!(report.summary.runs, 2);
}

#[test]
fn samples_parsed_on_several_threads_are_recorded_in_the_logs_order() {
    // Samples of very different sizes (every tenth one slow to parse), IDs that collide in
    // pairs once made file-name safe, and some entries that are not JSON: whatever order the
    // parsing threads finish in, the runs, their file names and the findings follow the log.
    let dir = tempfile::tempdir().unwrap();
    let mut entries = Vec::new();
    let mut expected_runs = Vec::new();
    let mut expected_errors = Vec::new();
    for i in 0..120u32 {
        let id = if i % 2 == 0 {
            format!("run {}", i / 2)
        } else {
            format!("run_{}", i / 2)
        };
        let name = format!("samples/{id}_epoch_1.json");
        if i % 17 == 5 {
            entries.push((name.clone(), br#"{"id": "broken", "epoch": "#.to_vec()));
            expected_errors.push(name);
            continue;
        }
        let calls = if i % 10 == 0 { 400 } else { 1 };
        let tools: Vec<Value> = (0..calls)
            .map(|k| {
                tool(
                    "grep",
                    json!({"query": format!("q{k}")}),
                    json!("src/lib.rs"),
                )
            })
            .collect();
        entries.push((name, sample(json!(id), 1, &tools, "C", "done")));
        let stem = format!("run_{}_epoch_1", i / 2);
        // The second of a colliding pair is `-2`, unless the first was not JSON.
        let file = if i % 2 == 1 && (i - 1) % 17 != 5 {
            format!("{stem}-2.trace.jsonl")
        } else {
            format!("{stem}.trace.jsonl")
        };
        expected_runs.push((format!("log/{id}_epoch_1"), file));
    }
    let log = dir.path().join("log.eval");
    eval_log(&log, &entries, true, Zstd);
    let out = dir.path().join("out");
    let report = import(Format::Inspect, &[log], &out);
    let runs: Vec<(String, String)> = report
        .runs
        .iter()
        .map(|r| {
            let first = std::fs::read_to_string(&r.trace).unwrap();
            let header: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
            let file = r.trace.file_name().unwrap().to_string_lossy().into_owned();
            (header["imported"]["id"].as_str().unwrap().to_string(), file)
        })
        .collect();
    assert_eq!(runs, expected_runs);
    let located: Vec<String> = errors(&report)
        .into_iter()
        .map(|e| e.0.unwrap_or_default())
        .collect();
    assert_eq!(located, expected_errors);
    assert_eq!(report.summary.runs, expected_runs.len() as u64);
    // The slow samples' traces hold every call.
    let slow = std::fs::read_to_string(out.join("run_0_epoch_1.trace.jsonl")).unwrap();
    assert_eq!(
        slow.lines().count(),
        1 + 400 + 1,
        "the header, the calls, the end"
    );
}

#[test]
fn a_malformed_message_history_is_located_and_an_unusual_sample_still_imports() {
    // The model events' histories are skipped by the importer's scanner; what it does not
    // accept is read by serde_json, so the finding is serde_json's, at its line.
    let dir = tempfile::tempdir().unwrap();
    let control = b"{\"id\": 2, \"epoch\": 1, \"events\": [\n{\"event\": \"model\", \"input\": [\n{\"role\": \"user\", \"content\": \"a\tb\"}]}]}".to_vec();
    let trailing = br#"{"id": 3, "epoch": 1, "events": [
{"event": "model", "input": [{"role": "user", "content": "q"},]},
{"event": "tool", "function": "search_text", "arguments": {}, "result": "r"}]}"#
        .to_vec();
    let escape = br#"{"id": 4, "epoch": 1, "messages": [{"role": "user", "content": "\q"}],
"output": {"completion": "done"}}"#
        .to_vec();
    // Valid, but a key written with an escape: left to serde_json, which reads it as `id`.
    let escaped_key = br#"{"\u0069d": 5, "epoch": 1, "events": [
{"event": "model", "input": [{"role": "user", "content": "\u00e9 \"q\""}], "config": {"n": -1.5e3}},
{"event": "tool", "function": "search_text", "arguments": {"query": "q"}, "result": "r"}]}"#
        .to_vec();
    let log = dir.path().join("history.eval");
    eval_log(
        &log,
        &[
            good(1),
            ("samples/2_epoch_1.json".into(), control),
            ("samples/3_epoch_1.json".into(), trailing),
            ("samples/4_epoch_1.json".into(), escape),
            ("samples/5_epoch_1.json".into(), escaped_key),
        ],
        true,
        Zstd,
    );
    let out = dir.path().join("out");
    let report = import(Format::Inspect, &[log], &out);
    let errs = errors(&report);
    assert_eq!(errs.len(), 3, "{errs:?}");
    let at = |entry: &str| {
        errs.iter()
            .find(|e| e.0.as_deref() == Some(entry))
            .unwrap_or_else(|| panic!("no error in {entry}: {errs:?}"))
    };
    let control = at("samples/2_epoch_1.json");
    assert!(control.4.contains("control character"), "{control:?}");
    assert_eq!(control.3, 3, "{control:?}");
    let trailing = at("samples/3_epoch_1.json");
    assert!(trailing.4.contains("expected value"), "{trailing:?}");
    assert_eq!(trailing.3, 2, "{trailing:?}");
    let escape = at("samples/4_epoch_1.json");
    assert!(escape.4.contains("escape"), "{escape:?}");
    assert_eq!(escape.3, 1, "{escape:?}");
    assert_eq!(
        names(&out),
        ["1_epoch_1.trace.jsonl", "5_epoch_1.trace.jsonl"]
    );
    let run = report
        .runs
        .iter()
        .find(|r| r.trace.ends_with("5_epoch_1.trace.jsonl"))
        .unwrap();
    assert_eq!(
        run.steps, 1,
        "the tool event after the skipped history: {run:?}"
    );
}

/// The step lines of an imported trace (the header skipped).
fn imported_lines(report: &ImportReport) -> Vec<Vec<Value>> {
    report
        .runs
        .iter()
        .map(|r| {
            std::fs::read_to_string(&r.trace)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        })
        .collect()
}

/// What SPEC §10 says of sources' fields, as the producers write them: any JSON object is not an
/// Inspect log (I901, not an empty import); an OTel text prompt is the header's
/// `{"input": TEXT}`; a failure mode is read from an OTel span's `exception` event when its
/// status says nothing, and from the Agents SDK's `error.data.error` under its generic
/// "Error running tool".
#[test]
fn sources_fields_are_read_where_their_producers_write_them() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("not-a-log.json", r#"{"foo": 1}"#),
        ("otlp.json", r#"{"resourceSpans": []}"#),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let report = import(
            Format::Inspect,
            &[path],
            &dir.path().join(format!("out-{name}")),
        );
        let errs = errors(&report);
        assert_eq!(errs.len(), 1, "{name}: {:?}", report.diagnostics);
        assert!(errs[0].4.contains("not an Inspect log"), "{errs:?}");
    }
    let empty = dir.path().join("empty.json");
    std::fs::write(
        &empty,
        r#"{"version": 2, "status": "started", "samples": []}"#,
    )
    .unwrap();
    let report = import(Format::Inspect, &[empty], &dir.path().join("empty"));
    assert!(errors(&report).is_empty(), "{:?}", report.diagnostics);

    // OTel: a root agent span whose prompt is plain text; a tool span failed with no status
    // message and an `exception` event.
    let mut root = json!({
        "traceId": T1, "spanId": "0000000000000001", "name": "invoke_agent lookup", "kind": 1,
        "startTimeUnixNano": "1", "endTimeUnixNano": "9",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
            {"key": "gen_ai.input.messages", "value": {"stringValue": "where is main?"}}
        ]
    });
    root["status"] = json!({"code": 0});
    let mut failed = span(
        T1,
        "0000000000000002",
        Some("0000000000000001"),
        5,
        "read_file",
    );
    failed["status"] = json!({"code": 2});
    failed["events"] = json!([{"name": "exception", "timeUnixNano": "6", "attributes": [
        {"key": "exception.type", "value": {"stringValue": "FileNotFoundError"}},
        {"key": "exception.message", "value": {"stringValue": "path_not_found: src/x.rs"}}
    ]}]);
    let otel = dir.path().join("spans.jsonl");
    std::fs::write(&otel, otel_line(&[root, failed])).unwrap();
    let report = import(Format::Otel, &[otel], &dir.path().join("o"));
    assert!(errors(&report).is_empty(), "{:?}", report.diagnostics);
    let lines = imported_lines(&report);
    assert_eq!(lines[0][0]["input"], json!({"input": "where is main?"}));
    let step = lines[0]
        .iter()
        .find(|l| l["node"] == "read")
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert_eq!(step["error"]["mode"], "path_not_found", "{step}");

    // The Agents SDK: a failed function span as the SDK records it.
    let agents = dir.path().join("agents.jsonl");
    let lines = [
        json!({"object": "trace", "id": "trace_1", "workflow_name": "lookup"}),
        json!({"object": "trace.span", "id": "span_a", "trace_id": "trace_1", "parent_id": null,
               "started_at": "2025-01-01T00:00:00+00:00", "ended_at": "2025-01-01T00:00:09+00:00",
               "span_data": {"type": "agent", "name": "Lookup"}, "error": null}),
        json!({"object": "trace.span", "id": "span_f", "trace_id": "trace_1", "parent_id": "span_a",
               "started_at": "2025-01-01T00:00:01+00:00", "ended_at": "2025-01-01T00:00:02+00:00",
               "span_data": {"type": "function", "name": "read_file",
                             "input": "{\"path\": \"src/x.rs\"}", "output": null},
               "error": {"message": "Error running tool",
                         "data": {"tool_name": "read_file", "error": "path_not_found: src/x.rs"}}}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&agents, text.join("\n")).unwrap();
    let report = import(Format::OpenaiAgents, &[agents], &dir.path().join("a"));
    assert!(errors(&report).is_empty(), "{:?}", report.diagnostics);
    let lines = imported_lines(&report);
    let step = lines[0]
        .iter()
        .find(|l| l["node"] == "read")
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert_eq!(step["error"]["mode"], "path_not_found", "{step}");
}
