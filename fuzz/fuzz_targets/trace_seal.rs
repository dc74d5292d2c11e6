//! Fuzz sealed traces (SPEC §4.1) under a trusted key: a fixed faithful run of
//! `graphs/runs/fix-failing-test.graph.json`, sealed at start-up with a fixed test key, is edited
//! by the input (an edit script: flip, set, insert or delete a byte at a position), or the input
//! is taken as a whole trace; replay trusting that key must never panic, and
//!
//! - a run replay calls faithful under trust is the sealed run itself: every line before the end
//!   event byte-identical, the end event's `seq`, `end`, `prev`, `signer` and `sig` the same
//!   values (only the end line's JSON spelling may differ, and nothing it spells is unsigned);
//! - `seal` agrees with the diagnostics: `verified` has no D618, `unverified` has one, and
//!   faithful under trust means `verified`;
//! - a `verified` seal verifies with `ed25519-dalek` directly, over the message rebuilt here from
//!   the spec (an oracle independent of `primgraph::replay::seal`);
//! - key parsing (`SealKey::from_hex`, `TrustedKey::from_hex`) takes any text without a panic,
//!   and a parsed key's hex parses back to the same key.
//!
//! Run (seeds: the sealed run itself and a few edits):
//! `cd fuzz && mkdir -p corpus/trace_seal && RUSTC_BOOTSTRAP=1 cargo fuzz run trace_seal
//! corpus/trace_seal seeds/trace_seal -- -max_total_time=600`
#![no_main]

use ed25519_dalek::{Signature, VerifyingKey};
use libfuzzer_sys::fuzz_target;
use primgraph::registry::Registry;
use primgraph::replay::{
    ReplayGraph, ReplayOptions, Replayer, SealKey, SealStatus, TrustedKey, Verdict,
};
use serde_json::Value;
use std::sync::OnceLock;

const GRAPH: &[u8] = include_bytes!("../../graphs/runs/fix-failing-test.graph.json");
const RUN: &[u8] = include_bytes!("../../graphs/runs/faithful-loop.trace.jsonl");
/// RFC 8032 §7.1 TEST 1: a test key, never to seal anything real.
const SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

struct Fixture {
    replayer: Replayer<'static>,
    sealed: Vec<u8>,
    /// The sealed run's lines before the end event (with their newlines).
    body: Vec<u8>,
    end: Value,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let key = SealKey::from_hex(SEED).expect("the test seed is a key");
        let registry = Registry::builtin();
        let graph = ReplayGraph::load("<graph>", GRAPH, registry).expect("the graph loads");
        let replayer = Replayer::new(registry, graph, ReplayOptions::default())
            .with_trusted_keys(vec![key.trusted_key()]);
        let text = std::str::from_utf8(RUN).expect("the run is UTF-8");
        let lines: Vec<&str> = text.lines().collect();
        let run = serde_json::from_str::<Value>(lines[0]).expect("header")["run"]
            .as_str()
            .expect("run id")
            .to_string();
        let mut end: Value = serde_json::from_str(lines[lines.len() - 1]).expect("end event");
        let seq = end["seq"].as_u64().expect("seq");
        let status = end["end"].as_str().expect("end").to_string();
        let prev = end["prev"].as_str().expect("prev").to_string();
        end["signer"] = Value::from(key.signer());
        end["sig"] = Value::from(key.sign_end(&run, seq, &status, &prev));
        let mut body = Vec::new();
        for l in &lines[..lines.len() - 1] {
            body.extend_from_slice(l.as_bytes());
            body.push(b'\n');
        }
        let mut sealed = body.clone();
        sealed.extend_from_slice(end.to_string().as_bytes());
        sealed.push(b'\n');
        let report = replayer.replay_slice("<sealed>", &sealed);
        assert_eq!(report.verdict, Verdict::Faithful, "{:?}", report.diagnostics);
        assert_eq!(report.seal, SealStatus::Verified);
        Fixture {
            replayer,
            sealed,
            body,
            end,
        }
    })
}

/// Apply the edit script `ops` (4 bytes an edit) to `bytes`.
fn edit(mut bytes: Vec<u8>, ops: &[u8]) -> Vec<u8> {
    for op in ops.chunks_exact(4) {
        let at = usize::from(u16::from_le_bytes([op[1], op[2]]));
        let value = op[3];
        match op[0] % 4 {
            0 if !bytes.is_empty() => {
                let i = at % bytes.len();
                bytes[i] ^= value.max(1);
            }
            1 if !bytes.is_empty() => {
                let i = at % bytes.len();
                bytes[i] = value;
            }
            2 => {
                let i = at % (bytes.len() + 1);
                bytes.insert(i, value);
            }
            3 if !bytes.is_empty() => {
                let i = at % bytes.len();
                bytes.remove(i);
            }
            _ => {}
        }
    }
    bytes
}

/// The seal of the end event, checked with ed25519-dalek directly.
fn independently_verified(run: &str, end: &Value) -> bool {
    let (Some(seq), Some(status), Some(prev), Some(signer), Some(sig)) = (
        end["seq"].as_u64(),
        end["end"].as_str(),
        end["prev"].as_str(),
        end["signer"].as_str(),
        end["sig"].as_str(),
    ) else {
        return false;
    };
    let hex = |s: &str, n: usize| -> Option<Vec<u8>> {
        let h = s.strip_prefix("ed25519:")?;
        if h.len() != 2 * n || h.bytes().any(|b| !matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return None;
        }
        (0..n)
            .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok())
            .collect()
    };
    let (Some(key), Some(sig)) = (hex(signer, 32), hex(sig, 64)) else {
        return false;
    };
    let Ok(key) = VerifyingKey::from_bytes(&key.try_into().expect("32 bytes")) else {
        return false;
    };
    let sig = Signature::from_bytes(&sig.try_into().expect("64 bytes"));
    let message = format!("primgraph-seal-v1\n{run}\n{seq}\n{status}\n{prev}");
    key.verify_strict(message.as_bytes(), &sig).is_ok()
}

fn check_keys(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(k) = SealKey::from_hex(&text) {
        let again = SealKey::from_hex(&k.public_hex()).map(|k2| k2.public_hex());
        assert!(again.is_ok());
        assert_eq!(
            TrustedKey::from_hex(&k.public_hex()).expect("a public key parses"),
            k.trusted_key()
        );
    }
    if let Ok(t) = TrustedKey::from_hex(&text) {
        assert_eq!(TrustedKey::from_hex(&t.signer()).expect("signer form"), t);
    }
}

fuzz_target!(|data: &[u8]| {
    check_keys(data);
    let f = fixture();
    let trace = match data.split_first() {
        Some((mode, rest)) if mode % 2 == 1 => rest.to_vec(),
        Some((_, ops)) => edit(f.sealed.clone(), ops),
        None => f.sealed.clone(),
    };
    let report = f.replayer.replay_slice("<trace>", &trace);
    let d618 = report.stats.codes.get("D618").copied().unwrap_or(0);
    match report.seal {
        SealStatus::Verified => assert_eq!(d618, 0, "verified with a D618"),
        SealStatus::Unverified => assert!(d618 > 0, "unverified without a D618"),
        SealStatus::Absent => {}
    }
    if report.verdict == Verdict::Faithful {
        assert_eq!(report.seal, SealStatus::Verified, "faithful under trust, not verified");
        // Only the sealed run passes: the body byte for byte, the end event value for value.
        assert!(
            trace.starts_with(&f.body),
            "a changed line before the end passed under trust"
        );
        let end_line = &trace[f.body.len()..];
        let end_line = end_line.strip_suffix(b"\n").expect("a faithful end line ends in \\n");
        let end: Value = serde_json::from_slice(end_line).expect("a faithful end line is JSON");
        assert_eq!(end, f.end, "a changed end event passed under trust");
    }
    if report.seal == SealStatus::Verified {
        let text = String::from_utf8_lossy(&trace);
        let mut lines = text.split('\n');
        let header: Value = lines
            .next()
            .and_then(|l| serde_json::from_str(l).ok())
            .expect("a verified run has a header");
        let run = header["run"].as_str().expect("a verified run has a run id");
        let end = text
            .split('\n')
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v.get("end").is_some())
            .expect("a verified run has an end event");
        assert!(
            independently_verified(run, &end),
            "replay verified a seal ed25519-dalek rejects"
        );
    }
});
