//! End to end in a real editor: Neovim, headless, with its built-in LSP client attached to
//! `primgraph lsp`, opens a broken graph (the gate's `on_error` reaches `apply` without a
//! grant) and shows the A402 diagnostic at the `apply` node, with its witness in the message.
//! Needs `nvim` on PATH (`.ci/run` installs Debian's `neovim`); see `external_tool`.

use crate::external_tool;

use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn neovim_shows_the_servers_diagnostics() {
    let Some(nvim) = external_tool::find("nvim", "neovim_shows_the_servers_diagnostics") else {
        return;
    };
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/editor");
    let dir = tempfile::tempdir().expect("temp dir");
    let graph = dir.path().join("grant-bypass.graph.json");
    std::fs::copy(fixtures.join("grant-bypass.graph.json"), &graph).expect("copy the graph");
    let out = dir.path().join("diagnostics.txt");
    let mut child = Command::new(nvim)
        .args(["--headless", "--clean", "-n", "-i", "NONE", "-c"])
        .arg(format!("luafile {}", fixtures.join("neovim.lua").display()))
        .env("PRIMGRAPH_GRAPH", &graph)
        .env("PRIMGRAPH_OUT", &out)
        .env("PRIMGRAPH_BIN", env!("CARGO_BIN_EXE_primgraph"))
        .env("XDG_STATE_HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("start nvim");
    let status = external_tool::wait_bounded(&mut child, Duration::from_secs(120));
    let shown = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("nvim ({status}) wrote no diagnostics file: {e}"));
    let text = std::fs::read_to_string(&graph).expect("graph");
    let apply_line = text
        .lines()
        .position(|l| l.contains("{\"id\": \"apply\""))
        .expect("apply node");
    let a402: Vec<&str> = shown.lines().filter(|l| l.starts_with("A402 ")).collect();
    assert_eq!(a402.len(), 1, "Neovim shows:\n{shown}");
    let fields: Vec<&str> = a402[0].splitn(5, ' ').collect();
    assert_eq!(fields[1], "1", "severity error: {}", a402[0]);
    assert_eq!(fields[2], apply_line.to_string(), "line: {}", a402[0]);
    assert_eq!(fields[3], "4", "column of the node's `{{`: {}", a402[0]);
    assert!(
        fields[4].contains("witness: intake → localize → draft → gate →[on_error: *] apply"),
        "{}",
        a402[0]
    );
}
