//! D619 (warning): a pack's digest differs from the one the trace recorded.
//!
//! ## What it checks
//!
//! A trace header may record the packs its graph ran with, `"packs": [{"name", "version",
//! "digest"}]` (SPEC §9.2). Each recorded pack is compared with the pack of that name in the
//! composition the graph is replayed with (`--pack DIR`, `packs` of primgraph.toml, or the
//! lock): a different digest (another version, or the same version edited) is D619, at the
//! recorded `digest`, with the loaded pack's digest as `expected` and the recorded one as
//! `actual`. A recorded pack that is not loaded at all in this replay is D619 too (its
//! contracts cannot be compared).
//!
//! ## Why it matters
//!
//! The contracts the run was checked against may have changed under it: a schema narrowed, an
//! outcome added, a rule made stricter. As with D602 (another graph), the replay goes on — it
//! answers whether the recorded behaviour is legal under the packs loaded now — but the reader
//! of the report must know the packs are not the ones the run had.
//!
//! ## Example
//!
//! A run recorded with an earlier `pyship` whose digest ended in `…0000`, replayed with
//! `pyship` 1.0.0 as it is now.
//!
//! Fixture `tests/fixtures/pack-wire/d619.trace.jsonl` (replayed against `tests/fixtures/pack-wire/land-ok.graph.json` with the pack path `tests/fixtures/pack-wire/path`) reports D619 at line 1:
//!
//! ```json
//! {"trace":"1","run":"d619","graph":"pyship-land","graph_digest":"sha256:…
//! ```
//!
//! ## Fix
//!
//! Replay with the packs the run was recorded with (pin them with `primgraph pack lock`), or
//! record the run again with the current packs. A warning: the verdict stands as computed.
//!
//! Does not fire: a trace whose recorded packs are exactly the loaded ones (name, version and
//! digest), or a trace that records no packs.
//!
//! ## Implements
//!
//! SPEC §9.2 (a trace header may record the packs its graph ran with); the code is listed in
//! §9's table.

use super::super::engine::RunState;
use super::super::trace::TraceHeader;
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d619(&mut self, header: &TraceHeader) {
        let Some(recorded) = &header.packs else {
            return;
        };
        let loaded = self.graph().packs.clone();
        for (i, r) in recorded.iter().enumerate() {
            match loaded.iter().find(|p| p.name == r.name) {
                Some(p) if p.digest == r.digest => {}
                Some(p) => {
                    let message = if p.version == r.version {
                        format!(
                            "pack {}@{} changed since the run was recorded: its digest is {}, the trace recorded {}",
                            p.name, p.version, p.digest, r.digest
                        )
                    } else {
                        format!(
                            "the run was recorded with pack {}@{} and is replayed with {}@{}: the contracts may have changed under it",
                            r.name, r.version, p.name, p.version
                        )
                    };
                    self.report(
                        &codes::D619,
                        format!("/packs/{i}/digest"),
                        message,
                        Some(Value::from(p.digest.clone())),
                        Some(Value::from(r.digest.clone())),
                    );
                }
                None => {
                    let message = format!(
                        "the run was recorded with pack {}@{}, which this replay does not load: its contracts cannot be compared",
                        r.name, r.version
                    );
                    self.report(
                        &codes::D619,
                        format!("/packs/{i}"),
                        message,
                        None,
                        Some(Value::from(r.digest.clone())),
                    );
                }
            }
        }
    }
}
