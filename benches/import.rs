//! Import speed (criterion group `import`, issue 26 "Speed"): a generated Inspect `.eval` log —
//! zstd entries, samples shaped like Inspect's (model events carrying the message history, tool
//! events, messages, output, scores) — imported into traces (`import_eval`) against the floor
//! of reading and inflating every entry of the same zip alone (`inflate_only`: the `zip` crate
//! and zstd, nothing parsed). Target: import ≤ 2 × inflate. `import_eval` imports into a new
//! folder each time (a first import; the folders are removed when the group ends); `reimport_eval`
//! imports the same log again into the folder of a previous import, where every trace is
//! unchanged and left as it is.
//!
//! The floor stays one thread (`zip` + zstd, as a reader of the log must inflate it); the
//! import uses the machine's cores as a user's does: the reader reads the entries while worker
//! threads inflate (each with a zstd context of its own, reused), parse, map and render
//! samples, and two threads of their own write the traces. The issue's
//! target measures time, so the comparison is wall-clock time on the same machine.
//!
//! The traces are written under Cargo's `target/tmp` (`CARGO_TARGET_TMPDIR`), on the disk a
//! user's output folder is on, not in the system's temporary folder: on the build machine (ext4
//! mounted without a journal) creating a file skips, one by one, the free inodes of its folder's
//! block group that were freed in the last minute or so (`recently_deleted` in the kernel's
//! `find_inode_bit`), and `/tmp` is where every test suite on the machine creates and removes
//! its files: 300 files took 90–310 ms to create there against 10–13 ms in a folder of the
//! work disk (docs/import.md, "Speed and memory"). The same holds wherever many files were
//! removed in the last minutes — this bench's own previous run removes tens of thousands of
//! traces at its end — so `import_eval` on that machine measures the state of its file system
//! as much as the import: compare it with `reimport_eval` (the same work, no file created),
//! and with the time to create as many files there (docs/import.md).
//!
//! `PRIMGRAPH_IMPORT_BENCH_SAMPLES` sets the number of samples (default 300, 39 MB
//! inflated). With `PRIMGRAPH_IMPORT_BENCH_WRITE=PATH` the bench only writes the log to `PATH`
//! and exits: that is how the 1 GB log for the peak-RSS measurement (`/usr/bin/time -v
//! primgraph import inspect PATH …`) is made.

use criterion::{Criterion, Throughput};
use primgraph::import::{DEFAULT_MAX_ENTRY_BYTES, Format, ImportOptions, Mapping, import_paths};
use primgraph::registry::Registry;
use primgraph::replay::ReplayGraph;
use serde_json::{Value, json};
use std::hint::black_box;
use std::io::{Read, Write};
use std::path::Path;

const GRAPH: &[u8] = include_bytes!("../tests/fixtures/import/lookup.graph.json");

/// A small deterministic generator of text that compresses about as well as an agent's
/// transcripts (zstd 4–8×): words drawn from a vocabulary, file paths, hex digests.
struct Words(u64);

impl Words {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn text(&mut self, words: usize) -> String {
        const VOCAB: &[&str] = &[
            "the",
            "test",
            "fails",
            "because",
            "function",
            "returns",
            "None",
            "when",
            "input",
            "is",
            "empty",
            "let",
            "me",
            "read",
            "file",
            "search",
            "for",
            "definition",
            "patch",
            "apply",
            "error",
            "line",
            "module",
            "import",
            "class",
            "def",
            "assert",
            "value",
            "expected",
            "actual",
            "fix",
            "run",
            "pytest",
            "cargo",
            "build",
            "passed",
            "failed",
        ];
        let mut s = String::with_capacity(words * 7);
        for i in 0..words {
            if i > 0 {
                s.push(' ');
            }
            let r = self.next();
            match r % 23 {
                0 => s.push_str(&format!("src/mod_{}/file_{}.py", r % 97, (r >> 8) % 1013)),
                1 => s.push_str(&format!("{:016x}", r)),
                _ => s.push_str(VOCAB[(r >> 5) as usize % VOCAB.len()]),
            }
        }
        s
    }
}

/// One sample: `tools` rounds of a model event (its input: the history so far) and a tool
/// event, then the answer.
fn sample(words: &mut Words, id: usize, tools: usize) -> Vec<u8> {
    let mut history = vec![json!({"role": "user", "content": words.text(60), "source": "input"})];
    let mut events = vec![
        json!({"event": "sample_init", "timestamp": "2025-01-01T00:00:00+00:00",
        "sample": {"id": id, "input": "fix the failing test"}, "state": {}}),
    ];
    let names = ["search_text", "read_file", "grep"];
    for k in 0..tools {
        let name = names[k % names.len()];
        let call = json!({"id": format!("call_{id}_{k}"), "function": name,
            "arguments": {"query": words.text(4)}, "type": "function"});
        events.push(
            json!({"event": "model", "timestamp": "2025-01-01T00:00:01+00:00",
            "model": "mockllm/model", "input": history.clone(), "tools": [], "tool_choice": "auto",
            "config": {}, "output": {"model": "mockllm/model", "choices": [{"message": {
                "role": "assistant", "content": words.text(30), "tool_calls": [call]},
                "stop_reason": "tool_calls"}], "usage": {"input_tokens": 10, "output_tokens": 5,
                "total_tokens": 15}}}),
        );
        let result = words.text(120);
        events.push(
            json!({"event": "tool", "timestamp": "2025-01-01T00:00:02+00:00",
            "type": "function", "id": format!("call_{id}_{k}"), "function": name,
            "arguments": {"query": words.text(4)}, "result": result, "error": null,
            "events": [], "working_time": 0.01}),
        );
        history.push(json!({"role": "assistant", "content": words.text(30), "tool_calls": [call]}));
        history.push(json!({"role": "tool", "content": result, "tool_call_id": format!("call_{id}_{k}"), "function": name}));
    }
    let answer = words.text(40);
    history.push(json!({"role": "assistant", "content": answer}));
    let doc: Value = json!({
        "id": id, "epoch": 1, "input": "fix the failing test", "target": "passed",
        "messages": history,
        "output": {"model": "mockllm/model", "choices": [{"message": {"role": "assistant",
            "content": answer}, "stop_reason": "stop"}], "completion": answer},
        "scores": {"match": {"value": if id.is_multiple_of(3) { "I" } else { "C" }}},
        "metadata": {}, "store": {}, "events": events, "model_usage": {},
        "total_time": 1.0, "working_time": 1.0, "uuid": format!("u{id}"), "error": null,
        "attachments": {}
    });
    serde_json::to_vec(&doc).expect("a sample serialises")
}

/// Write a generated `.eval` of `samples` samples; the inflated bytes.
fn write_eval(path: &Path, samples: usize) -> u64 {
    let file = std::fs::File::create(path).expect("create the log");
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Zstd)
        .large_file(false);
    let mut words = Words(0x9e37_79b9_7f4a_7c15);
    let mut inflated = 0u64;
    zip.start_file("_journal/start.json", options)
        .expect("entry");
    zip.write_all(br#"{"version": 2, "eval": {"task": "bench"}}"#)
        .expect("write");
    for id in 1..=samples {
        let bytes = sample(&mut words, id, 12);
        inflated += bytes.len() as u64;
        zip.start_file(format!("samples/{id}_epoch_1.json"), options)
            .expect("entry");
        zip.write_all(&bytes).expect("write");
    }
    zip.start_file("header.json", options).expect("entry");
    zip.write_all(br#"{"version": 2, "status": "success", "eval": {"task": "bench"}}"#)
        .expect("write");
    zip.finish().expect("finish").flush().expect("flush");
    inflated
}

/// The floor: every entry read and inflated, nothing parsed.
fn inflate_only(path: &Path) -> u64 {
    let file = std::fs::File::open(path).expect("open");
    let mut archive =
        zip::ZipArchive::new(std::io::BufReader::with_capacity(256 * 1024, file)).expect("a zip");
    let mut buf = Vec::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).expect("entry");
        buf.clear();
        entry.read_to_end(&mut buf).expect("inflate");
        total += buf.len() as u64;
    }
    total
}

fn bench(c: &mut Criterion, log: &Path, inflated: u64) {
    let registry = Registry::builtin();
    let graph = ReplayGraph::load("lookup.graph.json", GRAPH, registry).expect("fixture graph");
    let mapping_text = "[tools]\ngrep = \"search\"\n\n[final]\nnode = \"answer\"\n";
    let mapping = Mapping::parse("bench.map.toml", mapping_text, &graph).expect("mapping");
    let outs = tempfile::Builder::new()
        .prefix("import-bench-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tempdir");
    let options = |out: &Path| ImportOptions {
        registry,
        graph: &graph,
        mapping: mapping.clone(),
        out: out.to_path_buf(),
        seal: None,
        max_entry_bytes: DEFAULT_MAX_ENTRY_BYTES,
    };
    let import = |out: &Path| {
        let report =
            import_paths(Format::Inspect, &[log.to_path_buf()], options(out)).expect("import");
        assert_eq!(report.summary.errors, 0, "{:?}", report.diagnostics.first());
        black_box(report.summary.steps)
    };
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(inflated));
    group.bench_function("inflate_only", |b| b.iter(|| black_box(inflate_only(log))));
    // Into a new folder each time (a first import). The folders are kept until the group ends:
    // ext4 skips inodes freed in the last seconds when it allocates one, so removing 300
    // traces before each import would time the removal's aftermath, not a user's import.
    let mut first_imports = Vec::new();
    group.bench_function("import_eval", |b| {
        b.iter_custom(|iters| {
            let folders: Vec<tempfile::TempDir> = (0..iters)
                .map(|_| tempfile::tempdir_in(outs.path()).expect("tempdir"))
                .collect();
            let start = std::time::Instant::now();
            for folder in &folders {
                import(folder.path());
            }
            let elapsed = start.elapsed();
            first_imports.push(folders);
            elapsed
        });
    });
    // Into the folder of the last import (the source imported again, unchanged).
    let again = outs.path().join("again");
    import(&again);
    group.bench_function("reimport_eval", |b| b.iter(|| import(&again)));
    group.finish();
    drop(first_imports);
}

fn main() {
    let samples: usize = std::env::var("PRIMGRAPH_IMPORT_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    if let Ok(path) = std::env::var("PRIMGRAPH_IMPORT_BENCH_WRITE") {
        let inflated = write_eval(Path::new(&path), samples);
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        eprintln!("wrote {path}: {samples} samples, {size} bytes ({inflated} inflated)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("bench.eval");
    let inflated = write_eval(&log, samples);
    let size = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    eprintln!("log: {samples} samples, {size} bytes, {inflated} inflated");
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &log, inflated);
    c.final_summary();
}
