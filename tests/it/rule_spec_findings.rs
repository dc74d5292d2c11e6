//! The graph document's required fields and the pack rules' wording as SPEC §2, §5 and §9.4
//! say them, run through the built binary: a graph without `capabilities` is one G003 at the
//! root (not R104 per node), a mistyped `packs` entry and an unknown selector value read as
//! sentences, `pack diff` refuses two different packs (exit 2), SARIF fingerprints tell
//! apart one fragment node reached through two uses or from two graphs, and a `"*"` branch
//! passes a rule's `outcome` when that outcome is all it can carry.

use serde_json::{Value, json};
use std::path::Path;

fn primgraph_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    crate::common::primgraph_in(cwd, args)
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// (code, pointer, message) of every diagnostic of a §3.1 JSON document, in order.
fn findings(doc: &Value) -> Vec<(String, String, String)> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["diagnostics"].as_array().unwrap().iter().map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["pointer"].as_str().unwrap().to_string(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
        })
        .collect()
}

fn write(path: &Path, doc: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(doc).unwrap()).unwrap();
}

/// A two-node graph over the built-in registry.
fn small_graph() -> Value {
    json!({"graph": "t", "abi": "1.0.0", "capabilities": ["done.*"], "entry": "end",
        "nodes": [{"id": "end", "primitive": "done.report_failure",
                   "inputs": {"reason": {"const": "tests_still_failing"}}}]})
}

fn validate_json(dir: &Path, file: &str, extra: &[&str]) -> (i32, Vec<(String, String, String)>) {
    let mut args = vec!["validate", file, "--format", "json"];
    args.extend_from_slice(extra);
    let (code, out, err) = primgraph_in(dir, &args);
    assert_ne!(code, 2, "{out}{err}");
    (code, findings(&json_of(&out)))
}

#[test]
fn a_graph_without_capabilities_is_one_g003_at_the_root() {
    let tmp = tempfile::tempdir().unwrap();
    let mut graph = small_graph();
    write(&tmp.path().join("ok.graph.json"), &graph);
    assert_eq!(validate_json(tmp.path(), "ok.graph.json", &[]), (0, vec![]));
    graph.as_object_mut().unwrap().remove("capabilities");
    write(&tmp.path().join("bare.graph.json"), &graph);
    let (code, found) = validate_json(tmp.path(), "bare.graph.json", &[]);
    assert_eq!(code, 1);
    assert_eq!(found.len(), 1, "{found:?}");
    let (code, pointer, message) = &found[0];
    assert_eq!((code.as_str(), pointer.as_str()), ("G003", ""));
    assert!(
        message.contains("missing required field `capabilities`"),
        "{message}"
    );
    // An empty list is a declared, empty tool boundary: R104 at each node.
    graph["capabilities"] = json!([]);
    write(&tmp.path().join("empty.graph.json"), &graph);
    let (code, found) = validate_json(tmp.path(), "empty.graph.json", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        found
            .iter()
            .map(|f| (f.0.as_str(), f.1.as_str()))
            .collect::<Vec<_>>(),
        vec![("R104", "/nodes/0/primitive")]
    );
}

#[test]
fn a_mistyped_packs_entry_names_the_pack_in_one_sentence() {
    let tmp = tempfile::tempdir().unwrap();
    let mut graph = small_graph();
    graph["packs"] = json!({"pyrepo": 1});
    write(&tmp.path().join("g.graph.json"), &graph);
    let (code, found) = validate_json(tmp.path(), "g.graph.json", &[]);
    assert_eq!(code, 1);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0],
        (
            "G003".to_string(),
            "/packs/pyrepo".to_string(),
            "the `packs` entry for `pyrepo` must be a semver range string such as \"^1.2\", \
             found an integer"
                .to_string()
        )
    );
}

#[test]
fn an_unknown_selector_class_lists_the_known_classes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut pack = crate::common::mini_pack();
    pack["rules"] = json!([{"id": "r", "severity": "error", "kind": "requires_before",
        "target": {"class": "determinstic"}, "through": {"primitive": "mini.look"}}]);
    write(&tmp.path().join("mini/pack.json"), &pack);
    let (code, out, err) = primgraph_in(tmp.path(), &["pack", "lint", "mini", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let found = findings(&json_of(&out));
    let p840 = found
        .iter()
        .find(|f| f.0 == "P840")
        .unwrap_or_else(|| panic!("no P840 in {found:?}"));
    assert_eq!(p840.1, "/rules/0/target/class");
    assert!(
        p840.2.ends_with(
            "unknown class `determinstic`; the known values of `class` are deterministic, \
                 s1_decision, generation, verification, policy, mutation, retrieval"
        ),
        "{}",
        p840.2
    );
}

#[test]
fn pack_diff_of_two_different_packs_is_refused_naming_both() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("fg/pack.json"),
        &crate::common::mini_pack(),
    );
    let mut other = crate::common::mini_pack();
    other["pack"] = json!("fh");
    write(&tmp.path().join("fh/pack.json"), &other);
    let (code, out, err) = primgraph_in(tmp.path(), &["pack", "diff", "fg", "fh"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("two versions of one pack")
            && err.contains("pack `mini`")
            && err.contains("pack `fh`"),
        "{err}"
    );
    assert!(!out.contains("required bump"), "{out}");
    // The same pack in two folders is compared as before.
    write(
        &tmp.path().join("fh/pack.json"),
        &crate::common::mini_pack(),
    );
    let (code, out, err) = primgraph_in(tmp.path(), &["pack", "diff", "fg", "fh"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// A graph using one fragment of the example pack twice, whose `land` breaks the pack's
/// `land-after-tests` rule at each use.
fn twice_graph(name: &str) -> Value {
    let uses = |id: &str, landed: &str| {
        json!({"id": id, "fragment": "pyrepo/review-and-land",
            "inputs": {"diff": {"const": "d"}, "issue": {"const": "i"}, "message": {"const": "m"}},
            "exits": {"landed": landed, "rework": "fail", "failed": "fail"}})
    };
    json!({"graph": name, "abi": "1.0.0", "capabilities": ["pyrepo.*", "done.*"],
        "packs": {"pyrepo": "*"}, "entry": "first",
        "nodes": [uses("first", "second"), uses("second", "done"),
            {"id": "done", "primitive": "done.finish_success"},
            {"id": "fail", "primitive": "done.report_failure",
             "inputs": {"reason": {"const": "other"}}}]})
}

#[test]
fn sarif_fingerprints_tell_apart_one_fragment_node_reached_through_two_uses_or_two_graphs() {
    let tmp = tempfile::tempdir().unwrap();
    crate::common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("registry/packs/pyrepo"),
        &tmp.path().join("packs/pyrepo"),
    );
    write(&tmp.path().join("graphs/a.graph.json"), &twice_graph("a"));
    write(&tmp.path().join("graphs/b.graph.json"), &twice_graph("b"));
    let run = || {
        let (code, out, err) = primgraph_in(
            tmp.path(),
            &["validate", "graphs", "--pack", "packs", "--format", "sarif"],
        );
        assert_eq!(code, 1, "{out}{err}");
        let doc = json_of(&out);
        doc["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert_eq!(r["ruleId"], "pyrepo/land-after-tests", "{r}");
                let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap();
                assert!(uri.ends_with("review-and-land.fragment.json"), "{uri}");
                r["partialFingerprints"]["primgraphPointer/v1"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    let first = run();
    // Two uses in each of two graphs: four results at one fragment node, four fingerprints.
    assert_eq!(first.len(), 4, "{first:?}");
    let distinct: std::collections::BTreeSet<_> = first.iter().collect();
    assert_eq!(distinct.len(), 4, "{first:?}");
    // ... the same ones run after run.
    assert_eq!(run(), first);
}

/// A graph whose decision node `review` (`dec.accept_reject`: accept / revise / reject) reaches
/// `done` through the given branches, and a pack whose rule requires reaching `done` through
/// its `accept` branch.
fn review_graph(branches: Value) -> Value {
    json!({"graph": "review", "abi": "1.0.0", "capabilities": ["dec.*", "done.*"],
        "packs": {"gates": "^1.0"}, "entry": "review",
        "nodes": [
            {"id": "review", "primitive": "dec.accept_reject",
             "inputs": {"candidate": {"const": "patch"}, "criteria": {"const": ["tests pass"]}},
             "branches": branches},
            {"id": "done", "primitive": "done.finish_success", "inputs": {}},
            {"id": "fail", "primitive": "done.report_failure",
             "inputs": {"reason": {"const": "other"}}}]})
}

#[test]
fn a_star_branch_passes_a_rule_outcome_exactly_when_that_outcome_is_all_it_carries() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("packs/gates/pack.json"),
        &json!({"pack": "gates", "version": "1.0.0", "summary": "Rules on kernel decisions.",
            "kernel_abi": "^1.0", "roots": ["gates"],
            "rules": [{"id": "accepted", "severity": "error", "kind": "requires_before",
                "target": {"primitive": "done.finish_success"},
                "through": {"primitive": "dec.accept_reject", "outcome": "accept"}}]}),
    );
    let cases = [
        // `"*"` covers the outcomes no other branch names (SPEC §2): here `accept` alone.
        (
            "only-accept",
            json!({"revise": "fail", "reject": "fail", "*": "done"}),
            false,
        ),
        ("named", json!({"accept": "done", "*": "fail"}), false),
        // Here `"*"` also carries `revise`: a route to `done` that never accepted.
        ("also-revise", json!({"reject": "fail", "*": "done"}), true),
    ];
    for (name, branches, fires) in cases {
        let file = format!("{name}.graph.json");
        write(&tmp.path().join(&file), &review_graph(branches));
        let (_, found) = validate_json(tmp.path(), &file, &["--pack", "packs"]);
        let rule: Vec<_> = found.iter().filter(|f| f.0 == "gates/accepted").collect();
        assert_eq!(!rule.is_empty(), fires, "{name}: {found:?}");
        if fires {
            assert_eq!(rule[0].1, "/nodes/1", "{name}");
            assert!(rule[0].2.contains("review →[*] done"), "{}", rule[0].2);
        }
    }
}
