//! Local `$ref`s where graphs meet schemas (issue 10 items 8 and 9): a graph `input` schema
//! rooted in a `$ref` into `$defs` or in `allOf` is walked like the schema it names (no false
//! T305 with witness `null`, no false T309, and `simulate` generates an object), and a registry
//! property whose `$ref` names the primitive schema's root `$defs` resolves against that root.

use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use serde_json::{Value, json};
use std::path::Path;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rules"))
}

fn read(name: &str) -> Value {
    let text = std::fs::read_to_string(fixtures().join(name)).expect("fixture");
    serde_json::from_str(&text).expect("fixture json")
}

fn codes(graph: &Value, registry: &Registry) -> Vec<(String, String)> {
    let bytes = serde_json::to_vec_pretty(graph).expect("serialize");
    let report = check_source("g.graph.json", &bytes, registry, &Options::default());
    report
        .diagnostics
        .iter()
        .map(|d| (d.code.to_string(), d.pointer.clone()))
        .collect()
}

fn test_registry(edit: impl FnOnce(&mut Value)) -> Registry {
    let mut document = read("registry.json");
    edit(&mut document);
    let bytes = serde_json::to_vec(&document).expect("serialize");
    Registry::from_slice(&bytes, "edited test registry").expect("usable registry")
}

fn primitive<'a>(registry: &'a mut Value, id: &str) -> &'a mut Value {
    let list = if registry.get("primitives").is_some() {
        &mut registry["primitives"]
    } else {
        registry
    };
    list.as_array_mut()
        .expect("primitives")
        .iter_mut()
        .find(|p| p["id"] == id)
        .expect("primitive")
}

#[test]
fn an_input_schema_rooted_in_a_ref_or_all_of_is_walked_through() {
    let registry = test_registry(|_| {});
    let mut graph = read("t306_clean.graph.json");
    let plain = codes(&graph, &registry);
    let inner = graph["input"].clone();
    for rooted in [
        json!({"$ref": "#/$defs/Task", "$defs": {"Task": inner}}),
        json!({"allOf": [{"$ref": "#/$defs/Task"}], "$defs": {"Task": inner}}),
        json!({"allOf": [{"type": "object"}, inner]}),
    ] {
        graph["input"] = rooted.clone();
        let found = codes(&graph, &registry);
        assert_eq!(found, plain, "input {rooted}");
        assert!(
            !found
                .iter()
                .any(|(code, _)| code == "T305" || code == "T309"),
            "{found:?}"
        );
    }
}

#[test]
fn a_registry_ref_into_the_root_defs_resolves() {
    let registry = test_registry(|document| {
        let producer = primitive(document, "env.branch_name");
        producer["outputs"]["properties"]["name"] = json!({"$ref": "#/$defs/Name"});
        producer["outputs"]["$defs"] = json!({"Name": {"type": "string", "pattern": "^[a-z]+$"}});
        let consumer = primitive(document, "vcs.create_branch");
        consumer["inputs"]["properties"]["name"] = json!({"$ref": "#/$defs/Branch"});
        consumer["inputs"]["$defs"] =
            json!({"Branch": {"type": "string", "pattern": "^[a-z0-9-]+$"}});
    });
    let graph = read("t306_fires.graph.json");
    let found = codes(&graph, &registry);
    assert!(
        !found
            .iter()
            .any(|(code, pointer)| pointer == "/nodes/2/inputs/name"
                && (code == "T305" || code == "T306")),
        "{found:?}"
    );
    // And an incompatible pair behind references is a T305, not a T306.
    let registry = test_registry(|document| {
        let producer = primitive(document, "env.branch_name");
        producer["outputs"]["properties"]["name"] = json!({"$ref": "#/$defs/Name"});
        producer["outputs"]["$defs"] = json!({"Name": {"type": "string", "pattern": "^[A-Z]+$"}});
        let consumer = primitive(document, "vcs.create_branch");
        consumer["inputs"]["properties"]["name"] = json!({"$ref": "#/$defs/Branch"});
        consumer["inputs"]["$defs"] =
            json!({"Branch": {"type": "string", "pattern": "^[a-z0-9-]+$"}});
    });
    let found = codes(&graph, &registry);
    assert!(
        found
            .iter()
            .any(|(code, pointer)| pointer == "/nodes/2/inputs/name" && code == "T305"),
        "{found:?}"
    );
}

#[test]
fn generated_inputs_follow_refs_and_all_of() {
    use primgraph::replay::schema_gen::random_instance;
    use primgraph::rng::Rng;
    let inner = json!({"type": "object", "properties": {"issue": {"type": "string", "minLength": 1}}, "required": ["issue"]});
    for schema in [
        json!({"$ref": "#/$defs/Task", "$defs": {"Task": inner}}),
        json!({"allOf": [{"$ref": "#/$defs/Task"}, {"properties": {"n": {"type": "integer"}}}], "$defs": {"Task": inner}}),
    ] {
        let validator = jsonschema::validator_for(&schema).expect("compiles");
        for seed in 0..20 {
            let value = random_instance(&schema, &mut Rng::new(seed));
            assert!(value.is_object(), "{value}");
            assert!(
                validator.is_valid(&value),
                "{schema} does not admit {value}"
            );
        }
    }
}
