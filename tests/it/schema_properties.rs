//! Property tests of the compatibility checker against the `jsonschema` crate as oracle:
//! a `Yes` never meets a source instance the target rejects, a `No` witness is admitted by the
//! source and rejected by the target, and every schema is compatible with itself; a finite
//! source against a union is decided exactly as the validator decides it.

use primgraph::schema::{Checker, CompatVerdict, instance};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .unwrap_or_else(|e| panic!("generated schema does not compile: {e}: {schema}"))
}

fn type_name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "null", "boolean", "integer", "number", "string", "array", "object",
    ])
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-6i64..12).prop_map(Value::from),
        prop::sample::select(vec![0.5f64, -1.5, 2.25]).prop_map(Value::from),
        prop::sample::select(vec!["", "a", "ab", "abc", "xyz1", "b9", "ca", "\n"])
            .prop_map(Value::from),
    ]
}

/// Schemas without subschemas: types, bounds, lengths, enums, consts, booleans.
fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        Just(json!({})),
        type_name().prop_map(|t| json!({ "type": t })),
        (type_name(), type_name())
            .prop_filter("distinct types", |(a, b)| a != b)
            .prop_map(|(a, b)| json!({ "type": [a, b] })),
        (
            prop::sample::select(vec!["integer", "number"]),
            prop::option::of(-5i64..5),
            prop::option::of(0i64..10),
            prop::option::of(prop::sample::select(vec![1i64, 2, 3, 4, 6])),
            any::<bool>(),
        )
            .prop_map(|(ty, min, max, multiple, exclusive)| {
                let mut schema = json!({ "type": ty });
                let min_key = if exclusive {
                    "exclusiveMinimum"
                } else {
                    "minimum"
                };
                if let Some(min) = min {
                    schema[min_key] = json!(min);
                }
                if let Some(max) = max {
                    schema["maximum"] = json!(max);
                }
                if let Some(multiple) = multiple {
                    schema["multipleOf"] = json!(multiple);
                }
                schema
            }),
        (prop::option::of(0u64..4), prop::option::of(0u64..5)).prop_map(|(min, max)| {
            let mut schema = json!({ "type": "string" });
            if let Some(min) = min {
                schema["minLength"] = json!(min);
            }
            if let Some(max) = max {
                schema["maxLength"] = json!(max);
            }
            schema
        }),
        prop::collection::vec(scalar(), 1..4).prop_map(|values| json!({ "enum": values })),
        scalar().prop_map(|value| json!({ "const": value })),
        // Patterns (decided by automata), over the alphabet the instances use.
        prop::sample::select(vec![
            "^a", "^a+$", "b", "^[a-c]+$", "^[a-z]*[0-9]$", "c$", "^(ab|xyz)", "^.{2}$", "\\d",
            "^(?=a)", "^[^b]*$",
        ])
        .prop_map(|pattern| json!({"type": "string", "pattern": pattern})),
        prop::sample::select(vec!["^a", "^[a-c]$", "z"])
            .prop_map(|pattern| json!({"type": "object", "propertyNames": {"pattern": pattern}})),
        (prop::sample::select(vec!["^a", "^[a-c]$", "z"]), type_name()).prop_map(
            |(pattern, ty)| json!({"type": "object", "patternProperties": {pattern: {"type": ty}}})
        ),
    ]
}

/// Schemas over the covered keywords: plain ones, and ones whose body refers (through `$ref`) to
/// a definition of the document, possibly recursive.
fn schema() -> impl Strategy<Value = Value> {
    let recursive_definition = prop_oneof![
        leaf_schema(),
        Just(
            json!({"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/d"}}})
        ),
        Just(json!({"type": ["array", "integer"], "items": {"$ref": "#/$defs/d"}, "maxItems": 2})),
    ];
    prop_oneof![
        2 => body(leaf_schema().boxed()),
        1 => (
            body(prop_oneof![leaf_schema(), Just(json!({"$ref": "#/$defs/d"}))].boxed()),
            recursive_definition,
        )
            .prop_map(|(body, definition)| json!({
                "$defs": { "d": definition },
                "allOf": [body],
                "description": "annotated"
            })),
    ]
}

fn body(leaf: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    leaf.prop_recursive(3, 24, 3, |inner| {
        let names = prop::sample::select(vec!["a", "b", "c"]);
        prop_oneof![
            (
                prop::collection::btree_map(names.clone(), inner.clone(), 0..3),
                prop::collection::btree_set(names, 0..3),
                prop::option::of(prop_oneof![
                    any::<bool>().prop_map(Value::Bool),
                    inner.clone()
                ]),
            )
                .prop_map(|(properties, required, additional)| {
                    let mut schema = json!({ "type": "object", "properties": properties });
                    schema["required"] = json!(required);
                    if let Some(additional) = additional {
                        schema["additionalProperties"] = additional;
                    }
                    schema
                }),
            (
                prop::option::of(inner.clone()),
                prop::collection::vec(inner.clone(), 0..2),
                prop::option::of(0u64..3),
                prop::option::of(1u64..4),
            )
                .prop_map(|(items, prefix, min, max)| {
                    let mut schema = json!({ "type": "array" });
                    if let Some(items) = items {
                        schema["items"] = items;
                    }
                    if !prefix.is_empty() {
                        schema["prefixItems"] = json!(prefix);
                    }
                    if let Some(min) = min {
                        schema["minItems"] = json!(min);
                    }
                    if let Some(max) = max {
                        schema["maxItems"] = json!(max);
                    }
                    schema
                }),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({ "anyOf": b })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({ "allOf": b })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({ "oneOf": b })),
            inner.prop_map(|s| json!({ "not": s })),
        ]
    })
}

/// Arbitrary JSON values, small.
fn json_value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["a".to_string(), "b".into(), "c".into(), "z".into()]),
                inner,
                0..3
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn plain() -> BoxedStrategy<Value> {
    body(leaf_schema().boxed()).boxed()
}

fn recursive_definition() -> BoxedStrategy<Value> {
    prop_oneof![
        leaf_schema(),
        Just(json!({"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/d"}}})),
        Just(json!({"type": ["array", "integer"], "items": {"$ref": "#/$defs/d"}, "maxItems": 2})),
    ]
    .boxed()
}

fn referring_body() -> BoxedStrategy<Value> {
    body(prop_oneof![leaf_schema(), Just(json!({"$ref": "#/$defs/d"}))].boxed()).boxed()
}

/// `{"oneOf": branches}` or `{"anyOf": branches}`.
fn union(exclusive: bool, branches: Vec<Value>) -> Value {
    let keyword = if exclusive { "oneOf" } else { "anyOf" };
    json!({ keyword: branches })
}

/// A non-union source against a target union whose branches are told apart by a discriminating
/// keyword — the `const` of a member, the `type`, a `required` name — so that deciding it takes
/// the checker's case split. Member names and values are among those of [`json_value`], so
/// random instances hit the branches too.
fn discriminated_pair() -> BoxedStrategy<(Value, Value)> {
    let tag = || prop::sample::select(vec!["a", "ab", "abc"]);
    prop_oneof![
        (
            prop::sample::subsequence(vec!["a", "ab", "abc"], 1..=3),
            any::<bool>(),
            leaf_schema(),
            prop::collection::vec((tag(), leaf_schema(), any::<bool>()), 1..4),
            any::<bool>(),
        )
            .prop_map(|(tags, required, member, branches, exclusive)| {
                let required = if required { json!(["a"]) } else { json!([]) };
                let source = json!({
                    "type": "object",
                    "properties": {"a": {"enum": tags}, "b": member},
                    "required": required
                });
                let branches = branches
                    .into_iter()
                    .map(|(tag, member, required)| {
                        let required = if required { json!(["a"]) } else { json!([]) };
                        json!({"properties": {"a": {"const": tag}, "b": member}, "required": required})
                    })
                    .collect();
                (source, union(exclusive, branches))
            }),
        (
            (type_name(), type_name()).prop_filter("distinct types", |(a, b)| a != b),
            leaf_schema(),
            leaf_schema(),
            any::<bool>()
        )
            .prop_map(|((first, second), narrower, other, exclusive)| {
                let source = json!({"type": [first, second]});
                let branches = vec![
                    json!({"allOf": [{"type": first}, narrower]}),
                    json!({"type": second}),
                    other,
                ];
                (source, union(exclusive, branches))
            }),
        (
            leaf_schema(),
            leaf_schema(),
            leaf_schema(),
            leaf_schema(),
            any::<bool>()
        )
            .prop_map(|(a, b, present, absent, exclusive)| {
                let source = json!({"type": "object", "properties": {"a": a, "b": b}});
                let branches = vec![
                    json!({"type": "object", "required": ["a"], "properties": {"a": present}}),
                    json!({"type": "object", "properties": {"a": false, "b": absent}}),
                ];
                (source, union(exclusive, branches))
            }),
    ]
    .boxed()
}

/// Pairs where the target is related to the source, so that `Yes` answers are common.
fn pair() -> impl Strategy<Value = (Value, Value)> {
    prop_oneof![
        discriminated_pair(),
        (schema(), schema()),
        (plain(), plain()).prop_map(|(s, x)| (s.clone(), json!({ "anyOf": [s, x] }))),
        (plain(), plain()).prop_map(|(s, x)| (json!({ "allOf": [s.clone(), x] }), s)),
        (recursive_definition(), referring_body(), referring_body()).prop_map(|(d, s, x)| {
            (
                json!({"$defs": {"d": d.clone()}, "allOf": [s.clone()]}),
                json!({"$defs": {"d": d}, "anyOf": [{"allOf": [s]}, x]}),
            )
        }),
        (leaf_schema(), leaf_schema()).prop_map(|(s, t)| {
            (
                json!({"type": "object", "properties": {"a": s}, "required": ["a"]}),
                json!({"type": "object", "properties": {"a": t}}),
            )
        }),
    ]
}

/// Instances of `source`: the generator's candidates (of the source, and of the target, which
/// reach into its union branches) and random values, those the source admits.
fn source_instances(source: &Value, target: &Value, random: &[Value]) -> Vec<Value> {
    let admits = validator(source);
    instance::candidates(source, source)
        .into_iter()
        .chain(instance::candidates(target, target))
        .chain(random.iter().cloned())
        .filter(|value| admits.is_valid(value))
        .collect()
}

/// Runs a property on a thread with a large stack: the nested strategy types of the schema
/// generator need more than a test thread's default stack in debug builds.
fn run_property<S: Strategy + 'static>(
    make_strategy: impl FnOnce() -> S + Send + 'static,
    test: impl Fn(S::Value) -> Result<(), TestCaseError> + Send + 'static,
) where
    S::Value: std::fmt::Debug,
{
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || {
            let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
                cases: std::env::var("SCHEMA_PROPTEST_CASES")
                    .ok()
                    .and_then(|cases| cases.parse().ok())
                    .unwrap_or(128),
                failure_persistence: None,
                ..ProptestConfig::default()
            });
            runner
                .run(&make_strategy(), test)
                .map_err(|e| e.to_string())
        })
        .expect("spawn property thread");
    match handle.join() {
        Ok(Ok(())) => {}
        Ok(Err(failure)) => panic!("{failure}"),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// How many pairs of a property got each verdict (the property runs on its own thread).
struct VerdictCounts {
    yes: AtomicUsize,
    no: AtomicUsize,
    unknown: AtomicUsize,
}

impl VerdictCounts {
    const fn new() -> Self {
        VerdictCounts {
            yes: AtomicUsize::new(0),
            no: AtomicUsize::new(0),
            unknown: AtomicUsize::new(0),
        }
    }

    fn count(&self, verdict: &CompatVerdict) {
        let counter = match verdict {
            CompatVerdict::Yes => &self.yes,
            CompatVerdict::No { .. } => &self.no,
            CompatVerdict::Unknown { .. } => &self.unknown,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Prints the counts and fails unless both decided answers occurred: a property is only
    /// worth something if it met both. Returns the number of `unknown`s.
    fn assert_both_decided(&self, what: &str) -> usize {
        let (yes, no, unknown) = (
            self.yes.load(Ordering::Relaxed),
            self.no.load(Ordering::Relaxed),
            self.unknown.load(Ordering::Relaxed),
        );
        println!("{what}: yes {yes}, no {no}, unknown {unknown}");
        assert!(
            yes >= 10 && no >= 10,
            "{what}: too few decided pairs: yes {yes}, no {no}"
        );
        unknown
    }
}

static GENERATED: VerdictCounts = VerdictCounts::new();

#[test]
fn verdicts_agree_with_the_validator() {
    let strategy = || (pair(), prop::collection::vec(json_value(), 0..24));
    run_property(strategy, |((source, target), random)| {
        let checker = Checker::new();
        let verdict = checker.verdict(&source, &target);
        GENERATED.count(&verdict);
        match &verdict {
            CompatVerdict::Yes => {
                let target_validator = validator(&target);
                for value in source_instances(&source, &target, &random) {
                    prop_assert!(
                        target_validator.is_valid(&value),
                        "yes, but {value} is admitted by {source} and rejected by {target}"
                    );
                }
            }
            CompatVerdict::No { witness, .. } => {
                prop_assert!(
                    validator(&source).is_valid(witness),
                    "witness {witness} not in source"
                );
                prop_assert!(
                    !validator(&target).is_valid(witness),
                    "witness {witness} in target"
                );
            }
            CompatVerdict::Unknown { reason } => prop_assert!(!reason.is_empty()),
        }
        Ok(())
    });
    GENERATED.assert_both_decided("generated pairs");
}

#[test]
fn every_schema_is_compatible_with_itself() {
    run_property(schema, |source| {
        let checker = Checker::new();
        prop_assert_eq!(checker.verdict(&source, &source), CompatVerdict::Yes);
        // Annotations never change the verdict.
        let annotated = json!({"allOf": [source.clone()], "title": "t", "x-trust": "untrusted"});
        let plain = json!({"allOf": [source.clone()]});
        prop_assert_eq!(
            checker.verdict(&annotated, &plain),
            checker.verdict(&plain, &plain)
        );
        Ok(())
    });
}

#[test]
fn a_source_with_a_witness_is_never_contained() {
    // Independent of the checker's algebra: a value the source admits and the target rejects,
    // found by brute force among generated instances, rules out `Yes`.
    run_property(
        || (pair(), prop::collection::vec(json_value(), 0..24)),
        |((source, target), random)| {
            let target_validator = validator(&target);
            let counterexample = source_instances(&source, &target, &random)
                .into_iter()
                .find(|value| !target_validator.is_valid(value));
            if let Some(value) = counterexample {
                let verdict = Checker::new().verdict(&source, &target);
                prop_assert!(
                    verdict != CompatVerdict::Yes,
                    "yes for {source} ⊆ {target}, but {value} separates them"
                );
            }
            Ok(())
        },
    );
}

#[test]
fn structural_proofs_are_sound() {
    // The co-inductive prover is a fallback of the checker; its own `true` must never meet a
    // source instance the target rejects, on every pair (not only where the algebra defers).
    run_property(
        || (pair(), prop::collection::vec(json_value(), 0..24)),
        |((source, target), random)| {
            if primgraph::schema::structural::proves_contained(&source, &target) {
                let target_validator = validator(&target);
                for value in source_instances(&source, &target, &random) {
                    prop_assert!(
                        target_validator.is_valid(&value),
                        "structural proof, but {value} is in {source} and not in {target}"
                    );
                }
            }
            Ok(())
        },
    );
}

#[test]
fn discriminated_unions_are_sound() {
    // The case split and the `oneOf` disjointness rule on their own generator: `Yes` (the
    // checker's and the prover's alone) meets no source instance the target rejects, and
    // every `No` witness separates the schemas.
    static SPLIT_YES: AtomicUsize = AtomicUsize::new(0);
    static SPLIT_NO: AtomicUsize = AtomicUsize::new(0);
    run_property(
        || {
            (
                discriminated_pair(),
                prop::collection::vec(json_value(), 0..24),
            )
        },
        |((source, target), random)| {
            let proven = primgraph::schema::structural::proves_contained(&source, &target);
            let verdict = Checker::new().verdict(&source, &target);
            if proven || verdict == CompatVerdict::Yes {
                SPLIT_YES.fetch_add(1, Ordering::Relaxed);
                let target_validator = validator(&target);
                for value in source_instances(&source, &target, &random) {
                    prop_assert!(
                        target_validator.is_valid(&value),
                        "yes (prover: {proven}), but {value} is admitted by {source} and \
                         rejected by {target}"
                    );
                }
            }
            if let CompatVerdict::No { witness, .. } = &verdict {
                SPLIT_NO.fetch_add(1, Ordering::Relaxed);
                prop_assert!(validator(&source).is_valid(witness));
                prop_assert!(!validator(&target).is_valid(witness));
            }
            Ok(())
        },
    );
    let (yes, no) = (
        SPLIT_YES.load(Ordering::Relaxed),
        SPLIT_NO.load(Ordering::Relaxed),
    );
    println!("discriminated unions: yes {yes}, no {no}");
    assert!(yes >= 5 && no >= 5, "too few decided: yes {yes}, no {no}");
}

static FINITE: VerdictCounts = VerdictCounts::new();

/// A finite source against a target union: the source admits exactly its values, so the
/// validator decides the pair exactly (every value admitted by the target, or not), and the
/// checker must agree wherever it answers. A `oneOf` counts: a value two branches admit is
/// outside it.
#[test]
fn a_finite_source_against_a_union_is_decided_as_the_validator_decides() {
    let strategy = || {
        (
            prop::collection::vec(json_value(), 1..7),
            any::<bool>(),
            prop::collection::vec(leaf_schema(), 1..6),
        )
    };
    run_property(strategy, |(values, exclusive, branches)| {
        let source = json!({ "enum": values });
        let target = union(exclusive, branches);
        let target_validator = validator(&target);
        let contained = values.iter().all(|value| target_validator.is_valid(value));
        let verdict = Checker::new().verdict(&source, &target);
        FINITE.count(&verdict);
        match &verdict {
            CompatVerdict::Yes => {
                prop_assert!(
                    contained,
                    "yes, but a value of {source} is outside {target}"
                );
            }
            CompatVerdict::No { witness, .. } => {
                prop_assert!(!contained, "no, but every value of {source} is in {target}");
                prop_assert!(
                    values.contains(witness),
                    "witness {witness} not in {source}"
                );
                prop_assert!(
                    !target_validator.is_valid(witness),
                    "witness {witness} in target"
                );
            }
            CompatVerdict::Unknown { reason } => prop_assert!(!reason.is_empty()),
        }
        Ok(())
    });
    let unknown = FINITE.assert_both_decided("finite source against a union");
    // Every leaf schema here is one the evaluator or the algebra decides, and the source is
    // finite: an `unknown` is a pair the checker gave up on that it can decide (20,000 cases
    // gave none).
    assert_eq!(unknown, 0, "finite sources left undecided");
}

static PATTERNED: VerdictCounts = VerdictCounts::new();

/// A small pattern over `a`/`b`: anchored or not, with repetitions and alternatives.
fn small_pattern() -> impl Strategy<Value = String> {
    let atom = prop::sample::select(vec![
        "a",
        "b",
        "ab",
        "(ab)",
        "[ab]",
        "(a|bb)",
        ".",
        "(ab){0,3}",
        "a{2}",
        "b?",
    ]);
    let quantifier = prop::sample::select(vec!["", "", "*", "+", "?", "{1,2}"]);
    (
        any::<bool>(),
        prop::collection::vec((atom, quantifier), 1..4),
        any::<bool>(),
    )
        .prop_map(|(start, parts, end)| {
            let mut text = String::from(if start { "^" } else { "" });
            for (atom, quantifier) in parts {
                // A quantifier after a quantifier would be refused; keep those atoms plain.
                text.push_str(atom);
                if !atom.ends_with(['}', '?']) {
                    text.push_str(quantifier);
                }
            }
            if end {
                text.push('$');
            }
            text
        })
}

/// A string schema with an optional pattern and optional length bounds.
fn patterned_string() -> impl Strategy<Value = Value> {
    (
        prop::option::of(small_pattern()),
        prop::option::of(0u64..4),
        prop::option::of(0u64..7),
    )
        .prop_map(|(pattern, min, max)| {
            let mut schema = json!({ "type": "string" });
            if let Some(pattern) = pattern {
                schema["pattern"] = json!(pattern);
            }
            if let Some(min) = min {
                schema["minLength"] = json!(min);
            }
            if let Some(max) = max {
                schema["maxLength"] = json!(max);
            }
            schema
        })
}

/// Every string over `a`, `b` and a line feed of up to `length` characters.
fn short_strings(length: usize) -> Vec<Value> {
    let mut all = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..length {
        last = last
            .iter()
            .flat_map(|s| ['a', 'b', '\n'].map(|c| format!("{s}{c}")))
            .collect();
        all.extend(last.iter().cloned());
    }
    all.into_iter().map(Value::from).collect()
}

/// Patterns beside length bounds on both sides, decided by one automaton search: a `No`'s
/// witness is a string the source's validator admits and the target's rejects, and a `Yes`
/// meets no string (of every string over `a`, `b` and a line feed up to seven characters) that
/// the source admits and the target rejects.
#[test]
fn pattern_and_length_verdicts_agree_with_the_validator() {
    let strategy = || (patterned_string(), patterned_string());
    run_property(strategy, |(source, target)| {
        let verdict = Checker::new().verdict(&source, &target);
        PATTERNED.count(&verdict);
        let (admits, target_admits) = (validator(&source), validator(&target));
        match &verdict {
            CompatVerdict::Yes => {
                for text in short_strings(7) {
                    prop_assert!(
                        !admits.is_valid(&text) || target_admits.is_valid(&text),
                        "yes, but {text} is in {source} and not in {target}"
                    );
                }
            }
            CompatVerdict::No { witness, .. } => {
                prop_assert!(
                    admits.is_valid(witness),
                    "witness {witness} not in {source}"
                );
                prop_assert!(
                    !target_admits.is_valid(witness),
                    "witness {witness} in {target}"
                );
            }
            CompatVerdict::Unknown { reason } => prop_assert!(!reason.is_empty()),
        }
        Ok(())
    });
    let unknown = PATTERNED.assert_both_decided("patterns beside length bounds");
    assert_eq!(unknown, 0, "patterned strings left undecided");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `declares` (a fragment output port's test, P827) follows only names a schema lists: a
    /// name no schema lists is never declared, whatever follows it; each property a schema
    /// lists at its top is declared, and `select` walks it too.
    #[test]
    fn a_pointer_is_declared_only_through_names_the_schema_lists(
        s in schema(),
        tail in prop::sample::select(vec!["", "/a", "/0", "/b/1"]),
    ) {
        use primgraph::schema::select::{declares, select};
        let unnamed = format!("/zz{tail}");
        prop_assert!(!declares(&s, &unnamed), "{unnamed} in {s}");
        if let Some(properties) = s.get("properties").and_then(Value::as_object) {
            for name in properties.keys() {
                let pointer = format!("/{name}");
                prop_assert!(declares(&s, &pointer), "{pointer} in {s}");
                prop_assert!(select(&s, &pointer).is_ok(), "{pointer} in {s}");
            }
        }
    }
}
