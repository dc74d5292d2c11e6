//! D615 (error): the hash chain is broken.
//!
//! ## What it checks
//!
//! Every event (every line after the header) carries `prev`, and it is `sha256:` + the
//! lowercase hex SHA-256 of the previous line's exact bytes (without its `\n`; the header is the
//! line before `seq` 1). A line without `prev` breaks the chain as surely as a wrong one: a
//! trace whose `prev` fields were all removed is not a recorded run.
//!
//! ## Why it matters
//!
//! The chain makes an edited, inserted or dropped line detectable. A broken chain means the
//! trace is not the one recorded: the run is `malformed` and nothing after the break is checked.
//! When a line ends in `\r`, the message says so: a trace whose line endings were converted to
//! CRLF (by an editor, or by git's `autocrlf`) breaks at its second line, because the chain
//! hashes each line's exact bytes.
//!
//! ## Example
//!
//! Someone edits `"confidence":0.4` to `0.9` on line 4; line 5's `prev` no longer matches. Or
//! a line `{"seq":3,"node":"draft",…}` has no `prev`.
//!
//! Fixture `tests/fixtures/replay/d615.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D615 at line 7:
//!
//! ```json
//! {"seq":6,"end":"failure","prev":"sha256:…"}
//! ```
//!
//! ## Fix
//!
//! `prev` is the SHA-256 of the previous line's exact bytes: a line was edited, inserted or
//! dropped, or `prev` was removed. Convert CRLF line endings back to `\n`.
//!
//! Does not fire: The file as `TraceWriter` wrote it.
//!
//! ## Implements
//!
//! SPEC §4.1 (`prev` on every line after the header, the hash chain); the code is listed in §5.

use super::super::digest::{format_hash, hash_matches};
use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, join_lines, line_object};
use crate::codes;
use serde_json::Value;

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
        self.report(
            &codes::D615,
            "/prev",
            message,
            Some(Value::from(want)),
            prev.map(Value::from),
        );
        false
    }
}

/// Fault injection (`simulate --faults`): one step line edited (a token more) after the chain
/// was computed, so the next line's `prev` no longer matches it.
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|_| true)?;
    let mut bytes_lines = site.lines.clone();
    let line = line_object(&mut bytes_lines, i + 1)?;
    let cost = line.get_mut("cost")?.as_object_mut()?;
    let tokens = cost.get("tokens").and_then(Value::as_u64).unwrap_or(0);
    cost.insert("tokens".into(), Value::from(tokens + 1));
    let _ = chain(&mut site.lines);
    // the original chain, with one line edited after it was chained
    let mut edited = site.lines.clone();
    if let Some(l) = edited.get_mut(i + 1) {
        *l = bytes_lines.get(i + 1)?.clone();
        if let (Some(m), Some(p)) = (
            l.as_object_mut(),
            site.lines.get(i + 1).and_then(|o| o.get("prev")).cloned(),
        ) {
            m.insert("prev".into(), p);
        }
    }
    Some((join_lines(&edited), i as u64 + 2))
}
