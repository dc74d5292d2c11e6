//! Packs as a user meets them (SPEC §9.1, §9.2): the fixture packs under
//! `tests/fixtures/packs/` loaded, composed and used by graphs, and one broken pack per code.

use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::pack::{self, manifest};
use primgraph::registry::Registry;
use primgraph::validate::{self, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/packs")
}

fn composer(path: &[PathBuf]) -> Arc<Composer> {
    Arc::new(Composer::new(
        Base::Builtin,
        PackPath::scan(path),
        ComposerOptions::default(),
    ))
}

fn validate_with(graph: &Path, path: &[PathBuf]) -> primgraph::FileReport {
    let options = Options {
        packs: Some(composer(path)),
        ..Options::default()
    };
    validate::check_file(graph, Registry::builtin(), &options).expect("readable")
}

fn codes(report: &primgraph::FileReport) -> Vec<(&str, u32)> {
    report
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.line))
        .collect()
}

#[test]
fn the_fixture_pack_loads_with_its_schemas_bundled_and_decision_set_expanded() {
    let pack = manifest::load(&fixtures().join("path/pyfix"), Registry::builtin())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pack.name, "pyfix");
    assert_eq!(pack.version.to_string(), "1.2.0");
    let run = pack.primitive("pyfix.run_pytest").expect("run_pytest");
    let report = &run.contract.outputs["properties"]["report"];
    assert_eq!(report["$ref"], "#/$defs/schemas~1report.json");
    assert_eq!(
        run.contract.outputs["$defs"]["schemas/report.json"]["required"],
        serde_json::json!(["passed", "failed"])
    );
    let decide = pack.primitive("PYFIX_PASS_OR_FAIL").expect("by alias");
    assert_eq!(
        decide.contract.outcomes.as_deref(),
        Some(&["pass".to_string(), "fail".to_string()][..])
    );
    assert_eq!(decide.decision_set.as_deref(), Some("pass-fail"));
    assert!(pack.digest().starts_with("sha256:") && pack.digest().len() == 7 + 64);
    // The bundled contract is self-contained: its validator compiles and checks the $ref.
    let v = jsonschema::validator_for(&run.contract.outputs).expect("compiles");
    assert!(v.is_valid(&serde_json::json!({"report": {"passed": 1, "failed": 0}})));
    assert!(!v.is_valid(&serde_json::json!({"report": {"passed": -1, "failed": 0}})));
}

/// The digest is asked for after the load (docs/packs.md, "Load time": `pack.json` is hashed on
/// first use): it is still the digest of the files as they were loaded, not as they are now.
#[test]
fn a_digest_asked_for_later_is_of_the_files_as_loaded() {
    let from = fixtures().join("path/pyfix");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("pyfix");
    std::fs::create_dir_all(copy.join("schemas")).unwrap();
    for entry in std::fs::read_dir(from.join("schemas")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join("schemas").join(entry.file_name())).unwrap();
    }
    std::fs::copy(from.join("pack.json"), copy.join("pack.json")).unwrap();
    let as_loaded = pack::digest::digest_dir(&copy).unwrap_or_else(|e| panic!("{e}"));
    let pack = manifest::load(&copy, Registry::builtin()).unwrap_or_else(|e| panic!("{e}"));
    let mut text = std::fs::read_to_string(copy.join("pack.json")).unwrap();
    text.push('\n');
    std::fs::write(copy.join("pack.json"), text).unwrap();
    let now = pack::digest::digest_dir(&copy).unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(now, as_loaded, "the edit changes the folder's digest");
    assert_eq!(pack.digest(), as_loaded);
}

/// What loading does not copy (docs/packs.md, "Load time"): the composition's contracts share
/// their schemas with the pack's, the pack keeps `pack.json`'s text (its entries as written
/// still readable) and spans but not its tree, and the digest of the bytes the loader read is
/// the digest of the folder on disk.
#[test]
fn a_composition_shares_its_packs_schemas_and_a_pack_keeps_its_text_not_its_tree() {
    let dir = fixtures().join("path/pyfix");
    let pack = manifest::load(&dir, Registry::builtin()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        pack.digest(),
        pack::digest::digest_dir(&dir).unwrap_or_else(|e| panic!("{e}"))
    );
    assert!(
        pack.source.value.is_null(),
        "the tree moved into the contracts"
    );
    assert!(pack.source.locate("/primitives/1/outcomes").is_some());
    let written = pack
        .written_primitive("pyfix.pass_or_fail")
        .expect("the entry as written");
    assert_eq!(
        written["outcomes"],
        serde_json::json!({"decision_set": "pass-fail"})
    );
    assert!(pack.written_primitive("pyfix.nothing").is_none());

    let composer = composer(&[fixtures().join("path")]);
    let requests = [(
        "pyfix".to_string(),
        pack::Range {
            text: "^1.0".into(),
            req: pack::parse_range("^1.0").expect("a range"),
            pointer: "/packs/pyfix".into(),
        },
    )];
    let composition = composer
        .compose("g.graph.json", &requests)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let loaded = composition.pack("pyfix").expect("loaded");
    for p in &loaded.primitives {
        let idx = composition
            .registry
            .lookup_index(&p.contract.id)
            .expect("in the composition");
        let composed = composition.registry.get(idx);
        assert!(
            Arc::ptr_eq(&composed.inputs, &p.contract.inputs),
            "{}",
            p.contract.id
        );
        assert!(
            Arc::ptr_eq(&composed.outputs, &p.contract.outputs),
            "{}",
            p.contract.id
        );
        assert_eq!(composed.id, p.contract.id);
        assert_eq!(
            composition.pack_of(idx).map(|p| p.name.as_str()),
            Some("pyfix")
        );
    }
}

#[test]
fn a_graph_declaring_the_pack_validates_clean_against_the_composition() {
    let report = validate_with(
        &fixtures().join("uses-pyfix.graph.json"),
        &[fixtures().join("path")],
    );
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
}

#[test]
fn p804_names_who_asked_for_what() {
    let report = validate_with(
        &fixtures().join("p804.graph.json"),
        &[fixtures().join("path")],
    );
    assert_eq!(
        codes(&report),
        vec![("P804", 5)],
        "{:#?}",
        report.diagnostics
    );
    let m = &report.diagnostics[0].message;
    assert!(
        m.contains("\"^9.0\"") && m.contains("p804.graph.json") && m.contains("1.2.0"),
        "{m}"
    );
}

#[test]
fn p811_replaces_r101_with_the_packs_entry_to_add() {
    let report = validate_with(
        &fixtures().join("p811.graph.json"),
        &[fixtures().join("path")],
    );
    let p811: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "P811")
        .collect();
    assert_eq!(p811.len(), 2, "{:#?}", report.diagnostics);
    assert!(!report.diagnostics.iter().any(|d| d.code == "R101"));
    assert_eq!(
        p811[0].help.as_deref(),
        Some("add `\"pyfix\": \"^1.2\"` to the graph's `packs`")
    );
}

#[test]
fn each_broken_fixture_pack_reports_its_code_in_its_file() {
    for (dir, code, file) in [
        ("p801", "P801", "pack.json"),
        ("p802", "P802", "pack.json"),
        ("p807", "P807", "pack.sig"),
        ("p808", "P808", "pack.json"),
        ("p809", "P809", "pack.json"),
    ] {
        let errors = manifest::load(&fixtures().join(dir), Registry::builtin()).expect_err(dir);
        let found: Vec<_> = errors
            .diagnostics()
            .map(|(f, d)| (f.to_string(), d.code.clone()))
            .collect();
        assert!(
            found.iter().any(|(f, c)| *c == code && f.ends_with(file)),
            "{dir}: {found:?}"
        );
        assert!(
            errors.diagnostics().all(|(_, d)| d.line >= 1),
            "{dir}: located"
        );
    }
    let _ = pack::MANIFEST;
}

/// `pack.json` of a generated pack `name` at `version` with `count` kernel contracts moved under
/// its root; `broken` gives its first primitive a schema that does not compile (L505) and its
/// second a size written as a float, so it does not load and has findings to order.
fn write_generated_pack(dir: &Path, name: &str, version: &str, count: usize, broken: bool) {
    let kernel: serde_json::Value =
        serde_json::from_str(primgraph::registry::BUILTIN_JSON).expect("kernel");
    let contracts = kernel["primitives"].as_array().expect("primitives");
    let mut primitives = Vec::new();
    for (j, contract) in contracts.iter().take(count).enumerate() {
        let mut c = contract.clone();
        let id = c["id"].as_str().unwrap().replace('.', "_");
        c["id"] = serde_json::json!(format!("{name}.{id}"));
        c["alias"] = serde_json::json!(format!("{}_P{j}", name.to_uppercase()));
        c["family"] = serde_json::json!(format!("{name}-all"));
        if broken && j == 0 {
            c["inputs"]["properties"]["bad"] = serde_json::json!({"pattern": "[unclosed"});
        }
        if broken && j == 1 {
            c["outputs"]["minProperties"] = serde_json::json!(-1);
        }
        primitives.push(c);
    }
    let pack = serde_json::json!({
        "pack": name,
        "version": version,
        "summary": "A generated pack.",
        "kernel_abi": "^1.0",
        "roots": [name],
        "families": [{"name": format!("{name}-all"), "prefix": name, "group": "agent_isa",
                      "summary": "Every primitive of the generated pack."}],
        "primitives": primitives,
    });
    let folder = dir.join(format!("{name}-{version}"));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("pack.json"),
        serde_json::to_vec_pretty(&pack).unwrap(),
    )
    .unwrap();
}

/// Packs are loaded ahead of resolution in parallel; what a composition resolves to, and every
/// finding with its order, are those of loading each pack in turn as resolution asks for it.
#[test]
fn parallel_loading_resolves_and_reports_as_sequential_loading_does() {
    use primgraph::pack::resolve::{self, Highest, Request};
    use primgraph::pack::{Range, compose::Asker};
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for k in 0..8 {
        let name = format!("gen{k}");
        // Two versions of each: the higher one is broken for odd k.
        write_generated_pack(dir.path(), &name, "1.0.0", 6, false);
        write_generated_pack(dir.path(), &name, "1.1.0", 6, k % 2 == 1);
        names.push(name);
    }
    let path = PackPath::scan(&[dir.path().to_path_buf()]);
    let requests: Vec<(String, Range)> = names
        .iter()
        .map(|n| {
            let text = "^1.0".to_string();
            let req = pack::parse_range(&text).unwrap();
            let pointer = format!("/packs/{n}");
            (n.clone(), Range { text, req, pointer })
        })
        .collect();
    let roots: Vec<Request> = requests
        .iter()
        .map(|(name, range)| Request {
            asker: Asker::Graph {
                file: "g.graph.json".into(),
            },
            name: name.clone(),
            range: range.clone(),
        })
        .collect();
    let sequential = resolve::resolve(&roots, &path, Registry::builtin().abi(), &Highest, &|c| {
        manifest::load(&c.dir, Registry::builtin())
            .map(Arc::new)
            .map_err(primgraph::pack::compose::Located::from_errors)
    });
    let composer = Composer::new(Base::Builtin, path.clone(), ComposerOptions::default());
    let parallel = composer.resolve("g.graph.json", &requests);
    let (Err(sequential), Err(parallel)) = (sequential, parallel) else {
        panic!("the broken packs make both resolutions fail");
    };
    assert!(
        sequential.iter().any(|l| l.diagnostic.code == "L505"),
        "{sequential:#?}"
    );
    assert_eq!(parallel, sequential);
    // Only the packs resolution asked for count as loaded (here: every highest version).
    let loaded: Vec<String> = composer.loaded().iter().map(|p| p.label()).collect();
    assert_eq!(
        loaded,
        ["gen0@1.1.0", "gen2@1.1.0", "gen4@1.1.0", "gen6@1.1.0"],
        "the broken ones did not load"
    );
    // With the broken packs gone, the composition is the sequential one, pack for pack.
    for k in (1..8).step_by(2) {
        std::fs::remove_dir_all(dir.path().join(format!("gen{k}-1.1.0"))).unwrap();
    }
    let path = PackPath::scan(&[dir.path().to_path_buf()]);
    let sequential = resolve::resolve(&roots, &path, Registry::builtin().abi(), &Highest, &|c| {
        manifest::load(&c.dir, Registry::builtin())
            .map(Arc::new)
            .map_err(primgraph::pack::compose::Located::from_errors)
    })
    .expect("resolves");
    let composer = Composer::new(Base::Builtin, path, ComposerOptions::default());
    let composition = composer
        .compose("g.graph.json", &requests)
        .expect("composes");
    let labels = |packs: &[Arc<pack::Pack>]| packs.iter().map(|p| p.label()).collect::<Vec<_>>();
    assert_eq!(labels(&composition.packs), labels(&sequential.packs));
    assert_eq!(
        composition.registry.len(),
        Registry::builtin().len() + 8 * 6
    );
}

#[test]
fn a_bare_version_range_means_that_version_or_every_version_it_prefixes() {
    // npm's reading, written down in docs/packs.md: `1.2.3` exactly, `1.2` is `1.2.x`, `1` is
    // `1.x`; an operator keeps its own meaning.
    let cases = [
        ("1.2.3", "1.2.3", true),
        ("1.2.3", "1.2.4", false),
        ("1.2", "1.2.9", true),
        ("1.2", "1.3.0", false),
        ("1", "1.9.0", true),
        ("1", "2.0.0", false),
        ("^1.2", "1.3.0", true),
        (" 1.2 ", "1.2.0", true),
    ];
    for (range, version, holds) in cases {
        let req = pack::parse_range(range).unwrap_or_else(|| panic!("`{range}` parses"));
        let v = semver::Version::parse(version).unwrap();
        assert_eq!(req.matches(&v), holds, "`{range}` against {version}");
    }
    assert!(pack::parse_range("1..2").is_none());
}
