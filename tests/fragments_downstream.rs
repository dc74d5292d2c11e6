//! Fragments downstream of validation (SPEC §9.3, issue 24 items 5 and 8), through the built
//! binary run from the repository root so every path in the output is the relative one a user
//! types: the drawings of an expanded graph (each fragment use a labelled cluster, nested uses
//! nested, diagnostics marks on expanded IDs), and the library's one account of which expanded
//! node belongs to which use (`pack::fragment_map::use_groups`).

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
