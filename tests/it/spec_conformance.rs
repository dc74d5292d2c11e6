//! Conformance probes written from SPEC.md alone: each test states the spec sentence it checks,
//! runs the release binary on a small graph (and trace) in a temporary folder, and asserts the
//! codes, severities, exit codes and output shapes the spec promises.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn primgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run primgraph: {e}"))
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// A graph document with the given nodes and the graph-level fields merged in.
fn graph(extra: Value, nodes: Value) -> String {
    let mut doc = json!({
        "graph": "probe",
        "abi": "1.0.0",
        "capabilities": ["env.*", "done.*", "dec.*", "ctl.*", "mut.*", "ver.*", "intake.*", "exec.*"],
        "entry": "a",
        "nodes": nodes,
    });
    if let (Value::Object(doc), Value::Object(extra)) = (&mut doc, extra) {
        doc.extend(extra);
    }
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// `validate --format json` on one graph text: (exit code, [(code, severity)]).
fn validate(text: &str) -> (i32, Vec<(String, String)>) {
    let dir = tempdir();
    let path = write(dir.path(), "probe.graph.json", text);
    let out = primgraph(&["validate", "--format", "json", &path.display().to_string()]);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let codes = doc["files"][0]["diagnostics"]
        .as_array()
        .map(|ds| {
            ds.iter()
                .map(|d| {
                    (
                        d["code"].as_str().unwrap_or_default().to_string(),
                        d["severity"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (out.status.code().unwrap_or(-1), codes)
}

fn codes(found: &[(String, String)]) -> Vec<&str> {
    found.iter().map(|(c, _)| c.as_str()).collect()
}

// §3.4 Bounds: "Every cycle passes through a node with `max_visits` (equivalently: the graph minus
// bounded nodes is acyclic)." A bounded node on a self-loop (here its own `on_error` retry) is a
// bounded cycle.
#[test]
fn a_bounded_self_loop_is_not_an_unbounded_cycle() {
    let bounded = graph(
        json!({}),
        json!([
            {"id": "a", "primitive": "env.platform_info", "max_visits": 2,
             "next": "b", "on_error": {"*": "a"}},
            {"id": "b", "primitive": "done.finish_success"}
        ]),
    );
    assert_eq!(validate(&bounded), (0, vec![]));

    let unbounded = graph(
        json!({}),
        json!([
            {"id": "a", "primitive": "env.platform_info", "next": "b", "on_error": {"*": "a"}},
            {"id": "b", "primitive": "done.finish_success"}
        ]),
    );
    let (code, found) = validate(&unbounded);
    assert_eq!(code, 1);
    assert_eq!(found, vec![("S205".to_string(), "error".to_string())]);
}

// §3.4 Bounds: "With bounds, the worst-case step count is bounded and compared with
// `budget.max_steps`." A bounded self-loop leaves S209 able to compute its bound.
#[test]
fn a_bounded_self_loop_still_gets_a_step_bound() {
    let text = graph(
        json!({"budget": {"max_steps": 1}}),
        json!([
            {"id": "a", "primitive": "env.platform_info", "max_visits": 2,
             "next": "b", "on_error": {"*": "a"}},
            {"id": "b", "primitive": "done.finish_success"}
        ]),
    );
    let (code, found) = validate(&text);
    assert_eq!(code, 1);
    assert_eq!(codes(&found), vec!["S209"]);
}

// ---------------------------------------------------------------------------------------------
// §4 Recorded runs and replay.

/// RFC 8785 for the values these probes use (objects with ASCII keys, arrays, strings, integers,
/// booleans, null): keys sorted, no whitespace.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let members: Vec<String> = keys
                .iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        Value::from(k.as_str()),
                        canonical(&map[k.as_str()])
                    )
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// A trace: the header, then each event with `seq` and the `prev` chain filled in (SPEC §4.1).
fn trace(header: &Value, events: &[Value]) -> String {
    let mut lines = vec![header.to_string()];
    for (i, event) in events.iter().enumerate() {
        let mut event = event.clone();
        if let Value::Object(map) = &mut event {
            let mut with_seq = serde_json::Map::new();
            with_seq.insert("seq".into(), json!(i + 1));
            with_seq.extend(std::mem::take(map));
            with_seq.insert("prev".into(), Value::from(sha256(lines[i].as_bytes())));
            *map = with_seq;
        }
        lines.push(event.to_string());
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

fn replay_graph() -> Value {
    json!({
        "$schema": "graph.schema.json",
        "graph": "replay-probe",
        "abi": "1.0.0",
        "capabilities": ["intake.*", "ctl.*", "mut.apply_patch", "ver.*", "done.*"],
        "budget": {"max_steps": 12},
        "input": {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]},
        "entry": "i",
        "nodes": [
            {"id": "i", "primitive": "intake.parse_issue",
             "inputs": {"text": {"from": "$input", "at": "/issue"}}, "next": "g"},
            {"id": "g", "primitive": "ctl.authorize_patch", "max_visits": 2,
             "inputs": {"patch": {"const": "diff"}}, "branches": {"allow": "ap", "deny": "f"}},
            {"id": "ap", "primitive": "mut.apply_patch",
             "inputs": {"patch": {"const": "diff"}, "grant": {"from": "g", "at": "/grant"}},
             "next": "v", "on_error": {"patch_conflict": "f"}},
            {"id": "v", "primitive": "ver.check_workspace_clean",
             "branches": {"pass": "s", "fail": "g"}},
            {"id": "s", "primitive": "done.finish_success"},
            {"id": "f", "primitive": "done.report_failure", "inputs": {"reason": {"const": "other"}}}
        ]
    })
}

fn evidence(kinds: &[&str]) -> Value {
    Value::from(
        kinds
            .iter()
            .map(|k| json!({"kind": k, "digest": format!("sha256:{}", "0".repeat(64))}))
            .collect::<Vec<_>>(),
    )
}

fn step_i() -> Value {
    json!({"node": "i", "primitive": "intake.parse_issue", "input": {"text": "hi"},
           "output": {"title": "t", "body": "b", "summary": "s", "test_ids": [], "paths": []},
           "evidence": evidence(&["task_record"])})
}

fn step_g(outcome: &str) -> Value {
    json!({"node": "g", "primitive": "ctl.authorize_patch", "input": {"patch": "diff"},
           "output": {"decision": outcome, "grant": {"token": "t".repeat(16), "scope": "s"}},
           "outcome": outcome, "evidence": evidence(&["policy_decision"])})
}

fn step_ap() -> Value {
    json!({"node": "ap", "primitive": "mut.apply_patch",
           "input": {"patch": "diff", "grant": {"token": "t".repeat(16), "scope": "s"}},
           "output": {"paths": ["a.rs"]}, "evidence": evidence(&["diff", "policy_decision"])})
}

fn step_v(outcome: &str) -> Value {
    json!({"node": "v", "primitive": "ver.check_workspace_clean", "input": {},
           "output": {"passed": outcome == "pass", "paths": [], "conflicted": []},
           "outcome": outcome, "evidence": evidence(&["vcs_status"])})
}

fn step_s() -> Value {
    json!({"node": "s", "primitive": "done.finish_success", "input": {},
           "output": {"status": "success"}, "evidence": evidence(&["run_record"])})
}

fn step_f() -> Value {
    json!({"node": "f", "primitive": "done.report_failure", "input": {"reason": "other"},
           "output": {"status": "failure", "reason": "r"}, "evidence": evidence(&["run_record"])})
}

fn end(status: &str) -> Value {
    json!({"end": status})
}

fn header(graph: &Value) -> Value {
    json!({"trace": "1", "run": "r-1", "graph": graph["graph"],
           "graph_digest": sha256(canonical(graph).as_bytes()), "abi": "1.0.0",
           "input": {"issue": "hi"}})
}

/// `replay --format json` of one trace text against one graph: (exit code, the run's report).
fn replay_text(graph: &Value, trace_text: &str) -> (i32, Value) {
    let dir = tempdir();
    let g = write(dir.path(), "probe.graph.json", &graph.to_string());
    let t = write(dir.path(), "run.trace.jsonl", trace_text);
    let out = primgraph(&[
        "replay",
        "--graph",
        &g.display().to_string(),
        "--format",
        "json",
        &t.display().to_string(),
    ]);
    let code = out.status.code().unwrap_or(-1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (code, doc["runs"][0].clone())
}

fn replay(graph: &Value, events: &[Value]) -> (i32, Value) {
    replay_text(graph, &trace(&header(graph), events))
}

fn run_codes(run: &Value) -> Vec<String> {
    run["diagnostics"]
        .as_array()
        .map(|ds| {
            ds.iter()
                .map(|d| d["code"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_faithful_run_replays_faithful_with_the_documented_shape() {
    let g = replay_graph();
    let (code, run) = replay(
        &g,
        &[
            step_i(),
            step_g("allow"),
            step_ap(),
            step_v("pass"),
            step_s(),
            end("success"),
        ],
    );
    assert_eq!(code, 0, "{run}");
    assert_eq!(run["verdict"], "faithful");
    assert_eq!(run["end"], "success");
    assert_eq!(run["steps"], 5);
    assert_eq!(run["run"], "r-1");
    assert!(run["first_divergence"].is_null());
    assert_eq!(run["diagnostics"], json!([]));
}

// §3.1 "Every diagnostic has … a help line"; §4.2 replay diagnostics are "shaped as in §3.1 plus
// the `seq` and `line` of the event".
#[test]
fn every_replay_diagnostic_has_the_section_3_1_fields_and_a_help_line() {
    let g = replay_graph();
    let mut wrong_input = step_g("allow");
    wrong_input["input"] = json!({"patch": "other"});
    let mut no_evidence = step_ap();
    no_evidence["evidence"] = json!([]);
    let mut events = vec![step_i(), wrong_input, no_evidence, step_v("pass"), step_s()];
    events.push(end("success"));
    events.push(end("success"));
    let mut header = header(&g);
    header["graph_digest"] = Value::from(format!("sha256:{}", "1".repeat(64)));
    let (code, run) = replay_text(&g, &trace(&header, &events));
    assert_eq!(code, 1);
    assert_eq!(
        run_codes(&run),
        vec!["D602", "D605", "D608", "D608", "D614"]
    );
    for d in run["diagnostics"].as_array().into_iter().flatten() {
        for field in [
            "code", "severity", "message", "pointer", "line", "column", "seq",
        ] {
            assert!(d.get(field).is_some(), "{field} missing in {d}");
        }
        let help = d["help"].as_str().unwrap_or_default();
        assert!(!help.is_empty(), "no help line in {d}");
    }
}

// §4.2 "An error with neither handler nor fallback ends the run: the next event is the end,
// `failure`, and that is not D614."
#[test]
fn an_unhandled_error_without_fallback_ends_in_failure_and_is_not_d614() {
    let g = replay_graph();
    let mut failed = step_i();
    let map = failed.as_object_mut().map(|m| {
        m.remove("output");
        m.insert(
            "error".into(),
            json!({"mode": "invalid_input", "message": "bad"}),
        );
    });
    assert!(map.is_some());
    let (code, run) = replay(&g, &[failed.clone(), end("failure")]);
    assert_eq!(
        (code, run["verdict"].clone()),
        (0, json!("faithful")),
        "{run}"
    );
    assert_eq!(run["end"], "failure");

    let (code, run) = replay(&g, &[failed.clone(), end("success")]);
    assert_eq!(code, 1);
    assert_eq!(run_codes(&run), vec!["D614"]);
    assert_eq!(run["verdict"], "violated");

    let (_, run) = replay(&g, &[failed, step_g("allow"), end("failure")]);
    assert_eq!(run["verdict"], "diverged");
    assert_eq!(run["first_divergence"]["code"], "D603");
    assert_eq!(run["first_divergence"]["seq"], 2);
}

// §4.2 verdict mapping: "D603 → diverged; D601, D615, D616, D617 → malformed; every other error
// code → violated … the worst wins in the order malformed > diverged > violated", and
// `first_divergence` "is the first error-severity diagnostic of the run".
#[test]
fn the_worst_verdict_wins_and_first_divergence_is_the_first_error() {
    let g = replay_graph();
    let mut undeclared = step_g("maybe");
    undeclared["output"]["decision"] = json!("allow");
    let (code, run) = replay(
        &g,
        &[
            step_i(),
            undeclared,
            step_ap(),
            step_v("pass"),
            step_s(),
            end("success"),
        ],
    );
    assert_eq!(code, 1);
    let codes = run_codes(&run);
    assert_eq!(codes.first().map(String::as_str), Some("D610"), "{codes:?}");
    assert!(codes.iter().any(|c| c == "D603"), "{codes:?}");
    assert_eq!(run["verdict"], "diverged");
    let first = &run["first_divergence"];
    assert_eq!(first["code"], "D610");
    assert_eq!(first["seq"], 2);
    assert_eq!(first["actual"], "maybe");
}

// §4.2 "A truncated or broken line ends the run as `malformed` at that line, with everything
// before it reported."
#[test]
fn a_broken_line_is_malformed_and_keeps_what_came_before() {
    let g = replay_graph();
    let mut wrong_input = step_g("allow");
    wrong_input["input"] = json!({"patch": "other"});
    let text = trace(&header(&g), &[step_i(), wrong_input]);
    let text = format!("{text}{{\"seq\":3,\"node\":\n");
    let (code, run) = replay_text(&g, &text);
    assert_eq!(code, 1);
    assert_eq!(run["verdict"], "malformed");
    assert_eq!(run["steps"], 2);
    assert_eq!(run_codes(&run), vec!["D605", "D616"]);
    assert_eq!(run["first_divergence"]["code"], "D605");
    let last = &run["diagnostics"][1];
    assert_eq!(
        (last["seq"].clone(), last["line"].clone()),
        (json!(3), json!(4))
    );
}

// §4.1 "`graph_digest` is the SHA-256 of the whole graph document (`$schema` included) in
// RFC 8785 canonical form"; §4.2 a digest mismatch is the what-if mode, D602 a warning.
#[test]
fn the_digest_covers_schema_and_a_mismatch_is_a_what_if_warning() {
    let g = replay_graph();
    let events = [step_i(), step_g("deny"), step_f(), end("failure")];
    let (code, run) = replay(&g, &events);
    assert_eq!((code, run_codes(&run)), (0, vec![]), "{run}");

    let mut edited = g.clone();
    edited["$schema"] = json!("other.schema.json");
    let (code, run) = replay_text(&edited, &trace(&header(&g), &events));
    assert_eq!(code, 0, "{run}");
    assert_eq!(run["verdict"], "faithful");
    assert_eq!(run_codes(&run), vec!["D602"]);
    assert_eq!(run["diagnostics"][0]["severity"], "warning");
    assert!(run["first_divergence"].is_null());
}

// §4.1 "The header's `trace`, `run`, `graph`, `graph_digest` and `abi` are required; `input`
// defaults to `{}`."
#[test]
fn the_header_needs_its_five_fields_and_input_defaults_to_empty() {
    let g = json!({
        "graph": "tiny", "abi": "1.0.0", "capabilities": ["env.*", "done.*"], "entry": "a",
        "nodes": [{"id": "a", "primitive": "env.platform_info", "next": "b"},
                  {"id": "b", "primitive": "done.finish_success"}]
    });
    let events = [
        json!({"node": "a", "primitive": "env.platform_info", "input": {},
               "output": {"os": "linux", "arch": "x86_64", "cpu_count": 2, "memory_bytes": 1,
                          "disk_free_bytes": 0},
               "evidence": evidence(&["environment_probe"])}),
        json!({"node": "b", "primitive": "done.finish_success", "input": {},
               "output": {"status": "success"}, "evidence": evidence(&["run_record"])}),
        end("success"),
    ];
    let mut h = header(&g);
    h.as_object_mut().map(|m| m.remove("input"));
    let (code, run) = replay_text(&g, &trace(&h, &events));
    assert_eq!(
        (code, run["verdict"].clone()),
        (0, json!("faithful")),
        "{run}"
    );
    for field in ["trace", "run", "graph", "graph_digest", "abi"] {
        let mut h = header(&g);
        h.as_object_mut().map(|m| m.remove(field));
        let (code, run) = replay_text(&g, &trace(&h, &events));
        assert_eq!(code, 1);
        assert_eq!(run["verdict"], "malformed", "without {field}");
        assert_eq!(run_codes(&run), vec!["D601"], "without {field}");
    }
}

// §4.2 "Replay refuses (exit 2) a graph that does not load (any G code, or R101); a graph with
// other validation errors is replayed as it stands."
#[test]
fn replay_refuses_graphs_that_do_not_load_and_replays_the_rest() {
    let g = replay_graph();
    let events = [step_i(), step_g("deny"), step_f(), end("failure")];
    let text = trace(&header(&g), &events);

    let mut unknown_field = g.clone();
    unknown_field["budgets"] = json!({});
    assert_eq!(replay_text(&unknown_field, &text).0, 2);

    let mut unknown_primitive = g.clone();
    unknown_primitive["nodes"][5]["primitive"] = json!("done.report_failur");
    assert_eq!(replay_text(&unknown_primitive, &text).0, 2);

    let mut outside_capabilities = g.clone();
    outside_capabilities["capabilities"] = json!(["intake.*", "ctl.*", "mut.apply_patch", "ver.*"]);
    // Besides the two R104s, A407: `ap`'s own `on_error` edge reaches the terminal `f` without
    // a verifier (SPEC §3.4 counts a `requires_verifier` node's own `on_error` edges). Neither
    // stops the graph from loading, so it is replayed.
    let (code, found) = validate(&outside_capabilities.to_string());
    assert_eq!((code, codes(&found)), (1, vec!["A407", "R104", "R104"]));
    let (code, run) = replay_text(&outside_capabilities, &text);
    assert_eq!(code, 0, "{run}");
    assert_eq!(run_codes(&run), vec!["D602"]);
}

// ---------------------------------------------------------------------------------------------
// §2, §3 Validation.

fn two_nodes(first: Value) -> Value {
    json!([first, {"id": "b", "primitive": "done.finish_success"}])
}

// §3 "Exit 0: no errors (warnings allowed unless `--deny-warnings`); 1: errors; 2: the command
// itself could not run (usage, unreadable path)."
#[test]
fn validate_exit_codes() {
    let dir = tempdir();
    let warning = graph(
        json!({"capabilities": ["env.*", "done.*", "nothing.*"]}),
        two_nodes(json!({"id": "a", "primitive": "env.platform_info", "next": "b"})),
    );
    let info = graph(
        json!({}),
        two_nodes(json!({"id": "a", "primitive": "PLATFORM_INFO", "next": "b"})),
    );
    let w = write(dir.path(), "w.graph.json", &warning)
        .display()
        .to_string();
    let i = write(dir.path(), "i.graph.json", &info)
        .display()
        .to_string();
    let status = |args: &[&str]| primgraph(args).status.code();
    assert_eq!(status(&["validate", &w]), Some(0));
    assert_eq!(status(&["validate", "--deny-warnings", &w]), Some(1));
    assert_eq!(status(&["validate", "--deny-warnings", &i]), Some(0));
    let missing = dir.path().join("missing.graph.json").display().to_string();
    assert_eq!(status(&["validate", &missing]), Some(2));
    assert_eq!(status(&["validate", "--format", "yaml", &w]), Some(2));
    let broken = write(dir.path(), "x.graph.json", "{\"graph\": ")
        .display()
        .to_string();
    assert_eq!(status(&["validate", &broken]), Some(1));
}

// §5 severities of the non-error validation codes.
#[test]
fn warning_and_info_codes_have_their_severities() {
    let (code, found) = validate(&graph(
        json!({"capabilities": ["env.*", "done.*", "nothing.*"]}),
        json!([
            {"id": "a", "primitive": "PLATFORM_INFO", "next": "b"},
            {"id": "b", "primitive": "done.finish_success"},
            {"id": "c", "primitive": "done.finish_success"}
        ]),
    ));
    assert_eq!(code, 0);
    let mut found = found;
    found.sort();
    let expected = [("R102", "info"), ("R103", "warning"), ("S203", "warning")];
    assert_eq!(
        found,
        expected
            .iter()
            .map(|(c, s)| (c.to_string(), s.to_string()))
            .collect::<Vec<_>>()
    );
}

// §2 `capabilities`: "exact IDs, aliases, or `prefix.*`; every node's primitive must match one".
#[test]
fn capabilities_match_by_id_alias_or_prefix() {
    let nodes = two_nodes(json!({"id": "a", "primitive": "env.platform_info", "next": "b"}));
    for caps in [
        json!(["env.platform_info", "done.*"]),
        json!(["PLATFORM_INFO", "FINISH_SUCCESS"]),
        json!(["env.*", "done.finish_success"]),
    ] {
        let text = graph(json!({ "capabilities": caps }), nodes.clone());
        assert_eq!(validate(&text), (0, vec![]), "{caps}");
    }
    for caps in [json!(["env*", "done.*"]), json!(["en.*", "done.*"])] {
        let (code, found) = validate(&graph(json!({ "capabilities": caps }), nodes.clone()));
        assert_eq!((code, codes(&found)), (1, vec!["R103", "R104"]), "{caps}");
    }
}

// §2 "`$schema`, for editors, is allowed"; `abi` "satisfied by a registry of the same major and a
// minor ≥ it" (the embedded registry is 1.0.0).
#[test]
fn schema_field_is_allowed_and_abi_needs_same_major_and_lower_minor() {
    let nodes = two_nodes(json!({"id": "a", "primitive": "env.platform_info", "next": "b"}));
    for (abi, expected) in [
        ("1.0.0", vec![]),
        ("1.0.7", vec![]),
        ("1.1.0", vec!["G005"]),
        ("0.9.0", vec!["G005"]),
        ("2.0.0", vec!["G005"]),
    ] {
        let text = graph(
            json!({"$schema": "graph.schema.json", "abi": abi}),
            nodes.clone(),
        );
        let (_, found) = validate(&text);
        assert_eq!(codes(&found), expected, "abi {abi}");
    }
}

// §3.3 "Terminal nodes are those with neither `next` nor `branches` (`on_error` edges do not make
// a node non-terminal)."
#[test]
fn on_error_alone_leaves_a_node_terminal() {
    let text = graph(
        json!({}),
        two_nodes(json!({"id": "a", "primitive": "env.platform_info", "on_error": {"*": "b"}})),
    );
    let (code, found) = validate(&text);
    assert_eq!((code, codes(&found)), (1, vec!["S204"]));
}

// §3.4 Grant: "a `\"*\"` edge is never a grant edge"; the witness is a path without a grant.
#[test]
fn a_star_branch_of_a_gate_is_not_a_grant() {
    let gate = |branches: Value| {
        graph(
            json!({"input": {"type": "object", "properties": {"cmd": {"type": "string", "minLength": 1}},
                             "required": ["cmd"]}}),
            json!([
                {"id": "a", "primitive": "ctl.authorize_command",
                 "inputs": {"command": {"from": "$input", "at": "/cmd"}}, "branches": branches},
                {"id": "run", "primitive": "exec.run_command",
                 "inputs": {"command": {"from": "a", "at": "/command"},
                            "grant": {"from": "a", "at": "/grant"}}, "next": "b"},
                {"id": "b", "primitive": "done.finish_success"}
            ]),
        )
    };
    assert_eq!(
        validate(&gate(json!({"allow": "run", "deny": "b"}))),
        (0, vec![])
    );
    let dir = tempdir();
    let path = write(
        dir.path(),
        "star.graph.json",
        &gate(json!({"allow": "b", "*": "run"})),
    );
    let out = primgraph(&["validate", "--format", "json", &path.display().to_string()]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let d = &doc["files"][0]["diagnostics"][0];
    assert_eq!(d["code"], "A402");
    assert_eq!(
        d["witness"],
        json!({"path": ["a", "run"],
               "edges": [{"from": "a", "to": "run", "kind": "branch", "label": "*"}]})
    );
    assert_eq!(d["pointer"], "/nodes/1");
}

// §2 `nodes[].workspace`: "residency label, default `\"main\"`"; §3.4 Workspaces.
#[test]
fn the_default_workspace_is_main() {
    let nodes = |workspace: &str| {
        json!([
            {"id": "a", "primitive": "intake.parse_issue", "workspace": workspace,
             "inputs": {"text": {"const": "issue"}}, "next": "b"},
            {"id": "b", "primitive": "done.finish_success",
             "inputs": {"summary": {"from": "a", "at": "/summary"}}}
        ])
    };
    assert_eq!(validate(&graph(json!({}), nodes("main"))), (0, vec![]));
    let (code, found) = validate(&graph(json!({}), nodes("sandbox")));
    assert_eq!((code, codes(&found)), (1, vec!["A406"]));
}

// §3.2 `schema check`: "exit 0 for yes, 1 for no, 3 for unknown, 2 for unusable input".
#[test]
fn schema_check_exit_codes_and_document() {
    let dir = tempdir();
    let file = |name: &str, text: &str| write(dir.path(), name, text).display().to_string();
    let int = file("int.json", r#"{"type": "integer"}"#);
    let num = file("num.json", r#"{"type": "number"}"#);
    let p1 = file("p1.json", r#"{"type": "string", "pattern": "^[a-z]+$"}"#);
    let p2 = file("p2.json", r#"{"type": "string", "pattern": "^[a-z]*$"}"#);
    let ahead = file(
        "ahead.json",
        r#"{"type": "string", "pattern": "^(?=a)[a-z]+$"}"#,
    );
    let bad = file("bad.json", "not json");
    let check = |a: &str, b: &str| {
        let out = primgraph(&["schema", "check", a, b, "--format", "json"]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code(), doc)
    };
    let (code, doc) = check(&int, &num);
    assert_eq!((code, doc["verdict"].clone()), (Some(0), json!("yes")));
    let (code, doc) = check(&num, &int);
    assert_eq!((code, doc["verdict"].clone()), (Some(1), json!("no")));
    assert!(
        doc["witness"].is_number() && !doc["witness"].is_i64(),
        "{doc}"
    );
    // Regular patterns are decided by automata: one or more letters are zero or more letters.
    let (code, doc) = check(&p1, &p2);
    assert_eq!((code, doc["verdict"].clone()), (Some(0), json!("yes")));
    // A look-ahead is not regular, so a pattern with one stays undecided.
    let (code, doc) = check(&ahead, &p2);
    assert_eq!((code, doc["verdict"].clone()), (Some(3), json!("unknown")));
    assert!(
        doc["reason"].as_str().unwrap_or("").contains("look-ahead"),
        "{doc}"
    );
    assert_eq!(check(&bad, &num).0, Some(2));
}

// §3.4 Bounds: "the worst-case step count is bounded and compared with `budget.max_steps`". A
// node retried on its own error at most twice, then a terminal: the longest run is a a b, three
// steps — a budget of exactly three holds, two does not.
#[test]
fn the_step_bound_of_a_retry_is_its_longest_run() {
    let with_budget = |max_steps: u64| {
        graph(
            json!({"budget": {"max_steps": max_steps}}),
            json!([
                {"id": "a", "primitive": "env.platform_info", "max_visits": 2,
                 "next": "b", "on_error": {"*": "a"}},
                {"id": "b", "primitive": "done.finish_success"}
            ]),
        )
    };
    assert_eq!(validate(&with_budget(3)), (0, vec![]));
    let (code, found) = validate(&with_budget(2));
    assert_eq!(code, 1);
    assert_eq!(codes(&found), vec!["S209"]);
}
