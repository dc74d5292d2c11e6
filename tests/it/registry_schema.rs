//! `registry/registry.schema.json` describes a registry file: it compiles, accepts the test
//! registry (and, in `registry_builtin.rs`, the frozen file), and rejects malformed entries.

use serde_json::Value;

fn schema() -> jsonschema::Validator {
    let text = include_str!("../../registry/registry.schema.json");
    let schema: Value = serde_json::from_str(text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

#[test]
fn the_schema_accepts_the_test_registry() {
    let v = schema();
    let registry: Value =
        serde_json::from_str(include_str!("../fixtures/registry/valid.json")).expect("json");
    let errors: Vec<String> = v
        .iter_errors(&registry)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn the_schema_rejects_malformed_entries() {
    let v = schema();
    let registry: Value =
        serde_json::from_str(include_str!("../fixtures/registry/valid.json")).expect("json");
    let mutations: &[(&str, Value)] = &[
        ("/primitives/0/id", Value::from("Obs.List")),
        ("/primitives/0/alias", Value::from("list_files")),
        ("/primitives/0/class", Value::from("oracle")),
        (
            "/primitives/0/inputs",
            serde_json::json!({"type": "string"}),
        ),
        ("/primitives/0/effects", serde_json::json!(["teleports"])),
    ];
    for (pointer, value) in mutations {
        let mut r = registry.clone();
        *r.pointer_mut(pointer).expect("pointer exists") = value.clone();
        assert!(!v.is_valid(&r), "accepted {pointer} = {value}");
    }
}
