//! The rules against the embedded Kernel ABI 1.0.0: a realistic fix-a-failing-test graph over
//! built-in primitives validates without any diagnostic, and single edits of it fire exactly the
//! rule they break, at the expected place.

use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use std::path::Path;

fn diagnostics(name: &str) -> Vec<(&'static str, String, u32)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/builtin")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    check_source(name, &bytes, Registry::builtin(), &Options::default())
        .diagnostics
        .into_iter()
        .map(|d| (d.code.as_static().expect("a table code"), d.pointer, d.line))
        .collect()
}

#[test]
fn the_realistic_graph_is_clean_against_the_builtin_registry() {
    assert_eq!(diagnostics("fix_failing_test.graph.json"), vec![]);
}

#[test]
fn a_star_branch_around_the_gate_is_a_grant_bypass() {
    assert_eq!(
        diagnostics("grant_bypass.graph.json"),
        vec![("A402", "/nodes/4".to_string(), 14)]
    );
}

#[test]
fn skipping_the_tests_is_a_verifier_bypass() {
    let found = diagnostics("verifier_bypass.graph.json");
    assert!(
        found.contains(&("A407", "/nodes/4".to_string(), 14)),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .all(|(code, _, _)| ["A407", "S203"].contains(code)),
        "{found:?}"
    );
}

#[test]
fn a_reason_outside_the_enum_violates_the_input_schema() {
    assert_eq!(
        diagnostics("bad_constant.graph.json"),
        vec![("T307", "/nodes/8/inputs/reason/const".to_string(), 18)]
    );
}

/// SPEC §3.4 (changed): the `on_error` edges leaving the `requires_verifier` node itself count.
/// `apply` on_error `patch_conflict` → `give_up` ends a half-applied patch unverified.
#[test]
fn an_error_exit_straight_to_a_terminal_is_a_verifier_bypass() {
    let report = check_source(
        "verifier_bypass_on_error.graph.json",
        &std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/rules/builtin/verifier_bypass_on_error.graph.json"),
        )
        .unwrap(),
        Registry::builtin(),
        &Options::default(),
    );
    let found: Vec<_> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(found, ["A407"], "{:?}", report.diagnostics);
    let d = &report.diagnostics[0];
    assert_eq!(d.pointer, "/nodes/4");
    match &d.witness {
        Some(primgraph::diagnostic::Witness::Route { path, edges }) => {
            assert_eq!(path, &["apply", "give_up"]);
            assert_eq!(edges[0].kind, "on_error");
            assert_eq!(edges[0].label.as_deref(), Some("patch_conflict"));
        }
        other => panic!("witness {other:?}"),
    }
}

/// The retry loop of the spec's excerpt (apply on_error → draft → gate `deny` → give_up) never
/// passes a verifier after the failed apply: A407 (it was legal before the §3.4 change).
#[test]
fn an_error_retry_loop_that_can_end_at_deny_is_a_verifier_bypass() {
    assert_eq!(
        diagnostics("verifier_bypass_retry.graph.json"),
        vec![("A407", "/nodes/4".to_string(), 14)]
    );
}

/// T307 lists the allowed values of an enum (the registry's own list), not "or 4 other
/// candidates".
#[test]
fn a_constant_outside_an_enum_lists_the_allowed_values() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/builtin/bad_constant.graph.json");
    let report = check_source(
        "bad_constant.graph.json",
        &std::fs::read(path).unwrap(),
        Registry::builtin(),
        &Options::default(),
    );
    let message = &report.diagnostics[0].message;
    assert!(!message.contains("other candidates"), "{message}");
    let allowed = Registry::builtin()
        .lookup("done.report_failure")
        .map(|p| p.inputs["properties"]["reason"]["enum"].clone())
        .unwrap();
    let allowed = allowed.as_array().unwrap();
    assert!(allowed.len() > 2);
    for value in allowed {
        assert!(message.contains(&value.to_string()), "{value} in {message}");
    }
}
