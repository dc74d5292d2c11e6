//! Factoring a contract's schemas into `$defs` + `$ref` (an ordinary refactor) changes no
//! diagnostic: the policy annotations (`x-authority`, `x-sink`, `x-trust`) are read through
//! local `$ref`s, `allOf` and nesting by the one annotation walk. Before it existed, a grant
//! schema or a command schema moved into `$defs` switched A403 and A405 off (issue 21, item 1).
//!
//! The oracle is the same validator on the inline registry: every fixture graph of
//! `tests/fixtures/rules/` (one firing and one clean graph per code) validated against the test
//! registry and against a randomly rewritten copy of it gives the same diagnostics.

use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rules");

fn registry_value() -> Value {
    let text = std::fs::read_to_string(Path::new(FIXTURES).join("registry.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn fixture_graphs() -> Vec<(String, Vec<u8>)> {
    let mut graphs: Vec<(String, Vec<u8>)> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".graph.json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    graphs.sort();
    graphs
}

/// How one property schema is rewritten.
#[derive(Debug, Clone, Copy)]
enum Rewrite {
    Inline,
    /// `{"$ref": "#/$defs/dN"}`
    Ref,
    /// `{"$ref": "#/$defs/dN"}` whose target is itself `{"$ref": "#/$defs/dM"}`
    RefChain,
    /// `{"allOf": [{"$ref": "#/$defs/dN"}]}`
    AllOfRef,
}

fn rewrite_strategy() -> impl Strategy<Value = Rewrite> {
    prop_oneof![
        Just(Rewrite::Inline),
        Just(Rewrite::Ref),
        Just(Rewrite::RefChain),
        Just(Rewrite::AllOfRef),
    ]
}

/// Rewrites every property schema below `schema` (depth first) into `defs`, choosing the
/// form from `choices` in turn.
fn factor(
    schema: &mut Value,
    defs: &mut Map<String, Value>,
    choices: &[Rewrite],
    next: &mut usize,
) {
    let Value::Object(object) = schema else {
        return;
    };
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for sub in properties.values_mut() {
            factor(sub, defs, choices, next);
            let choice = choices[*next % choices.len()];
            *next += 1;
            fn name(defs: &mut Map<String, Value>) -> String {
                let name = format!("d{}", defs.len());
                defs.insert(name.clone(), Value::Null);
                name
            }
            let moved = std::mem::replace(sub, Value::Null);
            *sub = match choice {
                Rewrite::Inline => moved,
                Rewrite::Ref => {
                    let n = name(defs);
                    defs.insert(n.clone(), moved);
                    json!({"$ref": format!("#/$defs/{n}")})
                }
                Rewrite::RefChain => {
                    let inner = name(defs);
                    defs.insert(inner.clone(), moved);
                    let outer = name(defs);
                    defs.insert(outer.clone(), json!({"$ref": format!("#/$defs/{inner}")}));
                    json!({"$ref": format!("#/$defs/{outer}")})
                }
                Rewrite::AllOfRef => {
                    let n = name(defs);
                    defs.insert(n.clone(), moved);
                    json!({"allOf": [{"$ref": format!("#/$defs/{n}")}]})
                }
            };
        }
    }
    if let Some(items) = object.get_mut("items") {
        factor(items, defs, choices, next);
    }
}

fn rewritten(registry: &Value, choices: &[Rewrite]) -> Value {
    let mut registry = registry.clone();
    let mut next = 0;
    for primitive in registry["primitives"].as_array_mut().unwrap() {
        for half in ["inputs", "outputs"] {
            let schema = &mut primitive[half];
            let mut defs = Map::new();
            factor(schema, &mut defs, choices, &mut next);
            if !defs.is_empty() {
                schema["$defs"] = Value::Object(defs);
            }
        }
    }
    registry
}

/// A message with the schema-internal places of a keyword (`source at #…`, `target at #…`)
/// blanked: the rewrite moves every keyword into `$defs` by construction, so where it sits is
/// the one thing that must differ.
fn without_schema_places(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(" at #") {
        out.push_str(&rest[..i]);
        out.push_str(" at #…");
        let tail = &rest[i + 5..];
        let end = tail.find([',', ')', ' ']).unwrap_or(tail.len());
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// What a diagnostic says: code, pointer, message (schema places blanked), witness, related.
fn diagnostics(registry: &Registry, name: &str, bytes: &[u8]) -> Vec<Value> {
    let report = check_source(name, bytes, registry, &Options::default());
    report
        .diagnostics
        .iter()
        .map(|d| {
            json!({"code": d.code, "pointer": d.pointer, "message": without_schema_places(&d.message),
                   "witness": d.witness, "related": d.related.iter().map(|r| &r.pointer).collect::<Vec<_>>()})
        })
        .collect()
}

#[test]
fn grant_and_sink_schemas_in_defs_still_fire_a403_and_a405() {
    // The regression of item 1: every property schema moved into `$defs`.
    let inline = registry_value();
    let factored = rewritten(&inline, &[Rewrite::Ref]);
    let inline = Registry::from_slice(inline.to_string().as_bytes(), "inline").unwrap();
    let factored = Registry::from_slice(factored.to_string().as_bytes(), "factored").unwrap();
    for code in ["a403", "a405"] {
        let name = format!("{code}_fires.graph.json");
        let bytes = std::fs::read(Path::new(FIXTURES).join(&name)).unwrap();
        let expected = diagnostics(&inline, &name, &bytes);
        assert!(
            expected
                .iter()
                .any(|d| d["code"] == code.to_uppercase().as_str()),
            "{name} fires {code} inline"
        );
        assert_eq!(diagnostics(&factored, &name, &bytes), expected, "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn factoring_schemas_into_defs_changes_no_diagnostic(
        choices in proptest::collection::vec(rewrite_strategy(), 1..7)
    ) {
        let inline_value = registry_value();
        let inline = Registry::from_slice(inline_value.to_string().as_bytes(), "inline").unwrap();
        let factored = rewritten(&inline_value, &choices);
        let factored = Registry::from_slice(factored.to_string().as_bytes(), "factored").unwrap();
        for (name, bytes) in fixture_graphs() {
            prop_assert_eq!(
                diagnostics(&factored, &name, &bytes),
                diagnostics(&inline, &name, &bytes),
                "{}", name
            );
        }
    }
}
