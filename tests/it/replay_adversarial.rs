//! Issue 10's adversarial traces: every fixture under `tests/fixtures/replay/adversarial/` (made
//! by its `make_fixtures.py` with hashlib and Python's Ed25519, independently of this crate)
//! replays to the verdict, seal status and diagnostics its `NAME.expected.json` names — spend
//! that has no integer nano-USD value, duplicate keys in the header and in payloads, missing
//! `prev`, traces cut at or inside a line, CRLF line endings, and sealed traces edited,
//! re-signed, half-sealed or unsealed under trusted keys. Then the same through the CLI: JSON
//! diagnostics carry `expected`/`actual` (absent keys for absent values), `--trust`, empty
//! folders, and `--max-line-bytes` named in the long-line message.

use primgraph::replay::{Replayer, TrustedKey};
use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::common;
use common::{ADVERSARIAL as DIR, GRAPH, REGISTRY, primgraph, replay, trusting};

fn replayer(trust: &[PathBuf]) -> Replayer<'static> {
    trusting(trust.iter().map(|p| TrustedKey::read(p).unwrap()).collect())
}

fn fixtures() -> Vec<(String, PathBuf, Value)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(DIR).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if let Some(stem) = name.strip_suffix(".expected.json") {
            let expected: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            out.push((
                stem.to_string(),
                Path::new(DIR).join(format!("{stem}.trace.jsonl")),
                expected,
            ));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn every_adversarial_fixture_replays_as_expected() {
    let all = fixtures();
    assert!(all.len() >= 20, "{} fixtures", all.len());
    for (name, trace, expected) in all {
        let trust: Vec<PathBuf> = expected["trust"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| Path::new(DIR).join(k.as_str().unwrap()))
            .collect();
        let bytes = std::fs::read(&trace).unwrap();
        let report = replayer(&trust).replay_slice(&name, &bytes);
        let got: Vec<(String, u32, u64, String)> = report
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.diagnostic.code.to_string(),
                    d.diagnostic.line,
                    d.diagnostic.seq.unwrap(),
                    d.diagnostic.pointer.clone(),
                )
            })
            .collect();
        let want: Vec<(String, u32, u64, String)> = expected["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["line"].as_u64().unwrap() as u32,
                    d["seq"].as_u64().unwrap(),
                    d["pointer"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(got, want, "{name}: {:#?}", report.diagnostics);
        for (d, w) in report
            .diagnostics
            .iter()
            .zip(expected["diagnostics"].as_array().unwrap())
        {
            let phrase = w["contains"].as_str().unwrap();
            assert!(
                d.diagnostic.message.contains(phrase),
                "{name}: `{}` does not say `{phrase}`",
                d.diagnostic.message
            );
        }
        assert_eq!(report.verdict.as_str(), expected["verdict"], "{name}");
        assert_eq!(report.seal.as_str(), expected["seal"], "{name}");
        if let Some(steps) = expected.get("steps") {
            assert_eq!(report.steps, steps.as_u64().unwrap(), "{name}");
        }
        // A diagnostic at the end of the file sits at its length; others at their line's start.
        for d in &report.diagnostics {
            if d.site == "(end of trace)" {
                assert_eq!(d.byte, bytes.len() as u64, "{name}");
            } else {
                let start = bytes
                    .split_inclusive(|&b| b == b'\n')
                    .take(d.diagnostic.line as usize - 1)
                    .map(<[u8]>::len)
                    .sum::<usize>();
                assert_eq!(d.byte, start as u64, "{name}");
            }
        }
    }
}

#[test]
fn a_sealed_run_reports_its_signer_with_and_without_trust() {
    let bytes = std::fs::read(Path::new(DIR).join("sealed.trace.jsonl")).unwrap();
    // The public key file holds exactly the `signer` it verifies.
    let signer = std::fs::read_to_string(Path::new(DIR).join("fixture.key.pub"))
        .unwrap()
        .trim()
        .to_string();
    for trust in [vec![], vec![Path::new(DIR).join("fixture.key.pub")]] {
        let r = replayer(&trust).replay_slice("sealed", &bytes);
        assert_eq!(r.seal.as_str(), "verified");
        assert_eq!(r.signer.as_deref(), Some(signer.as_str()));
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    }
    // Re-signed with another key: without --trust the seal verifies (it is intact as *its*
    // signer sealed it) and names that other signer; --trust is what refuses it.
    let bytes = std::fs::read(Path::new(DIR).join("resigned-other-key.trace.jsonl")).unwrap();
    let r = replayer(&[]).replay_slice("resigned", &bytes);
    assert_eq!(r.seal.as_str(), "verified");
    assert_ne!(r.signer.as_deref(), Some(signer.as_str()));
    assert_eq!(r.verdict.as_str(), "faithful");
}

fn replay_json(extra: &[&str], trace: &str) -> (i32, Value) {
    let mut args = vec![
        "replay",
        "--graph",
        GRAPH,
        "--registry",
        REGISTRY,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    args.push(trace);
    let (code, out, err) = primgraph(&args);
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}")),
    )
}

#[test]
fn cli_trust_and_the_seal_field_in_every_format() {
    let sealed = format!("{DIR}/sealed.trace.jsonl");
    let fixture_pub = format!("{DIR}/fixture.key.pub");
    let other_pub = format!("{DIR}/other.key.pub");
    let (code, doc) = replay_json(&["--trust", &fixture_pub], &sealed);
    assert_eq!(code, 0);
    assert_eq!(doc["runs"][0]["seal"], "verified");
    assert!(
        doc["runs"][0]["signer"]
            .as_str()
            .unwrap()
            .starts_with("ed25519:d75a98")
    );
    let (code, doc) = replay_json(&["--trust", &other_pub], &sealed);
    assert_eq!(code, 1);
    assert_eq!(doc["runs"][0]["seal"], "unverified");
    assert_eq!(doc["runs"][0]["first_divergence"]["code"], "D618");
    // several keys: repeat --trust
    let (code, _) = replay_json(&["--trust", &other_pub, "--trust", &fixture_pub], &sealed);
    assert_eq!(code, 0);
    // jsonl and human carry the seal too
    let (code, out, _) = replay(&["--format", "jsonl", &sealed]);
    assert_eq!(code, 0);
    let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["seal"], "verified");
    let (code, out, _) = replay(&[
        "--trust",
        &fixture_pub,
        &format!("{DIR}/unsealed-under-trust.trace.jsonl"),
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("seal absent"), "{out}");
    assert!(out.contains("error[D618]"), "{out}");
    // a trust file that is not a key: exit 2, naming the file
    let (code, _, err) = replay(&["--trust", &sealed, &sealed]);
    assert_eq!(code, 2);
    assert!(err.contains("sealed.trace.jsonl"), "{err}");
}

#[test]
fn json_diagnostics_carry_expected_and_actual_and_absent_is_not_null() {
    // D616 at the end of the file: something was expected (an end event), nothing is there.
    let (_, doc) = replay_json(&[], &format!("{DIR}/cut-at-line.trace.jsonl"));
    let d = &doc["runs"][0]["diagnostics"][0];
    assert_eq!(d["code"], "D616");
    assert_eq!(d["expected"], "an end event");
    assert!(d.get("actual").is_none(), "{d}");
    // `first_divergence` has SPEC §4.2's four keys: there no value is `null`.
    let f = &doc["runs"][0]["first_divergence"];
    assert_eq!(f["expected"], "an end event");
    assert_eq!(f.get("actual"), Some(&Value::Null), "{f}");
    // D615 without `prev`: the expected hash, and no actual.
    let (_, doc) = replay_json(&[], &format!("{DIR}/no-prev.trace.jsonl"));
    let d = &doc["runs"][0]["diagnostics"][0];
    assert!(d["expected"].as_str().unwrap().starts_with("sha256:"));
    assert!(d.get("actual").is_none(), "{d}");
}

#[test]
fn a_recorded_null_is_a_null_and_a_missing_property_is_absent() {
    let base = std::fs::read_to_string(format!("{DIR}/base.trace.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // `summary` recorded as null on line 4 (seq 3): D605 with actual null; and removed: absent.
    for (name, from, to, actual) in [
        (
            "null",
            r#""summary":"log t"}"#,
            r#""summary":null}"#,
            Some(Value::Null),
        ),
        ("absent", r#","summary":"log t"}"#, "}", None),
    ] {
        let mut lines: Vec<String> = base.lines().map(String::from).collect();
        assert!(lines[3].contains(from));
        lines[3] = lines[3].replacen(from, to, 1);
        let text = rechain(&lines);
        let path = dir.path().join(format!("{name}.trace.jsonl"));
        std::fs::write(&path, text).unwrap();
        let (_, doc) = replay_json(&[], path.to_str().unwrap());
        let d = doc["runs"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == "D605")
            .unwrap_or_else(|| panic!("{name}: {doc}"))
            .clone();
        assert_eq!(d["pointer"], "/input/summary", "{name}");
        assert_eq!(d["expected"], "log t");
        assert_eq!(d.get("actual").cloned(), actual, "{name}: {d}");
        let (_, human, _) = replay(&[path.to_str().unwrap()]);
        let shown = if name == "null" { "null" } else { "(absent)" };
        assert!(
            human.contains(&format!("=   actual: {shown}\n")),
            "{name}: {human}"
        );
    }
}

/// Recompute every `prev` (hex SHA-256 of the previous line) — sha2 here is only the hash
/// function, the chain rule is the spec's.
fn rechain(lines: &[String]) -> String {
    use sha2::{Digest, Sha256};
    let mut out: Vec<String> = vec![lines[0].clone()];
    for line in &lines[1..] {
        let h = Sha256::digest(out.last().unwrap().as_bytes());
        let hex: String = h.iter().map(|b| format!("{b:02x}")).collect();
        let at = line.find(r#""prev":"sha256:"#).unwrap() + r#""prev":"sha256:"#.len();
        out.push(format!("{}{hex}{}", &line[..at], &line[at + 64..]));
    }
    out.join("\n") + "\n"
}

#[test]
fn a_folder_without_traces_is_exit_2_unless_allow_empty() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "no traces here").unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, _, err) = replay(&[d]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("no *.trace.jsonl under {d}")),
        "{err}"
    );
    let (code, out, _) = replay(&["--allow-empty", d]);
    assert_eq!(code, 0);
    assert!(out.contains("summary: 0 runs"), "{out}");
    // One empty folder among good paths still fails: a typo in one CI path must not pass.
    let (code, _, _) = replay(&[&format!("{DIR}/sealed.trace.jsonl"), d]);
    assert_eq!(code, 2);
}

#[test]
fn the_long_line_message_names_the_flag() {
    let (code, doc) = replay_json(
        &["--max-line-bytes", "300"],
        &format!("{DIR}/base.trace.jsonl"),
    );
    assert_eq!(code, 1);
    let d = &doc["runs"][0]["diagnostics"][0];
    assert_eq!(d["code"], "D616");
    assert!(
        d["message"].as_str().unwrap().contains("--max-line-bytes"),
        "{d}"
    );
}
