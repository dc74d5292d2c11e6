//! Criterion group `schema_compat`: the compatibility checker over a set of output→input schema
//! pairs (`registry_edges`; the fixture corpus until the registry lands), against compiling a
//! `jsonschema` validator for the same target schemas (`compile_validator`), the yardstick: a
//! check should cost less than compiling a validator for its target.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::schema::Checker;
use serde_json::Value;

type Pairs = Vec<(Value, Value)>;

/// The fixture pairs, split into the compatible ones (most real edges) and the rest.
fn pairs() -> (Pairs, Pairs) {
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

fn schema_compat(c: &mut Criterion) {
    let (compatible, other) = pairs();
    let all: Vec<_> = compatible.iter().chain(&other).cloned().collect();
    let mut group = c.benchmark_group("schema_compat");
    // A fresh checker per iteration: no cache carries over between iterations.
    group.bench_function("registry_edges", |b| {
        b.iter(|| {
            let checker = Checker::new();
            for (source, target) in &compatible {
                std::hint::black_box(checker.verdict(source, target));
            }
        })
    });
    group.bench_function("compile_validator", |b| {
        b.iter(|| {
            for (_, target) in &compatible {
                std::hint::black_box(jsonschema::validator_for(target).ok());
            }
        })
    });
    group.bench_function("registry_edges_all_verdicts", |b| {
        b.iter(|| {
            let checker = Checker::new();
            for (source, target) in &all {
                std::hint::black_box(checker.verdict(source, target));
            }
        })
    });
    group.bench_function("compile_validator_all", |b| {
        b.iter(|| {
            for (_, target) in &all {
                std::hint::black_box(jsonschema::validator_for(target).ok());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, schema_compat);
criterion_main!(benches);
