//! `primgraph report` end to end (SPEC §11): the page the binary writes for simulated corpora,
//! checked against figures computed here from the traces themselves; a corpus where every run
//! is malformed; traces carrying markup (everything escaped, `</script>` inside the inline JSON
//! written `<\/script>`); a 5,000-node graph; the page's size for 10,000 runs of a 50-node
//! graph; the report's aggregates staying bounded over 100,000 runs; and a graph that uses
//! fragments (`--pack`), replayed as its expansion with each use framed and labelled.

use primgraph::registry::Registry;
use primgraph::replay::digest::{format_hash, sha256};
use primgraph::replay::report::{FirstDivergence, RunReport, RunStats, SealStatus, Verdict, Via};
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use primgraph::report::{self, Evaluation, Report, Side};
use primgraph::simulate::{SimOptions, simulate_run};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn load(path: &Path) -> ReplayGraph {
    let bytes = std::fs::read(path).unwrap();
    ReplayGraph::load(&path.display().to_string(), &bytes, Registry::builtin()).unwrap()
}

/// Write `runs` simulated traces of `graph` into `dir`.
fn simulate(graph: &Path, dir: &Path, runs: u64, seed: u64, faults: f64) {
    let replayer = Replayer::new(Registry::builtin(), load(graph), ReplayOptions::default());
    let options = SimOptions {
        seed,
        fault_rate: faults,
        tasks: 20,
        ..SimOptions::default()
    };
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..runs {
        let run = simulate_run(&replayer, &options, i).unwrap();
        std::fs::write(dir.join(format!("{}.trace.jsonl", run.name)), run.trace).unwrap();
    }
}

fn primgraph(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn report_cli(graph: &Path, runs: &Path, baseline: Option<(&Path, &Path)>, out: &Path) -> i32 {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "report".as_ref(),
        "--graph".as_ref(),
        graph.as_os_str(),
        runs.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ];
    if let Some((g, r)) = baseline {
        args.extend([
            "--baseline-graph".as_ref(),
            g.as_os_str(),
            "--baseline".as_ref(),
            r.as_os_str(),
        ]);
    }
    let (code, stderr) = primgraph(&args);
    assert!(code == 0 || code == 1, "exit {code}: {stderr}");
    code
}

/// The attribute values of every element carrying `name="…"`.
fn attr_values<'a>(page: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(" {name}=\"");
    page.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &page[i + needle.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

/// How a recorded step left its node, from the trace line alone: the failure mode of a failed
/// step, else its outcome.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Left {
    Failed(String),
    Outcome(String),
    Plain,
}

/// From the traces alone: for every pair of consecutive step nodes and how the first step
/// left, how many runs made that move.
fn moves_from_traces(dir: &Path) -> BTreeMap<(String, String, Left), u64> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let steps: Vec<(String, Left)> = text
            .lines()
            .skip(1)
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| {
                let node = v.get("node")?.as_str()?.to_string();
                let left = match (v["error"]["mode"].as_str(), v["outcome"].as_str()) {
                    (Some(mode), _) => Left::Failed(mode.to_string()),
                    (None, Some(outcome)) => Left::Outcome(outcome.to_string()),
                    (None, None) => Left::Plain,
                };
                Some((node, left))
            })
            .collect();
        let moves: BTreeSet<(String, String, Left)> = steps
            .windows(2)
            .map(|w| (w[0].0.clone(), w[1].0.clone(), w[0].1.clone()))
            .collect();
        for m in moves {
            *out.entry(m).or_insert(0) += 1;
        }
    }
    out
}

/// Runs that moved from `a` to `b` by the edge the page names `by` (`next`, `branch:O`,
/// `on_error:M`), per the graph's semantics: a failed step leaves by its mode's `on_error`
/// entry, else `*`'s; a step with an outcome its node branches on by that branch; else `next`.
fn runs_by_edge(
    moves: &BTreeMap<(String, String, Left), u64>,
    node: &primgraph::graph::doc::NodeDoc,
    b: &str,
    by: &str,
) -> u64 {
    let keys = |m: &Option<primgraph::graph::doc::SmallMap<String>>| -> Vec<String> {
        m.iter()
            .flat_map(|m| m.iter().map(|(k, _)| k.clone()))
            .collect()
    };
    let (errors, branches) = (keys(&node.on_error), keys(&node.branches));
    moves
        .iter()
        .filter(|((from, to, left), _)| {
            from == &node.id
                && to == b
                && match left {
                    Left::Failed(mode) => {
                        let key = if errors.contains(mode) {
                            mode.as_str()
                        } else {
                            "*"
                        };
                        by == format!("on_error:{key}")
                    }
                    Left::Outcome(o) if branches.contains(o) => by == format!("branch:{o}"),
                    _ => by == "next",
                }
        })
        .map(|(_, runs)| runs)
        .sum()
}

#[test]
fn the_page_draws_every_node_weighs_edges_by_runs_and_marks_the_baseline_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let (v1, v2) = (
        repo("graphs/fix-failing-test.graph.json"),
        repo("graphs/fix-failing-test-v2.graph.json"),
    );
    let (base_runs, runs) = (tmp.path().join("v1"), tmp.path().join("v2"));
    simulate(&v1, &base_runs, 60, 1, 0.3);
    // Faithful runs (with error steps): every move is replayed, so the traces are the oracle.
    simulate(&v2, &runs, 60, 2, 0.0);
    let out = tmp.path().join("out/report.html");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let code = report_cli(&v2, &runs, Some((&v1, &base_runs)), &out);
    assert_eq!(code, 0, "every candidate run is faithful");
    let page = std::fs::read_to_string(&out).unwrap();

    // Self-contained: a policy that forbids every fetch, and nothing that would fetch.
    assert!(page.contains("Content-Security-Policy\" content=\"default-src 'none';"));
    assert!(!page.contains(" src="), "no external resource");
    for href in attr_values(&page, "href") {
        assert!(!href.contains(':'), "only relative links: {href}");
    }

    // Every node drawn, in document order.
    let graph = load(&v2);
    let drawn = attr_values(&page, "data-node");
    for n in &graph.doc.nodes {
        assert!(drawn.contains(&n.id.as_str()), "{} is not drawn", n.id);
    }

    // Each edge's weight is the number of runs that made that move, counted from the traces.
    let moves = moves_from_traces(&runs);
    let (from, to, by, weight) = (
        attr_values(&page, "data-from"),
        attr_values(&page, "data-to"),
        attr_values(&page, "data-by"),
        attr_values(&page, "data-runs"),
    );
    assert!(!from.is_empty());
    assert_eq!(from.len(), by.len());
    // The graph has two branches from one node to another (`test` → `decide` on `pass` and on
    // `fail`): each is its own edge, weighed by the runs that took that branch.
    let pairs: Vec<(&str, &str)> = from.iter().copied().zip(to.iter().copied()).collect();
    assert!(
        pairs
            .iter()
            .enumerate()
            .any(|(k, p)| pairs[k + 1..].contains(p)),
        "some parallel edges"
    );
    let mut some_taken = false;
    for (((f, t), by), w) in from.iter().zip(&to).zip(&by).zip(&weight) {
        let a = &graph.doc.nodes[f.parse::<usize>().unwrap()];
        let b = &graph.doc.nodes[t.parse::<usize>().unwrap()].id;
        let expected = runs_by_edge(&moves, a, b, by);
        assert_eq!(
            w.parse::<u64>().unwrap(),
            expected,
            "edge {} → {b} by {by}",
            a.id
        );
        some_taken |= expected > 0;
    }
    assert!(some_taken);

    // The verdict counts.
    assert!(page.contains(
        "<tr class=\"faithful\"><th>faithful</th><td class=\"num\">60</td><td class=\"num\">100.0%</td></tr>"
    ));

    // The §6.2 changes are marked on the drawing: exactly the nodes `graph diff` names.
    let v1_graph = load(&v1);
    fn version(g: &ReplayGraph) -> primgraph::versions::graph_diff::Version<'_> {
        primgraph::versions::graph_diff::Version {
            file: "",
            doc: &g.doc,
            digest: &g.digest,
            parsed: None,
            diagnostics: &[],
            expansion: None,
        }
    }
    let (old_v, new_v) = (version(&v1_graph), version(&graph));
    let changes = primgraph::versions::graph_diff::structure(Registry::builtin(), &old_v, &new_v);
    let changed: Vec<&str> = changes
        .iter()
        .filter(|c| c.kind == primgraph::versions::graph_diff::ChangeKind::NodeChanged)
        .filter_map(|c| c.node.as_deref())
        .collect();
    assert!(!changed.is_empty());
    for id in &changed {
        let at = page
            .find(&format!(" data-node=\"{id}\" data-index="))
            .unwrap();
        let tag = &page[page[..at].rfind("<g class=\"").unwrap()..at];
        assert!(tag.starts_with("<g class=\"node changed "), "{id}: {tag}");
    }
    assert_eq!(
        page.matches("<g class=\"node changed ").count(),
        changed.len()
    );

    // The comparison table lists regressions first.
    let section = &page[page.find("id=\"comparison\"").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    let ranks: Vec<u8> = attr_values(section, "class")
        .into_iter()
        .filter_map(|c| match c {
            "regression" => Some(0),
            "improvement" => Some(1),
            "none" => Some(2),
            _ => None,
        })
        .collect();
    assert!(!ranks.is_empty());
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
}

#[test]
fn a_corpus_of_malformed_runs_still_gets_a_page() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let junk: [&[u8]; 5] = [b"", b"not json\n", b"{\"trace\":1}\n", b"\xff\xfe\n", b"[]"];
    for (i, bytes) in junk.iter().enumerate() {
        std::fs::write(runs.join(format!("r{i}.trace.jsonl")), bytes).unwrap();
    }
    let out = tmp.path().join("report.html");
    let graph = repo("graphs/fix-failing-test.graph.json");
    assert_eq!(report_cli(&graph, &runs, None, &out), 1);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains(
        "<tr class=\"malformed\"><th>malformed</th><td class=\"num\">5</td><td class=\"num\">100.0%</td></tr>"
    ));
    assert!(page.contains("No steps were recorded."));
    assert_eq!(
        attr_values(&page, "data-index").len(),
        load(&graph).doc.nodes.len()
    );
}

#[test]
fn unusable_input_is_exit_2_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = tmp.path().join("r.html");
    let graph = repo("graphs/fix-failing-test.graph.json");
    let (code, stderr) = primgraph(&[
        "report".as_ref(),
        "--graph".as_ref(),
        graph.as_os_str(),
        empty.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no *.trace.jsonl under"), "{stderr}");
    let bad_graph = tmp.path().join("bad.graph.json");
    std::fs::write(&bad_graph, "{\"graph\": ").unwrap();
    let (code, stderr) = primgraph(&[
        "report".as_ref(),
        "--graph".as_ref(),
        bad_graph.as_os_str(),
        empty.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad.graph.json"), "{stderr}");
    assert!(!out.exists());
}

/// A trace whose header and events carry markup: lines chained properly, so replay reads them.
fn hostile_trace(run: &str, node: &str, primitive: &str) -> Vec<u8> {
    let header = serde_json::json!({"trace": "1", "run": run, "graph": "fix-failing-test",
        "graph_digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        "abi": "1.0.0", "input": {"issue": "x"}})
    .to_string();
    let step = serde_json::json!({"seq": 1, "node": node, "primitive": primitive, "input": {},
        "output": {}, "evidence": [], "prev": format_hash(&sha256(header.as_bytes()))})
    .to_string();
    let end = serde_json::json!({"seq": 2, "end": "failure", "prev": format_hash(&sha256(step.as_bytes()))})
        .to_string();
    format!("{header}\n{step}\n{end}\n").into_bytes()
}

/// Write the hostile corpus: a primitive named `</script>…` at a graph node (so it reaches the
/// inline JSON), a node named with markup and quotes, a run ID with an attribute breakout.
pub fn write_hostile_runs(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("a.trace.jsonl"),
        hostile_trace(
            "\"><img src=x onerror=alert(1)><script>alert(2)</script>",
            "intake",
            "</script><script>alert(3)</script>",
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("b.trace.jsonl"),
        hostile_trace("r'2", "<b onclick=\"alert(4)\">x</b>", "intake.parse_issue"),
    )
    .unwrap();
}

#[test]
fn markup_from_traces_is_escaped_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    write_hostile_runs(&runs);
    let out = tmp.path().join("report.html");
    let graph = repo("graphs/fix-failing-test.graph.json");
    assert_eq!(report_cli(&graph, &runs, None, &out), 1);
    let page = std::fs::read_to_string(&out).unwrap();
    let open = "<script type=\"application/json\" id=\"pg-data\">";
    let start = page.find(open).unwrap() + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    let json = &page[start..end];
    let markup = format!("{}{}", &page[..start], &page[end..]);
    // Outside the inline JSON: the page's own two script elements and no other markup of theirs.
    assert_eq!(markup.matches("<script").count(), 2);
    assert!(!markup.contains("<img"));
    assert!(!markup.contains("<b onclick"));
    // Each value is there, escaped for where it stands.
    assert!(markup.contains("&lt;/script&gt;&lt;script&gt;alert(3)&lt;/script&gt;"));
    assert!(markup.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"));
    assert!(markup.contains("&lt;b onclick=&quot;alert(4)&quot;&gt;x&lt;/b&gt;"));
    assert!(markup.contains("r&#39;2"));
    // Inside it, nothing can close the element: `</` is written `<\/`.
    assert!(!json.contains("</"));
    assert!(json.contains(r"<\/script><script>alert(3)<\/script>"));
    // And the inline JSON reads back to the values as recorded.
    let data: serde_json::Value = serde_json::from_str(json).unwrap();
    let intake = &data["nodes"][0];
    assert_eq!(intake["id"], "intake");
    let actual = intake["divergence_cases"][0]["actual"].as_str().unwrap();
    assert_eq!(actual, "\"</script><script>alert(3)</script>\"");
}

fn page_of(graph: &ReplayGraph, evaluation: &Evaluation) -> String {
    let report = Report {
        registry: Registry::builtin(),
        candidate: Side {
            graph,
            evaluation,
            file: None,
            trace_href: &report::no_link,
            fragments: &[],
        },
        baseline: None,
        confidence: 0.95,
    };
    let mut out = Vec::new();
    report::write_html(&mut out, &report).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn a_graph_of_5000_nodes_is_drawn_whole() {
    let doc = primgraph::graph::generate::generate(5000, 11, Registry::builtin()).unwrap();
    let graph = ReplayGraph::from_value(doc, Registry::builtin()).unwrap();
    assert!(graph.nodes.len() >= 5000);
    let page = page_of(&graph, &Evaluation::default());
    assert_eq!(attr_values(&page, "data-index").len(), graph.nodes.len());
    // Every coordinate is a finite number.
    for v in attr_values(&page, "cx")
        .iter()
        .chain(&attr_values(&page, "x"))
    {
        assert!(v.parse::<f64>().is_ok_and(f64::is_finite), "{v}");
    }
}

#[test]
fn the_page_for_10000_runs_of_a_50_node_graph_is_under_2_mb() {
    let doc = primgraph::graph::generate::generate(50, 5, Registry::builtin()).unwrap();
    let graph = ReplayGraph::from_value(doc, Registry::builtin()).unwrap();
    let replayer = Replayer::new(Registry::builtin(), graph.clone(), ReplayOptions::default());
    let options = SimOptions {
        seed: 9,
        fault_rate: 0.4,
        ..SimOptions::default()
    };
    let mut evaluation = Evaluation::default();
    // 1,000 distinct runs, each counted ten times: the page holds aggregates, so what grows it
    // is distinct divergence cases, which these runs already have (and the caps bound).
    for i in 0..1000 {
        let run = simulate_run(&replayer, &options, i).unwrap();
        let report = replayer.replay_slice(&format!("runs/{}.trace.jsonl", run.name), &run.trace);
        for _ in 0..10 {
            evaluation.add(&report).unwrap();
        }
    }
    assert_eq!(evaluation.summary.runs, 10_000);
    assert!(!evaluation.divergences.is_empty());
    let page = page_of(&graph, &evaluation);
    assert!(page.len() < 2_000_000, "{} bytes", page.len());
}

#[test]
fn the_aggregates_stay_bounded_over_100000_runs() {
    let mut evaluation = Evaluation::default();
    for i in 0..100_000u64 {
        let first = FirstDivergence {
            seq: 1,
            code: "D603".into(),
            expected: Some(serde_json::Value::from(format!("n{}", i % 7))),
            actual: Some(serde_json::Value::from("x".repeat(10_000) + &i.to_string())),
            pointer: "/node".into(),
            line: 2,
            site: format!("site{}", i % 1000),
        };
        let run = RunReport {
            run: Some(format!("r{i}")),
            trace: format!("t{i}.trace.jsonl"),
            verdict: Verdict::Diverged,
            end: None,
            steps: 1,
            first_divergence: Some(first),
            diagnostics: Vec::new(),
            stats: RunStats {
                moves: vec![(0, 1, Via::Next), (1, 0, Via::Branch(0))],
                ..RunStats::default()
            },
            seal: SealStatus::Absent,
            signer: None,
            imported: false,
        };
        evaluation.add(&run).unwrap();
    }
    assert_eq!(evaluation.summary.runs, 100_000);
    assert_eq!(evaluation.divergences.len(), report::evaluation::MAX_SITES);
    assert_eq!(evaluation.other_divergences, 50_000);
    for site in evaluation.divergences.values() {
        assert!(site.cases.len() <= report::evaluation::MAX_CASES);
        assert_eq!(
            site.count,
            site.cases.iter().map(|c| c.count).sum::<u64>() + site.other
        );
        for case in &site.cases {
            let actual = case.actual.as_deref().unwrap();
            assert!(actual.chars().count() <= report::evaluation::MAX_VALUE_CHARS + 1);
        }
    }
    assert_eq!(evaluation.moves.len(), 2);
    assert_eq!(evaluation.runs_moving(0, 1, Via::Next), 100_000);
    assert_eq!(evaluation.runs_moving(1, 0, Via::Next), 0);
}

#[test]
fn a_graph_that_uses_fragments_is_replayed_expanded_with_each_use_framed_and_labelled() {
    let pack = repo("registry/packs/pyrepo");
    let graph = pack.join("fixtures/fix-and-land-fragments.graph.json");
    let runs = pack.join("fixtures/fragment-runs");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    let (code, stderr) = primgraph(&[
        "report".as_ref(),
        "--graph".as_ref(),
        graph.as_os_str(),
        runs.as_os_str(),
        "--pack".as_ref(),
        pack.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    // The fixture's runs include a violated, a malformed and a diverged one: exit 1.
    assert_eq!(code, 1, "{stderr}");
    let page = std::fs::read_to_string(&out).unwrap();
    let shown = graph.display().to_string();
    for label in [
        format!("land: pyrepo/test-gate-land@1.1.0 ({shown}:13:5)"),
        format!(
            "land/check: pyrepo/apply-and-test@1.1.0 ({}:18:5)",
            pack.join("fragments/test-gate-land.fragment.json")
                .display()
        ),
        format!(
            "land/ship: pyrepo/review-and-land@1.1.0 ({}:21:5)",
            pack.join("fragments/test-gate-land.fragment.json")
                .display()
        ),
    ] {
        let framed = format!(">{}</text></g>", label);
        assert!(page.contains(&framed), "{label} not framed in the page");
    }
    assert_eq!(page.matches("<g class=\"cluster fragment\">").count(), 3);
    // The expanded nodes are drawn (the traces name them), not the use `land`.
    assert!(
        page.contains("data-node=\"land/check/apply\""),
        "expanded IDs drawn"
    );
    // Without the pack path the graph does not load: exit 2 with the reason.
    let (code, stderr) = primgraph(&[
        "report".as_ref(),
        "--graph".as_ref(),
        graph.as_os_str(),
        runs.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("P804"), "{stderr}");
}
