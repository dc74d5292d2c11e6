//! D615 (error): the hash chain is broken.
//!
//! ## What it checks
//!
//! An event's `prev`, where present, is `sha256:` + the lowercase hex SHA-256 of
//! the previous line's exact bytes (without its `\n`; the header is the line before `seq` 1).
//!
//! ## Why it matters
//!
//! The chain makes an edited, inserted or dropped line detectable. A broken chain means the
//! trace is not the one recorded: the run is `malformed` and nothing after the break is checked.
//!
//! ## Example
//!
//! Someone edits `"confidence":0.4` to `0.9` on line 4; line 5's `prev` no longer matches.
//!
//! Fixture `tests/fixtures/replay/d615.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D615 at line 7:
//!
//! ```json
//! {"seq":6,"end":"failure","prev":"sha256:…"}
//! ```
//!
//! ## Fix
//!
//! `prev` is the SHA-256 of the previous line's exact bytes: a line was edited, inserted or dropped.
//!
//! Does not fire: The file as `TraceWriter` wrote it.
//!
//! ## Implements
//!
//! SPEC §4.1 (`prev`, the hash chain); the code is listed in §5.

use super::super::digest::{format_hash, hash_matches};
use super::super::engine::RunState;
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    /// `false` when the chain is broken.
    pub(crate) fn check_d615(&mut self, prev: Option<&str>) -> bool {
        let Some(prev) = prev else { return true };
        if hash_matches(prev, &self.prev_hash) {
            return true;
        }
        let want = format_hash(&self.prev_hash);
        let message = format!(
            "`prev` does not match the previous line (line {}): it was edited, or a line was inserted or dropped",
            self.pos.number.saturating_sub(1)
        );
        self.report(
            &codes::D615,
            "/prev",
            message,
            Value::from(want),
            Value::from(prev),
        );
        false
    }
}
