//! Packs (SPEC §9.2) on the hot paths, each against its baseline in the same run:
//!
//! - `packs/lookup_composed` looks up every key of a composition of the kernel and 20 packs of
//!   50 primitives (2 × 1,191 IDs and aliases, then as many near misses) in the composition's
//!   one perfect hash; `packs/lookup_hashmap` the same keys in a `HashMap<String, u16>`.
//!   Target: ≤ 0.33 × the HashMap, misses included.
//! - `packs/load_20` loads and resolves those 20 packs from disk (a fresh `Composer`: each
//!   `pack.json` read, linted and digested); `packs/load_kernel` loads the kernel registry from
//!   its file. Target: ≤ 5 ×.
//! - `packs/validate_10k_in_5_packs` validates the 10,000-node bench graph whose primitives were
//!   moved into 5 packs (copied contracts, new roots), the composition cached as a run caches
//!   it; `packs/validate_10k` the graph as generated. Target: ≤ 1.2 ×.
//!
//! Run: `cargo bench --bench packs -- --warm-up-time 1 --measurement-time 3`.

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::graph::generate::generate;
use primgraph::pack::Range;
use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn kernel_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("registry/kernel-abi-1.0.0.json")
}

/// `pack.json` of a generated pack `name` holding `primitives` (already renamed under its root).
fn write_pack(dir: &Path, name: &str, primitives: Vec<Value>) {
    let pack = json!({
        "pack": name,
        "version": "1.0.0",
        "summary": "A generated pack for the benchmark.",
        "kernel_abi": "^1.0",
        "roots": [name],
        "families": [{"name": format!("{name}-all"), "prefix": name, "group": "agent_isa",
                      "summary": "Every primitive of the generated pack."}],
        "primitives": primitives,
    });
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("pack.json"),
        serde_json::to_vec_pretty(&pack).unwrap(),
    )
    .unwrap();
}

/// A kernel contract copied into pack `root`: `obs.list_files` → `root.obs_list_files`.
fn moved(contract: &Value, root: &str) -> Value {
    let mut c = contract.clone();
    let id = c["id"].as_str().unwrap().replace('.', "_");
    let alias = c["alias"].as_str().unwrap().to_string();
    c["id"] = json!(format!("{root}.{id}"));
    c["alias"] = json!(format!("{}_{alias}", root.to_uppercase().replace('-', "_")));
    c["family"] = json!(format!("{root}-all"));
    c
}

fn kernel_contracts() -> Vec<Value> {
    let kernel: Value = serde_json::from_slice(&std::fs::read(kernel_file()).unwrap()).unwrap();
    kernel["primitives"].as_array().unwrap().clone()
}

fn requests(names: &[String]) -> Vec<(String, Range)> {
    names
        .iter()
        .map(|n| {
            let text = "^1.0".to_string();
            let req = primgraph::pack::parse_range(&text).unwrap();
            (
                n.clone(),
                Range {
                    text,
                    req,
                    pointer: format!("/packs/{n}"),
                },
            )
        })
        .collect()
}

fn composer(dir: &Path) -> Composer {
    Composer::new(
        Base::Builtin,
        PackPath::scan(&[dir.to_path_buf()]),
        ComposerOptions::default(),
    )
}

/// 20 packs of 50 primitives (copies of kernel contracts, cycling through them).
fn twenty_packs(dir: &Path) -> Vec<String> {
    let contracts = kernel_contracts();
    let names: Vec<String> = (0..20).map(|k| format!("bench{k}")).collect();
    for (k, name) in names.iter().enumerate() {
        let mut primitives = Vec::new();
        for j in 0..50 {
            let mut c = moved(&contracts[(k * 50 + j) % contracts.len()], name);
            // Two packs may copy one contract: the ID stays unique by its pack's root.
            c["id"] = json!(format!(
                "{name}.p{j}_{}",
                c["id"].as_str().unwrap().split('.').nth(1).unwrap()
            ));
            c["alias"] = json!(format!("{}_P{j}", name.to_uppercase()));
            primitives.push(c);
        }
        write_pack(dir, name, primitives);
    }
    names
}

fn near_miss(key: &str) -> String {
    let mut bytes = key.as_bytes().to_vec();
    let at = bytes.len() / 2;
    bytes[at] = if bytes[at] == b'z' { b'y' } else { b'z' };
    String::from_utf8(bytes).unwrap()
}

fn bench_lookup_and_load(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let names = twenty_packs(dir.path());
    let requests = requests(&names);
    let composition = composer(dir.path())
        .compose("bench.graph.json", &requests)
        .unwrap_or_else(|e| panic!("the generated packs compose: {e:?}"));
    let registry = &composition.registry;
    let mut keys: Vec<String> = registry
        .primitives()
        .iter()
        .flat_map(|p| [p.id.clone(), p.alias.clone()])
        .collect();
    assert_eq!(keys.len(), 2 * (191 + 20 * 50));
    let misses: Vec<String> = keys
        .iter()
        .map(|k| near_miss(k))
        .filter(|k| registry.lookup(k).is_none())
        .collect();
    keys.extend(misses);
    let map: HashMap<String, u16> = registry
        .primitives()
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [(p.id.clone(), i as u16), (p.alias.clone(), i as u16)])
        .collect();
    let mut group = c.benchmark_group("packs");
    group.bench_function("lookup_composed", |b| {
        b.iter(|| {
            let mut found = 0usize;
            for k in &keys {
                found += usize::from(registry.lookup(black_box(k)).is_some());
            }
            found
        })
    });
    group.bench_function("lookup_hashmap", |b| {
        b.iter(|| {
            let mut found = 0usize;
            for k in &keys {
                found += usize::from(map.contains_key(black_box(k.as_str())));
            }
            found
        })
    });
    group.bench_function("load_20", |b| {
        b.iter(|| {
            composer(dir.path())
                .compose("bench.graph.json", black_box(&requests))
                .is_ok()
        })
    });
    group.bench_function("load_kernel", |b| {
        b.iter(|| Registry::from_path(black_box(&kernel_file())).is_ok())
    });
    group.finish();
}

fn bench_validate_in_packs(c: &mut Criterion) {
    let builtin = Registry::builtin();
    let graph = generate(10_000, 2024, builtin).unwrap();
    let plain = serde_json::to_vec_pretty(&graph).unwrap();
    // Move every primitive the kernel has into one of 5 packs, by its index.
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..5).map(|k| format!("moved{k}")).collect();
    let contracts = kernel_contracts();
    let mut new_id: HashMap<String, String> = HashMap::new();
    let mut packs: Vec<Vec<Value>> = vec![Vec::new(); 5];
    for (i, contract) in contracts.iter().enumerate() {
        let root = &names[i % 5];
        let m = moved(contract, root);
        new_id.insert(
            contract["id"].as_str().unwrap().to_string(),
            m["id"].as_str().unwrap().to_string(),
        );
        new_id.insert(
            contract["alias"].as_str().unwrap().to_string(),
            m["id"].as_str().unwrap().to_string(),
        );
        packs[i % 5].push(m);
    }
    for (name, primitives) in names.iter().zip(packs) {
        write_pack(dir.path(), name, primitives);
    }
    let mut in_packs = graph.clone();
    for node in in_packs["nodes"].as_array_mut().unwrap() {
        let p = node["primitive"].as_str().unwrap().to_string();
        node["primitive"] = json!(new_id[&p]);
    }
    in_packs["capabilities"] = json!(names.iter().map(|n| format!("{n}.*")).collect::<Vec<_>>());
    in_packs["packs"] = names
        .iter()
        .map(|n| (n.clone(), json!("^1.0")))
        .collect::<serde_json::Map<_, _>>()
        .into();
    let in_packs = serde_json::to_vec_pretty(&in_packs).unwrap();
    let plain_options = Options::default();
    let pack_options = Options {
        packs: Some(Arc::new(composer(dir.path()))),
        ..Options::default()
    };
    let errors = |r: &primgraph::FileReport| {
        r.diagnostics
            .iter()
            .filter(|d| d.severity == primgraph::Severity::Error)
            .map(|d| d.code.to_string())
            .collect::<Vec<_>>()
    };
    let base_report = check_source("bench.graph.json", &plain, builtin, &plain_options);
    let pack_report = check_source("bench.graph.json", &in_packs, builtin, &pack_options);
    assert_eq!(errors(&base_report), Vec::<String>::new());
    assert_eq!(
        errors(&pack_report),
        Vec::<String>::new(),
        "the graph moved into packs validates clean too"
    );
    let mut group = c.benchmark_group("packs");
    group.sample_size(10);
    group.bench_function("validate_10k", |b| {
        b.iter(|| {
            check_source(
                "bench.graph.json",
                black_box(&plain),
                builtin,
                &plain_options,
            )
        })
    });
    group.bench_function("validate_10k_in_5_packs", |b| {
        b.iter(|| {
            check_source(
                "bench.graph.json",
                black_box(&in_packs),
                builtin,
                &pack_options,
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench_lookup_and_load, bench_validate_in_packs);
criterion_main!(benches);
