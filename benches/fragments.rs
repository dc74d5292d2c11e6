//! Fragment expansion's cost (SPEC §9.3, issue 24): validating a graph of 200 fragment uses
//! (about 2,000 expanded nodes) against validating the same graph written out expanded
//! (`primgraph graph expand`), both with the same pack path. Target: `uses_200` ≤ 1.3 ×
//! `expanded_200`, read from the medians of one run (`cargo bench --bench fragments`).

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source, expand_source};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;

const USES: usize = 200;

/// A pack `benchkit` with one ten-node fragment `land`: authorize, apply (its failure checked),
/// then six test runs in a row.
fn pack(dir: &std::path::Path) {
    let root = dir.join("benchkit");
    std::fs::create_dir_all(&root).unwrap();
    let manifest = json!({"pack": "benchkit", "version": "1.0.0", "kernel_abi": "^1.0",
        "roots": ["benchkit"], "fragments": ["*.fragment.json"]});
    std::fs::write(root.join("pack.json"), manifest.to_string()).unwrap();
    let mut nodes = vec![
        json!({"id": "gate", "primitive": "ctl.authorize_patch", "inputs": {"patch": {"from": "$in", "at": "/patch"}},
               "branches": {"allow": "apply", "deny": {"exit": "failed"}}, "on_error": {"*": {"exit": "failed"}}}),
        json!({"id": "apply", "primitive": "mut.apply_patch",
               "inputs": {"patch": {"from": "$in", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}},
               "next": "clean", "on_error": {"*": "clean"}}),
        json!({"id": "clean", "primitive": "ver.check_workspace_clean",
               "branches": {"pass": "t0", "fail": {"exit": "failed"}}, "on_error": {"*": {"exit": "failed"}}}),
    ];
    for k in 0..7 {
        let pass = if k == 6 {
            json!({"exit": "landed"})
        } else {
            json!(format!("t{}", k + 1))
        };
        nodes.push(json!({"id": format!("t{k}"), "primitive": "ver.run_target_tests",
            "max_visits": {"param": "attempts"}, "inputs": {"test_ids": {"from": "$in", "at": "/tests"}},
            "branches": {"pass": pass, "fail": {"exit": "failed"}}, "on_error": {"*": {"exit": "failed"}}}));
    }
    let fragment = json!({
        "fragment": "land", "summary": "Authorize, apply, and run the tests seven times.",
        "params": {"type": "object", "properties": {"attempts": {"type": "integer", "minimum": 1, "default": 1}}},
        "inputs": {"patch": {"type": "string", "minLength": 1},
                   "tests": {"type": "array", "items": {"type": "string", "minLength": 1}}},
        "outputs": {"result": {"from": "t6", "at": ""}},
        "exits": ["landed", "failed"], "entry": "gate", "nodes": nodes
    });
    std::fs::write(root.join("land.fragment.json"), fragment.to_string()).unwrap();
}

fn graph() -> Vec<u8> {
    let mut nodes = vec![
        json!({"id": "intake", "primitive": "intake.parse_issue", "inputs": {"text": {"from": "$input", "at": "/issue"}}, "next": "draft", "on_error": {"*": "give_up"}}),
        json!({"id": "draft", "primitive": "synth.patch", "inputs": {"paths": {"from": "intake", "at": "/paths"}, "test_ids": {"from": "intake", "at": "/test_ids"}}, "next": "u0", "on_error": {"*": "give_up"}}),
    ];
    for k in 0..USES {
        let next = if k + 1 == USES {
            "done".to_string()
        } else {
            format!("u{}", k + 1)
        };
        nodes.push(json!({"id": format!("u{k}"), "fragment": "benchkit/land", "with": {"attempts": 2},
            "inputs": {"patch": {"from": "draft", "at": "/patch"}, "tests": {"from": "intake", "at": "/test_ids"}},
            "exits": {"landed": next, "failed": "give_up"}}));
    }
    nodes.push(json!({"id": "done", "primitive": "done.finish_success"}));
    nodes.push(json!({"id": "give_up", "primitive": "done.report_failure", "inputs": {"reason": {"const": "tests_still_failing"}}}));
    serde_json::to_vec_pretty(&json!({
        "graph": "bench-uses", "abi": "1.0.0", "packs": {"benchkit": "^1.0"},
        "capabilities": ["intake.*", "synth.*", "ctl.*", "mut.*", "ver.*", "done.*"],
        "input": {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]},
        "budget": {"max_steps": 100000},
        "entry": "intake", "nodes": nodes
    }))
    .unwrap()
}

fn bench_fragments(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    pack(dir.path());
    let registry = Registry::builtin();
    let options = Options {
        packs: Some(Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[dir.path().to_path_buf()]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    };
    let uses = graph();
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
