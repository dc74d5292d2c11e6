//! Every validation code has a fixture that fires it (`CODE_fires.graph.json`) and a twin that
//! does not (`CODE_clean.graph.json`), checked against the test registry of
//! `tests/fixtures/rules/registry.json`. Each fixture's diagnostics are compared, as
//! `[{code, pointer, line}]`, with its `.expected.json` snapshot; `UPDATE_EXPECT=1 cargo test`
//! rewrites the snapshots (review the diff before committing).

use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

fn registry() -> Registry {
    let path = fixtures_dir().join("registry.json");
    Registry::from_path(&path).unwrap_or_else(|e| panic!("test registry: {e}"))
}

fn summary(path: &Path, registry: &Registry) -> (Vec<Value>, Vec<&'static str>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let report = check_source(name, &bytes, registry, &Options::default());
    let listed = report
        .diagnostics
        .iter()
        .map(|d| json!({"code": d.code, "pointer": d.pointer, "line": d.line}))
        .collect();
    let codes = report
        .diagnostics
        .iter()
        .map(|d| d.code.as_static().expect("a table code"))
        .collect();
    (listed, codes)
}

fn check_snapshot(graph: &Path, actual: &[Value]) -> Result<(), String> {
    let expected_path = graph.with_file_name(
        graph
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .replace(".graph.json", ".expected.json"),
    );
    let actual = Value::Array(actual.to_vec());
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let text = serde_json::to_string_pretty(&actual).map_err(|e| e.to_string())? + "\n";
        std::fs::write(&expected_path, text).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let text = std::fs::read_to_string(&expected_path)
        .map_err(|e| format!("{}: {e}", expected_path.display()))?;
    let expected: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if expected != actual {
        return Err(format!(
            "{}: diagnostics differ\nexpected: {expected}\nactual:   {actual}",
            graph.display()
        ));
    }
    Ok(())
}

#[test]
fn every_code_has_a_firing_fixture_and_a_clean_twin() {
    let registry = registry();
    let mut failures = Vec::new();
    // Every validation code: the rows of the code table whose file is a rule file.
    for rule in primgraph::codes::ALL
        .iter()
        .filter(|row| row.file.starts_with("src/rules/"))
    {
        let stem = rule.code.to_ascii_lowercase();
        let fires = fixtures_dir().join(format!("{stem}_fires.graph.json"));
        let clean = fixtures_dir().join(format!("{stem}_clean.graph.json"));
        for path in [&fires, &clean] {
            if !path.exists() {
                failures.push(format!("missing fixture {}", path.display()));
            }
        }
        if !fires.exists() || !clean.exists() {
            continue;
        }
        let (fired, fired_codes) = summary(&fires, &registry);
        if !fired_codes.contains(&rule.code) {
            failures.push(format!(
                "{} does not fire {}: {fired:?}",
                fires.display(),
                rule.code
            ));
        }
        let (quiet, quiet_codes) = summary(&clean, &registry);
        if quiet_codes.contains(&rule.code) {
            failures.push(format!(
                "{} fires {}: {quiet:?}",
                clean.display(),
                rule.code
            ));
        }
        for (path, listed) in [(&fires, &fired), (&clean, &quiet)] {
            if let Err(e) = check_snapshot(path, listed) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_clean_base_graph_has_no_diagnostics_at_all() {
    let (listed, _) = summary(&fixtures_dir().join("a402_clean.graph.json"), &registry());
    assert!(listed.is_empty(), "{listed:?}");
}
