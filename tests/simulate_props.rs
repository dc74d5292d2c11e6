//! Properties of the simulator: for generated valid graphs over the fixture registry,
//! replay(simulate(g, seed)) is `faithful`; simulation is deterministic for a seed; and every
//! `--faults` kind yields its code at its `seq` as the run's first divergence.

use primgraph::registry::Registry;
use primgraph::replay::schema_gen::{Rng, generate};
use primgraph::replay::simulate::{FAULT_CODES, SimOptions, simulate_run};
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer, Verdict};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::OnceLock;

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        Registry::from_slice(include_bytes!("fixtures/replay/registry.json"), "fixture").unwrap()
    })
}

fn fixture_graph() -> Value {
    serde_json::from_slice(include_bytes!("fixtures/replay/fix.graph.json")).unwrap()
}

fn consts(prim: &str, rng: &mut Rng, skip: &[&str]) -> Value {
    let p = registry().lookup(prim).unwrap();
    let mut inputs = serde_json::Map::new();
    let v = generate(&p.inputs, rng);
    for (k, val) in v.as_object().unwrap() {
        if !skip.contains(&k.as_str()) {
            inputs.insert(k.clone(), json!({"const": val}));
        }
    }
    Value::Object(inputs)
}

/// A valid graph: a chain of segments from the fixture registry — listing, drafting (with a
/// fallback), gate+apply (the grant flows by binding), tests that branch, a decision that loops
/// back to an earlier, bounded node — ending in `done`/`give_up`; some nodes route errors.
fn generate_graph(seed: u64, segments: &[u8]) -> Value {
    let mut rng = Rng::new(seed);
    let mut nodes: Vec<Value> = vec![json!({
        "id": "n0", "primitive": "intake.parse_issue",
        "inputs": {"text": {"from": "$input", "at": "/issue"}}, "max_visits": 3
    })];
    let mut bounded = vec![0usize];
    for &s in segments {
        let i = nodes.len();
        let id = format!("n{i}");
        match s % 5 {
            0 => nodes.push(json!({"id": id, "primitive": "obs.list_files", "inputs": consts("obs.list_files", &mut rng, &[])})),
            1 => nodes.push(json!({"id": id, "primitive": "synth.draft_patch",
                "inputs": {"summary": {"from": "n0", "at": "/summary"}}})),
            2 => {
                nodes.push(json!({"id": id, "primitive": "ctl.authorize_patch", "inputs": {"patch": {"const": "--- a\n+++ b\n"}},
                                  "branches": {"allow": format!("n{}", i + 1), "deny": "give_up"}}));
                nodes.push(json!({"id": format!("n{}", i + 1), "primitive": "mut.apply_patch",
                    "inputs": {"patch": {"const": "--- a\n+++ b\n"}, "grant": {"from": id, "at": "/grant"}},
                    "on_error": {"patch_conflict": "give_up"}}));
            }
            3 => nodes.push(json!({"id": id, "primitive": "ver.run_target_tests",
                "inputs": {"test_ids": {"from": "n0", "at": "/test_ids"}},
                "branches": {"pass": "NEXT", "fail": "give_up"}})),
            _ => {
                let back = *rng.pick(&bounded).unwrap();
                nodes.push(json!({"id": id, "primitive": "stop.retry_or_stop", "inputs": consts("stop.retry_or_stop", &mut rng, &[]),
                                  "branches": {"retry": format!("n{back}"), "stop": "NEXT"}}));
            }
        }
        if s % 5 != 4 && rng.chance(0.3) {
            bounded.push(nodes.len() - 1);
        }
    }
    let n = nodes.len();
    for (i, node) in nodes.iter_mut().enumerate() {
        let next = if i + 1 < n {
            format!("n{}", i + 1)
        } else {
            "done".to_string()
        };
        let m = node.as_object_mut().unwrap();
        if bounded.contains(&i) {
            m.insert("max_visits".into(), json!(3));
        }
        if let Some(b) = m.get_mut("branches").and_then(Value::as_object_mut) {
            for t in b.values_mut() {
                if t == "NEXT" {
                    *t = json!(next);
                }
            }
        } else {
            m.insert("next".into(), json!(next));
        }
        if !m.contains_key("on_error") && i % 3 == 1 {
            m.insert("on_error".into(), json!({"*": "give_up"}));
        }
    }
    nodes.push(json!({"id": "done", "primitive": "done.success", "inputs": {"summary": {"from": "n0", "at": "/summary"}}}));
    nodes.push(json!({"id": "give_up", "primitive": "done.failure"}));
    json!({
        "graph": "generated", "abi": "1.0.0", "capabilities": ["intake.*", "obs.*", "synth.*", "ctl.*", "mut.*", "ver.*", "stop.*", "done.*"],
        "budget": {"max_steps": 400},
        "input": {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]},
        "entry": "n0", "nodes": nodes
    })
}

fn replayer_for(g: Value) -> Replayer<'static> {
    Replayer::new(
        registry(),
        ReplayGraph::from_value(g, registry()).unwrap(),
        ReplayOptions::default(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn simulated_runs_of_generated_graphs_replay_faithful(
        seed in any::<u64>(), segments in prop::collection::vec(0u8..5, 1..8), run in 0u64..50,
    ) {
        let rp = replayer_for(generate_graph(seed, &segments));
        let options = SimOptions { seed, ..SimOptions::default() };
        let sim = simulate_run(&rp, &options, run).unwrap();
        prop_assert!(sim.fault.is_none());
        let report = rp.replay_slice("sim", &sim.trace);
        prop_assert_eq!(report.verdict, Verdict::Faithful, "{:?}", report.diagnostics);
        prop_assert!(report.diagnostics.is_empty());
        // Deterministic for a seed.
        prop_assert_eq!(simulate_run(&rp, &options, run).unwrap().trace, sim.trace);
    }
}

#[test]
fn every_fault_kind_yields_its_code_at_its_seq() {
    let rp = replayer_for(fixture_graph());
    let options = SimOptions {
        seed: 7,
        fault_rate: 1.0,
        ..SimOptions::default()
    };
    let mut seen = BTreeSet::new();
    for i in 0..120 {
        let sim = simulate_run(&rp, &options, i).unwrap();
        let Some(fault) = sim.fault else { continue };
        let r = rp.replay_slice("sim", &sim.trace);
        let f = r.first_divergence.expect("a faulty run diverges");
        assert_eq!((f.code, f.seq), (fault.code, fault.seq), "run {i}");
        assert_ne!(r.verdict, Verdict::Faithful);
        seen.insert(fault.code);
        let sidecar: Value = serde_json::from_str(&fault.sidecar()).unwrap();
        assert_eq!(sidecar, json!({"code": fault.code, "seq": fault.seq}));
    }
    let all: BTreeSet<&str> = FAULT_CODES.iter().copied().collect();
    assert_eq!(
        seen,
        all,
        "missing kinds: {:?}",
        all.difference(&seen).collect::<Vec<_>>()
    );
}

#[test]
fn a_fault_rate_of_zero_writes_faithful_runs_only_and_seeds_differ() {
    let rp = replayer_for(fixture_graph());
    let a = simulate_run(
        &rp,
        &SimOptions {
            seed: 1,
            ..SimOptions::default()
        },
        3,
    )
    .unwrap();
    let b = simulate_run(
        &rp,
        &SimOptions {
            seed: 2,
            ..SimOptions::default()
        },
        3,
    )
    .unwrap();
    assert_ne!(a.trace, b.trace);
    assert!(a.fault.is_none() && b.fault.is_none());
}
