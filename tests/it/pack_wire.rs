//! Packs everywhere a user meets a registry (SPEC §9.2, §9.4, §9.6), through the real binary:
//! pack rules in `validate` (findings coded `PACK/RULE` with witnesses, P840/P841 located in
//! `pack.json`, severities overridden in primgraph.toml, every output format), `explain
//! PACK/RULE`, the pack path on `validate`, `replay`, `simulate`, `graph diff`, `compare`,
//! `registry list|show|diff` (`--pack`, `--locked`, `--trust-pack`, `packs` in primgraph.toml),
//! traces that record their packs (D619) and context rules in replay (D620), and `pack diff`
//! (P860/P861/P862, V7xx of the pack's primitives, V718 on `version`, V719 with `--graphs`, all
//! output formats). Whole diagnostics are pinned as `insta` snapshots (`pack_wire__*`).

use crate::lsp_client;

use crate::common::copy_dir;
use serde_json::{Value, json};
use std::path::Path;

const DIR: &str = "tests/fixtures/pack-wire";
const PATH: &str = "tests/fixtures/pack-wire/path";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> String {
    format!("{DIR}/{name}")
}

/// `primgraph ARGS…` from `cwd`: (exit code, stdout, stderr).
fn run_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    crate::common::primgraph_in(cwd, args)
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_in(root(), args)
}

fn json(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = run(args);
    let value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, value)
}

/// The diagnostics of a §3.1 document: (code, severity, file or "", line).
fn findings(doc: &Value) -> Vec<(String, String, String, u64)> {
    let mut out = Vec::new();
    for file in doc["files"].as_array().into_iter().flatten() {
        let report_file = file["file"].as_str().unwrap_or_default();
        for d in file["diagnostics"].as_array().into_iter().flatten() {
            out.push((
                d["code"].as_str().unwrap_or_default().to_string(),
                d["severity"].as_str().unwrap_or_default().to_string(),
                d["file"].as_str().unwrap_or(report_file).to_string(),
                d["line"].as_u64().unwrap_or(0),
            ));
        }
    }
    out
}

fn snapshot(name: &str, body: String) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(format!("pack_wire__{name}"), body));
}

/// A snapshot body as `diagnostic_snapshots.rs` writes them.
fn body(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    let mut text = format!(
        "$ primgraph {}\nexit: {:?}\n--- stdout\n{out}",
        args.join(" "),
        Some(code)
    );
    if !err.is_empty() {
        text.push_str("--- stderr\n");
        text.push_str(&err);
    }
    text
}

// ---- pack rules in validate ---------------------------------------------------------------

#[test]
fn pack_rules_run_in_validate_with_their_witness_and_code() {
    let graph = fixture("land-untested.graph.json");
    let (code, doc) = json(&["validate", "--pack", PATH, "--format", "json", &graph]);
    assert_eq!(code, 1);
    let found = findings(&doc);
    assert!(
        found.contains(&(
            "pyship/land-after-tests".into(),
            "error".into(),
            graph.clone(),
            11
        )),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "pyship/bounded-tests".into(),
            "warning".into(),
            graph.clone(),
            9
        )),
        "{found:?}"
    );
    let d = doc["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "pyship/land-after-tests")
        .unwrap();
    assert_eq!(
        d["witness"]["path"],
        serde_json::json!(["test", "land"]),
        "{d}"
    );
    assert_eq!(
        d["help"],
        "run pyship.run_pytest and land only on its `pass` branch"
    );
    // The graph that lands only on the `pass` branch is clean.
    let (code, out, err) = run(&["validate", "--pack", PATH, &fixture("land-ok.graph.json")]);
    assert_eq!(code, 0, "{out}{err}");
    snapshot(
        "validate_land_untested_human",
        body(&["validate", "--pack", PATH, &graph]),
    );
}

#[test]
fn invalid_rules_are_p840_and_vacuous_selectors_p841_in_pack_json() {
    let (code, doc) = json(&[
        "validate",
        "--pack",
        PATH,
        "--format",
        "json",
        &fixture("uses-bad.graph.json"),
    ]);
    assert_eq!(code, 1);
    let manifest = format!("{PATH}/pyship-bad/pack.json");
    let found = findings(&doc);
    assert!(
        found.contains(&("P840".into(), "error".into(), manifest.clone(), 11)),
        "{found:?}"
    );
    assert!(
        found.contains(&("P841".into(), "warning".into(), manifest.clone(), 10)),
        "{found:?}"
    );
    // The pack's valid rule still applies (its `through` matches nothing: it fires).
    assert!(found.iter().any(|f| f.0 == "pyship-bad/typo"), "{found:?}");
    snapshot(
        "validate_uses_bad_human",
        body(&["validate", "--pack", PATH, &fixture("uses-bad.graph.json")]),
    );
}

#[test]
fn pack_rule_severity_and_pack_path_come_from_primgraph_toml() {
    let dir = tempfile::tempdir().unwrap();
    let packs = root().join(PATH);
    std::fs::write(
        dir.path().join("primgraph.toml"),
        format!(
            "packs = [{:?}]\n\n[severity]\n\"pyship/land-after-tests\" = \"warning\"\n\"pyship/bounded-tests\" = \"off\"\n\"pyship/land-after-test\" = \"off\"\n",
            packs.display().to_string()
        ),
    )
    .unwrap();
    let graph = root().join(fixture("land-untested.graph.json"));
    std::fs::copy(&graph, dir.path().join("g.graph.json")).unwrap();
    let (code, out, err) = run_in(
        dir.path(),
        &["validate", "--format", "json", "g.graph.json"],
    );
    assert_eq!(code, 0, "overridden to a warning: {out}{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let d = doc["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "pyship/land-after-tests")
        .cloned()
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(d["severity"], "warning");
    assert_eq!(
        d["overridden_by"]["setting"], "severity.pyship/land-after-tests",
        "{d}"
    );
    // A setting for a rule no pack defines is said, located in the configuration.
    assert!(
        err.contains(
            "primgraph.toml:6:1: `severity.pyship/land-after-test` names the pack rule \
             `pyship/land-after-test`, which no pack on the pack path defines"
        ),
        "{err}"
    );
    // Without the configuration the pack is not on the path at all.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::copy(&graph, elsewhere.path().join("g.graph.json")).unwrap();
    let (code, out, _) = run_in(elsewhere.path(), &["validate", "g.graph.json"]);
    assert_eq!(code, 1);
    assert!(out.contains("P804"), "{out}");
    // The command line names its own ways to give a pack path (Python names `with_packs`).
    assert!(
        out.contains("no pack path is given (pass --pack DIR, or set `packs` in primgraph.toml)"),
        "{out}"
    );
    assert!(!out.contains("with_packs"), "{out}");
}

#[test]
fn pack_rule_findings_in_sarif_and_github() {
    let graph = fixture("land-untested.graph.json");
    let (code, sarif) = json(&["validate", "--pack", PATH, "--format", "sarif", &graph]);
    assert_eq!(code, 1);
    let rules: Vec<&str> = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(rules.contains(&"pyship/land-after-tests"), "{rules:?}");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "pyship/land-after-tests" && r["level"] == "error")
    );
    let (_, out, _) = run(&["validate", "--pack", PATH, "--format", "github", &graph]);
    assert!(
        out.lines().any(|l| l.starts_with("::error file=")
            && l.contains("line=11")
            && l.contains("pyship/land-after-tests")),
        "{out}"
    );
}

/// A project in a temporary folder: the pack-wire pack path copied to `path/`, its graph that
/// lands untested as `g.graph.json`, and a `primgraph.toml` with `toml` (paths in the log are
/// then relative and stable).
fn sarif_project(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join(PATH), &dir.path().join("path"));
    std::fs::copy(
        root().join(fixture("land-untested.graph.json")),
        dir.path().join("g.graph.json"),
    )
    .unwrap();
    std::fs::write(dir.path().join("primgraph.toml"), toml).unwrap();
    dir
}

#[test]
fn sarif_describes_pack_rules_by_their_definition_and_configured_severity() {
    let project =
        sarif_project("packs = [\"path\"]\n\n[severity]\n\"pyship/bounded-tests\" = \"error\"\n");
    let (code, out, err) = run_in(
        project.path(),
        &["validate", "--format", "sarif", "g.graph.json"],
    );
    assert_eq!(code, 1, "{out}{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let rule = |id: &str| {
        rules
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no rule {id}: {rules:?}"))
    };
    // Every rule a result uses is described, and each result's ruleIndex points at its rule.
    for result in log["runs"][0]["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "{result}");
    }
    // The rule's summary, help and definition (as pack.json has them), not its code again.
    let land = rule("pyship/land-after-tests");
    assert_eq!(land["name"], "LandAfterTests");
    assert_eq!(
        land["shortDescription"]["text"],
        "A patch lands only after the tests passed."
    );
    let help = land["help"]["text"].as_str().unwrap();
    assert!(
        help.starts_with("run pyship.run_pytest and land only on its `pass` branch")
            && help.contains("primgraph explain pyship/land-after-tests"),
        "{help}"
    );
    assert_eq!(land["defaultConfiguration"]["level"], "error");
    assert_eq!(land["properties"]["pack"], "pyship@1.0.0");
    assert_eq!(land["properties"]["definition"]["kind"], "requires_before");
    // The markdown help is what `explain` prints.
    let (code, explained, _) = run_in(project.path(), &["explain", "pyship/land-after-tests"]);
    assert_eq!(code, 0);
    let markdown = land["help"]["markdown"].as_str().unwrap();
    assert!(
        markdown.starts_with(explained.trim_end()),
        "{markdown}\n---\n{explained}"
    );
    // A warning rule raised to an error by primgraph.toml: the level in force.
    let bounded = rule("pyship/bounded-tests");
    assert_eq!(bounded["defaultConfiguration"]["level"], "error");
    assert!(bounded["defaultConfiguration"].get("enabled").is_none());
    snapshot(
        "sarif_pack_rules",
        serde_json::to_string_pretty(&rules).unwrap(),
    );

    // Turned off: the entry stays (its results are suppressed, not gone) and says so.
    let project =
        sarif_project("packs = [\"path\"]\n\n[severity]\n\"pyship/bounded-tests\" = \"off\"\n");
    let (_, out, err) = run_in(
        project.path(),
        &["validate", "--format", "sarif", "g.graph.json"],
    );
    let log: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let bounded = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "pyship/bounded-tests")
        .cloned()
        .unwrap();
    assert_eq!(
        bounded["defaultConfiguration"],
        serde_json::json!({"level": "warning", "enabled": false})
    );
}

#[test]
fn explain_prints_a_pack_rule_from_the_pack_path() {
    let (code, out, err) = run(&["explain", "pyship/land-after-tests", "--pack", PATH]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "pyship/land-after-tests (error): A patch lands only after the tests passed."
        ),
        "{out}"
    );
    assert!(out.contains("run pyship.run_pytest and land only on its `pass` branch"));
    assert!(out.contains("\"kind\": \"requires_before\""), "{out}");
    assert!(out.contains("pack.json:"), "{out}");
    // Not on the pack path, or no such rule: exit 2 naming what there is.
    let (code, _, err) = run(&["explain", "pyship/land-after-tests"]);
    assert_eq!(code, 2);
    assert!(err.contains("no pack path"), "{err}");
    let (code, _, err) = run(&["explain", "pyship/no-such-rule", "--pack", PATH]);
    assert_eq!(code, 2);
    assert!(err.contains("land-after-tests, bounded-tests"), "{err}");
    let (code, _, err) = run(&["explain", "nopack/rule", "--pack", PATH]);
    assert_eq!(code, 2);
    assert!(err.contains("not on the pack path"), "{err}");
}

// ---- the pack path's options ----------------------------------------------------------------

#[test]
fn locked_without_a_lock_is_p806_at_the_graphs_packs() {
    let dir = tempfile::tempdir().unwrap();
    let graph = root().join(fixture("land-ok.graph.json"));
    std::fs::copy(&graph, dir.path().join("g.graph.json")).unwrap();
    let packs = root().join(PATH).display().to_string();
    let (code, out, _) = run_in(
        dir.path(),
        &[
            "validate",
            "--pack",
            &packs,
            "--locked",
            "--format",
            "json",
            "g.graph.json",
        ],
    );
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let found = findings(&doc);
    assert!(
        found.contains(&("P806".into(), "error".into(), "g.graph.json".into(), 5)),
        "{found:?}"
    );
    // Without --locked the same run is clean.
    let (code, out, _) = run_in(dir.path(), &["validate", "--pack", &packs, "g.graph.json"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_pack_path_that_is_not_a_folder_is_exit_2() {
    let (code, _, err) = run(&[
        "validate",
        "--pack",
        "no/such/dir",
        &fixture("land-ok.graph.json"),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--pack no/such/dir: not a folder"), "{err}");
}

#[test]
fn trust_pack_requires_a_signature() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k");
    let (code, _, err) = run(&["keygen", "--out", key.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let public = format!("{}.pub", key.display());
    let (code, doc) = json(&[
        "validate",
        "--pack",
        PATH,
        "--trust-pack",
        &public,
        "--format",
        "json",
        &fixture("land-ok.graph.json"),
    ]);
    assert_eq!(code, 1);
    assert!(
        findings(&doc)
            .iter()
            .any(|f| f.0 == "P807" && f.2.ends_with("pyship/pack.json")),
        "{doc}"
    );
}

// ---- replay, simulate, graph diff, compare ---------------------------------------------------

fn replay(trace: &str, extra: &[&str]) -> (i32, Value) {
    let graph = fixture("land-ok.graph.json");
    let mut args = vec![
        "replay", "--graph", &graph, "--format", "json", "--jobs", "1",
    ];
    args.extend_from_slice(extra);
    let trace = fixture(trace);
    args.push(&trace);
    json(&args)
}

fn run_codes(doc: &Value) -> Vec<(String, String, u64)> {
    doc["runs"][0]["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["severity"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn replay_compares_recorded_pack_digests_d619() {
    let (code, doc) = replay("recorded.trace.jsonl", &["--pack", PATH]);
    assert_eq!(code, 0, "{doc}");
    assert!(run_codes(&doc).is_empty(), "{doc}");
    let (code, doc) = replay("d619.trace.jsonl", &["--pack", PATH]);
    assert_eq!(code, 0, "a warning leaves the run faithful: {doc}");
    assert_eq!(doc["runs"][0]["verdict"], "faithful");
    assert_eq!(run_codes(&doc), vec![("D619".into(), "warning".into(), 1)]);
    let graph = fixture("land-ok.graph.json");
    let trace = fixture("d619.trace.jsonl");
    snapshot(
        "replay_d619_human",
        body(&[
            "replay", "--graph", &graph, "--pack", PATH, "--jobs", "1", &trace,
        ]),
    );
}

#[test]
fn replay_reports_evidence_a_context_rule_denies_d620() {
    let (code, doc) = replay("d620.trace.jsonl", &["--pack", PATH]);
    assert_eq!(code, 1);
    assert_eq!(doc["runs"][0]["verdict"], "violated");
    assert_eq!(run_codes(&doc), vec![("D620".into(), "error".into(), 2)]);
    let d = &doc["runs"][0]["diagnostics"][0];
    assert_eq!(d["pointer"], "/evidence/0/path");
    assert_eq!(d["actual"], ".env");
    let graph = fixture("land-ok.graph.json");
    let trace = fixture("d620.trace.jsonl");
    snapshot(
        "replay_d620_human",
        body(&[
            "replay", "--graph", &graph, "--pack", PATH, "--jobs", "1", &trace,
        ]),
    );
}

#[test]
fn replay_of_a_graph_whose_packs_are_not_on_the_path_is_refused() {
    let graph = fixture("land-ok.graph.json");
    let trace = fixture("recorded.trace.jsonl");
    let (code, _, err) = run(&["replay", "--graph", &graph, &trace]);
    assert_eq!(code, 2);
    assert!(err.contains("P804"), "{err}");
}

#[test]
fn simulate_records_the_packs_and_its_runs_replay_faithfully() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("runs");
    let graph = fixture("land-ok.graph.json");
    let (code, _, err) = run(&[
        "simulate",
        &graph,
        "--pack",
        PATH,
        "--runs",
        "3",
        "--seed",
        "7",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let first = std::fs::read_to_string(dir.join("run-000001.trace.jsonl")).unwrap();
    let header: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert_eq!(header["packs"][0]["name"], "pyship");
    assert_eq!(header["packs"][0]["version"], "1.0.0");
    let digest = primgraph::pack::digest::digest_dir(&root().join(PATH).join("pyship")).unwrap();
    assert_eq!(header["packs"][0]["digest"], digest.as_str());
    let (code, out, err) = run(&[
        "replay",
        "--graph",
        &graph,
        "--pack",
        PATH,
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("faithful 3"), "{out}");
}

#[test]
fn graph_diff_sees_pack_rule_findings_introduced() {
    let (code, out, err) = run(&[
        "graph",
        "diff",
        &fixture("land-ok.graph.json"),
        &fixture("land-untested.graph.json"),
        "--pack",
        PATH,
        "--format",
        "json",
    ]);
    assert!(code == 0 || code == 1, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let text = doc.to_string();
    assert!(text.contains("pyship/land-after-tests"), "{text}");
    // Without the pack path the versions do not load.
    let (code, _, err) = run(&[
        "graph",
        "diff",
        &fixture("land-ok.graph.json"),
        &fixture("land-untested.graph.json"),
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn compare_replays_sides_on_the_pack_path() {
    let graph = fixture("land-ok.graph.json");
    let trace = fixture("recorded.trace.jsonl");
    let args = [
        "compare",
        "--baseline-graph",
        &graph,
        "--baseline",
        &trace,
        "--candidate-graph",
        &graph,
        "--candidate",
        &trace,
        "--format",
        "json",
    ];
    let (code, _, err) = run(&args);
    assert_eq!(code, 2, "without the pack path: {err}");
    let mut with = args.to_vec();
    with.extend(["--pack", PATH]);
    let (code, out, err) = run(&with);
    assert_eq!(code, 0, "{out}{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["baseline"]["runs"], 1, "{doc}");
}

// ---- registry list, show, diff ---------------------------------------------------------------

#[test]
fn registry_list_and_show_include_pack_primitives() {
    let (code, list) = json(&["registry", "list", "--pack", PATH, "--format", "json"]);
    assert_eq!(code, 0);
    let rows = list.as_array().unwrap();
    let land = rows
        .iter()
        .find(|r| r["id"] == "pyship.land")
        .expect("pyship.land listed");
    assert_eq!(land["pack"], "pyship@1.0.0");
    assert!(
        rows.iter()
            .any(|r| r["id"] == "done.finish_success" && r.get("pack").is_none())
    );
    let (code, plain) = json(&["registry", "list", "--format", "json"]);
    assert_eq!(code, 0);
    // pyship's three primitives; pyship-bad has none.
    assert_eq!(plain.as_array().unwrap().len() + 3, rows.len());
    let (code, out, _) = run(&["registry", "show", "PYSHIP_LAND", "--pack", PATH]);
    assert_eq!(code, 0);
    assert!(
        out.contains("pack: pyship@1.0.0 (tests/fixtures/pack-wire/path/pyship/pack.json:30:5, /primitives/2)"),
        "{out}"
    );
    let (code, _, _) = run(&["registry", "show", "pyship.land"]);
    assert_eq!(code, 1);
}

#[test]
fn registry_diff_graphs_checks_pack_graphs_with_the_pack_path() {
    let graph = fixture("land-ok.graph.json");
    let (code, doc) = json(&[
        "registry", "diff", "builtin", "builtin", "--graphs", &graph, "--pack", PATH, "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(doc["graphs"]["checked"], 1, "{doc}");
    assert_eq!(doc["graphs"]["failing_under_old"], 0, "{doc}");
    let (_, doc) = json(&[
        "registry", "diff", "builtin", "builtin", "--graphs", &graph, "--format", "json",
    ]);
    assert_eq!(
        doc["graphs"]["failing_under_old"], 1,
        "without the pack path: {doc}"
    );
}

// ---- pack diff --------------------------------------------------------------------------------

const OLD: &str = "tests/fixtures/pack-wire/diff/old/pyship";
const NEW: &str = "tests/fixtures/pack-wire/diff/new/pyship";

fn diff_codes(doc: &Value) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn pack_diff_compares_primitives_fragments_rules_and_the_version() {
    let (code, doc) = json(&["pack", "diff", OLD, NEW, "--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(doc["required_bump"], "major", "{doc}");
    assert_eq!(doc["old"]["version"], "1.0.0");
    assert_eq!(doc["new"]["version"], "1.1.0");
    assert_eq!(
        diff_codes(&doc),
        vec![
            ("P860".into(), 8),
            ("P861".into(), 2),
            ("P862".into(), 43),
            ("V705".into(), 20),
            ("V718".into(), 3),
        ]
    );
    let v718 = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "V718")
        .unwrap();
    assert_eq!(v718["pointer"], "/version");
    snapshot("pack_diff_human", body(&["pack", "diff", OLD, NEW]));
    for format in ["sarif", "markdown", "github"] {
        let (code, out, _) = run(&["pack", "diff", OLD, NEW, "--format", format]);
        assert_eq!(code, 1, "{format}");
        assert!(
            out.contains("P860") && out.contains("P862") && out.contains("V718"),
            "{format}: {out}"
        );
    }
    // The same pack against itself: nothing, exit 0.
    let (code, doc) = json(&["pack", "diff", OLD, OLD, "--format", "json"]);
    assert_eq!(code, 0);
    assert!(doc["diagnostics"].as_array().unwrap().is_empty(), "{doc}");
}

#[test]
fn pack_diff_accepts_a_major_bump_and_names_broken_graphs() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("pyship");
    copy_dir(&root().join(NEW), &copy);
    let manifest = copy.join("pack.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("\"version\": \"1.1.0\"", "\"version\": \"2.0.0\""),
    )
    .unwrap();
    let (_, doc) = json(&[
        "pack",
        "diff",
        OLD,
        copy.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(!diff_codes(&doc).iter().any(|(c, _)| c == "V718"), "{doc}");
    // --graphs: the graph whose constant NEW's narrowed input rejects is V719.
    let graphs = fixture("diff/graphs");
    let (code, doc) = json(&[
        "pack", "diff", OLD, NEW, "--graphs", &graphs, "--format", "json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(doc["graphs"]["checked"], 2, "{doc}");
    assert_eq!(doc["graphs"]["broken"], 1, "{doc}");
    let v719 = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "V719")
        .unwrap_or_else(|| panic!("{doc}"));
    assert!(
        v719["file"]
            .as_str()
            .unwrap()
            .ends_with("short-target.graph.json"),
        "{v719}"
    );
}

#[test]
fn pack_diff_of_a_folder_that_is_not_a_pack_is_exit_2() {
    let (code, _, err) = run(&["pack", "diff", OLD, DIR]);
    assert_eq!(code, 2);
    assert!(
        err.contains("NEW: tests/fixtures/pack-wire is not a pack folder"),
        "{err}"
    );
    let (code, out, err) = run(&["pack", "diff", OLD, "tests/fixtures/packs/p801"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("P801"), "{out}");
}

#[test]
fn explain_prints_d619_d620_and_the_pack_diff_codes() {
    for code in ["D619", "D620", "P860", "P861", "P862"] {
        let (status, out, _) = run(&["explain", code]);
        assert_eq!(status, 0, "{code}");
        assert!(out.starts_with(&format!("{code} (")), "{code}: {out}");
        assert!(out.contains("## Fix"), "{code}");
    }
}

// ---- the language server ------------------------------------------------------------------

#[test]
fn the_language_server_reads_the_pack_path_of_primgraph_toml() {
    let dir = tempfile::tempdir().unwrap();
    let packs = root().join(PATH).display().to_string();
    std::fs::write(
        dir.path().join("primgraph.toml"),
        format!("packs = [{packs:?}]\n"),
    )
    .unwrap();
    let text = std::fs::read_to_string(root().join(fixture("land-untested.graph.json"))).unwrap();
    let doc = format!("file://{}/g.graph.json", dir.path().display());
    let mut client = lsp_client::Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    client.open(&doc, 1, &text);
    let published = client.diagnostics(&doc);
    let codes: Vec<&str> = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"pyship/land-after-tests"), "{published}");
    assert!(!codes.contains(&"P804"), "{published}");
    let offset = text.find("\"pyship.land\"").unwrap() + 3;
    let position = lsp_client::position(&text, offset);
    let at = json!({"textDocument": {"uri": doc}, "position": position});
    // Hover: the pack primitive's contract.
    let hover = client.request("textDocument/hover", at.clone());
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        value.contains("Land the patch on the main branch."),
        "{hover}"
    );
    // Completion of a node's primitive offers the pack's primitives.
    let completion = client.request("textDocument/completion", at.clone());
    let labels: Vec<&str> = completion["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert!(
        labels.contains(&"pyship.land") && labels.contains(&"PYSHIP_RUN_PYTEST"),
        "{labels:?}"
    );
    // Go to definition: the primitive's contract in its pack.json.
    let definition = client.request("textDocument/definition", at);
    let target = definition["result"]["uri"].as_str().unwrap_or_default();
    assert!(
        target.ends_with("/tests/fixtures/pack-wire/path/pyship/pack.json"),
        "{definition}"
    );
    assert_eq!(
        definition["result"]["range"]["start"]["line"], 29,
        "{definition}"
    );
    // A pack.json with an unknown member: P801 in that document, from the editor's text.
    let manifest = root().join(PATH).join("pyship/pack.json");
    let broken =
        std::fs::read_to_string(&manifest)
            .unwrap()
            .replacen("\"summary\":", "\"sumary\":", 1);
    let pack_uri = format!("file://{}", manifest.display());
    client.open(&pack_uri, 1, &broken);
    let published = client.diagnostics(&pack_uri);
    let p801 = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "P801")
        .unwrap_or_else(|| panic!("{published}"));
    assert_eq!(p801["range"]["start"]["line"], 3, "{p801}");
    client.request("shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert!(client.finish().success());
}

// ---- JSON Schemas ---------------------------------------------------------------------------

fn validator(path: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn read_json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(path)).unwrap()).unwrap()
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn the_pack_schema_accepts_the_fixture_packs_and_rejects_what_the_loader_refuses() {
    let v = validator("registry/pack.schema.json");
    for pack in [
        "tests/fixtures/pack-wire/path/pyship/pack.json",
        "tests/fixtures/pack-wire/diff/old/pyship/pack.json",
        "tests/fixtures/pack-wire/diff/new/pyship/pack.json",
        "tests/fixtures/packs/path/pyfix/pack.json",
    ] {
        let errors = errors(&v, &read_json(pack));
        assert!(errors.is_empty(), "{pack}: {errors:#?}");
    }
    // An unknown rule kind, as the loader's P840.
    assert!(!v.is_valid(&read_json(
        "tests/fixtures/pack-wire/path/pyship-bad/pack.json"
    )));
    let good = read_json("tests/fixtures/pack-wire/path/pyship/pack.json");
    let mutations: &[(&str, Value)] = &[
        ("/pack", json!("PyShip")),
        ("/version", json!("1.0")),
        ("/roots", json!([])),
        ("/primitives/1/outcomes", json!({"decision_set": 3})),
        ("/rules/1/max_visits", json!(0)),
        ("/context_rules/0/allow", json!(["src/**"])),
    ];
    for (pointer, value) in mutations {
        let mut doc = good.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        doc.pointer_mut(parent).unwrap()[key] = value.clone();
        assert!(!v.is_valid(&doc), "accepted {pointer} = {value}");
    }
}

#[test]
fn the_graph_and_trace_schemas_know_packs() {
    let graph = validator("graphs/graph.schema.json");
    let doc = read_json("tests/fixtures/pack-wire/land-ok.graph.json");
    assert!(
        errors(&graph, &doc).is_empty(),
        "{:?}",
        errors(&graph, &doc)
    );
    let trace = validator("graphs/trace.schema.json");
    let text = std::fs::read_to_string(root().join(fixture("d620.trace.jsonl"))).unwrap();
    for line in text.lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        assert!(
            errors(&trace, &value).is_empty(),
            "{line}: {:?}",
            errors(&trace, &value)
        );
    }
}

#[test]
fn a_lock_in_the_working_directory_loads_the_locked_pack_and_catches_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join(PATH).join("pyship"),
        &dir.path().join("packs/pyship"),
    );
    std::fs::copy(
        root().join(fixture("land-ok.graph.json")),
        dir.path().join("g.graph.json"),
    )
    .unwrap();
    let digest = primgraph::pack::digest::digest_dir(&dir.path().join("packs/pyship")).unwrap();
    let lock = json!({"lock": 1, "packs": [{
        "name": "pyship", "version": "1.0.0", "path": "packs/pyship", "digest": digest,
        "requested": {"g.graph.json": "^1.0"}
    }]});
    std::fs::write(
        dir.path().join("primgraph.lock"),
        serde_json::to_string_pretty(&lock).unwrap(),
    )
    .unwrap();
    // The lock alone finds the pack (no --pack), and --locked is satisfied.
    let (code, out, err) = run_in(dir.path(), &["validate", "--locked", "g.graph.json"]);
    assert_eq!(code, 0, "{out}{err}");
    let trace = root().join(fixture("recorded.trace.jsonl"));
    let (code, out, err) = run_in(
        dir.path(),
        &["replay", "--graph", "g.graph.json", trace.to_str().unwrap()],
    );
    assert_eq!(code, 0, "replay reads the lock too: {out}{err}");
    // The pack edited without relocking: P806 in the lock, at the locked digest.
    let manifest = dir.path().join("packs/pyship/pack.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("Land the patch", "Land the change")).unwrap();
    let (code, out, _) = run_in(
        dir.path(),
        &["validate", "--format", "json", "g.graph.json"],
    );
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let found = findings(&doc);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "P806" && f.2.ends_with("primgraph.lock") && f.3 == 8),
        "{found:?}"
    );
}
