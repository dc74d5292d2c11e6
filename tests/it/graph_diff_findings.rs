//! `graph diff`'s findings introduced and resolved (SPEC §6.2 part 2) agree with two separate
//! validations of OLD and NEW: for every finding (code, node, message), the count NEW has minus
//! the count OLD has is what the diff introduces minus what it resolves, and no finding is both
//! introduced and resolved. Before issue 21 item 4, two different findings of one code on one
//! node cancelled each other: a new T304 beside a fixed T304 gave "0 introduced", exit 0.

use crate::common;

use common::primgraph;
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FIXTURES: &str = "tests/fixtures/rules";
const REGISTRY: &str = "tests/fixtures/rules/registry.json";

type Key = (String, Option<String>, String);

/// The node ID a `/nodes/N…` pointer names in `graph`.
fn node_of(graph: &Value, pointer: &str) -> Option<String> {
    let index: usize = pointer
        .strip_prefix("/nodes/")?
        .split('/')
        .next()?
        .parse()
        .ok()?;
    graph["nodes"][index]["id"].as_str().map(str::to_string)
}

/// What `validate --format json` reports for `path`, as (code, node, message) counts.
fn validated(path: &Path) -> BTreeMap<Key, i64> {
    let graph: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let (_, out, err) = primgraph(&[
        "validate",
        "--registry",
        REGISTRY,
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let mut counts = BTreeMap::new();
    for d in report["files"][0]["diagnostics"].as_array().unwrap() {
        let key = (
            d["code"].as_str().unwrap().to_string(),
            node_of(&graph, d["pointer"].as_str().unwrap()),
            d["message"].as_str().unwrap().to_string(),
        );
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// `graph diff OLD NEW --format json`: exit code and the findings as (code, node, message)
/// counts, introduced and resolved.
fn diffed(old: &Path, new: &Path) -> (i32, BTreeMap<Key, i64>, BTreeMap<Key, i64>) {
    let (code, out, err) = primgraph(&[
        "graph",
        "diff",
        "--registry",
        REGISTRY,
        "--format",
        "json",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let side = |name: &str| {
        let mut counts = BTreeMap::new();
        for f in report["findings"][name].as_array().unwrap() {
            let key = (
                f["code"].as_str().unwrap().to_string(),
                f["node"].as_str().map(str::to_string),
                f["message"].as_str().unwrap().to_string(),
            );
            *counts.entry(key).or_insert(0) += 1;
        }
        counts
    };
    (code, side("introduced"), side("resolved"))
}

fn fixtures() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".graph.json"))
        // Graphs that load: a diff of a graph that does not load is exit 2, not findings.
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !["g00", "r101"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
        })
        .collect();
    paths.sort();
    paths
}

#[test]
fn a_new_finding_beside_a_fixed_one_of_the_same_code_and_node_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let old_text =
        std::fs::read_to_string(Path::new(FIXTURES).join("t304_fires.graph.json")).unwrap();
    // OLD: `apply` binds `patch` from `draft` at `/diff`, which `synth.patch` does not
    // declare (T304). NEW fixes that pointer and breaks `grant` of the same node the same way.
    let fixed = r#""patch": {"from": "draft", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant_token"}"#;
    let broken =
        r#""patch": {"from": "draft", "at": "/diff"}, "grant": {"from": "gate", "at": "/grant"}"#;
    assert!(old_text.contains(broken));
    let new_text = old_text.replace(broken, fixed);
    let (old_path, new_path) = (
        dir.path().join("old.graph.json"),
        dir.path().join("new.graph.json"),
    );
    std::fs::write(&old_path, &old_text).unwrap();
    std::fs::write(&new_path, &new_text).unwrap();
    let t304_on_apply = |m: &BTreeMap<Key, i64>| {
        m.iter()
            .filter(|(k, _)| k.0 == "T304" && k.1.as_deref() == Some("apply"))
            .map(|(_, n)| n)
            .sum::<i64>()
    };
    assert_eq!(t304_on_apply(&validated(&old_path)), 1);
    assert_eq!(t304_on_apply(&validated(&new_path)), 1);
    let (code, introduced, resolved) = diffed(&old_path, &new_path);
    assert_eq!(t304_on_apply(&introduced), 1, "introduced: {introduced:?}");
    assert_eq!(t304_on_apply(&resolved), 1, "resolved: {resolved:?}");
    assert_eq!(code, 1, "NEW introduces an error: graph diff fails");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn introduced_and_resolved_match_two_separate_validations(
        a in 0usize..1000, b in 0usize..1000
    ) {
        let paths = fixtures();
        let (old, new) = (&paths[a % paths.len()], &paths[b % paths.len()]);
        let (old_counts, new_counts) = (validated(old), validated(new));
        let (_, introduced, resolved) = diffed(old, new);
        let keys: std::collections::BTreeSet<&Key> = old_counts
            .keys()
            .chain(new_counts.keys())
            .chain(introduced.keys())
            .chain(resolved.keys())
            .collect();
        for key in keys {
            let get = |m: &BTreeMap<Key, i64>| m.get(key).copied().unwrap_or(0);
            prop_assert_eq!(
                get(&new_counts) - get(&old_counts),
                get(&introduced) - get(&resolved),
                "{:?} ({} → {})", key, old.display(), new.display()
            );
            prop_assert!(get(&introduced) == 0 || get(&resolved) == 0, "{:?}", key);
        }
    }
}
