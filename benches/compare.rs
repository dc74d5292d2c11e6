//! Comparing versions (criterion group `compare`).
//!
//! `graph_diff_runs_2k` replays 2,000 simulated traces of `graphs/fix-failing-test.graph.json`
//! against it and its v2 in one pass per file (`replay::pair`), against `replay_2k`, the same
//! files against one graph: target ≤ 1.3× (one read and one parse per line, two engines).
//! `compare_1m_tasks` reads two summary files of 1,000,000 tasks each and compares them, against
//! `read_summaries_1m`, reading the two files alone: target ≤ 2×. One thread each, so the ratio
//! measures work, not scheduling.

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::compare::compare;
use primgraph::registry::Registry;
use primgraph::replay::corpus::{collect_traces, replay_corpus};
use primgraph::replay::pair::replay_pair_corpus;
use primgraph::replay::summary::{GraphIdentity, Summary, TaskCounts, task_key};
use primgraph::replay::summary_file::SummaryFile;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
use primgraph::simulate::{SimOptions, simulate_run};
use serde_json::json;
use std::hint::black_box;

fn replayer(path: &str) -> Replayer<'static> {
    let bytes = std::fs::read(path).expect("example graph");
    let graph = ReplayGraph::load(path, &bytes, Registry::builtin()).expect("loads");
    Replayer::new(Registry::builtin(), graph, ReplayOptions::default())
}

/// A summary of `tasks` synthetic tasks (three runs each, successes varying with `salt`).
fn synthetic(tasks: u64, salt: u64) -> SummaryFile {
    let mut s = Summary::default();
    for t in 0..tasks {
        let successes = (t * 7 + salt) % 4;
        s.tasks.insert(
            task_key(&json!({"issue": format!("task {t}")})),
            TaskCounts {
                runs: 3,
                successes: successes.min(3),
            },
        );
    }
    let runs: u64 = s.tasks.values().map(|c| c.runs).sum();
    let successes: u64 = s.tasks.values().map(|c| c.successes).sum();
    s.runs = runs;
    s.by_verdict.insert("faithful".into(), runs);
    s.by_end.insert("success".into(), successes);
    s.by_end.insert("failure".into(), runs - successes);
    s.steps_sum = runs * 9;
    s.steps_sq_sum = u128::from(runs) * 90;
    s.spend_nanos_sum = u128::from(runs) * 40_000_000;
    s.spend_nanos_sq_sum = u128::from(runs) * 1_700_000_000_000_000;
    s.steps_histogram[4] = runs;
    s.spend_histogram[2] = runs;
    SummaryFile {
        graph: GraphIdentity {
            name: "synthetic".into(),
            digest: format!("sha256:{salt:064}"),
        },
        summary: s,
    }
}

fn bench(c: &mut Criterion) {
    let v1 = replayer("graphs/fix-failing-test.graph.json");
    let v2 = replayer("graphs/fix-failing-test-v2.graph.json");
    let dir = tempfile::tempdir().expect("temp dir");
    let options = SimOptions {
        seed: 13,
        ..SimOptions::default()
    };
    for i in 0..2000 {
        let run = simulate_run(&v1, &options, i).expect("simulated run");
        std::fs::write(
            dir.path().join(format!("{}.trace.jsonl", run.name)),
            &run.trace,
        )
        .expect("write trace");
    }
    let files = collect_traces(&[dir.path().to_path_buf()]).expect("traces");

    let mut group = c.benchmark_group("compare");
    group.sample_size(10);
    group.bench_function("replay_2k", |b| {
        b.iter(|| {
            black_box(
                replay_corpus(&v1, &files, 1, &|| {})
                    .expect("replay")
                    .1
                    .runs,
            )
        })
    });
    group.bench_function("graph_diff_runs_2k", |b| {
        b.iter(|| {
            black_box(
                replay_pair_corpus(&v1, &v2, &files, 1)
                    .expect("replay")
                    .len(),
            )
        })
    });

    let summaries = tempfile::tempdir().expect("temp dir");
    let paths: Vec<_> = [synthetic(1_000_000, 0), synthetic(1_000_000, 1)]
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = summaries.path().join(format!("s{i}.json"));
            std::fs::write(&p, serde_json::to_vec(&s.to_json()).expect("json")).expect("write");
            p
        })
        .collect();
    let read = || -> Vec<SummaryFile> {
        paths
            .iter()
            .map(|p| SummaryFile::from_slice(&std::fs::read(p).expect("read")).expect("summary"))
            .collect()
    };
    group.bench_function("read_summaries_1m", |b| b.iter(|| black_box(read().len())));
    group.bench_function("compare_1m_tasks", |b| {
        b.iter(|| {
            let s = read();
            black_box(compare(&s[0].summary, &s[1].summary, 0.95).metrics.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
