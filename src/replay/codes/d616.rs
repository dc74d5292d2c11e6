//! D616 (error): a malformed line.
//!
//! ## What it checks
//!
//! Every line after the header is one JSON object that is a step (`seq`, `node`,
//! `primitive`, `input`, exactly one of `output` and `error`, optional `outcome`, `evidence`,
//! `cost`, `prev`) or an end event (`seq`, `end` of `success`/`failure`, `prev`), with no other
//! fields; valid UTF-8; ended by a newline (or valid JSON at the end of the file); at most the
//! line limit long (8 MiB by default; a longer line is skipped, never held in memory).
//!
//! ## Why it matters
//!
//! A line replay cannot read ends the run as `malformed` at that line; everything before it
//! is still reported. The diagnostic's `seq` is the one the line should have had.
//!
//! ## Example
//!
//! A last line cut off mid-write, `{"seq":7,"node":"test","primitive":"ver.run_ta`; a line
//! with `"output"` and `"error"` both; a line of invalid UTF-8.
//!
//! Fixture `tests/fixtures/replay/d616.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D616 at line 3:
//!
//! ```json
//! {"seq":2,"node":"ls","primitive":"obs.list_files","input":{"path":"."},"output":{"paths":["lo",…
//! ```
//!
//! ## Fix
//!
//! Each line is one JSON event object, terminated by a newline.
//!
//! Does not fire: `{"seq":7,"end":"success","prev":"sha256:…"}`.
//!
//! ## Implements
//!
//! SPEC §4.1 and §4.2 (a truncated or broken line ends the run); the code is listed in §5.

use super::super::trace::{Event, LineError, parse_event};

/// Parse an event line, naming a truncated last line as such.
pub(crate) fn parse_line(bytes: &[u8], terminated: bool) -> Result<Event, LineError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(LineError {
            message: "empty line".into(),
            pointer: String::new(),
            column: 1,
        });
    }
    parse_event(bytes).map_err(|mut e| {
        if !terminated {
            e.message = format!("truncated last line (no newline): {}", e.message);
        }
        e
    })
}
