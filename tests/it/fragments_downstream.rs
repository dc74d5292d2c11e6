//! Fragments downstream of validation (SPEC §9.3, issue 24 items 5 and 8), through the built
//! binary run from the repository root so every path in the output is the relative one a user
//! types: the drawings of an expanded graph (each fragment use a labelled cluster, nested uses
//! nested, diagnostics marks on expanded IDs), and the library's one account of which expanded
//! node belongs to which use (`pack::fragment_map::use_groups`); `graph diff` comparing
//! expansions (two pack paths holding shipkit 1.0.0 and 1.1.0, the graph file unchanged: the
//! changed nodes named with the use they came through, findings matched on expanded IDs).

use std::path::Path;
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const FIXTURES: &str = "tests/fixtures/fragments";
const PATH: &str = "tests/fixtures/fragments/path";

fn primgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

#[test]
fn dot_draws_each_use_as_a_cluster_labelled_with_its_use_site_nested_uses_nested() {
    let out = primgraph(&[
        "graph",
        "dot",
        &fixture("nested.graph.json"),
        "--pack",
        PATH,
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let dot = stdout(&out);
    // The outer use in the graph, the inner one inside it, in the enclosing fragment's file.
    let outer = dot
        .find(
            "label=\"ship: shipkit/twice@1.0.0 (tests/fixtures/fragments/nested.graph.json:12:5)\"",
        )
        .expect(&dot);
    let inner = dot
        .find("label=\"ship/inner: shipkit/land@1.0.0 (tests/fixtures/fragments/path/shipkit/fragments/twice.fragment.json:10:5)\"")
        .expect(&dot);
    let node = dot.find("\"ship/inner/apply\" [").expect(&dot);
    assert!(outer < inner && inner < node, "{dot}");
    // Nested: the inner cluster is indented one level deeper than the outer one.
    assert!(dot.contains("\n  subgraph \"cluster_use_0\" {\n"), "{dot}");
    assert!(
        dot.contains("\n    subgraph \"cluster_use_1\" {\n"),
        "{dot}"
    );
    assert!(dot.contains("\n      \"ship/inner/gate\" ["), "{dot}");
    // The graph's own nodes are outside every cluster.
    assert!(dot.contains("\n  \"done\" ["), "{dot}");
    insta::assert_snapshot!("fragments_nested_dot", dot);
}

#[test]
fn mermaid_marks_a_finding_inside_a_fragment_on_its_expanded_node() {
    let out = primgraph(&[
        "graph",
        "mermaid",
        &fixture("unchecked.graph.json"),
        "--pack",
        PATH,
        "--diagnostics",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mermaid = stdout(&out);
    assert!(
        mermaid.contains("  subgraph frag0[\"ship: shipkit/land-unchecked@1.0.0 (tests/fixtures/fragments/unchecked.graph.json:12:5)\"]\n"),
        "{mermaid}"
    );
    // A407 is located in the fragment file; the mark is on the expanded node `ship/apply`, and
    // the witness's terminal is outlined.
    assert!(
        mermaid.contains("    n3[[\"ship/apply<br/>mut.apply_patch<br/>A407\"]]"),
        "{mermaid}"
    );
    assert!(mermaid.contains("  class n3 error\n"), "{mermaid}");
    assert!(mermaid.contains("  class n6 route_error\n"), "{mermaid}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[A407]"), "{stderr}");
    insta::assert_snapshot!("fragments_unchecked_mermaid", mermaid);
}

#[test]
fn a_graph_that_uses_fragments_without_a_pack_path_is_not_drawn() {
    let out = primgraph(&["graph", "dot", &fixture("ship.graph.json")]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[P804]"), "{stderr}");
    assert!(stderr.contains("nothing to draw"), "{stderr}");
}

#[test]
fn use_groups_give_every_expanded_node_its_innermost_use() {
    use primgraph::pack::compose::{Base, Composer, ComposerOptions};
    use primgraph::pack::path::PackPath;
    let options = primgraph::validate::Options {
        packs: Some(std::sync::Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[root().join(PATH)]),
            ComposerOptions::default(),
        ))),
        ..Default::default()
    };
    let bytes = std::fs::read(root().join(fixture("nested.graph.json"))).expect("fixture");
    let (parsed, expansion) = primgraph::validate::expansion_source(
        "nested.graph.json",
        &bytes,
        primgraph::registry::Registry::builtin(),
        &options,
    )
    .expect("expands");
    let expansion = expansion.expect("uses fragments");
    let (groups, uses) =
        primgraph::pack::fragment_map::use_groups(&expansion, "nested.graph.json", &parsed);
    let keys: Vec<&str> = groups.groups.iter().map(|g| g.key.as_str()).collect();
    assert_eq!(keys, ["ship", "ship/inner"]);
    assert_eq!(groups.groups[1].parent, Some(0));
    assert_eq!(uses[0].fragment, "shipkit/twice");
    assert_eq!(uses[1].fragment, "shipkit/land");
    assert_eq!(uses[1].version.as_deref(), Some("1.0.0"));
    for (i, id) in expansion.ids.iter().enumerate() {
        let chain: Vec<&str> = groups
            .chain(i)
            .into_iter()
            .map(|g| groups.groups[g].key.as_str())
            .collect();
        let expected: Vec<&str> = if id.starts_with("ship/inner/") {
            vec!["ship", "ship/inner"]
        } else {
            assert!(!id.contains('/'), "{id}");
            vec![]
        };
        assert_eq!(chain, expected, "{id}");
    }
}

const PATH_NEXT: &str = "tests/fixtures/fragments/path-1.1";

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

#[test]
fn graph_diff_shows_what_a_fragments_new_version_changes_with_the_graph_unchanged() {
    let ship = fixture("ship.graph.json");
    let args = |format: &'static str| -> Vec<String> {
        [
            "graph",
            "diff",
            &ship,
            &ship,
            "--old-pack",
            PATH,
            "--pack",
            PATH_NEXT,
            "--format",
            format,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let run = |format| {
        let a = args(format);
        primgraph(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let out = run("json");
    // 1.1.0's failed apply skips the workspace check: an error NEW introduces, exit 1.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let doc = json(&out);
    let structure = doc["structure"].as_array().expect("structure");
    let summary: Vec<(&str, &str)> = structure
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["node"].as_str().unwrap()))
        .collect();
    assert_eq!(
        summary,
        [
            ("node_changed", "ship/apply"),
            ("node_removed", "ship/clean")
        ]
    );
    let through = serde_json::json!({"use": "ship", "fragment": "shipkit/land", "old_version": "1.0.0", "new_version": "1.1.0"});
    for c in structure {
        assert_eq!(c["through"], through, "{c}");
    }
    assert_eq!(
        structure[0]["old_file"],
        "tests/fixtures/fragments/path/shipkit/fragments/land.fragment.json"
    );
    assert_eq!(
        structure[0]["new_file"],
        "tests/fixtures/fragments/path-1.1/shipkit/fragments/land.fragment.json"
    );
    assert_eq!(
        structure[0]["values"]["on_error"],
        serde_json::json!({"old": {"*": "ship/clean"}, "new": {"*": "give_up"}})
    );
    let introduced = doc["findings"]["introduced"]
        .as_array()
        .expect("introduced");
    assert_eq!(introduced.len(), 1, "{doc}");
    assert_eq!(introduced[0]["code"], "A407");
    assert_eq!(introduced[0]["node"], "ship/apply");
    assert_eq!(
        introduced[0]["file"],
        "tests/fixtures/fragments/path-1.1/shipkit/fragments/land.fragment.json"
    );
    assert_ne!(doc["old"]["digest"], doc["new"]["digest"]);

    let human = stdout(&run("human"));
    assert!(
        human.contains("  node `ship/apply` changed: on_error — through fragment `ship` (shipkit/land 1.0.0 → 1.1.0)\n"),
        "{human}"
    );
    assert!(
        human.contains("    new tests/fixtures/fragments/path-1.1/shipkit/fragments/land.fragment.json:15:5 (/nodes/1)\n"),
        "{human}"
    );
    assert!(
        human.contains("  + error[A407] at node `ship/apply`"),
        "{human}"
    );
    let markdown = stdout(&run("markdown"));
    assert!(
        markdown.contains(
            "| node `ship/clean` removed — through fragment `ship` (shipkit/land 1.0.0 → 1.1.0) |"
        ),
        "{markdown}"
    );
}

#[test]
fn graph_diff_back_to_the_old_version_resolves_the_finding_inside_the_fragment() {
    let ship = fixture("ship.graph.json");
    let out = primgraph(&[
        "graph",
        "diff",
        &ship,
        &ship,
        "--old-pack",
        PATH_NEXT,
        "--pack",
        PATH,
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc = json(&out);
    assert_eq!(doc["structure"][1]["kind"], "node_added");
    assert_eq!(doc["structure"][1]["node"], "ship/clean");
    assert_eq!(doc["findings"]["introduced"], serde_json::json!([]));
    assert_eq!(doc["findings"]["resolved"][0]["code"], "A407");
    assert_eq!(doc["findings"]["resolved"][0]["node"], "ship/apply");
}

#[test]
fn graph_diff_matches_a_finding_inside_a_fragment_on_its_expanded_id() {
    // The same graph and fragment on both sides: A407 at `ship/apply` in each, one finding.
    let unchecked = fixture("unchecked.graph.json");
    let out = primgraph(&[
        "graph", "diff", &unchecked, &unchecked, "--pack", PATH, "--format", "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc = json(&out);
    assert_eq!(doc["structure"], serde_json::json!([]));
    assert_eq!(
        doc["findings"],
        serde_json::json!({"introduced": [], "resolved": []})
    );
    // Switching the use to another fragment names both fragments.
    let out = primgraph(&[
        "graph",
        "diff",
        &fixture("ship.graph.json"),
        &unchecked,
        "--pack",
        PATH,
        "--format",
        "json",
    ]);
    let doc = json(&out);
    let apply = doc["structure"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["node"] == "ship/apply")
        .expect("ship/apply changed");
    assert_eq!(
        apply["through"],
        serde_json::json!({"use": "ship", "fragment": "shipkit/land-unchecked", "old_fragment": "shipkit/land", "old_version": "1.0.0", "new_version": "1.0.0"})
    );
}

/// (file name, code, line) of every diagnostic of a `--format json` report list.
fn lint_findings(out: &Output) -> Vec<(String, String, u64)> {
    let doc = json(out);
    let mut found = Vec::new();
    let files = doc["files"].as_array().expect("files");
    for d in files
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().expect("diagnostics"))
    {
        let file = d["file"].as_str().unwrap_or_default();
        let name = file.rsplit('/').next().unwrap_or(file).to_string();
        found.push((
            name,
            d["code"].as_str().unwrap_or_default().to_string(),
            d["line"].as_u64().unwrap_or_default(),
        ));
    }
    found.sort();
    found
}

#[test]
fn pack_lint_reads_every_fragment_file_strictly_and_finds_a_use_cycle_once() {
    let out = primgraph(&[
        "pack",
        "lint",
        "tests/fixtures/fragments/path/shipkit",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        lint_findings(&out),
        [
            ("badport.fragment.json".to_string(), "P827".to_string(), 7),
            ("broken.fragment.json".to_string(), "P801".to_string(), 7),
            ("loop-a.fragment.json".to_string(), "P828".to_string(), 7),
        ]
    );
}

#[test]
fn pack_lint_checks_each_fragments_ports_params_exits_and_its_nested_uses_names() {
    let out = primgraph(&[
        "pack",
        "lint",
        "tests/fixtures/fragments/lint/lintkit",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        lint_findings(&out),
        [
            ("dangling.fragment.json".to_string(), "P821".to_string(), 7),
            // A nested use's names against the fragment it uses.
            ("miswired.fragment.json".to_string(), "P822".to_string(), 8),
            ("miswired.fragment.json".to_string(), "P823".to_string(), 9),
            ("miswired.fragment.json".to_string(), "P823".to_string(), 9),
            ("miswired.fragment.json".to_string(), "P826".to_string(), 10),
            ("miswired.fragment.json".to_string(), "P826".to_string(), 10),
            ("ports.fragment.json".to_string(), "P822".to_string(), 9),
            ("ports.fragment.json".to_string(), "P823".to_string(), 10),
            ("ports.fragment.json".to_string(), "P826".to_string(), 11),
        ]
    );
    let human = String::from_utf8_lossy(
        &primgraph(&["pack", "lint", "tests/fixtures/fragments/lint/lintkit"]).stdout,
    )
    .to_string();
    assert!(
        human.contains(
            " --> tests/fixtures/fragments/lint/lintkit/fragments/dangling.fragment.json:7:21"
        ),
        "{human}"
    );
    assert!(human.contains("did you mean `lintkit/ports`?"), "{human}");
}

#[test]
fn simulate_and_replay_a_graph_that_uses_fragments_on_expanded_ids() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().display().to_string();
    let ship = fixture("ship.graph.json");
    let out = primgraph(&[
        "simulate", &ship, "--pack", PATH, "--runs", "2", "--out", &out_dir, "--force",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let trace = std::fs::read_to_string(dir.path().join("run-000001.trace.jsonl")).expect("trace");
    assert!(trace.contains("\"node\":\"ship/gate\""), "{trace}");
    let first = format!("{out_dir}/run-000001.trace.jsonl");
    let out = primgraph(&["replay", "--graph", &ship, "--pack", PATH, &first]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
