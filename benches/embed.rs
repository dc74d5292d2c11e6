//! The Rust baseline of the Python binding's validation figure: `validate_str` (the crate root's
//! API) on one example graph, `graphs/fix-failing-test.graph.json`, as a string.
//! `python/bench/bench_replay.py` times `primgraph.validate(text=…)` on the same string and
//! reads this group's median (`target/criterion/embed/validate_example/new/estimates.json`):
//! target Python ≤ 1.5 × Rust.
//!
//! `cargo bench --bench embed -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::{Registry, Severity, validate_str};
use std::hint::black_box;

fn bench_embed(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/graphs/fix-failing-test.graph.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let registry = Registry::builtin();
    let report = validate_str("fix-failing-test.graph.json", &text, registry);
    assert!(
        !text.is_empty()
            && !report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error),
        "the example graph validates clean"
    );
    let mut group = c.benchmark_group("embed");
    group.bench_function("validate_example", |b| {
        b.iter(|| {
            black_box(validate_str(
                "fix-failing-test.graph.json",
                black_box(&text),
                registry,
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, bench_embed);
criterion_main!(benches);
