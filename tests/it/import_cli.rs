//! `primgraph import` (SPEC §10) through the real binary, the way a user meets it: an Inspect
//! `.eval` (zstd and deflate entries, with and without `header.json`) and its `.json` form, OTLP/JSON
//! span files, Agents SDK exports, a mapping file, the summary at the end, I901–I904 located in
//! every output format (human, JSON, GitHub annotations), `--sign` sealing traces that replay
//! with `--trust` accepts, and writes that never leave a half-written trace under its real name.
//! The runs imported are then replayed against the graph they were mapped onto.

use crate::import_support;

use import_support::{GRAPH, eval_log, sample, tool};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn primgraph(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The file names in a folder, sorted (hidden ones too: a leftover temporary file shows).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The lines of a trace, parsed.
fn trace_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(json_of)
        .collect()
}

const MAP: &str = r#"
[tools]
grep = "search"

[final]
node = "answer"
"#;

/// Two samples, one passing (`C`) and one failing (`I`), the tools named like the graph's
/// primitives (`read_file`) or mapped (`grep`).
fn two_samples() -> Vec<(String, Vec<u8>)> {
    vec![
        (
            "samples/1_epoch_1.json".into(),
            sample(
                json!(1),
                1,
                &[
                    tool(
                        "grep",
                        json!({"query": "where is main?"}),
                        json!("{\"matches\": [\"src/lib.rs\"]}"),
                    ),
                    tool(
                        "read_file",
                        json!({"path": "src/lib.rs"}),
                        json!("fn main() {}"),
                    ),
                ],
                "C",
                "main is in src/lib.rs",
            ),
        ),
        (
            "samples/2_epoch_1.json".into(),
            sample(
                json!("two"),
                1,
                &[tool(
                    "grep",
                    json!({"query": "where is x?"}),
                    json!("{\"matches\": []}"),
                )],
                "I",
                "no idea",
            ),
        ),
    ]
}

/// `primgraph import inspect LOG --graph GRAPH [--map MAP] --out OUT EXTRA…`.
fn import_inspect(
    log: &Path,
    map: Option<&Path>,
    out: &Path,
    extra: &[&str],
) -> (i32, String, String) {
    let mut args = vec!["import", "inspect", s(log), "--graph", GRAPH];
    if let Some(map) = map {
        args.extend(["--map", s(map)]);
    }
    args.extend(["--out", s(out)]);
    args.extend_from_slice(extra);
    primgraph(&args)
}
#[test]
fn an_eval_log_imports_with_a_summary_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.eval");
    eval_log(&log, &two_samples(), true, zip::CompressionMethod::Zstd);
    let map = dir.path().join("map.toml");
    std::fs::write(&map, MAP).unwrap();
    let out = dir.path().join("out");
    let (code, stdout, stderr) = import_inspect(&log, Some(&map), &out, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "imported 2 run(s), 5 step(s) (2 partial) from 1 source(s); 0 error(s), 0 warning(s)"
        ),
        "{stdout}"
    );
    assert_eq!(
        names(&out),
        ["1_epoch_1.trace.jsonl", "two_epoch_1.trace.jsonl"],
        "no temporary file is left"
    );
    let lines = trace_lines(&out.join("1_epoch_1.trace.jsonl"));
    let header = &lines[0];
    assert_eq!(header["graph"], "lookup");
    assert_eq!(header["input"], json!({"input": "where is main?"}));
    assert_eq!(header["imported"]["format"], "inspect");
    assert_eq!(header["imported"]["id"], "run/1_epoch_1");
    let steps: Vec<&Value> = lines.iter().filter(|l| l.get("node").is_some()).collect();
    let nodes: Vec<&str> = steps.iter().map(|l| l["node"].as_str().unwrap()).collect();
    assert_eq!(nodes, ["search", "read", "answer"]);
    assert_eq!(steps[0]["output"], json!({"matches": ["src/lib.rs"]}));
    assert_eq!(steps[1]["output"], json!({"result": "fn main() {}"}));
    assert_eq!(steps[2]["output"], json!({"text": "main is in src/lib.rs"}));
    // The final answer's input was never a recorded call: absent, not invented (SPEC §10).
    assert_eq!(steps[2]["partial"], true);
    assert!(steps[2].get("input").is_none(), "{}", steps[2]);
    assert!(steps[0].get("partial").is_none() && steps[0]["input"].is_object());
    assert_eq!(lines.last().unwrap()["end"], "success");
    let other = trace_lines(&out.join("two_epoch_1.trace.jsonl"));
    assert_eq!(other.last().unwrap()["end"], "failure");

    // The imported runs replay against the graph like any other, and say where they came from.
    let (code, stdout, stderr) =
        primgraph(&["replay", "--graph", GRAPH, "--format", "json", s(&out)]);
    assert!(code == 0 || code == 1, "{stdout}{stderr}");
    let text = stdout.clone();
    assert!(
        text.contains("\"provenance\":\"imported\"")
            || text.contains("\"provenance\": \"imported\""),
        "{text}"
    );
    assert!(text.contains("1_epoch_1"), "{text}");
}

#[test]
fn the_json_form_and_a_deflated_log_without_header_import_the_same_runs() {
    let dir = tempfile::tempdir().unwrap();
    let samples = two_samples();
    // The `.json` form: one document whose `samples` array holds the same objects.
    let docs: Vec<Value> = samples
        .iter()
        .map(|(_, b)| json_of(std::str::from_utf8(b).unwrap()))
        .collect();
    let json_log = dir.path().join("run.json");
    std::fs::write(
        &json_log,
        serde_json::to_vec(
            &json!({"version": 2, "status": "success", "eval": {"task": "t"}, "samples": docs}),
        )
        .unwrap(),
    )
    .unwrap();
    // An unfinished `.eval` (no header.json), deflate entries.
    let unfinished = dir.path().join("unfinished.eval");
    eval_log(
        &unfinished,
        &samples,
        false,
        zip::CompressionMethod::Deflated,
    );
    let map = dir.path().join("map.toml");
    std::fs::write(&map, MAP).unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for (src, out) in [(&json_log, &a), (&unfinished, &b)] {
        let (code, stdout, stderr) = primgraph(&[
            "import",
            "inspect",
            s(src),
            "--graph",
            GRAPH,
            "--map",
            s(&map),
            "--out",
            s(out),
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let report = json_of(&stdout);
        assert_eq!(report["summary"]["runs"], 2, "{report}");
        assert_eq!(report["summary"]["steps"], 5, "{report}");
    }
    assert_eq!(names(&a), names(&b));
    for name in names(&a) {
        let strip = |mut lines: Vec<Value>| {
            lines[0]["imported"]["source"] = Value::Null;
            lines[0]["imported"]["id"] = Value::Null;
            lines[0]["run"] = Value::Null;
            lines
                .into_iter()
                .skip(1)
                .map(|mut l| {
                    if let Some(m) = l.as_object_mut() {
                        m.remove("run");
                    }
                    l
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            strip(trace_lines(&a.join(&name)))
                .iter()
                .map(|l| l.get("node").cloned())
                .collect::<Vec<_>>(),
            strip(trace_lines(&b.join(&name)))
                .iter()
                .map(|l| l.get("node").cloned())
                .collect::<Vec<_>>(),
            "{name}"
        );
    }
}

#[test]
fn a_folder_of_sources_is_searched_and_every_format_imports() {
    let dir = tempfile::tempdir().unwrap();
    // OTel: the fixture span files (the collector's JSON Lines, lines in any order).
    let out = dir.path().join("otel");
    let (code, stdout, stderr) = primgraph(&[
        "import",
        "otel",
        "tests/fixtures/import/i904.otel.jsonl",
        "--graph",
        GRAPH,
        "--out",
        s(&out),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = json_of(&stdout);
    assert_eq!(report["summary"]["runs"], 1, "{report}");
    assert_eq!(names(&out).len(), 1);
    let lines = trace_lines(&out.join(&names(&out)[0]));
    assert_eq!(lines[0]["imported"]["format"], "otel");

    // The Agents SDK: a trace and its spans, one item per line.
    let agents = dir.path().join("src").join("agents.jsonl");
    std::fs::create_dir_all(agents.parent().unwrap()).unwrap();
    let items = [
        json!({"object": "trace", "id": "trace_1", "workflow_name": "lookup"}),
        json!({"object": "trace.span", "id": "span_a", "trace_id": "trace_1", "parent_id": null,
               "started_at": "2025-01-01T00:00:00Z", "ended_at": "2025-01-01T00:00:05Z",
               "span_data": {"type": "agent", "name": "Lookup"}, "error": null}),
        json!({"object": "trace.span", "id": "span_b", "trace_id": "trace_1", "parent_id": "span_a",
               "started_at": "2025-01-01T00:00:01Z", "ended_at": "2025-01-01T00:00:02Z",
               "span_data": {"type": "function", "name": "search_text", "input": "{\"query\": \"main\"}", "output": "{\"matches\": []}"}, "error": null}),
        json!({"object": "trace.span", "id": "span_c", "trace_id": "trace_1", "parent_id": "span_a",
               "started_at": "2025-01-01T00:00:03Z", "ended_at": "2025-01-01T00:00:04Z",
               "span_data": {"type": "function", "name": "read_file", "input": "{\"path\": \"src/lib.rs\"}", "output": "fn main() {}"}, "error": null}),
    ];
    let text: String = items.iter().map(|i| format!("{i}\n")).collect();
    std::fs::write(&agents, text).unwrap();
    // Not a source of this format: skipped when the folder is searched.
    std::fs::write(dir.path().join("src").join("notes.txt"), "x").unwrap();
    let out = dir.path().join("agents");
    let (code, stdout, stderr) = primgraph(&[
        "import",
        "openai-agents",
        s(&dir.path().join("src")),
        "--graph",
        GRAPH,
        "--out",
        s(&out),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("imported 1 run(s), 2 step(s) (0 partial) from 1 source(s)"),
        "{stdout}"
    );
    let lines = trace_lines(&out.join(&names(&out)[0]));
    assert_eq!(lines[0]["imported"]["format"], "openai-agents");
    let nodes: Vec<&Value> = lines.iter().filter_map(|l| l.get("node")).collect();
    assert_eq!(nodes, [&json!("search"), &json!("read")]);
}

/// A tool name a log recorded, holding a carriage return, an escape sequence and a line break,
/// is shown escaped in the human findings and the `unmapped:` line; the JSON keeps it exactly.
#[test]
fn a_recorded_name_with_control_characters_is_printed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = "mystery\r\u{1b}[2J\nerror[I999]: forged";
    let log = dir.path().join("odd.eval");
    let mut entries = two_samples();
    entries[1].1 = sample(
        json!("two"),
        1,
        &[tool(hostile, json!({}), json!("?"))],
        "I",
        "no idea",
    );
    eval_log(&log, &entries, true, zip::CompressionMethod::Zstd);
    let map = dir.path().join("map.toml");
    std::fs::write(&map, MAP).unwrap();
    let run = |format: &str, out: &str| {
        import_inspect(
            &log,
            Some(&map),
            &dir.path().join(out),
            &["--format", format],
        )
    };
    let (_, human, stderr) = run("human", "h");
    assert!(human.contains("warning[I902]"), "{human}{stderr}");
    assert!(
        !human.contains('\r') && !human.contains('\u{1b}'),
        "{human}"
    );
    assert!(
        !human.lines().any(|l| l.starts_with("error[I999]")),
        "{human}"
    );
    assert!(
        human.contains(r"unmapped: mystery\r\u{1b}[2J\nerror[I999]: forged (1)"),
        "{human}"
    );
    let (_, text, _) = run("json", "j");
    assert!(
        json_of(&text)
            .to_string()
            .contains(&Value::from(hostile).to_string()),
        "{text}"
    );
}

/// One finding of each code, in each output format, located by file, entry, sample, pointer.
#[test]
fn i901_to_i904_are_located_in_every_output_format() {
    let dir = tempfile::tempdir().unwrap();
    // I901: an entry that is not JSON, in an otherwise good log; I902: a tool with no mapping.
    let log = dir.path().join("bad.eval");
    let mut entries = two_samples();
    entries[1].1 = sample(
        json!("two"),
        1,
        &[tool("mystery_tool", json!({}), json!("?"))],
        "I",
        "no idea",
    );
    entries.push((
        "samples/3_epoch_1.json".into(),
        b"{\"id\": 3, \"events\": [".to_vec(),
    ));
    eval_log(&log, &entries, true, zip::CompressionMethod::Zstd);
    let map = dir.path().join("map.toml");
    std::fs::write(&map, MAP).unwrap();
    let file = s(&log).to_string();

    let run = |format: &str, out: &str| {
        primgraph(&[
            "import",
            "inspect",
            &file,
            "--graph",
            GRAPH,
            "--map",
            s(&map),
            "--out",
            s(&dir.path().join(out)),
            "--format",
            format,
        ])
    };
    let (code, human, stderr) = run("human", "h");
    assert_eq!(code, 1, "an I901 error exits 1: {human}{stderr}");
    assert!(human.contains("error[I901]"), "{human}");
    assert!(
        human.contains(&format!("--> {file}!samples/3_epoch_1.json:1:")),
        "{human}"
    );
    assert!(human.contains("warning[I902]"), "{human}");
    assert!(
        human.contains(&format!(
            "--> {file}!samples/2_epoch_1.json (sample two epoch 1) at /events/2"
        )),
        "{human}"
    );
    assert!(human.contains("unmapped: mystery_tool (1)"), "{human}");
    assert!(human.contains("1 error(s), 1 warning(s)"), "{human}");
    // The good runs are still written.
    assert_eq!(names(&dir.path().join("h")).len(), 2);

    let (code, text, _) = run("json", "j");
    assert_eq!(code, 1);
    let report = json_of(&text);
    let diags = report["diagnostics"].as_array().unwrap();
    let i901 = diags.iter().find(|d| d["code"] == "I901").unwrap();
    assert_eq!(i901["file"], file.as_str());
    assert_eq!(i901["entry"], "samples/3_epoch_1.json");
    assert_eq!(i901["severity"], "error");
    assert_eq!(i901["line"], 1);
    let i902 = diags.iter().find(|d| d["code"] == "I902").unwrap();
    assert_eq!(i902["entry"], "samples/2_epoch_1.json");
    assert_eq!(i902["sample"], "two epoch 1");
    assert_eq!(i902["pointer"], "/events/2");
    assert_eq!(report["summary"]["unmapped"], json!({"mystery_tool": 1}));
    assert_eq!(report["summary"]["errors"], 1);

    let (code, gh, _) = run("github", "g");
    assert_eq!(code, 1);
    let lines: Vec<&str> = gh.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("::error file={file}"))
                && l.contains("I901")
                && l.contains("samples/3_epoch_1.json")),
        "{gh}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("::warning file={file}"))
                && l.contains("I902")
                && l.contains("/events/2")),
        "{gh}"
    );
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("::notice title=primgraph import::imported 2 run(s)"),
        "{gh}"
    );

    // I903 (content not captured) and I904 (ambiguous order): the OTel fixtures.
    for (fixture, code_name) in [
        ("tests/fixtures/import/i903.otel.jsonl", "I903"),
        ("tests/fixtures/import/i904.otel.jsonl", "I904"),
    ] {
        for format in ["human", "json", "github"] {
            let out = dir.path().join(format!("{code_name}-{format}"));
            let (code, text, stderr) = primgraph(&[
                "import",
                "otel",
                fixture,
                "--graph",
                GRAPH,
                "--out",
                s(&out),
                "--format",
                format,
            ]);
            assert_eq!(code, 0, "warnings only: {text}{stderr}");
            match format {
                "human" => {
                    assert!(text.contains(&format!("warning[{code_name}]")), "{text}");
                    assert!(text.contains(&format!("--> {fixture}")), "{text}");
                }
                "json" => {
                    let report = json_of(&text);
                    let d = report["diagnostics"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|d| d["code"] == code_name)
                        .unwrap_or_else(|| panic!("{text}"));
                    assert_eq!(d["file"], fixture);
                    assert!(d["line"].as_u64().unwrap() >= 1, "located by line: {d}");
                    assert!(
                        d["pointer"]
                            .as_str()
                            .unwrap()
                            .starts_with("/resourceSpans/"),
                        "{d}"
                    );
                }
                _ => assert!(
                    text.lines()
                        .any(|l| l.starts_with(&format!("::warning file={fixture}"))
                            && l.contains(code_name)),
                    "{text}"
                ),
            }
        }
    }
}

#[test]
fn a_bad_mapping_file_or_graph_is_a_located_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.eval");
    eval_log(&log, &two_samples(), true, zip::CompressionMethod::Zstd);
    let map = dir.path().join("map.toml");
    std::fs::write(&map, "[tools]\ngrep = \"nowhere\"\n").unwrap();
    let out = dir.path().join("out");
    let (code, stdout, stderr) = import_inspect(&log, Some(&map), &out, &[]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!("{}:2:", map.display())),
        "{stderr}"
    );
    assert!(stderr.contains("nowhere"), "{stderr}");
    assert!(!out.exists() || names(&out).is_empty(), "nothing written");

    std::fs::write(&map, [0xff, 0xfe, b'\n']).unwrap();
    let (code, _, stderr) = import_inspect(&log, Some(&map), &out, &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not UTF-8"), "{stderr}");

    let (code, _, stderr) = primgraph(&[
        "import",
        "inspect",
        s(&log),
        "--graph",
        s(&dir.path().join("missing.graph.json")),
        "--out",
        s(&out),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("missing.graph.json"), "{stderr}");

    let (code, _, stderr) = primgraph(&[
        "import",
        "inspect",
        s(&dir.path().join("nope.eval")),
        "--graph",
        GRAPH,
        "--out",
        s(&out),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("nope.eval"), "{stderr}");
}

#[test]
fn sign_seals_imported_traces_that_trust_accepts_and_edits_break() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("import.key");
    let (code, stdout, stderr) = primgraph(&["keygen", "--out", s(&key)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let public = dir.path().join("import.key.pub");
    let log = dir.path().join("run.eval");
    eval_log(&log, &two_samples(), true, zip::CompressionMethod::Zstd);
    let map = dir.path().join("map.toml");
    std::fs::write(&map, MAP).unwrap();
    let out = dir.path().join("out");
    let (code, stdout, stderr) = import_inspect(&log, Some(&map), &out, &["--sign", s(&key)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let trace = out.join("1_epoch_1.trace.jsonl");
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.contains("\"sig\":\"ed25519:"), "{text}");

    let replay = |path: &Path| {
        primgraph(&[
            "replay",
            "--graph",
            GRAPH,
            "--trust",
            s(&public),
            "--format",
            "json",
            s(path),
        ])
    };
    let run_of = |text: &str| json_of(text)["runs"][0].clone();
    let (_, report, stderr) = replay(&trace);
    let sealed = run_of(&report);
    assert_eq!(sealed["seal"], "verified", "{report}{stderr}");
    assert_eq!(sealed["provenance"], "imported");
    assert_ne!(sealed["verdict"], "malformed", "{report}");

    // One character of an imported step changed after import: the seal no longer holds.
    let edited = dir.path().join("edited.trace.jsonl");
    std::fs::write(&edited, text.replacen("src/lib.rs", "src/main.rs", 1)).unwrap();
    let (_, report, _) = replay(&edited);
    let run = run_of(&report);
    assert_ne!(run["seal"], "verified", "{report}");
    assert_eq!(run["verdict"], "malformed", "{report}");

    // An unsealed import is refused under --trust.
    let plain = dir.path().join("plain");
    let (code, _, _) = import_inspect(&log, Some(&map), &plain, &[]);
    assert_eq!(code, 0);
    let (_, report, _) = replay(&plain.join("1_epoch_1.trace.jsonl"));
    let run = run_of(&report);
    assert_eq!(run["seal"], "absent", "{report}");
    assert_eq!(run["verdict"], "malformed", "{report}");

    let (code, _, stderr) = import_inspect(
        &log,
        None,
        &plain,
        &["--sign", s(&dir.path().join("absent.key"))],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("absent.key"), "{stderr}");
}

#[test]
fn a_trace_that_cannot_be_completed_leaves_no_file_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.eval");
    eval_log(&log, &two_samples(), true, zip::CompressionMethod::Zstd);
    let out = dir.path().join("out");
    // The second run's name is taken by a folder: its rename fails.
    std::fs::create_dir_all(out.join("two_epoch_1.trace.jsonl")).unwrap();
    let (code, stdout, stderr) = import_inspect(&log, None, &out, &[]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("two_epoch_1.trace.jsonl"), "{stderr}");
    assert_eq!(
        names(&out),
        ["1_epoch_1.trace.jsonl", "two_epoch_1.trace.jsonl"],
        "the temporary file is removed"
    );
    assert!(out.join("two_epoch_1.trace.jsonl").is_dir());

    // A second import over the same folder replaces complete traces, atomically.
    let again = dir.path().join("again");
    for _ in 0..2 {
        let (code, stdout, stderr) = import_inspect(&log, None, &again, &[]);
        assert_eq!(code, 0, "{stdout}{stderr}");
    }
    assert_eq!(
        names(&again),
        ["1_epoch_1.trace.jsonl", "two_epoch_1.trace.jsonl"]
    );
}

/// The step lines of a trace without what depends on the source's name (the chain): node,
/// input, output and error.
fn steps_of(path: &Path) -> Vec<Value> {
    trace_lines(path)
        .into_iter()
        .filter(|l| l.get("seq").is_some() && l.get("end").is_none())
        .map(|l| json!([l["node"], l["input"], l["output"], l["error"]]))
        .collect()
}

#[test]
fn a_log_in_inspects_chunked_layout_imports_as_its_single_entry_form_does() {
    // Both written by the real Inspect AI (tests/fixtures/import/make_chunked.py): the same
    // eval, as Inspect writes it and converted by Inspect to chunked samples (events in chunks
    // of 3, the long `grep` result an attachment).
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("map.toml");
    std::fs::write(&map, MAP).unwrap();
    let mut traces = Vec::new();
    for log in ["chunked.eval", "chunked.monolith.eval"] {
        let out = dir.path().join(log);
        let (code, stdout, stderr) = primgraph(&[
            "import",
            "inspect",
            &format!("tests/fixtures/import/{log}"),
            "--graph",
            GRAPH,
            "--map",
            s(&map),
            "--out",
            s(&out),
        ]);
        assert_eq!(code, 0, "{log}: {stdout}{stderr}");
        assert!(
            stdout.contains("imported 2 run(s), 6 step(s)"),
            "{log}: {stdout}"
        );
        assert_eq!(
            names(&out),
            ["main_epoch_1.trace.jsonl", "main_epoch_2.trace.jsonl"]
        );
        traces.push(out);
    }
    for name in ["main_epoch_1.trace.jsonl", "main_epoch_2.trace.jsonl"] {
        let chunked = steps_of(&traces[0].join(name));
        let nodes: Vec<&Value> = chunked.iter().map(|s| &s[0]).collect();
        assert_eq!(nodes, [&json!("search"), &json!("read"), &json!("answer")]);
        // The attachment (`attachment://0` in the chunk) is resolved to its text.
        let context = chunked[0][2]["context"].as_str().unwrap_or_default();
        assert!(
            context.starts_with("src/lib.rs:1: fn main()"),
            "{chunked:?}"
        );
        assert!(!context.contains("attachment://"), "{chunked:?}");
        assert_eq!(chunked[2][2], json!({"text": "main is in src/lib.rs"}));
        assert_eq!(chunked, steps_of(&traces[1].join(name)), "{name}");
    }
}

/// SPEC §10's `[outcomes]` and `[errors]`: with `{at, map}` a string at the pointer is the
/// outcome itself and other values go through the map by their JSON text; an `[errors]` pointer
/// reaches into the JSON object a tool's error text holds (Inspect files the text under its own
/// `{type, message}`), and still reads Inspect's own fields.
#[test]
fn outcome_maps_take_strings_as_they_are_and_error_pointers_reach_into_the_error_text() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("decide.graph.json");
    std::fs::write(
        &graph,
        json!({"graph": "decide", "abi": "1.0.0",
            "capabilities": ["obs.read_file", "dec.yes_no", "done.finish_success",
                             "done.report_failure"],
            "input": {"type": "object"},
            "entry": "read",
            "nodes": [
                {"id": "read", "primitive": "obs.read_file",
                 "inputs": {"path": {"const": "src/lib.rs"}},
                 "next": "decide", "on_error": {"*": "fail"}},
                {"id": "decide", "primitive": "dec.yes_no",
                 "inputs": {"question": {"const": "is it there?"}},
                 "branches": {"yes": "answer", "no": "fail"}, "on_error": {"*": "fail"}},
                {"id": "answer", "primitive": "done.finish_success",
                 "inputs": {"summary": {"const": "found"}}},
                {"id": "fail", "primitive": "done.report_failure",
                 "inputs": {"reason": {"const": "not found"}}}]})
        .to_string(),
    )
    .unwrap();
    let map = dir.path().join("map.toml");
    std::fs::write(
        &map,
        r#"
[tools]
judge = "decide"
[outcomes]
decide = {at = "/ok", map = {"true" = "yes", "false" = "no"}}
[errors]
read = "/code"
"#,
    )
    .unwrap();
    let judged = |ok: Value| tool("judge", json!({}), json!(json!({ "ok": ok }).to_string()));
    let mut failed_read = tool("read_file", json!({"path": "src/lib.rs"}), json!(""));
    failed_read["error"] = json!({"type": "unknown",
                                  "message": "{\"code\": \"permission_denied\"}"});
    let log = dir.path().join("log.eval");
    eval_log(
        &log,
        &[
            (
                "samples/a_epoch_1.json".into(),
                sample(
                    json!("a"),
                    1,
                    &[
                        tool("read_file", json!({"path": "src/lib.rs"}), json!("x")),
                        judged(json!("yes")),
                    ],
                    "C",
                    "yes",
                ),
            ),
            (
                "samples/b_epoch_1.json".into(),
                sample(
                    json!("b"),
                    1,
                    &[
                        tool("read_file", json!({"path": "src/lib.rs"}), json!("x")),
                        judged(json!(false)),
                    ],
                    "I",
                    "no",
                ),
            ),
            (
                "samples/c_epoch_1.json".into(),
                sample(json!("c"), 1, &[failed_read], "I", "no"),
            ),
        ],
        true,
        zip::CompressionMethod::Deflated,
    );
    let import_into = |name: &str| {
        let out = dir.path().join(name);
        let (code, _, stderr) = primgraph(&[
            "import",
            "inspect",
            s(&log),
            "--graph",
            s(&graph),
            "--map",
            s(&map),
            "--out",
            s(&out),
        ]);
        assert!(code == 0 || code == 1, "{stderr}");
        out
    };
    let out = import_into("out");
    let step_of = |run: &str, node: &str| -> Value {
        trace_lines(&out.join(format!("{run}_epoch_1.trace.jsonl")))
            .into_iter()
            .find(|e| e["node"] == node)
            .unwrap_or_else(|| panic!("{run}: no step at {node}"))
    };
    assert_eq!(
        step_of("a", "decide")["outcome"],
        "yes",
        "a string is the outcome"
    );
    assert_eq!(
        step_of("b", "decide")["outcome"],
        "no",
        "false goes through the map"
    );
    assert_eq!(step_of("c", "read")["error"]["mode"], "permission_denied");

    // A pointer at Inspect's own field still reads it.
    std::fs::write(&map, "[errors]\nread = \"/type\"\n").unwrap();
    let again = import_into("again");
    let read = trace_lines(&again.join("c_epoch_1.trace.jsonl"))
        .into_iter()
        .find(|e| e["node"] == "read")
        .unwrap();
    assert_eq!(read["error"]["mode"], "unknown");
}

/// An OTLP/JSON span with GenAI attributes, as the Python SDK's exporter writes it.
fn otel_span(
    id: &str,
    parent: Option<&str>,
    start: u64,
    name: &str,
    attrs: &[(&str, &str)],
) -> Value {
    let attributes: Vec<Value> = attrs
        .iter()
        .map(|(k, v)| json!({"key": k, "value": {"stringValue": v}}))
        .collect();
    let mut span = json!({"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": id,
        "name": name, "kind": 1, "startTimeUnixNano": start.to_string(),
        "endTimeUnixNano": (start + 10).to_string(), "attributes": attributes});
    if let Some(p) = parent {
        span["parentSpanId"] = json!(p);
    }
    span
}

#[test]
fn a_nested_agent_span_with_no_mapping_is_kept_unmapped_and_the_root_is_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let agent = |id, parent, start, name| {
        otel_span(
            id,
            parent,
            start,
            &format!("invoke_agent {name}"),
            &[
                ("gen_ai.operation.name", "invoke_agent"),
                ("gen_ai.agent.name", name),
            ],
        )
    };
    let tool = |id, parent, start, name| {
        otel_span(
            id,
            Some(parent),
            start,
            &format!("execute_tool {name}"),
            &[
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", name),
                ("gen_ai.tool.call.arguments", "{}"),
                ("gen_ai.tool.call.result", "{}"),
            ],
        )
    };
    // root agent `lookup` → nested agent `helper` (holding `search_text`) → `read_file`; a
    // `chat` span (a model call, neither tool nor agent) is not a step.
    let spans = [
        agent("1111111111111111", None, 100, "lookup"),
        agent("2222222222222222", Some("1111111111111111"), 200, "helper"),
        tool("3333333333333333", "2222222222222222", 300, "search_text"),
        otel_span(
            "4444444444444444",
            Some("1111111111111111"),
            400,
            "chat gpt",
            &[("gen_ai.operation.name", "chat")],
        ),
        tool("5555555555555555", "1111111111111111", 500, "read_file"),
    ];
    let source = dir.path().join("spans.json");
    let doc = json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
    std::fs::write(&source, doc.to_string()).unwrap();
    let import = |map: &str, out: &str| {
        let map_path = dir.path().join(format!("{out}.toml"));
        std::fs::write(&map_path, map).unwrap();
        let out = dir.path().join(out);
        let (code, stdout, stderr) = primgraph(&[
            "import",
            "otel",
            s(&source),
            "--graph",
            GRAPH,
            "--map",
            s(&map_path),
            "--out",
            s(&out),
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let lines = trace_lines(&out.join(&names(&out)[0]));
        let steps: Vec<(Value, Value)> = lines
            .iter()
            .filter(|l| l.get("node").is_some())
            .map(|l| {
                (
                    l["node"].clone(),
                    l.get("source_name").cloned().unwrap_or(Value::Null),
                )
            })
            .collect();
        (json_of(&stdout), steps)
    };

    let (report, steps) = import("", "unmapped");
    assert_eq!(
        steps,
        [
            (Value::Null, json!("helper")),
            (json!("search"), json!("search_text")),
            (json!("read"), json!("read_file")),
        ],
        "{report}"
    );
    let warnings: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "I902")
        .collect();
    assert_eq!(warnings.len(), 1, "{report}");
    assert!(
        warnings[0]["message"]
            .as_str()
            .unwrap()
            .contains("agent span `helper`"),
        "{report}"
    );

    // Mapped, the nested agent is a step at its node, nothing unmapped.
    let (report, steps) = import("[tools]\nhelper = \"search\"\n", "mapped");
    assert_eq!(steps[0], (json!("search"), json!("helper")), "{report}");
    assert_eq!(steps.len(), 3, "{report}");
    assert_eq!(report["summary"]["unmapped"], json!({}), "{report}");
}

#[test]
fn a_malformed_sample_of_the_json_form_is_located_and_the_others_import() {
    let dir = tempfile::tempdir().unwrap();
    let mut docs: Vec<Value> = two_samples()
        .iter()
        .map(|(_, b)| json_of(std::str::from_utf8(b).unwrap()))
        .collect();
    docs[0]["events"] = json!("oops");
    // Pretty-printed, as Inspect writes it: the finding's line is the line of `"events"`.
    let text = serde_json::to_string_pretty(
        &json!({"version": 2, "status": "success", "eval": {"task": "t"}, "samples": docs}),
    )
    .unwrap();
    let (events_line, events_text) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("\"oops\""))
        .unwrap();
    let log = dir.path().join("run.json");
    std::fs::write(&log, &text).unwrap();
    let map = dir.path().join("map.toml");
    std::fs::write(&map, MAP).unwrap();
    let out = dir.path().join("out");
    let (code, stdout, stderr) = import_inspect(&log, Some(&map), &out, &["--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report = json_of(&stdout);
    assert_eq!(report["summary"]["runs"], 1, "{report}");
    assert_eq!(names(&out), ["two_epoch_1.trace.jsonl"]);
    let errors: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "I901")
        .collect();
    assert_eq!(errors.len(), 1, "{report}");
    let e = errors[0];
    assert_eq!(e["pointer"], "/samples/0/events", "{report}");
    assert_eq!(e["sample"], "1 epoch 1", "{report}");
    assert_eq!(e["line"], events_line + 1, "{report}");
    // serde_json places a type error at the end of the value it read.
    assert_eq!(
        e["column"],
        events_text.find("\"oops\"").unwrap() + "\"oops\"".len(),
        "{report}"
    );
}

#[test]
fn a_failed_unmapped_tool_keeps_the_text_of_inspects_error_as_a_mapped_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let failed = |function: &str| {
        let mut event = tool(function, json!({}), json!(""));
        event["error"] = json!({"type": "unknown", "message": "build_error: compile failed"});
        event
    };
    // `read_file` maps (by its primitive), `compile` maps to no node.
    let log = dir.path().join("run.eval");
    eval_log(
        &log,
        &[(
            "samples/1_epoch_1.json".into(),
            sample(
                json!(1),
                1,
                &[failed("read_file"), failed("compile")],
                "I",
                "no",
            ),
        )],
        true,
        zip::CompressionMethod::Deflated,
    );
    let out = dir.path().join("out");
    let (code, stdout, stderr) = import_inspect(&log, None, &out, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let messages: Vec<(Value, Value)> = steps_of(&out.join("1_epoch_1.trace.jsonl"))
        .iter()
        .map(|step| (step[0].clone(), step[3]["message"].clone()))
        .collect();
    assert_eq!(
        messages,
        [
            (json!("read"), json!("build_error: compile failed")),
            (Value::Null, json!("build_error: compile failed")),
        ]
    );
}

#[test]
fn a_final_node_the_source_has_no_answer_for_is_said_not_silently_skipped() {
    // The OTel fixture's root span records no `gen_ai.output.messages`: `[final]` cannot add
    // its step, and the import says so (I903) instead of ending the run elsewhere unremarked.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (code, text, stderr) = primgraph(&[
        "import",
        "otel",
        "tests/fixtures/import/i902.otel.jsonl",
        "--graph",
        GRAPH,
        "--map",
        "tests/fixtures/import/lookup.map.toml",
        "--out",
        s(&out),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "warnings only: {text}{stderr}");
    let report = json_of(&text);
    let finals: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "I903" && d["message"].as_str().unwrap().contains("final answer"))
        .collect();
    assert_eq!(finals.len(), 1, "{text}");
    assert!(
        finals[0]["message"].as_str().unwrap().contains("`answer`"),
        "{}",
        finals[0]
    );
    assert_eq!(finals[0]["file"], "tests/fixtures/import/i902.otel.jsonl");
}
