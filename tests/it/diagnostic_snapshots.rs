//! Whole diagnostics pinned: the binary's human and JSON output (stdout, stderr and exit code)
//! for every rule fixture (`tests/fixtures/rules/*.graph.json`, against their test registry),
//! every lint fixture (`tests/fixtures/registry/*.json`) and every replay fixture
//! (`tests/fixtures/replay/*.trace.jsonl`, one a D code), as committed `insta` snapshots in
//! `tests/it/snapshots/`. A change of wording, column, witness, related location or help shows in
//! review as a snapshot diff.
//!
//! Updating: `INSTA_UPDATE=always cargo test --test it diagnostic_snapshots::` rewrites the changed
//! snapshots; review them with `git diff tests/it/snapshots/` before committing. CI runs with
//! `CI=true` (insta then never writes a snapshot and fails on any mismatch or missing one) and
//! `.ci/run` sets `INSTA_UPDATE=no` besides.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The fixtures of `dir` whose names end with `suffix`, sorted, relative to the crate root.
fn fixtures(dir: &str, suffix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
        .map(|p| Path::new(dir).join(p.file_name().expect("a file name")))
        .collect();
    found.sort();
    assert!(!found.is_empty(), "no fixtures in {dir}");
    found
}

/// `primgraph ARGS…` run from the crate root, as a snapshot body.
fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .current_dir(root())
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .output()
        .expect("run primgraph");
    let mut text = format!(
        "$ primgraph {}\nexit: {:?}\n",
        args.join(" "),
        out.status.code()
    );
    text.push_str("--- stdout\n");
    text.push_str(&String::from_utf8_lossy(&out.stdout));
    if !out.stderr.is_empty() {
        text.push_str("--- stderr\n");
        text.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    text
}

fn stem(path: &Path, suffix: &str) -> String {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name.strip_suffix(suffix).unwrap_or(name).to_string()
}

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

#[test]
fn rule_fixtures() {
    let registry = "tests/fixtures/rules/registry.json";
    settings().bind(|| {
        for path in fixtures("tests/fixtures/rules", ".graph.json") {
            let file = path.to_str().expect("a UTF-8 path");
            let name = stem(&path, ".graph.json");
            let human = run(&["validate", "--registry", registry, file]);
            insta::assert_snapshot!(format!("rules__{name}__human"), human);
            let json = run(&["validate", "--registry", registry, "--format", "json", file]);
            insta::assert_snapshot!(format!("rules__{name}__json"), json);
        }
    });
}

#[test]
fn lint_fixtures() {
    settings().bind(|| {
        for path in fixtures("tests/fixtures/registry", ".json") {
            let file = path.to_str().expect("a UTF-8 path");
            let name = stem(&path, ".json");
            let human = run(&["registry", "lint", file]);
            insta::assert_snapshot!(format!("lint__{name}__human"), human);
            let json = run(&["registry", "lint", "--format", "json", file]);
            insta::assert_snapshot!(format!("lint__{name}__json"), json);
        }
    });
}

/// One trace a D code (`dNNN.trace.jsonl`, against `dNNN.graph.json` when it exists, else the
/// fixture graph) and the faithful run they depart from.
#[test]
fn replay_fixtures() {
    let dir = "tests/fixtures/replay";
    let registry = "tests/fixtures/replay/registry.json";
    let traces = fixtures(dir, ".trace.jsonl");
    for n in 601..=617 {
        let want = format!("{dir}/d{n}.trace.jsonl");
        assert!(
            traces.iter().any(|t| t.to_str() == Some(want.as_str())),
            "no fixture {want}"
        );
    }
    settings().bind(|| {
        for path in traces {
            let file = path.to_str().expect("a UTF-8 path");
            let name = stem(&path, ".trace.jsonl");
            let own = format!("{dir}/{name}.graph.json");
            let graph = if root().join(&own).exists() {
                own
            } else {
                format!("{dir}/fix.graph.json")
            };
            let base = [
                "replay",
                "--graph",
                &graph,
                "--registry",
                registry,
                "--jobs",
                "1",
            ];
            let human = run(&[&base[..], &[file]].concat());
            insta::assert_snapshot!(format!("replay__{name}__human"), human);
            let json = run(&[&base[..], &["--format", "json", file]].concat());
            insta::assert_snapshot!(format!("replay__{name}__json"), json);
        }
    });
}
