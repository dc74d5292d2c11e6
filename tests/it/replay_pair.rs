//! Paired replay (`replay::pair`, behind `graph diff --runs`) gives, for every trace, exactly the
//! two reports of two separate replays — also where it shares work between the runs (one parse
//! of each line, one schema check, one recomputed input): over simulated runs of both example
//! versions with seeded defects of every kind, cut, dropped, repeated and damaged lines, and
//! graph versions chosen so that each sharing rule is both used and refused (v2: same nodes,
//! same bindings; a rebinding of one node's input; the nodes listed in another order; another
//! `input` schema; v1 checked against another instance of the registry, which shares no schema
//! check).

use primgraph::registry::Registry;
use primgraph::replay::pair::{replay_pair_corpus, replay_pair_reader};
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use primgraph::simulate::{SimOptions, simulate_run};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::OnceLock;

const V1: &str = "graphs/fix-failing-test.graph.json";
const V2: &str = "graphs/fix-failing-test-v2.graph.json";

fn doc(path: &str) -> Value {
    let mut d: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    d.as_object_mut().unwrap().remove("$schema");
    d
}

fn replayer_with(registry: &'static Registry, name: &str, doc: &Value) -> Replayer<'static> {
    let bytes = serde_json::to_vec_pretty(doc).unwrap();
    let graph = ReplayGraph::load(name, &bytes, registry).unwrap_or_else(|e| panic!("{name}: {e}"));
    Replayer::new(registry, graph, ReplayOptions::default())
}

fn replayer(name: &str, doc: &Value) -> Replayer<'static> {
    replayer_with(Registry::builtin(), name, doc)
}

/// The built-in registry loaded again: equal content, another instance.
fn other_registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        Registry::from_slice(
            include_bytes!("../../registry/kernel-abi-1.0.0.json"),
            "copy",
        )
        .unwrap()
    })
}

fn node_mut<'d>(doc: &'d mut Value, id: &str) -> &'d mut Value {
    doc["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["id"] == id)
        .unwrap()
}

/// The versions every pair is drawn from.
fn versions() -> &'static [(&'static str, Replayer<'static>)] {
    static V: OnceLock<Vec<(&'static str, Replayer<'static>)>> = OnceLock::new();
    V.get_or_init(|| {
        let v1 = doc(V1);
        // `draft`'s `summary` bound elsewhere: the same node IDs in the same order, but D605
        // at `draft` must not be shared with v1.
        let mut rebound = v1.clone();
        node_mut(&mut rebound, "draft")["inputs"]["summary"] =
            json!({"from": "$input", "at": "/issue"});
        // The nodes listed backwards: node indices differ, so no D605 is shared.
        let mut reordered = v1.clone();
        reordered["nodes"].as_array_mut().unwrap().reverse();
        // Another `input` schema: the run's input check is each graph's own.
        let mut narrow = v1.clone();
        narrow["input"]["properties"]["issue"]["maxLength"] = json!(12);
        vec![
            ("v1", replayer("v1", &v1)),
            ("v2", replayer("v2", &doc(V2))),
            ("rebound", replayer("rebound", &rebound)),
            ("reordered", replayer("reordered", &reordered)),
            ("narrow", replayer("narrow", &narrow)),
            (
                "v1-other-registry",
                replayer_with(other_registry(), "v1", &v1),
            ),
        ]
    })
}

/// Damage one trace: 0 leaves it, 1 drops line `at`, 2 repeats it, 3 cuts the trace inside it,
/// 4 overwrites one of its bytes, 5 swaps it with the next line.
fn damage(trace: &[u8], kind: u8, at: usize, byte: usize) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = trace
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let i = at % lines.len();
    match kind {
        1 => {
            lines.remove(i);
        }
        2 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        3 => {
            let keep = byte % lines[i].len();
            lines[i].truncate(keep);
            lines.truncate(i + 1);
        }
        4 => {
            let j = byte % lines[i].len();
            lines[i][j] = b"x\"{}9 \r"[byte % 7];
        }
        5 if i + 1 < lines.len() => lines.swap(i, i + 1),
        _ => {}
    }
    lines.concat()
}

fn check_all_pairs(name: &str, trace: &[u8]) {
    let vs = versions();
    for (na, a) in vs {
        for (nb, b) in vs {
            let paired = replay_pair_reader(a, b, name, trace);
            let single = (a.replay_slice(name, trace), b.replay_slice(name, trace));
            assert_eq!(
                paired,
                single,
                "{na} / {nb}: {}",
                String::from_utf8_lossy(trace)
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_paired_replay_is_two_separate_replays(
        seed in any::<u64>(),
        graph in 0usize..2,
        faulty in any::<bool>(),
        kind in 0u8..6,
        at in any::<usize>(),
        byte in any::<usize>(),
    ) {
        let options = SimOptions {
            seed,
            fault_rate: if faulty { 1.0 } else { 0.0 },
            ..SimOptions::default()
        };
        let run = simulate_run(&versions()[graph].1, &options, seed % 1000).unwrap();
        check_all_pairs(&run.name, &damage(&run.trace, kind, at, byte));
    }
}

#[test]
fn a_paired_corpus_is_two_separate_corpora() {
    let dir = tempfile::tempdir().unwrap();
    let vs = versions();
    let options = SimOptions {
        seed: 7,
        fault_rate: 0.5,
        ..SimOptions::default()
    };
    for i in 0..40u64 {
        let run = simulate_run(&vs[(i % 2) as usize].1, &options, i).unwrap();
        std::fs::write(dir.path().join(format!("{i:03}.trace.jsonl")), &run.trace).unwrap();
    }
    std::fs::write(dir.path().join("empty.trace.jsonl"), b"").unwrap();
    let mut files = primgraph::replay::corpus::collect_traces(&[dir.path().to_path_buf()]).unwrap();
    files.push(dir.path().join("missing.trace.jsonl"));
    for (na, a) in vs {
        for (nb, b) in vs {
            let pairs = replay_pair_corpus(a, b, &files, 2).unwrap();
            assert_eq!(pairs.len(), files.len());
            for (f, pair) in files.iter().zip(pairs) {
                let single = (
                    primgraph::replay::corpus::replay_file(a, f),
                    primgraph::replay::corpus::replay_file(b, f),
                );
                assert_eq!(pair, single, "{na} / {nb}: {}", f.display());
            }
        }
    }
}
