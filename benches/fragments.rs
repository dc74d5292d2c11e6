//! Fragment expansion's cost (SPEC §9.3, issue 24): validating a graph of 200 fragment uses
//! (about 2,000 expanded nodes) against validating the same graph written out expanded
//! (`primgraph graph expand`), both with the same pack path. Target: `uses_200` ≤ 1.3 ×
//! `expanded_200`, read from the medians of one run (`cargo bench --bench fragments`).

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source, expand_source};
use std::hint::black_box;
use std::sync::Arc;

#[path = "support/fragment_graph.rs"]
mod fragment_graph;

const USES: usize = 200;

fn bench_fragments(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    fragment_graph::pack(dir.path());
    let registry = Registry::builtin();
    let options = Options {
        packs: Some(Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[dir.path().to_path_buf()]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    };
    let uses = fragment_graph::graph(USES);
    let expanded = expand_source("bench.graph.json", &uses, registry, &options)
        .unwrap_or_else(|r| panic!("the bench graph expands: {:?}", r.diagnostics));
    assert_eq!(
        expanded["nodes"].as_array().map(Vec::len),
        Some(4 + 10 * USES)
    );
    let expanded = serde_json::to_vec_pretty(&expanded).unwrap();
    for (name, bytes) in [("uses", &uses), ("expanded", &expanded)] {
        let report = check_source("bench.graph.json", bytes, registry, &options);
        let errors: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == primgraph::diagnostic::Severity::Error)
            .collect();
        assert!(
            errors.is_empty(),
            "the {name} graph validates clean: {errors:#?}"
        );
    }
    let mut group = c.benchmark_group("fragments");
    group.sample_size(20);
    group.bench_function("uses_200", |b| {
        b.iter(|| check_source("bench.graph.json", black_box(&uses), registry, &options))
    });
    group.bench_function("expanded_200", |b| {
        b.iter(|| check_source("bench.graph.json", black_box(&expanded), registry, &options))
    });
    group.finish();
}

criterion_group!(benches, bench_fragments);
criterion_main!(benches);
