//! Packs as a user meets them (SPEC §9.1, §9.2): the fixture packs under
//! `tests/fixtures/packs/` loaded, composed and used by graphs, and one broken pack per code.

use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::pack::{self, manifest};
use primgraph::registry::Registry;
use primgraph::validate::{self, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/packs")
}

fn composer(path: &[PathBuf]) -> Arc<Composer> {
    Arc::new(Composer::new(
        Base::Builtin,
        PackPath::scan(path),
        ComposerOptions::default(),
    ))
}

fn validate_with(graph: &Path, path: &[PathBuf]) -> primgraph::FileReport {
    let options = Options {
        packs: Some(composer(path)),
        ..Options::default()
    };
    validate::check_file(graph, Registry::builtin(), &options).expect("readable")
}

fn codes(report: &primgraph::FileReport) -> Vec<(&str, u32)> {
    report
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.line))
        .collect()
}

#[test]
fn the_fixture_pack_loads_with_its_schemas_bundled_and_decision_set_expanded() {
    let pack = manifest::load(&fixtures().join("path/pyfix"), Registry::builtin())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pack.name, "pyfix");
    assert_eq!(pack.version.to_string(), "1.2.0");
    let run = pack.primitive("pyfix.run_pytest").expect("run_pytest");
    let report = &run.contract.outputs["properties"]["report"];
    assert_eq!(report["$ref"], "#/$defs/schemas~1report.json");
    assert_eq!(
        run.contract.outputs["$defs"]["schemas/report.json"]["required"],
        serde_json::json!(["passed", "failed"])
    );
    let decide = pack.primitive("PYFIX_PASS_OR_FAIL").expect("by alias");
    assert_eq!(
        decide.contract.outcomes.as_deref(),
        Some(&["pass".to_string(), "fail".to_string()][..])
    );
    assert_eq!(decide.decision_set.as_deref(), Some("pass-fail"));
    assert!(pack.digest.starts_with("sha256:") && pack.digest.len() == 7 + 64);
    // The bundled contract is self-contained: its validator compiles and checks the $ref.
    let v = jsonschema::validator_for(&run.contract.outputs).expect("compiles");
    assert!(v.is_valid(&serde_json::json!({"report": {"passed": 1, "failed": 0}})));
    assert!(!v.is_valid(&serde_json::json!({"report": {"passed": -1, "failed": 0}})));
}

#[test]
fn a_graph_declaring_the_pack_validates_clean_against_the_composition() {
    let report = validate_with(
        &fixtures().join("uses-pyfix.graph.json"),
        &[fixtures().join("path")],
    );
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
}

#[test]
fn p804_names_who_asked_for_what() {
    let report = validate_with(
        &fixtures().join("p804.graph.json"),
        &[fixtures().join("path")],
    );
    assert_eq!(
        codes(&report),
        vec![("P804", 5)],
        "{:#?}",
        report.diagnostics
    );
    let m = &report.diagnostics[0].message;
    assert!(
        m.contains("\"^9.0\"") && m.contains("p804.graph.json") && m.contains("1.2.0"),
        "{m}"
    );
}

#[test]
fn p811_replaces_r101_with_the_packs_entry_to_add() {
    let report = validate_with(
        &fixtures().join("p811.graph.json"),
        &[fixtures().join("path")],
    );
    let p811: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "P811")
        .collect();
    assert_eq!(p811.len(), 2, "{:#?}", report.diagnostics);
    assert!(!report.diagnostics.iter().any(|d| d.code == "R101"));
    assert_eq!(
        p811[0].help.as_deref(),
        Some("add `\"pyfix\": \"^1.2\"` to the graph's `packs`")
    );
}

#[test]
fn each_broken_fixture_pack_reports_its_code_in_its_file() {
    for (dir, code, file) in [
        ("p801", "P801", "pack.json"),
        ("p802", "P802", "pack.json"),
        ("p807", "P807", "pack.sig"),
        ("p808", "P808", "pack.json"),
        ("p809", "P809", "pack.json"),
    ] {
        let errors = manifest::load(&fixtures().join(dir), Registry::builtin()).expect_err(dir);
        let found: Vec<_> = errors
            .diagnostics()
            .map(|(f, d)| (f.to_string(), d.code.clone()))
            .collect();
        assert!(
            found.iter().any(|(f, c)| *c == code && f.ends_with(file)),
            "{dir}: {found:?}"
        );
        assert!(
            errors.diagnostics().all(|(_, d)| d.line >= 1),
            "{dir}: located"
        );
    }
    let _ = pack::MANIFEST;
}
