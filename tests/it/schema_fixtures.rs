//! The schema-compatibility fixture corpus (`tests/fixtures/schema-compat/*.json`): every pair
//! gets its expected verdict, every `No` witness is re-validated with `jsonschema` (admitted by
//! the source, rejected by the target), a pair's `truth` (where `expected` is `unknown`) is never
//! contradicted, and the verdict counts are printed.

use std::collections::BTreeMap;
use std::path::Path;

use primgraph::schema::{Checker, CompatVerdict};
use serde_json::Value;

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .unwrap_or_else(|e| panic!("fixture schema does not compile: {e}: {schema}"))
}

#[test]
fn fixture_corpus_verdicts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema-compat");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        // IBM's suite states the true verdict, which the checker may leave `unknown`; its own
        // test (`schema_ibm.rs`) counts those and checks that none is contradicted.
        .filter(|p| !p.ends_with("ibm-jsonsubschema.json"))
        .collect();
    files.sort();
    let checker = Checker::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut per_file: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut total = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable fixture");
        let pairs: Vec<Value> = serde_json::from_str(&text).expect("fixture is a JSON array");
        for pair in pairs {
            total += 1;
            let name = pair["name"].as_str().unwrap_or("?").to_string();
            let (source, target) = (&pair["source"], &pair["target"]);
            let expected = pair["expected"].as_str().expect("expected verdict");
            let decision = checker
                .check(source, target)
                .unwrap_or_else(|e| panic!("{name}: unusable fixture: {e}"));
            let verdict = decision.verdict();
            *counts.entry(verdict.label()).or_default() += 1;
            let file_name = file.file_name().unwrap_or_default().to_string_lossy();
            *per_file
                .entry(file_name.into_owned())
                .or_default()
                .entry(verdict.label())
                .or_default() += 1;
            if let CompatVerdict::No { witness, .. } = &verdict {
                assert!(
                    validator(source).is_valid(witness),
                    "{name}: witness {witness} is not admitted by the source"
                );
                assert!(
                    !validator(target).is_valid(witness),
                    "{name}: witness {witness} is admitted by the target"
                );
            }
            if verdict.label() == "yes" && expected == "no" {
                panic!("{name}: UNSOUND yes for an incompatible pair");
            }
            // A pair the checker leaves `unknown` (within its budget) may say what is true:
            // a verdict, once given, must be that one.
            if let Some(truth) = pair.get("truth").and_then(Value::as_str)
                && verdict.label() != "unknown"
                && verdict.label() != truth
            {
                panic!("{name}: {} contradicts the truth, {truth}", verdict.label());
            }
            if verdict.label() != expected {
                failures.push(format!(
                    "{}/{name}: expected {expected}, got {} ({})",
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    verdict.label(),
                    decision.reason()
                ));
            }
        }
    }
    for (file, counts) in &per_file {
        println!("  {file}: {counts:?}");
    }
    println!("schema-compat corpus: {total} pairs, verdicts {counts:?}");
    assert!(
        total >= 150,
        "the corpus has at least 150 pairs, found {total}"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
