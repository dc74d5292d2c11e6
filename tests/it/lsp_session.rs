//! `primgraph lsp` driven over stdio as an editor drives it: a whole session (initialize,
//! didOpen, diagnostics, didChange, hover, completion, definition, symbols, a code action
//! applied, shutdown, exit), the lifecycle errors, a document that is not JSON, debouncing, and a
//! huge document that must not hold up a keystroke's answer.

use crate::lsp_client;

use lsp_client::{Client, apply_edits, position, uri};
use serde_json::{Value, json};

fn example() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/graphs/fix-failing-test.graph.json"
    );
    std::fs::read_to_string(path).expect("example graph")
}

/// The example with the gate's `on_error` routed to `apply`: `apply` is reachable without a grant.
fn broken() -> String {
    let text = example();
    let gate = text.find("{\"id\": \"gate\"").expect("gate node");
    let end = gate + text[gate..].find('\n').expect("line end");
    let line = text[gate..end].replace(
        "\"on_error\": {\"*\": \"give_up\"}",
        "\"on_error\": {\"*\": \"apply\"}",
    );
    assert_ne!(line, text[gate..end], "the edit applies");
    format!("{}{}{}", &text[..gate], line, &text[end..])
}

fn codes(diagnostics: &Value) -> Vec<String> {
    diagnostics["diagnostics"]
        .as_array()
        .expect("diagnostics array")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The position of the `n`-th (0-based) occurrence of `needle`, `skip` bytes into it.
fn at(text: &str, needle: &str, n: usize, skip: usize) -> Value {
    let offset = text
        .match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("`{needle}` occurs {} times", n + 1))
        .0;
    position(text, offset + skip)
}

fn text_position(uri: &str, position: Value) -> Value {
    json!({"textDocument": {"uri": uri}, "position": position})
}

#[test]
fn a_whole_session() {
    let mut client = Client::start(&["--debounce-ms", "0"]);
    let doc = uri("session.graph.json");

    let init = client.initialize();
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["hoverProvider"], json!(true), "{init}");
    assert_eq!(caps["definitionProvider"], json!(true));
    assert!(caps["completionProvider"].is_object());

    // A402, with its witness in the message and its range on the `apply` node's line.
    let text = broken();
    client.open(&doc, 1, &text);
    let published = client.diagnostics(&doc);
    assert_eq!(published["version"], json!(1));
    let a402 = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "A402")
        .unwrap_or_else(|| panic!("A402 among {published}"))
        .clone();
    assert_eq!(a402["severity"], json!(1), "error");
    assert_eq!(a402["source"], json!("primgraph"));
    let message = a402["message"].as_str().unwrap();
    assert!(
        message.contains("witness: intake → localize → draft → gate →[on_error: *] apply"),
        "{message}"
    );
    let apply_line = at(&text, "{\"id\": \"apply\"", 0, 0)["line"].clone();
    assert_eq!(a402["range"]["start"]["line"], apply_line, "{a402}");

    // Hover over a primitive value: the contract.
    let hover = client.request(
        "textDocument/hover",
        text_position(&doc, at(&text, "\"primitive\": \"mut.apply_patch\"", 0, 16)),
    );
    let contents = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{hover}"));
    assert!(contents.contains("`mut.apply_patch`"), "{contents}");
    assert!(contents.contains("class `mutation`"), "{contents}");
    assert!(contents.contains("requires authorization"), "{contents}");
    assert!(contents.contains("inputs: "), "{contents}");

    // Hover over a node reference: that node's primitive.
    let hover = client.request(
        "textDocument/hover",
        text_position(&doc, at(&text, "\"next\": \"gate\"", 0, 10)),
    );
    let contents = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{hover}"));
    assert!(
        contents.starts_with("node `gate` runs `ctl.authorize_patch`"),
        "{contents}"
    );

    // Hover over a binding's `at`: the source schema there.
    let hover = client.request(
        "textDocument/hover",
        text_position(&doc, at(&text, "\"at\": \"/patch\"", 0, 8)),
    );
    let contents = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{hover}"));
    assert!(
        contents.contains("source schema at `/patch` in the outputs of `draft`"),
        "{contents}"
    );

    // Completion in a primitive value: IDs and aliases with summaries.
    let completion = client.request(
        "textDocument/completion",
        text_position(&doc, at(&text, "\"primitive\": \"mut.apply_patch\"", 0, 17)),
    );
    let items = completion["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{completion}"));
    let labels: Vec<&str> = items.iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(
        labels.contains(&"mut.apply_patch") && labels.contains(&"APPLY_PATCH"),
        "{labels:?}"
    );
    assert_eq!(labels.len(), 382, "191 IDs and 191 aliases");
    assert!(
        items
            .iter()
            .all(|i| i["detail"].as_str().is_some_and(|d| !d.is_empty()))
    );

    // Completion in a `next` value: the node IDs.
    let completion = client.request(
        "textDocument/completion",
        text_position(&doc, at(&text, "\"next\": \"gate\"", 0, 10)),
    );
    let labels: Vec<String> = completion["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        labels,
        [
            "intake",
            "localize",
            "draft",
            "gate",
            "apply",
            "clean_check",
            "test",
            "decide",
            "done",
            "give_up"
        ]
    );

    // Completion of keys: the gate's outcomes in `branches` (less those it has, but the one under
    // the cursor), its failure modes in `on_error`, its inputs in `inputs`.
    let gate_prim = primgraph::registry::Registry::builtin()
        .lookup("ctl.authorize_patch")
        .expect("gate primitive");
    let labels_at = |client: &mut Client, position: Value| -> Vec<String> {
        let completion = client.request("textDocument/completion", text_position(&doc, position));
        completion["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{completion}"))
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let gate_line = text.find("{\"id\": \"gate\"").unwrap();
    let deny_key = gate_line + text[gate_line..].find("\"deny\"").unwrap() + 2;
    let mut expected: Vec<String> = gate_prim
        .outcomes
        .clone()
        .unwrap()
        .into_iter()
        .filter(|o| o != "allow")
        .collect();
    expected.push("*".into());
    assert_eq!(labels_at(&mut client, position(&text, deny_key)), expected);
    let star_key = gate_line + text[gate_line..].find("\"on_error\": {\"*\"").unwrap() + 14;
    let mut expected = gate_prim.failure_modes.clone();
    expected.push("*".into());
    assert_eq!(labels_at(&mut client, position(&text, star_key)), expected);
    let patch_key = gate_line + text[gate_line..].find("\"patch\"").unwrap() + 2;
    assert!(labels_at(&mut client, position(&text, patch_key)).contains(&"patch".to_string()));

    // Go to definition: from the reference to the node's `id`.
    let definition = client.request(
        "textDocument/definition",
        text_position(&doc, at(&text, "\"next\": \"gate\"", 0, 10)),
    );
    assert_eq!(definition["result"]["uri"], json!(doc));
    assert_eq!(
        definition["result"]["range"]["start"],
        at(&text, "{\"id\": \"gate\"", 0, 7),
        "{definition}"
    );

    // Document symbols: the nodes.
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": doc}}),
    );
    let names: Vec<&str> = symbols["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 10);
    assert_eq!(names[4], "apply");

    // Fix it: the diagnostics clear.
    client.change_all(&doc, 2, &example());
    let published = client.diagnostics(&doc);
    assert_eq!(published["version"], json!(2));
    assert_eq!(codes(&published), Vec::<String>::new(), "{published}");

    // An alias and an uncovered outcome: both quick fixes, applied, clear R102 and S206.
    let text = example()
        .replace(
            "\"primitive\": \"ctl.authorize_patch\"",
            "\"primitive\": \"AUTHORIZE_PATCH\"",
        )
        .replace(
            "{\"allow\": \"apply\", \"deny\": \"give_up\"}",
            "{\"allow\": \"apply\"}",
        );
    client.change_all(&doc, 3, &text);
    let published = client.diagnostics(&doc);
    let found = codes(&published);
    assert!(
        found.contains(&"R102".into()) && found.contains(&"S206".into()),
        "{found:?}"
    );
    let client_diagnostics = published["diagnostics"].clone();
    let gate = at(&text, "{\"id\": \"gate\"", 0, 0);
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc}, "range": {"start": gate, "end": gate},
               "context": {"diagnostics": client_diagnostics}}),
    );
    let actions = actions["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{actions}"))
        .clone();
    assert_eq!(actions.len(), 2, "{actions:#?}");
    for action in &actions {
        assert_eq!(action["kind"], json!("quickfix"));
        assert!(
            action["diagnostics"]
                .as_array()
                .is_some_and(|d| d.len() == 1),
            "{action}"
        );
    }
    // Apply the first, as an editor applies one at a time, and re-sync.
    let edits = actions[0]["edit"]["changes"][doc.as_str()]
        .as_array()
        .unwrap()
        .clone();
    let mut fixed = apply_edits(&text, &edits);
    client.change_all(&doc, 4, &fixed);
    let published = client.diagnostics(&doc);
    assert_eq!(published["version"], json!(4));
    // The second fix, asked for again on the new text.
    let gate = at(&fixed, "{\"id\": \"gate\"", 0, 0);
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc}, "range": {"start": gate, "end": gate},
               "context": {"diagnostics": published["diagnostics"]}}),
    );
    let actions = actions["result"].as_array().unwrap().clone();
    assert_eq!(actions.len(), 1, "one fix left: {actions:#?}");
    let edits = actions[0]["edit"]["changes"][doc.as_str()]
        .as_array()
        .unwrap()
        .clone();
    fixed = apply_edits(&fixed, &edits);
    assert!(
        fixed.contains("\"primitive\": \"ctl.authorize_patch\""),
        "alias replaced"
    );
    assert!(
        fixed.contains("{\"allow\": \"apply\", \"deny\": \"\"}"),
        "branch added: {fixed}"
    );
    client.change_all(&doc, 5, &fixed);
    let published = client.diagnostics(&doc);
    assert_eq!(published["version"], json!(5));
    let found = codes(&published);
    assert!(
        !found.contains(&"R102".into()) && !found.contains(&"S206".into()),
        "{found:?}"
    );
    assert!(
        found.contains(&"S202".into()),
        "the empty target is flagged: {found:?}"
    );

    // Shutdown, then a request gets InvalidRequest, then exit: status 0.
    let shutdown = client.request("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    assert!(shutdown.get("error").is_none());
    let late = client.request("textDocument/hover", text_position(&doc, gate));
    assert_eq!(late["error"]["code"], json!(-32600), "{late}");
    client.notify("exit", Value::Null);
    let status = client.finish();
    assert!(status.success(), "{status}");
}

#[test]
fn requests_before_initialize_get_server_not_initialized() {
    let mut client = Client::start(&[]);
    let early = client.request(
        "textDocument/hover",
        text_position(&uri("x.graph.json"), json!({"line": 0, "character": 0})),
    );
    assert_eq!(early["error"]["code"], json!(-32002), "{early}");
    let init = client.initialize();
    assert!(init["result"]["capabilities"].is_object(), "{init}");
    let unknown = client.request("textDocument/rename", json!({}));
    assert_eq!(unknown["error"]["code"], json!(-32601), "{unknown}");
    let bad = client.request("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(bad["error"]["code"], json!(-32602), "{bad}");
    // Still serving: exit without shutdown is status 1.
    client.notify("exit", Value::Null);
    let status = client.finish();
    assert_eq!(status.code(), Some(1), "{status}");
}

#[test]
fn a_document_that_is_not_json_gets_g001_at_its_utf16_position() {
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    let doc = uri("typing.graph.json");
    // Non-ASCII (a two-unit emoji and an accented letter) before the error on the same line.
    let text = "{\n  \"description\": \"r\u{e9}sum\u{e9} \u{1F600}\", \"graph\": @oops\n}\n";
    client.open(&doc, 1, text);
    let published = client.diagnostics(&doc);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{published}");
    assert_eq!(diagnostics[0]["code"], json!("G001"));
    assert_eq!(
        diagnostics[0]["range"]["start"],
        position(text, text.find('@').unwrap()),
        "{published}"
    );
    // The server keeps serving: a hover is answered, and a fix clears the diagnostic.
    let hover = client.request(
        "textDocument/hover",
        text_position(&doc, json!({"line": 1, "character": 3})),
    );
    assert!(hover.get("error").is_none(), "{hover}");
    client.change_all(&doc, 2, &example());
    let published = client.diagnostics(&doc);
    assert_eq!(published["version"], json!(2));
    assert_eq!(codes(&published), Vec::<String>::new());
    let shutdown = client.request("shutdown", Value::Null);
    assert!(shutdown.get("error").is_none());
    client.notify("exit", Value::Null);
    assert!(client.finish().success());
}

#[test]
fn a_semantic_diagnostic_after_non_ascii_text_has_its_utf16_column() {
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    let doc = uri("utf16.graph.json");
    let text = example().replace(
        "{\"reason\": {\"const\": \"tests_still_failing\"}}",
        "{\"reason\": {\"const\": \"\u{e9}chec \u{1F600}\"}, \"bogus\": {\"const\": 1}}",
    );
    client.open(&doc, 1, &text);
    let published = client.diagnostics(&doc);
    let t301 = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "T301")
        .unwrap_or_else(|| panic!("T301 among {published}"))
        .clone();
    // The range is the member, key through value (the extent `resolve` carried), in UTF-16
    // units after the two-unit emoji.
    let member = "\"bogus\": {\"const\": 1}";
    assert_eq!(
        t301["range"],
        json!({"start": at(&text, member, 0, 0), "end": at(&text, member, 0, member.len())}),
        "{t301}"
    );
}

#[test]
fn edits_in_a_burst_are_validated_once_at_the_last_version() {
    let mut client = Client::start(&["--debounce-ms", "400"]);
    client.initialize();
    let doc = uri("burst.graph.json");
    client.open(&doc, 1, &broken());
    assert_eq!(client.diagnostics(&doc)["version"], json!(1));
    for version in 2..=5 {
        let text = if version % 2 == 0 {
            example()
        } else {
            broken()
        };
        client.change_all(&doc, version, &text);
    }
    let published = client.diagnostics(&doc);
    assert_eq!(
        published["version"],
        json!(5),
        "the burst collapsed to its last version"
    );
    assert!(codes(&published).contains(&"A402".into()));
}

/// A generated graph of about `bytes` bytes (valid by construction).
fn generated(bytes: usize) -> String {
    let registry = primgraph::registry::Registry::builtin();
    let one =
        serde_json::to_string(&primgraph::graph::generate::generate(100, 1, registry).unwrap())
            .unwrap()
            .len();
    let nodes = bytes / (one / 100).max(1);
    serde_json::to_string_pretty(&primgraph::graph::generate::generate(nodes, 1, registry).unwrap())
        .unwrap()
}

#[test]
fn a_stale_result_is_dropped_for_the_newer_version() {
    // Validation of this document takes far longer than the server takes to read the change
    // sent right after opening it, so version 1's result comes back stale and is not published.
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    let doc = uri("stale.graph.json");
    let big = generated(2_000_000);
    client.open(&doc, 1, &big);
    client.change_all(&doc, 2, &big);
    let published = client.diagnostics(&doc);
    assert_eq!(published["version"], json!(2), "version 1 was stale");
}

#[test]
fn a_huge_document_does_not_hold_up_a_keystroke() {
    // 20 MB: validating it takes seconds. While it is validated, a keystroke in it (a change)
    // and a hover there, and a hover in a small document, are all answered before the huge
    // document's diagnostics are published: requests never wait for validation.
    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    let huge = uri("huge.graph.json");
    let text = generated(20_000_000);
    assert!(text.len() >= 19_000_000, "{} bytes", text.len());
    client.open(&huge, 1, &text);
    let start = text.find("\"primitive\": \"").unwrap() + 16;
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": huge, "version": 2},
               "contentChanges": [{"range": {"start": position(&text, 0), "end": position(&text, 0)}, "text": " "}]}),
    );
    let hover_id = client.send_request(
        "textDocument/hover",
        text_position(&huge, position(&text, start)),
    );
    let small = uri("small.graph.json");
    client.open(&small, 1, &example());
    let small_hover = client.send_request(
        "textDocument/hover",
        text_position(
            &small,
            at(&example(), "\"primitive\": \"mut.apply_patch\"", 0, 16),
        ),
    );
    let hover = client.response(hover_id);
    assert!(hover["result"]["contents"]["value"].is_string(), "{hover}");
    let hover = client.response(small_hover);
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("mut.apply_patch")
    );
    assert!(
        !client
            .backlog
            .iter()
            .any(|m| m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == huge.as_str()),
        "the huge document's validation finished before the hovers were answered: {} messages",
        client.backlog.len()
    );
    client.request("shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert!(client.finish().success());
}

#[test]
fn the_server_applies_primgraph_toml() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("primgraph.toml"),
        "[severity]\nA402 = \"warning\"\n\n[[overrides]]\npaths = [\"quiet\"]\nseverity = { A402 = \"off\" }\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("quiet")).unwrap();
    std::fs::create_dir(dir.path().join("typo")).unwrap();
    std::fs::write(
        dir.path().join("typo/primgraph.toml"),
        "[severity]\nA4O2 = \"off\"\n",
    )
    .unwrap();
    let file_uri = |relative: &str| format!("file://{}/{relative}", dir.path().display());

    let mut client = Client::start(&["--debounce-ms", "0"]);
    client.initialize();
    let loud = file_uri("bad.graph.json");
    client.open(&loud, 1, &broken());
    let published = client.diagnostics(&loud);
    let a402 = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "A402")
        .unwrap_or_else(|| panic!("{published}"))
        .clone();
    assert_eq!(a402["severity"], json!(2), "a warning now: {a402}");
    assert!(
        a402["message"]
            .as_str()
            .unwrap()
            .contains("severity error changed by"),
        "{a402}"
    );

    let quiet = file_uri("quiet/bad.graph.json");
    client.open(&quiet, 1, &broken());
    assert!(
        !codes(&client.diagnostics(&quiet)).contains(&"A402".into()),
        "turned off"
    );

    // An unusable configuration is shown to the user, located, and the defaults are used.
    let typo = file_uri("typo/bad.graph.json");
    client.open(&typo, 1, &broken());
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    let message = shown["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("primgraph.toml:2:1: unknown diagnostic code `A4O2`"),
        "{message}"
    );
    let published = client.diagnostics(&typo);
    assert!(codes(&published).contains(&"A402".into()));
    client.request("shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert!(client.finish().success());
}
