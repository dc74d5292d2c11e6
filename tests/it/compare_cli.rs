//! `graph diff` (SPEC §6.2) and `compare` (§6.3) end to end, the way a user meets them: on the
//! example graphs `graphs/fix-failing-test.graph.json` (v1) and `-v2`, the runs recorded of each
//! in `graphs/runs/v1` and `graphs/runs/v2`, and broken inputs made here. Also: a paired replay
//! gives exactly the reports of two separate replays.

use primgraph::registry::Registry;
use primgraph::replay::corpus::{collect_traces, replay_file};
use primgraph::replay::pair::replay_pair_file;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const V1: &str = "graphs/fix-failing-test.graph.json";
const V2: &str = "graphs/fix-failing-test-v2.graph.json";
const RUNS_V1: &str = "graphs/runs/v1";
const RUNS_V2: &str = "graphs/runs/v2";

fn primgraph(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn replayer(path: &str) -> Replayer<'static> {
    let bytes = std::fs::read(path).unwrap();
    let graph = ReplayGraph::load(path, &bytes, Registry::builtin()).unwrap();
    Replayer::new(Registry::builtin(), graph, ReplayOptions::default())
}

/// v2 renamed: every run of v1 names another graph under it (D601, `malformed`).
fn renamed_v2(dir: &Path) -> PathBuf {
    let mut doc: Value = json_of(&std::fs::read_to_string(V2).unwrap());
    doc["graph"] = json!("fix-failing-test-next");
    doc.as_object_mut().unwrap().remove("$schema");
    let path = dir.join("next.graph.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    path
}

#[test]
fn a_paired_replay_gives_the_reports_of_two_separate_replays() {
    let dir = tempfile::tempdir().unwrap();
    let next = renamed_v2(dir.path());
    let (a, b) = (replayer(V1), replayer(V2));
    let c = replayer(next.to_str().unwrap());
    // The recorded runs of both versions and the defective runs of graphs/runs (malformed,
    // diverged, violated), plus a file that cannot be opened.
    let mut files = collect_traces(&[
        PathBuf::from(RUNS_V1),
        PathBuf::from(RUNS_V2),
        PathBuf::from("graphs/runs"),
    ])
    .unwrap();
    files.push(dir.path().join("missing.trace.jsonl"));
    assert!(files.len() > 60);
    for f in &files {
        let pair = replay_pair_file(&a, &b, f);
        assert_eq!(
            pair,
            (replay_file(&a, f), replay_file(&b, f)),
            "{}",
            f.display()
        );
        let pair = replay_pair_file(&c, &a, f);
        assert_eq!(
            pair,
            (replay_file(&c, f), replay_file(&a, f)),
            "{}",
            f.display()
        );
    }
}

#[test]
fn graph_diff_of_the_example_versions() {
    let (code, out, err) = primgraph(&["graph", "diff", V1, V2, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let j = json_of(&out);
    assert_eq!(j["old"]["file"], V1);
    assert_eq!(j["new"]["graph"], "fix-failing-test");
    assert_ne!(j["old"]["digest"], j["new"]["digest"]);
    assert!(j.get("runs").is_none());
    let structure = j["structure"].as_array().unwrap();
    // The §6.2 keys, and beside them each changed field's old and new value.
    assert!(
        structure.contains(&json!({"kind": "graph_changed", "fields": ["budget"],
        "old_pointer": "/budget", "new_pointer": "/budget",
        "values": {"budget": {"old": {"max_steps": 200, "max_spend_usd": 4.0},
                              "new": {"max_steps": 120, "max_spend_usd": 4.0}}}})),
        "{structure:?}"
    );
    assert!(
        structure.contains(&json!({"kind": "node_changed", "node": "gate",
        "fields": ["branches"], "old_pointer": "/nodes/3", "new_pointer": "/nodes/3",
        "values": {"branches": {"old": {"allow": "apply", "deny": "give_up"},
                                "new": {"allow": "apply", "deny": "draft"}}}})),
        "{structure:?}"
    );
    assert!(
        structure.contains(&json!({"kind": "node_changed", "node": "draft",
        "fields": ["max_visits"], "old_pointer": "/nodes/2", "new_pointer": "/nodes/2",
        "values": {"max_visits": {"old": 3, "new": 2}}})),
        "{structure:?}"
    );
    assert_eq!(structure.len(), 3, "{structure:?}");
    assert_eq!(j["findings"], json!({"introduced": [], "resolved": []}));
    assert!(j.get("input_witness").is_none());

    // With the runs of v1: the ones that drafted a third patch exceed v2's `max_visits` of 2
    // at `draft` (D611).
    let (code, out, _) = primgraph(&[
        "graph", "diff", V1, V2, "--runs", RUNS_V1, "--format", "json", "--jobs", "2",
    ]);
    assert_eq!(code, 1);
    let runs = &json_of(&out)["runs"];
    let transitions = runs["transitions"].as_array().unwrap();
    let total: u64 = transitions
        .iter()
        .map(|t| t["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 30);
    let regressions = runs["regressions"].as_array().unwrap();
    let regressed: u64 = regressions
        .iter()
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    let faithful_to_other: u64 = transitions
        .iter()
        .filter(|t| t["old"] == "faithful" && t["new"] != "faithful")
        .map(|t| t["count"].as_u64().unwrap())
        .sum();
    assert!(regressed > 0);
    assert_eq!(regressed, faithful_to_other);
    for r in regressions {
        assert_eq!(
            (&r["node"], &r["code"]),
            (&json!("draft"), &json!("D611")),
            "{r}"
        );
        let examples = r["examples"].as_array().unwrap();
        assert!(!examples.is_empty() && examples.len() <= 3);
        assert!(examples[0].as_str().unwrap().starts_with(RUNS_V1));
    }
    // The same diff as human and Markdown text.
    let (_, human, _) = primgraph(&["graph", "diff", V1, V2, "--runs", RUNS_V1]);
    assert!(human.contains("node `gate` changed: branches"), "{human}");
    assert!(human.contains("    max_visits: 3 → 2\n"), "{human}");
    assert!(
        human.contains(
            r#"    branches: {"allow":"apply","deny":"give_up"} → {"allow":"apply","deny":"draft"}"#
        ),
        "{human}"
    );
    assert!(
        human.contains(r#"    budget: {"max_spend_usd":4.0,"max_steps":200} → {"max_spend_usd":4.0,"max_steps":120}"#)
            || human.contains(r#"    budget: {"max_steps":200,"max_spend_usd":4.0} → {"max_steps":120,"max_spend_usd":4.0}"#),
        "{human}"
    );
    assert!(
        human.contains("graphs/fix-failing-test-v2.graph.json:14:5"),
        "{human}"
    );
    assert!(human.contains("faithful  → violated"), "{human}");
    let (_, md, _) = primgraph(&[
        "graph", "diff", V1, V2, "--runs", RUNS_V1, "--format", "markdown",
    ]);
    assert!(md.contains("| old | new | runs |"), "{md}");
    assert!(md.contains("<br>`max_visits`: `3` → `2`"), "{md}");
}

#[test]
fn graph_diff_findings_input_witness_malformed_runs_and_refusal() {
    let dir = tempfile::tempdir().unwrap();
    // NEW: the gate's deny branch goes straight to `apply` (A402: reachable without a grant) and
    // the issue text must not be empty (recorded inputs `{"issue": ""}` no longer valid).
    let mut doc: Value = json_of(&std::fs::read_to_string(V1).unwrap());
    doc["nodes"][3]["branches"]["deny"] = json!("apply");
    doc["input"]["properties"]["issue"]["minLength"] = json!(1);
    let bad = dir.path().join("bad.graph.json");
    std::fs::write(&bad, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let bad = bad.to_str().unwrap();
    let (code, out, err) = primgraph(&["graph", "diff", V1, bad, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let j = json_of(&out);
    assert_eq!(j["input_witness"], json!({"issue": ""}));
    let introduced = j["findings"]["introduced"].as_array().unwrap();
    assert!(
        introduced
            .iter()
            .any(|f| f["code"] == "A402" && f["severity"] == "error" && f["node"] == "apply"),
        "{introduced:?}"
    );
    assert_eq!(j["findings"]["resolved"], json!([]));
    // The other way round the same findings are resolved, and that is no regression.
    let (code, out, _) = primgraph(&["graph", "diff", bad, V1, "--format", "json"]);
    assert_eq!(code, 0);
    let j = json_of(&out);
    assert_eq!(j["findings"]["introduced"], json!([]));
    assert_eq!(
        &j["findings"]["resolved"].as_array().unwrap().len(),
        &introduced.len()
    );

    // Runs that do not load under NEW (it names another graph) are `malformed`, never dropped.
    let next = renamed_v2(dir.path());
    let (code, out, _) = primgraph(&[
        "graph",
        "diff",
        V1,
        next.to_str().unwrap(),
        "--runs",
        RUNS_V1,
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let j = json_of(&out);
    assert_eq!(
        j["runs"]["transitions"],
        json!([{"old": "faithful", "new": "malformed", "count": 30}])
    );
    assert_eq!(j["runs"]["regressions"][0]["code"], "D601");
    assert_eq!(j["runs"]["regressions"][0]["count"], 30);

    // A graph that does not load: exit 2, named.
    let broken = dir.path().join("broken.graph.json");
    std::fs::write(&broken, "{\"graph\": ").unwrap();
    let (code, _, err) = primgraph(&["graph", "diff", V1, broken.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("broken.graph.json"), "{err}");
}

fn summary_of(dir: &Path, graph: &str, runs: &str, name: &str) -> String {
    let out = dir.join(name);
    let o = out.to_str().unwrap().to_string();
    let (code, _, err) = primgraph(&[
        "replay",
        "--graph",
        graph,
        runs,
        "--allow-empty",
        "--summary-out",
        &o,
    ]);
    assert_eq!(code, 0, "{err}");
    o
}

#[test]
fn compare_from_summary_files_and_from_replayed_runs_agree() {
    let dir = tempfile::tempdir().unwrap();
    let s1 = summary_of(dir.path(), V1, RUNS_V1, "v1.json");
    let s2 = summary_of(dir.path(), V2, RUNS_V2, "v2.json");
    let file: Value = json_of(&std::fs::read_to_string(&s1).unwrap());
    assert_eq!(file["format"], "primgraph-summary");
    assert_eq!(file["version"], 2);
    assert_eq!(file["graph"]["name"], "fix-failing-test");
    assert_eq!(file["summary"]["runs"], 30);
    assert_eq!(file["summary"]["tasks"].as_object().unwrap().len(), 10);

    let (code, from_files, err) = primgraph(&["compare", &s1, &s2, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let (code, replayed, err) = primgraph(&[
        "compare",
        "--baseline-graph",
        V1,
        "--baseline",
        RUNS_V1,
        "--candidate-graph",
        V2,
        "--candidate",
        RUNS_V2,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(from_files, replayed);
    let j = json_of(&from_files);
    assert_eq!(j["confidence"], 0.95);
    assert_ne!(j["baseline"]["digest"], j["candidate"]["digest"]);
    assert_eq!(j["candidate"]["runs"], 30);
    let paired = j["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "paired_success")
        .unwrap();
    let t = &paired["tasks"];
    let tasks = t["improved"].as_u64().unwrap()
        + t["worsened"].as_u64().unwrap()
        + t["unchanged"].as_u64().unwrap();
    assert_eq!(tasks, 10);
    assert_eq!(paired["baseline"]["n"], 10);

    // Human: the digests of both graphs and the table; Markdown: a pipe table.
    let (_, human, _) = primgraph(&["compare", &s1, &s2]);
    assert!(
        human.contains(j["candidate"]["digest"].as_str().unwrap()),
        "{human}"
    );
    assert!(human.contains("different graphs"), "{human}");
    assert!(human.contains("success_rate"), "{human}");
    assert!(!human.contains('\x1b'), "no colour off a terminal: {human}");
    let (_, md, _) = primgraph(&["compare", &s1, &s2, "--format", "markdown"]);
    assert!(
        md.contains("| metric | key | baseline | candidate | difference | change |"),
        "{md}"
    );

    // --fail-on: exit 1 exactly when a named metric regressed.
    let regressed: Vec<&str> = j["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["change"] == "regression")
        .map(|m| m["metric"].as_str().unwrap())
        .collect();
    assert!(
        !regressed.is_empty(),
        "the example has a regression to fail on"
    );
    let (code, _, _) = primgraph(&["compare", &s1, &s2, "--fail-on", &regressed.join(",")]);
    assert_eq!(code, 1);
    let (code, _, _) = primgraph(&["compare", &s1, &s2, "--fail-on", "faithful_rate"]);
    assert_eq!(code, 0);
    // The same summary against itself: nothing regresses.
    let (code, out, _) = primgraph(&[
        "compare",
        &s1,
        &s1,
        "--fail-on",
        &regressed.join(","),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert!(
        json_of(&out)["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["change"] == "none")
    );
}

#[test]
fn compare_refuses_foreign_newer_and_unusable_input_with_a_location() {
    let dir = tempfile::tempdir().unwrap();
    let good = summary_of(dir.path(), V1, RUNS_V1, "v1.json");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let foreign = write("pytest.json", r#"{"tests": [], "summary": {"passed": 3}}"#);
    let (code, _, err) = primgraph(&["compare", &foreign, &good]);
    assert_eq!(code, 2);
    assert!(
        err.contains("pytest.json") && err.contains("not a primgraph summary"),
        "{err}"
    );
    let mut newer: Value = json_of(&std::fs::read_to_string(&good).unwrap());
    newer["version"] = json!(7);
    let newer = write("newer.json", &newer.to_string());
    let (code, _, err) = primgraph(&["compare", &good, &newer]);
    assert_eq!(code, 2);
    assert!(
        err.contains("newer.json:1:") && err.contains("at /version") && err.contains("newer"),
        "{err}"
    );
    let broken = write(
        "broken.json",
        "{\n  \"format\": \"primgraph-summary\",\n  oops\n}",
    );
    let (code, _, err) = primgraph(&["compare", &good, &broken]);
    assert_eq!(code, 2);
    assert!(err.contains("broken.json:3:3"), "{err}");
    for args in [
        vec!["compare", good.as_str()],
        vec![
            "compare",
            good.as_str(),
            good.as_str(),
            "--confidence",
            "1.5",
        ],
        vec![
            "compare",
            good.as_str(),
            good.as_str(),
            "--fail-on",
            "vibes",
        ],
        vec!["compare", good.as_str(), "/nonexistent/summary.json"],
    ] {
        let (code, _, err) = primgraph(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error:"), "{args:?}: {err}");
    }
    // A side with zero runs: null estimates, no NaN, exit 0.
    let empty_dir = dir.path().join("none");
    std::fs::create_dir(&empty_dir).unwrap();
    let empty = summary_of(dir.path(), V1, empty_dir.to_str().unwrap(), "empty.json");
    let (code, out, err) = primgraph(&["compare", &empty, &good, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("NaN"));
    let j = json_of(&out);
    assert_eq!(j["baseline"]["runs"], 0);
    assert!(
        j["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["baseline"]["estimate"].is_null())
    );
}

fn paired_success_of(j: &Value) -> Value {
    j["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "paired_success")
        .expect("paired_success")
        .clone()
}

/// SPEC §6.3: `paired_success` has "a t interval over the tasks", and a difference is a
/// regression when its interval lies wholly on the bad side of zero. Every shared task going
/// from success to failure is −100 pp with zero variance: the point interval [−1, −1], a
/// regression, and `--fail-on paired_success` exits 1 (as `mean_steps` does at zero variance).
#[test]
fn paired_success_with_every_task_equally_worse_is_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let (za, zb) = (dir.path().join("za"), dir.path().join("zb"));
    let out = za.to_str().unwrap();
    let (code, _, err) = primgraph(&[
        "simulate", V1, "--runs", "8", "--tasks", "8", "--seed", "4", "--out", out,
    ]);
    assert_eq!(code, 0, "{err}");
    std::fs::create_dir(&zb).unwrap();
    let mut kept = 0;
    for entry in std::fs::read_dir(&za).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains(r#""end":"success""#) {
            // The end event is not hash-chained to anything after it: the run stays readable.
            let failed = text.replace(r#""end":"success""#, r#""end":"failure""#);
            std::fs::write(zb.join(path.file_name().unwrap()), failed).unwrap();
            kept += 1;
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
    assert!(kept >= 2, "the seed gives {kept} successful runs");
    let a = summary_of(dir.path(), V1, out, "za.json");
    let b = summary_of(dir.path(), V1, zb.to_str().unwrap(), "zb.json");
    let (code, printed, err) = primgraph(&[
        "compare",
        &a,
        &b,
        "--fail-on",
        "paired_success",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let paired = paired_success_of(&json_of(&printed));
    assert_eq!(paired["baseline"]["estimate"], 1.0);
    assert_eq!(paired["candidate"]["estimate"], 0.0);
    assert_eq!(
        paired["difference"],
        json!({"estimate": -1.0, "low": -1.0, "high": -1.0})
    );
    assert_eq!(paired["change"], "regression");
    assert!(paired.get("reason").is_none(), "{paired}");
    assert_eq!(paired["tasks"]["worsened"], paired["baseline"]["n"]);
}

/// SPEC §6.3: the t interval over the tasks whenever it is defined, five shared tasks included
/// (df = 4). The oracle recomputes it from the per-task counts in the two summary files with
/// the tabled quantile t(0.975; 4) = 2.776445.
#[test]
fn paired_success_over_five_tasks_has_its_t_interval() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (graph, seed, name) in [(V1, "1", "a"), (V2, "2", "b")] {
        let out = dir.path().join(name);
        let out = out.to_str().unwrap();
        let (code, _, err) = primgraph(&[
            "simulate", graph, "--runs", "10", "--tasks", "5", "--seed", seed, "--out", out,
        ]);
        assert_eq!(code, 0, "{err}");
        files.push(summary_of(dir.path(), graph, out, &format!("{name}.json")));
    }
    let (code, printed, err) = primgraph(&["compare", &files[0], &files[1], "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let paired = paired_success_of(&json_of(&printed));

    let tasks = |file: &str| -> Vec<(String, f64)> {
        let j = json_of(&std::fs::read_to_string(file).unwrap());
        let tasks = j["summary"]["tasks"].as_object().unwrap();
        let mut rates: Vec<(String, f64)> = tasks
            .iter()
            .map(|(k, t)| {
                let (runs, ok) = (
                    t["runs"].as_f64().unwrap(),
                    t["successes"].as_f64().unwrap(),
                );
                (k.clone(), ok / runs)
            })
            .collect();
        rates.sort_by(|x, y| x.0.cmp(&y.0));
        rates
    };
    let (base, cand) = (tasks(&files[0]), tasks(&files[1]));
    assert_eq!(base.len(), 5);
    let d: Vec<f64> = base
        .iter()
        .zip(&cand)
        .map(|((kb, rb), (kc, rc))| {
            assert_eq!(kb, kc, "both sides ran the same tasks");
            rc - rb
        })
        .collect();
    let mean = d.iter().sum::<f64>() / 5.0;
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 4.0).sqrt();
    let half = 2.776_445 * sd / 5f64.sqrt();
    assert!(sd > 0.0, "{d:?}");
    let diff = &paired["difference"];
    let close = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-5;
    assert!(close(&diff["estimate"], mean), "{diff} vs {mean}");
    assert!(
        close(&diff["low"], mean - half),
        "{diff} vs {}",
        mean - half
    );
    assert!(
        close(&diff["high"], mean + half),
        "{diff} vs {}",
        mean + half
    );
    let wholly_bad = mean + half < 0.0;
    let wholly_good = mean - half > 0.0;
    let want = if wholly_bad {
        "regression"
    } else if wholly_good {
        "improvement"
    } else {
        "none"
    };
    assert_eq!(paired["change"], want);
}

/// SPEC §6.3: "Each side is a summary file (`replay --summary-out`, or the Python API)". The
/// Python API's `Summary.to_json()` writes the bare summary (the `summary` member of `replay
/// --format json`): `compare` reads it as a side with no graph named, with the same figures as
/// the summary file of the same runs; a foreign file with `runs` but not a summary's shape is
/// still refused with its location.
#[test]
fn compare_reads_the_bare_summary_the_python_api_writes() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = summary_of(dir.path(), V1, RUNS_V1, "v1.json");
    let v2 = summary_of(dir.path(), V2, RUNS_V2, "v2.json");
    let (code, out, err) = primgraph(&["replay", "--graph", V1, RUNS_V1, "--format", "json"]);
    assert!(code == 0 || code == 1, "{err}");
    let bare = dir.path().join("v1.bare.json");
    std::fs::write(&bare, json_of(&out)["summary"].to_string()).unwrap();
    let bare = bare.to_str().unwrap();

    let (code, out, err) = primgraph(&["compare", bare, &v2, "--format", "json"]);
    assert!(code == 0 || code == 1, "{err}");
    let from_bare = json_of(&out);
    let (_, out, _) = primgraph(&["compare", &v1, &v2, "--format", "json"]);
    let from_file = json_of(&out);
    assert_eq!(from_bare["metrics"], from_file["metrics"]);
    assert_eq!(from_bare["baseline"]["graph"], Value::Null);
    assert_eq!(from_bare["baseline"]["runs"], from_file["baseline"]["runs"]);
    assert_eq!(from_bare["candidate"], from_file["candidate"]);

    let odd = dir.path().join("odd.json");
    std::fs::write(&odd, r#"{"runs": "many"}"#).unwrap();
    let (code, _, err) = primgraph(&["compare", odd.to_str().unwrap(), &v2]);
    assert_eq!(code, 2);
    assert!(err.contains("odd.json"), "{err}");
}

/// A primitive name a run recorded (any string: an unknown primitive is a D604, still counted)
/// becomes a metric's key; with a carriage return, an escape sequence and a line break in it,
/// the terminal table shows it escaped, and the JSON keeps it exactly.
#[test]
fn compare_prints_a_recorded_key_with_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = "mut.apply\r\u{1b}[2J\nregressed";
    let mut files = Vec::new();
    for (graph, runs, name) in [(V1, RUNS_V1, "a.json"), (V2, RUNS_V2, "b.json")] {
        let path = summary_of(dir.path(), graph, runs, name);
        let mut file = json_of(&std::fs::read_to_string(&path).unwrap());
        for field in ["primitive_steps", "primitive_runs", "failure_modes"] {
            let counts = file["summary"][field].as_object_mut().unwrap();
            if let Some(moved) = counts.remove("mut.apply_patch") {
                counts.insert(hostile.into(), moved);
            }
        }
        std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
        files.push(path);
    }
    let (code, human, err) = primgraph(&["compare", &files[0], &files[1]]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !human.contains('\r') && !human.contains('\u{1b}'),
        "{human}"
    );
    assert!(
        !human.lines().any(|l| l.starts_with("regressed")),
        "{human}"
    );
    assert!(
        human.contains(r"mut.apply\r\u{1b}[2J\nregressed"),
        "{human}"
    );
    let (_, json, _) = primgraph(&["compare", &files[0], &files[1], "--format", "json"]);
    let keys: Vec<Value> = json_of(&json)["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["key"].clone())
        .collect();
    assert!(keys.contains(&Value::from(hostile)), "{json}");
}
