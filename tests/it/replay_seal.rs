//! Sealed traces (SPEC §4.1): under trusted keys, flipping any single byte of a sealed trace —
//! the end line included — is detected (a property over byte positions and flips, and a sweep
//! of every position); a run re-chained and re-signed with another key fails under trust; an
//! unsealed run under trust is D618. And the way a user meets it: `keygen` (mode 0600, no
//! overwrite without `--force`), `simulate --sign`, `replay --trust`, `TraceWriter::sealed`.

use primgraph::replay::{
    EndStatus, Replayer, SealKey, SealStatus, TraceWriter, TrustedKey, Verdict,
};
use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

use crate::common;
use common::{ADVERSARIAL as DIR, GRAPH, primgraph, replay, simulate, trusting};

fn fixture_key() -> SealKey {
    SealKey::read(&Path::new(DIR).join("fixture.key")).unwrap()
}

/// One replayer trusting the fixture key, shared by the property's cases.
fn trusted() -> &'static Replayer<'static> {
    static R: OnceLock<Replayer<'static>> = OnceLock::new();
    R.get_or_init(|| {
        trusting(vec![
            TrustedKey::read(&Path::new(DIR).join("fixture.key.pub")).unwrap(),
        ])
    })
}

fn sealed() -> &'static [u8] {
    static B: OnceLock<Vec<u8>> = OnceLock::new();
    B.get_or_init(|| std::fs::read(Path::new(DIR).join("sealed.trace.jsonl")).unwrap())
}

fn detected(bytes: &[u8]) -> bool {
    let r = trusted().replay_slice("t", bytes);
    r.verdict != Verdict::Faithful && r.diagnostics.iter().any(|d| d.diagnostic.code != "D602")
}

#[test]
fn the_sealed_fixture_is_faithful_and_verified_under_trust() {
    let r = trusted().replay_slice("sealed", sealed());
    assert_eq!(r.verdict, Verdict::Faithful, "{:?}", r.diagnostics);
    assert_eq!(r.seal, SealStatus::Verified);
    assert_eq!(r.signer, Some(fixture_key().signer()));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn flipping_any_byte_of_a_sealed_trace_is_detected(at in any::<prop::sample::Index>(), mask in 1u8..=255) {
        let mut bytes = sealed().to_vec();
        let i = at.index(bytes.len());
        bytes[i] ^= mask;
        // The last newline is optional (JSON Lines): whitespace in its place says the same run.
        prop_assume!(i + 1 < bytes.len() || !b" \t\r\n".contains(&bytes[i]));
        prop_assert!(detected(&bytes), "flip {mask:#04x} at byte {i} went unnoticed");
    }
}

/// Every byte of the end line (and its newline, but for a flip into whitespace) with the flips
/// most likely to slip through:
/// case (`0x20`: hex digits), low bit, all bits, and into JSON whitespace.
#[test]
fn every_byte_of_the_end_line_is_covered() {
    let bytes = sealed();
    let start = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let mut tried = 0;
    for i in start..bytes.len() {
        let original = bytes[i];
        let mut targets: Vec<u8> = [0x01, 0x20, 0xff].iter().map(|m| original ^ m).collect();
        targets.extend_from_slice(b" \t\r\n0aA");
        for to in targets {
            // The last newline is optional (JSON Lines) and JSON whitespace after the end
            // event is no part of what the run says: that flip changes nothing to detect.
            let last_newline = i == bytes.len() - 1 && b" \t\r\n".contains(&to);
            if to == original || last_newline {
                continue;
            }
            let mut b = bytes.to_vec();
            b[i] = to;
            tried += 1;
            assert!(
                detected(&b),
                "byte {i} ({:?}) changed to {:?} went unnoticed",
                original as char,
                to as char
            );
        }
    }
    assert!(tried > 1000, "{tried}");
}

/// One flip at every position of the whole trace (the flip varies with the position).
#[test]
fn one_flip_at_every_position_is_detected() {
    let bytes = sealed();
    for i in 0..bytes.len() {
        let mut b = bytes.to_vec();
        b[i] ^= 1 << (i % 8);
        assert!(detected(&b), "flip at byte {i} went unnoticed");
    }
}

fn graph_value() -> Value {
    serde_json::from_slice(&std::fs::read(GRAPH).unwrap()).unwrap()
}

/// The base run re-recorded through `TraceWriter` (sealed or not), from its lines.
fn record(key: Option<SealKey>, edit: &dyn Fn(&mut Value)) -> Vec<u8> {
    use primgraph::replay::trace::{Cost, Evidence};
    use primgraph::replay::{Step, StepResult};
    let base = std::fs::read_to_string(Path::new(DIR).join("base.trace.jsonl")).unwrap();
    let lines: Vec<Value> = base
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut w = TraceWriter::for_graph(
        Vec::new(),
        lines[0]["run"].as_str().unwrap(),
        &graph_value(),
        lines[0]["input"].clone(),
    )
    .unwrap();
    if let Some(k) = key {
        w = w.sealed(k);
    }
    for line in &lines[1..lines.len() - 1] {
        let mut l = line.clone();
        edit(&mut l);
        let evidence: Vec<Evidence> = serde_json::from_value(l["evidence"].clone()).unwrap();
        let cost: Cost = serde_json::from_value(l["cost"].clone()).unwrap();
        w.step(&Step {
            node: l["node"].as_str().unwrap().into(),
            primitive: l["primitive"].as_str().unwrap().into(),
            input: l["input"].clone(),
            result: StepResult::Output {
                output: l["output"].clone(),
                outcome: l["outcome"].as_str().map(String::from),
            },
            evidence,
            cost: Some(cost),
        })
        .unwrap();
    }
    w.end(EndStatus::Success).unwrap();
    w.finish().unwrap()
}

#[test]
fn the_writer_seals_as_the_spec_says_and_replay_agrees() {
    let key = fixture_key();
    let bytes = record(Some(key.clone()), &|_| {});
    // The writer's seal is byte-identical to the one Python's Ed25519 made for the fixture
    // (Ed25519 signatures are deterministic).
    assert_eq!(bytes, sealed());
    let r = trusted().replay_slice("t", &bytes);
    assert_eq!(
        (r.verdict, r.seal),
        (Verdict::Faithful, SealStatus::Verified)
    );
}

#[test]
fn a_run_rechained_and_resigned_with_another_key_fails_under_trust() {
    // An edited run recorded afresh (so the chain is whole) and sealed with an attacker's key.
    let attacker = SealKey::generate();
    let forged = record(Some(attacker.clone()), &|l| {
        if l["node"] == "test" {
            l["output"]["log"] = Value::from("all good");
        }
    });
    let open = trusting(Vec::new()).replay_slice("t", &forged);
    assert_eq!(open.seal, SealStatus::Verified, "{:?}", open.diagnostics);
    assert_eq!(open.signer, Some(attacker.signer()));
    let r = trusted().replay_slice("t", &forged);
    assert_eq!(r.verdict, Verdict::Malformed);
    assert_eq!(r.seal, SealStatus::Unverified);
    let f = r.first_divergence.unwrap();
    assert_eq!((f.code.as_str(), f.pointer.as_str()), ("D618", "/signer"));
    // Trusting the attacker too (several keys) accepts it: trust is the list given.
    let both = trusting(vec![
        TrustedKey::read(&Path::new(DIR).join("fixture.key.pub")).unwrap(),
        attacker.trusted_key(),
    ]);
    assert_eq!(both.replay_slice("t", &forged).verdict, Verdict::Faithful);
}

#[test]
fn an_unsealed_run_under_trust_is_d618_and_without_trust_is_fine() {
    let bytes = record(None, &|_| {});
    let r = trusted().replay_slice("t", &bytes);
    assert_eq!(r.seal, SealStatus::Absent);
    assert_eq!(r.verdict, Verdict::Malformed);
    assert_eq!(r.first_divergence.unwrap().code, "D618");
    let r = trusting(Vec::new()).replay_slice("t", &bytes);
    assert_eq!((r.verdict, r.seal), (Verdict::Faithful, SealStatus::Absent));
}

#[test]
fn keygen_writes_a_private_key_only_its_owner_reads_and_never_overwrites_silently() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("seal.key");
    let k = key.to_str().unwrap();
    let (code, _, err) = primgraph(&["keygen", "--out", k]);
    assert_eq!(code, 0, "{err}");
    let public = dir.path().join("seal.key.pub");
    let secret = SealKey::read(&key).unwrap();
    assert_eq!(
        TrustedKey::read(&public).unwrap().public_hex(),
        secret.public_hex()
    );
    assert!(err.contains(&secret.signer()), "{err}");
    // The public file says what keygen printed (`ed25519:<hex>`), and a bare-hex file as older
    // releases wrote it still reads as the same key.
    let printed = std::fs::read_to_string(&public).unwrap();
    assert_eq!(printed, format!("{}\n", secret.signer()));
    let old_style = dir.path().join("old.key.pub");
    std::fs::write(&old_style, format!("{}\n", secret.public_hex())).unwrap();
    assert_eq!(
        TrustedKey::read(&old_style).unwrap().public_hex(),
        secret.public_hex()
    );
    let text = std::fs::read_to_string(&key).unwrap();
    assert!(text.starts_with("ed25519-private:"), "{text}");
    assert_eq!(text.len(), "ed25519-private:".len() + 65);
    assert_eq!(
        std::fs::read_to_string(&public).unwrap(),
        format!("{}\n", secret.signer()),
        "the public file holds what keygen prints"
    );
    assert!(text.ends_with('\n'));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // again: refused, nothing changed
    let (code, _, err) = primgraph(&["keygen", "--out", k]);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&key).unwrap(), text);
    // a leftover .pub alone is refused too
    let lone = dir.path().join("lone.key");
    std::fs::write(dir.path().join("lone.key.pub"), "x").unwrap();
    assert_eq!(primgraph(&["keygen", "--out", lone.to_str().unwrap()]).0, 2);
    assert!(!lone.exists());
    // --force replaces both, still 0600 even over a world-readable file
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let (code, _, _) = primgraph(&["keygen", "--out", k, "--force"]);
    assert_eq!(code, 0);
    assert_ne!(std::fs::read_to_string(&key).unwrap(), text);
    assert_eq!(
        TrustedKey::read(&public).unwrap().public_hex(),
        SealKey::read(&key).unwrap().public_hex()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // unreadable key files are exit 2, naming the file
    let (code, _, err) = simulate(&[
        "--out",
        dir.path().join("o").to_str().unwrap(),
        "--sign",
        "no/such.key",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such.key"), "{err}");
}

#[test]
fn simulate_sign_then_replay_trust() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k");
    assert_eq!(primgraph(&["keygen", "--out", key.to_str().unwrap()]).0, 0);
    let pubk = dir.path().join("k.pub");
    let other = dir.path().join("other");
    assert_eq!(
        primgraph(&["keygen", "--out", other.to_str().unwrap()]).0,
        0
    );
    let runs = dir.path().join("runs");
    let faulty = dir.path().join("faulty");
    for (out, faults) in [(&runs, "0"), (&faulty, "1")] {
        let (code, _, err) = simulate(&[
            "--runs",
            "12",
            "--seed",
            "4",
            "--faults",
            faults,
            "--sign",
            key.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let replay = |trust: &Path, dir: &Path| {
        let (code, out, err) = replay(&[
            "--format",
            "json",
            "--trust",
            trust.to_str().unwrap(),
            dir.to_str().unwrap(),
        ]);
        let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        (code, doc)
    };
    let (code, doc) = replay(&pubk, &runs);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["summary"]["by_seal"]["verified"], 12);
    let (code, doc) = replay(&dir.path().join("other.pub"), &runs);
    assert_eq!(code, 1);
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["first_divergence"]["code"], "D618");
        assert_eq!(run["seal"], "unverified");
    }
    // Seeded defects are sealed too: each run's one defect is its first divergence, no D618.
    let (_, doc) = replay(&pubk, &faulty);
    let mut checked = 0;
    for run in doc["runs"].as_array().unwrap() {
        let trace = run["trace"].as_str().unwrap();
        let sidecar = trace.replace(".trace.jsonl", ".expected.json");
        let Ok(text) = std::fs::read(&sidecar) else {
            continue;
        };
        let expected: Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(run["first_divergence"]["code"], expected["code"], "{trace}");
        let codes: Vec<&str> = run["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        assert!(!codes.contains(&"D618"), "{trace}: {codes:?}");
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}

/// Issue 21 item 6: a public key file handed to `--sign` sealed with a key nobody holds, and a
/// private key file handed to `--trust` was trusted for about half of all keys. Each is refused
/// in the other's place, saying which is which; unmarked (legacy) files go by their name.
#[test]
fn key_files_are_refused_in_each_others_place() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k");
    assert_eq!(primgraph(&["keygen", "--out", key.to_str().unwrap()]).0, 0);
    let public = dir.path().join("k.pub");
    let (code, _, err) = simulate(&[
        "--runs",
        "1",
        "--out",
        dir.path().join("o").to_str().unwrap(),
        "--sign",
        public.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("public key") && err.contains("k.pub"), "{err}");
    assert!(
        !dir.path().join("o").exists()
            || std::fs::read_dir(dir.path().join("o"))
                .unwrap()
                .next()
                .is_none()
    );
    let trace = "tests/fixtures/replay/faithful.trace.jsonl";
    let (code, _, err) = replay(&["--trust", key.to_str().unwrap(), trace]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("private key"), "{err}");
    // The library says the same.
    assert!(SealKey::read(&public).is_err());
    assert!(TrustedKey::read(&key).is_err());
    // Unmarked files (as keygen wrote them before the marks): the name decides.
    let seed = std::fs::read_to_string(&key).unwrap();
    let bare_seed = seed
        .trim()
        .trim_start_matches("ed25519-private:")
        .to_string();
    let signer = SealKey::read(&key).unwrap().public_hex();
    let legacy = dir.path().join("legacy");
    std::fs::write(&legacy, format!("{bare_seed}\n")).unwrap();
    let legacy_pub = dir.path().join("legacy.pub");
    std::fs::write(&legacy_pub, format!("{signer}\n")).unwrap();
    assert_eq!(SealKey::read(&legacy).unwrap().public_hex(), signer);
    assert_eq!(TrustedKey::read(&legacy_pub).unwrap().public_hex(), signer);
    let err = TrustedKey::read(&legacy).unwrap_err().to_string();
    assert!(err.contains("private key"), "{err}");
    let err = SealKey::read(&legacy_pub).unwrap_err().to_string();
    assert!(err.contains("public key"), "{err}");
}

/// Issue 21 item 8: the seal covers the end event's values, not its bytes. A re-spelling that
/// says the same (keys reordered, other escapes) still verifies; one that says more — any field
/// beyond `seq`, `end`, `prev`, `signer`, `sig`, `"node": null` included — is D616.
#[test]
fn a_sealed_end_line_may_be_respelled_but_not_extended() {
    let bytes = record(Some(fixture_key()), &|_| {});
    let text = String::from_utf8(bytes).unwrap();
    let body = text.trim_end_matches('\n');
    let cut = body.rfind('\n').unwrap() + 1;
    let (before, end_line) = body.split_at(cut);
    let end: serde_json::Map<String, Value> = serde_json::from_str(end_line).unwrap();
    let with_line = |line: String| format!("{before}{line}\n").into_bytes();
    // Reordered and re-escaped: the same values.
    let mut reordered: Vec<String> = end
        .iter()
        .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).unwrap(), v))
        .collect();
    reordered.reverse();
    let respelled =
        format!("{{{}}}", reordered.join(" , ")).replace("\"success\"", "\"succ\\u0065ss\"");
    let r = trusted().replay_slice("t", &with_line(respelled));
    assert_eq!(
        (r.verdict, r.seal),
        (Verdict::Faithful, SealStatus::Verified),
        "{:?}",
        r.diagnostics
    );
    // Extended: refused, whatever the value.
    for extra in [
        r#""node":null"#,
        r#""note":"approved by QA""#,
        r#""cost":{"usd":0}"#,
    ] {
        let line = end_line.replacen('{', &format!("{{{extra},"), 1);
        let r = trusted().replay_slice("t", &with_line(line.clone()));
        assert_eq!(r.verdict, Verdict::Malformed, "{line}");
        assert!(
            r.diagnostics.iter().any(|d| d.diagnostic.code == "D616"),
            "{line}: {:?}",
            r.diagnostics
        );
    }
}

#[test]
fn a_tampered_seal_says_tampered_not_how_to_seal() {
    // The end line says `failure` where the sealed run said `success`: the chain is whole (the
    // end line is last), the seal no longer verifies.
    let text = String::from_utf8(sealed().to_vec()).unwrap();
    let tampered = text.replacen("\"end\":\"success\"", "\"end\":\"failure\"", 1);
    assert_ne!(tampered, text, "the fixture's end event says success");
    let r = trusted().replay_slice("t", tampered.as_bytes());
    assert_eq!(
        (r.verdict, r.seal),
        (Verdict::Malformed, SealStatus::Unverified)
    );
    let d618 = r
        .diagnostics
        .iter()
        .find(|d| d.diagnostic.code == "D618")
        .expect("a D618");
    let help = d618.diagnostic.help.as_deref().unwrap_or("");
    assert!(help.contains("tampered"), "{help}");
    assert!(!help.contains("simulate --sign"), "{help}");
    // A missing seal under trust still says how to seal.
    let unsealed = trusted().replay_slice("t", &record(None, &|_| {}));
    let help = unsealed.diagnostics[0]
        .diagnostic
        .help
        .as_deref()
        .unwrap_or("");
    assert!(help.contains("--sign"), "{help}");
}
