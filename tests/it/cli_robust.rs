//! The binary against adversarial use (issue 10): named FIFOs, oversized files, closed pipes,
//! absurd `--jobs`, empty folders, colour switches, and the messages of unusable input. Every
//! test runs the real binary the way a user or a CI script meets it.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_primgraph"));
    command.env_remove("NO_COLOR").env("TERM", "xterm");
    command
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Wait for `child` at most `limit`, draining its pipes meanwhile (a child blocked on a full
/// pipe never exits); a child still running then is killed and the test fails (the point of
/// these tests is that nothing blocks).
fn wait_bounded(mut child: Child, limit: Duration) -> Output {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                let err = stderr.join().unwrap_or_default();
                panic!("still running after {limit:?}: stderr {}", text(&err));
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

fn run_bounded(args: &[&str]) -> Output {
    let child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn primgraph");
    wait_bounded(child, Duration::from_secs(60))
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo failed");
}

#[test]
fn a_fifo_named_as_a_path_is_refused_by_every_reading_command() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("x.graph.json");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    let schema = repo("tests/fixtures/schema-compat");
    let any_schema = std::fs::read_dir(&schema)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap_or_else(|| repo("graphs/graph.schema.json"));
    let other = any_schema.to_str().unwrap();
    let graph = repo("graphs/fix-failing-test.graph.json");
    let g = graph.to_str().unwrap();
    for args in [
        vec!["validate", f],
        vec!["validate", "--registry", f, g],
        vec!["graph", "dot", f],
        vec!["graph", "mermaid", f],
        vec!["schema", "check", f, other],
        vec!["schema", "check", other, f],
        vec!["registry", "lint", f],
        vec!["registry", "list", "--registry", f],
        vec!["replay", "--graph", f, g],
        // A FIFO named as a trace (opening it would wait for a writer forever).
        vec!["replay", "--graph", g, f],
        vec!["graph", "diff", g, g, "--runs", f],
    ] {
        let out = run_bounded(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(f) && err.contains("FIFO"), "{args:?}: {err}");
    }
}

/// A sparse 4 GiB file under a 1 GiB address-space limit: reading it whole (as before) cannot
/// even be attempted, so the only way to answer is from the file's size.
#[test]
fn an_oversized_file_is_refused_from_its_size_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.graph.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    let limited = |args: &str| {
        let script = format!(
            "ulimit -v 1048576; exec '{}' {args}",
            env!("CARGO_BIN_EXE_primgraph")
        );
        let child = Command::new("sh")
            .args(["-c", &script])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_bounded(child, Duration::from_secs(60))
    };
    let b = big.to_str().unwrap();
    let out = limited(&format!("validate --format json '{b}'"));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &doc["files"][0]["diagnostics"][0];
    assert_eq!(d["code"], "G001");
    let message = d["message"].as_str().unwrap();
    assert!(message.contains(&(4u64 << 30).to_string()), "{message}");
    let help = d["help"].as_str().unwrap();
    assert!(!help.contains("raise the limit"), "{help}");
    assert!(help.contains("64 MiB"), "{help}");
    let out = limited(&format!("graph dot '{b}'"));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("over the limit"));
}

/// Spawn, read one line of stdout, close the reader while the binary still has output to
/// write: it must exit 0 without a message (no panic, no exit 101).
fn closed_pipe(args: &[&str]) {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).unwrap();
    assert!(!first.is_empty(), "{args:?}: no output");
    // The reader is dropped here: the pipe is closed with most of the output unwritten.
    let out = wait_bounded(child, Duration::from_secs(120));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    assert_eq!(err, "", "{args:?}");
}

#[test]
fn a_closed_pipe_ends_every_printing_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    // A graph whose report is far larger than a pipe's buffer: 3,000 unknown primitives.
    let nodes: Vec<String> = (0..3000)
        .map(|i| format!(r#"{{"id": "n{i}", "primitive": "obs.no_such_primitive_{i}"}}"#))
        .collect();
    let noisy = dir.path().join("noisy.graph.json");
    std::fs::write(
        &noisy,
        format!(
            r#"{{"graph": "noisy", "abi": "1.0.0", "capabilities": ["obs.*"], "entry": "n0", "nodes": [{}]}}"#,
            nodes.join(",\n")
        ),
    )
    .unwrap();
    let n = noisy.to_str().unwrap();
    let big = dir.path().join("big.graph.json");
    let out = bin()
        .args(["graph", "generate", "--nodes", "3000", "--out"])
        .arg(&big)
        .output()
        .unwrap();
    assert!(out.status.success());
    let b = big.to_str().unwrap();
    closed_pipe(&["graph", "generate", "--nodes", "3000"]);
    for format in ["human", "json", "sarif"] {
        closed_pipe(&["validate", "--format", format, n]);
    }
    closed_pipe(&["graph", "dot", b]);
    closed_pipe(&["graph", "mermaid", b]);
    // `registry list` is short: repeat the registry so that it outgrows the pipe.
    let traces = dir.path().join("runs");
    let out = bin()
        .args(["simulate"])
        .arg(repo("graphs/runs/fix-failing-test.graph.json"))
        .args(["--runs", "300", "--seed", "1", "--out"])
        .arg(&traces)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let g = repo("graphs/runs/fix-failing-test.graph.json");
    let (g, t) = (g.to_str().unwrap(), traces.to_str().unwrap());
    for format in ["human", "json", "jsonl"] {
        closed_pipe(&["replay", "--graph", g, "--format", format, t]);
    }
}

#[test]
fn absurd_jobs_are_clamped_and_said_on_stderr() {
    let g = repo("graphs/runs/fix-failing-test.graph.json");
    let runs = repo("graphs/runs");
    let g = g.to_str().unwrap();
    for args in [
        vec!["validate", "--jobs", "100000", g],
        vec![
            "replay",
            "--jobs",
            "100000",
            "--graph",
            g,
            runs.to_str().unwrap(),
        ],
    ] {
        let out = run_bounded(&args);
        let err = text(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {:?} {err}",
            out.status
        );
        assert!(
            err.contains("--jobs 100000 is over the maximum of 256"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn an_empty_folder_is_an_error_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.json"), "{}").unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run_bounded(&["validate", d]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains(&format!("no *.graph.json under {d}")), "{err}");
    let out = run_bounded(&["validate", "--allow-empty", d]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // One empty folder among good paths is still a typo worth stopping for.
    let g = repo("graphs/fix-failing-test.graph.json");
    let out = run_bounded(&["validate", g.to_str().unwrap(), d]);
    assert_eq!(out.status.code(), Some(2));
}

/// `script` gives the binary a real terminal; colour goes out only when neither `NO_COLOR` nor
/// `TERM=dumb` says otherwise.
#[test]
fn no_color_and_a_dumb_terminal_turn_colour_off_on_a_terminal() {
    let graph = repo("tests/fixtures/rules/builtin/verifier_bypass.graph.json");
    let on_terminal = |env: &str| {
        let command = format!(
            "env {env} '{}' validate '{}'",
            env!("CARGO_BIN_EXE_primgraph"),
            graph.display()
        );
        let child = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script (util-linux)");
        let out = wait_bounded(child, Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
        text(&out.stdout)
    };
    let escape = '\u{1b}';
    assert!(on_terminal("-u NO_COLOR TERM=xterm").contains(escape));
    assert!(!on_terminal("NO_COLOR=1 TERM=xterm").contains(escape));
    assert!(!on_terminal("-u NO_COLOR TERM=dumb").contains(escape));
}

#[test]
fn registry_show_suggests_the_nearest_primitives() {
    let out = run_bounded(&["registry", "show", "obs.list_file"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("did you mean `obs.list_files`"), "{err}");
}

#[test]
fn registry_lint_of_a_graph_says_it_once_with_its_location() {
    let g = repo("graphs/fix-failing-test.graph.json");
    let out = run_bounded(&["registry", "lint", g.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.matches("not a registry").count(), 1, "{err}");
    assert!(!err.contains("()"), "{err}");
    assert!(
        err.starts_with(&format!("error: {}:1:1: not a registry: ", g.display())),
        "{err}"
    );
    assert!(err.contains("missing required field `families`"), "{err}");
}

#[test]
fn schema_check_of_unusable_input_speaks_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "").unwrap();
    let deep = dir.path().join("deep.json");
    std::fs::write(&deep, format!("{}{}", "[".repeat(200), "]".repeat(200))).unwrap();
    let target = dir.path().join("t.json");
    std::fs::write(&target, r#"{"type": "string"}"#).unwrap();
    let t = target.to_str().unwrap();
    for (file, expected) in [
        (&empty, "the document is empty"),
        (&deep, "nesting deeper than 128 levels"),
    ] {
        let out = run_bounded(&["schema", "check", file.to_str().unwrap(), t]);
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(err.contains(expected), "{err}");
        for debug in ["TooDeep", "Empty", "{ limit"] {
            assert!(!err.contains(debug), "{err}");
        }
    }
}

/// A registry of the builtin's families and 32,767 small primitives: one over the documented
/// limit, refused (exit 2, at `/primitives`) by `registry lint` and by every loading command.
#[test]
fn one_primitive_limit_is_enforced_by_lint_and_every_loader() {
    let builtin: serde_json::Value =
        serde_json::from_str(primgraph::registry::BUILTIN_JSON).unwrap();
    let family = &builtin["families"][0];
    let prefix = family["prefix"].as_str().unwrap();
    let count = primgraph::registry::MAX_PRIMITIVES + 1;
    let primitives: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            serde_json::json!({
                "id": format!("{prefix}.p{i}"), "alias": format!("P{i}"),
                "family": family["name"], "class": "deterministic", "authority": "propose",
                "summary": "s", "inputs": {"type": "object"}, "outputs": {"type": "object"},
                "evidence": [], "failure_modes": [], "fallback": null,
                "evaluation": {"method": "m", "metric": "x"}, "effects": [],
                "requires_authorization": false, "requires_verifier": false, "terminal": true
            })
        })
        .collect();
    let registry = serde_json::json!({
        "abi": "1.0.0", "families": [family], "primitives": primitives
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.json");
    std::fs::write(&path, serde_json::to_string(&registry).unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let g = repo("graphs/fix-failing-test.graph.json");
    let limit = primgraph::registry::MAX_PRIMITIVES.to_string();
    for args in [
        vec!["registry", "lint", p],
        vec!["registry", "list", "--registry", p],
        vec!["validate", "--registry", p, g.to_str().unwrap()],
    ] {
        let out = run_bounded(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{count} primitives, over the limit of {limit}")),
            "{args:?}: {err}"
        );
        assert!(err.contains("/primitives"), "{args:?}: {err}");
    }
}

/// Invalid UTF-8 on line 2: human, SARIF and JSON output name the same line and column.
#[test]
fn invalid_utf8_has_one_location_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.graph.json");
    std::fs::write(&path, b"{\"graph\": \"x\",\n  \"abi\": \"1.\xff0\"}\n").unwrap();
    let p = path.to_str().unwrap();
    let json = run_bounded(&["validate", "--format", "json", p]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let d = &doc["files"][0]["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(2), Some(13))
    );
    let human = text(&run_bounded(&["validate", p]).stdout);
    assert!(human.contains(&format!("{p}:2:13")), "{human}");
    let sarif = run_bounded(&["validate", "--format", "sarif", p]);
    let sarif: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let region = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 2, "{region}");
    assert_eq!(region["startColumn"], 13, "{region}");
}

/// Two edges join `gate` and `apply` (the grant branch `allow` and `on_error: *`); the A402
/// witness goes through `on_error`. JSON and SARIF name that edge, and the picture paints it —
/// not the grant edge — with every DOT attribute given once.
#[test]
fn a_witness_names_the_edge_it_takes() {
    let g = repo("tests/fixtures/rules/builtin/grant_bypass_on_error.graph.json");
    let g = g.to_str().unwrap();
    let out = run_bounded(&["validate", "--format", "json", g]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let a402 = doc["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "A402")
        .cloned()
        .unwrap_or_else(|| panic!("{doc}"));
    let witness = &a402["witness"];
    let path: Vec<&str> = witness["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(path.last(), Some(&"apply"), "{witness}");
    let last = witness["edges"]
        .as_array()
        .unwrap()
        .last()
        .cloned()
        .unwrap();
    assert_eq!(
        last,
        serde_json::json!({"from": "gate", "to": "apply", "kind": "on_error", "label": "*"})
    );
    assert_eq!(witness["edges"].as_array().unwrap().len() + 1, path.len());
    let sarif = run_bounded(&["validate", "--format", "sarif", g]);
    let sarif: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "A402")
        .cloned()
        .unwrap();
    let flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap();
    let step = flow.last().unwrap()["location"]["message"]["text"]
        .as_str()
        .unwrap();
    assert_eq!(step, "apply (via on_error `*`)");
    let dot = text(&run_bounded(&["graph", "dot", "--diagnostics", g]).stdout);
    let lines: Vec<&str> = dot
        .lines()
        .filter(|l| l.trim_start().starts_with("\"gate\" -> \"apply\""))
        .collect();
    assert_eq!(lines.len(), 2, "{dot}");
    let grant = lines.iter().find(|l| l.contains("(grant)")).unwrap();
    let error = lines.iter().find(|l| l.contains("on_error")).unwrap();
    assert!(!grant.contains("witness"), "{grant}");
    assert!(
        error.contains("witness") && error.contains("#dc2626"),
        "{error}"
    );
    for line in lines {
        let attrs = line.split_once('[').unwrap().1;
        for key in ["color=", "fontcolor=", "penwidth=", "style=", "label="] {
            let count = attrs
                .split([',', '['])
                .filter(|a| a.trim_start().starts_with(key))
                .count();
            assert!(count <= 1, "{key} twice in {line}");
        }
    }
}

#[test]
fn a_missing_file_is_said_to_be_missing_with_no_made_up_position() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let m = missing.to_str().unwrap();
    for args in [
        vec!["registry", "diff", m, "builtin"],
        vec!["registry", "diff", "builtin", m],
    ] {
        let out = run_bounded(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(&format!("{m}: no such file")), "{err}");
        assert!(
            !err.contains(":1:1:") && !err.contains("not a registry"),
            "{err}"
        );
    }
    let toml = dir.path().join("missing.toml");
    let g = repo("graphs/fix-failing-test.graph.json");
    let out = run_bounded(&[
        "validate",
        "--config",
        toml.to_str().unwrap(),
        g.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("missing.toml: no such file"), "{err}");
    assert!(!err.contains(":0:0:"), "{err}");
}
