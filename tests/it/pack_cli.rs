//! `primgraph pack lock|sign|show|lint|test` driven through the real binary, as a user meets
//! them (SPEC §9.2, §9.5, §9.7), on the example pack `registry/packs/pyrepo` and the fixtures
//! under `tests/fixtures/packs/`; snapshots of the whole diagnostics of P806, P807, P850 and
//! P870–P872.
//!
//! Generated fixtures are never edited by hand: the recorded runs of the fixtures come from the
//! simulator (`simulate_run`, seeded), the plugins from WAT text through `wat` and
//! `wit-component`. The tests below regenerate them and compare byte for byte; run with
//! `PRIMGRAPH_BLESS=1` to write them after a deliberate change.

use crate::common::copy_dir;
use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::lock::Lock;
use primgraph::pack::path::PackPath;
use primgraph::pack::{Range, parse_range};
use primgraph::registry::Registry;
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer, Verdict};
use primgraph::simulate::{SimOptions, simulate_run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const EXAMPLE: &str = "registry/packs/pyrepo";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Run the binary in `cwd` (the checkout by default): exit code, stdout, stderr.
fn primgraph_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .output()
        .expect("run primgraph");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn primgraph(args: &[&str]) -> (i32, String, String) {
    primgraph_in(root(), args)
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The codes of a §3.1 JSON document, in order.
fn codes_of(doc: &Value) -> Vec<String> {
    doc["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["diagnostics"].as_array().into_iter().flatten())
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn bless() -> bool {
    std::env::var_os("PRIMGRAPH_BLESS").is_some()
}

/// A generated fixture file: equal to what the generator writes, or written when blessing.
fn check_generated(path: &Path, bytes: &[u8]) {
    if bless() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
        return;
    }
    let committed = std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (generate it with PRIMGRAPH_BLESS=1)",
            path.display()
        )
    });
    assert!(
        committed == bytes,
        "{} is not what its generator writes (regenerate with PRIMGRAPH_BLESS=1)",
        path.display()
    );
}

// ---------------------------------------------------------------------------------------------
// Generated fixtures: recorded runs (the simulator) and plugins (WAT).

/// Simulated runs of a pack's fixture graph: (file name, bytes, expectation).
fn simulate_fixture(
    pack: &Path,
    graph: &str,
    runs: u64,
    seed: u64,
    fault_rate: f64,
) -> Vec<(String, Vec<u8>, Value)> {
    let composer = std::sync::Arc::new(Composer::new(
        Base::Builtin,
        PackPath::scan(&[pack.to_path_buf()]),
        ComposerOptions::default(),
    ));
    let graph_path = pack.join(graph);
    // A graph that uses fragments runs as its expansion (SPEC §9.3).
    let value: Value = primgraph::validate::expand_source(
        &graph_path.display().to_string(),
        &std::fs::read(&graph_path).unwrap(),
        primgraph::registry::Registry::builtin(),
        &primgraph::validate::Options {
            packs: Some(composer.clone()),
            ..Default::default()
        },
    )
    .unwrap_or_else(|r| panic!("{:?}", r.diagnostics));
    let requests: Vec<(String, Range)> = value["packs"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, text)| {
            let text = text.as_str().unwrap();
            let range = Range {
                text: text.into(),
                req: parse_range(text).unwrap(),
                pointer: format!("/packs/{name}"),
            };
            (name.clone(), range)
        })
        .collect();
    let composition = composer
        .compose(&graph_path.display().to_string(), &requests)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let g = ReplayGraph::from_value(value, &composition.registry).unwrap();
    let replayer = Replayer::new(&composition.registry, g, ReplayOptions::default());
    let options = SimOptions {
        seed,
        fault_rate,
        ..SimOptions::default()
    };
    (0..runs)
        .map(|i| {
            let run = simulate_run(&replayer, &options, i).unwrap();
            let expectation = match &run.fault {
                None => serde_json::json!({"verdict": "faithful"}),
                Some(f) => serde_json::json!({
                    "verdict": Verdict::of_code(f.code).as_str(),
                    "first_code": f.code,
                    "seq": f.seq,
                }),
            };
            (format!("{}.trace.jsonl", run.name), run.trace, expectation)
        })
        .collect()
}

/// The run ID of a trace (its header's `run`).
fn run_id(trace: &[u8]) -> String {
    let first = trace.split(|&b| b == b'\n').next().unwrap();
    let header: Value = serde_json::from_slice(first).unwrap();
    header["run"].as_str().unwrap().to_string()
}

#[test]
fn the_example_packs_recorded_runs_are_the_simulators_and_expect_json_the_injected_faults() {
    let pack = root().join(EXAMPLE);
    let runs = simulate_fixture(&pack, "fixtures/fix-and-land.graph.json", 8, 23, 0.4);
    let mut lines = Vec::new();
    for (name, bytes, expectation) in &runs {
        check_generated(&pack.join("fixtures/runs").join(name), bytes);
        lines.push(format!("  {:?}: {}", run_id(bytes), expectation));
    }
    let expect = format!("{{\n{}\n}}\n", lines.join(",\n"));
    check_generated(&pack.join("fixtures/expect.json"), expect.as_bytes());
    // Both kinds of run are there: the fixture tests faithful runs and caught defects.
    assert!(runs.iter().any(|r| r.2["verdict"] == "faithful"));
    assert!(runs.iter().any(|r| r.2["verdict"] != "faithful"));
    let on_disk = std::fs::read_dir(pack.join("fixtures/runs"))
        .unwrap()
        .count();
    assert_eq!(on_disk, runs.len(), "no stale run files");
}

#[test]
fn the_example_packs_fragment_runs_are_the_simulators_of_the_expanded_graph() {
    let pack = root().join(EXAMPLE);
    let runs = simulate_fixture(
        &pack,
        "fixtures/fix-and-land-fragments.graph.json",
        6,
        24,
        0.4,
    );
    let mut lines = Vec::new();
    for (name, bytes, expectation) in &runs {
        check_generated(&pack.join("fixtures/fragment-runs").join(name), bytes);
        lines.push(format!("  {:?}: {}", run_id(bytes), expectation));
        // The runs record the expanded IDs: `land/check/test`, not `land`.
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains("\"node\":\"land\""), "{name}");
    }
    let expect = format!("{{\n{}\n}}\n", lines.join(",\n"));
    check_generated(
        &pack.join("fixtures/fragment-expect.json"),
        expect.as_bytes(),
    );
    assert!(runs.iter().any(|r| r.2["verdict"] == "faithful"));
    let on_disk = std::fs::read_dir(pack.join("fixtures/fragment-runs"))
        .unwrap()
        .count();
    assert_eq!(on_disk, runs.len(), "no stale run files");
}

#[test]
fn the_p850_fixtures_runs_are_the_simulators() {
    let pack = root().join("tests/fixtures/packs/p850");
    for (name, bytes, _) in simulate_fixture(&pack, "fixtures/check.graph.json", 2, 7, 0.0) {
        check_generated(&pack.join("fixtures/runs").join(name), &bytes);
    }
}

const P871_IMPORTS: &str = r#"
    (import "primgraph:primitive/workspace-read@1.0.0" "read-file" (func (param i32 i32 i32)))
    (import "primgraph:primitive/network@1.0.0" "fetch" (func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)))"#;
const READ_IMPORTS: &str =
    r#"(import "primgraph:primitive/workspace-read@1.0.0" "read-file" (func (param i32 i32 i32)))"#;

/// A core module implementing the world's `invoke` (never run: only its shape matters).
fn core_module(imports: &str) -> Vec<u8> {
    let text = format!(
        r#"(module
    {imports}
    (memory (export "memory") 1)
    (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) i32.const 1024)
    (func (export "invoke") (param i32 i32) (result i32) i32.const 0))"#
    );
    wat::parse_str(&text).expect("valid WAT")
}

/// A component of the world `primgraph:primitive/primitive@1.0.0` from a core module, with a
/// `primgraph:contract` custom section holding `contract`.
fn component(imports: &str, contract: &Value) -> Vec<u8> {
    let mut module = core_module(imports);
    let mut resolve = wit_parser::Resolve::default();
    let package = resolve
        .push_str("primitive.wit", primgraph::plugin::WORLD_WIT)
        .expect("the world parses");
    let world = resolve
        .select_world(&[package], Some("primitive"))
        .expect("the world");
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world,
        wit_component::StringEncoding::UTF8,
        false,
    )
    .expect("metadata");
    let mut bytes = wit_component::ComponentEncoder::default()
        .module(&module)
        .expect("module")
        .validate(true)
        .encode()
        .expect("a component");
    // A custom section: id 0, size, name (length-prefixed), payload.
    let payload = serde_json::to_vec(contract).unwrap();
    let name = primgraph::plugin::CONTRACT_SECTION.as_bytes();
    let mut body = leb128(name.len());
    body.extend_from_slice(name);
    body.extend_from_slice(&payload);
    bytes.push(0);
    bytes.extend(leb128(body.len()));
    bytes.extend(body);
    bytes
}

fn leb128(mut n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

/// The primitive's entry in a fixture pack's `pack.json`, as written.
fn written_contract(dir: &Path) -> Value {
    let manifest = json(&std::fs::read_to_string(dir.join("pack.json")).unwrap());
    manifest["primitives"][0].clone()
}

#[test]
fn the_plugin_fixtures_are_built_from_their_wat() {
    let dir = root().join("tests/fixtures/packs/plugins");
    let clean = written_contract(&dir.join("clean"));
    check_generated(
        &dir.join("clean/read.wasm"),
        &component(READ_IMPORTS, &clean),
    );
    // P870: a core module, not a component.
    check_generated(&dir.join("p870/core.wasm"), &core_module(READ_IMPORTS));
    // P871: imports `network`, which `reads_workspace` alone does not allow.
    let p871 = written_contract(&dir.join("p871"));
    check_generated(&dir.join("p871/read.wasm"), &component(P871_IMPORTS, &p871));
    // P872: embeds a contract with `network` added.
    let mut p872 = written_contract(&dir.join("p872"));
    p872["effects"] = serde_json::json!(["reads_workspace", "network"]);
    check_generated(&dir.join("p872/read.wasm"), &component(READ_IMPORTS, &p872));
}

// ---------------------------------------------------------------------------------------------
// The example pack end to end.

#[test]
fn pack_test_passes_on_the_example_pack_and_replays_every_run() {
    let (code, out, err) = primgraph(&["pack", "test", EXAMPLE, "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    assert_eq!(codes_of(&doc), Vec::<String>::new());
    // fix-and-land, and fix-and-land-fragments through the pack's fragments.
    assert_eq!(doc["tests"]["graphs"], 2);
    assert_eq!(doc["tests"]["runs"], 14);
    assert_eq!(doc["tests"]["passed"], 14);
    let runs = doc["runs"].as_array().unwrap();
    assert!(runs.iter().all(|r| r["ok"] == true));
    assert!(
        runs.iter().any(|r| r["verdict"] != "faithful"),
        "a seeded defect is caught"
    );
    let (code, out, _) = primgraph(&["pack", "test", EXAMPLE]);
    assert_eq!(code, 0);
    assert!(
        out.contains("pack test: 2 fixture graph(s), 14 of 14 run(s) as expected"),
        "{out}"
    );
}

#[test]
fn pack_lint_of_the_example_pack_is_clean_in_every_format() {
    for format in ["human", "json", "sarif", "github"] {
        let (code, out, err) = primgraph(&["pack", "lint", EXAMPLE, "--format", format]);
        assert_eq!(code, 0, "{format}: {out}{err}");
        if format == "json" {
            assert_eq!(json(&out)["summary"]["errors"], 0);
        }
        if format == "sarif" {
            assert_eq!(json(&out)["version"], "2.1.0");
        }
    }
}

#[test]
fn pack_show_lists_contents_capabilities_and_environment() {
    let (code, out, err) = primgraph(&["pack", "show", EXAMPLE, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc = json(&out);
    assert_eq!(doc["pack"], "pyrepo");
    assert_eq!(doc["version"], "1.1.0");
    let ids: Vec<&str> = doc["primitives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "pyrepo.run_pytest",
            "pyrepo.tests_verdict",
            "pyrepo.review",
            "pyrepo.authorize_land",
            "pyrepo.land"
        ]
    );
    // The decision set is expanded, the environment and the effects a host must provide shown.
    assert_eq!(
        doc["primitives"][1]["outcomes"],
        serde_json::json!(["pass", "fail"])
    );
    assert_eq!(doc["primitives"][1]["decision_set"], "pass-fail");
    assert_eq!(doc["environment"]["network"], false);
    assert!(
        doc["effects"]
            .as_array()
            .unwrap()
            .contains(&Value::from("writes_workspace"))
    );
    // Derived from what its fragments run (SPEC §9.1).
    assert_eq!(
        doc["capability_requirements"],
        serde_json::json!([
            "ctl.authorize_patch",
            "mut.apply_patch",
            "pyrepo.authorize_land",
            "pyrepo.land",
            "pyrepo.review",
            "pyrepo.run_pytest",
            "pyrepo.tests_verdict"
        ])
    );
    let digest = primgraph::pack::digest::digest_dir(&root().join(EXAMPLE)).unwrap();
    assert_eq!(doc["digest"], digest.as_str());
    let (code, out, _) = primgraph(&["pack", "show", EXAMPLE]);
    assert_eq!(code, 0);
    for needle in [
        "pyrepo 1.1.0",
        "environment:",
        "network:  none",
        "capability requirements",
        "pyrepo/land-after-tests",
        "families:\n  pyrepo: prefix pyrepo, group python_repository",
        "fragments: fragments/apply-and-test.fragment.json, ",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
}

/// SPEC §9.1: a pack's capability requirements are "the primitives its fragments run". A
/// fragment that uses a fragment of a pack it requires runs that fragment's primitives too:
/// `pack show` lists them when the required pack is on the pack path (`--pack`), and what its
/// own fragment files run when it is not.
#[test]
fn pack_show_derives_the_primitives_nested_fragments_of_required_packs_run() {
    let dir = tempfile::tempdir().unwrap();
    let wrap = dir.path().join("wrap");
    std::fs::create_dir_all(wrap.join("fragments")).unwrap();
    let manifest = serde_json::json!({
        "pack": "wrap", "version": "1.0.0", "kernel_abi": "^1.0", "roots": ["wrap"],
        "requires": {"pyrepo": "^1.1"}, "fragments": ["fragments/*.fragment.json"],
        "primitives": [],
    });
    std::fs::write(wrap.join("pack.json"), manifest.to_string()).unwrap();
    let outer = serde_json::json!({
        "fragment": "outer", "inputs": {}, "outputs": {}, "exits": ["done"], "entry": "check",
        "nodes": [
            {"id": "check", "fragment": "pyrepo/apply-and-test", "inputs": {},
             "exits": {"passed": "finish", "failed": "finish", "apply_failed": "finish"}},
            {"id": "finish", "primitive": "done.finish_success", "inputs": {},
             "next": {"exit": "done"}},
        ],
    });
    std::fs::write(
        wrap.join("fragments/outer.fragment.json"),
        outer.to_string(),
    )
    .unwrap();
    let wrap = wrap.to_str().unwrap();
    let requirements = |extra: &[&str]| {
        let mut args = vec!["pack", "show", wrap, "--format", "json"];
        args.extend_from_slice(extra);
        let (code, out, err) = primgraph(&args);
        assert_eq!(code, 0, "{err}");
        json(&out)["capability_requirements"].clone()
    };
    assert_eq!(
        requirements(&["--pack", EXAMPLE]),
        serde_json::json!([
            "ctl.authorize_patch",
            "done.finish_success",
            "mut.apply_patch",
            "pyrepo.run_pytest",
            "pyrepo.tests_verdict"
        ])
    );
    assert_eq!(
        requirements(&[]),
        serde_json::json!(["done.finish_success"])
    );
}

#[test]
fn commands_on_what_is_not_a_pack_exit_2() {
    for sub in ["lint", "test", "show"] {
        let (code, _, err) = primgraph(&["pack", sub, "tests/fixtures"]);
        assert_eq!(code, 2, "{sub}: {err}");
        assert!(err.contains("not a pack directory"), "{err}");
        let (code, _, _) = primgraph(&["pack", sub, "no/such/dir"]);
        assert_eq!(code, 2);
    }
}

// ---------------------------------------------------------------------------------------------
// The lock.

/// A project in a temporary folder: `primgraph.toml`, `packs/pyrepo` (a copy of the example),
/// `graphs/fix.graph.json` (its fixture graph).
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("primgraph.toml"), "").unwrap();
    copy_dir(&root().join(EXAMPLE), &tmp.path().join("packs/pyrepo"));
    std::fs::create_dir_all(tmp.path().join("graphs")).unwrap();
    std::fs::copy(
        root()
            .join(EXAMPLE)
            .join("fixtures/fix-and-land.graph.json"),
        tmp.path().join("graphs/fix.graph.json"),
    )
    .unwrap();
    tmp
}

#[test]
fn pack_lock_writes_the_spec_document_beside_primgraph_toml() {
    let tmp = project();
    // Run from a sub-folder: the lock still goes beside primgraph.toml.
    let (code, out, err) = primgraph_in(
        &tmp.path().join("graphs"),
        &["pack", "lock", ".", "--pack", "../packs"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let lock = json(&std::fs::read_to_string(tmp.path().join("primgraph.lock")).unwrap());
    let digest = primgraph::pack::digest::digest_dir(&tmp.path().join("packs/pyrepo")).unwrap();
    assert_eq!(
        lock,
        serde_json::json!({"lock": 1, "packs": [{
            "name": "pyrepo", "version": "1.1.0", "path": "packs/pyrepo", "digest": digest,
            "requested": {"graphs/fix.graph.json": "^1.0"},
        }]})
    );
    // Locking again gives the same bytes.
    let first = std::fs::read(tmp.path().join("primgraph.lock")).unwrap();
    let (code, _, _) = primgraph_in(tmp.path(), &["pack", "lock", "graphs", "--pack", "packs"]);
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read(tmp.path().join("primgraph.lock")).unwrap(),
        first
    );
    // The lock is what validation honours: an edited pack is P806 until it is relocked.
    std::fs::write(tmp.path().join("packs/pyrepo/NOTES.md"), "an edit\n").unwrap();
    let report = validate_locked(tmp.path());
    let p806: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "P806")
        .collect();
    assert_eq!(p806.len(), 1, "{:#?}", report.diagnostics);
    assert_eq!(
        p806[0].file.as_deref(),
        Some(tmp.path().join("primgraph.lock").to_str().unwrap())
    );
    let (code, _, _) = primgraph_in(tmp.path(), &["pack", "lock", "graphs", "--pack", "packs"]);
    assert_eq!(code, 0);
    assert!(validate_locked(tmp.path()).diagnostics.is_empty());
}

fn validate_locked(project: &Path) -> primgraph::FileReport {
    let lock = Lock::read(&project.join("primgraph.lock")).unwrap();
    let composer = Composer::new(
        Base::Builtin,
        PackPath::scan(&[project.join("packs")]),
        ComposerOptions {
            lock: Some(lock),
            ..ComposerOptions::default()
        },
    );
    let options = primgraph::validate::Options {
        packs: Some(Arc::new(composer)),
        ..primgraph::validate::Options::default()
    };
    primgraph::validate::check_file(
        &project.join("graphs/fix.graph.json"),
        Registry::builtin(),
        &options,
    )
    .unwrap()
}

#[test]
fn pack_lock_refuses_to_write_when_a_range_cannot_be_met() {
    let tmp = project();
    let graph = tmp.path().join("graphs/fix.graph.json");
    let text = std::fs::read_to_string(&graph)
        .unwrap()
        .replace("\"^1.0\"", "\"^2.0\"");
    std::fs::write(&graph, text).unwrap();
    let (code, out, err) = primgraph_in(
        tmp.path(),
        &[
            "pack", "lock", "graphs", "--pack", "packs", "--format", "json",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(codes_of(&json(&out)), ["P804"]);
    assert!(!tmp.path().join("primgraph.lock").exists());
}

/// A graph that uses fragments (SPEC §9.3) is a graph like any other to `pack lock`: its `packs`
/// are read before the document loads (it loads only once expanded), and the lock it writes is
/// the one `validate --locked` then honours.
#[test]
fn pack_lock_reads_the_packs_of_a_graph_that_uses_fragments() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("primgraph.toml"), "").unwrap();
    copy_dir(
        &root().join("tests/fixtures/fragments/path"),
        &tmp.path().join("packs"),
    );
    std::fs::create_dir_all(tmp.path().join("graphs")).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/fragments/ship.graph.json"),
        tmp.path().join("graphs/ship.graph.json"),
    )
    .unwrap();
    let (code, out, err) = primgraph_in(tmp.path(), &["pack", "lock", "graphs", "--pack", "packs"]);
    assert_eq!(code, 0, "{out}{err}");
    let lock = json(&std::fs::read_to_string(tmp.path().join("primgraph.lock")).unwrap());
    assert_eq!(lock["packs"][0]["name"], "shipkit", "{lock}");
    assert_eq!(
        lock["packs"][0]["requested"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["graphs/ship.graph.json"]
    );
    let (code, out, err) = primgraph_in(
        tmp.path(),
        &["validate", "graphs", "--pack", "packs", "--locked"],
    );
    assert_eq!(code, 0, "{out}{err}");
    // A `packs` range that is not a string is located, and nothing is written.
    std::fs::remove_file(tmp.path().join("primgraph.lock")).unwrap();
    let graph = tmp.path().join("graphs/ship.graph.json");
    let text = std::fs::read_to_string(&graph).unwrap();
    let mut value = json(&text);
    let name = value["packs"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    value["packs"][&name] = serde_json::json!(1);
    std::fs::write(&graph, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let (code, out, err) = primgraph_in(
        tmp.path(),
        &[
            "pack", "lock", "graphs", "--pack", "packs", "--format", "json",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(codes_of(&json(&out)), ["G003"]);
    assert_eq!(
        json(&out)["files"][0]["diagnostics"][0]["pointer"],
        format!("/packs/{name}")
    );
    assert!(!tmp.path().join("primgraph.lock").exists());
}

// ---------------------------------------------------------------------------------------------
// Signatures.

#[test]
fn pack_sign_then_trust_pack_accepts_the_signer_and_refuses_others_and_edits() {
    let tmp = project();
    let pack = tmp.path().join("packs/pyrepo");
    let p = |s: &Path| s.display().to_string();
    for key in ["alice", "mallory"] {
        let (code, _, err) = primgraph(&["keygen", "--out", &p(&tmp.path().join(key))]);
        assert_eq!(code, 0, "{err}");
    }
    let alice_pub = p(&tmp.path().join("alice.pub"));
    let mallory_pub = p(&tmp.path().join("mallory.pub"));
    let (code, _, err) = primgraph(&[
        "pack",
        "sign",
        &p(&pack),
        "--key",
        &p(&tmp.path().join("alice")),
    ]);
    assert_eq!(code, 0, "{err}");
    let sig = json(&std::fs::read_to_string(pack.join("pack.sig")).unwrap());
    assert_eq!(
        sig["signer"],
        std::fs::read_to_string(&alice_pub).unwrap().trim()
    );
    let lint = |extra: &[&str]| {
        let mut args = vec!["pack", "lint"];
        let dir = p(&pack);
        args.push(&dir);
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        let (code, out, err) = primgraph(&args);
        assert_ne!(code, 2, "{err}");
        (code, codes_of(&json(&out)))
    };
    assert_eq!(lint(&[]), (0, vec![]));
    assert_eq!(lint(&["--trust-pack", &alice_pub]), (0, vec![]));
    assert_eq!(
        lint(&["--trust-pack", &mallory_pub]),
        (1, vec!["P807".to_string()])
    );
    assert_eq!(
        lint(&["--trust-pack", &mallory_pub, "--trust-pack", &alice_pub]),
        (0, vec![])
    );
    // Validating a graph under an untrusted signer: P807 at the `signer` member of `pack.sig`,
    // quoted (it was reported at 1:1, with an empty snippet).
    let (code, out, err) = primgraph_in(
        tmp.path(),
        &[
            "validate",
            "graphs",
            "--pack",
            "packs",
            "--trust-pack",
            &mallory_pub,
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(" --> packs/pyrepo/pack.sig:2:13\n")
            && out.contains(r#"2 |   "signer": "ed25519:"#),
        "{out}"
    );
    // An edit after signing: a present signature always verifies, trusted keys or not.
    std::fs::write(pack.join("NOTES.md"), "an edit\n").unwrap();
    assert_eq!(lint(&[]), (1, vec!["P807".to_string()]));
    // ... located at the `sig` value, its whole span, as validating a graph reports it.
    let p807_location = || {
        let (code, out, err) = primgraph_in(
            tmp.path(),
            &["validate", "graphs", "--pack", "packs", "--format", "json"],
        );
        assert_eq!(code, 1, "{out}{err}");
        let report = json(&out);
        let d = report["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["diagnostics"].as_array().unwrap())
            .find(|d| d["code"] == "P807")
            .unwrap_or_else(|| panic!("no P807 in {out}"))
            .clone();
        (
            d["pointer"].as_str().unwrap().to_string(),
            d["line"].as_u64().unwrap(),
            d["end_line"].as_u64().unwrap_or(0),
            d["end_column"].as_u64().unwrap_or(0) > d["column"].as_u64().unwrap(),
        )
    };
    assert_eq!(p807_location(), ("/sig".to_string(), 3, 3, true));
    // A signer that did not sign: the signature does not verify either, at the same place.
    let signed = std::fs::read_to_string(pack.join("pack.sig")).unwrap();
    std::fs::write(
        pack.join("pack.sig"),
        signed.replace(
            sig["signer"].as_str().unwrap(),
            std::fs::read_to_string(&mallory_pub).unwrap().trim(),
        ),
    )
    .unwrap();
    assert_eq!(p807_location(), ("/sig".to_string(), 3, 3, true));
    // Signing again replaces the stale signature.
    let (code, _, err) = primgraph(&[
        "pack",
        "sign",
        &p(&pack),
        "--key",
        &p(&tmp.path().join("alice")),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(lint(&["--trust-pack", &alice_pub]), (0, vec![]));
    // A public key is not a signing key; a private key is not a trusted one.
    let (code, _, _) = primgraph(&["pack", "sign", &p(&pack), "--key", &alice_pub]);
    assert_eq!(code, 2);
    let (code, _, _) = primgraph(&[
        "pack",
        "lint",
        &p(&pack),
        "--trust-pack",
        &p(&tmp.path().join("alice")),
    ]);
    assert_eq!(code, 2);
}

#[test]
fn pack_sign_refuses_a_pack_with_errors() {
    let tmp = project();
    let pack = tmp.path().join("packs/pyrepo");
    let manifest = pack.join("pack.json");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("\"roots\": [\"pyrepo\"]", "\"roots\": [\"mut\"]");
    std::fs::write(&manifest, text).unwrap();
    let key = tmp.path().join("key");
    let (code, _, _) = primgraph(&["keygen", "--out", &key.display().to_string()]);
    assert_eq!(code, 0);
    let (code, out, _) = primgraph(&[
        "pack",
        "sign",
        &pack.display().to_string(),
        "--key",
        &key.display().to_string(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("P802"), "{out}");
    assert!(!pack.join("pack.sig").exists());
}

// ---------------------------------------------------------------------------------------------
// pack test findings.

#[test]
fn pack_test_reports_a_run_without_expectation_and_an_expectation_without_run() {
    let tmp = project();
    let pack = tmp.path().join("packs/pyrepo");
    let expect_path = pack.join("fixtures/expect.json");
    let mut expect: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(&expect_path).unwrap()).unwrap();
    let dropped = expect.keys().next().unwrap().clone();
    expect.remove(&dropped);
    expect.insert(
        "sim-23-999999".into(),
        serde_json::json!({"verdict": "faithful"}),
    );
    std::fs::write(&expect_path, serde_json::to_string_pretty(&expect).unwrap()).unwrap();
    let (code, out, err) = primgraph(&[
        "pack",
        "test",
        &pack.display().to_string(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let doc = json(&out);
    assert_eq!(codes_of(&doc), ["P850", "P850"]);
    let messages: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap())
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains(&dropped) && m.contains("no expectation")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("sim-23-999999") && m.contains("no recorded run")),
        "{messages:?}"
    );
    assert_eq!(doc["tests"]["passed"], 13);
}

#[test]
fn pack_test_of_a_broken_fixture_entry_is_located_in_pack_json() {
    let tmp = project();
    let pack = tmp.path().join("packs/pyrepo");
    let manifest = pack.join("pack.json");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        "\"expect\": \"fixtures/expect.json\"",
        "\"expect\": \"fixtures/nothing.json\", \"extra\": 1",
    );
    std::fs::write(&manifest, text).unwrap();
    let (code, out, _) = primgraph(&[
        "pack",
        "test",
        &pack.display().to_string(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let doc = json(&out);
    let manifest_report = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with("pack.json"))
        .unwrap();
    let diags = &manifest_report["diagnostics"];
    let got: Vec<(&str, &str)> = diags
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["pointer"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("P808", "/fixtures/0/expect"),
            ("P801", "/fixtures/0/extra")
        ]
    );
    // `pack lint` checks the entries too (they are the pack's).
    let (code, out, _) = primgraph(&[
        "pack",
        "lint",
        &pack.display().to_string(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(codes_of(&json(&out)), ["P808", "P801"]);
}

// ---------------------------------------------------------------------------------------------
// Snapshots of whole diagnostics, one fixture per code.

fn snapshot(name: &str, args: &[&str], expect_code: i32) {
    let (code, human, err) = primgraph(args);
    assert_eq!(code, expect_code, "{name}: {human}{err}");
    let mut json_args = args.to_vec();
    json_args.extend_from_slice(&["--format", "json"]);
    let (code, json_out, _) = primgraph(&json_args);
    assert_eq!(code, expect_code, "{name}");
    insta::assert_snapshot!(format!("{name}__human"), human);
    insta::assert_snapshot!(format!("{name}__json"), json_out);
}

#[test]
fn p850_snapshot() {
    snapshot("p850", &["pack", "test", "tests/fixtures/packs/p850"], 1);
}

#[test]
fn p807_snapshot() {
    snapshot("p807", &["pack", "lint", "tests/fixtures/packs/p807"], 1);
}

#[test]
fn p870_snapshot() {
    snapshot(
        "p870",
        &["pack", "lint", "tests/fixtures/packs/plugins/p870"],
        1,
    );
}

#[test]
fn p871_snapshot() {
    snapshot(
        "p871",
        &["pack", "lint", "tests/fixtures/packs/plugins/p871"],
        1,
    );
}

#[test]
fn p872_snapshot() {
    snapshot(
        "p872",
        &["pack", "lint", "tests/fixtures/packs/plugins/p872"],
        1,
    );
}

#[test]
fn a_clean_plugin_lints_clean() {
    let (code, out, err) = primgraph(&[
        "pack",
        "lint",
        "tests/fixtures/packs/plugins/clean",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(codes_of(&json(&out)), Vec::<String>::new());
}

#[test]
fn p806_snapshot() {
    // The committed lock whose digest for pyfix@1.2.0 is not the pack's (paths relative to
    // the checkout, where cargo runs integration tests).
    let dir = Path::new("tests/fixtures/packs/p806");
    let lock = Lock::read(&dir.join("primgraph.lock")).unwrap();
    let composer = Composer::new(
        Base::Builtin,
        PackPath::scan(&[PathBuf::from("tests/fixtures/packs/path")]),
        ComposerOptions {
            lock: Some(lock),
            ..ComposerOptions::default()
        },
    );
    let options = primgraph::validate::Options {
        packs: Some(Arc::new(composer)),
        ..primgraph::validate::Options::default()
    };
    let report = primgraph::validate::check_file(
        &dir.join("locked.graph.json"),
        Registry::builtin(),
        &options,
    )
    .unwrap();
    let reports = [report];
    assert_eq!(reports[0].diagnostics.len(), 1);
    assert_eq!(reports[0].diagnostics[0].code.as_str(), "P806");
    insta::assert_snapshot!(
        "p806__human",
        primgraph::diagnostic::human::render(&reports, false)
    );
    insta::assert_snapshot!("p806__json", primgraph::diagnostic::json::render(&reports));
}

#[test]
fn pack_lint_reports_each_broken_fixture_packs_code_in_its_file() {
    for (dir, code) in [
        ("p801", "P801"),
        ("p802", "P802"),
        ("p803", "P803"),
        ("p808", "P808"),
        ("p809", "P809"),
    ] {
        let path = format!("tests/fixtures/packs/{dir}");
        let (exit, out, err) = primgraph(&["pack", "lint", &path, "--format", "json"]);
        assert_eq!(exit, 1, "{dir}: {out}{err}");
        let doc = json(&out);
        assert!(codes_of(&doc).contains(&code.to_string()), "{dir}: {out}");
        assert!(
            doc["files"][0]["file"].as_str().unwrap().starts_with(&path),
            "{dir}: {out}"
        );
    }
    // Packs that require each other: resolved on the pack path given, P805 located at a
    // `requires` entry.
    let (exit, out, _) = primgraph(&[
        "pack",
        "lint",
        "tests/fixtures/packs/cycle/cyca",
        "--pack",
        "tests/fixtures/packs/cycle",
        "--format",
        "json",
    ]);
    assert_eq!(exit, 1, "{out}");
    assert_eq!(codes_of(&json(&out)), ["P805"]);
    // A required pack missing from the pack path: P804 at the `requires` entry.
    let (exit, out, _) = primgraph(&[
        "pack",
        "lint",
        "tests/fixtures/packs/cycle/cyca",
        "--format",
        "json",
    ]);
    assert_eq!(exit, 1, "{out}");
    assert_eq!(codes_of(&json(&out)), ["P804"]);
}

#[test]
fn pack_lint_sarif_and_github_carry_the_plugin_findings() {
    let dir = "tests/fixtures/packs/plugins/p871";
    let (exit, out, _) = primgraph(&["pack", "lint", dir, "--format", "sarif"]);
    assert_eq!(exit, 1);
    let sarif = json(&out);
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "P871");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        15
    );
    let (exit, out, _) = primgraph(&["pack", "lint", dir, "--format", "github"]);
    assert_eq!(exit, 1);
    assert!(
        out.starts_with("::error file=tests/fixtures/packs/plugins/p871/pack.json,line=15"),
        "{out}"
    );
}

/// The example pack's rules on a graph (as `validate` checks them on every graph declaring it).
fn rule_findings(graph: &Value) -> Vec<String> {
    let pack_dir = root().join(EXAMPLE);
    let linted = primgraph::pack_tools::lint::lint(
        &pack_dir,
        Base::Builtin,
        &primgraph::pack_tools::lint::LintOptions::default(),
    )
    .unwrap();
    let composition = linted.composition.expect("the example pack composes");
    let doc = primgraph::graph::load(graph).unwrap();
    let model = primgraph::graph::Model::build(&doc, &composition.registry);
    let owners = primgraph::pack_tools::lint::owners(&composition);
    let mut codes: Vec<String> = primgraph::pack_rules::check_all(&linted.rules, &model, &owners)
        .iter()
        .map(|d| format!("{} {}", d.code, d.pointer))
        .collect();
    codes.sort();
    codes
}

#[test]
fn the_example_packs_rules_hold_on_its_graph_and_catch_a_graph_that_lands_untested() {
    let path = root()
        .join(EXAMPLE)
        .join("fixtures/fix-and-land.graph.json");
    let mut graph = json(&std::fs::read_to_string(path).unwrap());
    assert_eq!(rule_findings(&graph), Vec::<String>::new());
    // Approve straight after applying: the review no longer follows a passing test run, and
    // pytest may run without a bound.
    let nodes = graph["nodes"].as_array_mut().unwrap();
    let apply = nodes.iter().position(|n| n["id"] == "apply").unwrap();
    nodes[apply]["next"] = Value::from("review");
    let test = nodes.iter().position(|n| n["id"] == "test").unwrap();
    nodes[test].as_object_mut().unwrap().remove("max_visits");
    let land = nodes.iter().position(|n| n["id"] == "land").unwrap();
    assert_eq!(
        rule_findings(&graph),
        [
            format!("pyrepo/bounded-pytest /nodes/{test}"),
            format!("pyrepo/land-after-tests /nodes/{land}")
        ]
    );
}

#[test]
fn a_malformed_expect_json_is_p801_located_in_it() {
    let tmp = project();
    let pack = tmp.path().join("packs/pyrepo");
    let expect = pack.join("fixtures/expect.json");
    for (text, line, pointer) in [
        (
            "{\n  \"x\": {\"verdict\": \"faithful\"},\n  \"x\": {\"verdict\": \"violated\"}\n}\n",
            3,
            "/x",
        ),
        ("{\n  \"x\": {\"verdict\": \"fine\"}\n}\n", 2, "/x/verdict"),
        (
            "{\n  \"x\": {\"verdict\": \"faithful\", \"why\": 1}\n}\n",
            2,
            "/x/why",
        ),
        ("[]", 1, ""),
    ] {
        std::fs::write(&expect, text).unwrap();
        // `pack lint` reads it as strictly as `pack test` (SPEC §9.1: duplicate keys anywhere
        // in a pack's files are an error), and each reports it once.
        for command in ["test", "lint"] {
            let (code, out, err) = primgraph(&[
                "pack",
                command,
                &pack.display().to_string(),
                "--format",
                "json",
            ]);
            assert_eq!(code, 1, "{command} {text}: {err}");
            let doc = json(&out);
            let file = doc["files"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["file"].as_str().unwrap().ends_with("expect.json"))
                .unwrap_or_else(|| panic!("{command} {text}: {out}"));
            let diagnostics = file["diagnostics"].as_array().unwrap();
            assert_eq!(diagnostics.len(), 1, "{command} {text}: {out}");
            let d = &diagnostics[0];
            assert_eq!(
                (
                    d["code"].as_str(),
                    d["line"].as_u64(),
                    d["pointer"].as_str()
                ),
                (Some("P801"), Some(line), Some(pointer)),
                "{command} {text}: {out}"
            );
            assert!(d["help"].as_str().unwrap().contains("SPEC §9.5"));
        }
    }
}

mod plugin_bytes {
    use super::*;
    use proptest::prelude::*;

    fn clean() -> (Vec<u8>, Value) {
        let dir = root().join("tests/fixtures/packs/plugins/clean");
        (
            std::fs::read(dir.join("read.wasm")).unwrap(),
            written_contract(&dir),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// A truncated or corrupted plugin is answered with findings, never a panic; a cut
        /// component is not a component of the world (P870).
        #[test]
        fn truncated_or_corrupted_plugins_are_findings_not_panics(
            cut in 0usize..4096,
            flips in proptest::collection::vec((0usize..4096, any::<u8>()), 0..4),
        ) {
            let (mut bytes, contract) = clean();
            let whole = bytes.len();
            for (at, value) in flips {
                let at = at % whole;
                bytes[at] = value;
            }
            let cut = cut % (whole + 1);
            let findings = primgraph::plugin::check_plugin(&bytes[..cut], &contract);
            // A cut inside a section is not a component (P870); a cut at a section boundary
            // before the contract leaves a component that carries none (P872).
            if cut < whole {
                prop_assert!(
                    findings.iter().any(|f| matches!(f.code.code, "P870" | "P872")),
                    "{findings:?}"
                );
            }
        }

        #[test]
        fn arbitrary_bytes_are_p870(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let (_, contract) = clean();
            let findings = primgraph::plugin::check_plugin(&bytes, &contract);
            prop_assert!(findings.iter().any(|f| f.code.code == "P870"));
        }
    }

    #[test]
    fn the_clean_plugin_has_no_findings() {
        let (bytes, contract) = clean();
        assert_eq!(
            primgraph::plugin::check_plugin(&bytes, &contract),
            Vec::new()
        );
    }
}
