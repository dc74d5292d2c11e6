//! `registry diff` of the built-in Kernel ABI 1.0.0 (191 primitives) against a copy with 20
//! scattered changes (`versions::registry_diff::edits::scattered`: removals, aliases, schemas,
//! annotations, lists, flags) and against itself — each the whole command's work: load and lint
//! both files, compare, locate — against the baseline of loading and linting one registry
//! (`Registry::from_slice` + `lint_source`) in the same run.
//!
//! Target: `diff_20_changes` ≤ 10 × `load_lint_one` (a CI gate runs it on every pull request).
//! Ratios are read from the medians of one run (`cargo bench --bench registry_diff`).

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::registry::{BUILTIN_JSON, Registry, lint_source};
use primgraph::versions::registry_diff::{self, DiffSide, edits};
use std::hint::black_box;

/// The edited copy: 20 edits from the first seed whose result is lint-clean (a removal can
/// orphan a fallback or empty a family).
fn edited() -> Vec<u8> {
    let root: serde_json::Value = serde_json::from_str(BUILTIN_JSON).expect("the frozen file");
    for seed in 0..64 {
        let (mut doc, _) = edits::scattered(&root, 20, seed);
        doc["abi"] = serde_json::Value::from("2.0.0");
        let bytes = serde_json::to_vec_pretty(&doc).expect("serializes");
        if lint_source(&bytes).is_ok_and(|d| d.is_empty()) {
            return bytes;
        }
    }
    panic!("no seed gives a lint-clean edited registry");
}

fn whole_diff(old: &[u8], new: &[u8]) -> usize {
    let old = DiffSide::load("old.json", old).expect("OLD loads");
    let new = DiffSide::load("new.json", new).expect("NEW loads");
    registry_diff::diff(&old, &new).findings.len()
}

fn bench_registry_diff(c: &mut Criterion) {
    let old = BUILTIN_JSON.as_bytes().to_vec();
    let new = edited();
    let findings = whole_diff(&old, &new);
    assert!(
        findings >= 20,
        "20 changes give at least 20 findings, got {findings}"
    );
    assert_eq!(whole_diff(&old, &old), 0);

    let mut group = c.benchmark_group("registry_diff");
    group.bench_function("load_lint_one", |b| {
        b.iter(|| {
            let registry = Registry::from_slice(black_box(&old), "old.json").expect("loads");
            let findings = lint_source(black_box(&old)).expect("lints");
            black_box((registry.len(), findings.len()))
        })
    });
    group.bench_function("diff_20_changes", |b| {
        b.iter(|| black_box(whole_diff(black_box(&old), black_box(&new))))
    });
    group.bench_function("diff_itself", |b| {
        b.iter(|| black_box(whole_diff(black_box(&old), black_box(&old))))
    });
    group.finish();
}

criterion_group!(benches, bench_registry_diff);
criterion_main!(benches);
