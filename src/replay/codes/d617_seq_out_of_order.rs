//! D617 (error): `seq` out of order.
//!
//! ## What it checks
//!
//! `seq` starts at 1 on the first event after the header and rises by exactly one
//! on every event. The diagnostic's `seq` is the recorded one; the message names the expected.
//!
//! ## Why it matters
//!
//! A gap or a repeat means events were dropped, duplicated or reordered; the run is
//! `malformed` and nothing after the fault is checked.
//!
//! ## Example
//!
//! `{"seq":4,…}` followed by `{"seq":6,…}`.
//!
//! Fixture `tests/fixtures/replay/d617.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D617 at line 3:
//!
//! ```json
//! {"seq":5,"node":"give_up","primitive":"done.failure","input":{},"output":{},"evidence":[],"cost…
//! ```
//!
//! ## Fix
//!
//! `seq` starts at 1 and rises by one per event.
//!
//! Does not fire: `{"seq":4,…}` followed by `{"seq":5,…}`.
//!
//! ## Implements
//!
//! SPEC §4.1 (`seq` starts at 1 and rises by one); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain};
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    /// `false` when `seq` is not the next one.
    pub(crate) fn check_d617(&mut self, seq: u64) -> bool {
        let want = self.last_seq + 1;
        if seq == want {
            return true;
        }
        let message = format!("`seq` {seq} where {want} comes next");
        self.report(
            &codes::D617,
            "/seq",
            message,
            Some(Value::from(want)),
            Some(Value::from(seq)),
        );
        false
    }
}

/// Fault injection (`simulate --faults`): a gap of 1 to 3 in `seq` from a step on (it and every
/// event after it numbered too high).
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|_| true)?;
    let gap = 1 + site.rng.below(3);
    for l in site.lines.iter_mut().skip(i + 1) {
        let m = l.as_object_mut()?;
        let seq = m.get("seq").and_then(Value::as_u64)?;
        m.insert("seq".into(), Value::from(seq + gap));
    }
    Some((chain(&mut site.lines), i as u64 + 1 + gap))
}
