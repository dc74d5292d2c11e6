//! Properties of validation on generated graphs (`primgraph::graph::generate`): graphs valid by
//! construction have no errors; a single targeted mutation produces exactly the expected error
//! code; arbitrary bytes never panic `check_source`; reports are identical across runs and
//! thread counts.

use primgraph::diagnostic::Severity;
use primgraph::graph::generate::generate;
use primgraph::registry::{Authority, Registry};
use primgraph::validate::{Options, check_source, try_check_paths};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn registry() -> &'static Registry {
    Registry::builtin()
}

fn graph(nodes: usize, seed: u64) -> Value {
    generate(nodes, seed, registry()).unwrap_or_else(|e| panic!("{e}"))
}

fn error_codes(doc: &Value) -> BTreeSet<&'static str> {
    let bytes = serde_json::to_vec_pretty(doc).unwrap_or_default();
    check_source("p.graph.json", &bytes, registry(), &Options::default())
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code.as_static().expect("a table code"))
        .collect()
}

fn prim_of(node: &Value) -> Option<&'static primgraph::registry::Primitive> {
    node["primitive"]
        .as_str()
        .and_then(|p| registry().lookup(p))
}

fn nodes_mut(doc: &mut Value) -> &mut Vec<Value> {
    match doc.get_mut("nodes").and_then(Value::as_array_mut) {
        Some(nodes) => nodes,
        None => panic!("a generated graph has nodes"),
    }
}

fn has_x(schema: &Value, key: &str) -> bool {
    schema
        .get(key)
        .is_some_and(|v| v == &json!(true) || v.is_string())
}

/// Gate's grant edge and a non-grant edge swapped: the change is entered only by a non-grant
/// edge of its gate (which still dominates it).
fn remove_grant_edge(doc: &mut Value) -> bool {
    for node in nodes_mut(doc).iter_mut() {
        let Some(prim) = prim_of(node) else { continue };
        if prim.authority != Authority::Authorize || prim.grants.len() != 1 {
            continue;
        }
        let grant = prim.grants[0].clone();
        let Some(other) = prim
            .outcomes
            .iter()
            .flatten()
            .find(|o| **o != grant)
            .cloned()
        else {
            continue;
        };
        let branches = &mut node["branches"];
        if let (Some(g), Some(o)) = (branches.get(&grant).cloned(), branches.get(&other).cloned()) {
            if g == o {
                continue;
            }
            branches[&grant] = o;
            branches[&other] = g;
            return true;
        }
    }
    false
}

/// A self-loop on an unbounded node through a declared failure mode it does not handle yet.
fn add_unbounded_cycle(doc: &mut Value) -> bool {
    for node in nodes_mut(doc).iter_mut() {
        let Some(prim) = prim_of(node) else { continue };
        if node.get("max_visits").is_some() || node.get("next").is_none() {
            continue;
        }
        let handled: BTreeSet<String> = node
            .get("on_error")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        if let Some(mode) = prim.failure_modes.iter().find(|m| !handled.contains(*m)) {
            let id = node["id"].clone();
            if node.get("on_error").is_none() {
                node["on_error"] = json!({});
            }
            node["on_error"][mode] = id;
            return true;
        }
    }
    false
}

/// The first `from` binding (in document order) for whose target input schema `schema_for`
/// gives a schema, re-pointed to a new required `$input` property `name` of that schema.
fn rebind_to_new_input(
    doc: &mut Value,
    name: &str,
    schema_for: impl Fn(&Value) -> Option<Value>,
) -> bool {
    let mut found = None;
    for node in nodes_mut(doc).iter_mut() {
        let Some(prim) = prim_of(node) else { continue };
        let Some(inputs) = node.get_mut("inputs").and_then(Value::as_object_mut) else {
            continue;
        };
        for (property, binding) in inputs.iter_mut() {
            if binding.get("from").is_none() {
                continue;
            }
            if let Some(schema) = schema_for(&prim.inputs["properties"][property]) {
                *binding = json!({"from": "$input", "at": format!("/{name}")});
                found = Some(schema);
                break;
            }
        }
        if found.is_some() {
            break;
        }
    }
    let Some(schema) = found else { return false };
    doc["input"]["properties"][name] = schema;
    if let Some(required) = doc["input"]["required"].as_array_mut() {
        required.push(json!(name));
    }
    true
}

/// A `from` binding re-pointed to a new `$input` property of an incompatible type.
fn break_binding_type(doc: &mut Value) -> bool {
    rebind_to_new_input(doc, "broken_value", |target| {
        if has_x(target, "x-authority") {
            return None;
        }
        match target["type"].as_str() {
            Some("string") => Some(json!({"type": "integer"})),
            Some(_) => Some(json!({"type": "string"})),
            None => None,
        }
    })
}

/// A required, non-authority input's binding removed.
fn drop_required_input(doc: &mut Value) -> bool {
    for node in nodes_mut(doc).iter_mut() {
        let Some(prim) = prim_of(node) else { continue };
        let required: Vec<String> = prim.inputs["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let Some(inputs) = node.get_mut("inputs").and_then(Value::as_object_mut) else {
            continue;
        };
        if let Some(property) = required.iter().find(|p| {
            inputs.contains_key(*p) && !has_x(&prim.inputs["properties"][p.as_str()], "x-authority")
        }) {
            inputs.remove(property);
            return true;
        }
    }
    false
}

/// A sink input bound to a new `$input` property marked untrusted.
fn untrusted_into_sink(doc: &mut Value) -> bool {
    rebind_to_new_input(doc, "untrusted_text", |target| {
        if !has_x(target, "x-sink") {
            return None;
        }
        let mut schema = target.clone();
        if let Some(o) = schema.as_object_mut() {
            o.retain(|k, _| !k.starts_with("x-"));
            o.insert("x-trust".into(), json!("untrusted"));
        }
        Some(schema)
    })
}

/// A change's verifier bypassed: its `next` goes to a new terminal (the verifier stays
/// reachable through the change's `on_error` edge).
fn bypass_verifier(doc: &mut Value) -> bool {
    let nodes = nodes_mut(doc);
    let ids: Vec<Value> = nodes.iter().map(|n| n["id"].clone()).collect();
    let position = nodes.iter().position(|node| {
        prim_of(node).is_some_and(|p| p.requires_verifier)
            && node.get("next").is_some()
            && node
                .get("on_error")
                .and_then(Value::as_object)
                .is_some_and(|m| m.values().any(|t| Some(t) == node.get("next")))
    });
    let Some(i) = position else { return false };
    if ids.contains(&json!("bypass_end")) {
        return false;
    }
    nodes[i]["next"] = json!("bypass_end");
    nodes.push(json!({"id": "bypass_end", "primitive": "done.finish_success"}));
    true
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn generated_graphs_validate_without_errors(nodes in 2usize..120, seed in any::<u64>()) {
        let doc = graph(nodes, seed);
        prop_assert_eq!(error_codes(&doc), BTreeSet::new());
    }

}

/// Each mutation gives exactly its code, and each one really applied in some case (a mutation
/// that never finds its spot would make this test vacuous).
#[test]
fn each_mutation_gives_exactly_its_code() {
    use proptest::test_runner::{Config, TestRunner};
    use std::cell::RefCell;
    type Mutation = fn(&mut Value) -> bool;
    let mutations: [(&str, Mutation); 6] = [
        ("A402", remove_grant_edge),
        ("S205", add_unbounded_cycle),
        ("T305", break_binding_type),
        ("T302", drop_required_input),
        ("A405", untrusted_into_sink),
        ("A407", bypass_verifier),
    ];
    let applied = RefCell::new([0usize; 6]);
    // Seven validations per case: few cases keep the debug test run short.
    let mut runner = TestRunner::new(Config {
        cases: 16,
        ..Config::default()
    });
    runner
        .run(&(30usize..90, any::<u64>()), |(nodes, seed)| {
            let base = graph(nodes, seed);
            for (k, (code, mutate)) in mutations.iter().enumerate() {
                let mut doc = base.clone();
                if mutate(&mut doc) {
                    applied.borrow_mut()[k] += 1;
                    let codes = error_codes(&doc);
                    prop_assert_eq!(codes, BTreeSet::from([*code]), "mutation for {}", code);
                }
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    for (k, (code, _)) in mutations.iter().enumerate() {
        assert!(applied.borrow()[k] > 0, "the {code} mutation never applied");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let report = check_source("x.graph.json", &bytes, registry(), &Options::default());
        for d in &report.diagnostics {
            prop_assert!(d.line >= 1 && d.column >= 1);
        }
    }

    #[test]
    fn damaged_graphs_never_panic(seed in any::<u64>(), cut in 0usize..4000) {
        let text = serde_json::to_string_pretty(&graph(20, seed)).unwrap_or_default();
        let end = cut.min(text.len());
        let report = check_source("x.graph.json", &text.as_bytes()[..end], registry(), &Options::default());
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
        if end < text.len() {
            // Every proper prefix of a JSON object is unfinished JSON: exactly one G001.
            prop_assert_eq!(codes, vec!["G001"], "cut at {} of {}", end, text.len());
        } else {
            prop_assert!(!codes.contains(&"G001"));
        }
    }
}

#[test]
fn reports_are_identical_across_runs_and_thread_counts() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut paths = Vec::new();
    for seed in 0..24u64 {
        let mut doc = graph(20 + (seed as usize * 7) % 80, seed);
        // Half of them with findings, so the comparison covers diagnostics too.
        if seed % 2 == 1 {
            let _ = remove_grant_edge(&mut doc) || drop_required_input(&mut doc);
        }
        let path = dir.path().join(format!("g{seed:02}.graph.json"));
        std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}"));
        paths.push(path);
    }
    let render = |jobs| {
        let reports = try_check_paths(&paths, registry(), &Options::default(), jobs)
            .unwrap_or_else(|e| panic!("{e}"));
        primgraph::diagnostic::json::render(&reports)
    };
    let one = render(1);
    assert!(one.contains("\"code\""), "some graphs have findings");
    assert_eq!(one, render(4));
    assert_eq!(one, render(1));
}
