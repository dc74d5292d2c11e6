//! Fragments as a user meets them (SPEC §9.3): graphs under `tests/fixtures/fragments/` that use
//! the fragments of the `shipkit` test pack, validated through the library with the pack path
//! `tests/fixtures/fragments/path`: expansion before every check, the boundary codes P821–P828,
//! and diagnostics inside a fragment mapped back to the fragment file with the use sites related.

use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::registry::Registry;
use primgraph::validate::{self, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/fragments")
}

fn options() -> Options {
    Options {
        packs: Some(Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[fixtures().join("path")]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    }
}

fn validate(name: &str) -> primgraph::FileReport {
    validate::check_file(&fixtures().join(name), Registry::builtin(), &options()).expect("readable")
}

/// (file name or "", code, line) of every diagnostic.
fn found(report: &primgraph::FileReport) -> Vec<(String, String, u32)> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            let file = d
                .file
                .as_deref()
                .map(|f| f.rsplit('/').next().unwrap_or(f).to_string())
                .unwrap_or_default();
            (file, d.code.as_str().to_string(), d.line)
        })
        .collect()
}

#[test]
fn a_clean_use_expands_and_validates_clean() {
    let report = validate("ship.graph.json");
    assert_eq!(found(&report), vec![], "{:#?}", report.diagnostics);
}

#[test]
fn a_verifier_bypass_inside_a_fragment_is_found_through_the_use_site() {
    let report = validate("unchecked.graph.json");
    let a407: Vec<_> = report.diagnostics.iter().filter(|d| d.code == "A407").collect();
    assert_eq!(a407.len(), 1, "{:#?}", report.diagnostics);
    let d = a407[0];
    assert!(d.file.as_deref().unwrap().ends_with("land-unchecked.fragment.json"));
    assert!(d.pointer.starts_with("/nodes/1"), "{}", d.pointer);
    let last = d.related.last().expect("the use site");
    assert!(
        last.file.as_deref().unwrap().ends_with("unchecked.graph.json"),
        "the use site is in the graph"
    );
    assert_eq!(last.pointer, "/nodes/2");
    assert!(last.message.starts_with("in fragment `ship`, used at "), "{}", last.message);
    assert!(last.message.ends_with("unchecked.graph.json:12:5"), "{}", last.message);
    println!("{:#?}", report.diagnostics);
}

/// A report rendered by every renderer, with the paths as the user typed them (relative).
fn rendered(name: &str) -> (String, String, String, String) {
    let options = Options {
        packs: Some(Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[PathBuf::from("tests/fixtures/fragments/path")]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    };
    let path = PathBuf::from("tests/fixtures/fragments").join(name);
    let report = validate::check_file(&path, Registry::builtin(), &options).expect("readable");
    let reports = [report];
    let human = primgraph::diagnostic::human::render(&reports, false);
    let json = primgraph::diagnostic::json::render(&reports);
    let sarif = primgraph::diagnostic::sarif::render(&reports, primgraph::codes::ALL);
    let github = primgraph::diagnostic::github::render_reports(&reports);
    (human, json, sarif, github)
}

#[test]
fn snapshot_unchecked() {
    let (human, json, sarif, github) = rendered("unchecked.graph.json");
    println!("{human}\n{json}\n{github}");
    let _ = sarif;
}
