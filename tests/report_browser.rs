//! The report page in a real browser (SPEC §11: "It opens in any current browser and is tested
//! in one"): `primgraph report` writes a page for a simulated corpus with a baseline and with
//! runs that carry markup, and `tests/report_browser.py` opens it from `file://` in headless
//! Chromium over the DevTools protocol (`--remote-debugging-pipe`, standard library only). The
//! page must log no script error, open no dialog and fetch nothing but itself; its SVG must hold
//! every node; a real mouse click on a node must show that node's numbers; switching the
//! measure must repaint every node. The screenshot is kept as
//! `target/report-browser/report.png`.
//!
//! Chromium is Debian's `chromium` (`.ci/run` installs it); `PRIMGRAPH_CHROMIUM` names another
//! binary. The test has its own harness (libtest-mimic) so that a missing browser or `python3`
//! is reported as `ignored` with the reason (and recorded for `.ci/test`'s list of checks that
//! did not run, see `external_tool`) — never as a pass — and under CI (`CI` set) is a failure.

#[path = "it/external_tool/mod.rs"]
mod external_tool;

use primgraph::registry::Registry;
use primgraph::replay::digest::{format_hash, sha256};
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use primgraph::simulate::{SimOptions, simulate_run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn find_in_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in names {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

const TEST: &str = "the_report_opens_in_chromium_without_errors_and_a_click_shows_the_node";

/// The browser and Python, or what is missing.
fn tools() -> Result<(PathBuf, PathBuf), String> {
    let chromium = std::env::var_os("PRIMGRAPH_CHROMIUM")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| find_in_path(&["chromium", "chromium-browser", "google-chrome"]));
    let python = find_in_path(&["python3"]);
    match (chromium, python) {
        (Some(c), Some(p)) => Ok((c, p)),
        (c, p) => {
            let mut missing = Vec::new();
            if c.is_none() {
                missing.push("Chromium (apt-get install chromium, or set PRIMGRAPH_CHROMIUM)");
            }
            if p.is_none() {
                missing.push("python3");
            }
            Err(format!("missing {}", missing.join(" and ")))
        }
    }
}

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let trial = libtest_mimic::Trial::ignorable_test(TEST, || match tools() {
        Ok((chromium, python)) => {
            the_report_opens_in_chromium(&chromium, &python);
            Ok(libtest_mimic::Completion::Completed)
        }
        Err(missing) if external_tool::under_ci() => {
            Err(format!("{missing}, and CI is set: the CI script must provide it").into())
        }
        Err(missing) => {
            external_tool::skip(TEST, &missing);
            Ok(libtest_mimic::Completion::ignored_with(missing))
        }
    });
    libtest_mimic::run(&args, vec![trial]).exit();
}

fn simulate(graph: &Path, dir: &Path, runs: u64, seed: u64, faults: f64) {
    let bytes = std::fs::read(graph).unwrap();
    let g = ReplayGraph::load(&graph.display().to_string(), &bytes, Registry::builtin()).unwrap();
    let replayer = Replayer::new(Registry::builtin(), g, ReplayOptions::default());
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

/// A run whose primitive (at the entry node) and run ID carry script: it diverges there, so
/// both reach the divergence table and the inline JSON.
fn hostile_run(dir: &Path) {
    let header = serde_json::json!({"trace": "1",
        "run": "\"><img src=x onerror=alert(1)><script>alert(2)</script>",
        "graph": "fix-failing-test",
        "graph_digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        "abi": "1.0.0", "input": {"issue": "x"}})
    .to_string();
    let step = serde_json::json!({"seq": 1, "node": "intake",
        "primitive": "</script><script>alert(3)</script>", "input": {}, "output": {},
        "evidence": [], "prev": format_hash(&sha256(header.as_bytes()))})
    .to_string();
    let end = serde_json::json!({"seq": 2, "end": "failure",
        "prev": format_hash(&sha256(step.as_bytes()))})
    .to_string();
    std::fs::write(
        dir.join("zz-hostile.trace.jsonl"),
        format!("{header}\n{step}\n{end}\n"),
    )
    .unwrap();
}

fn the_report_opens_in_chromium(chromium: &Path, python: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    let (v1, v2) = (
        repo("graphs/fix-failing-test.graph.json"),
        repo("graphs/fix-failing-test-v2.graph.json"),
    );
    let (base_runs, runs) = (tmp.path().join("v1"), tmp.path().join("v2"));
    simulate(&v1, &base_runs, 80, 1, 0.2);
    simulate(&v2, &runs, 80, 2, 0.2);
    hostile_run(&runs);
    let page = tmp.path().join("report.html");
    let status = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .arg("report")
        .arg("--graph")
        .arg(&v2)
        .arg(&runs)
        .arg("--baseline-graph")
        .arg(&v1)
        .arg("--baseline")
        .arg(&base_runs)
        .arg("--out")
        .arg(&page)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "the hostile run is not faithful");

    let screenshot = repo("target/report-browser/report.png");
    let _ = std::fs::remove_file(&screenshot);
    let profile = tmp.path().join("chromium-profile");
    let out = Command::new(python)
        .arg(repo("tests/report_browser.py"))
        .arg(chromium)
        .arg(&page)
        .arg(&screenshot)
        .arg(&profile)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the browser driver failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = |key: &str| -> Vec<String> {
        result[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert!(list("exceptions").is_empty(), "{:?}", list("exceptions"));
    assert!(
        list("console_errors").is_empty(),
        "{:?}",
        list("console_errors")
    );
    assert!(
        list("dialogs").is_empty(),
        "a script ran: {:?}",
        list("dialogs")
    );
    let page_url = format!("file://{}", page.display());
    for url in list("requests") {
        assert_eq!(url, page_url, "the page fetched something");
    }

    // Every node of the graph is in the SVG.
    let bytes = std::fs::read(&v2).unwrap();
    let graph = ReplayGraph::load("v2", &bytes, Registry::builtin()).unwrap();
    let drawn = list("svg_nodes");
    let ids: Vec<String> = graph.doc.nodes.iter().map(|n| n.id.clone()).collect();
    assert_eq!(drawn, ids);

    // The click showed the clicked node's numbers: its ID, primitive and step count.
    let clicked = result["clicked"].as_str().unwrap();
    let node = graph.doc.nodes.iter().find(|n| n.id == clicked).unwrap();
    let panel = result["panel"].as_str().unwrap();
    let steps = result["clicked_steps"].as_u64().unwrap();
    assert!(steps > 0);
    assert!(panel.starts_with(clicked), "{panel}");
    assert!(panel.contains(&node.primitive), "{panel}");
    assert!(panel.contains(&format!("steps\n{steps}\n")), "{panel}");
    assert!(panel.contains("contract"), "{panel}");
    assert_eq!(result["measure_fill_ok"], true);

    let png = std::fs::read(&screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
}
