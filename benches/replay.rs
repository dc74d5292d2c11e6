//! Replay speed (criterion group `replay`): `parse_only_100k` is the floor — serde_json over the
//! lines of a 100k-event simulated trace — and `replay_100k` is everything (chain, seq, walk,
//! input recomputation, schema validation, evidence, bounds). Target: replay ≤ 2.5 × parse.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use primgraph::registry::Registry;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer, Verdict};
use primgraph::simulate::{SimOptions, simulate_stream};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let registry = Registry::from_slice(
        include_bytes!("../tests/fixtures/replay/registry.json"),
        "fixture",
    )
    .expect("fixture registry");
    let graph_bytes = include_bytes!("../tests/fixtures/replay/long.graph.json");
    let graph =
        ReplayGraph::load("long.graph.json", graph_bytes, &registry).expect("fixture graph");
    let replayer = Replayer::new(&registry, graph, ReplayOptions::default());
    let options = SimOptions {
        seed: 42,
        min_steps: 100_000,
        ..SimOptions::default()
    };
    let mut trace = Vec::new();
    let steps = simulate_stream(&replayer, &options, 0, &mut trace).expect("simulated trace");
    let report = replayer.replay_slice("bench", &trace);
    assert_eq!(
        report.verdict,
        Verdict::Faithful,
        "{:?}",
        report.first_divergence
    );
    eprintln!("trace: {steps} steps, {} bytes", trace.len());

    let mut group = c.benchmark_group("replay");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(trace.len() as u64));
    group.bench_function("parse_only_100k", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for line in trace.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let v: serde_json::Value = serde_json::from_slice(line).expect("valid line");
                n += usize::from(v.is_object());
            }
            black_box(n)
        })
    });
    group.bench_function("replay_100k", |b| {
        b.iter(|| black_box(replayer.replay_slice("bench", black_box(&trace)).steps))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
