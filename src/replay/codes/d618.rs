//! D618 (error): the seal is missing (with `--trust`), does not verify, or is by a key not
//! trusted.
//!
//! What it checks: a sealed end event carries both `signer` (`ed25519:` + 64 lowercase hex
//! digits, a valid Ed25519 public key) and `sig` (`ed25519:` + 128 lowercase hex digits), and
//! `sig` is that key's signature (strictly verified) over the UTF-8 bytes of
//! `"primgraph-seal-v1\n" + run + "\n" + seq + "\n" + end + "\n" + prev` — the header's `run`
//! and the end event's own `seq`, `end` and `prev` (SPEC §4.1). A seal that does not verify is
//! D618 always. With trusted keys (`replay --trust KEY.pub`, repeatable), the end event must
//! carry a seal, and its signer must be one of those keys.
//!
//! Why: the hash chain leaves the last line open and can be rebuilt by anyone after an edit.
//! The seal signs the end of the chain, so an edit anywhere, a dropped end, or a re-chained trace
//! is detected — and under `--trust`, so is a trace re-chained and re-signed with another key.
//! The run is `malformed`: its record cannot be vouched for. Without `--trust`, a seal that
//! verifies proves the run is intact as its signer sealed it, not who the signer is: read the
//! report's `signer`, or pass `--trust`.
//!
//! Every run report carries `seal`: `verified` (the signature holds, and under `--trust` the
//! signer is trusted), `unverified` (a seal is there but does not hold, or its signer is not
//! trusted: always with a D618), or `absent` (no seal, or the run stopped before its end event);
//! and `signer`, the recorded one (null when there is none).
//!
//! Fires: a sealed trace whose `end` was edited from `failure` to `success` and re-chained; one
//! re-signed with a key `--trust` does not list; `replay --trust k.pub` of an unsealed trace.
//!
//! Does not fire: a trace `simulate --sign k` wrote, replayed with `--trust k.pub`; an unsealed
//! trace replayed without `--trust`.

use super::super::engine::RunState;
use super::super::report::SealStatus;
use super::super::seal::{SealFault, verify_seal};
use super::super::trace::EndEvent;
use serde_json::Value;

/// The help line of every D618 diagnostic.
pub(crate) const HELP: &str = "seal the run with `TraceWriter::sealed` or `simulate --sign KEY`, and trust its public key with `--trust KEY.pub`";

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
                    self.error("D618", "", message, Some(Value::Array(keys)), None);
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
                self.error("D618", field, message, None, None);
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
                self.error(
                    "D618",
                    "/signer",
                    message,
                    Some(Value::Array(keys)),
                    Some(Value::from(signer)),
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
                self.error("D618", pointer, message, None, Some(Value::from(actual)));
            }
        }
    }
}
