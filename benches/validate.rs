//! Whole-file validation (`check_source`: parse, load, every rule) on generated graphs that
//! validate clean (`primgraph::graph::generate`), against the floor of merely parsing the same
//! bytes with `serde_json::from_slice` into a `Value`.
//!
//! Targets: `validate_10k` ≤ 3 × `parse_only_10k`; `validate_100k` / `validate_10k` ≤ 12 (near
//! linear). Ratios are read from the medians of one run (`cargo bench --bench validate`).
//!
//! `r101/unknown_3k` validates the same 3,000-node graph as `r101/valid_3k` with every primitive
//! misspelt (each one differently, so every R101 searches the registry for a suggestion): the
//! did-you-mean search must not dominate (target: ≤ 2 × `r101/valid_3k`).
//!
//! `render/human_3k` renders 3,000 findings (3,000 nodes outside `capabilities`, each related
//! to the `capabilities` line at the top of a 21,000-line file) as `render/json_3k` does: the
//! human renderer's cost must not grow with findings × file size (it took 16.6 s against
//! 0.15 s before a snippet was bounded; target: ≤ 5 × `render/json_3k`). Since issue 22 (item 2)
//! no renderer parses the source again: every location carries its extent from
//! `diagnostic::resolve`, so the human and SARIF renderers only index the source's lines.

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::graph::generate::generate;
use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use serde_json::Value;
use std::hint::black_box;

const SEED: u64 = 2024;

fn document(nodes: usize) -> Vec<u8> {
    let registry = Registry::builtin();
    let value = generate(nodes, SEED, registry)
        .unwrap_or_else(|e| panic!("the built-in registry generates graphs: {e}"));
    let bytes = serde_json::to_vec_pretty(&value).unwrap_or_default();
    let report = check_source("bench.graph.json", &bytes, registry, &Options::default());
    let errors = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == primgraph::diagnostic::Severity::Error)
        .count();
    assert_eq!(errors, 0, "the benchmark graph of {nodes} nodes is valid");
    bytes
}

fn bench_validate(c: &mut Criterion) {
    let registry = Registry::builtin();
    let options = Options::default();
    let small = document(1_000);
    let medium = document(10_000);
    let large = document(100_000);

    let mut group = c.benchmark_group("validate");
    group.bench_function("parse_only_10k", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&medium)).map(|v| v.is_object()))
    });
    group.bench_function("validate_1k", |b| {
        b.iter(|| check_source("bench.graph.json", black_box(&small), registry, &options))
    });
    group.bench_function("validate_10k", |b| {
        b.iter(|| check_source("bench.graph.json", black_box(&medium), registry, &options))
    });
    group.finish();

    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.bench_function("validate_100k", |b| {
        b.iter(|| check_source("bench.graph.json", black_box(&large), registry, &options))
    });
    group.finish();
}

/// The generated graph of `nodes` nodes, and the same graph with node `i`'s primitive misspelt as
/// `{primitive}{i}` (one to four extra characters: within R101's suggestion distance).
fn valid_and_misspelt(nodes: usize) -> (Vec<u8>, Vec<u8>) {
    let valid = document(nodes);
    let mut value: Value = serde_json::from_slice(&valid).unwrap_or_default();
    // The generator makes *about* `nodes` nodes (whole shapes): count what it made.
    let mut made = 0;
    if let Some(list) = value.get_mut("nodes").and_then(Value::as_array_mut) {
        made = list.len();
        for (i, node) in list.iter_mut().enumerate() {
            if let Some(Value::String(primitive)) = node.get_mut("primitive") {
                primitive.push_str(&i.to_string());
            }
        }
    }
    let misspelt = serde_json::to_vec_pretty(&value).unwrap_or_default();
    let registry = Registry::builtin();
    let report = check_source("bench.graph.json", &misspelt, registry, &Options::default());
    let r101 = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "R101")
        .count();
    assert_eq!(r101, made, "every node of the misspelt graph is an R101");
    (valid, misspelt)
}

fn bench_unknown_primitives(c: &mut Criterion) {
    let registry = Registry::builtin();
    let options = Options::default();
    let (valid, misspelt) = valid_and_misspelt(3_000);
    let mut group = c.benchmark_group("r101");
    group.bench_function("valid_3k", |b| {
        b.iter(|| check_source("bench.graph.json", black_box(&valid), registry, &options))
    });
    group.bench_function("unknown_3k", |b| {
        b.iter(|| check_source("bench.graph.json", black_box(&misspelt), registry, &options))
    });
    group.finish();
}

/// A graph of `nodes` nodes whose primitives all lie outside its `capabilities` (one R104 each).
fn outside_capabilities(nodes: usize) -> Vec<u8> {
    let nodes: Vec<Value> = (0..nodes)
        .map(|i| {
            if i + 1 == nodes {
                serde_json::json!({"id": format!("n{i}"), "primitive": "done.finish_success", "inputs": {}})
            } else {
                serde_json::json!({"id": format!("n{i}"), "primitive": "obs.list_files", "inputs": {}, "next": format!("n{}", i + 1)})
            }
        })
        .collect();
    let graph = serde_json::json!({
        "graph": "outside", "abi": "1.0.0", "capabilities": ["done.finish_success"],
        "entry": "n0", "nodes": nodes,
    });
    serde_json::to_vec_pretty(&graph).unwrap_or_default()
}

fn bench_render(c: &mut Criterion) {
    let registry = Registry::builtin();
    let bytes = outside_capabilities(3_000);
    let report = check_source("bench.graph.json", &bytes, registry, &Options::default());
    assert!(report.diagnostics.len() >= 2_999, "one R104 per node");
    let reports = [report];
    let mut group = c.benchmark_group("render");
    group.sample_size(10);
    group.bench_function("json_3k", |b| {
        b.iter(|| primgraph::diagnostic::json::render(black_box(&reports)))
    });
    group.bench_function("human_3k", |b| {
        b.iter(|| primgraph::diagnostic::human::render(black_box(&reports), false))
    });
    group.finish();
}

/// `packs/validate_10k_declaring_a_pack`: the 10k graph declaring the `pyship` fixture pack
/// (`tests/fixtures/pack-wire/path`): the composition (built once, cached by the composer), its
/// perfect-hash lookups and the pack's two rules over the same model, against `validate_10k`
/// (target: ≤ 1.2 ×).
fn bench_packs(c: &mut Criterion) {
    use primgraph::pack::compose::{Base, Composer, ComposerOptions};
    let registry = Registry::builtin();
    let plain = document(10_000);
    let mut value: Value = serde_json::from_slice(&plain).unwrap_or_default();
    value["packs"] = serde_json::json!({"pyship": "^1.0"});
    let declaring = serde_json::to_vec_pretty(&value).unwrap_or_default();
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pack-wire/path");
    let options = Options {
        packs: Some(std::sync::Arc::new(Composer::new(
            Base::Builtin,
            primgraph::pack::path::PackPath::scan(&[dir]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    };
    let report = check_source("bench.graph.json", &declaring, registry, &options);
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.severity != primgraph::diagnostic::Severity::Error),
        "the graph declaring the pack is valid: {:?}",
        report.diagnostics.first()
    );
    let mut group = c.benchmark_group("packs");
    group.bench_function("validate_10k", |b| {
        b.iter(|| {
            check_source(
                "bench.graph.json",
                black_box(&plain),
                registry,
                &Options::default(),
            )
        })
    });
    group.bench_function("validate_10k_declaring_a_pack", |b| {
        b.iter(|| {
            check_source(
                "bench.graph.json",
                black_box(&declaring),
                registry,
                &options,
            )
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_packs,
    bench_validate,
    bench_unknown_primitives,
    bench_render
);
criterion_main!(benches);
