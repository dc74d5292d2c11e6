//! D616 (error): a malformed line, or a trace that stops without an end event.
//!
//! ## What it checks
//!
//! Every line after the header is one JSON object that is a step (`seq`, `node`, `primitive`,
//! `input`, exactly one of `output` and `error`, optional `outcome`, `evidence`, `cost`,
//! `prev`) or an end event (`seq`, `end` of `success`/`failure`, `prev`, and the seal
//! `signer`/`sig` when sealed), with no other fields and no duplicate key anywhere in the line —
//! payloads (`input`, `output`, `evidence`) and the header included; valid UTF-8; ended by a
//! newline (the last line's is optional, as JSON Lines has it: a last line that parses is read);
//! at most the line limit long (8 MiB by default, `--max-line-bytes`; a longer line is
//! skipped, never held in memory). `cost.usd` is a finite non-negative number that fits integer
//! nano-USD (at most 18446744073.709551615 USD a step, and a run's sum too). And the trace ends
//! with an end event: one that stops without it — cut at a line boundary or inside a line —
//! fires D616 at the end of the file.
//!
//! ## Why it matters
//!
//! A line replay cannot read ends the run as `malformed` at that line; everything before it is
//! still reported. The diagnostic's `seq` is the one the line should have had. A duplicate key
//! is malformed because two readers of one line (first value wins, last value wins) would see
//! two different events. Spend is summed exactly in integer nano-USD, so an amount that cannot
//! be is refused rather than rounded, saturated or counted as zero. A trace without an end
//! event was cut (a recorder that crashed, a copy that stopped short): it is `malformed`, not
//! `violated` — the run has not broken a contract, its record is incomplete. A last line without
//! its newline that parses is read (JSON Lines); one that does not is the cut line.
//!
//! ## Example
//!
//! A last line cut off mid-write, `{"seq":7,"node":"test","primitive":"ver.run_ta`; a trace
//! whose last line is a complete step (no end event); a line with `"output"` and `"error"` both; a line of
//! invalid UTF-8; `"output":{"patch":"a","patch":"b"}`; `"cost":{"usd":1e300}`.
//!
//! Fixture `tests/fixtures/replay/d616.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D616 at line 3:
//!
//! ```json
//! {"seq":2,"node":"ls","primitive":"obs.list_files","input":{"path":"."},"output":{"paths":["lo",…
//! ```
//!
//! ## Fix
//!
//! Each line is one JSON event object, terminated by a newline; the last one is the end event.
//! Raise `--max-line-bytes` for longer lines.
//!
//! Does not fire: `{"seq":7,"end":"success","prev":"sha256:…"}` last, with or without its
//! newline.
//!
//! ## Implements
//!
//! SPEC §4.1 (duplicate keys) and §4.2 (a truncated or broken line, a trace without an end
//! event); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain};
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    /// The trace ended at a line boundary without an end event.
    pub(crate) fn check_d616_eof(&mut self) {
        let message = format!(
            "the trace stops after seq {} (line {}) without an end event: it was cut (did the recorder crash?)",
            self.last_seq,
            self.pos.number.saturating_sub(1)
        );
        self.report(
            &codes::D616,
            "",
            message,
            Some(Value::from("an end event")),
            None,
        );
    }
}

/// Fault injection (`simulate --faults`): a step line cut in half, as the truncated last line
/// (even attempts) or as invalid JSON mid-file with the rest following (odd attempts).
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let i = site.pick_step(|_| true)?;
    let mut bytes = Vec::new();
    let chained = chain(&mut site.lines);
    let all: Vec<&[u8]> = chained
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    for (k, l) in all.iter().enumerate() {
        if k == i + 1 {
            let cut = l.len() / 2;
            bytes.extend_from_slice(l.get(..cut)?);
            if site.attempt % 2 == 1 {
                // invalid JSON mid-file; the rest follows
                bytes.push(b'\n');
                continue;
            }
            // a truncated last line
            return Some((bytes, i as u64 + 1));
        }
        bytes.extend_from_slice(l);
        bytes.push(b'\n');
    }
    Some((bytes, i as u64 + 1))
}
