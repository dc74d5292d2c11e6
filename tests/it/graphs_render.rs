//! `primgraph graph dot|mermaid`: the structure of the pictures of an example graph (edges,
//! grant and on_error styles, shapes by class, terminals), the diagnostics marks, determinism,
//! and the CLI's exit codes.

use primgraph::graph::render::Format;
use primgraph::registry::Registry;
use primgraph::validate::render_source;
use std::path::{Path, PathBuf};
use std::process::Command;

fn example(name: &str) -> (String, Vec<u8>) {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("graphs")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path.display().to_string(), bytes)
}

fn draw(bytes: &[u8], format: Format, diagnostics: bool) -> String {
    render_source(
        "x.graph.json",
        bytes,
        Registry::builtin(),
        format,
        diagnostics,
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .text
}

/// The one line of `text` that starts with `prefix` (after indentation).
fn line<'a>(text: &'a str, prefix: &str) -> &'a str {
    let found: Vec<&str> = text
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with(prefix))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one line starting with {prefix:?} in\n{text}"
    );
    found[0]
}

#[test]
fn dot_shows_edges_grants_on_error_and_shapes() {
    let (_, bytes) = example("fix-failing-test.graph.json");
    let dot = draw(&bytes, Format::Dot, false);
    assert!(dot.starts_with("digraph \"fix-failing-test\" {"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
    assert_eq!(line(&dot, "\"__entry\" ->"), "\"__entry\" -> \"intake\";");
    assert_eq!(
        line(&dot, "\"intake\" -> \"localize\""),
        "\"intake\" -> \"localize\";"
    );
    let grant = line(&dot, "\"gate\" -> \"apply\"");
    assert!(grant.contains("label=\"allow (grant)\""), "{grant}");
    assert!(
        grant.contains("style=bold") && grant.contains("#15803d"),
        "{grant}"
    );
    let deny = line(&dot, "\"gate\" -> \"give_up\" [label=\"deny\"");
    assert!(!deny.contains("grant"), "{deny}");
    let conflict = line(
        &dot,
        "\"apply\" -> \"clean_check\" [label=\"on_error: patch_conflict\"",
    );
    assert!(conflict.contains("style=dashed"), "{conflict}");
    let retry = line(&dot, "\"decide\" -> \"draft\"");
    assert!(retry.contains("label=\"retry\""), "{retry}");
    assert!(line(&dot, "\"test\" [").contains("shape=hexagon"));
    assert!(line(&dot, "\"gate\" [").contains("shape=octagon"));
    assert!(line(&dot, "\"decide\" [").contains("shape=diamond"));
    assert!(line(&dot, "\"done\" [").contains("shape=doublecircle"));
    assert!(line(&dot, "\"give_up\" [").contains("shape=doublecircle"));
    assert!(line(&dot, "\"draft\" [").contains("max_visits 3"));
    // Every control edge of the document is drawn once: 10 nodes' next/branches/on_error.
    let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let expected: usize = doc["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            usize::from(n.get("next").is_some())
                + n.get("branches")
                    .and_then(|b| b.as_object())
                    .map_or(0, |b| b.len())
                + n.get("on_error")
                    .and_then(|b| b.as_object())
                    .map_or(0, |b| b.len())
        })
        .sum();
    let drawn = dot
        .lines()
        .filter(|l| l.contains(" -> ") && !l.contains("__entry"))
        .count();
    assert_eq!(drawn, expected);
    assert!(!dot.contains("#dc2626"), "a clean graph has no red");
}

#[test]
fn mermaid_shows_the_same_structure() {
    let (_, bytes) = example("fix-failing-test.graph.json");
    let mermaid = draw(&bytes, Format::Mermaid, false);
    assert!(mermaid.contains("flowchart TD"));
    // Nodes are numbered by document order: gate n3, apply n4, clean_check n5, test n6.
    assert!(
        mermaid.contains("  n3 ==>|\"allow (grant)\"| n4\n"),
        "{mermaid}"
    );
    assert!(
        mermaid.contains("  n4 -.->|\"on_error: patch_conflict\"| n5\n"),
        "{mermaid}"
    );
    assert!(
        mermaid.contains("  n6{{\"test<br/>ver.run_target_tests\"}}\n"),
        "{mermaid}"
    );
    assert!(
        mermaid.contains("  n8(((\"done<br/>done.finish_success\")))\n"),
        "{mermaid}"
    );
    assert!(mermaid.contains("class n3 policy"), "{mermaid}");
    assert!(mermaid.contains("linkStyle"), "{mermaid}");
}

fn without_verifier(bytes: &[u8]) -> Vec<u8> {
    // apply goes straight to done: A407 with the witness apply → done.
    let mut doc: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_default();
    if let Some(nodes) = doc["nodes"].as_array_mut() {
        for node in nodes {
            if node["id"] == "apply" {
                node["next"] = serde_json::json!("done");
            }
        }
    }
    serde_json::to_vec_pretty(&doc).unwrap_or_default()
}

#[test]
fn diagnostics_mark_offending_nodes_and_witness_edges() {
    let (_, bytes) = example("fix-failing-test.graph.json");
    let broken = without_verifier(&bytes);
    let drawing = render_source(
        "x.graph.json",
        &broken,
        Registry::builtin(),
        Format::Dot,
        true,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let report = drawing.report.unwrap_or_else(|| panic!("a report"));
    assert!(report.diagnostics.iter().any(|d| d.code == "A407"));
    let dot = drawing.text;
    let apply = line(&dot, "\"apply\" [");
    assert!(
        apply.contains("#dc2626") && apply.contains("A407"),
        "{apply}"
    );
    let witness = line(&dot, "\"apply\" -> \"done\"");
    assert!(
        witness.contains("#dc2626") && witness.contains("witness"),
        "{witness}"
    );
    assert!(!line(&dot, "\"intake\" [").contains("#dc2626"));
    // The rest of the route (`done`) is outlined, dashed, without the code: only the culprit
    // carries it.
    let done = line(&dot, "\"done\" [");
    assert!(
        done.contains("#dc2626") && done.contains("dashed") && !done.contains("A407"),
        "{done}"
    );
    assert!(!apply.contains("dashed"), "{apply}");
    let mermaid = draw(&broken, Format::Mermaid, true);
    assert!(mermaid.contains("classDef error"), "{mermaid}");
    assert!(mermaid.contains("class n4 error"), "{mermaid}");
    assert!(mermaid.contains("class n8 route_error"), "{mermaid}");
    assert_eq!(mermaid.matches("A407").count(), 1, "{mermaid}");
    // Without --diagnostics nothing is marked.
    assert!(!draw(&broken, Format::Dot, false).contains("#dc2626"));
}

#[test]
fn workspaces_are_clusters_and_output_is_deterministic() {
    let (_, bytes) = example("orchestrate-specialists.graph.json");
    let first = draw(&bytes, Format::Dot, true);
    assert_eq!(first, draw(&bytes, Format::Dot, true));
    assert!(first.contains("label=\"workspace: backend\""), "{first}");
    assert!(first.contains("subgraph \"cluster_"), "{first}");
    let mermaid = draw(&bytes, Format::Mermaid, false);
    assert_eq!(mermaid, draw(&bytes, Format::Mermaid, false));
    assert!(mermaid.contains("subgraph ws"), "{mermaid}");
}

#[test]
fn a_document_that_does_not_load_is_an_error_with_its_diagnostics() {
    let result = render_source(
        "x.graph.json",
        b"{\"graph\": 1",
        Registry::builtin(),
        Format::Dot,
        false,
    );
    match result {
        Err(primgraph::validate::RenderError::NotLoadable { report }) => {
            assert_eq!(report.diagnostics[0].code, "G001");
        }
        Ok(_) => panic!("broken JSON was drawn"),
    }
}

#[test]
fn cli_draws_and_reports_exit_codes() {
    let (path, _) = example("fix-failing-test.graph.json");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_primgraph"))
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let dot = run(&["graph", "dot", &path]);
    assert_eq!(dot.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&dot.stdout).starts_with("digraph"));
    let mermaid = run(&["graph", "mermaid", "--diagnostics", &path]);
    assert_eq!(mermaid.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&mermaid.stdout).contains("flowchart TD"));
    let missing = run(&["graph", "dot", "/nonexistent/x.graph.json"]);
    assert_eq!(missing.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let bad = dir.path().join("bad.graph.json");
    std::fs::write(&bad, "{").unwrap_or_else(|e| panic!("{e}"));
    let broken = run(&["graph", "dot", &bad.display().to_string()]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&broken.stderr).contains("G001"));
}
