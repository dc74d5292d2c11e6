//! Criterion group `schema_compat`: the compatibility checker against the yardstick of compiling
//! a `jsonschema` validator for the same target schemas — a check should cost less than
//! compiling a validator for its target.
//!
//! - `registry_edges`: every distinct pair (output property schema of one primitive, input
//!   property schema of the same name of another) of the built-in registry — the edges graphs
//!   actually bind; `compile_validator`: one validator compiled per pair's target.
//! - `fixture_pairs` / `compile_validator_fixtures`: the compatible pairs of the fixture corpus
//!   (`tests/fixtures/schema-compat/`), which exercise every keyword; `fixture_all_verdicts` /
//!   `compile_validator_fixtures_all`: every pair of the corpus, incompatible and undecided ones
//!   included (those search for and confirm a witness).
//!
//! - `slow_tail` (its own group): the slowest pair of IBM's jsonsubschema suite
//!   (`tests/fixtures/schema-compat/ibm-jsonsubschema.json`, `SLOWEST_IBM_PAIR`; a lale dataset
//!   of 16,512 rows of eight numbers against an operator that takes strings, a `no` whose
//!   witness costs 3.15 MiB of the 6 MiB work budget) against a cheap pair (`integer` ⊆
//!   `number`): the ratio of the two is what the work budget bounds (issue 28 item 15: every
//!   pair within about 200 ms).
//!
//! Every checker iteration starts from a fresh `Checker`: no cache carries over between
//! iterations (within one, a schema met twice is prepared once — that is the checker's design).
//!
//! Run: `cargo bench --bench schema_compat -- --warm-up-time 1 --measurement-time 3` (the slow
//! tail alone: `cargo bench --bench schema_compat -- slow_tail`).

use std::collections::BTreeSet;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::registry::Registry;
use primgraph::schema::Checker;
use serde_json::Value;

type Pairs = Vec<(Value, Value)>;

/// The fixture pairs, split into the compatible ones and the rest.
fn fixture_pairs() -> (Pairs, Pairs) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema-compat");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("fixture directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let (mut compatible, mut other) = (Vec::new(), Vec::new());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("fixture");
        let entries: Vec<Value> = serde_json::from_str(&text).expect("fixture array");
        for entry in entries {
            let pair = (entry["source"].clone(), entry["target"].clone());
            if entry["expected"] == "yes" {
                compatible.push(pair);
            } else {
                other.push(pair);
            }
        }
    }
    (compatible, other)
}

/// Every distinct (output property, input property of the same name) schema pair of the
/// built-in registry, in a stable order.
fn registry_pairs() -> Pairs {
    let registry = Registry::builtin();
    let properties = |schema: &Value| -> Vec<(String, Value)> {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    };
    let mut seen = BTreeSet::new();
    let mut pairs = Vec::new();
    for producer in registry.primitives() {
        for (name, source) in properties(&producer.outputs) {
            for consumer in registry.primitives() {
                for (input, target) in properties(&consumer.inputs) {
                    if input == name && seen.insert((source.to_string(), target.to_string())) {
                        pairs.push((source.clone(), target));
                    }
                }
            }
        }
    }
    pairs
}

fn bench_checker(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    pairs: &Pairs,
) {
    group.bench_function(name, |b| {
        b.iter(|| {
            let checker = Checker::new();
            for (source, target) in pairs {
                std::hint::black_box(checker.verdict(source, target));
            }
        })
    });
}

fn bench_compile(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    pairs: &Pairs,
) {
    group.bench_function(name, |b| {
        b.iter(|| {
            for (_, target) in pairs {
                std::hint::black_box(jsonschema::validator_for(target).ok());
            }
        })
    });
}

fn schema_compat(c: &mut Criterion) {
    let edges = registry_pairs();
    let (compatible, other) = fixture_pairs();
    let all: Pairs = compatible.iter().chain(&other).cloned().collect();
    let mut group = c.benchmark_group("schema_compat");
    bench_checker(&mut group, "registry_edges", &edges);
    bench_compile(&mut group, "compile_validator", &edges);
    bench_checker(&mut group, "fixture_pairs", &compatible);
    bench_compile(&mut group, "compile_validator_fixtures", &compatible);
    bench_checker(&mut group, "fixture_all_verdicts", &all);
    bench_compile(&mut group, "compile_validator_fixtures_all", &all);
    group.finish();
}

/// The slowest pair of the IBM suite in a release run of `tests/it/schema_ibm.rs`
/// (`--nocapture` prints the slowest pairs with their work). The 32,724-row datasets that were
/// slowest are no longer searched (no candidate is that large: `instance::out_of_reach`).
const SLOWEST_IBM_PAIR: &str = "test_ai_subschema/TestAIExamples.test_dataset_op/44";

fn ibm_pair(name: &str) -> (Value, Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/schema-compat/ibm-jsonsubschema.json");
    let text = std::fs::read_to_string(path).expect("the IBM fixture file");
    let pairs: Vec<Value> = serde_json::from_str(&text).expect("a JSON array");
    let pair = pairs
        .into_iter()
        .find(|pair| pair["name"] == name)
        .unwrap_or_else(|| panic!("no IBM pair named {name}"));
    (pair["source"].clone(), pair["target"].clone())
}

fn slow_tail(c: &mut Criterion) {
    let slowest = vec![ibm_pair(SLOWEST_IBM_PAIR)];
    let cheap = vec![(
        serde_json::json!({"type": "integer"}),
        serde_json::json!({"type": "number"}),
    )];
    let mut group = c.benchmark_group("slow_tail");
    group.sample_size(10);
    bench_checker(&mut group, "slowest_ibm_pair", &slowest);
    bench_checker(&mut group, "cheap_pair", &cheap);
    group.finish();
}

criterion_group!(benches, schema_compat, slow_tail);
criterion_main!(benches);
