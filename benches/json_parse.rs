//! The spanned parser against `serde_json::from_slice::<Value>` on a graph-like document of 10k
//! nodes (target: spanned ≤ 1.5 × baseline), plus the cost of locating pointers afterwards.

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::json::{Limits, parse};
use serde_json::{Value, json};
use std::hint::black_box;

const NODES: usize = 10_000;

fn graph_document(nodes: usize) -> String {
    let nodes: Vec<Value> = (0..nodes)
        .map(|i| {
            json!({
                "id": format!("node-{i}"),
                "primitive": if i % 3 == 0 { "fs.read_file" } else { "llm.complete" },
                "next": format!("node-{}", i + 1),
                "inputs": {
                    "path": {"from": format!("node-{}", i.saturating_sub(1)), "at": "/outputs/path"},
                    "prompt": {"const": "Summarise the failing test and propose a patch \u{e9}"},
                    "limits": {"const": {"max_tokens": 1024 + i, "temperature": 0.25}},
                    "tags": {"const": ["a", "b", i]}
                },
                "max_visits": 3,
                "workspace": "main"
            })
        })
        .collect();
    let doc = json!({
        "graph": "bench-graph",
        "abi": "^1.0.0",
        "entry": "node-0",
        "capabilities": ["fs.*", "llm.*"],
        "budget": {"max_steps": 100_000, "max_spend": 12.5},
        "nodes": nodes,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

fn bench_json_parse(c: &mut Criterion) {
    let doc = graph_document(NODES);
    let bytes = doc.as_bytes();
    let limits = Limits::default();
    let mut group = c.benchmark_group("json_parse");
    group.throughput(criterion::Throughput::Bytes(bytes.len() as u64));
    group.bench_function("serde_json_value", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(bytes)).map(|v| v.is_object()))
    });
    group.bench_function("spanned", |b| {
        b.iter(|| parse(black_box(bytes), &limits).map(|p| p.value.is_object()))
    });
    group.finish();

    let Ok(parsed) = parse(bytes, &limits) else {
        return;
    };
    let pointers: Vec<String> = (0..100)
        .map(|i| format!("/nodes/{}/inputs/limits/const/max_tokens", i * 97))
        .collect();
    c.bench_function("json_locate_100_pointers", |b| {
        b.iter(|| {
            pointers
                .iter()
                .filter_map(|p| parsed.locate(black_box(p)))
                .count()
        })
    });
}

criterion_group!(benches, bench_json_parse);
criterion_main!(benches);
