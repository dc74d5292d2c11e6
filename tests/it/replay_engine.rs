//! End-to-end replay checks on the fixture registry and graph: traces written with
//! `TraceWriter` replay faithful, each D code fires where it should (with its line, byte offset,
//! `seq`, expected and actual), bad input never panics and keeps what came before it, and the
//! JSON report is byte-identical across repeats and thread counts.

use primgraph::registry::Registry;
use primgraph::replay::trace::{Cost, Evidence, StepError};
use primgraph::replay::{
    EndStatus, ReplayGraph, ReplayOptions, Replayer, RunReport, Step, StepResult, TraceWriter,
    Verdict,
};
use serde_json::{Value, json};
use std::sync::OnceLock;

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        Registry::from_slice(
            include_bytes!("../fixtures/replay/registry.json"),
            "fixture",
        )
        .unwrap()
    })
}

fn graph_value() -> Value {
    serde_json::from_slice(include_bytes!("../fixtures/replay/fix.graph.json")).unwrap()
}

fn replayer() -> Replayer<'static> {
    let g = ReplayGraph::from_value(graph_value(), registry()).unwrap();
    Replayer::new(registry(), g, ReplayOptions::default())
}

fn ev(kind: &str) -> Vec<Evidence> {
    vec![Evidence {
        kind: kind.into(),
        digest: format!("sha256:{}", "ab".repeat(32)),
    }]
}

fn out(
    node: &str,
    prim: &str,
    input: Value,
    output: Value,
    outcome: Option<&str>,
    kind: Option<&str>,
) -> Step {
    Step {
        node: node.into(),
        primitive: prim.into(),
        input,
        result: StepResult::Output {
            output,
            outcome: outcome.map(String::from),
        },
        evidence: kind.map(ev).unwrap_or_default(),
        cost: Some(Cost {
            usd: 0.01,
            tokens: 10,
        }),
    }
}

fn err(node: &str, prim: &str, input: Value, mode: &str, kind: Option<&str>) -> Step {
    Step {
        node: node.into(),
        primitive: prim.into(),
        input,
        result: StepResult::Error(StepError {
            mode: mode.into(),
            message: "boom".into(),
        }),
        evidence: kind.map(ev).unwrap_or_default(),
        cost: None,
    }
}

const PATCH: &str = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";

fn grant() -> Value {
    json!({"token": "tok-0123456789abcdef", "scope": "repo"})
}

/// A faithful run: parse, list, draft (errors, falls back), gate allows, apply conflicts and
/// routes back to draft, gate, apply, test fails, decide retries … test passes, done.
/// The policy gate allowing the patch.
fn gate() -> Step {
    out(
        "gate",
        "ctl.authorize_patch",
        json!({"patch": PATCH}),
        json!({"decision": "allow", "grant": grant()}),
        Some("allow"),
        Some("policy_decision"),
    )
}

/// One pass of the loop that succeeds in applying: draft (with `confidence`), gate, apply, and
/// the test's `log`/`passed` output with its `outcome`.
fn attempt(confidence: f64, test: Value, outcome: &str) -> [Step; 4] {
    [
        out(
            "draft",
            "synth.draft_patch",
            json!({"summary": "fix the flaky test", "paths": ["src/x.rs"]}),
            json!({"patch": PATCH, "confidence": confidence}),
            None,
            Some("model_call"),
        ),
        gate(),
        out(
            "apply",
            "mut.apply_patch",
            json!({"patch": PATCH, "grant": grant()}),
            json!({"applied": true}),
            None,
            Some("diff"),
        ),
        out(
            "test",
            "ver.run_target_tests",
            json!({"test_ids": ["t::x"]}),
            test,
            Some(outcome),
            Some("test_log"),
        ),
    ]
}

fn happy_steps() -> Vec<Step> {
    let summary = json!("fix the flaky test");
    vec![
        out(
            "read_task",
            "intake.parse_issue",
            json!({"text": "test_x fails"}),
            json!({"summary": summary, "test_ids": ["t::x"]}),
            None,
            Some("issue_text"),
        ),
        out(
            "ls",
            "LIST_FILES",
            json!({"path": "."}),
            json!({"paths": ["src/x.rs"]}),
            None,
            Some("listing"),
        ),
        err(
            "draft",
            "synth.draft_patch",
            json!({"summary": summary, "paths": ["src/x.rs"]}),
            "timeout",
            Some("model_call"),
        ),
        out(
            "draft",
            "synth.draft_patch_simple",
            json!({"summary": summary}),
            json!({"patch": PATCH, "confidence": 0.5}),
            None,
            Some("model_call"),
        ),
        gate(),
        err(
            "apply",
            "mut.apply_patch",
            json!({"patch": PATCH, "grant": grant()}),
            "patch_conflict",
            Some("diff"),
        ),
    ]
    .into_iter()
    .chain(attempt(
        0.9,
        json!({"passed": false, "log": "1 failed"}),
        "fail",
    ))
    .chain([out(
        "decide",
        "stop.retry_or_stop",
        json!({"log": "1 failed"}),
        json!({"decision": "retry", "rationale": "try again"}),
        Some("retry"),
        None,
    )])
    .chain(attempt(0.95, json!({"passed": true, "log": "ok"}), "pass"))
    .chain([out(
        "done",
        "done.success",
        json!({"summary": summary}),
        json!({}),
        None,
        None,
    )])
    .collect()
}

fn write(steps: &[Step], end: EndStatus) -> Vec<u8> {
    let mut w = TraceWriter::for_graph(
        Vec::new(),
        "r-1",
        &graph_value(),
        json!({"issue": "test_x fails"}),
    )
    .unwrap();
    for s in steps {
        w.step(s).unwrap();
    }
    w.end(end).unwrap();
    w.finish().unwrap()
}

fn replay(bytes: &[u8]) -> RunReport {
    replayer().replay_slice("t.trace.jsonl", bytes)
}

fn codes(r: &RunReport) -> Vec<&str> {
    r.diagnostics
        .iter()
        .map(|d| d.diagnostic.code.as_str())
        .collect()
}

fn lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn join(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

/// Byte offset of line `n` (1-based).
fn offset_of(bytes: &[u8], n: usize) -> u64 {
    let mut line = 1;
    for (i, &b) in bytes.iter().enumerate() {
        if line == n {
            return i as u64;
        }
        if b == b'\n' {
            line += 1;
        }
    }
    bytes.len() as u64
}

/// Re-chain edited lines so only the intended defect remains.
fn rechain(mut lines: Vec<Value>) -> Vec<u8> {
    use primgraph::replay::digest::{format_hash, sha256};
    let mut out = Vec::new();
    let mut prev = None;
    for l in &mut lines {
        if let (Some(h), Some(m)) = (prev, l.as_object_mut())
            && m.contains_key("prev")
        {
            m.insert("prev".into(), Value::from(format_hash(&h)));
        }
        let s = l.to_string();
        prev = Some(sha256(s.as_bytes()));
        out.extend_from_slice(s.as_bytes());
        out.push(b'\n');
    }
    out
}

fn values(bytes: &[u8]) -> Vec<Value> {
    lines(bytes)
        .iter()
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn a_trace_the_writer_wrote_replays_faithful() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let r = replay(&bytes);
    assert_eq!(r.verdict, Verdict::Faithful, "{:#?}", r.diagnostics);
    assert!(r.diagnostics.is_empty());
    assert_eq!(r.steps, 16);
    assert_eq!(r.end, Some(EndStatus::Success));
    assert_eq!(r.run.as_deref(), Some("r-1"));
    assert!(r.first_divergence.is_none());
    assert_eq!(r.stats.visits.get("draft"), Some(&4));
    assert_eq!(
        r.stats.failure_modes["mut.apply_patch"]["patch_conflict"],
        1
    );
    assert_eq!(r.stats.spend_nanos, 14 * 10_000_000);
}

#[test]
fn an_unhandled_error_without_fallback_ends_in_failure_and_that_is_not_d614() {
    let mut steps = happy_steps();
    steps.truncate(3); // draft errors → fallback
    steps.push(err(
        "draft",
        "synth.draft_patch_simple",
        json!({"summary": "fix the flaky test"}),
        "model_refused",
        Some("model_call"),
    ));
    let r = replay(&write(&steps, EndStatus::Failure));
    assert_eq!(r.verdict, Verdict::Faithful, "{:#?}", r.diagnostics);
    let r = replay(&write(&steps, EndStatus::Success));
    assert_eq!(codes(&r), ["D614"]);
    assert_eq!(r.first_divergence.as_ref().unwrap().seq, 5);
}

#[test]
fn divergence_names_seq_expected_and_actual() {
    let mut steps = happy_steps();
    steps[9] = out(
        "test",
        "ver.run_target_tests",
        json!({"test_ids": ["t::x"]}),
        json!({"passed": false, "log": "1 failed"}),
        Some("fail"),
        Some("test_log"),
    );
    steps[10].node = "done".into(); // the graph selects `decide`
    let r = replay(&write(&steps[..11], EndStatus::Success));
    let f = r.first_divergence.clone().unwrap();
    assert_eq!((f.seq, f.code.as_str()), (11, "D603"));
    assert_eq!(f.expected, Some(json!("decide")));
    assert_eq!(f.actual, Some(json!("done")));
    assert_eq!(r.verdict, Verdict::Diverged);
    let d = &r.diagnostics[0];
    assert_eq!(d.diagnostic.line, 12);
    assert_eq!(d.diagnostic.pointer, "/node");
}

#[test]
fn an_input_that_is_not_the_recomputed_one_names_the_pointer() {
    let mut steps = happy_steps();
    steps[4].input = json!({"patch": "rm -rf /"});
    let r = replay(&write(&steps, EndStatus::Success));
    let f = r.first_divergence.clone().unwrap();
    assert_eq!((f.seq, f.code.as_str()), (5, "D605"));
    assert_eq!(f.pointer, "/input/patch");
    assert_eq!(f.expected, Some(json!(PATCH)));
    assert_eq!(f.actual, Some(json!("rm -rf /")));
    assert_eq!(r.verdict, Verdict::Violated);
}

#[test]
fn a_binding_from_an_errored_node_is_left_out() {
    // After `apply` errored, nothing binds to it; `draft` keeps reading `ls`. Here: `ls` errors
    // and routes to give_up; give_up binds nothing. A recorded value for an errored source is D605.
    let mut steps = happy_steps();
    steps.truncate(3);
    steps[2] = out(
        "draft",
        "synth.draft_patch",
        json!({"summary": "fix the flaky test", "paths": ["src/x.rs"]}),
        json!({"patch": PATCH, "confidence": 0.5}),
        None,
        Some("model_call"),
    );
    steps[1] = err(
        "ls",
        "LIST_FILES",
        json!({"path": "."}),
        "io",
        Some("listing"),
    );
    let r = replay(&write(&steps, EndStatus::Failure));
    // `io` is undeclared (D609) and unhandled: no fallback → the run must end.
    assert_eq!(codes(&r)[0], "D609");
    assert!(codes(&r).contains(&"D603"));
}

#[test]
fn contract_checks_fire() {
    let mut steps = happy_steps();
    steps[1].evidence.clear(); // D608 at seq 2
    steps[3] = out(
        "draft",
        "synth.draft_patch_simple",
        json!({"summary": "fix the flaky test"}),
        json!({"patch": PATCH, "confidence": 1.7}),
        None,
        Some("model_call"),
    ); // D607 at seq 4
    steps[9] = out(
        "test",
        "ver.run_target_tests",
        json!({"test_ids": ["t::x"]}),
        json!({"passed": false, "log": "1 failed"}),
        Some("flaky"),
        Some("test_log"),
    ); // D610 at 10
    let r = replay(&write(&steps, EndStatus::Success));
    let got: Vec<(&str, u64)> = r
        .diagnostics
        .iter()
        .map(|d| (d.diagnostic.code.as_str(), d.diagnostic.seq.unwrap()))
        .collect();
    assert_eq!(got[0], ("D608", 2));
    assert_eq!(got[1], ("D607", 4));
    assert_eq!(r.diagnostics[1].diagnostic.pointer, "/output/confidence");
    assert!(got.contains(&("D610", 10)));
}

#[test]
fn wrong_primitive_and_undeclared_failure_mode() {
    let mut steps = happy_steps();
    steps[1].primitive = "intake.parse_issue".into();
    steps[5] = err(
        "apply",
        "mut.apply_patch",
        json!({"patch": PATCH, "grant": grant()}),
        "disk_full",
        Some("diff"),
    );
    let r = replay(&write(&steps[..6], EndStatus::Failure));
    let f = r.first_divergence.clone().unwrap();
    assert_eq!((f.code.as_str(), f.seq), ("D604", 2));
    assert_eq!(f.expected, Some(json!("obs.list_files")));
    assert!(codes(&r).contains(&"D609"));
}

#[test]
fn apply_without_a_grant_is_d613_and_one_grant_covers_reentries() {
    // A graph where `apply` is also reachable without the gate (invalid under A402, replayed
    // as it stands): ls → apply directly.
    let mut g = graph_value();
    g["nodes"][1]["next"] = json!("apply");
    g["nodes"][4]["inputs"]["grant"] = json!({"const": grant()});
    let graph = ReplayGraph::from_value(g.clone(), registry()).unwrap();
    let rp = Replayer::new(registry(), graph, ReplayOptions::default());
    let steps = vec![
        happy_steps()[0].clone(),
        happy_steps()[1].clone(),
        out(
            "apply",
            "mut.apply_patch",
            json!({"grant": grant()}),
            json!({"applied": true}),
            None,
            Some("diff"),
        ),
    ];
    let mut w =
        TraceWriter::for_graph(Vec::new(), "r-2", &g, json!({"issue": "test_x fails"})).unwrap();
    for s in &steps {
        w.step(s).unwrap();
    }
    w.end(EndStatus::Failure).unwrap();
    let r = rp.replay_slice("t", &w.finish().unwrap());
    // patch is absent (draft never ran): D606 (required) first, then D613.
    assert!(codes(&r).contains(&"D613"), "{:?}", codes(&r));
    // The happy run re-enters apply after one grant: no D613.
    assert!(!codes(&replay(&write(&happy_steps(), EndStatus::Success))).contains(&"D613"));
}

#[test]
fn visits_and_budget() {
    let mut g = graph_value();
    g["nodes"][2]["max_visits"] = json!(2);
    g["budget"] = json!({"max_steps": 10, "max_spend_usd": 0.1});
    let graph = ReplayGraph::from_value(g.clone(), registry()).unwrap();
    let rp = Replayer::new(registry(), graph, ReplayOptions::default());
    let mut w =
        TraceWriter::for_graph(Vec::new(), "r-3", &g, json!({"issue": "test_x fails"})).unwrap();
    for s in &happy_steps() {
        w.step(s).unwrap();
    }
    w.end(EndStatus::Success).unwrap();
    let r = rp.replay_slice("t", &w.finish().unwrap());
    let got: Vec<(&str, u64)> = r
        .diagnostics
        .iter()
        .map(|d| (d.diagnostic.code.as_str(), d.diagnostic.seq.unwrap()))
        .collect();
    // draft's third visit is seq 7 (the fallback re-run counts as a visit).
    assert_eq!(got[0], ("D611", 7));
    assert!(got.contains(&("D612", 11)), "{got:?}"); // step 11 > 10; spend 0.11 > 0.1 at 11 too
    assert_eq!(got.iter().filter(|c| c.0 == "D612").count(), 2);
    assert_eq!(r.verdict, Verdict::Violated);
}

#[test]
fn what_if_replay_warns_and_goes_on() {
    let mut g = graph_value();
    g["description"] = json!("edited");
    let graph = ReplayGraph::from_value(g, registry()).unwrap();
    let rp = Replayer::new(registry(), graph, ReplayOptions::default());
    let r = rp.replay_slice("t", &write(&happy_steps(), EndStatus::Success));
    assert_eq!(codes(&r), ["D602"]);
    assert_eq!(r.verdict, Verdict::Faithful);
    assert_eq!(r.steps, 16);
}

// ---- bad input -------------------------------------------------------------------------------

fn only(r: &RunReport, code: &str) -> (u32, u64, Option<u64>) {
    let d = r
        .diagnostics
        .iter()
        .find(|d| d.diagnostic.code == code)
        .unwrap_or_else(|| panic!("no {code}: {:?}", codes(r)));
    (d.diagnostic.line, d.byte, d.diagnostic.seq)
}

#[test]
fn an_empty_file_is_d601() {
    let r = replay(b"");
    assert_eq!(codes(&r), ["D601"]);
    assert_eq!(only(&r, "D601"), (1, 0, Some(0)));
    assert_eq!(r.verdict, Verdict::Malformed);
}

#[test]
fn no_header_is_d601() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let l = lines(&bytes);
    let r = replay(&join(&l[1..]));
    assert_eq!(codes(&r), ["D601"]);
    assert_eq!(r.diagnostics[0].diagnostic.pointer, "/seq");
}

#[test]
fn a_header_of_another_graph_is_d601() {
    let mut v = values(&write(&happy_steps(), EndStatus::Success));
    v[0]["graph"] = json!("triage-inbox");
    let r = replay(&rechain(v));
    assert_eq!(codes(&r), ["D601"]);
    assert_eq!(r.diagnostics[0].expected, Some(json!("fix-failing-test")));
    assert_eq!(r.diagnostics[0].actual, Some(json!("triage-inbox")));
}

#[test]
fn a_header_with_a_malformed_digest_or_a_field_missing_is_d601() {
    let mut v = values(&write(&happy_steps(), EndStatus::Success));
    v[0]["graph_digest"] = json!("md5:abc");
    let r = replay(&rechain(v.clone()));
    assert_eq!(codes(&r), ["D601"]);
    assert_eq!(r.diagnostics[0].diagnostic.pointer, "/graph_digest");
    v[0].as_object_mut().unwrap().remove("run");
    let r = replay(&rechain(v));
    assert_eq!(codes(&r), ["D601"]);
    assert!(r.diagnostics[0].diagnostic.message.contains("run"));
    assert_eq!(r.run, None);
}

#[test]
fn invalid_json_mid_file_keeps_what_came_before() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let mut l = lines(&bytes);
    l[5] = b"{\"seq\":5,\"node\":".to_vec();
    let bytes = join(&l);
    let r = replay(&bytes);
    assert_eq!(codes(&r), ["D616"]);
    assert_eq!(only(&r, "D616"), (6, offset_of(&bytes, 6), Some(5)));
    assert_eq!(r.steps, 4);
    assert_eq!(r.stats.visits.get("draft"), Some(&2));
    assert_eq!(r.verdict, Verdict::Malformed);
}

#[test]
fn invalid_utf8_is_d616_with_its_offset() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let mut l = lines(&bytes);
    let at = l[3].iter().position(|&b| b == b'f').unwrap();
    l[3][at] = 0xff;
    let bytes = join(&l);
    let r = replay(&bytes);
    assert_eq!(codes(&r), ["D616"]);
    assert_eq!(only(&r, "D616").0, 4);
    assert_eq!(only(&r, "D616").1, offset_of(&bytes, 4));
    assert!(r.diagnostics[0].diagnostic.message.contains("UTF-8"));
}

#[test]
fn a_truncated_last_line_is_d616() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let cut = &bytes[..bytes.len() - 20];
    let r = replay(cut);
    assert_eq!(codes(&r), ["D616"]);
    assert!(
        r.diagnostics[0]
            .diagnostic
            .message
            .contains("cut inside line 18"),
        "{}",
        r.diagnostics[0].diagnostic.message
    );
    assert_eq!(r.steps, 16);
    assert_eq!(only(&r, "D616"), (18, offset_of(cut, 18), Some(17)));
}

#[test]
fn a_20_mb_line_is_d616_and_is_not_kept() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let mut l = lines(&bytes);
    let mut big = b"{\"seq\":3,\"node\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'x', 20 * 1024 * 1024));
    big.extend_from_slice(b"\"}");
    l[3] = big;
    let bytes = join(&l);
    let r = replay(&bytes);
    assert_eq!(codes(&r), ["D616"]);
    assert_eq!(only(&r, "D616"), (4, offset_of(&bytes, 4), Some(3)));
    assert!(
        r.diagnostics[0]
            .diagnostic
            .message
            .contains("over the limit")
    );
    assert_eq!(r.steps, 2);
}

#[test]
fn a_seq_gap_is_d617() {
    let mut v = values(&write(&happy_steps(), EndStatus::Success));
    for e in v.iter_mut().skip(7) {
        let s = e["seq"].as_u64().unwrap();
        e["seq"] = json!(s + 1);
    }
    let bytes = rechain(v);
    let r = replay(&bytes);
    assert_eq!(codes(&r), ["D617"]);
    assert_eq!(only(&r, "D617"), (8, offset_of(&bytes, 8), Some(8)));
    assert_eq!(r.diagnostics[0].expected, Some(json!(7)));
    assert_eq!(r.steps, 6);
}

#[test]
fn an_edited_line_breaks_the_chain() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let text = String::from_utf8(bytes).unwrap();
    let edited = text.replacen("\"confidence\":0.9", "\"confidence\":0.8", 1);
    assert_ne!(text, edited);
    let r = replay(edited.as_bytes());
    assert_eq!(codes(&r), ["D615"]);
    // The edit is on line 8 (seq 7); line 9's prev no longer matches.
    assert_eq!(
        only(&r, "D615"),
        (9, offset_of(edited.as_bytes(), 9), Some(8))
    );
    assert_eq!(r.verdict, Verdict::Malformed);
}

#[test]
fn a_dropped_line_breaks_chain_and_seq() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let mut l = lines(&bytes);
    l.remove(4);
    let r = replay(&join(&l));
    assert_eq!(codes(&r), ["D615", "D617"]);
}

#[test]
fn events_after_the_end_are_d614() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let mut l = lines(&bytes);
    l.push(l[2].clone());
    let bytes = join(&l);
    let r = replay(&bytes);
    assert_eq!(codes(&r), ["D614"]);
    assert_eq!(only(&r, "D614"), (19, offset_of(&bytes, 19), Some(18)));
    assert_eq!(r.end, Some(EndStatus::Success));

    // Anything after the end event is "events after the end" (SPEC §5), a line that does not
    // parse and a blank line included: the run was read whole, so it is D614, not malformed.
    let mut broken = lines(&write(&happy_steps(), EndStatus::Success));
    broken.push(b"garbage".to_vec());
    let r = replay(&join(&broken));
    assert_eq!(codes(&r), ["D614"], "{:#?}", r.diagnostics);
    assert_eq!(r.verdict, Verdict::Violated);
    let mut blank = lines(&write(&happy_steps(), EndStatus::Success));
    blank.push(Vec::new());
    let r = replay(&join(&blank));
    assert_eq!(codes(&r), ["D614"], "{:#?}", r.diagnostics);
}

#[test]
fn a_trace_without_an_end_is_d616_at_the_end_of_the_file() {
    let bytes = write(&happy_steps(), EndStatus::Success);
    let l = lines(&bytes);
    let cut = join(&l[..l.len() - 1]);
    let r = replay(&cut);
    assert_eq!(codes(&r), ["D616"]);
    assert_eq!(r.verdict, Verdict::Malformed);
    assert_eq!(r.end, None);
    assert_eq!(r.steps, 16);
    // At the end of the file: the line after the last, at the file's length.
    assert_eq!(only(&r, "D616"), (18, cut.len() as u64, Some(17)));
}

#[test]
fn garbage_never_panics() {
    let rp = replayer();
    let good = write(&happy_steps(), EndStatus::Success);
    assert_eq!(rp.replay_slice("t", &good).verdict, Verdict::Faithful);
    for cut in (0..good.len()).step_by(97) {
        // One flipped byte anywhere breaks the chain, a line or the end: never faithful.
        let mut b = good.clone();
        b[cut] ^= 0x5a;
        let flipped = rp.replay_slice("t", &b);
        assert_ne!(flipped.verdict, Verdict::Faithful, "byte {cut} flipped");
        // A proper prefix has no end event: never faithful either.
        let cut_short = rp.replay_slice("t", &good[..cut]);
        assert_ne!(cut_short.verdict, Verdict::Faithful, "cut at {cut}");
    }
    for junk in [
        &b"\n\n\n"[..],
        b"{}",
        b"[1,2]\n{\"seq\":1}",
        b"\xef\xbb\xbf{}",
        b"null\nnull",
    ] {
        let r = rp.replay_slice("t", junk);
        assert_eq!(r.verdict, Verdict::Malformed);
    }
}

#[test]
fn replay_bytes_refuses_a_graph_that_does_not_load() {
    let bad =
        br#"{"graph":"x","abi":"1.0.0","capabilities":["no.*"],"entry":"a","nodes":[{"id":"a","primitive":"no.such"}]}"#;
    let e = primgraph::replay::replay_bytes(registry(), bad, b"").unwrap_err();
    assert!(e.to_string().contains("R101"), "{e}");
    let e = primgraph::replay::replay_bytes(registry(), b"{", b"").unwrap_err();
    assert!(e.to_string().contains("G001"), "{e}");
    let dup =
        br#"{"graph":"x","graph":"y","abi":"1.0.0","capabilities":[],"entry":"a","nodes":[]}"#;
    let e = primgraph::replay::replay_bytes(registry(), dup, b"").unwrap_err();
    assert!(e.to_string().contains("G002"), "{e}");
    let graph = serde_json::to_vec(&graph_value()).unwrap();
    let r = primgraph::replay::replay_bytes(
        registry(),
        &graph,
        &write(&happy_steps(), EndStatus::Success),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Faithful);
}

#[test]
fn writer_refuses_events_that_break_the_format() {
    use primgraph::replay::WriteError;
    let mut w = TraceWriter::for_graph(Vec::new(), "r", &graph_value(), json!({})).unwrap();
    let mut s = happy_steps()[0].clone();
    s.input = json!([1]);
    assert!(matches!(
        w.step(&s),
        Err(WriteError::NotAnObject { field: "input" })
    ));
    let mut s = happy_steps()[0].clone();
    s.cost = Some(Cost {
        usd: f64::NAN,
        tokens: 0,
    });
    assert!(matches!(w.step(&s), Err(WriteError::BadCost(_))));
    let mut s = happy_steps()[0].clone();
    s.node.clear();
    assert!(matches!(
        w.step(&s),
        Err(WriteError::Empty { field: "node" })
    ));
    assert_eq!(w.step(&happy_steps()[0]).unwrap(), 1);
    w.end(EndStatus::Success).unwrap();
    assert!(matches!(
        w.step(&happy_steps()[1]),
        Err(WriteError::AfterEnd)
    ));
    assert!(matches!(
        w.end(EndStatus::Success),
        Err(WriteError::AfterEnd)
    ));
    assert!(TraceWriter::for_graph(Vec::new(), "r", &graph_value(), json!(1)).is_err());
}

#[test]
fn the_json_report_has_the_spec_shape() {
    let mut steps = happy_steps();
    steps[4].input = json!({"patch": "rm -rf /"});
    let r = replay(&write(&steps, EndStatus::Success));
    let j = r.to_json();
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "run",
            "trace",
            "verdict",
            "end",
            "steps",
            "seal",
            "signer",
            "first_divergence",
            "diagnostics",
            "task"
        ]
    );
    assert_eq!(j["seal"], "absent");
    assert_eq!(j["signer"], Value::Null);
    // The task key is sha256: of the RFC 8785 form of the header input.
    let header: serde_json::Value = serde_json::from_slice(
        write(&steps, EndStatus::Success)
            .split(|&b| b == b'\n')
            .next()
            .unwrap(),
    )
    .unwrap();
    let canonical = serde_jcs::to_vec(&header["input"]).unwrap();
    assert_eq!(
        j["task"],
        primgraph::replay::digest::format_hash(&primgraph::replay::digest::sha256(&canonical))
    );
    assert!(j["task"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(j["first_divergence"]["code"], "D605");
    assert_eq!(j["first_divergence"]["seq"], 5);
    let d = &j["diagnostics"][0];
    assert_eq!(d["seq"], 5);
    assert_eq!(d["line"], 6);
    assert!(d["byte"].as_u64().unwrap() > 0);
    assert_eq!(d["severity"], "error");
}
