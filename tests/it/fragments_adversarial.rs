//! Fragments against bad input (issue 24): nesting 9 deep, a use cycle through three packs, a
//! fragment used 10,000 times in one graph, a parameter of 10 MB. Each ends in located findings
//! (or a clean expansion) without a panic or a stack overflow; no timing is asserted.

use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::registry::Registry;
use primgraph::validate::{self, Options};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn options(path: &[PathBuf]) -> Options {
    Options {
        packs: Some(Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(path),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    }
}

fn write(path: &Path, value: &serde_json::Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

fn pack(dir: &Path, name: &str, requires: serde_json::Value) {
    write(
        &dir.join(name).join("pack.json"),
        &json!({"pack": name, "version": "1.0.0", "kernel_abi": "^1.0", "roots": [name],
                "requires": requires, "fragments": ["*.fragment.json"]}),
    );
}

/// A graph that uses `fragment` once, its exit `out` wired to a terminal.
fn graph_using(packs: serde_json::Value, fragment: &str) -> Vec<u8> {
    serde_json::to_vec_pretty(&json!({
        "graph": "adversarial", "abi": "1.0.0", "packs": packs,
        "capabilities": ["done.*"], "entry": "use",
        "nodes": [
            {"id": "use", "fragment": fragment, "exits": {"out": "end"}},
            {"id": "end", "primitive": "done.finish_success"}
        ]
    }))
    .unwrap()
}

/// `deep/d1` uses `deep/d2` … uses `deep/d9`.
fn deep_pack(dir: &Path) {
    pack(dir, "deep", json!({}));
    for k in 1..=9 {
        let node = if k < 9 {
            json!({"id": "n", "fragment": format!("deep/d{}", k + 1), "exits": {"out": {"exit": "out"}}})
        } else {
            json!({"id": "n", "primitive": "done.finish_success"})
        };
        write(
            &dir.join("deep").join(format!("d{k}.fragment.json")),
            &json!({"fragment": format!("d{k}"), "exits": ["out"], "entry": "n", "nodes": [node]}),
        );
    }
}

#[test]
fn nesting_nine_deep_is_p828_at_the_ninth_use_and_eight_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    deep_pack(dir.path());
    let opts = options(&[dir.path().to_path_buf()]);
    let nine = graph_using(json!({"deep": "^1"}), "deep/d1");
    let report = validate::check_source("nine.graph.json", &nine, Registry::builtin(), &opts);
    let p828: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "P828")
        .collect();
    assert_eq!(p828.len(), 1, "{:#?}", report.diagnostics);
    assert!(
        p828[0]
            .file
            .as_deref()
            .unwrap()
            .ends_with("d8.fragment.json")
    );
    assert_eq!(p828[0].pointer, "/nodes/0/fragment");
    // Every use site on the way, outermost (the graph) last.
    assert_eq!(p828[0].related.len(), 8, "{:#?}", p828[0].related);
    assert_eq!(
        p828[0].related.last().unwrap().file.as_deref(),
        Some("nine.graph.json")
    );
    let eight = graph_using(json!({"deep": "^1"}), "deep/d2");
    let report = validate::check_source("eight.graph.json", &eight, Registry::builtin(), &opts);
    assert!(
        report.diagnostics.iter().all(|d| d.code != "P828"),
        "{:#?}",
        report.diagnostics
    );
    let expanded = validate::expand_source("eight.graph.json", &eight, Registry::builtin(), &opts)
        .expect("expands");
    assert_eq!(expanded["nodes"][0]["id"], "use/n/n/n/n/n/n/n/n");
    assert_eq!(expanded["entry"], "use/n/n/n/n/n/n/n/n");
}

#[test]
fn a_use_cycle_through_three_packs_is_refused_located() {
    let dir = tempfile::tempdir().unwrap();
    for (name, next) in [("ca", "cb"), ("cb", "cc"), ("cc", "ca")] {
        pack(dir.path(), name, json!({ next: "^1" }));
        write(
            &dir.path().join(name).join("f.fragment.json"),
            &json!({"fragment": "f", "exits": ["out"], "entry": "n",
                    "nodes": [{"id": "n", "fragment": format!("{next}/f"), "exits": {"out": {"exit": "out"}}}]}),
        );
    }
    let opts = options(&[dir.path().to_path_buf()]);
    let bytes = graph_using(json!({"ca": "^1"}), "ca/f");
    let report = validate::check_source("cycle.graph.json", &bytes, Registry::builtin(), &opts);
    let errors: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "P805" || d.code == "P828")
        .collect();
    assert!(!errors.is_empty(), "{:#?}", report.diagnostics);
    assert!(errors.iter().all(|d| d.line > 0), "located: {errors:#?}");
}

#[test]
fn a_use_cycle_within_one_pack_is_p828_with_the_cycle_as_witness() {
    let dir = tempfile::tempdir().unwrap();
    pack(dir.path(), "loop", json!({}));
    for (name, next) in [("a", "b"), ("b", "c"), ("c", "a")] {
        write(
            &dir.path()
                .join("loop")
                .join(format!("{name}.fragment.json")),
            &json!({"fragment": name, "exits": ["out"], "entry": "n",
                    "nodes": [{"id": "n", "fragment": format!("loop/{next}"), "exits": {"out": {"exit": "out"}}}]}),
        );
    }
    let opts = options(&[dir.path().to_path_buf()]);
    let bytes = graph_using(json!({"loop": "^1"}), "loop/a");
    let report = validate::check_source("cycle.graph.json", &bytes, Registry::builtin(), &opts);
    let p828: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "P828")
        .collect();
    assert_eq!(p828.len(), 1, "{:#?}", report.diagnostics);
    assert!(
        p828[0]
            .file
            .as_deref()
            .unwrap()
            .ends_with("c.fragment.json")
    );
    assert_eq!(
        p828[0].witness.as_ref().unwrap().describe(),
        "loop/a → loop/b → loop/c → loop/a"
    );
}

fn fixtures_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fragments/path")
}

/// The `ship` fixture graph with `uses` uses of `shipkit/land` in a chain.
fn many_uses(uses: usize, with: serde_json::Value) -> Vec<u8> {
    let mut nodes = vec![
        json!({"id": "intake", "primitive": "intake.parse_issue", "inputs": {"text": {"from": "$input", "at": "/issue"}}, "next": "draft", "on_error": {"*": "give_up"}}),
        json!({"id": "draft", "primitive": "synth.patch", "inputs": {"paths": {"from": "intake", "at": "/paths"}, "test_ids": {"from": "intake", "at": "/test_ids"}}, "next": "u0", "on_error": {"*": "give_up"}}),
    ];
    for k in 0..uses {
        let next = if k + 1 == uses {
            "done".to_string()
        } else {
            format!("u{}", k + 1)
        };
        nodes.push(json!({"id": format!("u{k}"), "fragment": "shipkit/land", "with": with,
            "inputs": {"patch": {"from": "draft", "at": "/patch"}, "tests": {"from": "intake", "at": "/test_ids"}},
            "exits": {"landed": next, "failed": "give_up"}}));
    }
    nodes.push(json!({"id": "done", "primitive": "done.finish_success"}));
    nodes.push(json!({"id": "give_up", "primitive": "done.report_failure", "inputs": {"reason": {"const": "tests_still_failing"}}}));
    serde_json::to_vec(&json!({
        "graph": "many", "abi": "1.0.0", "packs": {"shipkit": "^1.0"},
        "capabilities": ["intake.*", "synth.*", "ctl.*", "mut.*", "ver.*", "done.*"],
        "input": {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]},
        "entry": "intake", "nodes": nodes
    }))
    .unwrap()
}

#[test]
fn a_fragment_used_ten_thousand_times_expands_and_validates() {
    let opts = options(&[fixtures_path()]);
    let bytes = many_uses(10_000, json!({"attempts": 1}));
    let expanded = validate::expand_source("many.graph.json", &bytes, Registry::builtin(), &opts)
        .expect("expands");
    assert_eq!(
        expanded["nodes"].as_array().unwrap().len(),
        2 + 4 * 10_000 + 2
    );
    let report = validate::check_source("many.graph.json", &bytes, Registry::builtin(), &opts);
    // Every finding is located, in the graph or in the fragment file.
    assert!(
        report.diagnostics.iter().all(|d| d.line > 0),
        "{:#?}",
        &report.diagnostics[..3.min(report.diagnostics.len())]
    );
}

#[test]
fn a_ten_megabyte_parameter_is_p822_at_the_value_without_repeating_it() {
    let opts = options(&[fixtures_path()]);
    let big = "x".repeat(10 * 1024 * 1024);
    let bytes = many_uses(1, json!({"attempts": big}));
    let report = validate::check_source("big.graph.json", &bytes, Registry::builtin(), &opts);
    let p822: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "P822")
        .collect();
    assert_eq!(p822.len(), 1, "{:#?}", report.diagnostics.len());
    assert_eq!(p822[0].pointer, "/nodes/2/with/attempts");
    assert!(
        p822[0].message.len() < 1000,
        "the message is cut: {} bytes",
        p822[0].message.len()
    );
    assert!(p822[0].witness.is_none());
}

#[test]
fn a_port_pointer_into_a_ref_cycle_ends_in_a_located_answer() {
    let dir = tempfile::tempdir().unwrap();
    pack(dir.path(), "refs", json!({}));
    let list = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}, "v": {"type": "string"}}}},
                      "$ref": "#/$defs/n"});
    write(
        &dir.path().join("refs").join("f.fragment.json"),
        &json!({"fragment": "f", "inputs": {"list": list}, "exits": ["out"], "entry": "n",
                "nodes": [{"id": "n", "primitive": "done.report_failure",
                           "inputs": {"reason": {"const": "other"}, "summary": {"from": "$in", "at": "/list/next/next/next/v"}}}]}),
    );
    let opts = options(&[dir.path().to_path_buf()]);
    // `#/$defs/n` resolves at the schema's root: the graph's `input` holds the definitions there
    // (nested under `a` the reference would find nothing, a G003 `input` of its own).
    let mut input = json!({"type": "object", "$defs": list["$defs"].clone(),
                           "properties": {"a": {"$ref": "#/$defs/n"}}});
    input["$defs"]["n"]["properties"]["v"] = json!({"type": "integer"});
    let bytes = serde_json::to_vec(&json!({
        "graph": "refs", "abi": "1.0.0", "packs": {"refs": "^1"}, "capabilities": ["done.*"],
        "input": input, "entry": "use",
        "nodes": [{"id": "use", "fragment": "refs/f", "inputs": {"list": {"from": "$input", "at": "/a/next/next"}},
                   "exits": {"out": "use"}}]
    }))
    .unwrap();
    let report = validate::check_source("refs.graph.json", &bytes, Registry::builtin(), &opts);
    assert!(!report.diagnostics.is_empty());
    assert!(
        report.diagnostics.iter().all(|d| d.line > 0),
        "{:#?}",
        report.diagnostics
    );
    // The source's `v` is an integer, the port's a string: a witness, or an undecided warning.
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.code == "P824" || d.code == "P825"),
        "{:#?}",
        report.diagnostics
    );
}
