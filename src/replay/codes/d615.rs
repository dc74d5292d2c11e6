//! D615 (error): the hash chain is broken.
//!
//! What it checks: every event (every line after the header) carries `prev`, and it is
//! `sha256:` + the lowercase hex SHA-256 of the previous line's exact bytes (without its `\n`;
//! the header is the line before `seq` 1). A line without `prev` breaks the chain as surely as a
//! wrong one: a trace whose `prev` fields were all removed is not a recorded run.
//!
//! Why: the chain makes an edited, inserted or dropped line detectable. A broken chain means the
//! trace is not the one recorded: the run is `malformed` and nothing after the break is checked.
//! When the line before ends in `\r`, the message says so: a trace whose line endings were
//! converted to CRLF (by an editor, or by git's `autocrlf`) breaks at its second line, because
//! the chain hashes each line's exact bytes.
//!
//! Fires: someone edits `"confidence":0.4` to `0.9` on line 4; line 5's `prev` no longer matches.
//! A line `{"seq":3,"node":"draft",…}` with no `prev`.
//!
//! Does not fire: the file as `TraceWriter` wrote it.

use super::super::digest::{format_hash, hash_matches};
use super::super::engine::RunState;
use serde_json::Value;

/// The help line of every D615 diagnostic.
pub(crate) const HELP: &str = "`prev` is the SHA-256 of the previous line's exact bytes: a line was edited, inserted or dropped";

impl RunState<'_, '_> {
    /// `false` when the chain is broken. `line_cr`: the current line ends in `\r`.
    pub(crate) fn check_d615(&mut self, prev: Option<&str>, line_cr: bool) -> bool {
        let want = match prev {
            Some(prev) if hash_matches(prev, &self.prev_hash) => return true,
            _ => format_hash(&self.prev_hash),
        };
        let before = self.pos.number.saturating_sub(1);
        let mut message = match prev {
            None => format!(
                "line {} has no `prev`: every line after the header carries the SHA-256 of the line before it (line {before})",
                self.pos.number
            ),
            Some(_) => format!(
                "`prev` does not match the previous line (line {before}): it was edited, or a line was inserted or dropped"
            ),
        };
        if self.prev_line_cr || line_cr {
            message.push_str(
                "; the lines end in `\\r\\n` (CRLF): converting line endings changes the bytes the chain hashes, convert them back to `\\n`",
            );
        }
        self.error(
            "D615",
            "/prev",
            message,
            Some(Value::from(want)),
            prev.map(Value::from),
        );
        false
    }
}
