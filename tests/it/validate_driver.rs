//! The validation driver and the `validate`/`explain` commands: path collection, independence of
//! files, determinism across runs and thread counts, exit codes.

use primgraph::registry::Registry;
use primgraph::validate::{Options, collect_paths, try_check_paths};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

fn registry() -> Registry {
    Registry::from_path(&fixtures().join("registry.json")).unwrap_or_else(|e| panic!("{e}"))
}

fn primgraph(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run primgraph: {e}"))
}

#[test]
fn collect_paths_walks_folders_sorted_and_keeps_named_files() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path();
    std::fs::create_dir_all(root.join("b/deep")).unwrap_or_else(|e| panic!("{e}"));
    for name in [
        "b/deep/z.graph.json",
        "a.graph.json",
        "b/notes.json",
        "b/c.graph.json",
    ] {
        std::fs::write(root.join(name), "{}").unwrap_or_else(|e| panic!("{e}"));
    }
    let named = root.join("b/notes.json");
    let files = collect_paths(&[root.to_path_buf(), named.clone(), root.join("a.graph.json")])
        .unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<PathBuf> = vec![
        root.join("a.graph.json"),
        root.join("b/c.graph.json"),
        root.join("b/deep/z.graph.json"),
        named,
    ];
    let mut expected_sorted = expected.clone();
    expected_sorted.sort();
    assert_eq!(files, expected_sorted);
    assert!(collect_paths(&[root.join("missing")]).is_err());
}

#[test]
fn one_broken_file_does_not_hide_the_others() {
    let files = vec![
        fixtures().join("g001_fires.graph.json"),
        fixtures().join("a402_fires.graph.json"),
    ];
    let reports = try_check_paths(&files, &registry(), &Options::default(), 2)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reports.len(), 2);
    assert_eq!(
        reports[0].diagnostics.first().map(|d| d.code.as_str()),
        Some("G001")
    );
    assert!(reports[1].diagnostics.iter().any(|d| d.code == "A402"));
    assert_eq!(reports[1].graph.as_deref(), Some("fix-failing-test"));
}

#[test]
fn an_unreadable_file_is_a_failure_of_the_run_naming_it() {
    let missing = vec![fixtures().join("no_such.graph.json")];
    let error = try_check_paths(&missing, &registry(), &Options::default(), 1)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(error.contains("no_such.graph.json"), "{error}");
}

#[test]
fn output_is_identical_across_runs_and_thread_counts() {
    let files = collect_paths(&[fixtures()]).unwrap_or_else(|e| panic!("{e}"));
    assert!(files.len() >= 68, "{} fixtures", files.len());
    let registry = registry();
    let render = |jobs: usize| {
        serde_json::to_string(
            &try_check_paths(&files, &registry, &Options::default(), jobs)
                .unwrap_or_else(|e| panic!("{e}")),
        )
        .unwrap_or_default()
    };
    let first = render(1);
    for jobs in [1, 2, 4, 8] {
        assert_eq!(render(jobs), first, "jobs={jobs}");
    }
    let reports = try_check_paths(&files, &registry, &Options::default(), 3)
        .unwrap_or_else(|e| panic!("{e}"));
    for (report, file) in reports.iter().zip(&files) {
        assert_eq!(report.file, file.display().to_string());
        let keys: Vec<_> = report
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.line,
                    d.column,
                    d.code.as_str(),
                    d.pointer.clone(),
                    d.message.clone(),
                )
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted, "{}", report.file);
    }
}

#[test]
fn validate_exit_codes() {
    let registry = fixtures().join("registry.json");
    let registry = registry.to_str().unwrap_or_default();
    let file = |name: &str| fixtures().join(name).display().to_string();
    let run = |args: &[&str]| primgraph(args).status.code();
    // `primgraph validate --registry REGISTRY ARGS…`
    let validate = |args: &[&str]| run(&[&["validate", "--registry", registry], args].concat());
    let clean = file("a402_clean.graph.json");
    let broken = file("a402_fires.graph.json");
    let warning_only = file("s203_fires.graph.json");
    assert_eq!(validate(&[&clean]), Some(0));
    assert_eq!(validate(&["--format", "json", &broken]), Some(1));
    assert_eq!(validate(&[&clean, &broken, "--jobs", "2"]), Some(1));
    assert_eq!(validate(&[&warning_only]), Some(0));
    assert_eq!(validate(&["--deny-warnings", &warning_only]), Some(1));
    assert_eq!(validate(&[&file("missing.graph.json")]), Some(2));
    assert_eq!(
        run(&["validate", "--registry", "/no/such/registry.json", &clean]),
        Some(2)
    );
    assert_eq!(run(&["validate"]), Some(2));
}

#[test]
fn validate_json_output_is_one_document_with_a_summary() {
    let registry = fixtures().join("registry.json");
    let out = primgraph(&[
        "validate",
        "--registry",
        registry.to_str().unwrap_or_default(),
        "--format",
        "json",
        &fixtures()
            .join("a407_fires.graph.json")
            .display()
            .to_string(),
    ]);
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {:?}", out.stdout));
    assert_eq!(doc["summary"]["files"], 1);
    assert!(doc["summary"]["errors"].as_u64().unwrap_or(0) >= 1);
    let a407 = doc["files"][0]["diagnostics"]
        .as_array()
        .and_then(|ds| ds.iter().find(|d| d["code"] == "A407"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        a407["witness"]["path"],
        serde_json::json!(["apply", "done"])
    );
    assert_eq!(a407["pointer"], "/nodes/4");
}

#[test]
fn explain_prints_the_rule_file_header_and_rejects_unknown_codes() {
    let out = primgraph(&["explain", "A402"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let source = include_str!("../../src/rules/a402_grant_bypass.rs");
    assert_eq!(
        text,
        format!(
            "{}\n\nImplemented in `src/rules/a402_grant_bypass.rs`.\n",
            primgraph::codes::module_doc(source).trim_end()
        )
    );
    assert!(text.starts_with("A402: "));
    assert!(!text.contains("//!"));
    let out = primgraph(&["explain", "Z999"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("A407") && err.contains("G001"), "{err}");
}
