//! Property tests of fragment expansion (SPEC §9.3): validating a graph that uses a fragment
//! gives the findings of validating the same graph expanded by hand (an independent, written-out
//! expansion in this file), each mapped back to where it was written; expansion is deterministic
//! and idempotent, and a graph without uses is its own expansion. Downstream: every finding
//! about a node points back at the expanded node written there (`NodeFinder`, read against the
//! fragment file's own node IDs), and `graph diff` of a version against itself is empty —
//! findings inside the fragment matched on expanded IDs.

use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::path::PackPath;
use primgraph::registry::Registry;
use primgraph::validate::{self, Options};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

fn options() -> &'static Options {
    static OPTIONS: OnceLock<Options> = OnceLock::new();
    OPTIONS.get_or_init(|| Options {
        packs: Some(Arc::new(Composer::new(
            Base::Builtin,
            PackPath::scan(&[
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fragments/path")
            ]),
            ComposerOptions::default(),
        ))),
        ..Options::default()
    })
}

fn fragment(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fragments/path/shipkit/fragments")
        .join(format!("{name}.fragment.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[derive(Debug, Clone)]
struct Case {
    fragment: &'static str,
    attempts: Option<i64>,
    patch_from: (&'static str, &'static str),
    failed_to: &'static str,
    dropped_capability: Option<&'static str>,
    reads_output: Option<&'static str>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec!["land", "land-unchecked"]),
        prop::option::of(prop::sample::select(vec![0i64, 1, 3])),
        prop::sample::select(vec![
            ("draft", "/patch"),
            ("intake", "/summary"),
            ("draft", "/rationale"),
        ]),
        prop::sample::select(vec!["give_up", "done"]),
        prop::option::of(prop::sample::select(vec![
            "mut.apply_patch",
            "ver.run_target_tests",
            "ctl.authorize_patch",
        ])),
        prop::option::of(prop::sample::select(vec![
            "/result/log",
            "/result/passed",
            "/result/failed",
        ])),
    )
        .prop_map(
            |(fragment, attempts, patch_from, failed_to, dropped_capability, reads_output)| Case {
                fragment,
                attempts,
                patch_from,
                failed_to,
                dropped_capability,
                reads_output,
            },
        )
}

const CAPABILITIES: [&str; 8] = [
    "intake.parse_issue",
    "synth.patch",
    "ctl.authorize_patch",
    "mut.apply_patch",
    "ver.check_workspace_clean",
    "ver.run_target_tests",
    "done.finish_success",
    "done.report_failure",
];

/// The graph that uses the fragment at node 2 (`ship`).
fn graph(case: &Case) -> Value {
    let mut with = serde_json::Map::new();
    if let (Some(a), "land") = (case.attempts, case.fragment) {
        with.insert("attempts".into(), json!(a));
    }
    let mut done = json!({"id": "done", "primitive": "done.finish_success"});
    if let Some(at) = case.reads_output {
        let input = if at == "/result/failed" {
            "test_ids"
        } else {
            "summary"
        };
        done["inputs"] = json!({ input: {"from": "ship", "at": at} });
    }
    json!({
        "graph": "prop", "abi": "1.0.0", "packs": {"shipkit": "^1.0"},
        "capabilities": CAPABILITIES.iter().filter(|c| Some(**c) != case.dropped_capability).collect::<Vec<_>>(),
        "input": {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]},
        "entry": "intake",
        "nodes": [
            {"id": "intake", "primitive": "intake.parse_issue", "inputs": {"text": {"from": "$input", "at": "/issue"}}, "next": "draft", "on_error": {"*": "give_up"}},
            {"id": "draft", "primitive": "synth.patch", "inputs": {"paths": {"from": "intake", "at": "/paths"}}, "next": "ship", "on_error": {"*": "give_up"}},
            {"id": "ship", "fragment": format!("shipkit/{}", case.fragment), "with": with,
             "inputs": {"patch": {"from": case.patch_from.0, "at": case.patch_from.1}, "tests": {"from": "intake", "at": "/test_ids"}},
             "exits": {"landed": "done", "failed": case.failed_to}},
            done,
            {"id": "give_up", "primitive": "done.report_failure", "inputs": {"reason": {"const": "tests_still_failing"}}}
        ]
    })
}

/// The same graph expanded by hand: the written-out reading of SPEC §9.3 for a fragment without
/// nested uses.
fn hand_expanded(case: &Case) -> (Value, usize) {
    let mut g = graph(case);
    let f = fragment(case.fragment);
    let use_node = g["nodes"][2].clone();
    let prefix = |id: &str| format!("ship/{id}");
    let exit = |target: &Value| -> Value {
        match target {
            Value::String(s) => json!(prefix(s)),
            other => use_node["exits"][other["exit"].as_str().unwrap()].clone(),
        }
    };
    let param = |name: &str| -> Value {
        use_node["with"]
            .get(name)
            .cloned()
            .unwrap_or_else(|| f["params"]["properties"][name]["default"].clone())
    };
    let mut expanded = Vec::new();
    for n in f["nodes"].as_array().unwrap() {
        let mut n = n.clone();
        n["id"] = json!(prefix(n["id"].as_str().unwrap()));
        if let Some(Value::Object(inputs)) = n.get_mut("inputs") {
            for b in inputs.values_mut() {
                if b["from"] == "$in" {
                    let at = b["at"].as_str().unwrap();
                    let (port, rest) = at[1..]
                        .split_once('/')
                        .map_or((&at[1..], String::new()), |(p, r)| (p, format!("/{r}")));
                    let bound = &use_node["inputs"][port];
                    *b = json!({"from": bound["from"], "at": format!("{}{rest}", bound["at"].as_str().unwrap())});
                } else if let Some(from) = b.get("from").and_then(Value::as_str) {
                    b["from"] = json!(prefix(from));
                }
            }
        }
        if let Some(next) = n.get("next").cloned() {
            n["next"] = exit(&next);
        }
        for member in ["branches", "on_error"] {
            if let Some(Value::Object(m)) = n.get_mut(member) {
                for t in m.values_mut() {
                    *t = exit(t);
                }
            }
        }
        if let Some(p) = n
            .get("max_visits")
            .and_then(|m| m.get("param"))
            .and_then(Value::as_str)
        {
            n["max_visits"] = param(p);
        }
        expanded.push(n);
    }
    let count = expanded.len();
    let entry = prefix(f["entry"].as_str().unwrap());
    let mut nodes: Vec<Value> = g["nodes"].as_array().unwrap().clone();
    nodes[1]["next"] = json!(entry);
    if let Some(b) = nodes[3].get_mut("inputs").and_then(Value::as_object_mut) {
        for b in b.values_mut() {
            // `/result/X` through the output port `result` = `{"from": "test", "at": ""}`.
            let at = b["at"]
                .as_str()
                .unwrap()
                .trim_start_matches("/result")
                .to_string();
            *b = json!({"from": "ship/test", "at": at});
        }
    }
    nodes.splice(2..3, expanded);
    g["nodes"] = Value::Array(nodes);
    (g, count)
}

/// (file, pointer, code, message, witness) of a diagnostic, the file by base name.
type Found = (String, String, String, String, String);

fn found(d: &primgraph::diagnostic::Diagnostic, file: String, pointer: String) -> Found {
    (
        file,
        pointer,
        d.code.as_str().to_string(),
        d.message.clone(),
        d.witness.as_ref().map(|w| w.describe()).unwrap_or_default(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn validation_through_a_use_equals_validation_of_the_hand_expansion(case in case()) {
        let registry = Registry::builtin();
        let bytes = serde_json::to_vec_pretty(&graph(&case)).unwrap();
        let report = validate::check_source("g.graph.json", &bytes, registry, options());
        let boundary: Vec<_> = report.diagnostics.iter().filter(|d| d.code.as_str().starts_with("P82")).collect();
        let (hand, count) = hand_expanded(&case);
        let hand_bytes = serde_json::to_vec_pretty(&hand).unwrap();
        let hand_report = validate::check_source("h.graph.json", &hand_bytes, registry, options());
        let f_name = format!("{}.fragment.json", case.fragment);
        // Where the hand-expanded pointer was written: the graph or the fragment file.
        let mapped = |pointer: &str| -> (String, String) {
            if let Some(rest) = pointer.strip_prefix("/nodes/") {
                let (k, tail) = rest.split_once('/').map_or((rest, String::new()), |(k, t)| (k, format!("/{t}")));
                let k: usize = k.parse().unwrap();
                if k < 2 { return (String::new(), pointer.to_string()); }
                if k < 2 + count { return (f_name.clone(), format!("/nodes/{}{tail}", k - 2)); }
                return (String::new(), format!("/nodes/{}{tail}", k - count + 1));
            }
            (String::new(), pointer.to_string())
        };
        if boundary.iter().any(|d| d.severity == primgraph::codes::Severity::Error) {
            // The boundary did not hold: the use is refused before expansion, and the hand
            // expansion shows the same problem inside (a port that does not fit: T305 at an
            // expanded binding; a bound of 0: G003 at `max_visits`).
            for d in &boundary {
                match d.code.as_str() {
                    // (A document that does not load runs no rule: only its shape errors.)
                    "P824" if hand_report.diagnostics.iter().all(|h| h.code != "G003") => prop_assert!(hand_report.diagnostics.iter().any(|h| h.code == "T305" && mapped(&h.pointer).0 == f_name), "{:#?}", hand_report.diagnostics),
                    "P822" => prop_assert!(hand_report.diagnostics.iter().any(|h| h.code == "G003" && h.pointer.ends_with("/max_visits")), "{:#?}", hand_report.diagnostics),
                    _ => {}
                }
            }
            return Ok(());
        }
        let mut ours: Vec<Found> = report.diagnostics.iter().map(|d| {
            let file = d.file.as_deref().map(|f| f.rsplit('/').next().unwrap().to_string()).unwrap_or_default();
            found(d, file, d.pointer.clone())
        }).collect();
        let mut theirs: Vec<Found> = hand_report.diagnostics.iter().map(|d| {
            let (file, pointer) = mapped(&d.pointer);
            found(d, file, pointer)
        }).collect();
        ours.sort();
        theirs.sort();
        prop_assert_eq!(ours, theirs);
        // Every finding in the fragment names the use site, last.
        for d in report.diagnostics.iter().filter(|d| d.file.is_some()) {
            let last = d.related.last().expect("the use site");
            prop_assert_eq!(last.file.as_deref(), Some("g.graph.json"));
            prop_assert_eq!(&last.pointer, "/nodes/2");
        }
    }

    #[test]
    fn expansion_is_deterministic_and_idempotent(case in case()) {
        let registry = Registry::builtin();
        let bytes = serde_json::to_vec_pretty(&graph(&case)).unwrap();
        let once = validate::expand_source("g.graph.json", &bytes, registry, options());
        let again = validate::expand_source("g.graph.json", &bytes, registry, options());
        match (once, again) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(&a, &b);
                // The expansion uses no fragment: expanding it again changes nothing.
                let text = serde_json::to_vec_pretty(&a).unwrap();
                let twice = validate::expand_source("e.graph.json", &text, registry, options()).unwrap();
                prop_assert_eq!(&a, &twice);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.diagnostics, b.diagnostics),
            _ => prop_assert!(false, "expansion is deterministic"),
        }
    }

    #[test]
    fn every_node_finding_points_back_at_the_expanded_node_written_there(case in case()) {
        let registry = Registry::builtin();
        let bytes = serde_json::to_vec_pretty(&graph(&case)).unwrap();
        let Ok((parsed, Some(expansion))) =
            validate::expansion_source("g.graph.json", &bytes, registry, options())
        else {
            return Ok(()); // a boundary finding: nothing expanded
        };
        let report = validate::check_source("g.graph.json", &bytes, registry, options());
        let finder = primgraph::pack::fragment_map::NodeFinder::new(&expansion, "g.graph.json", &parsed);
        let frag = fragment(case.fragment);
        let written = graph(&case);
        for d in &report.diagnostics {
            let Some(index) = d
                .pointer
                .strip_prefix("/nodes/")
                .and_then(|r| r.split('/').next())
                .and_then(|k| k.parse::<usize>().ok())
            else {
                continue;
            };
            // The oracle: the ID written at that node, in the file the finding is located in.
            let expected = match &d.file {
                Some(_) => format!("ship/{}", frag["nodes"][index]["id"].as_str().unwrap()),
                None => written["nodes"][index]["id"].as_str().unwrap().to_string(),
            };
            if d.file.is_none() && index == 2 {
                continue; // the use node itself is no expanded node
            }
            let found = finder.node_of(d).map(|k| expansion.ids[k].clone());
            prop_assert_eq!(found, Some(expected), "{:?}", d);
        }
    }

    #[test]
    fn graph_diff_of_a_version_against_itself_is_empty(case in case()) {
        use primgraph::versions::graph_diff::{GraphDiff, Version};
        let registry = Registry::builtin();
        let bytes = serde_json::to_vec_pretty(&graph(&case)).unwrap();
        let Ok((parsed, Some(expansion))) =
            validate::expansion_source("g.graph.json", &bytes, registry, options())
        else {
            return Ok(());
        };
        let doc = primgraph::graph::load(&expansion.value).unwrap();
        let report = validate::check_source("g.graph.json", &bytes, registry, options());
        let version = Version {
            file: "g.graph.json",
            doc: &doc,
            digest: "sha256:0",
            parsed: Some(&parsed),
            diagnostics: &report.diagnostics,
            expansion: Some(&expansion),
        };
        let diff = GraphDiff::new(registry, &version, &version, None);
        prop_assert!(diff.structure.is_empty(), "{:?}", diff.structure);
        prop_assert!(diff.introduced.is_empty() && diff.resolved.is_empty(), "{:?} {:?}", diff.introduced, diff.resolved);
    }

    #[test]
    fn a_graph_without_uses_is_its_own_expansion(nodes in 3usize..60, seed in 0u64..1000) {
        let registry = Registry::builtin();
        let value = primgraph::graph::generate::generate(nodes, seed, registry).unwrap();
        let bytes = serde_json::to_vec_pretty(&value).unwrap();
        let expanded = validate::expand_source("g.graph.json", &bytes, registry, options()).unwrap();
        prop_assert_eq!(&expanded, &value);
        let plain = validate::check_source("g.graph.json", &bytes, registry, &Options::default());
        let with_packs = validate::check_source("g.graph.json", &bytes, registry, options());
        prop_assert_eq!(plain.diagnostics, with_packs.diagnostics);
    }
}
