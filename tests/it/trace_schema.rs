//! `graphs/trace.schema.json`, the JSON Schema of one trace line (SPEC §4.1): every line of the
//! shipped faithful runs and of imported runs satisfies it, and hand-broken lines (unknown
//! fields among them, which replay refuses) fail it. Also: every example graph's `$schema` names a schema file that
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
fn imported_runs_satisfy_the_trace_line_schema() {
    // An OTel import without captured content: partial steps with no input or output, an
    // unmapped step with `"node": null`, the header's `imported` (SPEC §10).
    let validator = compile(&root().join("graphs/trace.schema.json"));
    let out = tempfile::tempdir().unwrap();
    let fixtures = root().join("tests/fixtures/import");
    for source in ["i902.otel.jsonl", "i903.otel.jsonl"] {
        let (code, stdout, stderr) = crate::common::primgraph(&[
            "import",
            "otel",
            fixtures.join(source).to_str().unwrap(),
            "--graph",
            fixtures.join("lookup.graph.json").to_str().unwrap(),
            "--out",
            out.path().join(source).to_str().unwrap(),
        ]);
        assert!(code == 0 || code == 1, "{stdout}{stderr}");
    }
    let mut seen = (false, false);
    for entry in walk(out.path()) {
        for line in std::fs::read_to_string(&entry).unwrap().lines() {
            let value: Value = serde_json::from_str(line).unwrap();
            seen.0 |= value["partial"] == true && value.get("output").is_none();
            seen.1 |= value.get("node").is_some_and(Value::is_null);
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| format!("{}: {e}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{}: {line}: {errors:?}", entry.display());
        }
    }
    assert_eq!(
        seen,
        (true, true),
        "the imports wrote a partial and an unmapped step"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.to_string_lossy().ends_with(".trace.jsonl") {
            out.push(path);
        }
    }
    out
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
    // Replay refuses a field it does not know (D601 in the header, D616 in a step): so does the
    // schema, or an editor would pass what replay rejects.
    let header: Value = serde_json::from_str(&lines("faithful-success.trace.jsonl")[0]).unwrap();
    let mut header_extra = header.clone();
    header_extra["foo"] = json!(1);
    let mut step_extra = step.clone();
    step_extra["foo"] = json!(1);
    let mut neither = step.clone();
    neither.as_object_mut().unwrap().remove("output");
    for (what, value) in [
        ("an unknown header field", header_extra),
        ("an unknown step field", step_extra),
        (
            "neither output nor error on a step that is not partial",
            neither,
        ),
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
