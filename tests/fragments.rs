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
    assert_eq!(last.file, None, "the use site is in the graph");
    assert_eq!(last.pointer, "/nodes/2");
    assert!(last.message.starts_with("in fragment `ship`, used at "), "{}", last.message);
    assert!(last.message.ends_with("unchecked.graph.json:12:5"), "{}", last.message);
    println!("{:#?}", report.diagnostics);
}
