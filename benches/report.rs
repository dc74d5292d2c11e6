//! Report speed (criterion group `report`, issue 27): `replay_2000` is `primgraph replay` over
//! 2,000 simulated runs of the example graph (a fifth with seeded faults) — every run report and
//! the summary — and `report_2000` is `primgraph report` over the same files: the same replay,
//! folded into the report's aggregates, the graph laid out and drawn, and the page written to a
//! file. Both on one thread, so the ratio does not depend on the machine's other load. Target:
//! report ≤ 1.3 × replay (the medians of `target/criterion/report/*/new/estimates.json`).

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::registry::Registry;
use primgraph::replay::corpus::replay_corpus;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use primgraph::report::{Request, write_report};
use primgraph::simulate::{SimOptions, simulate_run};
use std::hint::black_box;
use std::path::{Path, PathBuf};

const RUNS: u64 = 2_000;

fn bench(c: &mut Criterion) {
    let registry = Registry::builtin();
    let graph_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/fix-failing-test.graph.json");
    let bytes = std::fs::read(&graph_path).expect("example graph");
    let graph = ReplayGraph::load("fix-failing-test", &bytes, registry).expect("example graph");
    let replayer = Replayer::new(registry, graph, ReplayOptions::default());
    let dir = tempfile::tempdir().expect("temp dir");
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).expect("runs dir");
    let options = SimOptions {
        seed: 27,
        fault_rate: 0.2,
        tasks: 50,
        ..SimOptions::default()
    };
    let mut files = Vec::new();
    for i in 0..RUNS {
        let run = simulate_run(&replayer, &options, i).expect("simulated run");
        let file = runs.join(format!("{}.trace.jsonl", run.name));
        std::fs::write(&file, run.trace).expect("trace written");
        files.push(file);
    }
    files.sort();
    let out = dir.path().join("report.html");
    let run_paths: Vec<PathBuf> = vec![runs.clone()];
    let request = Request {
        registry,
        graph: &graph_path,
        runs: &run_paths,
        baseline: None,
        jobs: 1,
        confidence: 0.95,
        out: &out,
        options: &primgraph::validate::Options::default(),
    };
    let written = write_report(&request).expect("report");
    assert_eq!(written.runs, RUNS);
    eprintln!(
        "report: {RUNS} runs, {} unfaithful, page {} bytes",
        written.unfaithful,
        std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0)
    );

    let mut group = c.benchmark_group("report");
    group.sample_size(10);
    group.bench_function("replay_2000", |b| {
        b.iter(|| {
            // As `primgraph replay` does: collect the files, replay them, keep reports + summary.
            let files = primgraph::replay::corpus::collect_traces(&run_paths).expect("files");
            let (reports, summary) = replay_corpus(&replayer, &files, 1, &|| {}).expect("replay");
            black_box((reports.len(), summary.runs))
        })
    });
    group.bench_function("report_2000", |b| {
        b.iter(|| black_box(write_report(black_box(&request)).expect("report").runs))
    });
    group.finish();
    drop(files);
}

criterion_group!(benches, bench);
criterion_main!(benches);
