//! `graphs/trace.schema.json`, the JSON Schema of one trace line (SPEC §4.1): every line of the
//! shipped faithful runs satisfies it, the shipped malformed run has a line that fails it, and
//! hand-broken lines fail it. Also: every example graph's `$schema` names a schema file that
//! exists beside it, and the graph examples satisfy the schema they name.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn compile(path: &Path) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::meta::validate(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(root().join("graphs/runs").join(name))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn faithful_runs_satisfy_the_trace_line_schema() {
    let validator = compile(&root().join("graphs/trace.schema.json"));
    for name in [
        "faithful-success.trace.jsonl",
        "faithful-loop.trace.jsonl",
        "faithful-on-error.trace.jsonl",
    ] {
        for (i, line) in lines(name).iter().enumerate() {
            let value: Value = serde_json::from_str(line).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| format!("{}: {e}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{name}:{}: {errors:#?}", i + 1);
        }
    }
}

#[test]
fn broken_lines_fail_the_trace_line_schema() {
    let validator = compile(&root().join("graphs/trace.schema.json"));
    // The shipped malformed run breaks the hash chain (D615): a shape cannot see a wrong digest,
    // so its lines all pass; checking the chain is replay's job, not the schema's.
    for line in lines("malformed.trace.jsonl") {
        assert!(validator.is_valid(&serde_json::from_str::<Value>(&line).unwrap()));
    }
    let step: Value = serde_json::from_str(&lines("faithful-success.trace.jsonl")[1]).unwrap();
    let end: Value =
        serde_json::from_str(lines("faithful-success.trace.jsonl").last().unwrap()).unwrap();
    let mut both = step.clone();
    both["error"] = json!({"mode": "timeout"});
    let mut no_prev = step.clone();
    no_prev.as_object_mut().unwrap().remove("prev");
    let mut end_with_node = end.clone();
    end_with_node["node"] = json!("done");
    let mut bad_end = end.clone();
    bad_end["end"] = json!("crashed");
    let mut bad_seq = step.clone();
    bad_seq["seq"] = json!(0);
    for (what, value) in [
        ("output and error", both),
        ("no prev", no_prev),
        ("an end event with a node", end_with_node),
        ("an unknown end", bad_end),
        ("seq 0", bad_seq),
    ] {
        assert!(!validator.is_valid(&value), "accepted {what}: {value}");
    }
}

#[test]
fn every_example_names_its_schema() {
    let graphs = root().join("graphs");
    let mut checked = 0;
    for entry in std::fs::read_dir(&graphs).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".graph.json") {
            continue;
        }
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let named = doc["$schema"]
            .as_str()
            .unwrap_or_else(|| panic!("{} has no $schema", path.display()));
        let schema = graphs.join(named);
        let validator = compile(&schema);
        assert!(validator.is_valid(&doc), "{} fails {named}", path.display());
        checked += 1;
    }
    assert!(checked >= 6, "{checked} examples");
}
