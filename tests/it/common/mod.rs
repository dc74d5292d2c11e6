//! Helpers the integration tests share (`use crate::common;` in each): the fixture registry
//! and graph under `tests/fixtures/replay/`, a replayer over them, running the `primgraph`
//! binary, and copying a folder (a pack) into a scratch one. A helper may lose its last user,
//! hence `dead_code` is allowed here.
#![allow(dead_code)]

use primgraph::registry::Registry;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer, TrustedKey};
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

pub const REGISTRY: &str = "tests/fixtures/replay/registry.json";
pub const GRAPH: &str = "tests/fixtures/replay/fix.graph.json";
/// The adversarial traces and the fixture seal key.
pub const ADVERSARIAL: &str = "tests/fixtures/replay/adversarial";

/// The fixture registry, read once per test binary.
pub fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| Registry::from_path(Path::new(REGISTRY)).unwrap())
}

/// A replayer of the fixture graph that trusts `keys` (none: seals are checked but not required).
pub fn trusting(keys: Vec<TrustedKey>) -> Replayer<'static> {
    let bytes = std::fs::read(GRAPH).unwrap();
    let graph = ReplayGraph::load(GRAPH, &bytes, registry()).unwrap();
    Replayer::new(registry(), graph, ReplayOptions::default()).with_trusted_keys(keys)
}

/// Run the binary: its exit code (-1 when killed), stdout and stderr.
pub fn primgraph(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run the binary from `cwd`, colour off: its exit code (-1 when killed), stdout and stderr.
pub fn primgraph_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .current_dir(cwd)
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .output()
        .expect("run primgraph");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `primgraph replay --graph GRAPH --registry REGISTRY ARGS…` over the fixtures.
pub fn replay(args: &[&str]) -> (i32, String, String) {
    primgraph(&[&["replay", "--graph", GRAPH, "--registry", REGISTRY], args].concat())
}

/// `primgraph simulate GRAPH --registry REGISTRY ARGS…` over the fixtures.
pub fn simulate(args: &[&str]) -> (i32, String, String) {
    primgraph(&[&["simulate", GRAPH, "--registry", REGISTRY], args].concat())
}

/// Copy the folder `from` (a pack, with its sub-folders) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The smallest pack that loads: one family, one primitive.
pub fn mini_pack() -> serde_json::Value {
    serde_json::json!({"pack": "mini", "version": "1.0.0", "summary": "s", "kernel_abi": "^1.0",
        "roots": ["mini"],
        "families": [{"name": "mini", "prefix": "mini", "group": "g", "summary": "s"}],
        "primitives": [{"id": "mini.look", "alias": "MINI_LOOK", "family": "mini",
            "class": "deterministic", "authority": "propose", "summary": "s",
            "inputs": {"type": "object", "properties": {"q": {"type": "string"}},
                       "additionalProperties": false},
            "outputs": {"type": "object", "properties": {"a": {"type": "string"}},
                        "required": ["a"], "additionalProperties": false},
            "evidence": [], "failure_modes": ["invalid_input"],
            "evaluation": {"method": "m", "metric": "x"}, "effects": ["reads_workspace"]}]})
}
