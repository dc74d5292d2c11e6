//! `primgraph registry diff` as a user runs it: exit codes (0 clean, 1 findings, 2 unusable
//! input), located errors for files that are not registries, the lint gate on NEW, the §6.1
//! JSON document, SARIF with NEW's file as the artifact, Markdown, `--deny-warnings`,
//! `--graphs`, and `explain` for every V code.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const CASES: &str = "tests/fixtures/registry-diff";

fn primgraph(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .output()
        .expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn case(name: &str) -> String {
    format!("{CASES}/{name}/new.json")
}

fn base() -> String {
    format!("{CASES}/base.json")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn json(args: &[&str]) -> (i32, Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, stdout, stderr) = primgraph(&all);
    let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {stderr}"));
    (code, doc)
}

#[test]
fn old_equal_to_new_has_no_differences_and_bump_none() {
    let (code, doc) = json(&["registry", "diff", "builtin", "builtin"]);
    assert_eq!(code, 0);
    assert_eq!(doc["required_bump"], "none");
    assert_eq!(doc["diagnostics"], Value::Array(vec![]));
    assert_eq!(
        doc["summary"],
        serde_json::json!({"errors": 0, "warnings": 0, "infos": 0})
    );
    let (code, doc) = json(&["registry", "diff", &base(), &base()]);
    assert_eq!((code, doc["required_bump"].as_str()), (0, Some("none")));
}

#[test]
fn the_json_document_has_the_spec_shape() {
    let (code, doc) = json(&["registry", "diff", &base(), &case("v705-input-narrowed")]);
    assert_eq!(code, 1);
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["old", "new", "required_bump", "diagnostics", "summary"]
    );
    assert_eq!(
        doc["old"],
        serde_json::json!({"file": base(), "abi": "1.0.0"})
    );
    assert_eq!(doc["new"]["abi"], "2.0.0");
    assert_eq!(doc["required_bump"], "major");
    let d = &doc["diagnostics"][0];
    for key in [
        "file",
        "primitive",
        "code",
        "severity",
        "message",
        "pointer",
        "line",
        "column",
        "related",
        "witness",
        "help",
        "verdict",
        "reason",
    ] {
        assert!(d.get(key).is_some(), "no {key} in {d}");
    }
    assert_eq!(d["code"], "V705");
    assert_eq!(d["primitive"], "obs.list_files");
    assert_eq!(d["verdict"], "no");
    assert_eq!(d["witness"]["value"], serde_json::json!({"path": "a"}));
    assert_eq!(doc["summary"]["errors"], 1);
}

#[test]
fn a_file_that_is_not_a_registry_exits_2_located() {
    let dir = tempfile::tempdir().unwrap();
    let not_json = write(dir.path(), "a.json", "{\n  \"abi\": 1.0.0\n}\n");
    let (code, stdout, stderr) =
        primgraph(&["registry", "diff", "builtin", not_json.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!("{}:2:", not_json.display())),
        "{stderr}"
    );
    let shape = write(
        dir.path(),
        "b.json",
        "{\"abi\": \"1.0.0\", \"families\": []}\n",
    );
    let (code, _, stderr) = primgraph(&["registry", "diff", shape.to_str().unwrap(), "builtin"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("OLD") && stderr.contains("b.json:1:"),
        "{stderr}"
    );
    let (code, _, stderr) = primgraph(&["registry", "diff", "builtin", "/no/such/file.json"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/no/such/file.json"), "{stderr}");
}

#[test]
fn a_new_registry_that_fails_its_lint_reports_the_findings_and_exits_2() {
    let broken = "tests/fixtures/registry/l507_dangling_fallback.json";
    let (code, stdout, stderr) = primgraph(&["registry", "diff", "builtin", broken]);
    assert_eq!(code, 2);
    assert!(stdout.contains("error[L507]"), "{stdout}");
    assert!(stdout.contains(&format!("{broken}:")), "{stdout}");
    assert!(stderr.contains("fails its own lint"), "{stderr}");
    let (code, stdout, _) = primgraph(&["registry", "diff", "builtin", broken, "--format", "json"]);
    assert_eq!(code, 2);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["files"][0]["diagnostics"][0]["code"], "L507");
}

#[test]
fn different_majors_with_everything_removed_give_every_v701_located() {
    let (code, doc) = json(&[
        "registry",
        "diff",
        "builtin",
        &case("everything-removed-new-major"),
    ]);
    assert_eq!(code, 1);
    let removed: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "V701")
        .collect();
    assert_eq!(removed.len(), 191);
    let builtin = primgraph::registry::BUILTIN_JSON;
    for d in removed {
        assert_eq!(d["file"], "<builtin kernel-abi-1.0.0.json>");
        let line = d["line"].as_u64().unwrap() as usize;
        assert_eq!(builtin.lines().nth(line - 1).unwrap().trim(), "{", "{d}");
    }
}

#[test]
fn abi_rise_too_small_is_v718_and_exits_1() {
    let (code, doc) = json(&["registry", "diff", &base(), &case("v718-abi-not-raised")]);
    assert_eq!(code, 1);
    let v718: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "V718")
        .collect();
    assert_eq!(v718.len(), 1);
    assert_eq!(v718[0]["pointer"], "/abi");
    assert!(v718[0]["help"].as_str().unwrap().contains("2.0.0"));
}

#[test]
fn deny_warnings_turns_a_warning_only_diff_into_exit_1() {
    let new = case("v713-effect-removed");
    let (code, _, _) = primgraph(&["registry", "diff", &base(), &new]);
    assert_eq!(code, 0);
    let (code, _, _) = primgraph(&["registry", "diff", &base(), &new, "--deny-warnings"]);
    assert_eq!(code, 1);
    // Infos never fail.
    let (code, _, _) = primgraph(&[
        "registry",
        "diff",
        &base(),
        &case("v703-primitive-added"),
        "--deny-warnings",
    ]);
    assert_eq!(code, 0);
}

#[test]
fn human_output_is_rustc_like_with_witness_and_help() {
    let (code, stdout, _) = primgraph(&["registry", "diff", &base(), &case("v705-input-narrowed")]);
    assert_eq!(code, 1);
    assert!(stdout.contains("required bump major"), "{stdout}");
    assert!(
        stdout.contains("error[V705]: `obs.list_files`: inputs narrowed"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("--> {}:55:7", case("v705-input-narrowed"))),
        "{stdout}"
    );
    assert!(
        stdout.contains("= note: witness: {\"path\":\"a\"}"),
        "{stdout}"
    );
    assert!(stdout.contains("= help: "), "{stdout}");
    assert!(stdout.contains("1 error, 0 warnings, 0 infos"), "{stdout}");
}

#[test]
fn sarif_puts_every_registry_finding_in_news_file() {
    let new = case("v707-output-location-gone");
    let (code, stdout, _) = primgraph(&["registry", "diff", &base(), &new, "--format", "sarif"]);
    assert_eq!(code, 1);
    let log: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], new.as_str());
        assert!(loc["region"]["startLine"].as_u64().unwrap() > 1);
    }
    let v707 = results.iter().find(|r| r["ruleId"] == "V707").unwrap();
    assert!(
        v707["message"]["text"]
            .as_str()
            .unwrap()
            .contains("in OLD: ")
    );
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(rules.iter().any(|r| {
        r["id"] == "V707"
            && r["help"]["text"]
                .as_str()
                .unwrap()
                .contains("What it checks")
    }));
}

#[test]
fn markdown_is_a_table_row_per_finding() {
    let (code, stdout, _) = primgraph(&[
        "registry",
        "diff",
        &base(),
        &case("v718-abi-not-raised"),
        "--format",
        "markdown",
    ]);
    assert_eq!(code, 1);
    assert!(stdout.starts_with("### registry diff"), "{stdout}");
    assert!(
        stdout.contains("| | code | primitive | where | what |"),
        "{stdout}"
    );
    let rows = stdout.lines().filter(|l| l.starts_with("| ❌")).count();
    assert_eq!(rows, 2, "{stdout}");
    assert!(
        stdout.contains("**2 errors, 0 warnings, 0 infos**"),
        "{stdout}"
    );
}

#[test]
fn graphs_gate_reports_v719_with_the_new_errors_as_related_locations() {
    let dir = format!("{CASES}/v719-graph-broken");
    let (code, doc) = json(&[
        "registry",
        "diff",
        &base(),
        &format!("{dir}/new.json"),
        "--graphs",
        &format!("{dir}/graphs"),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        doc["graphs"],
        serde_json::json!({"checked": 3, "failing_under_old": 1, "broken": 1})
    );
    let v719: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "V719")
        .collect();
    assert_eq!(v719.len(), 1);
    let related = &v719[0]["related"][0];
    assert!(
        related["file"]
            .as_str()
            .unwrap()
            .ends_with("list-then-finish.graph.json")
    );
    assert_eq!(related["pointer"], "/nodes/0/inputs");
    assert!(related["message"].as_str().unwrap().starts_with("T302: "));
    assert!(related["line"].as_u64().unwrap() > 0);
    // A major bump alone is not a finding: the graph targets 1.0.0, NEW is 2.0.0, and the
    // untouched graph does not break.
    let (code, doc) = json(&[
        "registry",
        "diff",
        &base(),
        &case("v712-fallback-added"),
        "--graphs",
        &format!("{dir}/graphs"),
    ]);
    assert_eq!(code, 1);
    assert!(
        doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["code"] != "V719")
    );
    let (code, _, stderr) = primgraph(&[
        "registry",
        "diff",
        &base(),
        &base(),
        "--graphs",
        "/no/such/dir",
    ]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn explain_documents_every_v_code() {
    for n in 1..=20 {
        let code = format!("V7{n:02}");
        let (exit, stdout, _) = primgraph(&["explain", &code]);
        assert_eq!(exit, 0, "{code}");
        assert!(stdout.starts_with(&code), "{stdout}");
        assert!(stdout.contains("## Implements\n\nSPEC §6.1"), "{code}");
    }
}
