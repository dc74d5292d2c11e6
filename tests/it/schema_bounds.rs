//! Adversarial schemas end, with an answer or a located error (issue 10 items 1 and 3, issue 16
//! "bad input"): a `$ref` chain through thousands of `$defs`, enums of 100,000 values, patterns
//! whose automata explode. Each check runs on a thread with a 2 MiB stack (a rayon worker's) and
//! the harness fails the test if it does not return within a generous bound: a hang or a stack
//! overflow fails, a slow machine does not.

use std::sync::mpsc;
use std::time::Duration;

use primgraph::schema::{Checker, Decision, SchemaError, Side};
use serde_json::{Value, json};

/// Run `work` on a 2 MiB thread; fail if it does not return within `limit`.
fn within<T: Send + 'static>(limit: Duration, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let _ = sender.send(work());
        })
        .expect("spawn");
    receiver
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("did not return within {limit:?} (or panicked)"))
}

const GENEROUS: Duration = Duration::from_secs(120);

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .expect("schema compiles")
}

fn chain(length: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for index in 0..length {
        defs.insert(
            format!("d{index}"),
            json!({"$ref": format!("#/$defs/d{}", index + 1)}),
        );
    }
    defs.insert(format!("d{length}"), json!({"type": "string"}));
    json!({"$ref": "#/$defs/d0", "$defs": defs})
}

#[test]
fn a_ref_chain_through_3000_defs_is_refused_as_too_deep_with_its_pointer() {
    for (source, target, side) in [
        (chain(3000), json!({"type": "string"}), Side::Source),
        (json!({"type": "string"}), chain(3000), Side::Target),
    ] {
        let result = within(GENEROUS, move || Checker::new().check(&source, &target));
        match result {
            Err(error @ SchemaError::TooDeep { .. }) => {
                assert_eq!(error.side(), side);
                assert_eq!(error.pointer(), "/$ref");
                let message = error.to_string();
                assert!(message.contains("too deep"), "{message}");
                assert!(!message.contains("TooDeep"), "Debug text: {message}");
            }
            other => panic!("expected a too-deep error, got {other:?}"),
        }
    }
}

#[test]
fn a_ref_chain_within_the_limit_is_decided() {
    let (source, target) = (chain(60), json!({"type": "string"}));
    let decision = within(GENEROUS, move || Checker::new().check(&source, &target));
    assert!(matches!(decision, Ok(Decision::Yes { .. })), "{decision:?}");
    let (source, target) = (json!({"type": "string", "maxLength": 3}), chain(60));
    let decision = within(GENEROUS, move || Checker::new().check(&source, &target));
    assert!(matches!(decision, Ok(Decision::Yes { .. })), "{decision:?}");
    let (source, target) = (json!({"type": "integer"}), chain(60));
    let decision = within(GENEROUS, move || Checker::new().check(&source, &target));
    assert!(matches!(decision, Ok(Decision::No { .. })), "{decision:?}");
}

#[test]
fn nesting_deeper_than_the_limit_is_refused() {
    let mut schema = json!({"type": "string"});
    for _ in 0..500 {
        schema = json!({"type": "object", "properties": {"a": schema}});
    }
    let result = within(GENEROUS, move || {
        Checker::new().check(&schema, &json!({"type": "object"}))
    });
    assert!(
        matches!(result, Err(SchemaError::TooDeep { .. })),
        "{result:?}"
    );
}

#[test]
fn enum_of_100000_against_99999_is_decided_with_the_missing_value() {
    let all: Vec<Value> = (0..100_000).map(|n| json!(format!("v{n}"))).collect();
    let mut fewer = all.clone();
    let missing = fewer.remove(54_321);
    let (source, target) = (json!({"enum": all}), json!({"enum": fewer}));
    let (source_copy, target_copy) = (source.clone(), target.clone());
    let decision = within(GENEROUS, move || {
        Checker::new().check(&source_copy, &target_copy)
    });
    match decision {
        Ok(Decision::No { witness, .. }) => {
            assert_eq!(witness, missing);
            assert!(validator(&source).is_valid(&witness));
            assert!(!validator(&target).is_valid(&witness));
        }
        other => panic!("expected no, got {other:?}"),
    }
    // The other way round every value is there.
    let decision = within(GENEROUS, move || Checker::new().check(&target, &source));
    assert!(matches!(decision, Ok(Decision::Yes { .. })), "{decision:?}");
}

#[test]
fn enum_equality_is_json_schema_equality() {
    // 1.0 equals 1 (JSON Schema compares numbers by value); a hashed lookup must agree.
    let floats: Vec<Value> = (0..100).map(|n| json!(f64::from(n))).collect();
    let integers: Vec<Value> = (0..100).map(|n| json!(n)).collect();
    let decision = Checker::new()
        .check(&json!({"enum": floats}), &json!({"enum": integers}))
        .expect("usable");
    assert!(matches!(decision, Decision::Yes { .. }), "{decision:?}");
    let objects: Vec<Value> = (0..40).map(|n| json!({"a": n, "b": [n, "x"]})).collect();
    let reordered: Vec<Value> = (0..40).map(|n| json!({"b": [n, "x"], "a": n})).collect();
    let decision = Checker::new()
        .check(&json!({"enum": objects}), &json!({"enum": reordered}))
        .expect("usable");
    assert!(matches!(decision, Decision::Yes { .. }), "{decision:?}");
}

#[test]
fn enum_of_100000_against_a_pattern() {
    let values: Vec<Value> = (0..100_000).map(|n| json!(format!("id-{n}"))).collect();
    let mut with_bad = values.clone();
    with_bad.push(json!("ID-1"));
    let target = json!({"type": "string", "pattern": "^id-[0-9]+$"});
    let (source, target_copy) = (json!({"enum": values}), target.clone());
    let decision = within(GENEROUS, move || {
        Checker::new().check(&source, &target_copy)
    });
    assert!(matches!(decision, Ok(Decision::Yes { .. })), "{decision:?}");
    let source = json!({"enum": with_bad});
    let decision = within(GENEROUS, move || Checker::new().check(&source, &target));
    match decision {
        Ok(Decision::No { witness, .. }) => assert_eq!(witness, json!("ID-1")),
        other => panic!("expected no, got {other:?}"),
    }
}

fn unknown_reason(source: Value, target: Value) -> String {
    match within(GENEROUS, move || Checker::new().check(&source, &target)) {
        Ok(Decision::Unknown { reason }) => reason.to_string(),
        other => panic!("expected unknown, got {other:?}"),
    }
}

#[test]
fn pathological_patterns_are_bounded_and_unknown_with_a_reason() {
    // Nested ambiguous repetition: catastrophic for a backtracking matcher.
    let nested = "^((a|aa)*b|(a|aa)*c)*((a|aa)*b)*$";
    let decision = within(GENEROUS, move || {
        Checker::new().check(
            &json!({"type": "string", "pattern": nested}),
            &json!({"type": "string", "pattern": "^[abc]*$"}),
        )
    });
    // Decided (its automaton is small) or unknown with a reason; never a hang.
    assert!(decision.is_ok(), "{decision:?}");

    // 10,000 alternatives: past the pattern-length bound.
    let alternatives: Vec<String> = (0..10_000).map(|n| format!("w{n}")).collect();
    let many = format!("^({})$", alternatives.join("|"));
    let reason = unknown_reason(
        json!({"type": "string", "pattern": many}),
        json!({"type": "string", "pattern": "^w[0-8]+$"}),
    );
    assert!(reason.contains("longer than"), "{reason}");

    // An automaton that would need 2^20 states: past the size bound.
    let exploding = "(a|b)*a(a|b){20}$";
    let reason = unknown_reason(
        json!({"type": "string", "pattern": exploding}),
        json!({"type": "string", "pattern": "^[ab]*$"}),
    );
    assert!(
        reason.contains("bound") && reason.contains("pattern"),
        "{reason}"
    );

    // Look-around and back-references stay unknown, with the construct named.
    let reason = unknown_reason(
        json!({"type": "string", "pattern": "^(?=x)[a-z]+$"}),
        json!({"type": "string", "pattern": "^[a-y]+$"}),
    );
    assert!(reason.contains("look-ahead"), "{reason}");
    let reason = unknown_reason(
        json!({"type": "string", "pattern": "^(a+)\\1$"}),
        json!({"type": "string", "pattern": "^a{2,}$"}),
    );
    assert!(reason.contains("back-reference"), "{reason}");
}

#[test]
fn nesting_and_refs_within_the_limit_are_decided() {
    let mut schema = json!({"type": "string", "pattern": "^a"});
    for _ in 0..60 {
        schema = json!({"type": "object", "required": ["b"],
            "properties": {"a": {"$ref": "#/$defs/x"}, "b": schema}, "$defs": {"x": {"type": "integer"}}});
    }
    let (s, t) = (schema.clone(), json!({"type": "object"}));
    let decision = within(GENEROUS, move || Checker::new().check(&s, &t));
    assert!(matches!(decision, Ok(Decision::Yes { .. })), "{decision:?}");
    let (s, t) = (json!({"type": "object"}), schema.clone());
    let decision = within(GENEROUS, move || Checker::new().check(&s, &t));
    assert!(matches!(decision, Ok(Decision::No { .. })), "{decision:?}");
    let (s, t) = (schema.clone(), schema);
    let decision = within(GENEROUS, move || Checker::new().check(&s, &t));
    assert!(matches!(decision, Ok(Decision::Yes { .. })), "{decision:?}");
}

/// An `anyOf` tree `depth` levels deep, two branches a level, with `leaf` at the bottom.
fn union_tree(depth: usize, leaf: &Value) -> Value {
    if depth == 0 {
        return leaf.clone();
    }
    let branch = union_tree(depth - 1, leaf);
    json!({"anyOf": [branch.clone(), branch]})
}

#[test]
fn wide_and_nested_target_unions_are_bounded() {
    // A discriminated oneOf of 200 branches: each of the source's 16 cases finds its branch
    // and is disjoint from the 199 others.
    let kinds: Vec<String> = (0..200).map(|i| format!("k{i}")).collect();
    let branches: Vec<Value> = kinds
        .iter()
        .map(|kind| json!({"properties": {"kind": {"const": kind}}, "required": ["kind"]}))
        .collect();
    let source = json!({"type": "object", "properties": {"kind": {"enum": kinds[..16]}},
        "required": ["kind"]});
    let target = json!({"oneOf": branches});
    let decision = within(GENEROUS, move || Checker::new().check(&source, &target));
    assert!(matches!(decision, Ok(Decision::Yes { .. })), "{decision:?}");

    // Disjointness from a union tree of 2^12 leaves, and containment in one.
    let tree = union_tree(12, &json!({"type": "number"}));
    let target = json!({"oneOf": [{"type": "string"}, tree.clone()]});
    let decision = within(GENEROUS, move || {
        Checker::new().check(&json!({"type": "string"}), &target)
    });
    assert!(matches!(decision, Ok(Decision::Yes { .. })), "{decision:?}");
    let decision = within(GENEROUS, move || {
        Checker::new().check(&json!({"type": ["integer", "null"]}), &tree)
    });
    match decision {
        Ok(Decision::No { witness, .. }) => assert_eq!(witness, Value::Null),
        other => panic!("expected no with witness null, got {other:?}"),
    }
}

/// A `oneOf` of `width` string branches, each `^v{i}$`, with the branch at `bad` (if any)
/// holding a regular expression that does not compile.
fn patterned_union(width: usize, bad: Option<usize>) -> Value {
    let branches: Vec<Value> = (0..width)
        .map(|i| {
            let pattern = if Some(i) == bad {
                "(unclosed".to_string()
            } else {
                format!("^v{i}$")
            };
            json!({"type": "string", "pattern": pattern})
        })
        .collect();
    json!({ "oneOf": branches })
}

#[test]
fn an_invalid_pattern_is_refused_alike_in_a_small_and_a_wide_schema() {
    // 8 branches are canonicalized whole while prepared; 3,000 have each pattern checked on its
    // own (canonicalizing the whole union would take seconds): the error must not differ.
    for (width, bad) in [(8, 5), (3_000, 2_917)] {
        let result = within(GENEROUS, move || {
            Checker::new().check(&json!({"enum": ["v1"]}), &patterned_union(width, Some(bad)))
        });
        match result {
            Err(SchemaError::NotASchema {
                side,
                pointer,
                message,
            }) => {
                assert_eq!(side, Side::Target);
                assert_eq!(pointer, format!("/oneOf/{bad}/pattern"), "width {width}");
                assert_eq!(message, "invalid regular expression \"(unclosed\"");
            }
            other => panic!("width {width}: expected the invalid pattern refused, got {other:?}"),
        }
    }
}

#[test]
fn a_finite_source_across_a_wide_one_of_of_patterns_is_proven() {
    // No one branch holds the source: each value matches its own branch, and exactly one.
    let source = json!({"enum": (0..100).map(|i| format!("v{}", i * 9)).collect::<Vec<_>>()});
    let decision = within(GENEROUS, move || {
        Checker::new().check(&source, &patterned_union(1_000, None))
    });
    assert!(
        matches!(decision, Ok(Decision::Yes { .. })),
        "got {decision:?}"
    );
    // A value that two branches admit is a witness against `oneOf`.
    let mut target = patterned_union(1_000, None);
    target["oneOf"][1] = json!({"type": "string", "pattern": "^v"});
    let decision = within(GENEROUS, move || {
        Checker::new().check(&json!({"enum": ["v7", "v8"]}), &target)
    });
    match decision {
        Ok(Decision::No { witness, .. }) => assert_eq!(witness, json!("v7")),
        other => panic!("expected a witness, got {other:?}"),
    }
}
