//! What CI reads, through the real binary: `--format github` workflow commands (escaped as the
//! Actions toolkit escapes them), SARIF `codeFlows` for witness paths and `suppressions` for
//! configuration overrides (their validity against the official SARIF 2.1.0 schema is
//! `tests/it/sarif_schema.rs`'s), and `primgraph.toml`
//! (discovery, `--config`, severity overrides shown in JSON, located errors).

use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};

fn primgraph(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run primgraph")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).expect(name)
}

/// A project folder with the broken graph (A402) and an aliased one (R102) under `legacy/`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("bad.graph.json"),
        fixture("tests/fixtures/editor/grant-bypass.graph.json"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("legacy")).unwrap();
    std::fs::write(
        dir.path().join("legacy/alias.graph.json"),
        fixture("graphs/fix-failing-test.graph.json").replace(
            "\"primitive\": \"ctl.authorize_patch\"",
            "\"primitive\": \"AUTHORIZE_PATCH\"",
        ),
    )
    .unwrap();
    dir
}

/// Decode a workflow command's escaped message (the runner's inverse of the escaping).
fn unescape(text: &str) -> String {
    text.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

#[test]
fn github_format_writes_one_escaped_command_per_diagnostic() {
    let dir = project();
    // A file name with `,` and `:` must not end the `file` property early.
    std::fs::rename(
        dir.path().join("bad.graph.json"),
        dir.path().join("we,ird:name.graph.json"),
    )
    .unwrap();
    let out = primgraph(dir.path(), &["validate", "--format", "github", "."]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    let error = lines
        .iter()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        error.starts_with("::error file=./we%2Cird%3Aname.graph.json,line=15,col=5,title=A402::"),
        "{error}"
    );
    let message = unescape(
        error
            .split_once("::")
            .unwrap()
            .1
            .split_once("::")
            .unwrap()
            .1,
    );
    assert!(
        message
            .contains("\nwitness: intake → localize → draft → gate →[on_error: *] apply\nhelp: "),
        "{message:?}"
    );
    assert!(!error.contains('\n'));
    let notice = lines.iter().find(|l| l.starts_with("::notice ")).unwrap();
    assert!(notice.contains("title=R102::"), "{notice}");
}

#[test]
fn sarif_has_code_flows_and_suppressions() {
    let dir = project();
    std::fs::write(
        dir.path().join("primgraph.toml"),
        "[[overrides]]\npaths = [\"legacy/**\"]\nseverity = { R102 = \"off\" }\n",
    )
    .unwrap();
    let out = primgraph(dir.path(), &["validate", "--format", "sarif", "."]);
    assert_eq!(out.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Validity against the official SARIF 2.1.0 schema: tests/it/sarif_schema.rs.

    // The driver describes the rules the results use, not the whole code table.
    let mut rules: Vec<&str> = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    rules.sort_unstable();
    assert_eq!(rules, ["A402", "R102"]);

    let results = log["runs"][0]["results"].as_array().unwrap();
    let a402 = results.iter().find(|r| r["ruleId"] == "A402").unwrap();
    let steps = a402["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = steps
        .iter()
        .map(|s| s["location"]["message"]["text"].as_str().unwrap())
        .collect();
    // Each step after the first names the edge it was reached by.
    assert_eq!(
        names,
        [
            "intake",
            "localize (via next)",
            "draft (via next)",
            "gate (via next)",
            "apply (via on_error `*`)"
        ]
    );
    // Each step is at its node's `id` (line 11 + index in this graph).
    let lines: Vec<u64> = steps
        .iter()
        .map(|s| {
            s["location"]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(lines, [11, 12, 13, 14, 15]);

    let r102 = results.iter().find(|r| r["ruleId"] == "R102").unwrap();
    assert_eq!(r102["suppressions"][0]["kind"], json!("external"));
    assert_eq!(
        r102["properties"]["overriddenBy"]["setting"],
        json!("overrides[0].severity.R102")
    );
}

#[test]
fn primgraph_toml_overrides_are_visible_in_json() {
    let dir = project();
    std::fs::write(
        dir.path().join("primgraph.toml"),
        "[severity]\nA402 = \"warning\"\n\n[[overrides]]\npaths = [\"legacy\"]\nseverity = { R102 = \"off\" }\n",
    )
    .unwrap();
    // Found from a subfolder upwards; paths stay relative to the file.
    let out = primgraph(
        &dir.path().join("legacy"),
        &["validate", "--format", "json", ".."],
    );
    assert_eq!(out.status.code(), Some(0), "A402 is only a warning now");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    let bad = files
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with("bad.graph.json"))
        .unwrap();
    let a402 = &bad["diagnostics"][0];
    assert_eq!(a402["code"], json!("A402"));
    assert_eq!(a402["severity"], json!("warning"));
    assert_eq!(
        a402["overridden_by"],
        // Relative to the working directory (`legacy/`), never the runner's absolute path.
        json!({"config": "../primgraph.toml",
               "setting": "severity.A402", "line": 2, "column": 1, "from": "error", "to": "warning"})
    );
    let legacy = files
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with("alias.graph.json"))
        .unwrap();
    assert_eq!(legacy["diagnostics"], json!([]));
    assert_eq!(legacy["suppressed"][0]["code"], json!("R102"));
    assert_eq!(legacy["suppressed"][0]["overridden_by"]["to"], json!("off"));
    assert_eq!(doc["summary"]["warnings"], json!(1));
    assert_eq!(
        doc["summary"]["infos"],
        json!(0),
        "a suppressed diagnostic is not counted"
    );

    // --deny-warnings still sees the overridden one.
    let out = primgraph(dir.path(), &["validate", "--deny-warnings", "."]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("severity error changed by"), "{text}");
    assert!(
        text.contains("1 diagnostic(s) turned off by configuration"),
        "{text}"
    );
}

#[test]
fn config_errors_are_located_and_exit_2() {
    let dir = project();
    std::fs::write(
        dir.path().join("primgraph.toml"),
        "exclude = [\"legacy\"]\n\n[severity]\nR102 = \"off\"\nA4O2 = \"warning\"\n",
    )
    .unwrap();
    let out = primgraph(dir.path(), &["validate", "."]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("primgraph.toml:5:1: unknown diagnostic code `A4O2`"),
        "{stderr}"
    );

    std::fs::write(dir.path().join("other.toml"), "regsitry = \"x.json\"\n").unwrap();
    let out = primgraph(dir.path(), &["validate", "--config", "other.toml", "."]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("other.toml:1:1: unknown field `regsitry`"),
        "{stderr}"
    );

    // Excluded paths are not checked.
    std::fs::write(
        dir.path().join("primgraph.toml"),
        "exclude = [\"legacy\"]\n[severity]\nR102 = \"error\"\n",
    )
    .unwrap();
    let out = primgraph(dir.path(), &["validate", "--format", "json", "."]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["files"], json!(1), "{doc}");
}

#[test]
fn replay_writes_github_commands_at_trace_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = primgraph(
        root,
        &[
            "replay",
            "--format",
            "github",
            "--graph",
            "graphs/runs/fix-failing-test.graph.json",
            "graphs/runs/diverged.trace.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let first = stdout
        .lines()
        .next()
        .unwrap_or_else(|| panic!("no command"));
    assert!(
        first.starts_with("::error file=graphs/runs/diverged.trace.jsonl,line="),
        "{first}"
    );
    assert!(first.contains(",title=D603::"), "{first}");
}

/// Issue 21 item 7: `exclude = ["**"]` turned `validate bad.graph.json` into "0 files", exit 0.
/// A file named on the command line is validated; `--force-exclude` excludes it and says so,
/// and when nothing is left that is exit 2 unless `--allow-empty`. Folder walks still exclude.
#[test]
fn a_named_file_is_never_silently_excluded() {
    let dir = project();
    std::fs::write(dir.path().join("primgraph.toml"), "exclude = [\"**\"]\n").unwrap();
    let named = primgraph(
        dir.path(),
        &["validate", "--format", "json", "bad.graph.json"],
    );
    assert_eq!(named.status.code(), Some(1), "the named graph is validated");
    let report: Value = serde_json::from_slice(&named.stdout).unwrap();
    assert_eq!(report["summary"]["files"], 1);
    let forced = primgraph(
        dir.path(),
        &["validate", "--force-exclude", "bad.graph.json"],
    );
    let err = String::from_utf8_lossy(&forced.stderr);
    assert_eq!(forced.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.graph.json: excluded"), "{err}");
    assert!(err.contains("--allow-empty"), "{err}");
    let allowed = primgraph(
        dir.path(),
        &[
            "validate",
            "--force-exclude",
            "--allow-empty",
            "bad.graph.json",
        ],
    );
    assert_eq!(allowed.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&allowed.stderr).contains("excluded"));
    // A folder walk excludes as before (and the folder then holds nothing to check).
    let walked = primgraph(
        dir.path(),
        &["validate", "--format", "json", "--allow-empty", "."],
    );
    let report: Value = serde_json::from_slice(&walked.stdout).unwrap();
    assert_eq!(report["summary"]["files"], 0);
}

/// Issue 21 item 7: codes in `primgraph.toml` match case-insensitively and are applied.
#[test]
fn a_lower_case_code_in_the_config_is_applied() {
    let dir = project();
    std::fs::write(
        dir.path().join("primgraph.toml"),
        "[severity]\na402 = \"warning\"\n",
    )
    .unwrap();
    let out = primgraph(
        dir.path(),
        &["validate", "--format", "json", "bad.graph.json"],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let a402 = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "A402")
        .expect("A402 reported");
    assert_eq!(a402["severity"], "warning");
    assert_eq!(a402["overridden_by"]["setting"], "severity.a402");
}
