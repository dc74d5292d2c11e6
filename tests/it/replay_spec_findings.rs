//! Replay cases an evaluator wrote from SPEC §4 and §5 alone, driven through the built binary
//! on the example run `graphs/runs/faithful-success.trace.jsonl`, edited and re-chained the way
//! a user edits a trace: a last line without its newline (JSON Lines), two runs in one file
//! (D614), a refused header that still names its run, shape errors located by pointer,
//! invalid UTF-8 located by column, and a refused graph located finding by finding.

use crate::common::{copy_dir, primgraph, primgraph_in};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;

const GRAPH: &str = "graphs/runs/fix-failing-test.graph.json";
const TRACE: &str = "graphs/runs/faithful-success.trace.jsonl";

fn lines() -> Vec<Vec<u8>> {
    let text = std::fs::read(TRACE).unwrap();
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// Re-chain `lines`: each event's `prev` is the SHA-256 of the line before it (SPEC §4.1).
fn rechain(lines: &mut [Vec<u8>]) {
    for i in 1..lines.len() {
        let Ok(Value::Object(mut event)) = serde_json::from_slice::<Value>(&lines[i]) else {
            continue;
        };
        if event.contains_key("prev") {
            let hash: String = Sha256::digest(&lines[i - 1])
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            event.insert("prev".into(), Value::from(format!("sha256:{hash}")));
            lines[i] = serde_json::to_vec(&event).unwrap();
        }
    }
}

fn joined(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut out = lines.join(&b'\n');
    out.push(b'\n');
    out
}

/// `replay --format json` of `bytes`: the run's report.
fn replay_json(bytes: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace.jsonl");
    std::fs::write(&trace, bytes).unwrap();
    let (_, out, err) = primgraph(&[
        "replay",
        "--graph",
        GRAPH,
        "--format",
        "json",
        trace.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    report["runs"][0].clone()
}

fn codes(run: &Value) -> Vec<String> {
    run["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_complete_last_line_without_its_newline_is_read() {
    let mut bytes = std::fs::read(TRACE).unwrap();
    assert_eq!(bytes.pop(), Some(b'\n'));
    let run = replay_json(&bytes);
    assert_eq!(run["verdict"], "faithful", "{run:#}");
    assert_eq!(run["end"], "success");
    // A step last, without newline: still no end event, D616 at the end of the file.
    let mut lines = lines();
    lines.pop();
    let mut bytes = joined(&lines);
    bytes.pop();
    let run = replay_json(&bytes);
    assert_eq!(run["verdict"], "malformed");
    assert_eq!(codes(&run), ["D616"]);
    assert!(
        run["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("without an end event"),
        "{run:#}"
    );
}

#[test]
fn two_runs_in_one_file_are_events_after_the_end() {
    let once = std::fs::read(TRACE).unwrap();
    let run = replay_json(&[once.clone(), once].concat());
    assert_eq!(codes(&run), ["D614"], "{run:#}");
    assert_eq!(run["verdict"], "violated");
    let d = &run["diagnostics"][0];
    assert_eq!(d["line"], 9);
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("a second trace header"),
        "{d:#}"
    );
    // Garbage after the end is after the end too.
    let mut lines = lines();
    lines.push(b"{not json".to_vec());
    let run = replay_json(&joined(&lines));
    assert_eq!(codes(&run), ["D614"], "{run:#}");
}

#[test]
fn a_refused_header_still_names_its_run() {
    for (from, edit) in [
        (
            r#""graph":"fix-failing-test-recorded""#,
            r#""graph":"other""#,
        ),
        (r#""abi""#, r#""foo":1,"abi""#),
        (r#""trace":"1""#, r#""trace":"2""#),
        (r#","graph_digest":"sha256:"#, r#","digest":"sha256:"#),
    ] {
        let mut lines = lines();
        let header = String::from_utf8(lines[0].clone()).unwrap();
        let edited = header.replacen(from, edit, 1);
        assert_ne!(edited, header);
        lines[0] = edited.into_bytes();
        rechain(&mut lines);
        let run = replay_json(&joined(&lines));
        assert_eq!(codes(&run), ["D601"], "{edit}: {run:#}");
        assert_eq!(run["run"], "sim-2026-000006", "{edit}");
    }
}

#[test]
fn unknown_header_field_is_located() {
    let mut lines = lines();
    let header = String::from_utf8(lines[0].clone()).unwrap();
    lines[0] = header.replacen('{', r#"{"foo":1,"#, 1).into_bytes();
    rechain(&mut lines);
    let run = replay_json(&joined(&lines));
    assert_eq!(run["diagnostics"][0]["pointer"], "/foo", "{run:#}");
}

#[test]
fn valid_json_of_the_wrong_shape_is_not_called_invalid_json() {
    let mut lines = lines();
    lines[2] = b"[1,2,3]".to_vec();
    let run = replay_json(&joined(&lines));
    let d = &run["diagnostics"][0];
    assert_eq!(d["code"], "D616");
    let message = d["message"].as_str().unwrap();
    assert!(!message.contains("invalid JSON"), "{message}");
    assert!(message.contains("not an array"), "{message}");

    let mut lines = self::lines();
    let mut step: Value = serde_json::from_slice(&lines[2]).unwrap();
    step["evidence"] = serde_json::json!([{"kind": "diff"}]);
    lines[2] = serde_json::to_vec(&step).unwrap();
    rechain(&mut lines);
    let run = replay_json(&joined(&lines));
    let d = &run["diagnostics"][0];
    assert_eq!(d["code"], "D616");
    assert_eq!(d["pointer"], "/evidence/0", "{d:#}");
    assert_eq!(d["message"], "missing field `digest`");

    // A syntax error is still named as one.
    let mut lines = self::lines();
    lines[2] = b"{\"seq\":2,".to_vec();
    let run = replay_json(&joined(&lines));
    let message = run["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("invalid JSON"), "{message}");
}

#[test]
fn invalid_utf8_is_located_at_its_byte() {
    let mut lines = lines();
    let at = lines[2]
        .windows(8)
        .position(|w| w == b"\"node\":\"")
        .unwrap()
        + 8;
    lines[2].insert(at, 0xFF);
    rechain(&mut lines);
    let run = replay_json(&joined(&lines));
    let d = &run["diagnostics"][0];
    assert_eq!(d["code"], "D616");
    assert_eq!(d["line"], 3);
    assert_eq!(d["column"], at + 1, "{d:#}");
}

#[test]
fn a_refused_graph_is_located_finding_by_finding() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("bad.graph.json");
    std::fs::write(&graph, "{\"graph\":\n").unwrap();
    let graph = graph.to_str().unwrap();
    let html = dir.path().join("r.html");
    for command in [
        vec!["replay", "--graph", graph, TRACE],
        vec!["simulate", graph, "--out", html.to_str().unwrap()],
        vec![
            "report",
            "--graph",
            graph,
            TRACE,
            "--out",
            html.to_str().unwrap(),
        ],
    ] {
        let (code, _, err) = primgraph(&command);
        assert_eq!(code, 2, "{command:?}: {err}");
        assert!(
            err.contains(&format!("{graph}:2:1: G001")),
            "{command:?}: {err}"
        );
    }
    std::fs::write(
        dir.path().join("shape.graph.json"),
        r#"{"graph":"x","nodes":[{"id":1}]}"#,
    )
    .unwrap();
    let shape = dir.path().join("shape.graph.json");
    let (_, _, err) = primgraph(&["replay", "--graph", shape.to_str().unwrap(), TRACE]);
    let located: Vec<&str> = err.lines().filter(|l| l.contains(": G003")).collect();
    // `abi`, `capabilities` and `entry` missing, `primitive` missing, `id` mistyped.
    assert_eq!(located.len(), 5, "{err}");
    assert!(
        err.contains("shape.graph.json:1:24: G003 /nodes/0/id:"),
        "{err}"
    );
}

#[test]
fn a_changed_pack_is_located_in_the_lock() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("primgraph.toml"), "").unwrap();
    copy_dir(
        &root.join("registry/packs/pyrepo"),
        &tmp.path().join("packs/pyrepo"),
    );
    std::fs::create_dir_all(tmp.path().join("graphs")).unwrap();
    std::fs::copy(
        root.join("registry/packs/pyrepo/fixtures/fix-and-land.graph.json"),
        tmp.path().join("graphs/fix.graph.json"),
    )
    .unwrap();
    let (code, _, err) = primgraph_in(tmp.path(), &["pack", "lock", "graphs", "--pack", "packs"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(tmp.path().join("packs/pyrepo/NEWFILE"), "x\n").unwrap();
    let trace = root.join(TRACE);
    let (code, _, err) = primgraph_in(
        tmp.path(),
        &[
            "replay",
            "--graph",
            "graphs/fix.graph.json",
            "--pack",
            "packs",
            trace.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("primgraph.lock:8:7: P806 /packs/0/digest:"),
        "{err}"
    );
}

/// A recorded node name and outcome holding a carriage return, a line break, terminal escape
/// sequences and a bidirectional override reach the human output as escapes: the run cannot
/// move the cursor, clear the screen, forge a line or reorder what the reader sees. The JSON
/// output keeps the recorded strings exactly.
#[test]
fn control_characters_in_a_recorded_run_are_printed_escaped() {
    let mut lines = lines();
    let hostile_node = "ga\u{1b}[31mte";
    let hostile_outcome = "allow\r\u{1b}[2J\nerror[D000]: forged\u{202e}";
    for line in lines.iter_mut() {
        let mut event: Value = serde_json::from_slice(line).unwrap();
        if event["node"] == "gate" {
            event["node"] = Value::from(hostile_node);
            event["outcome"] = Value::from(hostile_outcome);
            *line = serde_json::to_vec(&event).unwrap();
        }
    }
    rechain(&mut lines);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace.jsonl");
    std::fs::write(&trace, joined(&lines)).unwrap();
    let (code, out, err) = primgraph(&["replay", "--graph", GRAPH, trace.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    for hidden in ['\r', '\u{1b}', '\u{202e}'] {
        assert!(!out.contains(hidden), "{hidden:?} printed raw:\n{out}");
    }
    assert!(
        !out.lines().any(|l| l.starts_with("error[D000]")),
        "a recorded line break started a line of its own:\n{out}"
    );
    assert!(out.contains(r"ga\u{1b}[31mte"), "{out}");
    assert!(
        out.contains(r"allow\r\u{1b}[2J\nerror[D000]: forged\u{202e}"),
        "{out}"
    );
    let run = replay_json(&joined(&lines));
    let outcomes: Vec<&Value> = run["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d.get("actual"))
        .collect();
    assert!(outcomes.contains(&&Value::from(hostile_outcome)), "{run:#}");
}
