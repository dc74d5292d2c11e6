//! Fragments as a user meets them (SPEC §9.3): graphs under `tests/fixtures/fragments/` that use
//! the fragments of the `shipkit` test pack, validated through the library with the pack path
//! `tests/fixtures/fragments/path`: expansion before every check, the boundary codes P821–P828,
//! and diagnostics inside a fragment mapped back to the fragment file with the use sites related.

use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::registry::Registry;
use primgraph::validate::{self, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/fragments")
}

fn options() -> Options {
    options_on(&fixtures().join("path"))
}

/// Validation options with `pack_path` as the pack path.
fn options_on(pack_path: &Path) -> Options {
    Options {
        packs: Some(Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[pack_path.to_path_buf()]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    }
}

fn validate(name: &str) -> primgraph::FileReport {
    validate::check_file(&fixtures().join(name), Registry::builtin(), &options()).expect("readable")
}

/// (file name or "", code, line) of every diagnostic.
fn found(report: &primgraph::FileReport) -> Vec<(String, String, u32)> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            let file = d
                .file
                .as_deref()
                .map(|f| f.rsplit('/').next().unwrap_or(f).to_string())
                .unwrap_or_default();
            (file, d.code.as_str().to_string(), d.line)
        })
        .collect()
}

#[test]
fn a_clean_use_expands_and_validates_clean() {
    let report = validate("ship.graph.json");
    assert_eq!(found(&report), vec![], "{:#?}", report.diagnostics);
}

#[test]
fn a_verifier_bypass_inside_a_fragment_is_found_through_the_use_site() {
    let report = validate("unchecked.graph.json");
    let a407: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "A407")
        .collect();
    assert_eq!(a407.len(), 1, "{:#?}", report.diagnostics);
    let d = a407[0];
    assert!(
        d.file
            .as_deref()
            .unwrap()
            .ends_with("land-unchecked.fragment.json")
    );
    assert!(d.pointer.starts_with("/nodes/1"), "{}", d.pointer);
    let last = d.related.last().expect("the use site");
    assert!(
        last.file
            .as_deref()
            .unwrap()
            .ends_with("unchecked.graph.json"),
        "the use site is in the graph"
    );
    assert_eq!(last.pointer, "/nodes/2");
    assert!(
        last.message.starts_with("in fragment `ship`, used at "),
        "{}",
        last.message
    );
    assert!(
        last.message.ends_with("unchecked.graph.json:12:5"),
        "{}",
        last.message
    );
    println!("{:#?}", report.diagnostics);
}

/// Options with the pack path as a user types it (relative to the crate root, the tests' working
/// directory), so reported file names are stable.
fn relative_options() -> Options {
    Options {
        packs: Some(Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[PathBuf::from("tests/fixtures/fragments/path")]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    }
}

/// A report rendered by every renderer, with the paths as the user typed them (relative).
fn rendered(name: &str) -> (String, String, String, String) {
    let path = PathBuf::from("tests/fixtures/fragments").join(name);
    let report =
        validate::check_file(&path, Registry::builtin(), &relative_options()).expect("readable");
    let reports = [report];
    let human = primgraph::diagnostic::human::render(&reports, false);
    let json = primgraph::diagnostic::json::render(&reports);
    // The rules the results use, as the CLI writes them (a new code elsewhere changes nothing).
    let rules = primgraph::diagnostic::sarif::rules_used(&reports, primgraph::codes::ALL);
    let sarif = primgraph::diagnostic::sarif::render(&reports, &rules);
    let github = primgraph::diagnostic::github::render_reports(&reports);
    (human, json, sarif, github)
}

/// Every fixture of the fragment codes, rendered by every renderer: pinned (`insta`), so a change
/// in a message, a location, a related use site or a witness shows in review.
#[test]
fn every_fixture_renders_in_every_format() {
    for name in [
        "unchecked",
        "p801-fragment",
        "p821",
        "p822",
        "p823",
        "p824",
        "p825",
        "p826",
        "p827",
        "p828",
    ] {
        let (human, json, sarif, github) = rendered(&format!("{name}.graph.json"));
        insta::assert_snapshot!(format!("{name}_human"), human);
        insta::assert_snapshot!(format!("{name}_json"), json);
        insta::assert_snapshot!(format!("{name}_sarif"), sarif);
        insta::assert_snapshot!(format!("{name}_github"), github);
    }
}

/// Each P82x code's documented example really fires at the line it says, in the file it says.
#[test]
fn every_fragment_code_doc_example_fires_where_it_says() {
    for code in [
        "P821", "P822", "P823", "P824", "P825", "P826", "P827", "P828",
    ] {
        let row = primgraph::codes::find(code).unwrap_or_else(|| panic!("{code}: a row"));
        let doc = row.doc();
        for heading in [
            "## What it checks",
            "## Why it matters",
            "## Example",
            "## Fix",
            "## Implements",
        ] {
            assert!(doc.contains(heading), "{code}: {heading}");
        }
        let example = &doc[doc.find("Fixture `").expect("names its fixture")..];
        let fixture = example["Fixture `".len()..].split('`').next().unwrap();
        let name = fixture.rsplit('/').next().unwrap();
        let rest = &example[example
            .find(&format!("reports {code} at line "))
            .expect("says the line")..];
        let line: u32 = rest[format!("reports {code} at line ").len()..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let file = rest
            .split_once(" of `")
            .filter(|(before, _)| !before.contains('\n'))
            .map(|(_, f)| f.split('`').next().unwrap().to_string());
        let path = PathBuf::from("tests/fixtures/fragments").join(name);
        let report = validate::check_file(&path, Registry::builtin(), &relative_options()).unwrap();
        let hit = report
            .diagnostics
            .iter()
            .any(|d| d.code == code && d.line == line && d.file.as_deref() == file.as_deref());
        assert!(
            hit,
            "{code}: {fixture} does not report it at line {line} of {file:?}: {:#?}",
            report.diagnostics
        );
        // The excerpt stands in the file, at that line.
        let text = std::fs::read_to_string(file.as_deref().unwrap_or(fixture)).unwrap();
        let excerpt = doc
            .split("```json\n")
            .nth(1)
            .unwrap()
            .split("\n```")
            .next()
            .unwrap();
        let at = text.lines().nth(line as usize - 1).unwrap();
        assert_eq!(
            at.trim(),
            excerpt.trim(),
            "{code}: the excerpt is line {line}"
        );
    }
}

/// Replay and simulate take the expanded graph: a simulated run records expanded node IDs
/// (`ship/test`) and replays faithful against the graph that uses the fragment.
#[test]
fn simulated_runs_record_expanded_ids_and_replay_faithful() {
    use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer};
    use primgraph::simulate::{SimOptions, simulate_run};
    let path = fixtures().join("ship.graph.json");
    let bytes = std::fs::read(&path).unwrap();
    let registry = Registry::builtin();
    let graph = ReplayGraph::load_with("ship.graph.json", &bytes, registry, &options())
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(graph.doc.nodes.iter().any(|n| n.id == "ship/test"));
    let replayer = Replayer::new(registry, graph, ReplayOptions::default());
    let mut seen_expanded = false;
    for i in 0..8 {
        let run = simulate_run(&replayer, &SimOptions::default(), i).expect("a faithful run");
        let text = String::from_utf8(run.trace.clone()).unwrap();
        seen_expanded |= text.contains("\"ship/gate\"");
        let report = replayer.replay_slice("run", &run.trace);
        assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    }
    assert!(seen_expanded, "traces record expanded node IDs");
    // Without the pack path the graph is refused, with its findings, not misread.
    assert!(ReplayGraph::load("ship.graph.json", &bytes, registry).is_err());
}

/// A use inside a fragment: IDs `ship/inner/…`, parameters passed through, the output port
/// read through the nested use; a finding in the innermost fragment names both use sites,
/// innermost first and the graph's last.
#[test]
fn nested_uses_expand_with_both_use_sites_related() {
    let report = validate("nested.graph.json");
    assert_eq!(found(&report), vec![], "{:#?}", report.diagnostics);
    let bytes = std::fs::read(fixtures().join("nested.graph.json")).unwrap();
    let expanded =
        validate::expand_source("nested.graph.json", &bytes, Registry::builtin(), &options())
            .unwrap_or_else(|r| panic!("{:#?}", r.diagnostics));
    let nodes = expanded["nodes"].as_array().unwrap();
    let test = nodes
        .iter()
        .find(|n| n["id"] == "ship/inner/test")
        .expect("nested IDs");
    assert_eq!(test["max_visits"], 2, "the parameter passed through `with`");
    assert_eq!(
        test["inputs"]["test_ids"],
        serde_json::json!({"from": "intake", "at": "/test_ids"})
    );
    let draft = nodes.iter().find(|n| n["id"] == "draft").unwrap();
    assert_eq!(
        draft["next"], "ship/inner/gate",
        "an edge into the use goes to its entry"
    );
    let done = nodes.iter().find(|n| n["id"] == "done").unwrap();
    assert_eq!(
        done["inputs"]["summary"],
        serde_json::json!({"from": "ship/inner/test", "at": "/log"}),
        "the output port read through the nested use"
    );

    let report = validate("nested-unchecked.graph.json");
    let a407: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "A407")
        .collect();
    assert_eq!(a407.len(), 1, "{:#?}", report.diagnostics);
    let d = a407[0];
    assert!(
        d.file
            .as_deref()
            .unwrap()
            .ends_with("land-unchecked.fragment.json")
    );
    let sites: Vec<(&str, &str)> = d
        .related
        .iter()
        .map(|r| {
            (
                r.file.as_deref().unwrap().rsplit('/').next().unwrap(),
                r.message.as_str(),
            )
        })
        .collect();
    assert_eq!(sites.len(), 2, "{sites:#?}");
    assert_eq!(sites[0].0, "twice-unchecked.fragment.json");
    assert!(
        sites[0].1.starts_with("in fragment `ship/inner`, used at "),
        "{}",
        sites[0].1
    );
    assert_eq!(sites[1].0, "nested-unchecked.graph.json");
    assert!(
        sites[1].1.starts_with("in fragment `ship`, used at "),
        "{}",
        sites[1].1
    );
    // Both files are quoted in the human output.
    let (human, ..) = rendered("nested-unchecked.graph.json");
    assert!(
        human.contains("twice-unchecked.fragment.json:9:5"),
        "{human}"
    );
    assert!(
        human.contains("nested-unchecked.graph.json:12:5"),
        "{human}"
    );
}

/// `primgraph graph expand`: the expanded document on stdout (exit 0); a use that does not
/// expand is exit 1 with its findings on stderr, located.
#[test]
fn graph_expand_prints_the_expansion_or_the_findings() {
    let bin = env!("CARGO_BIN_EXE_primgraph");
    let out = std::process::Command::new(bin)
        .args([
            "graph",
            "expand",
            "tests/fixtures/fragments/ship.graph.json",
            "--pack",
            "tests/fixtures/fragments/path",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["nodes"][2]["id"], "ship/gate");
    // The expansion validates as itself.
    let again = validate::check_source(
        "expanded.graph.json",
        &out.stdout,
        Registry::builtin(),
        &options(),
    );
    assert_eq!(found(&again), vec![], "{:#?}", again.diagnostics);
    let out = std::process::Command::new(bin)
        .args([
            "graph",
            "expand",
            "tests/fixtures/fragments/p821.graph.json",
            "--pack",
            "tests/fixtures/fragments/path",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[P821]"), "{stderr}");
    assert!(
        stderr.contains("tests/fixtures/fragments/p821.graph.json:12:20"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// Editors check graphs against `graphs/graph.schema.json`: a graph with fragment uses and its
/// expansion (IDs `ship/gate`) both satisfy it.
#[test]
fn the_editor_schema_accepts_uses_and_expanded_ids() {
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("graphs/graph.schema.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for name in ["ship.graph.json", "nested.graph.json"] {
        let bytes = std::fs::read(fixtures().join(name)).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        let expanded =
            validate::expand_source(name, &bytes, Registry::builtin(), &options()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&expanded)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{name} expanded: {errors:#?}");
    }
}

/// A fragment of a pack on the pack path that the graph does not declare is P811, with the
/// `packs` entry to add; a pack nowhere is P821.
#[test]
fn a_fragment_of_an_undeclared_pack_is_p811() {
    let bytes = std::fs::read(fixtures().join("ship.graph.json")).unwrap();
    let text = String::from_utf8(bytes)
        .unwrap()
        .replace("\"packs\": {\"shipkit\": \"^1.0\"},", "");
    let report = validate::check_source(
        "u.graph.json",
        text.as_bytes(),
        Registry::builtin(),
        &options(),
    );
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["P811"], "{:#?}", report.diagnostics);
    assert!(
        report.diagnostics[0]
            .help
            .as_deref()
            .unwrap()
            .contains("\"shipkit\"")
    );
    let text = text.replace("shipkit/land", "nowhere/land");
    let report = validate::check_source(
        "u.graph.json",
        text.as_bytes(),
        Registry::builtin(),
        &options(),
    );
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["P821"], "{:#?}", report.diagnostics);
}

/// A use that wires a fragment's exit to a name that is no node: S202 is located at the use's
/// `exits` entry in the graph, what the user wrote and can fix, with the fragment's
/// `{"exit": NAME}` as a related location (it was located inside the fragment file).
#[test]
fn an_exit_wired_to_no_node_is_s202_at_the_uses_exits_entry() {
    let bytes = std::fs::read(fixtures().join("ship.graph.json")).unwrap();
    let text = String::from_utf8(bytes)
        .unwrap()
        .replace("\"failed\": \"give_up\"", "\"failed\": \"nowhere\"");
    let report = validate::check_source(
        "ship.graph.json",
        text.as_bytes(),
        Registry::builtin(),
        &options(),
    );
    let s202: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "S202")
        .collect();
    assert_eq!(s202.len(), 1, "{:#?}", report.diagnostics);
    let d = s202[0];
    assert_eq!(d.file, None, "in the graph's own file: {d:#?}");
    assert!(d.pointer.ends_with("/exits/failed"), "{d:#?}");
    assert_eq!(d.line, 14, "{d:#?}");
    let leaves = d
        .related
        .iter()
        .find(|r| r.message.contains("leaves by exit `failed`"))
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert!(
        leaves.file.as_deref().unwrap().ends_with(".fragment.json"),
        "{leaves:#?}"
    );
}

/// An output port that reads through a nested use (`{"from": "inner", "at": "/result/…"}`,
/// SPEC §9.3) names a pointer the output behind the nested port must declare (P827): `/log`
/// under `shipkit/land`'s `result` (`ver.run_target_tests`'s output) is declared, `/nosuch` is not.
#[test]
fn an_output_port_through_a_nested_use_must_name_a_declared_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("shipkit");
    crate::common::copy_dir(&fixtures().join("path/shipkit"), &pack);
    let wrap = |at: &str| {
        serde_json::json!({
            "fragment": "wrap",
            "inputs": {"patch": {"type": "string", "minLength": 1},
                       "tests": {"type": "array", "items": {"type": "string", "minLength": 1}}},
            "outputs": {"log": {"from": "inner", "at": at}},
            "exits": ["landed", "failed"], "entry": "inner",
            "nodes": [{"id": "inner", "fragment": "shipkit/land",
                       "inputs": {"patch": {"from": "$in", "at": "/patch"},
                                  "tests": {"from": "$in", "at": "/tests"}},
                       "exits": {"landed": {"exit": "landed"}, "failed": {"exit": "failed"}}}],
        })
        .to_string()
    };
    let lint = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_primgraph"))
            .args([
                "pack",
                "lint",
                &pack.display().to_string(),
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let found: Vec<(String, String)> = doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["file"].as_str().unwrap().ends_with("wrap.fragment.json"))
            .flat_map(|f| f["diagnostics"].as_array().unwrap().clone())
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["pointer"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        found
    };
    let file = pack.join("fragments/wrap.fragment.json");
    std::fs::write(&file, wrap("/result/log")).unwrap();
    assert_eq!(lint(), vec![]);
    std::fs::write(&file, wrap("/result/nosuch")).unwrap();
    assert_eq!(
        lint(),
        vec![("P827".to_string(), "/outputs/log/at".to_string())]
    );
}

/// A pack `wrap` whose fragment runs `lib.list`, a primitive of the pack `wrap` requires: a
/// graph that declares only `wrap` may use the fragment (SPEC §9.2: "a pack's own requirements
/// serve its fragments"; P811 is for a primitive "used directly in the graph"), and a graph
/// that runs `lib.list` itself is P811. A fragment running a primitive of a pack its own pack
/// does not require is P811 in the fragment file, the help naming the `requires` entry.
#[test]
fn a_fragment_is_served_by_its_packs_requirements_and_a_direct_use_is_not() {
    let kernel: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root().join("registry/kernel-abi-1.0.0.json")).unwrap(),
    )
    .unwrap();
    let list = kernel["primitives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "obs.list_files")
        .unwrap()
        .clone();
    let prim = |id: &str, alias: &str, family: &str| {
        let mut p = list.clone();
        p["id"] = id.into();
        p["alias"] = alias.into();
        p["family"] = family.into();
        p
    };
    let (lib_list, other_list) = (
        prim("lib.list", "LIB_LIST", "lib-all"),
        prim("other.list", "OTHER_LIST", "other-all"),
    );
    let dir = tempfile::tempdir().unwrap();
    let pack = |name: &str, requires: serde_json::Value, primitives: serde_json::Value| {
        let folder = dir.path().join(name);
        std::fs::create_dir_all(folder.join("fragments")).unwrap();
        let doc = serde_json::json!({
            "pack": name, "version": "1.0.0", "kernel_abi": "^1.0", "roots": [name],
            "requires": requires,
            "families": if primitives.as_array().unwrap().is_empty() {
                serde_json::json!([])
            } else {
                serde_json::json!([{"name": format!("{name}-all"), "prefix": name,
                                    "group": "agent_isa", "summary": "All of it."}])
            },
            "primitives": primitives,
        });
        std::fs::write(folder.join("pack.json"), doc.to_string()).unwrap();
        folder
    };
    pack("lib", serde_json::json!({}), serde_json::json!([lib_list]));
    pack(
        "other",
        serde_json::json!({}),
        serde_json::json!([other_list]),
    );
    pack(
        "via",
        serde_json::json!({"other": "^1.0"}),
        serde_json::json!([]),
    );
    let wrap = pack(
        "wrap",
        serde_json::json!({"lib": "^1.0"}),
        serde_json::json!([]),
    );
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(wrap.join("pack.json")).unwrap()).unwrap();
    manifest["fragments"] = serde_json::json!(["fragments/*.fragment.json"]);
    std::fs::write(wrap.join("pack.json"), manifest.to_string()).unwrap();
    let fragment = |name: &str, primitive: &str| {
        serde_json::json!({
            "fragment": name, "inputs": {}, "outputs": {}, "exits": ["done"], "entry": "l",
            "nodes": [{"id": "l", "primitive": primitive, "inputs": {}, "next": {"exit": "done"}}],
        })
        .to_string()
    };
    std::fs::write(
        wrap.join("fragments/list.fragment.json"),
        fragment("list", "lib.list"),
    )
    .unwrap();
    std::fs::write(
        wrap.join("fragments/stray.fragment.json"),
        fragment("stray", "other.list"),
    )
    .unwrap();
    let options = options_on(dir.path());
    let graph = |packs: &str, first: &str| {
        format!(
            r#"{{"graph": "g", "abi": "1.0.0", "capabilities": ["lib.*", "other.*", "done.*"],
 "packs": {packs}, "entry": "a",
 "nodes": [
  {first},
  {{"id": "v", "primitive": "done.finish_success", "inputs": {{}}}}]}}"#
        )
    };
    let check = |text: String| {
        validate::check_source(
            "g.graph.json",
            text.as_bytes(),
            Registry::builtin(),
            &options,
        )
    };
    let codes = |report: &primgraph::FileReport| -> Vec<String> {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == primgraph::Severity::Error)
            .map(|d| d.code.as_str().to_string())
            .collect()
    };

    let through_fragment = check(graph(
        r#"{"wrap": "^1.0"}"#,
        r#"{"id": "a", "fragment": "wrap/list", "inputs": {}, "exits": {"done": "v"}}"#,
    ));
    assert_eq!(
        codes(&through_fragment),
        Vec::<String>::new(),
        "{:#?}",
        through_fragment.diagnostics
    );

    let direct = check(graph(
        r#"{"wrap": "^1.0"}"#,
        r#"{"id": "a", "primitive": "lib.list", "inputs": {}, "next": "v"}"#,
    ));
    assert_eq!(codes(&direct), ["P811"], "{:#?}", direct.diagnostics);
    let p811 = |report: &primgraph::FileReport| {
        report
            .diagnostics
            .iter()
            .find(|d| d.code == "P811")
            .cloned()
            .unwrap()
    };
    let help = p811(&direct).help.unwrap();
    assert!(help.contains("\"lib\": \"^1.0\""), "{help}");

    // `wrap` does not require `other`: its fragment works when the graph declares `other`
    // itself, and is P811 in the fragment file when `other` is there only because another pack
    // requires it.
    let stray = |packs: &str| {
        check(graph(
            packs,
            r#"{"id": "a", "fragment": "wrap/stray", "inputs": {}, "exits": {"done": "v"}}"#,
        ))
    };
    let declared = stray(r#"{"wrap": "^1.0", "other": "^1.0"}"#);
    assert_eq!(
        codes(&declared),
        Vec::<String>::new(),
        "{:#?}",
        declared.diagnostics
    );
    let accident = stray(r#"{"wrap": "^1.0", "via": "^1.0"}"#);
    assert_eq!(codes(&accident), ["P811"], "{:#?}", accident.diagnostics);
    let d = &p811(&accident);
    assert!(
        d.file.as_deref().unwrap().ends_with("stray.fragment.json"),
        "{d:#?}"
    );
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("`requires` of pack `wrap`"),
        "{d:#?}"
    );

    // A use of an undeclared pack's fragment stops expansion; the graph's own node running an
    // undeclared pack's primitive is still P811, each at its node.
    let both = check(graph(
        "{}",
        r#"{"id": "a", "fragment": "wrap/list", "inputs": {}, "exits": {"done": "b"}},
  {"id": "b", "primitive": "lib.list", "inputs": {}, "next": "v"}"#,
    ));
    let mut found: Vec<(String, String)> = both
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str().to_string(), d.pointer.clone()))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("P811".to_string(), "/nodes/0/fragment".to_string()),
            ("P811".to_string(), "/nodes/1/primitive".to_string()),
        ],
        "{:#?}",
        both.diagnostics
    );
}

/// The command line a user meets: a graph whose fragment runs the pack's own primitives
/// (`pyrepo.run_pytest` inside `pyrepo/check`) is simulated, replayed and `pack test`ed through
/// its expansion against the composed registry. (`simulate`, `replay` and `pack test` loaded the
/// unexpanded document and refused it as G003 `unknown field fragment`.)
#[test]
fn the_cli_simulates_replays_and_pack_tests_a_graph_whose_fragment_runs_pack_primitives() {
    let tmp = tempfile::tempdir().unwrap();
    let pack = tmp.path().join("packs/pyrepo");
    crate::common::copy_dir(&root().join("registry/packs/pyrepo"), &pack);
    let manifest = pack.join("pack.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    doc["fragments"] = serde_json::json!(["fragments/*.fragment.json"]);
    std::fs::write(&manifest, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    std::fs::create_dir_all(pack.join("fragments")).unwrap();
    let on_error = serde_json::json!({"*": {"exit": "failed"}});
    let fragment = serde_json::json!({
        "fragment": "check", "summary": "Run the target tests and decide.",
        "inputs": {"targets": {"type": "array", "items": {"type": "string", "minLength": 1}}},
        "exits": ["passed", "failed"], "entry": "test",
        "nodes": [
            {"id": "test", "primitive": "pyrepo.run_pytest", "max_visits": 2,
             "inputs": {"targets": {"from": "$in", "at": "/targets"}, "timeout_s": {"const": 600}},
             "next": "verdict", "on_error": on_error},
            {"id": "verdict", "primitive": "pyrepo.tests_verdict",
             "inputs": {"report": {"from": "test", "at": "/report"}},
             "branches": {"pass": {"exit": "passed"}, "fail": {"exit": "failed"}},
             "on_error": on_error}
        ]
    });
    std::fs::write(
        pack.join("fragments/check.fragment.json"),
        serde_json::to_string_pretty(&fragment).unwrap(),
    )
    .unwrap();
    let graph = serde_json::json!({
        "graph": "checked", "abi": "1.0.0", "packs": {"pyrepo": "^1.0"},
        "capabilities": ["intake.parse_issue", "pyrepo.*", "done.finish_success", "done.report_failure"],
        "budget": {"max_steps": 20, "max_spend_usd": 1.0},
        "input": {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]},
        "entry": "intake",
        "nodes": [
            {"id": "intake", "primitive": "intake.parse_issue",
             "inputs": {"text": {"from": "$input", "at": "/issue"}}, "next": "check",
             "on_error": {"*": "give_up"}},
            {"id": "check", "fragment": "pyrepo/check",
             "inputs": {"targets": {"from": "intake", "at": "/test_ids"}},
             "exits": {"passed": "done", "failed": "give_up"}},
            {"id": "done", "primitive": "done.finish_success",
             "inputs": {"summary": {"from": "intake", "at": "/summary"},
                        "test_ids": {"from": "intake", "at": "/test_ids"}}},
            {"id": "give_up", "primitive": "done.report_failure",
             "inputs": {"reason": {"const": "tests_still_failing"}}}
        ]
    });
    let graph_file = pack.join("fixtures/checked.graph.json");
    std::fs::write(&graph_file, serde_json::to_string_pretty(&graph).unwrap()).unwrap();
    let packs = tmp.path().join("packs");
    let runs = pack.join("fixtures/checked-runs");
    let p = |path: &Path| path.display().to_string();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_primgraph"))
            .args(args)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };
    let (code, text) = run(&[
        "simulate",
        &p(&graph_file),
        "--pack",
        &p(&packs),
        "--runs",
        "6",
        "--seed",
        "3",
        "--out",
        &p(&runs),
    ]);
    assert_eq!(code, Some(0), "{text}");
    let mut expect = serde_json::Map::new();
    let mut expanded_ids = 0;
    for entry in std::fs::read_dir(&runs).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(header["packs"][0]["name"], "pyrepo", "{header}");
        expanded_ids += usize::from(text.contains(r#""node":"check/test""#));
        expect.insert(
            header["run"].as_str().unwrap().to_string(),
            serde_json::json!({"verdict": "faithful"}),
        );
    }
    assert_eq!(
        expanded_ids, 6,
        "every run records the expanded `check/test`"
    );
    let (code, text) = run(&[
        "replay",
        "--graph",
        &p(&graph_file),
        "--pack",
        &p(&packs),
        &p(&runs),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("faithful 6"), "{text}");
    // The same runs as a pack fixture: `pack test` replays them through the expansion.
    std::fs::write(
        pack.join("fixtures/checked-expect.json"),
        serde_json::to_string_pretty(&expect).unwrap(),
    )
    .unwrap();
    doc["fixtures"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "graph": "fixtures/checked.graph.json",
            "runs": "fixtures/checked-runs/",
            "expect": "fixtures/checked-expect.json"
        }));
    std::fs::write(&manifest, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let (code, text) = run(&["pack", "test", &p(&pack), "--pack", &p(&packs)]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("3 fixture graph(s), 20 of 20 run(s) as expected"),
        "{text}"
    );
}

/// A pack `mini` under `dir/mini`: `mini.echo` (`text` → `result`, a closed output) and the
/// fragments `echo-twice` (port `msg` read as `$in` `/msg`) and `echo-deep` (reads `/msg/x`
/// from the string port: the fragment's own mistake).
fn mini_pack(dir: &Path) {
    let pack = dir.join("mini");
    std::fs::create_dir_all(pack.join("fragments")).unwrap();
    let manifest = serde_json::json!({
        "pack": "mini", "version": "1.0.0", "summary": "A minimal pack.", "kernel_abi": "^1.0",
        "roots": ["mini"],
        "families": [{"name": "mini", "prefix": "mini", "group": "mini", "summary": "Mini."}],
        "primitives": [{"id": "mini.echo", "alias": "MINI_ECHO", "family": "mini",
            "class": "deterministic", "authority": "propose", "summary": "Echoes the text.",
            "inputs": {"type": "object", "properties": {"text": {"type": "string"}}},
            "outputs": {"type": "object", "properties": {"result": {"type": "string"}},
                        "required": ["result"], "additionalProperties": false},
            "evidence": [], "evaluation": {"method": "m", "metric": "x"},
            "failure_modes": ["invalid_input"], "effects": []}],
        "fragments": ["fragments/*.fragment.json"]
    });
    std::fs::write(
        pack.join("pack.json"),
        serde_json::to_string_pretty(&manifest).unwrap(),
    )
    .unwrap();
    for (name, at) in [("echo-twice", "/msg"), ("echo-deep", "/msg/x")] {
        let fragment = format!(
            r#"{{
  "fragment": "{name}",
  "summary": "Echo twice.",
  "inputs": {{"msg": {{"type": "string"}}}},
  "outputs": {{"result": {{"from": "second", "at": "/result"}}}},
  "exits": ["done"],
  "entry": "first",
  "nodes": [
    {{"id": "first", "primitive": "mini.echo", "inputs": {{"text": {{"from": "$in", "at": "{at}"}}}}, "next": "second"}},
    {{"id": "second", "primitive": "mini.echo", "inputs": {{"text": {{"from": "first", "at": "/result"}}}}, "next": {{"exit": "done"}}}}
  ]
}}
"#
        );
        std::fs::write(
            pack.join("fragments").join(format!("{name}.fragment.json")),
            fragment,
        )
        .unwrap();
    }
}

/// A graph using `mini/FRAGMENT` at `/nodes/1`, its port `msg` bound to `a` at `msg_at`; `head`
/// is spliced in after the name (`packs` and whatever else).
fn mini_graph(head: &str, fragment: &str, msg_at: &str) -> String {
    format!(
        r#"{{"graph": "use", "abi": "1.0.0", {head}
 "capabilities": ["mini.*", "done.*"],
 "input": {{"type": "object", "properties": {{"issue": {{"type": "string"}}}}, "required": ["issue"]}},
 "entry": "a",
 "nodes": [
  {{"id": "a", "primitive": "mini.echo", "inputs": {{"text": {{"from": "$input", "at": "/issue"}}}}, "next": "f"}},
  {{"id": "f", "fragment": "mini/{fragment}", "inputs": {{"msg": {{"from": "a", "at": "{msg_at}"}}}}, "exits": {{"done": "b"}}}},
  {{"id": "b", "primitive": "done.finish_success", "inputs": {{"summary": {{"from": "f", "at": "/result"}}}}}}]}}
"#
    )
}

/// `primgraph validate FILE --pack packs --format json` in `dir`: the exit code and the
/// diagnostics as (code, file or the graph's, pointer).
fn validate_json(dir: &Path, file: &str) -> (Option<i32>, Vec<(String, String, String)>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(["validate", file, "--pack", "packs", "--format", "json"])
        .current_dir(dir)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let found = doc["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap_or(file).to_string(),
                d["pointer"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (out.status.code(), found)
}

/// SPEC §2 ("Unknown fields are an error", `packs` is name → range) and §5 G003: a malformed
/// `packs` or an unknown member is the same G003 whether or not the graph uses a fragment, and
/// no P811 is built on a `packs` that is no object of ranges.
#[test]
fn a_malformed_graph_that_uses_a_fragment_is_its_g003s_not_a_p811() {
    let dir = tempfile::tempdir().unwrap();
    mini_pack(&dir.path().join("packs"));
    let g003 = |pointer: &str| {
        (
            "G003".to_string(),
            "g.graph.json".to_string(),
            pointer.to_string(),
        )
    };
    let cases = [
        (
            r#""packs": ["mini"], "extra_field": 1,"#,
            vec![g003("/packs"), g003("/extra_field")],
        ),
        (r#""packs": "mini","#, vec![g003("/packs")]),
        (r#""packs": null,"#, vec![g003("/packs")]),
        (r#""packs": {"mini": 1},"#, vec![g003("/packs/mini")]),
        (
            r#""packs": {"mini": "^1.0"}, "extra_field": 1,"#,
            vec![g003("/extra_field")],
        ),
    ];
    for (head, expected) in cases {
        std::fs::write(
            dir.path().join("g.graph.json"),
            mini_graph(head, "echo-twice", "/result"),
        )
        .unwrap();
        let (code, mut found) = validate_json(dir.path(), "g.graph.json");
        found.sort();
        let mut expected = expected;
        expected.sort();
        assert_eq!(code, Some(1), "{head}");
        assert_eq!(found, expected, "{head}");
    }
    // The same document well formed validates clean: the G003s above are all there is.
    std::fs::write(
        dir.path().join("g.graph.json"),
        mini_graph(r#""packs": {"mini": "^1.0"},"#, "echo-twice", "/result"),
    )
    .unwrap();
    assert_eq!(validate_json(dir.path(), "g.graph.json"), (Some(0), vec![]));
}

/// SPEC §9.3 (port checks at the boundary) and §3.2 T304: a use site's binding of a port whose
/// pointer the source's output does not have is T304 at that binding in the graph, where the
/// mistake is written; a pointer the fragment itself gets wrong stays in the fragment file.
#[test]
fn a_wrong_pointer_bound_to_a_port_is_t304_at_the_use_site() {
    let dir = tempfile::tempdir().unwrap();
    mini_pack(&dir.path().join("packs"));
    let head = r#""packs": {"mini": "^1.0"},"#;
    for (fragment, msg_at, file, pointer) in [
        (
            "echo-twice",
            "/summary",
            "g.graph.json",
            "/nodes/1/inputs/msg/at",
        ),
        (
            "echo-deep",
            "/result",
            "packs/mini/fragments/echo-deep.fragment.json",
            "/nodes/0/inputs/text/at",
        ),
    ] {
        std::fs::write(
            dir.path().join("g.graph.json"),
            mini_graph(head, fragment, msg_at),
        )
        .unwrap();
        let (code, found) = validate_json(dir.path(), "g.graph.json");
        assert_eq!(code, Some(1), "{fragment}");
        assert_eq!(
            found,
            vec![("T304".to_string(), file.to_string(), pointer.to_string())],
            "{fragment}"
        );
    }
}

/// SPEC §2 (a binding is `from` a node or `$input`, or a `const`) and §9.3 (`$in` and
/// `{"param"}` belong to fragments): written in a graph that also uses a fragment they are the
/// graph's findings, as in a graph without one — T303 or G003 at the graph's node, T303 at a
/// use's port bound from no node — never dropped by expansion with the graph passing.
#[test]
fn fragment_only_bindings_written_in_the_graph_are_reported_there() {
    let dir = tempfile::tempdir().unwrap();
    mini_pack(&dir.path().join("packs"));
    let head = r#""packs": {"mini": "^1.0"},"#;
    let write = |text: String| std::fs::write(dir.path().join("g.graph.json"), text).unwrap();
    let graph = mini_graph(head, "echo-twice", "/result");
    let with_b = |binding: &str| {
        graph.replace(
            r#"{"summary": {"from": "f", "at": "/result"}}"#,
            &format!(r#"{{"summary": {binding}}}"#),
        )
    };
    let at_b = |code: &str, pointer: &str| {
        (
            code.to_string(),
            "g.graph.json".to_string(),
            pointer.to_string(),
        )
    };

    write(with_b(r#"{"from": "$in", "at": "/msg"}"#));
    let (code, found) = validate_json(dir.path(), "g.graph.json");
    assert_eq!(code, Some(1));
    assert_eq!(found, vec![at_b("T303", "/nodes/2/inputs/summary/from")]);

    write(with_b(r#"{"param": "n"}"#));
    let (code, found) = validate_json(dir.path(), "g.graph.json");
    assert_eq!(code, Some(1));
    assert!(
        found.iter().all(|(c, f, p)| c == "G003"
            && f == "g.graph.json"
            && p.starts_with("/nodes/2/inputs/summary")),
        "{found:?}"
    );
    assert!(!found.is_empty());

    for from in ["$in", "nosuch"] {
        write(graph.replace(
            r#""msg": {"from": "a", "at": "/result"}"#,
            &format!(r#""msg": {{"from": "{from}", "at": "/result"}}"#),
        ));
        let (code, found) = validate_json(dir.path(), "g.graph.json");
        assert_eq!(code, Some(1), "{from}");
        assert_eq!(
            found,
            vec![at_b("T303", "/nodes/1/inputs/msg/from")],
            "{from}"
        );
    }
}

/// SPEC §9.3: a finding inside a fragment is located in the fragment file. A constant that
/// came from a `{"param"}` (its default here) and breaks the input's schema is T307 at the
/// binding the fragment wrote, not at a `/const` the file does not have.
#[test]
fn a_finding_about_a_params_value_is_located_at_the_param_binding() {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("packs/pk");
    std::fs::create_dir_all(pack.join("fragments")).unwrap();
    std::fs::write(
        pack.join("pack.json"),
        r#"{"pack": "pk", "version": "1.0.0", "summary": "s", "kernel_abi": "^1.0",
            "roots": ["pk"], "fragments": ["fragments/*.fragment.json"]}"#,
    )
    .unwrap();
    std::fs::write(
        pack.join("fragments/lst.fragment.json"),
        r#"{"fragment": "lst",
 "params": {"type": "object", "properties": {"k": {"type": "string", "default": "x"}}},
 "inputs": {}, "outputs": {"files": {"from": "a", "at": "/paths"}}, "exits": ["out"],
 "entry": "a",
 "nodes": [{"id": "a", "primitive": "obs.list_files",
            "inputs": {"path": {"const": "src"}, "max_results": {"param": "k"}},
            "next": {"exit": "out"}}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("g.graph.json"),
        r#"{"graph": "g", "abi": "1.0.0", "packs": {"pk": "^1.0"},
 "capabilities": ["obs.*", "done.*"], "entry": "u",
 "nodes": [{"id": "u", "fragment": "pk/lst", "inputs": {}, "exits": {"out": "end"}},
           {"id": "end", "primitive": "done.finish_success",
            "inputs": {"summary": {"const": "x"}}}]}"#,
    )
    .unwrap();
    let (code, found) = validate_json(dir.path(), "g.graph.json");
    assert_eq!(code, Some(1));
    assert_eq!(
        found,
        vec![(
            "T307".to_string(),
            "packs/pk/fragments/lst.fragment.json".to_string(),
            "/nodes/0/inputs/max_results".to_string()
        )]
    );
}

/// SPEC §9.3 with `docs/fragments.md`: an exit wired to no node is S202 at the `exits` entry
/// that names the target, once. Through a nested use that passes the exit on (`{"exit":
/// OUTER}`), that entry is the graph's, not the enclosing fragment's.
#[test]
fn an_exit_wired_to_no_node_through_a_nested_use_is_one_s202_at_the_graphs_entry() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::copy_dir(
        Path::new("registry/packs/pyrepo"),
        &dir.path().join("packs/pyrepo"),
    );
    let mut graph: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            "registry/packs/pyrepo/fixtures/fix-and-land-fragments.graph.json",
        )
        .unwrap(),
    )
    .unwrap();
    let land = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["fragment"] == "pyrepo/test-gate-land")
        .expect("the fixture uses test-gate-land");
    graph["nodes"][land]["exits"]["rework"] = serde_json::json!("nosuch");
    std::fs::write(
        dir.path().join("g.graph.json"),
        serde_json::to_string_pretty(&graph).unwrap(),
    )
    .unwrap();
    let (code, found) = validate_json(dir.path(), "g.graph.json");
    assert_eq!(code, Some(1));
    assert_eq!(
        found,
        vec![(
            "S202".to_string(),
            "g.graph.json".to_string(),
            format!("/nodes/{land}/exits/rework")
        )]
    );
}
