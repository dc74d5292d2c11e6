//! `primgraph schema check`: exit codes (0 yes, 1 no, 3 unknown, 2 unusable input), the §3.2
//! JSON document, and located messages for bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path
}

fn run(source: &Path, target: &Path, format: &str) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(["schema", "check"])
        .arg(source)
        .arg(target)
        .args(["--format", format])
        .output()
        .expect("run primgraph");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn yes_no_unknown_exit_codes_and_documents() {
    let dir = tempfile::tempdir().expect("tempdir");
    let integer = write(dir.path(), "integer.json", r#"{"type": "integer"}"#);
    let number = write(dir.path(), "number.json", r#"{"type": "number"}"#);
    let odd = write(
        dir.path(),
        "odd.json",
        r#"{"type": "integer", "multipleOF": 2}"#,
    );

    let (code, stdout, _) = run(&integer, &number, "json");
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).ok(),
        Some(json!({"verdict": "yes"}))
    );

    let (code, stdout, _) = run(&number, &integer, "json");
    assert_eq!(code, 1);
    let document: Value = serde_json::from_str(&stdout).expect("json document");
    assert_eq!(document["verdict"], "no");
    let witness = &document["witness"];
    assert!(
        witness.is_number() && !witness.is_i64(),
        "witness {witness}"
    );
    assert!(
        document["reason"]
            .as_str()
            .is_some_and(|r| r.contains("`type`"))
    );

    let (code, stdout, _) = run(&odd, &integer, "json");
    assert_eq!(code, 3);
    let document: Value = serde_json::from_str(&stdout).expect("json document");
    assert_eq!(document["verdict"], "unknown");
    assert!(
        document["reason"]
            .as_str()
            .is_some_and(|r| r.contains("multipleOF") && r.contains("did you mean `multipleOf`?")),
        "{document}"
    );

    // A keyword far from every Draft 2020-12 keyword is an annotation: decided as the validator
    // would, with a note naming it.
    let annotated = write(
        dir.path(),
        "annotated.json",
        r#"{"type": "integer", "minimumForOptimizer": 1}"#,
    );
    let (code, stdout, stderr) = run(&annotated, &number, "human");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("note:") && stderr.contains("`minimumForOptimizer`"),
        "{stderr}"
    );

    let (code, stdout, _) = run(&number, &integer, "human");
    assert_eq!(code, 1);
    assert!(stdout.starts_with("incompatible:"), "{stdout}");
    assert!(stdout.contains("witness"), "{stdout}");
}

#[test]
fn unusable_input_exits_2_with_location() {
    let dir = tempfile::tempdir().expect("tempdir");
    let number = write(dir.path(), "number.json", r#"{"type": "number"}"#);
    let broken = write(dir.path(), "broken.json", "{\n  \"type\": \"integer\",\n}");
    let not_schema = write(dir.path(), "not-schema.json", r#"{"type": "intger"}"#);
    let dangling = write(
        dir.path(),
        "dangling.json",
        r##"{"properties": {"a": {"$ref": "#/$defs/missing"}}}"##,
    );
    let array = write(dir.path(), "array.json", "[1, 2]");

    let (code, _, stderr) = run(&broken, &number, "json");
    assert_eq!(code, 2);
    assert!(stderr.contains("broken.json:3:"), "{stderr}");

    let (code, _, stderr) = run(&number, &not_schema, "human");
    assert_eq!(code, 2);
    assert!(
        stderr.contains("not-schema.json") && stderr.contains("/type"),
        "{stderr}"
    );

    let (code, _, stderr) = run(&dangling, &number, "json");
    assert_eq!(code, 2);
    assert!(
        stderr.contains("#/$defs/missing") && stderr.contains("/properties/a/$ref"),
        "{stderr}"
    );

    let (code, _, stderr) = run(&array, &number, "json");
    assert_eq!(code, 2);
    assert!(stderr.contains("array.json"), "{stderr}");

    let missing = dir.path().join("missing.json");
    let (code, _, stderr) = run(&missing, &number, "json");
    assert_eq!(code, 2);
    assert!(stderr.contains("missing.json"), "{stderr}");
}
