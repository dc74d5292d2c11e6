//! Corpus replay: reports and summaries are byte-identical across thread counts and repeats,
//! the summary is a commutative monoid (a random split, summarised and merged, gives the whole's
//! summary exactly), and the CLI's exit codes and formats.

use primgraph::replay::corpus::{collect_traces, replay_corpus};
use primgraph::replay::render;
use primgraph::replay::{Replayer, RunReport, Summary};
use primgraph::simulate::{SimOptions, simulate_run};
use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::common;
use common::{REGISTRY, primgraph, replay, simulate, trusting};

fn replayer() -> Replayer<'static> {
    trusting(Vec::new())
}

/// A simulated corpus with defects, written once per test binary.
fn corpus() -> &'static (tempfile::TempDir, Vec<PathBuf>) {
    static C: OnceLock<(tempfile::TempDir, Vec<PathBuf>)> = OnceLock::new();
    C.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let rp = replayer();
        let options = SimOptions {
            seed: 11,
            fault_rate: 0.4,
            ..SimOptions::default()
        };
        for i in 0..80 {
            let run = simulate_run(&rp, &options, i).unwrap();
            std::fs::write(
                dir.path().join(format!("{}.trace.jsonl", run.name)),
                &run.trace,
            )
            .unwrap();
        }
        let files = collect_traces(&[dir.path().to_path_buf()]).unwrap();
        (dir, files)
    })
}

fn reports() -> &'static Vec<RunReport> {
    static R: OnceLock<Vec<RunReport>> = OnceLock::new();
    R.get_or_init(|| {
        replay_corpus(&replayer(), &corpus().1, 2, &|| {})
            .unwrap()
            .0
    })
}

#[test]
fn reports_are_byte_identical_across_thread_counts_and_repeats() {
    let rp = replayer();
    let files = &corpus().1;
    assert_eq!(files.len(), 80);
    let (r1, s1) = replay_corpus(&rp, files, 1, &|| {}).unwrap();
    let (r4, s4) = replay_corpus(&rp, files, 4, &|| {}).unwrap();
    let (again, s_again) = replay_corpus(&rp, files, 4, &|| {}).unwrap();
    let a = render::json_document(&r1, &s1);
    assert_eq!(a, render::json_document(&r4, &s4));
    assert_eq!(a, render::json_document(&again, &s_again));
    assert!(
        s1.unfaithful() > 0 && s1.unfaithful() < 80,
        "{}",
        s1.unfaithful()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_summary_is_a_commutative_monoid(assign in prop::collection::vec(0usize..3, 80)) {
        let runs = reports();
        let mut whole = Summary::default();
        for r in runs {
            whole.add(r).unwrap();
        }
        let mut parts = [Summary::default(), Summary::default(), Summary::default()];
        for (r, &k) in runs.iter().zip(&assign) {
            parts[k].add(r).unwrap();
        }
        let mut merged = Summary::default();
        for p in parts.iter().rev() {
            merged.merge(p).unwrap();
        }
        prop_assert_eq!(&merged, &whole);
        // The §4.3 additions, field by field, against figures computed here from the reports.
        let steps_sq: u128 = runs.iter().map(|r| u128::from(r.steps).pow(2)).sum();
        let spend_sq: u128 = runs.iter().map(|r| u128::from(r.stats.spend_nanos).pow(2)).sum();
        prop_assert!(steps_sq > 0 && spend_sq > 0);
        prop_assert_eq!(merged.steps_sq_sum, steps_sq);
        prop_assert_eq!(merged.spend_nanos_sq_sum, spend_sq);
        prop_assert_eq!(&merged.tasks, &whole.tasks);
        prop_assert_eq!(&merged.primitive_steps, &whole.primitive_steps);
        let with_task = runs.iter().filter(|r| r.stats.task.is_some()).count() as u64;
        let successes = runs
            .iter()
            .filter(|r| r.stats.task.is_some() && r.end == Some(primgraph::replay::EndStatus::Success))
            .count() as u64;
        prop_assert_eq!(merged.tasks.values().map(|t| t.runs).sum::<u64>(), with_task);
        prop_assert_eq!(merged.tasks.values().map(|t| t.successes).sum::<u64>(), successes);
        let primitive_steps: u64 = merged.primitive_steps.values().sum();
        prop_assert_eq!(primitive_steps, merged.steps_sum);
        let mut other_order = parts[1].clone();
        other_order.merge(&parts[0]).unwrap();
        other_order.merge(&parts[2]).unwrap();
        prop_assert_eq!(&other_order, &whole);
        prop_assert_eq!(render::human_summary(&merged), render::human_summary(&whole));
    }
}

#[test]
fn cli_simulate_then_replay() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ok");
    let o = out.to_str().unwrap();
    let (code, _, _) = simulate(&["--runs", "12", "--seed", "3", "--out", o]);
    assert_eq!(code, 0);
    let (code, human, _) = replay(&[o]);
    assert_eq!(code, 0, "{human}");
    assert!(human.contains("faithful 12"), "{human}");
    // deterministic for a seed
    let again = dir.path().join("again");
    simulate(&[
        "--runs",
        "12",
        "--seed",
        "3",
        "--out",
        again.to_str().unwrap(),
    ]);
    for f in std::fs::read_dir(&out).unwrap() {
        let f = f.unwrap().path();
        let twin = again.join(f.file_name().unwrap());
        assert_eq!(std::fs::read(&f).unwrap(), std::fs::read(twin).unwrap());
    }

    // Into a folder that already holds a corpus: refused (it would mix the two), nothing
    // written; with --force, written.
    let before: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
    let (code, _, err) = simulate(&["--runs", "3", "--seed", "9", "--out", o]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("not empty") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), before.len());
    let first = std::fs::read(out.join("run-000001.trace.jsonl")).unwrap();
    let (code, _, err) = simulate(&["--runs", "3", "--seed", "9", "--out", o, "--force"]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(
        std::fs::read(out.join("run-000001.trace.jsonl")).unwrap(),
        first
    );

    let bad = dir.path().join("bad");
    let b = bad.to_str().unwrap();
    let (code, _, _) = simulate(&["--runs", "10", "--seed", "3", "--out", b, "--faults", "1"]);
    assert_eq!(code, 0);
    let (code, json, _) = replay(&["--format", "json", "--jobs", "2", b]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 10);
    for run in runs {
        let trace = run["trace"].as_str().unwrap();
        let sidecar = trace.replace(".trace.jsonl", ".expected.json");
        let expected: serde_json::Value =
            serde_json::from_slice(&std::fs::read(sidecar).unwrap()).unwrap();
        assert_eq!(run["first_divergence"]["code"], expected["code"], "{trace}");
        assert_eq!(run["first_divergence"]["seq"], expected["seq"], "{trace}");
    }
    let (code, jsonl, _) = replay(&["--format", "jsonl", b]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = jsonl.lines().collect();
    assert_eq!(lines.len(), 11);
    assert!(lines[10].starts_with("{\"summary\":"));

    let (code, _, _) = primgraph(&[
        "replay",
        "--graph",
        "no/such.graph.json",
        "--registry",
        REGISTRY,
        o,
    ]);
    assert_eq!(code, 2);
    let (code, _, _) = replay(&["no/such/dir"]);
    assert_eq!(code, 2);
    let broken = dir.path().join("broken.graph.json");
    std::fs::write(
        &broken,
        r#"{"graph":"x","abi":"1.0.0","capabilities":["nope"],"entry":"a","nodes":[{"id":"a","primitive":"nope"}]}"#,
    )
    .unwrap();
    let (code, _, _) = primgraph(&[
        "replay",
        "--graph",
        broken.to_str().unwrap(),
        "--registry",
        REGISTRY,
        o,
    ]);
    assert_eq!(code, 2);
}

/// Regression: the trace walker followed symlinked folders, so a link back to an ancestor
/// recursed until the path grew too long. Folders linked in are now skipped (as `validate`
/// always did); a linked trace file is still read.
#[cfg(unix)]
#[test]
fn a_symlink_loop_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    std::fs::write(runs.join("a.trace.jsonl"), b"").unwrap();
    std::os::unix::fs::symlink(dir.path(), runs.join("loop")).unwrap();
    std::os::unix::fs::symlink(runs.join("a.trace.jsonl"), runs.join("b.trace.jsonl")).unwrap();
    let files = collect_traces(&[dir.path().to_path_buf()]).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string())
        .collect();
    assert_eq!(names, ["runs/a.trace.jsonl", "runs/b.trace.jsonl"]);
    let graphs = primgraph::validate::collect_paths(&[dir.path().to_path_buf()]).unwrap();
    assert!(graphs.is_empty(), "{graphs:?}");
}

/// SPEC §4.2: `"first_divergence": {"seq", "code", "expected", "actual"} or null` — all four
/// keys, `null` for no value, in the JSON report, each JSONL line and the summary file's runs
/// alike: D606/D607 have nothing `expected`, D613/D614/D616 nothing recorded as `actual`.
#[test]
fn every_first_divergence_has_seq_code_expected_and_actual() {
    let traces: Vec<String> = ["d601", "d606", "d607", "d613", "d616", "faithful"]
        .iter()
        .map(|name| format!("tests/fixtures/replay/{name}.trace.jsonl"))
        .collect();
    let traces: Vec<&str> = traces.iter().map(String::as_str).collect();
    let (_, json, stderr) = replay(&[&["--format", "json", "--jobs", "1"], &traces[..]].concat());
    let (_, jsonl, _) = replay(&[&["--format", "jsonl", "--jobs", "1"], &traces[..]].concat());
    let document: serde_json::Value = serde_json::from_str(&json).expect(&stderr);
    let mut runs: Vec<serde_json::Value> = document["runs"].as_array().unwrap().clone();
    runs.extend(
        jsonl
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v.get("verdict").is_some()),
    );
    assert_eq!(runs.len(), 2 * traces.len());
    let mut seen_null = (false, false);
    for run in &runs {
        let first = &run["first_divergence"];
        if run["verdict"] == "faithful" {
            assert!(first.is_null(), "{run}");
            continue;
        }
        for key in ["seq", "code", "expected", "actual"] {
            assert!(first.get(key).is_some(), "no {key} in {first}");
        }
        seen_null.0 |= first["expected"].is_null();
        seen_null.1 |= first["actual"].is_null();
    }
    assert_eq!(
        seen_null,
        (true, true),
        "the fixtures lack a value on each side"
    );
}
