//! The diagnostic pipeline on fixed inputs: resolving pointers to lines and columns, the
//! deterministic order, and snapshots of the human, JSON and SARIF renderings.

use primgraph::diagnostic::{
    self, Code, Diagnostic, FileReport, Severity, Tally, Witness, human, sarif,
};
use primgraph::json::{Limits, parse};
use serde_json::{Value, json};
use std::sync::Arc;

const GRAPH: &str = r#"{
  "graph": "fix-failing-test",
  "entry": "apply",
  "nodes": [
    {"id": "apply", "primitive": "fs.apply_patch", "next": "decide"},
    {"id": "decide", "primitive": "s1.decide",
     "branches": {"ok": "done", "retry": "apply"}},
    {"id": "done", "primitive": "run.finish", "inputs": {"patch": {"const": 7}}}
  ]
}
"#;

fn graph_diagnostics() -> Vec<Diagnostic> {
    vec![
        Diagnostic::new(
            "T305",
            Severity::Error,
            "/nodes/2/inputs/patch",
            "incompatible binding into `patch`",
        )
        .with_witness(Witness::Value(json!({"diff": 7})))
        .with_help("bind a value of type string"),
        Diagnostic::new(
            "A407",
            Severity::Error,
            "/nodes/0",
            "`fs.apply_patch` can reach a terminal without verification",
        )
        .with_related("/nodes/2", "the terminal reached")
        .with_witness(Witness::Path(vec![
            "apply".into(),
            "decide".into(),
            "done".into(),
        ]))
        .with_help("route the path through a `verification` node"),
        Diagnostic::new(
            "R102",
            Severity::Info,
            "/nodes/1/primitive",
            "primitive referenced by alias",
        ),
        Diagnostic::new(
            "S203",
            Severity::Warning,
            "/nodes/9",
            "node unreachable from `entry`",
        ),
    ]
}

fn resolved_graph_report() -> FileReport {
    let parsed = match parse(GRAPH.as_bytes(), &Limits::default()) {
        Ok(p) => p,
        Err(e) => panic!("fixture parses: {e}"),
    };
    let mut diags = graph_diagnostics();
    diagnostic::resolve(&mut diags, &parsed);
    diagnostic::sort(&mut diags);
    FileReport {
        file: "graphs/fix.graph.json".into(),
        graph: Some("fix-failing-test".into()),
        diagnostics: diags,
        source: Arc::from(GRAPH),
    }
}

const BROKEN: &str = "{\n  \"graph\": \"x\",\n  \"nodes\": [1 2]\n}\n";

fn broken_report() -> FileReport {
    let e = parse(BROKEN.as_bytes(), &Limits::default()).unwrap_err();
    let mut diag = Diagnostic::new(
        "G001",
        Severity::Error,
        "",
        format!("invalid JSON: {}", e.kind),
    );
    diag.line = e.span.line;
    diag.column = e.span.column;
    FileReport {
        file: "graphs\\broken graph.json".into(),
        graph: None,
        diagnostics: vec![diag],
        source: Arc::from(BROKEN),
    }
}

fn clean_report() -> FileReport {
    FileReport {
        file: "graphs/clean.graph.json".into(),
        graph: Some("clean".into()),
        diagnostics: vec![],
        source: Arc::from("{}"),
    }
}

fn reports() -> Vec<FileReport> {
    vec![resolved_graph_report(), broken_report(), clean_report()]
}

static A407: Code = Code {
    code: "A407",
    severity: Severity::Error,
    title: "verifier bypass (witness path)",
    file: "",
    source: "//! A407: verifier bypass.\n//!\n//! From a node whose primitive requires a verifier, every path to a terminal passes a verification node.\n",
    help: "",
};
static T305: Code = Code {
    code: "T305",
    severity: Severity::Error,
    title: "incompatible binding (witness value)",
    file: "",
    source: "//! T305: incompatible binding.\n",
    help: "",
};
static R102: Code = Code {
    code: "R102",
    severity: Severity::Info,
    title: "primitive referenced by alias",
    file: "",
    source: "//! R102: alias.\n",
    help: "",
};
const CODES: &[&Code] = &[&A407, &T305, &R102];

#[test]
fn resolve_fills_positions_from_pointers() {
    let report = resolved_graph_report();
    let by_code = |code: &str| {
        report
            .diagnostics
            .iter()
            .find(|d| d.code == code)
            .cloned()
            .unwrap_or_else(|| panic!("{code} present"))
    };
    // An array element: its value (short, on one line: all of it). A member: from its key,
    // through its value when that is short and on the key's line.
    let a407 = by_code("A407");
    assert_eq!(
        (a407.line, a407.column, a407.end_line, a407.end_column),
        (5, 5, 5, 69)
    );
    let related = &a407.related[0];
    assert_eq!(
        (
            related.line,
            related.column,
            related.end_line,
            related.end_column
        ),
        (Some(8), Some(5), Some(8), Some(81))
    );
    let r102 = by_code("R102");
    assert_eq!(
        (r102.line, r102.column, r102.end_line, r102.end_column),
        (6, 22, 6, 46),
        "`\"primitive\": \"s1.decide\"`"
    );
    let t305 = by_code("T305");
    assert_eq!(
        (t305.line, t305.column, t305.end_line, t305.end_column),
        (8, 58, 8, 79)
    );
    // A pointer that names nothing falls back to its nearest ancestor (/nodes), by its key
    // alone (its value spans lines).
    let s203 = by_code("S203");
    assert_eq!(
        (s203.line, s203.column, s203.end_line, s203.end_column),
        (4, 3, 4, 10)
    );
}

#[test]
fn sort_is_by_line_column_code_pointer_message() {
    let report = resolved_graph_report();
    let order: Vec<_> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(order, ["S203", "A407", "R102", "T305"]);

    let mut diags = vec![
        Diagnostic::new("B", Severity::Error, "/b", "m"),
        Diagnostic::new("A", Severity::Error, "/b", "z"),
        Diagnostic::new("A", Severity::Error, "/b", "a"),
        Diagnostic::new("A", Severity::Error, "/a", "z"),
    ];
    for d in &mut diags {
        d.line = 1;
        d.column = 1;
    }
    diags[0].column = 0;
    diagnostic::sort(&mut diags);
    let keys: Vec<_> = diags
        .iter()
        .map(|d| format!("{}{}{}", d.code, d.pointer, d.message))
        .collect();
    assert_eq!(keys, ["B/bm", "A/az", "A/ba", "A/bz"]);
}

#[test]
fn summary_counts_and_line() {
    let reports = reports();
    assert_eq!(
        Tally::of(&reports),
        Tally {
            files: 3,
            errors: 3,
            warnings: 1,
            infos: 1
        }
    );
    assert_eq!(
        human::summary_line(&reports),
        "3 errors, 1 warning, 1 info in 3 files"
    );
    assert_eq!(
        human::summary_line(&[clean_report()]),
        "0 errors, 0 warnings in 1 file"
    );
}

#[test]
fn human_snapshot() {
    let out = human::render(&reports(), false);
    assert!(!out.contains('\u{1b}'), "no colour unless asked");
    // A change shows as a line diff (insta); the snapshot is tests/it/snapshots/.
    insta::assert_snapshot!("human_render", out);
}

#[test]
fn human_colour_only_when_asked() {
    let plain = human::render(&reports(), false);
    let coloured = human::render(&reports(), true);
    assert!(coloured.contains("\u{1b}["));
    // Stripping the escapes gives the plain text back.
    let mut stripped = String::new();
    let mut chars = coloured.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            stripped.push(c);
        }
    }
    assert_eq!(stripped, plain);
}

#[test]
fn human_without_location() {
    let report = FileReport {
        file: "x.json".into(),
        graph: None,
        diagnostics: vec![
            Diagnostic::new("G005", Severity::Error, "/abi", "abi not satisfied")
                .with_help("use ^1.0.0"),
        ],
        source: Arc::from("not json"),
    };
    let out = human::render(&[report], false);
    assert_eq!(
        out,
        "error[G005]: abi not satisfied\n--> x.json\n = note: at /abi\n = help: use ^1.0.0\n\n1 error, 0 warnings in 1 file\n"
    );
}

const JSON: &str = r#"{"files":[{"file":"graphs/fix.graph.json","graph":"fix-failing-test","diagnostics":[{"code":"S203","severity":"warning","message":"node unreachable from `entry`","pointer":"/nodes/9","line":4,"column":3,"end_line":4,"end_column":10,"related":[]},{"code":"A407","severity":"error","message":"`fs.apply_patch` can reach a terminal without verification","pointer":"/nodes/0","line":5,"column":5,"end_line":5,"end_column":69,"related":[{"pointer":"/nodes/2","message":"the terminal reached","line":8,"column":5,"end_line":8,"end_column":81}],"witness":{"path":["apply","decide","done"]},"help":"route the path through a `verification` node"},{"code":"R102","severity":"info","message":"primitive referenced by alias","pointer":"/nodes/1/primitive","line":6,"column":22,"end_line":6,"end_column":46,"related":[]},{"code":"T305","severity":"error","message":"incompatible binding into `patch`","pointer":"/nodes/2/inputs/patch","line":8,"column":58,"end_line":8,"end_column":79,"related":[],"witness":{"value":{"diff":7}},"help":"bind a value of type string"}]},{"file":"graphs\\broken graph.json","graph":null,"diagnostics":[{"code":"G001","severity":"error","message":"invalid JSON: expected ',' or ']' after array element","pointer":"","line":3,"column":15,"related":[]}]},{"file":"graphs/clean.graph.json","graph":"clean","diagnostics":[]}],"summary":{"files":3,"errors":3,"warnings":1,"infos":1}}
"#;

#[test]
fn json_snapshot_and_determinism() {
    let compact = diagnostic::json::render_compact(&reports());
    assert_eq!(compact, JSON);
    let pretty = diagnostic::json::render(&reports());
    assert_eq!(pretty, diagnostic::json::render(&reports()));
    let reparsed: Value = serde_json::from_str(&pretty).unwrap();
    let expected: Value = serde_json::from_str(JSON).unwrap();
    assert_eq!(reparsed, expected);
    // The seq of a replay diagnostic is rendered.
    let mut with_seq = clean_report();
    let mut d = Diagnostic::new("D603", Severity::Error, "", "divergence");
    d.seq = Some(12);
    with_seq.diagnostics.push(d);
    let value = diagnostic::json::to_value(&[with_seq]);
    assert_eq!(value["files"][0]["diagnostics"][0]["seq"], json!(12));
}

/// The SARIF 2.1.0 rules GitHub code scanning enforces on upload, as assertions.
fn check_sarif_for_github(log: &Value) {
    let obj = log.as_object().expect("log is an object");
    assert_eq!(log["version"], "2.1.0");
    assert!(
        log["$schema"]
            .as_str()
            .is_some_and(|s| s.contains("sarif-2.1.0"))
    );
    let runs = log["runs"].as_array().expect("runs is an array");
    assert_eq!(runs.len(), 1);
    assert!(
        obj.keys()
            .all(|k| ["$schema", "version", "runs"].contains(&k.as_str()))
    );
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "primgraph");
    assert!(driver["version"].as_str().is_some_and(|v| !v.is_empty()));
    let rules = driver["rules"].as_array().expect("rules is an array");
    let mut ids: Vec<&str> = Vec::new();
    for rule in rules {
        let id = rule["id"].as_str().expect("rule id is a string");
        assert!(!ids.contains(&id), "rule ids are unique");
        ids.push(id);
        assert!(
            rule["name"]
                .as_str()
                .is_some_and(|n| !n.is_empty() && !n.contains(' '))
        );
        assert!(
            rule["shortDescription"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        assert!(
            rule["fullDescription"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        assert!(rule["help"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        let level = rule["defaultConfiguration"]["level"].as_str().unwrap_or("");
        assert!(["none", "note", "warning", "error"].contains(&level));
    }
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let results = run["results"].as_array().expect("results is an array");
    for result in results {
        let rule_id = result["ruleId"].as_str().expect("ruleId");
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], rule_id, "ruleIndex points at the rule");
        let level = result["level"].as_str().unwrap_or("");
        assert!(["none", "note", "warning", "error"].contains(&level));
        assert!(
            result["message"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        let locations = result["locations"].as_array().expect("locations");
        assert!(!locations.is_empty() && locations.len() <= 1000);
        let related = result["relatedLocations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for location in locations.iter().chain(&related) {
            let physical = &location["physicalLocation"];
            let uri = physical["artifactLocation"]["uri"].as_str().expect("uri");
            assert!(!uri.is_empty() && !uri.contains('\\') && !uri.starts_with('/'));
            assert!(
                !uri.contains(' ') && !uri.contains("://"),
                "a relative URI: {uri}"
            );
            let region = &physical["region"];
            let start_line = region["startLine"].as_u64().expect("startLine");
            let start_column = region["startColumn"].as_u64().expect("startColumn");
            let end_line = region["endLine"].as_u64().expect("endLine");
            let end_column = region["endColumn"].as_u64().expect("endColumn");
            assert!(start_line >= 1 && start_column >= 1);
            assert!(end_line >= start_line);
            assert!(end_line > start_line || end_column > start_column);
        }
        for r in &related {
            assert!(r["id"].as_u64().is_some());
            assert!(r["message"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        }
        assert!(
            result["partialFingerprints"]
                .as_object()
                .is_some_and(|f| f.values().all(Value::is_string))
        );
    }
}

#[test]
fn sarif_shape_for_github() {
    let log = sarif::to_value(&reports(), CODES);
    check_sarif_for_github(&log);
    let run = &log["runs"][0];
    let rules: Vec<_> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap_or("").to_string())
        .collect();
    // The table's order, then the codes it lacks, sorted.
    assert_eq!(rules, ["A407", "T305", "R102", "G001", "S203"]);
    let rule = &run["tool"]["driver"]["rules"][0];
    assert_eq!(rule["name"], "VerifierBypassWitnessPath");
    assert_eq!(
        rule["shortDescription"]["text"],
        "verifier bypass (witness path)"
    );
    assert_eq!(rule["fullDescription"]["text"], "A407: verifier bypass.");
    assert_eq!(
        run["tool"]["driver"]["rules"][2]["defaultConfiguration"]["level"],
        "note"
    );

    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    let a407 = &results[1];
    assert_eq!(a407["ruleId"], "A407");
    assert_eq!(a407["ruleIndex"], 0);
    assert_eq!(a407["level"], "error");
    assert_eq!(
        a407["locations"][0]["physicalLocation"],
        json!({"artifactLocation": {"uri": "graphs/fix.graph.json"},
               "region": {"startLine": 5, "startColumn": 5, "endLine": 5, "endColumn": 69}})
    );
    assert_eq!(
        a407["relatedLocations"][0]["physicalLocation"]["region"],
        json!({"startLine": 8, "startColumn": 5, "endLine": 8, "endColumn": 81})
    );
    assert_eq!(
        a407["relatedLocations"][0]["message"]["text"],
        "the terminal reached"
    );
    assert_eq!(
        a407["properties"]["witness"],
        json!({"path": ["apply", "decide", "done"]})
    );
    assert_eq!(results[0]["level"], "warning");
    assert_eq!(results[2]["level"], "note");
    assert_eq!(
        results[3]["properties"]["witness"],
        json!({"value": {"diff": 7}})
    );
    let g001 = &results[4];
    assert_eq!(
        g001["locations"][0]["physicalLocation"],
        json!({"artifactLocation": {"uri": "graphs/broken%20graph.json"},
               "region": {"startLine": 3, "startColumn": 15, "endLine": 3, "endColumn": 16}})
    );
    // Same input, same bytes.
    assert_eq!(
        sarif::render(&reports(), CODES),
        sarif::render(&reports(), CODES)
    );
}

#[test]
fn sarif_fingerprints_ignore_line_moves() {
    let a = sarif::to_value(&[resolved_graph_report()], CODES);
    let mut moved = resolved_graph_report();
    let shifted = format!("\n\n{GRAPH}");
    let parsed = parse(shifted.as_bytes(), &Limits::default()).unwrap();
    diagnostic::resolve(&mut moved.diagnostics, &parsed);
    moved.source = Arc::from(shifted.as_str());
    let b = sarif::to_value(&[moved], CODES);
    let fingerprints = |log: &Value| -> Vec<Value> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"].clone())
            .collect()
    };
    assert_eq!(fingerprints(&a), fingerprints(&b));
    assert_ne!(
        a["runs"][0]["results"][1]["locations"],
        b["runs"][0]["results"][1]["locations"]
    );
}

#[test]
fn sarif_uris_and_rule_names() {
    assert_eq!(
        sarif::artifact_uri(".\\graphs\\a b.json"),
        "graphs/a%20b.json"
    );
    assert_eq!(sarif::artifact_uri("./x/ü.json"), "x/%C3%BC.json");
    assert_eq!(
        sarif::rule_name("non-policy primitive with `authorize` authority", "A401"),
        "NonPolicyPrimitiveWithAuthorizeAuthority"
    );
    assert_eq!(sarif::rule_name("—", "X1"), "X1");
}

/// What a location covers on a long line (issue 22): a node is its opening through its `id`
/// member, a long member is its key, a short member is key through value — never the line.
#[test]
fn a_long_line_is_underlined_by_the_name_of_the_offending_thing() {
    let long = "x".repeat(120);
    let source = format!(
        "{{\n  \"nodes\": [\n    {{\"id\": \"apply\", \"primitive\": \"p.q\", \"inputs\": {{\"text\": {{\"const\": \"{long}\"}}}}, \"next\": \"done\"}}\n  ]\n}}\n"
    );
    let parsed = parse(source.as_bytes(), &Limits::default()).unwrap();
    let text_of = |pointer: &str| {
        let span = diagnostic::location_span(&parsed, pointer);
        assert_eq!(span.line, span.end_line, "{pointer}: one line");
        source[span.start..span.end].to_string()
    };
    assert_eq!(text_of("/nodes/0"), r#"{"id": "apply""#);
    assert_eq!(text_of("/nodes/0/inputs"), r#""inputs""#);
    assert_eq!(text_of("/nodes/0/primitive"), r#""primitive": "p.q""#);
    assert_eq!(text_of("/nodes/0/next"), r#""next": "done""#);
    // Resolved diagnostics carry the same extent, start and end.
    let mut diags = vec![Diagnostic::new("S203", Severity::Warning, "/nodes/0", "x")];
    diagnostic::resolve(&mut diags, &parsed);
    assert_eq!(
        (
            diags[0].line,
            diags[0].column,
            diags[0].end_line,
            diags[0].end_column
        ),
        (3, 5, 3, 19)
    );
}

/// SPEC §3.1 ("Human output shows the source line with a caret") for findings a graph's report
/// locates in a pack's `pack.json` (§9.1): `validate --format human` quotes the pack file's line,
/// and a related location in that file ("first defined here") is quoted there too.
#[test]
fn human_quotes_a_pack_files_lines_in_a_graphs_report() {
    let dir = tempfile::tempdir().unwrap();
    let primitive = |id: &str, alias: &str, failure_mode: &str| {
        json!({"id": id, "alias": alias, "family": "mini", "class": "deterministic",
               "authority": "propose", "summary": "Looks.",
               "inputs": {"type": "object", "properties": {"q": {"type": "string"}}},
               "outputs": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
               "evidence": [], "evaluation": {"method": "m", "metric": "x"},
               "failure_modes": [failure_mode], "effects": []})
    };
    let write_pack = |primitives: Vec<Value>| {
        let manifest = json!({"pack": "mini", "version": "1.0.0", "summary": "A minimal pack.",
            "kernel_abi": "^1.0", "roots": ["mini"],
            "families": [{"name": "mini", "prefix": "mini", "group": "mini", "summary": "Mini."}],
            "primitives": primitives});
        std::fs::create_dir_all(dir.path().join("mini")).unwrap();
        std::fs::write(
            dir.path().join("mini/pack.json"),
            serde_json::to_string_pretty(&manifest).unwrap(),
        )
        .unwrap();
    };
    std::fs::write(
        dir.path().join("g.graph.json"),
        r#"{"graph":"g","abi":"1.0.0","packs":{"mini":"^1.0"},"capabilities":["mini.*","done.finish_success"],"entry":"look","nodes":[{"id":"look","primitive":"mini.look","inputs":{"q":{"const":"x"}},"next":"done"},{"id":"done","primitive":"done.finish_success","inputs":{"summary":{"from":"look","at":"/a"}}}]}"#,
    )
    .unwrap();
    let validate = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_primgraph"))
            .args([
                "validate",
                "g.graph.json",
                "--pack",
                "mini",
                "--format",
                "human",
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout).unwrap()
    };
    write_pack(vec![primitive("mini.look", "MINI_LOOK", "made_up")]);
    let p808 = validate();
    write_pack(vec![
        primitive("mini.look", "MINI_LOOK", "invalid_input"),
        primitive("mini.look", "MINI_LOOK2", "invalid_input"),
    ]);
    let l501 = validate();
    for out in [&p808, &l501] {
        assert!(out.contains(" --> mini/pack.json:"), "{out}");
        assert!(out.contains("^^^"), "{out}");
    }
    insta::assert_snapshot!("human_pack_file_findings", format!("{p808}{l501}"));
}
