//! The language server's keystroke round: a full `didChange` of the largest example graph
//! through the server's real main loop and worker (an in-memory `lsp-server` connection) until
//! its `publishDiagnostics` for that version arrives, against the baseline of validating the same
//! text in-process with `check_source`.
//!
//! Target: `did_change_round` ≤ 1.5 × `validate_in_process` (medians of one run of
//! `cargo bench --bench lsp`).
//!
//! The same round on a graph of 50 fragment uses (SPEC §9.3; the generator of
//! `benches/fragments.rs`, in `benches/support/`), the server given the pack's path in a
//! `primgraph.toml` (`--config`), against validating that text in-process with the same pack
//! path: `fragments_did_change_round` ≤ 1.5 × `fragments_validate_in_process`
//! (`cargo bench --bench lsp -- fragments`).
//!
//! What the round does and does not contain, so the two are compared fairly:
//! - The server runs with a zero debounce (`ServerOptions::debounce`): the target is about the
//!   server's work, not the pause it waits for the user to stop typing (150 ms by default).
//! - Each round's text differs from the previous one (the example, then the example with a
//!   trailing newline, alternately), so no "same text as last time" shortcut can answer it;
//!   `validate_in_process` checks the same two texts alternately.
//! - The connection is in memory, so the round has no JSON-RPC framing and no stdio reader and
//!   writer threads (`primgraph lsp` has both); `json_rpc_framing` measures that framing on its
//!   own: writing and reading back the round's `didChange` and `publishDiagnostics` messages.
//! - On a shared machine the load drifts between two criterion measurements, so the bench also
//!   measures the two interleaved (`lsp/paired`, printed on stderr: both medians and their ratio).

use criterion::{Criterion, criterion_group, criterion_main};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use primgraph::lsp::{ServerOptions, serve};
use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "support/fragment_graph.rs"]
mod fragment_graph;

/// The fragment uses of the `fragments_*` round.
const FRAGMENT_USES: usize = 50;

/// The largest graph under `graphs/` (by bytes).
fn largest_example() -> (String, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/graphs");
    let mut best = (String::new(), String::new());
    for entry in std::fs::read_dir(dir).expect("graphs/") {
        let path = entry.expect("entry").path();
        let name = path.to_string_lossy().into_owned();
        if name.ends_with(".graph.json") {
            let text = std::fs::read_to_string(&path).expect("graph");
            if text.len() > best.1.len() {
                best = (name, text);
            }
        }
    }
    best
}

fn receive_until(client: &Connection, matches: impl Fn(&Message) -> bool) -> Message {
    loop {
        let message = client
            .receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers");
        if matches(&message) {
            return message;
        }
    }
}

fn published_version(message: &Message) -> Option<i64> {
    match message {
        Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
            n.params.get("version").and_then(Value::as_i64)
        }
        _ => None,
    }
}

fn bench_lsp(c: &mut Criterion) {
    let (name, text) = largest_example();
    let texts = [text.clone(), format!("{text}\n")];
    let registry = Registry::builtin();
    let options = Options::default();

    let (server, client) = Connection::memory();
    let server_thread = std::thread::spawn(move || {
        serve(
            &server,
            ServerOptions {
                config: None,
                debounce: Duration::ZERO,
                ..ServerOptions::default()
            },
        )
    });
    let uri = "untitled:bench.graph.json";
    client
        .sender
        .send(Message::Request(Request::new(
            RequestId::from(1),
            "initialize".into(),
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        )))
        .expect("send");
    receive_until(&client, |m| matches!(m, Message::Response(_)));
    let notify = |method: &str, params: Value| {
        client
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .expect("send");
    };
    notify("initialized", json!({}));
    notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
    );
    receive_until(&client, |m| published_version(m) == Some(1));

    let mut group = c.benchmark_group("lsp");
    let mut turn = 0usize;
    group.bench_function("validate_in_process", |b| {
        b.iter(|| {
            turn += 1;
            black_box(check_source(
                &name,
                black_box(texts[turn % 2].as_bytes()),
                registry,
                &options,
            ))
        })
    });
    let mut version = 1i64;
    group.bench_function("did_change_round", |b| {
        b.iter(|| {
            version += 1;
            notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"text": texts[version as usize % 2]}]}),
            );
            black_box(receive_until(&client, |m| {
                published_version(m) == Some(version)
            }))
        })
    });
    group.finish();

    // The same two measurements interleaved, one of each in turn, so a change in the machine's
    // load during the run (other processes on a shared machine) weighs on both alike.
    let pairs = 1000;
    let (mut checks, mut rounds) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
    for _ in 0..pairs {
        version += 1;
        let text = &texts[version as usize % 2];
        let start = Instant::now();
        black_box(check_source(&name, text.as_bytes(), registry, &options));
        checks.push(start.elapsed());
        let start = Instant::now();
        notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
        receive_until(&client, |m| published_version(m) == Some(version));
        rounds.push(start.elapsed());
    }
    // Median, 90th percentile and mean: criterion's figure for a sample is the mean of its
    // iterations, so a few rounds held up by the scheduler weigh on it; the median does not.
    let stats = |v: &mut Vec<Duration>| {
        v.sort();
        let mean = v.iter().sum::<Duration>() / v.len() as u32;
        (v[v.len() / 2], v[v.len() * 9 / 10], mean)
    };
    let (check, check_p90, check_mean) = stats(&mut checks);
    let (round, round_p90, round_mean) = stats(&mut rounds);
    eprintln!(
        "lsp/paired ({pairs} pairs): validate_in_process median {check:?} (p90 {check_p90:?}, \
         mean {check_mean:?}), did_change_round median {round:?} (p90 {round_p90:?}, mean \
         {round_mean:?}), ratio of medians {:.2}",
        round.as_secs_f64() / check.as_secs_f64()
    );

    let mut group = c.benchmark_group("lsp");
    // The round's two messages as `primgraph lsp` frames them on stdio.
    let change = Message::Notification(Notification::new(
        "textDocument/didChange".into(),
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
    ));
    let publish = Message::Notification(Notification::new(
        "textDocument/publishDiagnostics".into(),
        json!({"uri": uri, "version": 2, "diagnostics": []}),
    ));
    group.bench_function("json_rpc_framing", |b| {
        let mut buffer = Vec::new();
        b.iter(|| {
            for message in [&change, &publish] {
                buffer.clear();
                message.write(&mut buffer).expect("write");
                let mut reader = std::io::BufReader::new(buffer.as_slice());
                black_box(Message::read(&mut reader).expect("read"));
            }
        })
    });
    group.finish();

    client
        .sender
        .send(Message::Request(Request::new(
            RequestId::from(2),
            "shutdown".into(),
            Value::Null,
        )))
        .expect("send");
    receive_until(&client, |m| matches!(m, Message::Response(_)));
    notify("exit", Value::Null);
    let _ = server_thread.join();
}

/// A server on an in-memory connection, initialized, with one document open and checked.
struct Session {
    client: Connection,
    server: std::thread::JoinHandle<()>,
    uri: String,
    version: i64,
}

impl Session {
    fn start(options: ServerOptions, uri: &str, text: &str) -> Session {
        let (server, client) = Connection::memory();
        let server = std::thread::spawn(move || {
            serve(&server, options).expect("the server runs");
        });
        let session = Session {
            client,
            server,
            uri: uri.to_string(),
            version: 1,
        };
        session.send(Message::Request(Request::new(
            RequestId::from(1),
            "initialize".into(),
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        )));
        receive_until(&session.client, |m| matches!(m, Message::Response(_)));
        session.notify("initialized", json!({}));
        session.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
        );
        receive_until(&session.client, |m| published_version(m) == Some(1));
        session
    }

    fn send(&self, message: Message) {
        self.client.sender.send(message).expect("send");
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(Message::Notification(Notification::new(
            method.into(),
            params,
        )));
    }

    /// One round: the whole new text, until its diagnostics arrive; they are returned.
    fn round(&mut self, text: &str) -> Message {
        self.version += 1;
        let version = self.version;
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": self.uri, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
        receive_until(&self.client, |m| published_version(m) == Some(version))
    }

    fn stop(self) {
        self.send(Message::Request(Request::new(
            RequestId::from(2),
            "shutdown".into(),
            Value::Null,
        )));
        receive_until(&self.client, |m| matches!(m, Message::Response(_)));
        self.notify("exit", Value::Null);
        let _ = self.server.join();
    }
}

fn bench_fragments_round(c: &mut Criterion) {
    use primgraph::pack::compose::{Base, Composer, ComposerOptions};
    use primgraph::pack::path::PackPath;
    let dir = tempfile::tempdir().expect("temp dir");
    fragment_graph::pack(dir.path());
    let config = dir.path().join("primgraph.toml");
    std::fs::write(
        &config,
        format!("packs = [{:?}]\n", dir.path().display().to_string()),
    )
    .expect("primgraph.toml");
    let text = String::from_utf8(fragment_graph::graph(FRAGMENT_USES)).expect("UTF-8");
    let texts = [text.clone(), format!("{text}\n")];
    let name = dir.path().join("bench.graph.json").display().to_string();
    let registry = Registry::builtin();
    let options = Options {
        packs: Some(std::sync::Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[dir.path().to_path_buf()]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    };
    let report = check_source(&name, text.as_bytes(), registry, &options);
    assert!(
        report.diagnostics.is_empty(),
        "the bench graph validates clean: {:?}",
        report.diagnostics
    );
    let uri = format!("file://{name}");
    let mut session = Session::start(
        ServerOptions {
            config: Some(config),
            debounce: Duration::ZERO,
            ..ServerOptions::default()
        },
        &uri,
        &text,
    );
    // The server sees the same clean graph: no finding, so no pack is missing from its path.
    let Message::Notification(first) = session.round(&texts[0]) else {
        unreachable!("a publishDiagnostics notification")
    };
    assert_eq!(first.params["diagnostics"], json!([]), "{}", first.params);

    let mut group = c.benchmark_group("lsp");
    let mut turn = 0usize;
    group.bench_function("fragments_validate_in_process", |b| {
        b.iter(|| {
            turn += 1;
            black_box(check_source(
                &name,
                black_box(texts[turn % 2].as_bytes()),
                registry,
                &options,
            ))
        })
    });
    group.bench_function("fragments_did_change_round", |b| {
        b.iter(|| {
            let text = &texts[session.version as usize % 2];
            black_box(session.round(text))
        })
    });
    group.finish();

    // Interleaved, as `lsp/paired`: the load of a shared machine weighs on both alike. A third
    // measurement validates on another thread and waits for it (the two thread handoffs of a
    // round and nothing else of the server): on a loaded machine each wake may wait for a core,
    // which the in-process baseline never does.
    let (to_thread, jobs) = crossbeam_channel::bounded::<(String, Options)>(0);
    let (done, results) = crossbeam_channel::bounded::<usize>(0);
    let checker = std::thread::spawn(move || {
        for (text, options) in jobs {
            let report = check_source("bench.graph.json", text.as_bytes(), registry, &options);
            let _ = done.send(report.diagnostics.len());
        }
    });
    let pairs = 300;
    let mut checks = Vec::with_capacity(pairs);
    let mut handoffs = Vec::with_capacity(pairs);
    let mut rounds = Vec::with_capacity(pairs);
    for _ in 0..pairs {
        let text = &texts[session.version as usize % 2];
        let start = Instant::now();
        black_box(check_source(&name, text.as_bytes(), registry, &options));
        checks.push(start.elapsed());
        let job = (text.clone(), options.clone());
        let start = Instant::now();
        to_thread.send(job).expect("send");
        black_box(results.recv().expect("checked"));
        handoffs.push(start.elapsed());
        let start = Instant::now();
        black_box(session.round(text));
        rounds.push(start.elapsed());
    }
    drop(to_thread);
    let _ = checker.join();
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (check, handoff, round) = (
        median(&mut checks),
        median(&mut handoffs),
        median(&mut rounds),
    );
    eprintln!(
        "lsp/fragments_paired ({pairs} triples, {} bytes, {FRAGMENT_USES} uses): \
         fragments_validate_in_process median {check:?}, on a thread median {handoff:?}, \
         fragments_did_change_round median {round:?}; ratio of medians {:.2} (round / in \
         process), {:.2} (round / on a thread)",
        text.len(),
        round.as_secs_f64() / check.as_secs_f64(),
        round.as_secs_f64() / handoff.as_secs_f64()
    );
    session.stop();
}

criterion_group!(benches, bench_lsp, bench_fragments_round);
criterion_main!(benches);
