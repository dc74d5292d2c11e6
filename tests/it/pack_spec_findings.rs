//! `pack lint`, `pack test` and `pack diff` as SPEC §9.5 words them, run through the built
//! binary on scratch packs: a warning is a lint finding (exit 1), every fragment's own
//! primitives are checked and a fragment no fixture uses is reported, a NEW that only fails at
//! composition is unusable input for `pack diff` (exit 2), its JSON sides carry §6.1's `abi`, an
//! identical diagnostic is printed once, and files are listed by path (§3.1).

use crate::common::copy_dir;
use serde_json::{Value, json};
use std::path::Path;

const EXAMPLE: &str = "registry/packs/pyrepo";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Run the binary in the checkout: exit code, stdout, stderr.
fn primgraph(args: &[&str]) -> (i32, String, String) {
    crate::common::primgraph_in(root(), args)
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn write_pack(dir: &Path, name: &str, manifest: &Value) -> String {
    let pack = dir.join(name);
    std::fs::create_dir_all(&pack).unwrap();
    std::fs::write(
        pack.join("pack.json"),
        serde_json::to_string_pretty(manifest).unwrap(),
    )
    .unwrap();
    pack.display().to_string()
}

/// A copy of the example pack in a scratch folder.
fn example_copy(dir: &Path) -> std::path::PathBuf {
    let copy = dir.join("pyrepo");
    copy_dir(&root().join(EXAMPLE), &copy);
    copy
}

/// (file, code, pointer) of every diagnostic of a §3.1 JSON document, in order.
fn findings(doc: &Value) -> Vec<(String, String, String)> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["diagnostics"].as_array().unwrap().iter().map(move |d| {
                (
                    d["file"]
                        .as_str()
                        .or(f["file"].as_str())
                        .unwrap()
                        .to_string(),
                    d["code"].as_str().unwrap().to_string(),
                    d["pointer"].as_str().unwrap().to_string(),
                )
            })
        })
        .collect()
}

#[test]
fn pack_diff_json_sides_carry_the_abi_of_6_1_and_the_version() {
    let tmp = tempfile::tempdir().unwrap();
    let old = write_pack(tmp.path(), "old", &crate::common::mini_pack());
    let mut newer = crate::common::mini_pack();
    newer["version"] = json!("1.1.0");
    let new = write_pack(tmp.path(), "new", &newer);
    let (code, out, err) = primgraph(&["pack", "diff", &old, &new, "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json_of(&out);
    assert_eq!(doc["old"]["abi"], "1.0.0", "{doc}");
    assert_eq!(doc["new"]["abi"], "1.1.0", "{doc}");
    assert_eq!(doc["old"]["version"], "1.0.0", "{doc}");
    assert_eq!(doc["new"]["version"], "1.1.0", "{doc}");
}

#[test]
fn a_lint_warning_is_a_finding_of_pack_lint_and_pack_test() {
    let tmp = tempfile::tempdir().unwrap();
    let mut manifest = crate::common::mini_pack();
    manifest["rules"] = json!([{"id": "x", "severity": "error", "kind": "bounded",
        "target": {"primitive": "zzz.*"}, "max_visits": 2}]);
    let pack = write_pack(tmp.path(), "mini", &manifest);
    let (code, out, _) = primgraph(&["pack", "lint", &pack]);
    assert!(out.contains("warning[P841]"), "{out}");
    assert!(out.contains("0 errors, 1 warning"), "{out}");
    assert_eq!(
        code, 1,
        "a warning is a finding (SPEC §9.5: 1 findings): {out}"
    );
    let (code, out, _) = primgraph(&["pack", "test", &pack]);
    assert_eq!(code, 1, "pack test is consistent with lint: {out}");
    // Without the rule: clean, exit 0.
    let clean = write_pack(tmp.path(), "clean", &crate::common::mini_pack());
    assert_eq!(primgraph(&["pack", "lint", &clean]).0, 0);
}

#[test]
fn the_example_pack_is_clean_under_lint_and_test() {
    let (code, out, _) = primgraph(&["pack", "lint", EXAMPLE]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 errors, 0 warnings"), "{out}");
    let (code, out, _) = primgraph(&["pack", "test", EXAMPLE, "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(json_of(&out)["summary"]["warnings"], 0, "{out}");
}

/// A copy of the example with `fragments/unused-one.fragment.json`: `apply-and-test` renamed,
/// its first node's primitive `pyrepo.nope`.
fn with_unused_fragment(dir: &Path) -> std::path::PathBuf {
    let pack = example_copy(dir);
    let fragments = pack.join("fragments");
    let text = std::fs::read_to_string(fragments.join("apply-and-test.fragment.json")).unwrap();
    let mut fragment: Value = serde_json::from_str(&text).unwrap();
    fragment["fragment"] = json!("unused-one");
    fragment["nodes"][0]["primitive"] = json!("pyrepo.nope");
    std::fs::write(
        fragments.join("unused-one.fragment.json"),
        serde_json::to_string_pretty(&fragment).unwrap(),
    )
    .unwrap();
    pack
}

#[test]
fn pack_lint_checks_every_fragments_primitives_as_validate_does() {
    let tmp = tempfile::tempdir().unwrap();
    let pack = with_unused_fragment(tmp.path());
    let pack = pack.display().to_string();
    let (code, out, _) = primgraph(&["pack", "lint", &pack, "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let doc = json_of(&out);
    let file = format!("{pack}/fragments/unused-one.fragment.json");
    assert_eq!(
        findings(&doc),
        [(file, "R101".into(), "/nodes/0/primitive".into())],
        "{doc}"
    );
    let r101 = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap())
        .find(|d| d["code"] == "R101")
        .unwrap();
    assert!(r101["message"].as_str().unwrap().contains("`pyrepo.nope`"));
    assert!(
        r101["help"].as_str().unwrap().starts_with("did you mean"),
        "{r101}"
    );
    assert!(r101["line"].as_u64().unwrap() > 1, "located: {r101}");
}

#[test]
fn pack_test_reports_a_fragment_no_fixture_graph_uses() {
    let tmp = tempfile::tempdir().unwrap();
    let pack = with_unused_fragment(tmp.path());
    let pack = pack.display().to_string();
    let (code, out, _) = primgraph(&["pack", "test", &pack, "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let got = findings(&json_of(&out));
    let file = format!("{pack}/fragments/unused-one.fragment.json");
    assert!(
        got.contains(&(file.clone(), "P850".into(), "/fragment".into())),
        "{got:?}"
    );
    // The fragments the fixture graphs use, nested ones included, are not reported.
    assert_eq!(
        got.iter().filter(|(_, c, _)| c == "P850").count(),
        1,
        "{got:?}"
    );
    assert!(got.contains(&(file, "R101".into(), "/nodes/0/primitive".into())));
}

#[test]
fn pack_diff_of_a_new_that_fails_at_composition_is_exit_2_with_the_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let old = write_pack(tmp.path(), "old", &crate::common::mini_pack());
    let mut broken = crate::common::mini_pack();
    broken["primitives"][0]["failure_modes"] = json!(["made_up"]);
    let new = write_pack(tmp.path(), "new", &broken);
    let (code, out, err) = primgraph(&["pack", "diff", &old, &new]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("error[P808]"), "{out}");
    assert!(out.contains("/primitives/0/failure_modes/0"), "{out}");
    assert!(
        err.contains("NEW") && err.contains("does not load"),
        "{err}"
    );
    let (code, out, _) = primgraph(&["pack", "diff", &old, &new, "--format", "json"]);
    assert_eq!(code, 2);
    let got = findings(&json_of(&out));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].1, "P808");
}

#[test]
fn an_ill_shaped_family_is_reported_once() {
    let tmp = tempfile::tempdir().unwrap();
    let mut manifest = crate::common::mini_pack();
    manifest["families"][0]
        .as_object_mut()
        .unwrap()
        .remove("group");
    let pack = write_pack(tmp.path(), "mini", &manifest);
    let (code, out, _) = primgraph(&["pack", "lint", &pack, "--format", "json"]);
    assert_eq!(code, 1);
    let got = findings(&json_of(&out));
    assert_eq!(
        got,
        [(
            format!("{pack}/pack.json"),
            "P801".into(),
            "/families/0".into()
        )]
    );
    // A primitive that is not an object: once too.
    let mut manifest = crate::common::mini_pack();
    manifest["primitives"] = json!([7]);
    let pack = write_pack(tmp.path(), "seven", &manifest);
    let got = findings(&json_of(
        &primgraph(&["pack", "lint", &pack, "--format", "json"]).1,
    ));
    assert_eq!(
        got.iter().filter(|(_, _, p)| p == "/primitives/0").count(),
        1,
        "{got:?}"
    );
}

#[test]
fn pack_test_reports_a_broken_fragment_once() {
    let tmp = tempfile::tempdir().unwrap();
    let pack = example_copy(tmp.path());
    let file = pack.join("fragments/apply-and-test.fragment.json");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replacen('{', "{\"summary\": \"x\",", 1)).unwrap();
    let pack = pack.display().to_string();
    let (code, out, _) = primgraph(&["pack", "test", &pack, "--format", "json"]);
    assert_eq!(code, 1);
    let got = findings(&json_of(&out));
    let dup = (
        format!("{pack}/fragments/apply-and-test.fragment.json"),
        "P801".to_string(),
        "/summary".to_string(),
    );
    assert_eq!(got.iter().filter(|f| **f == dup).count(), 1, "{got:?}");
}

#[test]
fn pack_test_and_lint_list_files_by_path() {
    let tmp = tempfile::tempdir().unwrap();
    let pack = example_copy(tmp.path());
    // A run without an expectation: a P850 in pack.json, after the fixture files by path.
    let expect = pack.join("fixtures/expect.json");
    let mut doc: Value = json_of(&std::fs::read_to_string(&expect).unwrap());
    let first = doc.as_object().unwrap().keys().next().unwrap().clone();
    doc.as_object_mut().unwrap().remove(&first);
    std::fs::write(&expect, doc.to_string()).unwrap();
    let pack = pack.display().to_string();
    for command in ["test", "lint"] {
        let (_, out, _) = primgraph(&["pack", command, &pack, "--format", "json"]);
        let doc = json_of(&out);
        let files: Vec<&str> = doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file"].as_str().unwrap())
            .collect();
        let mut sorted = files.clone();
        sorted.sort();
        assert_eq!(files, sorted, "{command}");
    }
    let (code, out, _) = primgraph(&["pack", "test", &pack]);
    assert_eq!(code, 1);
    let expect_at = out.find("fixtures/").unwrap();
    let manifest_at = out.find("pyrepo/pack.json").unwrap();
    assert!(expect_at < manifest_at, "{out}");
}
