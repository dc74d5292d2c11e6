//! `graphs/graph.schema.json`: it is a valid draft 2020-12 schema, every example graph in
//! `graphs/` satisfies it, and broken documents fail it — each of them also refused by the
//! loader (G003), so the editor schema and the tool agree on those shapes.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn graphs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn schema() -> Value {
    read_json(&graphs_dir().join("graph.schema.json"))
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema()).unwrap_or_else(|e| panic!("schema compiles: {e}"))
}

fn example_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(graphs_dir())
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".graph.json"))
        .collect();
    paths.sort();
    paths
}

fn errors(validator: &jsonschema::Validator, document: &Value) -> Vec<String> {
    validator
        .iter_errors(document)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn the_schema_is_valid_draft_2020_12() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        json!("https://json-schema.org/draft/2020-12/schema")
    );
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("graph.schema.json violates the 2020-12 meta-schema: {e}");
    }
}

#[test]
fn every_example_graph_satisfies_the_schema() {
    let validator = validator();
    let paths = example_paths();
    assert!(
        paths.len() >= 6,
        "expected at least six example graphs, found {paths:?}"
    );
    for path in paths {
        let document = read_json(&path);
        assert_eq!(
            document.get("$schema"),
            Some(&json!("graph.schema.json")),
            "{} starts with its $schema",
            path.display()
        );
        let found = errors(&validator, &document);
        assert!(found.is_empty(), "{}: {found:#?}", path.display());
    }
}

fn minimal() -> Value {
    json!({
        "$schema": "graph.schema.json",
        "graph": "tiny",
        "abi": "1.0.0",
        "capabilities": ["done.*"],
        "entry": "end",
        "nodes": [{"id": "end", "primitive": "done.finish_success",
                   "inputs": {"summary": {"const": "ok"}}}]
    })
}

#[test]
fn a_minimal_document_passes() {
    let found = errors(&validator(), &minimal());
    assert!(found.is_empty(), "{found:#?}");
}

/// Broken variants of the minimal document: (what is broken, the document).
fn broken() -> Vec<(&'static str, Value)> {
    let mut cases = Vec::new();
    let mut with = |what: &'static str, edit: &dyn Fn(&mut Value)| {
        let mut doc = minimal();
        edit(&mut doc);
        cases.push((what, doc));
    };
    with("unknown top-level field", &|d| d["owner"] = json!("me"));
    with("graph name with capitals", &|d| d["graph"] = json!("Tiny"));
    with("graph name starting with a dash", &|d| {
        d["graph"] = json!("-tiny")
    });
    with("abi not a version", &|d| d["abi"] = json!("1.0"));
    with("missing nodes", &|d| {
        d.as_object_mut().map(|o| o.remove("nodes"));
    });
    with("empty nodes", &|d| d["nodes"] = json!([]));
    with("node id with a dash", &|d| {
        d["nodes"][0]["id"] = json!("the-end")
    });
    with("node without primitive", &|d| {
        d["nodes"][0].as_object_mut().map(|o| o.remove("primitive"));
    });
    with("unknown node field", &|d| {
        d["nodes"][0]["retries"] = json!(2)
    });
    with("max_visits zero", &|d| {
        d["nodes"][0]["max_visits"] = json!(0)
    });
    with("max_visits not an integer", &|d| {
        d["nodes"][0]["max_visits"] = json!(1.5)
    });
    with("binding with from and const", &|d| {
        d["nodes"][0]["inputs"]["summary"] = json!({"from": "$input", "const": "x"})
    });
    with("binding with neither from nor const", &|d| {
        d["nodes"][0]["inputs"]["summary"] = json!({"at": "/x"})
    });
    with("binding with an unknown field", &|d| {
        d["nodes"][0]["inputs"]["summary"] = json!({"from": "$input", "path": "/x"})
    });
    with("binding pointer without a slash", &|d| {
        d["nodes"][0]["inputs"]["summary"] = json!({"from": "$input", "at": "summary"})
    });
    with("binding pointer with a bad escape", &|d| {
        d["nodes"][0]["inputs"]["summary"] = json!({"from": "$input", "at": "/a~2b"})
    });
    with("branch target not a string", &|d| {
        d["nodes"][0]["branches"] = json!({"ok": 3})
    });
    with("on_error not an object", &|d| {
        d["nodes"][0]["on_error"] = json!(["end"])
    });
    with("empty workspace", &|d| {
        d["nodes"][0]["workspace"] = json!("")
    });
    with("negative max_steps", &|d| {
        d["budget"] = json!({"max_steps": -1})
    });
    with("unknown budget field", &|d| {
        d["budget"] = json!({"max_tokens": 10})
    });
    with("input schema not a schema", &|d| {
        d["input"] = json!("object")
    });
    with("capability not a string", &|d| {
        d["capabilities"] = json!([7])
    });
    with("$schema not a string", &|d| d["$schema"] = json!(1));
    cases
}

#[test]
fn broken_documents_fail_the_schema_and_the_loader() {
    let validator = validator();
    for (what, document) in broken() {
        assert!(
            !validator.is_valid(&document),
            "the schema accepts a document with {what}: {document}"
        );
        assert!(
            primgraph::graph::load(&document).is_err(),
            "the loader accepts a document with {what}: {document}"
        );
    }
}

#[test]
fn the_schema_and_the_loader_agree_on_the_minimal_document() {
    assert!(primgraph::graph::load(&minimal()).is_ok());
}
