//! Packs against hostile input (issue 23, SPEC §9.1–§9.2), through the binary the way a user
//! meets it (`validate G --pack DIR`, `pack lint DIR`, `pack lock`, `validate --locked`): a pack
//! folder with symbolic links (one escaping the pack, loops), a 50 MB `pack.json`, 10,000 packs
//! on the pack path, a requirement chain 1,000 deep (and its cycle), a schema file or
//! `pack.json` that is a FIFO. Every input is generated at test time in a temporary folder; each
//! answer must be a located error or the correct answer. Every child runs under a hang guard:
//! still running after 60 s, it is killed and the test fails — a bound on blocking, not a
//! timed performance assertion.

use crate::common::copy_dir;
use serde_json::{Value, json};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const HANG_GUARD: Duration = Duration::from_secs(60);

fn fixture_pack() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packs/path/pyfix")
}

fn fixture_graph() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packs/uses-pyfix.graph.json")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", self.stdout, self.stderr))
    }
}

/// `primgraph ARGS…` from `cwd`, killed (and the test failed) if still running after
/// [`HANG_GUARD`]; its pipes are drained meanwhile, so a full pipe never blocks it.
fn primgraph(cwd: &Path, args: &[&str]) -> Run {
    let mut child: Child = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .current_dir(cwd)
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn primgraph");
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
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
        match child.try_wait().expect("wait for primgraph") {
            Some(status) => break status,
            None if start.elapsed() < HANG_GUARD => std::thread::sleep(Duration::from_millis(20)),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "primgraph {args:?} still running after {HANG_GUARD:?} (killed); stderr: {}",
                    stderr.join().unwrap_or_default()
                );
            }
        }
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Every diagnostic of a §3.1 JSON document: (code, file, line, column, pointer, message).
/// `validate g.graph.json --pack PACK --format json` in `cwd`.
fn validate_json(cwd: &Path, pack: &str) -> Run {
    primgraph(
        cwd,
        &[
            "validate",
            "g.graph.json",
            "--pack",
            pack,
            "--format",
            "json",
        ],
    )
}

/// The one finding of a `--format json` run that exits `code`.
fn one_finding(run: &Run, code: i32) -> (String, String, u64, u64, String, String) {
    assert_eq!(run.code, code, "{}", run.stderr);
    let found = findings(&run.json());
    assert_eq!(found.len(), 1, "{found:?}");
    found.into_iter().next().unwrap()
}

fn findings(doc: &Value) -> Vec<(String, String, u64, u64, String, String)> {
    let mut out = Vec::new();
    for file in doc["files"].as_array().into_iter().flatten() {
        let report_file = file["file"].as_str().unwrap_or_default();
        for d in file["diagnostics"].as_array().into_iter().flatten() {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            out.push((
                s("code"),
                d["file"].as_str().unwrap_or(report_file).to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
                s("pointer"),
                s("message"),
            ));
        }
    }
    out
}

fn codes(doc: &Value) -> Vec<String> {
    findings(doc).into_iter().map(|f| f.0).collect()
}

/// A temporary project holding a copy of the fixture pack (`pyfix/`) and the graph that uses it
/// (`g.graph.json`).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture_pack(), &dir.path().join("pyfix"));
    std::fs::copy(fixture_graph(), dir.path().join("g.graph.json")).unwrap();
    dir
}

fn write_json(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec(value).unwrap()).unwrap();
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

// ---- symbolic links -------------------------------------------------------------------------

#[test]
fn a_symlink_escaping_the_pack_is_p801_at_the_link_and_never_followed() {
    let project = project();
    let dir = project.path();
    std::fs::write(dir.join("secret.txt"), "SECRET-LINE-OUTSIDE-THE-PACK\n").unwrap();
    std::os::unix::fs::symlink(
        dir.join("secret.txt"),
        dir.join("pyfix/schemas/escape.json"),
    )
    .unwrap();

    let run = validate_json(dir, "pyfix");
    let found = [one_finding(&run, 1)];
    let (code, file, line, column, _, message) = &found[0];
    assert_eq!(
        (code.as_str(), file.as_str(), *line, *column),
        ("P801", "pyfix/schemas/escape.json", 1, 1)
    );
    assert!(message.contains("symbolic link"), "{message}");

    // The human report of `pack lint` names the link and never quotes what it points at.
    let run = primgraph(dir, &["pack", "lint", "pyfix"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("--> pyfix/schemas/escape.json:1:1\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("SECRET-LINE"), "{}", run.stdout);
    // `validate` shows a finding in a pack's file by its location, printed once.
    let run = primgraph(dir, &["validate", "g.graph.json", "--pack", "pyfix"]);
    assert!(
        run.stdout.contains("--> pyfix/schemas/escape.json:1:1\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("SECRET-LINE"), "{}", run.stdout);
}

#[test]
fn symlink_loops_in_a_pack_and_on_the_pack_path_end_in_located_errors() {
    let project = project();
    let dir = project.path();
    // A link to itself and a link to the pack's own folder (a walk that followed it would not
    // end).
    std::os::unix::fs::symlink("loop", dir.join("pyfix/loop")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("pyfix/schemas/again")).unwrap();
    for args in [
        &[
            "validate",
            "g.graph.json",
            "--pack",
            "pyfix",
            "--format",
            "json",
        ][..],
        &["pack", "lint", "pyfix", "--format", "json"][..],
    ] {
        let run = primgraph(dir, args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        let found = findings(&run.json());
        assert!(!found.is_empty(), "{args:?}");
        for (code, file, line, _, _, message) in &found {
            assert_eq!(code, "P801", "{args:?}: {found:?}");
            assert!(
                file == "pyfix/loop" || file == "pyfix/schemas/again",
                "{args:?}: {found:?}"
            );
            assert_eq!(*line, 1);
            assert!(message.contains("symbolic link"), "{message}");
        }
    }

    // A folder of packs holding links that loop: they are no packs (never followed), the real
    // pack beside them loads and the graph validates.
    let shelf = dir.join("shelf");
    std::fs::create_dir(&shelf).unwrap();
    std::fs::remove_file(dir.join("pyfix/loop")).unwrap();
    std::fs::remove_file(dir.join("pyfix/schemas/again")).unwrap();
    std::fs::rename(dir.join("pyfix"), shelf.join("pyfix")).unwrap();
    std::os::unix::fs::symlink("b", shelf.join("a")).unwrap();
    std::os::unix::fs::symlink("a", shelf.join("b")).unwrap();
    let run = validate_json(dir, "shelf");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(codes(&run.json()), Vec::<String>::new());

    // A pack path entry that is itself a link loop is not a folder: exit 2, named.
    let run = primgraph(dir, &["validate", "g.graph.json", "--pack", "shelf/a"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("--pack shelf/a: not a folder"),
        "{}",
        run.stderr
    );
}

// ---- a 50 MB pack.json ----------------------------------------------------------------------

#[test]
fn a_50_mb_pack_json_is_p801_from_its_size_alone() {
    let project = project();
    let dir = project.path();
    // Valid JSON, the fixture's manifest with a 50 MB summary: refused unread, from its size.
    let manifest = dir.join("pyfix/pack.json");
    let mut value: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    value["summary"] = Value::String("x".repeat(50 * 1024 * 1024));
    write_json(&manifest, &value);
    let size = std::fs::metadata(&manifest).unwrap().len();
    assert!(size > 50 * 1024 * 1024);

    let run = primgraph(dir, &["pack", "lint", "pyfix", "--format", "json"]);
    let found = [one_finding(&run, 1)];
    let (code, file, line, column, _, message) = &found[0];
    assert_eq!(
        (code.as_str(), file.as_str(), *line, *column),
        ("P801", "pyfix/pack.json", 1, 1)
    );
    // The size in the message is the file's metadata: the bytes were never read.
    assert!(
        message.contains(&format!("the file is {size} bytes, over the limit")),
        "{message}"
    );

    // The graph that declares it: the pack's P801 in its pack.json, then the P804 at the
    // graph's range (no loadable version).
    let run = validate_json(dir, "pyfix");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let found = findings(&run.json());
    let located: Vec<(&str, &str, u64, &str)> = found
        .iter()
        .map(|f| (f.0.as_str(), f.1.as_str(), f.2, f.4.as_str()))
        .collect();
    assert_eq!(
        located,
        [
            ("P801", "pyfix/pack.json", 1, ""),
            ("P804", "g.graph.json", 5, "/packs/pyfix"),
        ]
    );
    assert!(found[0].5.contains("over the limit"), "{found:?}");
}

// ---- 10,000 packs on the pack path ----------------------------------------------------------

/// A generated pack: `name` with root `name`, one verification primitive `name.check`, and
/// `requires` as given.
fn generated_pack(dir: &Path, name: &str, requires: Option<(&str, &str)>) {
    let mut pack = json!({
        "pack": name,
        "version": "1.0.0",
        "summary": "A generated pack.",
        "kernel_abi": "^1.0",
        "roots": [name],
        "families": [{"name": format!("{name}-check"), "prefix": name, "group": "verification",
                      "summary": "Check."}],
        "primitives": [{
            "id": format!("{name}.check"), "alias": format!("{}_CHECK", name.to_uppercase()),
            "family": format!("{name}-check"), "class": "verification", "authority": "verify",
            "summary": "Check the workspace.",
            "inputs": {"type": "object"}, "outputs": {"type": "object"},
            "evidence": ["test_log"], "failure_modes": ["invalid_input"],
            "evaluation": {"method": "replay", "metric": "pass_rate"},
            "effects": ["reads_workspace"]
        }]
    });
    if let Some((other, range)) = requires {
        pack["requires"] = json!({ other: range });
    }
    write_json(&dir.join("pack.json"), &pack);
}

/// A graph declaring `packs` whose one step runs `primitive`.
fn graph_running(path: &Path, packs: Value, primitive: &str) {
    let root = primitive.split('.').next().unwrap();
    write_json(
        path,
        &json!({
            "graph": "generated",
            "abi": "1.0.0",
            "packs": packs,
            "capabilities": [format!("{root}.*"), "done.*"],
            "entry": "check",
            "nodes": [
                {"id": "check", "primitive": primitive, "next": "done",
                 "on_error": {"*": "done"}},
                {"id": "done", "primitive": "done.finish_success",
                 "inputs": {"summary": {"const": "checked"}}}
            ]
        }),
    );
}

#[test]
fn ten_thousand_packs_on_the_pack_path_resolve_to_the_ones_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let shelf = dir.path().join("shelf");
    for i in 0..10_000 {
        let name = format!("p{i:05}");
        generated_pack(&shelf.join(&name), &name, None);
    }
    graph_running(
        &dir.path().join("last.graph.json"),
        json!({"p09999": "^1.0", "p00000": "^1.0"}),
        "p09999.check",
    );
    let run = primgraph(
        dir.path(),
        &[
            "validate",
            "last.graph.json",
            "--pack",
            "shelf",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(codes(&run.json()), Vec::<String>::new());

    // A range none of them meets: P804 at that range, naming what the path has.
    graph_running(
        &dir.path().join("newer.graph.json"),
        json!({"p05000": "^2.0"}),
        "p05000.check",
    );
    let run = primgraph(
        dir.path(),
        &[
            "validate",
            "newer.graph.json",
            "--pack",
            "shelf",
            "--format",
            "json",
        ],
    );
    let found = [one_finding(&run, 1)];
    assert_eq!(
        (
            found[0].0.as_str(),
            found[0].1.as_str(),
            found[0].4.as_str()
        ),
        ("P804", "newer.graph.json", "/packs/p05000")
    );
    assert!(
        found[0].5.contains("the pack path has 1.0.0"),
        "{}",
        found[0].5
    );
}

// ---- a requirement chain 1,000 deep ---------------------------------------------------------

const DEPTH: usize = 1_000;

/// Packs `c0000` … `c0999` in `shelf`, each requiring the next; the last requires `last`.
fn chain(shelf: &Path, last: Option<(&str, &str)>) {
    for i in 0..DEPTH {
        let name = format!("c{i:04}");
        let next = format!("c{:04}", i + 1);
        let requires = if i + 1 < DEPTH {
            Some((next.as_str(), "^1.0"))
        } else {
            last
        };
        generated_pack(&shelf.join(&name), &name, requires);
    }
}

#[test]
fn a_requirement_chain_1000_deep_resolves_unlocked_and_locked() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    chain(&cwd.join("shelf"), None);
    std::fs::write(cwd.join("primgraph.toml"), "packs = [\"shelf\"]\n").unwrap();
    graph_running(
        &cwd.join("g.graph.json"),
        json!({"c0000": "^1.0"}),
        "c0000.check",
    );
    let run = primgraph(cwd, &["validate", "g.graph.json", "--format", "json"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(codes(&run.json()), Vec::<String>::new());

    // The lock holds the whole chain, and `--locked` loads exactly it (every one of the 1,000
    // from the lock, none from the path: the lock alone must settle in a bounded number of
    // rounds).
    let run = primgraph(cwd, &["pack", "lock", "g.graph.json"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let lock: Value =
        serde_json::from_slice(&std::fs::read(cwd.join("primgraph.lock")).unwrap()).unwrap();
    assert_eq!(lock["packs"].as_array().map(Vec::len), Some(DEPTH));
    std::fs::write(cwd.join("primgraph.toml"), "").unwrap();
    let run = primgraph(
        cwd,
        &["validate", "g.graph.json", "--locked", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(codes(&run.json()), Vec::<String>::new());

    // An edit at the bottom of the chain is caught by the lock: P806 in the lock.
    let bottom = cwd.join(format!("shelf/c{:04}/pack.json", DEPTH - 1));
    let mut value: Value = serde_json::from_slice(&std::fs::read(&bottom).unwrap()).unwrap();
    value["summary"] = json!("Edited without relocking.");
    write_json(&bottom, &value);
    let run = primgraph(
        cwd,
        &["validate", "g.graph.json", "--locked", "--format", "json"],
    );
    let found = [one_finding(&run, 1)];
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str()),
        ("P806", "primgraph.lock")
    );
    assert_eq!(found[0].4, format!("/packs/{}/digest", DEPTH - 1));
}

#[test]
fn a_chain_1000_deep_that_breaks_at_the_bottom_or_loops_is_located_there() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    graph_running(
        &cwd.join("g.graph.json"),
        json!({"c0000": "^1.0"}),
        "c0000.check",
    );

    chain(&cwd.join("broken"), Some(("nowhere", "^1.0")));
    let run = validate_json(cwd, "broken");
    let found = [one_finding(&run, 1)];
    assert_eq!(
        (
            found[0].0.as_str(),
            found[0].1.as_str(),
            found[0].4.as_str()
        ),
        ("P804", "broken/c0999/pack.json", "/requires/nowhere")
    );
    assert!(found[0].2 >= 1 && found[0].3 > 1, "{found:?}");

    chain(&cwd.join("cycle"), Some(("c0000", "^1.0")));
    let run = validate_json(cwd, "cycle");
    let found = [one_finding(&run, 1)];
    assert_eq!(
        (
            found[0].0.as_str(),
            found[0].1.as_str(),
            found[0].4.as_str()
        ),
        ("P805", "cycle/c0000/pack.json", "/requires/c0001")
    );
    // One line for a cycle through 1,000 packs: its ends, and how many are left out.
    let message = &found[0].5;
    assert!(
        message.contains("c0000@1.0.0 → c0001@1.0.0")
            && message.contains("… 991 more …")
            && message.ends_with("c0999@1.0.0 → c0000@1.0.0 (1000 packs)"),
        "{message}"
    );
}

// ---- FIFOs ----------------------------------------------------------------------------------

#[test]
fn a_schema_file_that_is_a_fifo_is_p801_never_opened() {
    let project = project();
    let dir = project.path();
    // The contract's `$ref` names it: opening it for reading would wait for a writer forever.
    std::fs::remove_file(dir.join("pyfix/schemas/report.json")).unwrap();
    mkfifo(&dir.join("pyfix/schemas/report.json"));
    for args in [
        &[
            "validate",
            "g.graph.json",
            "--pack",
            "pyfix",
            "--format",
            "json",
        ][..],
        &["pack", "lint", "pyfix", "--format", "json"][..],
        &["pack", "show", "pyfix", "--format", "json"][..],
    ] {
        let run = primgraph(dir, args);
        assert_eq!(run.code, 1, "{args:?}: {}{}", run.stdout, run.stderr);
        let mut located: Vec<(String, String, u64, String)> = findings(&run.json())
            .into_iter()
            .map(|f| (f.0, f.1, f.2, f.4))
            .collect();
        located.sort();
        // Where the pack names it (`schemas`) and the file itself (the digest's walk); no
        // L505 for the primitives whose `$ref` could not be bundled.
        assert_eq!(
            located,
            [
                (
                    "P801".into(),
                    "pyfix/pack.json".into(),
                    12,
                    "/schemas/report".into()
                ),
                (
                    "P801".into(),
                    "pyfix/schemas/report.json".into(),
                    1,
                    "".into()
                ),
            ],
            "{args:?}"
        );
    }
}

#[test]
fn a_pack_json_that_is_a_fifo_is_p801_never_opened() {
    let project = project();
    let dir = project.path();
    std::fs::remove_file(dir.join("pyfix/pack.json")).unwrap();
    mkfifo(&dir.join("pyfix/pack.json"));

    let run = primgraph(dir, &["pack", "lint", "pyfix", "--format", "json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let found = findings(&run.json());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str(), found[0].2),
        ("P801", "pyfix/pack.json", 1)
    );
    assert!(found[0].5.contains("FIFO"), "{}", found[0].5);

    let run = validate_json(dir, "pyfix");
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let located: Vec<(String, String)> = findings(&run.json())
        .into_iter()
        .map(|f| (f.0, f.1))
        .collect();
    assert_eq!(
        located,
        [
            ("P801".to_string(), "pyfix/pack.json".to_string()),
            ("P804".to_string(), "g.graph.json".to_string()),
        ]
    );
}
