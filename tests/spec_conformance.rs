//! Conformance probes written from SPEC.md alone: each test states the spec sentence it checks,
//! runs the release binary on a small graph (and trace) in a temporary folder, and asserts the
//! codes, severities, exit codes and output shapes the spec promises.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn primgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run primgraph: {e}"))
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// A graph document with the given nodes and the graph-level fields merged in.
fn graph(extra: Value, nodes: Value) -> String {
    let mut doc = json!({
        "graph": "probe",
        "abi": "1.0.0",
        "capabilities": ["env.*", "done.*", "dec.*", "ctl.*", "mut.*", "ver.*", "intake.*", "exec.*"],
        "entry": "a",
        "nodes": nodes,
    });
    if let (Value::Object(doc), Value::Object(extra)) = (&mut doc, extra) {
        doc.extend(extra);
    }
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// `validate --format json` on one graph text: (exit code, [(code, severity)]).
fn validate(text: &str) -> (i32, Vec<(String, String)>) {
    let dir = tempdir();
    let path = write(dir.path(), "probe.graph.json", text);
    let out = primgraph(&["validate", "--format", "json", &path.display().to_string()]);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let codes = doc["files"][0]["diagnostics"]
        .as_array()
        .map(|ds| {
            ds.iter()
                .map(|d| {
                    (
                        d["code"].as_str().unwrap_or_default().to_string(),
                        d["severity"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (out.status.code().unwrap_or(-1), codes)
}

fn codes(found: &[(String, String)]) -> Vec<&str> {
    found.iter().map(|(c, _)| c.as_str()).collect()
}

// §3.4 Bounds: "Every cycle passes through a node with `max_visits` (equivalently: the graph minus
// bounded nodes is acyclic)." A bounded node on a self-loop (here its own `on_error` retry) is a
// bounded cycle.
#[test]
fn a_bounded_self_loop_is_not_an_unbounded_cycle() {
    let bounded = graph(
        json!({}),
        json!([
            {"id": "a", "primitive": "env.platform_info", "max_visits": 2,
             "next": "b", "on_error": {"*": "a"}},
            {"id": "b", "primitive": "done.finish_success"}
        ]),
    );
    assert_eq!(validate(&bounded), (0, vec![]));

    let unbounded = graph(
        json!({}),
        json!([
            {"id": "a", "primitive": "env.platform_info", "next": "b", "on_error": {"*": "a"}},
            {"id": "b", "primitive": "done.finish_success"}
        ]),
    );
    let (code, found) = validate(&unbounded);
    assert_eq!(code, 1);
    assert_eq!(found, vec![("S205".to_string(), "error".to_string())]);
}

// §3.4 Bounds: "With bounds, the worst-case step count is bounded and compared with
// `budget.max_steps`." A bounded self-loop leaves S209 able to compute its bound.
#[test]
fn a_bounded_self_loop_still_gets_a_step_bound() {
    let text = graph(
        json!({"budget": {"max_steps": 1}}),
        json!([
            {"id": "a", "primitive": "env.platform_info", "max_visits": 2,
             "next": "b", "on_error": {"*": "a"}},
            {"id": "b", "primitive": "done.finish_success"}
        ]),
    );
    let (code, found) = validate(&text);
    assert_eq!(code, 1);
    assert_eq!(codes(&found), vec!["S209"]);
}
