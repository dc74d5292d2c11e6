//! D618 (error): the seal is missing (with `--trust`), does not verify, or is by a key not
//! trusted.
//!
//! ## What it checks
//!
//! A sealed end event carries both `signer` (`ed25519:` + 64 lowercase hex digits, a valid
//! Ed25519 public key) and `sig` (`ed25519:` + 128 lowercase hex digits), and `sig` is that
//! key's signature (strictly verified) over the UTF-8 bytes of `"primgraph-seal-v1\n" + run +
//! "\n" + seq + "\n" + end + "\n" + prev` — the header's `run` and the end event's own `seq`,
//! `end` and `prev`. A seal that does not verify is D618 always. With trusted keys (`replay
//! --trust KEY.pub`, repeatable), the end event must carry a seal, and its signer must be one of
//! those keys.
//!
//! Every run report carries `seal`: `verified` (the signature holds, and under `--trust` the
//! signer is trusted), `unverified` (a seal is there but does not hold, or its signer is not
//! trusted: always with a D618), or `absent` (no seal, or the run stopped before its end event);
//! and `signer`, the recorded one (null when there is none).
//!
//! ## Why it matters
//!
//! The hash chain leaves the last line open and can be rebuilt by anyone after an edit. The seal
//! signs the end of the chain, so an edit anywhere, a dropped end or a re-chained trace is
//! detected — and under `--trust`, so is a trace re-chained and re-signed with another key. The
//! run is `malformed`: its record cannot be vouched for. Without `--trust`, a seal that verifies
//! proves the run is intact as its signer sealed it, not who the signer is: read the report's
//! `signer`, or pass `--trust`.
//!
//! ## Example
//!
//! A sealed run whose step at `test` was edited and the chain rebuilt, without the key to sign
//! it again; a run re-signed with a key `--trust` does not list; `replay --trust k.pub` of an
//! unsealed run.
//!
//! Fixture `tests/fixtures/replay/adversarial/sealed-edited-rechained.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D618 at line 9:
//!
//! ```json
//! {"seq":8,"end":"success","prev":"sha256:…","signer":"ed25519:…","sig":"ed25519:…"}
//! ```
//!
//! ## Fix
//!
//! Seal the run with `TraceWriter::sealed` or `simulate --sign KEY`, and trust its public key
//! with `--trust KEY.pub`. A seal that does not verify means the trace changed after it was
//! sealed: replay the recorder's original.
//!
//! Does not fire: a trace `simulate --sign k` wrote, replayed with `--trust k.pub`; an unsealed
//! trace replayed without `--trust`.
//!
//! ## Implements
//!
//! SPEC §4.1 (sealed traces) and §4.2 (D618 is `malformed`); the code is listed in §5.

use super::super::engine::RunState;
use super::super::report::SealStatus;
use super::super::seal::{SealFault, verify_seal};
use super::super::trace::EndEvent;
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d618(&mut self, end: &EndEvent) {
        let trusted = &self.replayer.trusted;
        self.signer.clone_from(&end.signer);
        let (signer, sig) = match (&end.signer, &end.sig) {
            (None, None) => {
                self.seal = SealStatus::Absent;
                if !trusted.is_empty() {
                    let message = format!(
                        "the run is not sealed, and the trusted keys (--trust) require a seal by one of {} key{}",
                        trusted.len(),
                        if trusted.len() == 1 { "" } else { "s" }
                    );
                    let keys = trusted.iter().map(|k| Value::from(k.signer())).collect();
                    self.report(&codes::D618, "", message, Some(Value::Array(keys)), None);
                }
                return;
            }
            (Some(_), None) | (None, Some(_)) => {
                self.seal = SealStatus::Unverified;
                let (field, missing) = if end.sig.is_none() {
                    ("/signer", "sig")
                } else {
                    ("/sig", "signer")
                };
                let message = format!("the seal is incomplete: the end event has no `{missing}`");
                self.report(&codes::D618, field, message, None, None);
                return;
            }
            (Some(signer), Some(sig)) => (signer.clone(), sig.clone()),
        };
        let run = self.header.as_ref().map_or("", |h| h.run.as_str());
        let prev = end.prev.as_deref().unwrap_or("");
        match verify_seal(run, end.seq, end.end.as_str(), prev, &signer, &sig) {
            Ok(key) => {
                if trusted.is_empty() || trusted.iter().any(|k| k.bytes() == &key) {
                    self.seal = SealStatus::Verified;
                    return;
                }
                self.seal = SealStatus::Unverified;
                let message = format!(
                    "the seal verifies, but its signer {signer} is not one of the trusted keys (--trust): the trace may have been re-chained and re-signed"
                );
                let keys = trusted.iter().map(|k| Value::from(k.signer())).collect();
                self.report(
                    &codes::D618,
                    "/signer",
                    message,
                    Some(Value::Array(keys)),
                    Some(Value::from(signer)),
                )
                .help = Some(
                    "not sealed by a trusted key: if this recorder is yours, add its public key with `--trust KEY.pub`; otherwise treat the run as forged".into(),
                );
            }
            Err(fault) => {
                self.seal = SealStatus::Unverified;
                let (pointer, message) = match fault {
                    SealFault::BadSigner(m) => ("/signer", m),
                    SealFault::BadSig(m) => ("/sig", m),
                    SealFault::Mismatch => (
                        "/sig",
                        format!(
                            "the seal does not verify: `sig` is not {signer}'s signature of this run's end (run `{run}`, seq {}, `{}`, prev): the trace was changed after it was sealed",
                            end.seq,
                            end.end.as_str()
                        ),
                    ),
                };
                let actual = if pointer == "/signer" { signer } else { sig };
                // A seal that is there but does not hold is a tampered (or corrupted) trace, not
                // a missing seal: the code's default help (how to seal) would mislead.
                self.report(
                    &codes::D618,
                    pointer,
                    message,
                    None,
                    Some(Value::from(actual)),
                )
                .help = Some(
                    "the seal is tampered: the trace was changed after it was sealed (or the seal was damaged); do not re-seal it, replay the recorder's original".into(),
                );
            }
        }
    }
}
