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
        .map(|d| (d.code, d.pointer, d.line))
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
