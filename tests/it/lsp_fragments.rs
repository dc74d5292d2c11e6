//! `primgraph lsp` on fragments and packs (SPEC §9.1–9.3), driven over stdio as an editor drives
//! it: hover on a use's `fragment` value shows the fragment's interface; completion offers the
//! fragments of the pack path, and a use's ports, exits and parameters as `inputs`, `exits` and
//! `with` keys; go to definition reaches the fragment file and each declaration in it; an open
//! `*.fragment.json` is checked alone (its P801s, its interface, its nested uses); an open
//! `pack.json` shows the P802/P803 it takes part in on the configured pack path; and, in the
//! library, `check_alone` on each fixture fragment (what the editor shows for a fragment file).

use crate::lsp_client;

use lsp_client::{Client, position};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/fragments")
}

/// A workspace whose `primgraph.toml` puts the fragments fixture's pack path on the path.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let packs = fixtures().join("path").display().to_string();
    std::fs::write(
        dir.path().join("primgraph.toml"),
        format!("packs = [{packs:?}]\n"),
    )
    .unwrap();
    dir
}

/// The position `skip` bytes into the `n`-th (0-based) occurrence of `needle`.
fn at(text: &str, needle: &str, n: usize, skip: usize) -> Value {
    let offset = text
        .match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("`{needle}` occurs fewer than {} times", n + 1))
        .0;
    position(text, offset + skip)
}

fn request_at(client: &mut Client, method: &str, uri: &str, position: Value) -> Value {
    client.request(
        method,
        json!({"textDocument": {"uri": uri}, "position": position}),
    )["result"]
        .clone()
}

fn labels(result: &Value) -> Vec<String> {
    let mut labels: Vec<String> = result
        .as_array()
        .unwrap_or_else(|| panic!("a completion list: {result}"))
        .iter()
        .map(|i| i["label"].as_str().unwrap_or("").to_string())
        .collect();
    labels.sort();
    labels
}

fn end(mut client: Client) {
    client.request("shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert!(client.finish().success());
}

#[test]
fn hover_completion_and_definition_of_a_fragment_use() {
    let dir = workspace();
    let text = std::fs::read_to_string(fixtures().join("ship.graph.json")).unwrap();
    let doc = format!("file://{}/ship.graph.json", dir.path().display());
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    client.open(&doc, 1, &text);
    let published = client.diagnostics(&doc);
    assert_eq!(published["diagnostics"], json!([]), "{published}");

    // Hover on the `fragment` value: the interface.
    let hover = request_at(
        &mut client,
        "textDocument/hover",
        &doc,
        at(&text, "\"shipkit/land\"", 0, 3),
    );
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default();
    let land = fixtures().join("path/shipkit/fragments/land.fragment.json");
    let expected = format!(
        "**fragment `shipkit/land`**\n\n\
         Authorize a patch, apply it and run the target tests; a failed apply is checked before \
         giving up.\n\n\
         - params: `attempts`: integer, default `2`\n\
         - inputs (each bound exactly once): `patch`: string, `tests`: array of string\n\
         - outputs: `result`: object (from `test` at ``)\n\
         - exits (each wired): `landed`, `failed`\n\
         - entry `gate` · file `{}`\n",
        land.display()
    );
    assert_eq!(markdown, expected, "{hover}");

    // Completion in the `fragment` value: every fragment of the pack path that loads.
    let offered = labels(&request_at(
        &mut client,
        "textDocument/completion",
        &doc,
        at(&text, "\"shipkit/land\"", 0, 3),
    ));
    assert!(
        offered.contains(&"shipkit/land".to_string())
            && offered.contains(&"shipkit/twice".to_string())
            && !offered.contains(&"shipkit/broken".to_string()),
        "{offered:?}"
    );

    // Go to definition: the fragment's name in its file, then each declaration.
    let definition = request_at(
        &mut client,
        "textDocument/definition",
        &doc,
        at(&text, "\"shipkit/land\"", 0, 3),
    );
    assert_eq!(
        definition["uri"],
        json!(format!("file://{}", land.display())),
        "{definition}"
    );
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 1, "character": 14}, "end": {"line": 1, "character": 20}})
    );
    let land_text = std::fs::read_to_string(&land).unwrap();
    for (needle, n, declared, m) in [
        ("\"attempts\"", 0, "\"attempts\"", 0),
        ("\"tests\"", 0, "\"tests\"", 0),
        ("\"failed\"", 0, "\"failed\"", 0),
    ] {
        let definition = request_at(
            &mut client,
            "textDocument/definition",
            &doc,
            at(&text, needle, n, 2),
        );
        let start = at(&land_text, declared, m, 0);
        assert_eq!(
            definition["range"]["start"], start,
            "{needle}: {definition}"
        );
        assert!(
            definition["uri"]
                .as_str()
                .unwrap_or_default()
                .ends_with("land.fragment.json"),
            "{definition}"
        );
    }
    end(client);
}

#[test]
fn completion_of_ports_exits_and_parameters_offers_what_the_use_lacks() {
    let dir = workspace();
    let text = std::fs::read_to_string(fixtures().join("ship.graph.json"))
        .unwrap()
        .replace("\"with\": {\"attempts\": 3}", "\"with\": {}")
        .replace(
            "\"inputs\": {\"patch\": {\"from\": \"draft\", \"at\": \"/patch\"}, ",
            "\"inputs\": {",
        )
        .replace(
            "\"exits\": {\"landed\": \"done\", \"failed\": \"give_up\"}",
            "\"exits\": {\"landed\": \"done\", }",
        );
    let doc = format!("file://{}/ship.graph.json", dir.path().display());
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    client.open(&doc, 1, &text);
    let with = labels(&request_at(
        &mut client,
        "textDocument/completion",
        &doc,
        at(&text, "\"with\": {}", 0, 9),
    ));
    assert_eq!(with, ["attempts"]);
    let inputs = labels(&request_at(
        &mut client,
        "textDocument/completion",
        &doc,
        at(&text, "\"inputs\": {\"tests\"", 0, 11),
    ));
    assert_eq!(inputs, ["patch"], "`tests` is bound already");
    let exits = labels(&request_at(
        &mut client,
        "textDocument/completion",
        &doc,
        at(&text, "\"done\", }", 0, 8),
    ));
    assert_eq!(exits, ["failed"], "`landed` is wired already");
    // A completed key is inserted with its colon, replacing nothing.
    let items = request_at(
        &mut client,
        "textDocument/completion",
        &doc,
        at(&text, "\"with\": {}", 0, 9),
    );
    assert_eq!(items[0]["textEdit"]["newText"], "\"attempts\": ");
    end(client);
}

#[test]
fn a_nested_use_in_a_fragment_file_gets_hover_and_definition_from_its_own_pack() {
    // No primgraph.toml above the fixture: the fragment's own pack is what it can use.
    let twice = fixtures().join("path/shipkit/fragments/twice.fragment.json");
    let text = std::fs::read_to_string(&twice).unwrap();
    let doc = format!("file://{}", twice.display());
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    client.open(&doc, 1, &text);
    let published = client.diagnostics(&doc);
    assert_eq!(published["diagnostics"], json!([]), "{published}");
    let hover = request_at(
        &mut client,
        "textDocument/hover",
        &doc,
        at(&text, "\"shipkit/land\"", 0, 3),
    );
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        markdown.starts_with("**fragment `shipkit/land`**"),
        "{hover}"
    );
    let definition = request_at(
        &mut client,
        "textDocument/definition",
        &doc,
        at(&text, "\"landed\": {\"exit\"", 0, 2),
    );
    let land_text =
        std::fs::read_to_string(fixtures().join("path/shipkit/fragments/land.fragment.json"))
            .unwrap();
    assert_eq!(
        definition["range"]["start"],
        at(&land_text, "\"landed\"", 0, 0),
        "{definition}"
    );
    end(client);
}

fn findings(published: &Value) -> Vec<(String, u64)> {
    published["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{published}"))
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// A finding inside a fragment the open graph uses (SPEC §9.3) is published at the outermost
/// use site in the graph, with the fragment's place first among the related information — through
/// the server, as an editor receives it (the worker had moved every finding located in another
/// file to the graph's `packs` entry, its related locations dropped).
#[test]
fn a_finding_inside_a_used_fragment_is_published_at_the_use_site() {
    let dir = workspace();
    let text = std::fs::read_to_string(fixtures().join("unchecked.graph.json")).unwrap();
    let doc = format!("file://{}/unchecked.graph.json", dir.path().display());
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    client.open(&doc, 1, &text);
    let published = client.diagnostics(&doc);
    let a407 = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "A407")
        .unwrap_or_else(|| panic!("{published}"))
        .clone();
    let use_line = text
        .lines()
        .position(|l| l.contains("\"fragment\""))
        .unwrap() as u64;
    assert_eq!(a407["range"]["start"]["line"], use_line, "{a407}");
    let related = a407["relatedInformation"]
        .as_array()
        .unwrap_or_else(|| panic!("{a407}"));
    assert!(
        related[0]["location"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("land-unchecked.fragment.json"),
        "{a407}"
    );
    assert_eq!(
        related[0]["location"]["range"]["start"]["line"], 13,
        "{a407}"
    );
    end(client);
}

#[test]
fn an_open_fragment_file_is_checked_alone_from_the_editors_text() {
    let land = fixtures().join("path/shipkit/fragments/land.fragment.json");
    let doc = format!("file://{}", land.display());
    let text = std::fs::read_to_string(&land).unwrap();
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    client.open(&doc, 1, &text);
    assert_eq!(findings(&client.diagnostics(&doc)), []);

    // An exit it does not declare (P826), a `$in` port it does not declare (P823), a parameter
    // it does not declare (P822), an output port reading a node it does not have (P827).
    let edited = text
        .replacen(
            "\"deny\": {\"exit\": \"failed\"}",
            "\"deny\": {\"exit\": \"falied\"}",
            1,
        )
        .replacen("\"at\": \"/tests\"", "\"at\": \"/test\"", 1)
        .replacen("{\"param\": \"attempts\"}", "{\"param\": \"atempts\"}", 1)
        .replacen(
            "{\"from\": \"test\", \"at\": \"\"}",
            "{\"from\": \"tst\", \"at\": \"\"}",
            1,
        );
    client.change_all(&doc, 2, &edited);
    let mut found = findings(&client.diagnostics(&doc));
    found.sort();
    assert_eq!(
        found,
        [
            ("P822".to_string(), 19),
            ("P823".to_string(), 20),
            ("P826".to_string(), 13),
            ("P827".to_string(), 8),
        ],
        "{edited}"
    );

    // Not a fragment document at all: the strict loader's P801, located in this file.
    let broken = text.replacen("\"entry\":", "\"entri\":", 1);
    client.change_all(&doc, 3, &broken);
    let found = findings(&client.diagnostics(&doc));
    assert!(found.iter().any(|(c, _)| c == "P801"), "{found:?}");

    // A nested use's boundary, checked in the enclosing fragment's file.
    let twice = fixtures().join("path/shipkit/fragments/twice.fragment.json");
    let twice_doc = format!("file://{}", twice.display());
    let twice_text = std::fs::read_to_string(&twice)
        .unwrap()
        .replacen("\"with\": {\"attempts\"", "\"with\": {\"atempts\"", 1)
        .replacen(
            "\"failed\": {\"exit\": \"failed\"}",
            "\"faild\": {\"exit\": \"failed\"}",
            1,
        );
    client.open(&twice_doc, 1, &twice_text);
    let published = client.diagnostics(&twice_doc);
    let mut found = findings(&published);
    found.sort();
    assert_eq!(
        found,
        [
            ("P822".to_string(), 9),
            ("P826".to_string(), 11),
            ("P826".to_string(), 11)
        ],
        "{published}"
    );

    // A use cycle that closes in the other fragment: shown at this file's nested use.
    let loop_a = fixtures().join("path/shipkit/fragments/loop-a.fragment.json");
    let loop_doc = format!("file://{}", loop_a.display());
    client.open(&loop_doc, 1, &std::fs::read_to_string(&loop_a).unwrap());
    let published = client.diagnostics(&loop_doc);
    assert_eq!(
        findings(&published),
        [("P828".to_string(), 6)],
        "{published}"
    );
    end(client);
}

/// A pack folder `name` under `packs` with one primitive.
fn write_pack(packs: &Path, name: &str, root: &str, id: &str, alias: &str) -> PathBuf {
    let dir = packs.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!(
        r#"{{
  "pack": "{name}",
  "version": "1.0.0",
  "summary": "A fixture pack.",
  "kernel_abi": "^1.0",
  "roots": ["{root}"],
  "families": [{{"name": "{name}-fam", "prefix": "{root}", "group": "fixture", "summary": "Fixture."}}],
  "primitives": [
    {{"id": "{id}", "alias": "{alias}", "family": "{name}-fam", "class": "deterministic",
     "authority": "propose", "summary": "A fixture primitive.",
     "inputs": {{"type": "object"}}, "outputs": {{"type": "object"}},
     "evaluation": {{"method": "replay", "metric": "accuracy"}}}}
  ]
}}
"#
    );
    let manifest = dir.join("pack.json");
    std::fs::write(&manifest, text).unwrap();
    manifest
}

#[test]
fn an_open_pack_json_shows_the_conflicts_it_takes_part_in_on_the_pack_path() {
    let dir = tempfile::tempdir().unwrap();
    let packs = dir.path().join("packs");
    write_pack(&packs, "alpha", "shared", "shared.step", "SHARED_STEP");
    let clash_root = write_pack(&packs, "beta", "shared", "shared.other", "SHARED_OTHER");
    let gamma = dir.path().join("own");
    let clash_alias = write_pack(&gamma, "gamma", "gam", "gam.step", "SHARED_STEP");
    let kernel = write_pack(&gamma, "delta", "dlt", "dlt.step", "LIST_FILES");
    std::fs::write(
        dir.path().join("primgraph.toml"),
        format!("packs = [{:?}]\n", packs.display().to_string()),
    )
    .unwrap();
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    let check = |client: &mut Client, manifest: &Path| {
        let doc = format!("file://{}", manifest.display());
        client.open(&doc, 1, &std::fs::read_to_string(manifest).unwrap());
        let published = client.diagnostics(&doc);
        (findings(&published), published)
    };
    // A root another pack on the path claims: P802 at the root, naming the other pack.
    let (found, published) = check(&mut client, &clash_root);
    assert_eq!(found, [("P802".to_string(), 5)], "{published}");
    let message = published["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("alpha@1.0.0"), "{message}");
    // An alias another pack on the path has: P803 at the alias.
    let (found, published) = check(&mut client, &clash_alias);
    assert_eq!(found, [("P803".to_string(), 8)], "{published}");
    // An alias of the kernel registry: P803 with no other pack involved.
    let (found, published) = check(&mut client, &kernel);
    assert_eq!(found, [("P803".to_string(), 8)], "{published}");
    let message = published["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("the registry's"), "{message}");
    // A pack that shares nothing: nothing.
    let alone = write_pack(&gamma, "epsilon", "eps", "eps.step", "EPS_STEP");
    let (found, published) = check(&mut client, &alone);
    assert_eq!(found, [], "{published}");
    end(client);
}

/// Each fixture fragment checked without a use site (`check_alone`, what the editor shows for an
/// open fragment file): what is wrong in the fragment itself is found there, located in its own
/// file with no related location naming the stand-in use (a cycle that closes in the other
/// fragment at the nested use it is reached through); a fragment whose faults only a use site
/// reveals (an unchecked landing, a label a port's pattern refuses) is clean alone.
#[test]
fn each_fixture_fragment_checked_alone() {
    use primgraph::pack::fragment::fragments_of;
    use primgraph::pack::fragment_expand::check_alone;
    let composer = primgraph::pack::compose::Composer::new(
        primgraph::pack::compose::Base::Builtin,
        primgraph::pack::path::PackPath::scan(&[fixtures().join("path")]),
        primgraph::pack::compose::ComposerOptions::default(),
    );
    let range = primgraph::pack::Range {
        text: "*".into(),
        req: primgraph::pack::VersionReq::STAR,
        pointer: "/packs/shipkit".into(),
    };
    let composition = composer
        .compose("alone", &[("shipkit".into(), range)])
        .expect("shipkit composes");
    let pack = composition.pack("shipkit").expect("shipkit");
    let mut seen = Vec::new();
    for (name, loaded) in &fragments_of(pack).by_name {
        let Ok(fragment) = loaded else {
            seen.push((name.clone(), vec!["does not load".to_string()]));
            continue;
        };
        let diags = check_alone(fragment, &composition.registry, &composition.packs);
        for d in &diags {
            assert_eq!(d.file.as_deref(), Some(fragment.file.as_str()), "{d:?}");
            assert!(
                d.related.iter().all(|r| !r.message.contains("a use of")),
                "{d:?}"
            );
        }
        // A cycle closes in the other fragment: shown at this one's nested use, naming where.
        if name == "loop-a" {
            assert!(
                diags[0].message.contains("loop-b.fragment.json:7:"),
                "{}",
                diags[0].message
            );
        }
        let codes = diags
            .iter()
            .map(|d| format!("{} {}:{}", d.code, d.line, d.column))
            .collect();
        seen.push((name.clone(), codes));
    }
    let expected: Vec<(String, Vec<String>)> = [
        ("badport", vec!["P827 7:29"]),
        ("broken", vec!["does not load"]),
        ("label", vec![]),
        ("land", vec![]),
        ("land-unchecked", vec![]),
        ("loop-a", vec!["P828 7:5"]),
        ("loop-b", vec!["P828 7:5"]),
        ("twice", vec![]),
        ("twice-unchecked", vec![]),
    ]
    .into_iter()
    .map(|(n, c)| (n.to_string(), c.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(seen, expected);
}

mod properties {
    //! The editor's fragment features on half-typed text: hover, completion and go to definition
    //! answer at any offset of any prefix of a graph that uses fragments without panicking, and
    //! every completion offered in a `fragment` value is a fragment that exists.

    use super::fixtures;
    use primgraph::lsp::fragments::Fragments;
    use primgraph::lsp::position::LineMap;
    use primgraph::lsp::scan::Outline;
    use primgraph::pack::compose::{Base, Composer, ComposerOptions};
    use primgraph::pack::path::PackPath;
    use proptest::prelude::*;
    use std::sync::{Arc, OnceLock};

    fn setup() -> &'static (
        String,
        Fragments,
        Arc<primgraph::pack::compose::Composition>,
    ) {
        static SETUP: OnceLock<(
            String,
            Fragments,
            Arc<primgraph::pack::compose::Composition>,
        )> = OnceLock::new();
        SETUP.get_or_init(|| {
            let composer = Composer::new(
                Base::Builtin,
                PackPath::scan(&[fixtures().join("path")]),
                ComposerOptions::default(),
            );
            let range = primgraph::pack::Range {
                text: "*".into(),
                req: primgraph::pack::VersionReq::STAR,
                pointer: "/packs/shipkit".into(),
            };
            let composition = composer
                .compose("props", &[("shipkit".into(), range)])
                .expect("shipkit composes");
            let text = std::fs::read_to_string(fixtures().join("ship.graph.json")).unwrap();
            (
                text,
                Fragments::of(std::slice::from_ref(&composition)),
                composition,
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn features_answer_on_any_prefix(cut in 0usize..4000, at in 0usize..4000) {
            let (full, fragments, composition) = setup();
            let mut cut = cut.min(full.len());
            while !full.is_char_boundary(cut) {
                cut -= 1;
            }
            let text = &full[..cut];
            let mut offset = at.min(text.len());
            while !text.is_char_boundary(offset) {
                offset -= 1;
            }
            let lines = LineMap::new(text);
            let outline = Arc::new(Outline::of(text));
            let mut get = || outline.clone();
            let _ = primgraph::lsp::hover::hover(
                text, &mut get, &composition.registry, fragments, offset,
            );
            let items = primgraph::lsp::completion::complete(
                text, &lines, &mut get, &composition.registry, fragments, offset,
            );
            let cursor = primgraph::lsp::scan::cursor_at(text, offset);
            let in_fragment_value = cursor.role == primgraph::lsp::scan::Role::Value
                && cursor.path.last()
                    == Some(&primgraph::lsp::scan::Seg::Key("fragment".into()))
                && cursor.path.len() == 3;
            if in_fragment_value {
                for item in &items {
                    prop_assert!(fragments.get(&item.label).is_some(), "{}", item.label);
                }
            }
            let _ = primgraph::lsp::definition::fragment(text, &mut get, fragments, offset);
        }
    }
}
