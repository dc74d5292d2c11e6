//! Snapshots (insta) of the report's SVG drawing for the small example graphs: the layered
//! layout is deterministic, so any change to node placement, edge routing, shapes, colours or
//! escaping shows up as a reviewed diff. One snapshot carries a replayed corpus (fills and edge
//! widths), one the structural marks of a baseline, one the frames of nested fragment uses.

use primgraph::registry::Registry;
use primgraph::replay::corpus::collect_traces;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use primgraph::report::Evaluation;
use primgraph::report::svg::{Drawing, NodeChange, render};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn load(p: &str) -> ReplayGraph {
    let bytes = std::fs::read(repo(p)).unwrap();
    ReplayGraph::load(p, &bytes, Registry::builtin()).unwrap()
}

fn draw(
    graph: &ReplayGraph,
    evaluation: &Evaluation,
    changes: &BTreeMap<String, NodeChange>,
    removed: &[String],
) -> String {
    draw_framed(graph, evaluation, changes, removed, &[])
}

fn draw_framed(
    graph: &ReplayGraph,
    evaluation: &Evaluation,
    changes: &BTreeMap<String, NodeChange>,
    removed: &[String],
    clusters: &[primgraph::report::svg::Cluster],
) -> String {
    let svg = render(&Drawing {
        graph,
        registry: Registry::builtin(),
        evaluation,
        changes,
        removed,
        clusters,
    });
    // One element a line, so a snapshot diff points at the element that moved.
    svg.replace("><", ">\n<")
}

#[test]
fn example_graphs() {
    for name in [
        "fix-failing-test",
        "orchestrate-specialists",
        "retrieval-chat",
        "review-and-commit",
        "run-proposed-command",
    ] {
        let graph = load(&format!("graphs/{name}.graph.json"));
        let svg = draw(&graph, &Evaluation::default(), &BTreeMap::new(), &[]);
        insta::assert_snapshot!(format!("report_svg_{name}"), svg);
    }
}

#[test]
fn with_the_example_runs() {
    let graph = load("graphs/runs/fix-failing-test.graph.json");
    let replayer = Replayer::new(Registry::builtin(), graph, ReplayOptions::default());
    let files = collect_traces(&[repo("graphs/runs")]).unwrap();
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| !f.starts_with(repo("graphs/runs/v1")))
        .collect();
    let evaluation = Evaluation::replay(&replayer, &files, 1).unwrap();
    assert!(evaluation.summary.runs >= 4);
    let svg = draw(replayer.graph(), &evaluation, &BTreeMap::new(), &[]);
    insta::assert_snapshot!("report_svg_with_runs", svg);
}

#[test]
fn with_baseline_marks() {
    let graph = load("graphs/fix-failing-test-v2.graph.json");
    let mut changes = BTreeMap::new();
    changes.insert("draft".to_string(), NodeChange::Changed(vec!["max_visits"]));
    changes.insert("give_up".to_string(), NodeChange::Added);
    let removed = vec!["old_<node>".to_string()];
    let svg = draw(&graph, &Evaluation::default(), &changes, &removed);
    assert!(svg.contains("old_&lt;node&gt;"));
    insta::assert_snapshot!("report_svg_baseline_marks", svg);
}

#[test]
fn with_nested_fragment_uses_framed() {
    use primgraph::pack::compose::{Base, Composer, ComposerOptions};
    use primgraph::pack::path::PackPath;
    let options = primgraph::validate::Options {
        packs: Some(std::sync::Arc::new(Composer::new(
            Base::Builtin,
            // Relative (the tests run in the package root), so the labels are too.
            PackPath::scan(&[PathBuf::from("tests/fixtures/fragments/path")]),
            ComposerOptions::default(),
        ))),
        ..Default::default()
    };
    // Named as a user would, so the labels are stable wherever the repository is.
    let file = "tests/fixtures/fragments/nested.graph.json";
    let bytes = std::fs::read(repo(file)).unwrap();
    let graph = ReplayGraph::load_with(file, &bytes, Registry::builtin(), &options).unwrap();
    let (parsed, expansion) =
        primgraph::validate::expansion_source(file, &bytes, Registry::builtin(), &options).unwrap();
    let (groups, _) = primgraph::pack::fragment_map::use_groups(&expansion.unwrap(), file, &parsed);
    let clusters = primgraph::report::svg::fragment_clusters(&groups);
    assert_eq!(clusters.len(), 2);
    // The outer use holds the inner one's nodes.
    assert!(
        clusters[1]
            .members
            .iter()
            .all(|m| clusters[0].members.contains(m))
    );
    let svg = draw_framed(
        &graph,
        &Evaluation::default(),
        &BTreeMap::new(),
        &[],
        &clusters,
    );
    assert!(svg.contains(
        ">ship: shipkit/twice@1.0.0 (tests/fixtures/fragments/nested.graph.json:12:5)</text>"
    ));
    insta::assert_snapshot!("report_svg_fragments_nested", svg);
}
