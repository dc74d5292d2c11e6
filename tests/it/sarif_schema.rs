//! Every SARIF log primgraph writes is valid against the official SARIF 2.1.0 JSON Schema, not
//! only against our idea of it: `validate --format sarif` over every rule fixture (each code's
//! firing case), the shipped examples, a document that is not JSON, a file name that needs
//! percent-encoding, and a `primgraph.toml` that changes and turns off diagnostics (`codeFlows`,
//! `relatedLocations`, `suppressions`, `properties.overriddenBy`); pack rules' entries
//! (`PACK/RULE`, described from their definition, one turned off); and `registry diff --format
//! sarif` over every registry-diff case. (`replay` writes no SARIF.)
//!
//! The schema is OASIS's `sarif-2.1.0-rtm.5.json`, as the npm package `@microsoft/jest-sarif`
//! ships it; `.ci/sarif-schema` (run by `.ci/test`) puts it at
//! `target/sarif-schema/sarif-2.1.0-rtm.5.json` after checking its pinned SHA-256, which this
//! test checks again. It is not kept in the repository. `PRIMGRAPH_SARIF_SCHEMA` may name more
//! schema files (`:`-separated), e.g. the errata 01 revision from OASIS's `sarif-spec`
//! repository, and every log is then checked against each of them too. Without the pinned file
//! the test fails under CI (`CI` set) and is skipped visibly elsewhere (`external_tool::skip`:
//! `.ci/test` lists it at the end).

use crate::external_tool;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

const PINNED: &str = "target/sarif-schema/sarif-2.1.0-rtm.5.json";
const PINNED_SHA256: &str = "2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The official schema(s), compiled; `None` when the pinned one is absent outside CI.
fn schemas(test: &str) -> Option<Vec<(String, jsonschema::Validator)>> {
    let pinned = root().join(PINNED);
    let Ok(bytes) = std::fs::read(&pinned) else {
        let why = format!(
            "{} is missing: run `bash .ci/sarif-schema` (it needs npm)",
            pinned.display()
        );
        external_tool::skip(test, &why);
        return None;
    };
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        digest, PINNED_SHA256,
        "{} is not the pinned SARIF 2.1.0 schema",
        PINNED
    );
    let mut files = vec![pinned];
    if let Some(extra) = std::env::var_os("PRIMGRAPH_SARIF_SCHEMA") {
        files.extend(std::env::split_paths(&extra).filter(|p| !p.as_os_str().is_empty()));
    }
    Some(
        files
            .iter()
            .map(|file| {
                let text = std::fs::read_to_string(file)
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                // rtm.5 writes the `language` pattern as `…-[a-zA-Z]{2}]?$`, a stray `]` that
                // ECMA-262's Annex B reads as a literal and Rust's regex engines refuse; OASIS's
                // errata 01 corrected it to this one, which is what it means.
                let text = text.replace(
                    r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#,
                    r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#,
                );
                let schema: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(
                    schema["$schema"],
                    json!("http://json-schema.org/draft-04/schema#")
                );
                // Formats (`uri`, `uri-reference`) are checked too.
                let validator = jsonschema::draft4::options()
                    .should_validate_formats(true)
                    .build(&schema)
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                (file.display().to_string(), validator)
            })
            .collect(),
    )
}

fn assert_valid(schemas: &[(String, jsonschema::Validator)], what: &str, log: &Value) {
    for (name, validator) in schemas {
        let errors: Vec<String> = validator
            .iter_errors(log)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{what} is not valid against {name}:\n{errors:#?}"
        );
    }
}

/// Run primgraph in `dir`; its stdout as SARIF (exit 0 or 1: a log was written).
fn sarif(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run primgraph");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn results(log: &Value) -> &[Value] {
    log["runs"][0]["results"].as_array().unwrap()
}

#[test]
fn validate_sarif_is_valid_against_the_official_schema() {
    let Some(schemas) = schemas("validate_sarif_is_valid_against_the_official_schema") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    copy_tree(&root().join("tests/fixtures/rules"), &project.join("rules"));
    copy_tree(&root().join("graphs"), &project.join("examples"));
    std::fs::copy(
        root().join("tests/fixtures/editor/grant-bypass.graph.json"),
        project.join("bad graph [1].graph.json"),
    )
    .unwrap();
    std::fs::write(
        project.join("typing.graph.json"),
        "{\n  \"graph\": \"é😀\",\n  \"nodes\": [\n",
    )
    .unwrap();
    std::fs::create_dir(project.join("legacy")).unwrap();
    std::fs::write(
        project.join("legacy/alias.graph.json"),
        std::fs::read_to_string(root().join("graphs/fix-failing-test.graph.json"))
            .unwrap()
            .replace(
                "\"primitive\": \"ctl.authorize_patch\"",
                "\"primitive\": \"AUTHORIZE_PATCH\"",
            ),
    )
    .unwrap();
    std::fs::write(
        project.join("primgraph.toml"),
        "[severity]\nA402 = \"warning\"\n\n[[overrides]]\npaths = [\"legacy/**\"]\nseverity = { R102 = \"off\" }\n",
    )
    .unwrap();

    let log = sarif(project, &["validate", "--format", "sarif", "."]);
    assert_valid(&schemas, "validate --format sarif", &log);
    // What the log must contain for the check to mean something.
    let all = results(&log);
    let has = |f: &dyn Fn(&Value) -> bool| all.iter().any(f);
    assert!(has(&|r| r["codeFlows"].is_array()), "a witness path");
    assert!(
        has(&|r| r["relatedLocations"].is_array()),
        "related locations"
    );
    assert!(has(&|r| r["suppressions"].is_array()), "a turned-off one");
    assert!(has(&|r| r["properties"]["overriddenBy"]["to"] == "warning"));
    assert!(
        has(&|r| r["ruleId"] == "G001"),
        "the document that is not JSON"
    );
    assert!(
        has(
            &|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == "bad%20graph%20%5B1%5D.graph.json"
        ),
        "an encoded file name"
    );

    // With no configuration, and with nothing to report: still valid.
    std::fs::remove_file(project.join("primgraph.toml")).unwrap();
    let log = sarif(project, &["validate", "--format", "sarif", "."]);
    assert_valid(
        &schemas,
        "validate --format sarif (no primgraph.toml)",
        &log,
    );
    let log = sarif(
        project,
        &[
            "validate",
            "--format",
            "sarif",
            "examples/orchestrate-specialists.graph.json",
        ],
    );
    assert_valid(&schemas, "validate --format sarif (a clean graph)", &log);
}

#[test]
fn pack_rule_sarif_is_valid_against_the_official_schema() {
    let Some(schemas) = schemas("pack_rule_sarif_is_valid_against_the_official_schema") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    copy_tree(
        &root().join("tests/fixtures/pack-wire/path"),
        &project.join("path"),
    );
    std::fs::copy(
        root().join("tests/fixtures/pack-wire/land-untested.graph.json"),
        project.join("g.graph.json"),
    )
    .unwrap();
    // One pack rule raised, one turned off: `defaultConfiguration` with `enabled: false`.
    std::fs::write(
        project.join("primgraph.toml"),
        "packs = [\"path\"]\n\n[severity]\n\"pyship/land-after-tests\" = \"warning\"\n\"pyship/bounded-tests\" = \"off\"\n",
    )
    .unwrap();
    let log = sarif(project, &["validate", "--format", "sarif", "g.graph.json"]);
    assert_valid(&schemas, "validate --format sarif (pack rules)", &log);
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(
        rules.iter().any(|r| r["id"] == "pyship/bounded-tests"
            && r["defaultConfiguration"]["enabled"] == false
            && r["properties"]["definition"].is_object()),
        "{rules:?}"
    );
}

#[test]
fn registry_diff_sarif_is_valid_against_the_official_schema() {
    let Some(schemas) = schemas("registry_diff_sarif_is_valid_against_the_official_schema") else {
        return;
    };
    let cases = root().join("tests/fixtures/registry-diff");
    let base = cases.join("base.json");
    let mut checked = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("new.json").is_file())
        .collect();
    entries.sort();
    for case in entries {
        let new = case.join("new.json");
        let log = sarif(
            root(),
            &[
                "registry",
                "diff",
                base.to_str().unwrap(),
                new.to_str().unwrap(),
                "--format",
                "sarif",
            ],
        );
        assert_valid(
            &schemas,
            &format!("registry diff --format sarif ({})", case.display()),
            &log,
        );
        checked += 1;
    }
    assert!(checked > 30, "only {checked} registry-diff cases");
    let log = sarif(
        root(),
        &[
            "registry", "diff", "builtin", "builtin", "--format", "sarif",
        ],
    );
    assert_valid(&schemas, "registry diff builtin builtin", &log);
}

#[test]
fn the_official_schema_refuses_what_sarif_forbids() {
    let Some(schemas) = schemas("the_official_schema_refuses_what_sarif_forbids") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("tests/fixtures/editor/grant-bypass.graph.json"),
        dir.path().join("bad.graph.json"),
    )
    .unwrap();
    let log = sarif(dir.path(), &["validate", "--format", "sarif", "."]);
    assert_valid(&schemas, "validate --format sarif", &log);
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut log = log.clone();
        edit(&mut log);
        log
    };
    for (why, bad) in [
        (
            "a property SARIF does not define on a code flow",
            broken(&|l| l["runs"][0]["results"][0]["codeFlows"][0]["threads"] = json!([])),
        ),
        (
            "a level outside the enumeration",
            broken(&|l| l["runs"][0]["results"][0]["level"] = json!("fatal")),
        ),
        (
            "a zero line number",
            broken(&|l| {
                l["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
                    json!(0)
            }),
        ),
        (
            "a suppression of an unknown kind",
            broken(&|l| l["runs"][0]["results"][0]["suppressions"] = json!([{"kind": "config"}])),
        ),
    ] {
        for (name, validator) in &schemas {
            assert!(!validator.is_valid(&bad), "{name} accepted {why}");
        }
    }
}
