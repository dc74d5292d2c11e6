//! Every named input read one way (issue 21, item 10): the readers added since issue 10 —
//! `--sign`, `--trust`, `--config` (validate and the language server), `registry diff` (both
//! registries and `--graphs`), `graph diff`, `compare`'s summary files, `import`'s sources,
//! `--map` and `--sign`, and the traces themselves — refuse a FIFO or a device at once (exit 2,
//! the path and what it is named), and a file over its limit from its size, without reading it
//! (under a 1 GiB address-space limit, so reading even the limit's worth would fail).

use crate::lsp_client;

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Wait for `child` at most 60 s, draining its pipes; one still running then is killed and the
/// test fails (a hang guard: the point is that nothing blocks, not how fast it answers).
fn wait_bounded(mut child: Child) -> Output {
    let limit = Duration::from_secs(60);
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("still running after {limit:?}");
            }
            Err(e) => panic!("{e}"),
        }
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Run the binary in `dir` with at most 1 GiB of address space.
fn run_limited(dir: &Path, args: &[&str]) -> Output {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let script = format!(
        "ulimit -v 1048576; exec '{}' {}",
        env!("CARGO_BIN_EXE_primgraph"),
        quoted.join(" ")
    );
    let child = Command::new("sh")
        .args(["-c", &script])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn primgraph");
    wait_bounded(child)
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo failed");
}

/// A sparse file of `size` bytes (no disk, no memory).
fn sparse(path: &Path, size: u64) {
    std::fs::File::create(path).unwrap().set_len(size).unwrap();
}

/// A folder with a key pair (`k`, `k.pub`) and two simulated runs (`runs/`).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let graph = repo("graphs/fix-failing-test.graph.json");
    let g = graph.to_str().unwrap();
    for args in [
        vec!["keygen", "--out", "k"],
        vec!["simulate", "--runs", "2", "--out", "runs", g],
    ] {
        let out = run_limited(dir.path(), &args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    dir
}

/// Every way of naming `bad` as an input, with the words the refusal must contain.
fn commands_naming(bad: &str) -> Vec<Vec<String>> {
    let graph = repo("graphs/fix-failing-test.graph.json");
    let g = graph.to_str().unwrap();
    let registry = repo("registry/kernel-abi-1.0.0.json");
    let r = registry.to_str().unwrap();
    let trace = "runs/run-000001.trace.jsonl";
    [
        vec!["simulate", "--out", "out", "--sign", bad, g],
        vec!["replay", "--graph", g, "--trust", bad, "runs"],
        vec!["replay", "--graph", g, bad],
        vec!["validate", "--config", bad, g],
        vec!["graph", "diff", bad, g],
        vec!["graph", "diff", g, bad],
        vec!["graph", "diff", g, g, "--runs", bad],
        vec!["compare", bad, bad],
        vec![
            "compare",
            "--baseline-graph",
            g,
            "--baseline",
            bad,
            "--candidate-graph",
            g,
            "--candidate",
            "runs",
        ],
        vec!["registry", "diff", bad, r],
        vec!["registry", "diff", r, bad],
        vec!["registry", "diff", r, r, "--graphs", bad],
        vec![
            "import", "inspect", "--graph", g, "--out", "out", "--map", bad, trace,
        ],
        vec![
            "import", "inspect", "--graph", g, "--out", "out", "--sign", bad, trace,
        ],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(String::from).collect())
    .collect()
}

#[test]
fn a_fifo_or_a_device_named_anywhere_is_refused_at_once() {
    let dir = workspace();
    mkfifo(&dir.path().join("fifo"));
    for (bad, kind) in [("fifo", "FIFO"), ("/dev/zero", "character device")] {
        for args in commands_naming(bad) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = run_limited(dir.path(), &args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(bad) && err.contains(kind), "{args:?}: {err}");
        }
        // An import source is a finding of its own (I901, exit 1), located at the source.
        let graph = repo("graphs/fix-failing-test.graph.json");
        let args = [
            "import",
            "inspect",
            "--graph",
            graph.to_str().unwrap(),
            "--out",
            "out",
            bad,
        ];
        let out = run_limited(dir.path(), &args);
        let said = text(&out.stdout) + &text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {said}");
        assert!(
            said.contains(bad) && said.contains(kind),
            "{args:?}: {said}"
        );
    }
}

#[test]
fn a_file_over_its_limit_is_refused_from_its_size() {
    let dir = workspace();
    let d = dir.path();
    let graph = repo("graphs/fix-failing-test.graph.json");
    let g = graph.to_str().unwrap();
    let registry = repo("registry/kernel-abi-1.0.0.json");
    let r = registry.to_str().unwrap();
    // Keys: 4 KiB; graphs and summary files: 64 MiB; traces: 1 GiB.
    sparse(&d.join("big.key"), 4097);
    sparse(&d.join("big.key.pub"), 4097);
    sparse(&d.join("big.json"), 2 << 30);
    sparse(&d.join("big.trace.jsonl"), 2 << 30);
    for (args, limit) in [
        (
            vec!["simulate", "--out", "out", "--sign", "big.key", g],
            4096u64,
        ),
        (
            vec!["replay", "--graph", g, "--trust", "big.key.pub", "runs"],
            4096,
        ),
        (vec!["graph", "diff", "big.json", g], 64 << 20),
        (vec!["graph", "diff", g, "big.json"], 64 << 20),
        (vec!["compare", "big.json", "big.json"], 64 << 20),
    ] {
        let out = run_limited(d, &args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("big.") && err.contains(&format!("over the limit of {limit} bytes")),
            "{args:?}: {err}"
        );
    }

    // A trace over the limit is a malformed run (D601), said with the limit, not read.
    let out = run_limited(
        d,
        &[
            "replay",
            "--graph",
            g,
            "--format",
            "json",
            "big.trace.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("D601") && said.contains(&format!("over the limit of {} bytes", 1u64 << 30)),
        "{said}"
    );

    // A graph over the limit named to `registry diff --graphs` is a G001 finding under either
    // registry, as `validate` reports it: counted as already failing, not as broken by NEW.
    let out = run_limited(
        d,
        &[
            "registry", "diff", r, r, "--graphs", "big.json", "--format", "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let counted = doc.to_string();
    assert!(counted.contains("\"failing_under_old\":1"), "{counted}");
}

/// `lsp --config FIFO`: the server answers (the configuration is refused and shown, the defaults
/// used), and `shutdown` is answered — before, opening the FIFO blocked the main loop.
#[test]
fn the_language_server_refuses_a_fifo_configuration_and_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("primgraph.toml");
    mkfifo(&fifo);
    let mut client = lsp_client::Client::start(&["--config", fifo.to_str().unwrap()]);
    client.initialize();
    let uri = lsp_client::uri("a.graph.json");
    client.open(&uri, 1, "{\"graph\": ");
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    let message = shown["params"]["message"].as_str().unwrap();
    assert!(message.contains("FIFO"), "{message}");
    let published = client.diagnostics(&uri);
    assert!(
        published["diagnostics"].to_string().contains("G001"),
        "{published}"
    );
    let answer = client.request("shutdown", Value::Null);
    assert!(answer.get("error").is_none(), "{answer}");
    client.notify("exit", Value::Null);
    assert!(client.finish().success());
}
