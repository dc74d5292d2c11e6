//! Every case under `tests/fixtures/registry-diff/` (OLD = the case's `old.json`, else
//! `base.json`; NEW = `new.json`; `graphs/` when present is the `--graphs` gate) is diffed and
//! compared with its hand-reviewed `expected.txt` (the required bump, then per finding: code,
//! severity, primitive, file, pointer, line:column). Independently of the diff's own code, each
//! finding's line and column must land on the pointer's key in the file, and each witness must
//! be admitted by one side's schema and rejected by the other's (compiled here with
//! `jsonschema`). The cases must cover every code and direction of SPEC §6.1.

use primgraph::diagnostic::{Severity, Witness};
use primgraph::versions::registry_diff::{self, DiffSide, Place, RegistryDiff};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = "tests/fixtures/registry-diff";

fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(ROOT)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn run(case: &Path) -> (RegistryDiff, PathBuf, PathBuf) {
    let old_path = if case.join("old.json").exists() {
        case.join("old.json")
    } else {
        Path::new(ROOT).join("base.json")
    };
    let new_path = case.join("new.json");
    let old = DiffSide::open(old_path.to_str().unwrap()).unwrap();
    let new = DiffSide::open(new_path.to_str().unwrap()).unwrap();
    let report = if case.join("graphs").is_dir() {
        registry_diff::diff_with_graphs(&old, &new, &[case.join("graphs")]).unwrap()
    } else {
        registry_diff::diff(&old, &new)
    };
    (report, old_path, new_path)
}

fn describe(report: &RegistryDiff) -> String {
    let mut out = format!("bump {}\n", report.required_bump);
    for f in &report.findings {
        let d = &f.diagnostic;
        let place = match &f.place {
            Place::Old => "old".to_string(),
            Place::New => "new".to_string(),
            Place::Graph(file) => format!("graph:{}", file.rsplit('/').next().unwrap()),
        };
        let severity = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        out.push_str(&format!(
            "{} {severity} {} {place} {} {}:{}\n",
            d.code,
            f.primitive.as_deref().unwrap_or("-"),
            d.pointer,
            d.line,
            d.column
        ));
    }
    out
}

/// The text at `line:column` (1-based, columns in chars) of `source`.
fn text_at(source: &str, line: u32, column: u32) -> String {
    let text = source.lines().nth(line as usize - 1).unwrap_or("");
    text.chars().skip(column as usize - 1).collect()
}

fn resolve<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    root.pointer(pointer)
}

#[test]
fn every_case_matches_its_expected_file() {
    let mut failures = Vec::new();
    for case in cases() {
        let (report, _, _) = run(&case);
        let expected = std::fs::read_to_string(case.join("expected.txt")).unwrap();
        let actual = describe(&report);
        if actual != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}",
                case.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn locations_land_on_the_pointers_key_in_the_right_file() {
    for case in cases() {
        let (report, old_path, new_path) = run(&case);
        for f in &report.findings {
            let d = &f.diagnostic;
            let path = match &f.place {
                Place::Old => old_path.clone(),
                Place::New => new_path.clone(),
                Place::Graph(file) => PathBuf::from(file),
            };
            let source = std::fs::read_to_string(&path).unwrap();
            let document: Value = serde_json::from_str(&source).unwrap();
            assert!(
                resolve(&document, &d.pointer).is_some(),
                "{}: {} names nothing in {}",
                case.display(),
                d.pointer,
                path.display()
            );
            let last = d.pointer.rsplit('/').next().unwrap();
            let at = text_at(&source, d.line, d.column);
            if last.parse::<usize>().is_ok() {
                assert!(!at.trim().is_empty(), "{}: {}", case.display(), d.pointer);
            } else {
                assert!(
                    at.starts_with(&format!("\"{last}\"")),
                    "{}: {} at {}:{} reads {at:?}",
                    case.display(),
                    d.pointer,
                    d.line,
                    d.column
                );
            }
        }
    }
}

#[test]
fn every_witness_separates_the_two_schemas() {
    let mut checked = 0;
    for case in cases() {
        let (report, old_path, new_path) = run(&case);
        let read = |p: &Path| -> Value {
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
        };
        let (old, new) = (read(&old_path), read(&new_path));
        let schema_of = |doc: &Value, id: &str, field: &str| -> Value {
            doc["primitives"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["id"] == id)
                .unwrap()[field]
                .clone()
        };
        for f in &report.findings {
            let Some(Witness::Value(w)) = &f.diagnostic.witness else {
                continue;
            };
            let id = f.primitive.as_deref().unwrap();
            let field = if f.diagnostic.message.contains("`inputs`") {
                "inputs"
            } else {
                "outputs"
            };
            let admits = |doc: &Value| {
                jsonschema::validator_for(&schema_of(doc, id, field))
                    .unwrap()
                    .is_valid(w)
            };
            // V705: OLD admits, NEW rejects; V706: NEW admits, OLD rejects; V720 inputs
            // widened: NEW admits; V720 outputs narrowed: OLD admits.
            let old_admits = match (f.diagnostic.code.as_str(), field) {
                ("V705", _) => true,
                ("V706", _) => false,
                ("V720", "inputs") => false,
                ("V720", _) => true,
                (code, _) => panic!("{code} has a value witness"),
            };
            assert_eq!(admits(&old), old_admits, "{}: {w}", case.display());
            assert_eq!(admits(&new), !old_admits, "{}: {w}", case.display());
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} witnesses checked");
}

#[test]
fn the_cases_cover_every_code_and_direction() {
    let mut seen = BTreeSet::new();
    for case in cases() {
        let (report, _, _) = run(&case);
        for f in &report.findings {
            seen.insert((f.diagnostic.code.clone(), f.diagnostic.severity));
        }
        let name = case.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("compatible-") || name == "identical" {
            assert_eq!(report.counts().errors, 0, "{name}");
            assert_eq!(report.counts().warnings, 0, "{name}");
        }
    }
    use Severity::*;
    let required = [
        ("V701", Error),
        ("V702", Error),
        ("V703", Info),
        ("V704", Error),
        ("V705", Error),
        ("V705", Warning),
        ("V706", Error),
        ("V706", Warning),
        ("V707", Error),
        ("V708", Error),
        ("V709", Error),
        ("V709", Warning),
        ("V710", Error),
        ("V710", Info),
        ("V711", Error),
        ("V711", Info),
        ("V712", Error),
        ("V713", Error),
        ("V713", Warning),
        ("V714", Error),
        ("V714", Warning),
        ("V715", Error),
        ("V715", Info),
        ("V716", Error),
        ("V716", Warning),
        ("V717", Info),
        ("V718", Error),
        ("V719", Error),
        ("V720", Info),
    ];
    for (code, severity) in required {
        assert!(
            seen.contains(&(code.into(), severity)),
            "no case gives {code} {severity:?}"
        );
    }
}

#[test]
fn an_undecided_schema_change_is_a_warning_with_unknown_and_a_reason() {
    let (report, _, _) = run(&Path::new(ROOT).join("v705-input-undecided"));
    let finding = report.of_code("V705").next().expect("a V705");
    assert_eq!(finding.diagnostic.severity, Severity::Warning);
    let verdict = finding.verdict.as_ref().unwrap();
    assert_eq!(verdict.verdict, "unknown");
    assert!(!verdict.reason.is_empty());
    assert!(finding.diagnostic.message.contains("unknown"));
    assert!(finding.diagnostic.witness.is_none());
}
