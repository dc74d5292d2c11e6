//! Parsing and loading: every G001 cause has a clear, located message; G002 names the first
//! occurrence; the loader reports every shape error (G003) at its own pointer, allows `$schema`,
//! and accepts exactly the two binding forms.

use primgraph::diagnostic::FileReport;
use primgraph::graph::{Binding, Source, load};
use primgraph::json::Limits;
use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use serde_json::json;

fn registry() -> Registry {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/rules/registry.json"
    );
    Registry::from_path(std::path::Path::new(path)).unwrap_or_else(|e| panic!("{e}"))
}

fn check(bytes: &[u8]) -> FileReport {
    check_source("t.graph.json", bytes, &registry(), &Options::default())
}

fn codes(report: &FileReport) -> Vec<(&'static str, String, u32)> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.code.as_static().expect("a table code"),
                d.pointer.clone(),
                d.line,
            )
        })
        .collect()
}

#[test]
fn every_unparsable_input_is_one_located_g001() {
    let deep = "[".repeat(200) + &"]".repeat(200);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"".to_vec(), "empty"),
        (b"\xEF\xBB\xBF{}".to_vec(), "byte-order mark"),
        (b"{\"graph\": \"\xFF\"}".to_vec(), "UTF-8"),
        (deep.into_bytes(), "nests deeper"),
        (b"{\n  \"graph\": tru\n}".to_vec(), "invalid JSON"),
    ];
    for (bytes, needle) in cases {
        let report = check(&bytes);
        assert_eq!(
            report.diagnostics.len(),
            1,
            "{needle}: {:?}",
            report.diagnostics
        );
        let d = &report.diagnostics[0];
        assert_eq!(d.code, "G001");
        assert!(d.message.contains(needle), "{needle}: {}", d.message);
        assert!(d.line >= 1 && d.column >= 1, "{needle}: unlocated");
    }
    let small = Options {
        limits: Limits {
            max_bytes: 8,
            ..Limits::default()
        },
        ..Options::default()
    };
    let report = check_source("t.graph.json", b"{\"graph\": 1}", &registry(), &small);
    assert_eq!(report.diagnostics[0].code, "G001");
    assert!(report.diagnostics[0].message.contains("over the limit"));
    let syntax = check(b"{\n  \"graph\": tru\n}");
    assert_eq!(syntax.diagnostics[0].line, 2);
}

#[test]
fn duplicate_keys_point_at_the_second_and_relate_the_first() {
    let report = check(b"{\n  \"graph\": \"a\",\n  \"graph\": \"b\"\n}");
    let d = &report.diagnostics[0];
    assert_eq!((d.code.as_str(), d.line), ("G002", 3));
    assert_eq!(d.related[0].line, Some(2));
    assert!(d.message.contains("`graph`"));
}

#[test]
fn the_loader_reports_every_shape_error_with_its_pointer() {
    let doc = json!({
        "$schema": "x", "graph": "Bad Name", "abi": "1.0", "capabilities": "obs.*",
        "budget": {"max_steps": -1, "max_spend": 3}, "entry": 7,
        "nodes": [
            {"id": "ok", "primitive": "done.finish_success"},
            {"id": "Bad", "primitive": 3, "nexxt": "ok", "max_visits": 0,
             "branches": {"a": 1},
             "inputs": {"p": {"from": "ok", "const": 1}, "q": {}, "r": {"from": "ok", "at": "x"},
                        "s": {"const": 1, "at": "/a"}, "t": "ok"}},
            []
        ],
        "extra": true
    });
    let errors = load(&doc).expect_err("shape errors");
    let pointers: Vec<&str> = errors.iter().map(|e| e.pointer.as_str()).collect();
    for expected in [
        "/graph",
        "/abi",
        "/capabilities",
        "/budget/max_steps",
        "/budget/max_spend",
        "/entry",
        "/nodes/1/id",
        "/nodes/1/primitive",
        "/nodes/1/nexxt",
        "/nodes/1/max_visits",
        "/nodes/1/branches/a",
        "/nodes/1/inputs/p",
        "/nodes/1/inputs/q",
        "/nodes/1/inputs/r/at",
        "/nodes/1/inputs/s/at",
        "/nodes/1/inputs/t",
        "/nodes/2",
        "/extra",
    ] {
        assert!(
            pointers.contains(&expected),
            "no error at {expected}: {pointers:?}"
        );
    }
    assert!(!pointers.contains(&"/$schema"));
    let nexxt = errors
        .iter()
        .find(|e| e.pointer == "/nodes/1/nexxt")
        .map(|e| e.message.clone());
    assert!(nexxt.unwrap_or_default().contains("did you mean `next`?"));
}

#[test]
fn missing_required_fields_are_reported_at_their_object() {
    let errors = load(&json!({"nodes": [{}]})).expect_err("shape errors");
    let messages: Vec<String> = errors
        .iter()
        .map(|e| format!("{} {}", e.pointer, e.message))
        .collect();
    for field in ["graph", "abi", "entry"] {
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with(' ') && m.contains(&format!("`{field}`"))),
            "{field}: {messages:?}"
        );
    }
    for field in ["id", "primitive"] {
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("/nodes/0 ") && m.contains(&format!("`{field}`"))),
            "{field}: {messages:?}"
        );
    }
}

#[test]
fn both_binding_forms_load() {
    let doc = json!({"graph": "g", "abi": "1.0.0", "capabilities": [], "entry": "a",
        "nodes": [{"id": "a", "primitive": "done.finish_success", "workspace": "w", "max_visits": 2,
            "inputs": {"x": {"from": "$input", "at": "/a~1b"}, "y": {"const": {"k": [1]}}, "z": {"from": "a"}}}]});
    let loaded = load(&doc).unwrap_or_else(|e| panic!("{e:?}"));
    let node = &loaded.nodes[0];
    assert_eq!(node.workspace(), "w");
    assert_eq!(node.max_visits, Some(2));
    assert_eq!(
        node.inputs["x"],
        Binding::From {
            from: Source::Input,
            at: Some("/a~1b".into())
        }
    );
    assert_eq!(
        node.inputs["y"],
        Binding::Const {
            value: json!({"k": [1]})
        }
    );
    assert_eq!(
        node.inputs["z"],
        Binding::From {
            from: Source::Node("a".into()),
            at: None
        }
    );
}

#[test]
fn shape_errors_are_located_in_the_source() {
    let text = b"{\n  \"graph\": \"g\",\n  \"abi\": \"1.0.0\",\n  \"capabilities\": [],\n  \"entry\": \"a\",\n  \"nodes\": [\n    {\"id\": \"a\", \"primitive\": \"done.finish_success\", \"max_visits\": 0}\n  ]\n}\n";
    let report = check(text);
    assert_eq!(
        codes(&report),
        vec![("G003", "/nodes/0/max_visits".to_string(), 7)]
    );
    assert_eq!(report.graph.as_deref(), Some("g"));
}

/// Issue 10 item 21, decided as `graphs/graph.schema.json` (JSON Schema) reads the document:
/// semver forbids leading zeros, so `abi: "01.0.0"` is G003; `integer` is any number with a zero
/// fraction, so `max_visits: 3.0` is 3 (and `3.5` is still G003).
#[test]
fn abi_is_strict_semver_and_max_visits_is_a_json_schema_integer() {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/rules/a402_clean.graph.json"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(codes(&check(base.as_bytes())).is_empty());
    let edited = |from: &str, to: &str| {
        assert!(base.contains(from), "{from}");
        check(base.replacen(from, to, 1).as_bytes())
    };
    for abi in ["01.0.0", "1.00.0", "1.0.00"] {
        let report = edited(r#""abi": "1.0.0""#, &format!(r#""abi": "{abi}""#));
        assert_eq!(
            codes(&report)
                .iter()
                .map(|(c, p, _)| (*c, p.as_str()))
                .collect::<Vec<_>>(),
            vec![("G003", "/abi")],
            "{abi}"
        );
    }
    let report = edited(r#""max_visits": 3"#, r#""max_visits": 3.0"#);
    assert!(codes(&report).is_empty(), "{:?}", codes(&report));
    let report = edited(r#""max_visits": 3"#, r#""max_visits": 3.5"#);
    assert_eq!(codes(&report)[0].0, "G003");
    assert!(codes(&report)[0].1.ends_with("/max_visits"));
    // `budget.max_steps` reads the same way (it refused `100.0`, which the editor schema's
    // `"type": "integer"` admits).
    for (steps, clean) in [("100.0", true), ("1e2", true), ("2.5", false)] {
        let report = edited(r#""max_steps": 100"#, &format!(r#""max_steps": {steps}"#));
        if clean {
            assert!(codes(&report).is_empty(), "{steps}: {:?}", codes(&report));
        } else {
            assert_eq!(
                codes(&report)
                    .iter()
                    .map(|(c, p, _)| (*c, p.as_str()))
                    .collect::<Vec<_>>(),
                vec![("G003", "/budget/max_steps")],
                "{steps}"
            );
        }
    }
}

proptest::proptest! {
    /// The loaded document's small maps (inputs, branches, error routes) behave as the
    /// `BTreeMap`s they replace: the same entries in the same (name) order after any inserts.
    #[test]
    fn small_map_agrees_with_btree_map(
        inserts in proptest::collection::vec(("[a-d]{0,2}", 0u8..8), 0..24)
    ) {
        let mut small = primgraph::graph::SmallMap::new();
        let mut btree = std::collections::BTreeMap::new();
        for (key, value) in &inserts {
            proptest::prop_assert_eq!(small.insert(key.clone(), *value), btree.insert(key.clone(), *value));
        }
        proptest::prop_assert_eq!(small.len(), btree.len());
        proptest::prop_assert!(small.iter().eq(btree.iter()));
        for key in ["", "a", "ab", "dd", "zz"] {
            proptest::prop_assert_eq!(small.get(key), btree.get(key));
            proptest::prop_assert_eq!(small.contains_key(key), btree.contains_key(key));
        }
        let collected: primgraph::graph::SmallMap<u8> = inserts.iter().cloned().collect();
        let collected_btree: std::collections::BTreeMap<String, u8> = inserts.into_iter().collect();
        proptest::prop_assert!(collected.iter().eq(collected_btree.iter()));
    }
}
