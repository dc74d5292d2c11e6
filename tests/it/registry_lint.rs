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

/// Every `inputs`/`outputs` schema under `value` (any depth: registries, packs, graphs).
fn contract_schemas<'v>(value: &'v serde_json::Value, out: &mut Vec<&'v serde_json::Value>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, child) in map {
                if key == "inputs" || key == "outputs" {
                    out.push(child);
                }
                contract_schemas(child, out);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|c| contract_schemas(c, out)),
        _ => {}
    }
}

/// L505's shortcut (schemas in the plain vocabulary are accepted without the compiler) changes
/// no answer over every contract schema in the repository's fixtures and the kernel.
#[test]
fn l505_shortcut_agrees_with_the_compiler_on_every_fixture_schema() {
    use registry::lint::l505_schema_compile::{
        accepted_without_compiling, problem, problem_by_compiler,
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("registry/kernel-abi-1.0.0.json")];
    let mut dirs = vec![root.join("tests/fixtures")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    let (mut schemas_seen, mut kernel_schemas, mut kernel_shortcut) = (0, 0, 0);
    for (k, file) in files.into_iter().enumerate() {
        let Ok(value) =
            serde_json::from_slice::<serde_json::Value>(&std::fs::read(&file).expect("readable"))
        else {
            continue; // fixtures of broken JSON
        };
        let mut schemas = Vec::new();
        contract_schemas(&value, &mut schemas);
        for schema in schemas {
            schemas_seen += 1;
            kernel_schemas += usize::from(k == 0);
            if accepted_without_compiling(schema) {
                kernel_shortcut += usize::from(k == 0);
                assert!(
                    jsonschema::validator_for(schema).is_ok(),
                    "{}: the shortcut accepts a schema that does not compile: {schema}",
                    file.display()
                );
            }
            assert_eq!(
                problem(schema),
                problem_by_compiler(schema),
                "{}: {schema}",
                file.display()
            );
        }
    }
    assert!(schemas_seen > 500, "{schemas_seen} schemas read");
    // The kernel's contracts are written in the common vocabulary (two use `pattern`).
    assert!(
        kernel_shortcut * 100 >= kernel_schemas * 95,
        "the shortcut covers the kernel's schemas: {kernel_shortcut} of {kernel_schemas}"
    );
}

mod l505_properties {
    use primgraph::registry::lint::l505_schema_compile::{
        accepted_without_compiling, problem, problem_by_compiler,
    };
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// Values a keyword may be given, good and bad: the meta-schema's shapes and their near
    /// misses (floats for sizes, negatives, empty arrays, repeated names, bad regexes, dangling
    /// and remote references, unknown types).
    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!(0)),
            Just(json!(3)),
            Just(json!(-1)),
            Just(json!(2.0)),
            Just(json!(0.5)),
            Just(json!(1e300)),
            Just(json!(18446744073709551615u64)),
            Just(json!("string")),
            Just(json!("object")),
            Just(json!("strnig")),
            Just(json!("")),
            Just(json!(true)),
            Just(json!(null)),
            Just(json!([])),
            Just(json!(["a", "a"])),
            Just(json!(["a", "b"])),
            Just(json!(["string", "null"])),
            Just(json!(["string", "string"])),
            Just(json!({})),
            Just(json!({"$ref": "#/nowhere"})),
            Just(json!("[unclosed")),
            Just(json!("^[a-z]+$")),
        ]
    }

    fn keyword() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("type"),
            Just("minLength"),
            Just("maxItems"),
            Just("minimum"),
            Just("exclusiveMaximum"),
            Just("multipleOf"),
            Just("required"),
            Just("enum"),
            Just("const"),
            Just("default"),
            Just("examples"),
            Just("uniqueItems"),
            Just("description"),
            Just("x-trust"),
            Just("pattern"),
            Just("format"),
            Just("$ref"),
            Just("$id"),
            Just("$anchor"),
            Just("patternProperties"),
            Just("unknownKeyword"),
        ]
    }

    fn schema() -> impl Strategy<Value = Value> {
        let leaf = prop::collection::vec((keyword(), scalar()), 0..4).prop_map(|pairs| {
            Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        });
        let leaf = prop_oneof![leaf, any::<bool>().prop_map(Value::Bool)];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(("[a-c]{1,2}", inner.clone()), 0..3).prop_map(|props| {
                    json!({
                        "type": "object",
                        "properties": props.into_iter().collect::<serde_json::Map<_, _>>(),
                    })
                }),
                inner
                    .clone()
                    .prop_map(|s| json!({"type": "array", "items": s})),
                inner
                    .clone()
                    .prop_map(|s| json!({"additionalProperties": s})),
                inner.clone().prop_map(|s| json!({"not": s})),
                prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({"anyOf": v})),
                prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({"allOf": v})),
                (inner.clone(), inner).prop_map(|(a, b)| {
                    let mut map = match a {
                        Value::Object(map) => map,
                        other => [("not".to_string(), other)].into_iter().collect(),
                    };
                    map.insert("oneOf".into(), json!([b]));
                    Value::Object(map)
                }),
            ]
        })
    }

    /// An object schema at the root (as contracts are), so the walk reaches the generated parts.
    fn contract() -> impl Strategy<Value = Value> {
        prop_oneof![
            schema(),
            schema().prop_map(|s| json!({"type": "object", "properties": {"p": s}})),
            schema().prop_map(|s| {
                json!({"type": "object", "properties": {"p": s}, "$defs": {"d": {"type": "string"}}})
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Every schema the shortcut accepts compiles, and L505 answers exactly what compiling
        /// every schema answers (finding, pointer and message).
        #[test]
        fn the_shortcut_never_changes_l505s_answer(schema in contract()) {
            if accepted_without_compiling(&schema) {
                prop_assert!(
                    jsonschema::validator_for(&schema).is_ok(),
                    "accepted without compiling, yet does not compile: {}", schema
                );
            }
            prop_assert_eq!(problem(&schema), problem_by_compiler(&schema));
        }
    }
}

/// The shortcut takes the common vocabulary and leaves the rest (a regular expression, a
/// reference, a size written as a float) to the compiler, whose findings stay as they were.
#[test]
fn l505_shortcut_takes_plain_schemas_and_compiles_the_rest() {
    use registry::lint::l505_schema_compile::{accepted_without_compiling, problem};
    use serde_json::json;
    let plain = json!({"type": "object", "properties": {"p": {"type": "string", "minLength": 1,
        "x-trust": "untrusted"}}, "required": ["p"], "additionalProperties": false});
    assert!(accepted_without_compiling(&plain));
    assert_eq!(problem(&plain), None);
    for other in [
        json!({"type": "object", "properties": {"p": {"pattern": "[unclosed"}}}),
        json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/missing"}}}),
        json!({"type": "object", "properties": {"p": {"minLength": 1.5}}}),
        json!({"type": "object", "properties": {"p": {"type": "strnig"}}}),
    ] {
        assert!(!accepted_without_compiling(&other), "{other}");
        let (at, why) = problem(&other).expect("a finding");
        assert!(at.starts_with("/properties/p"), "{at}: {why}");
    }
}
