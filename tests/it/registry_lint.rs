//! `registry lint` over the fixtures in `tests/fixtures/registry/`: each fixture breaks one
//! invariant of SPEC §1.3 and must yield exactly its code, at its JSON pointer, line and column;
//! unusable input (empty, not JSON, too large, wrong shape) is an error with a location, never a
//! panic; the binary maps it all to exit codes 0/1/2.

use primgraph::registry::{self, LintError};
use std::path::PathBuf;
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/registry")
        .join(name)
}

fn lint(name: &str) -> Result<Vec<primgraph::diagnostic::Diagnostic>, LintError> {
    let bytes = std::fs::read(fixture(name)).expect("fixture exists");
    registry::lint_source(&bytes)
}

/// (fixture, code, pointer, line, column) of the one diagnostic each fixture must produce.
const CASES: &[(&str, &str, &str, u32, u32)] = &[
    ("l501_duplicate_id.json", "L501", "/primitives/1/id", 104, 7),
    (
        "l501_duplicate_alias.json",
        "L501",
        "/primitives/1/alias",
        105,
        7,
    ),
    (
        "l501_duplicate_json_key.json",
        "L501",
        "/primitives/1/class",
        108,
        7,
    ),
    ("l502_malformed_id.json", "L502", "/primitives/1/id", 104, 7),
    ("l502_wrong_prefix.json", "L502", "/primitives/1/id", 104, 7),
    (
        "l502_malformed_alias.json",
        "L502",
        "/primitives/1/alias",
        105,
        7,
    ),
    ("l503_vendor_name.json", "L503", "/primitives/3/id", 216, 7),
    (
        "l504_generation_authorizes.json",
        "L504",
        "/primitives/3/authority",
        220,
        7,
    ),
    (
        "l504_verification_proposes.json",
        "L504",
        "/primitives/6/authority",
        428,
        7,
    ),
    (
        "l505_schema_compile.json",
        "L505",
        "/primitives/1/inputs/properties/path/type",
        114,
        13,
    ),
    (
        "l506_s1_forbidden_effect.json",
        "L506",
        "/primitives/2/effects/1",
        210,
        9,
    ),
    (
        "l507_dangling_fallback.json",
        "L507",
        "/primitives/3/fallback",
        253,
        7,
    ),
    (
        "l507_fallback_cycle.json",
        "L507",
        "/primitives/0/fallback",
        91,
        7,
    ),
    (
        "l508_unknown_family.json",
        "L508",
        "/primitives/1/family",
        106,
        7,
    ),
    ("l508_empty_family.json", "L508", "/families/7", 46, 5),
    (
        "l509_unauthorized_effect.json",
        "L509",
        "/primitives/5/requires_authorization",
        419,
        7,
    ),
    (
        "l510_grant_not_outcome.json",
        "L510",
        "/primitives/4/grants/0",
        327,
        9,
    ),
    (
        "l510_grants_on_proposer.json",
        "L510",
        "/primitives/3/grants",
        248,
        7,
    ),
];

#[test]
fn the_valid_fixture_lints_clean() {
    assert_eq!(lint("valid.json"), Ok(vec![]));
}

#[test]
fn every_fixture_yields_exactly_its_code_at_its_location() {
    for &(name, code, pointer, line, column) in CASES {
        let diags = lint(name).unwrap_or_else(|e| panic!("{name}: unusable: {e}"));
        let got: Vec<_> = diags
            .iter()
            .map(|d| (d.code.as_str(), d.pointer.as_str(), d.line, d.column))
            .collect();
        assert_eq!(got, vec![(code, pointer, line, column)], "{name}");
    }
}

#[test]
fn every_lint_code_has_a_failing_fixture_and_documentation() {
    let lint_rows = || {
        primgraph::codes::ALL
            .iter()
            .filter(|row| row.file.starts_with("src/registry/lint/"))
    };
    // (The layout of every code's documentation is checked in tests/it/code_table.rs.)
    for row in lint_rows() {
        assert!(
            CASES.iter().any(|c| c.1 == row.code),
            "{} has no fixture",
            row.code
        );
    }
    let codes: Vec<&str> = lint_rows().map(|row| row.code).collect();
    let expected: Vec<String> = (501..=510).map(|n| format!("L{n}")).collect();
    assert_eq!(codes, expected);
    assert!(primgraph::codes::find("l507").is_some());
}

#[test]
fn a_fallback_cycle_is_spelled_out() {
    let diags = lint("l507_fallback_cycle.json").expect("usable");
    assert!(
        diags[0]
            .message
            .contains("obs.list_files → obs.read_file → obs.list_files"),
        "{}",
        diags[0].message
    );
}

#[test]
fn a_duplicate_json_key_names_the_first_occurrence() {
    let diags = lint("l501_duplicate_json_key.json").expect("usable");
    let related = &diags[0].related[0];
    assert_eq!((related.line, related.column), (Some(105), Some(7)));
}

#[test]
fn invalid_json_is_unusable_with_line_and_column() {
    let err = registry::lint_source(b"{\"abi\": \"1.0.0\",\n  \"families\": [,]}").unwrap_err();
    assert!(matches!(err, LintError::Json(_)), "{err:?}");
    assert_eq!(err.location(), (2, 16));
}

#[test]
fn an_empty_file_is_unusable() {
    for empty in [&b""[..], b"  \n\t "] {
        let err = registry::lint_source(empty).unwrap_err();
        assert!(
            matches!(&err, LintError::Json(e) if e.kind == primgraph::json::JsonErrorKind::Empty),
            "{err:?}"
        );
    }
}

#[test]
fn a_file_over_the_limit_is_unusable() {
    let big = vec![b' '; registry::LIMITS.max_bytes + 1];
    let err = registry::lint_source(&big).unwrap_err();
    assert!(
        matches!(&err, LintError::Json(e) if matches!(e.kind, primgraph::json::JsonErrorKind::TooLarge { .. })),
        "{err:?}"
    );
    assert_eq!(err.location(), (1, 1));
}

#[test]
fn the_wrong_shape_is_unusable_with_its_pointer() {
    let cases: &[(&str, &str)] = &[
        (r#"[]"#, ""),
        (r#"{"abi": "1.0.0", "families": []}"#, ""),
        (
            r#"{"abi": "1.0.0", "families": {}, "primitives": []}"#,
            "/families",
        ),
        (
            r#"{"abi": "1.0.0", "families": [], "primitives": [{"id": 3}]}"#,
            "/primitives/0/id",
        ),
    ];
    for &(text, pointer) in cases {
        match registry::lint_source(text.as_bytes()) {
            Err(LintError::Shape { pointer: p, .. }) => assert_eq!(p, pointer, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    let valid = std::fs::read_to_string(fixture("valid.json")).expect("fixture");
    let bad_class = valid.replacen("\"class\": \"retrieval\"", "\"class\": \"oracle\"", 1);
    match registry::lint_source(bad_class.as_bytes()) {
        Err(LintError::Shape { pointer, line, .. }) => {
            assert_eq!(pointer, "/primitives/1/class");
            assert_eq!(line, 107);
        }
        other => panic!("{other:?}"),
    }
}

fn primgraph(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_cli_exits_0_clean_1_findings_2_unusable() {
    let valid = fixture("valid.json");
    assert_eq!(
        primgraph(&["registry", "lint", valid.to_str().unwrap()]).0,
        0
    );
    let bad = fixture("l509_unauthorized_effect.json");
    let (code, out, _) = primgraph(&[
        "registry",
        "lint",
        bad.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("json output");
    assert_eq!(doc["files"][0]["diagnostics"][0]["code"], "L509");
    assert_eq!(doc["files"][0]["diagnostics"][0]["line"], 419);

    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "").expect("write");
    let (code, _, err) = primgraph(&["registry", "lint", empty.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("empty.json:"), "{err}");

    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\n  \"abi\": 1.0.0\n}").expect("write");
    let (code, _, err) = primgraph(&["registry", "lint", broken.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("broken.json:2:"), "{err}");

    // 100 MB: refused from its size, without a panic.
    let huge = dir.path().join("huge.json");
    let file = std::fs::File::create(&huge).expect("create");
    file.set_len(100 * 1024 * 1024).expect("sparse file");
    let (code, _, err) = primgraph(&["registry", "lint", huge.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("over the limit"), "{err}");

    let (code, _, _) = primgraph(&[
        "registry",
        "lint",
        dir.path().join("missing.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
}

#[test]
fn the_cli_lists_and_shows_a_loaded_registry() {
    let valid = fixture("valid.json");
    let path = valid.to_str().unwrap();
    let (code, out, _) = primgraph(&["registry", "list", "--registry", path, "--format", "json"]);
    assert_eq!(code, 0);
    let rows: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(rows.as_array().map(Vec::len), Some(8));
    assert_eq!(
        rows[0],
        serde_json::json!({"id": "obs.list_files", "alias": "LIST_FILES",
        "family": "observation", "class": "deterministic", "authority": "propose"})
    );
    let (code, out, _) = primgraph(&[
        "registry",
        "list",
        "--registry",
        path,
        "--family",
        "observation",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.starts_with("ID"), "{out}");
    let (code, out, _) = primgraph(&[
        "registry",
        "list",
        "--registry",
        path,
        "--class",
        "policy",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("ctl.authorize_patch") && !out.contains("obs.list_files"),
        "{out}"
    );
    assert_eq!(
        primgraph(&["registry", "list", "--registry", path, "--class", "oracle"]).0,
        2
    );
    assert_eq!(
        primgraph(&["registry", "list", "--registry", path, "--family", "nope"]).0,
        2
    );

    let (code, out, _) = primgraph(&["registry", "show", "AUTHORIZE_PATCH", "--registry", path]);
    assert_eq!(code, 0);
    for needle in [
        "ctl.authorize_patch (AUTHORIZE_PATCH)",
        "grants:",
        "allow",
        "x-authority",
        "evaluation:",
    ] {
        assert!(out.contains(needle), "missing {needle}: {out}");
    }
    assert_eq!(
        primgraph(&["registry", "show", "NOPE", "--registry", path]).0,
        1
    );
}

#[test]
fn findings_name_their_primitive_as_the_build_reports_them() {
    // build.rs prints each finding with its Display: the code, the primitive and the pointer.
    let text = std::fs::read_to_string(fixture("l509_unauthorized_effect.json")).expect("fixture");
    let value: serde_json::Value = serde_json::from_str(&text).expect("json");
    let findings = registry::lint::lint_value(&value).expect("usable");
    assert_eq!(findings.len(), 1);
    let shown = findings[0].to_string();
    assert!(
        shown.starts_with("L509 primitive `mut.write_file` (/primitives/5/requires_authorization)"),
        "{shown}"
    );
}

/// L505 on a `$ref`: a remote one is named as not local (no compiler feature leaks into the
/// message), a dangling local one as naming nothing, and both point at the `$ref` itself.
#[test]
fn a_bad_ref_is_located_at_the_ref() {
    let mut file: serde_json::Value = serde_json::from_str(registry::BUILTIN_JSON).unwrap();
    file["primitives"][0]["inputs"]["properties"]["remote"] =
        serde_json::json!({"$ref": "https://example.com/s.json"});
    file["primitives"][1]["outputs"]["properties"]["dangling"] =
        serde_json::json!({"$ref": "#/$defs/missing"});
    let text = serde_json::to_string_pretty(&file).unwrap();
    let diagnostics = registry::lint_source(text.as_bytes()).unwrap();
    let l505: Vec<_> = diagnostics.iter().filter(|d| d.code == "L505").collect();
    assert_eq!(l505.len(), 2, "{diagnostics:?}");
    let remote = l505
        .iter()
        .find(|d| d.pointer == "/primitives/0/inputs/properties/remote/$ref")
        .unwrap_or_else(|| panic!("{l505:?}"));
    assert!(remote.message.contains("not local"), "{}", remote.message);
    assert!(!remote.message.contains("feature"), "{}", remote.message);
    let dangling = l505
        .iter()
        .find(|d| d.pointer == "/primitives/1/outputs/properties/dangling/$ref")
        .unwrap_or_else(|| panic!("{l505:?}"));
    assert!(
        dangling.message.contains("names nothing"),
        "{}",
        dangling.message
    );
    // The line is the `$ref`'s own line in the file.
    let line = text
        .lines()
        .position(|l| l.contains("https://example.com/s.json"))
        .unwrap() as u32
        + 1;
    assert_eq!(remote.line, line);
}
