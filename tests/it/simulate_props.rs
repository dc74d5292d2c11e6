//! Properties of the simulator: for generated valid graphs over the fixture registry, every
//! simulated run passes an oracle written here, independent of the replay engine (the hash
//! chain, `seq`, the graph digest, the edges followed, the primitives, inputs recomputed from
//! the bindings, the end); replay(simulate(g, seed)) is `faithful`; simulation is deterministic
//! for a seed; and every `--faults` kind yields its code at its `seq` as the first divergence.

use primgraph::registry::Registry;
use primgraph::replay::schema_gen::random_instance;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer, Verdict};
use primgraph::rng::Rng;
use primgraph::simulate::{FAULT_CODES, SimOptions, simulate_run};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::OnceLock;

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        Registry::from_slice(
            include_bytes!("../fixtures/replay/registry.json"),
            "fixture",
        )
        .unwrap()
    })
}

fn fixture_graph() -> Value {
    serde_json::from_slice(include_bytes!("../fixtures/replay/fix.graph.json")).unwrap()
}

fn consts(prim: &str, rng: &mut Rng, skip: &[&str]) -> Value {
    let p = registry().lookup(prim).unwrap();
    let mut inputs = serde_json::Map::new();
    let v = random_instance(&p.inputs, rng);
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

/// The lowercase hex SHA-256 of `bytes`, `sha256:`-prefixed.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// An oracle for a faithful trace of `graph`, written from SPEC §4.1–4.2 without the replay
/// engine: `Err` says what is wrong.
fn check_faithful(graph: &Value, trace: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(trace).map_err(|e| e.to_string())?;
    let lines: Vec<&str> = text
        .strip_suffix('\n')
        .ok_or("no final newline")?
        .split('\n')
        .collect();
    let events: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{l}: {e}")))
        .collect::<Result<_, _>>()?;
    let header = &events[0];
    let digest = sha256(&serde_jcs::to_vec(graph).map_err(|e| e.to_string())?);
    if header["graph"] != graph["graph"] || header["graph_digest"] != json!(digest) {
        return Err(format!("header names another graph: {header}"));
    }
    let nodes = graph["nodes"].as_array().ok_or("no nodes")?;
    let node = |id: &str| nodes.iter().find(|n| n["id"] == id);
    let mut latest: std::collections::HashMap<String, Option<Value>> = Default::default();
    let mut expected = Some(graph["entry"].as_str().ok_or("no entry")?.to_string());
    let mut fallback_of: Option<String> = None; // the primitive a fallback re-run must record
    let mut unhandled = false; // the last step failed with neither handler nor fallback
    for (i, event) in events.iter().enumerate().skip(1) {
        if event["prev"] != json!(sha256(lines[i - 1].as_bytes())) {
            return Err(format!(
                "line {}: `prev` is not the previous line's hash",
                i + 1
            ));
        }
        if event["seq"] != json!(i) {
            return Err(format!("line {}: seq {} is not {i}", i + 1, event["seq"]));
        }
        if let Some(end) = event.get("end") {
            if i + 1 != events.len() {
                return Err("events after the end".into());
            }
            let end = end.as_str().unwrap_or("");
            return match &expected {
                None if end == "failure" || (end == "success" && !unhandled) => Ok(()),
                None => Err(format!("end `{end}` after an unhandled error")),
                Some(next) => Err(format!("the run ended with `{next}` still to run")),
            };
        }
        let id = event["node"].as_str().ok_or("a step without a node")?;
        if expected.as_deref() != Some(id) {
            return Err(format!(
                "seq {i}: recorded `{id}`, the graph selects {expected:?}"
            ));
        }
        let n = node(id).ok_or("an unknown node")?;
        let own = registry()
            .lookup(n["primitive"].as_str().unwrap_or(""))
            .ok_or("an unknown primitive")?;
        let want_prim = fallback_of.take().unwrap_or_else(|| own.id.clone());
        if event["primitive"] != json!(want_prim) {
            return Err(format!(
                "seq {i}: primitive {} is not {want_prim}",
                event["primitive"]
            ));
        }
        // The input, recomputed from the bindings over the run's input and latest outputs.
        let mut input = serde_json::Map::new();
        for (property, binding) in n["inputs"].as_object().into_iter().flatten() {
            let value = if let Some(v) = binding.get("const") {
                Some(v.clone())
            } else {
                let from = binding["from"].as_str().unwrap_or("");
                let at = binding.get("at").and_then(Value::as_str).unwrap_or("");
                let source = if from == "$input" {
                    Some(header.get("input").cloned().unwrap_or(json!({})))
                } else {
                    latest.get(from).cloned().flatten()
                };
                source.and_then(|s| s.pointer(at).cloned())
            };
            if let Some(v) = value {
                input.insert(property.clone(), v);
            }
        }
        if event["input"] != Value::Object(input.clone()) {
            return Err(format!(
                "seq {i}: input {} is not {}",
                event["input"],
                Value::Object(input)
            ));
        }
        let terminal = n.get("next").is_none() && n.get("branches").is_none();
        if let Some(error) = event.get("error") {
            latest.insert(id.to_string(), None);
            let mode = error["mode"].as_str().unwrap_or("");
            let handler = n["on_error"].get(mode).or_else(|| n["on_error"].get("*"));
            expected = match handler {
                Some(target) => target.as_str().map(String::from),
                None => match registry()
                    .lookup(&want_prim)
                    .and_then(|p| p.fallback.clone())
                {
                    Some(fallback) if want_prim == own.id => {
                        fallback_of = Some(fallback);
                        Some(id.to_string())
                    }
                    _ => {
                        unhandled = true;
                        None
                    }
                },
            };
        } else {
            latest.insert(id.to_string(), Some(event["output"].clone()));
            expected = if terminal {
                None
            } else if let Some(outcome) = event.get("outcome").and_then(Value::as_str) {
                let branches = &n["branches"];
                let target = branches.get(outcome).or_else(|| branches.get("*"));
                Some(
                    target
                        .and_then(Value::as_str)
                        .ok_or("no branch for the outcome")?
                        .to_string(),
                )
            } else {
                Some(n["next"].as_str().ok_or("no `next`")?.to_string())
            };
        }
    }
    Err("the trace has no end event".into())
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
        let graph = generate_graph(seed, &segments);
        let rp = replayer_for(graph.clone());
        let options = SimOptions { seed, ..SimOptions::default() };
        let sim = simulate_run(&rp, &options, run).unwrap();
        prop_assert!(sim.fault.is_none());
        // The oracle first: it does not use the engine the simulator already consulted.
        if let Err(why) = check_faithful(&graph, &sim.trace) {
            prop_assert!(false, "{}\n{}", why, String::from_utf8_lossy(&sim.trace));
        }
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
        assert_eq!((f.code.as_str(), f.seq), (fault.code, fault.seq), "run {i}");
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
