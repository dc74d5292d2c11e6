//! D617 (error): `seq` out of order.
//!
//! What it checks: `seq` starts at 1 on the first event after the header and rises by exactly one
//! on every event. The diagnostic's `seq` is the recorded one; the message names the expected.
//!
//! Why: a gap or a repeat means events were dropped, duplicated or reordered; the run is
//! `malformed` and nothing after the fault is checked.
//!
//! Fires: `{"seq":4,…}` followed by `{"seq":6,…}`.
//!
//! Does not fire: `{"seq":4,…}` followed by `{"seq":5,…}`.

use super::super::engine::RunState;
use serde_json::Value;

/// The help line of every D617 diagnostic.
pub(crate) const HELP: &str = "`seq` starts at 1 and rises by one per event";

impl RunState<'_, '_> {
    /// `false` when `seq` is not the next one.
    pub(crate) fn check_d617(&mut self, seq: u64) -> bool {
        let want = self.last_seq + 1;
        if seq == want {
            return true;
        }
        let message = format!("`seq` {seq} where {want} comes next");
        self.error(
            "D617",
            "/seq",
            message,
            Some(Value::from(want)),
            Some(Value::from(seq)),
        );
        false
    }
}
