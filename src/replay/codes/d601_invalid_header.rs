//! D601 (error): the trace header is invalid or names another graph.
//!
//! ## What it checks
//!
//! The first line of a trace is a header — a JSON object with the string fields
//! `trace` (the format version, `"1"`), `run`, `graph`, `graph_digest` (`sha256:` and 64
//! lowercase hex digits) and `abi`, and an optional
//! object `input` (default `{}`) — whose `graph` is the name of the graph being replayed and whose
//! `abi` the registry satisfies (same major, minor at least). An empty file fires it too.
//!
//! A header with a duplicate key is malformed like any other line: D616, not D601 (SPEC §4.1).
//!
//! ## Why it matters
//!
//! Without a header there is no run to replay, and a trace of another graph cannot be
//! compared with this one; the run is `malformed` and nothing after the header is checked.
//!
//! ## Example
//!
//! A trace whose first line is `{"seq":1,"node":"read_task",…}` (no header), or whose
//! header says `"graph":"triage-inbox"` when replayed with `--graph fix-failing-test.graph.json`.
//!
//! Fixture `tests/fixtures/replay/d601.trace.jsonl` (replayed against `tests/fixtures/replay/fix.graph.json` with the fixture registry) reports D601 at line 1:
//!
//! ```json
//! {"trace":"1","run":"sim-11-000031","graph":"fix-failing-test-other","graph_digest":"sha256:…","…
//! ```
//!
//! ## Fix
//!
//! Start the trace with a header line {"trace":"1","run","graph","graph_digest","abi"} naming this graph.
//!
//! Does not fire: `{"trace":"1","run":"r-1","graph":"fix-failing-test","graph_digest":"sha256:…","abi":"1.0.0"}`
//! replayed against `fix-failing-test` on a 1.x registry.
//!
//! ## Implements
//!
//! SPEC §4.1 (the header); the code is listed in §5.

use super::super::engine::RunState;
use super::super::fault::{FaultSite, chain, line_object};
use super::super::graph::abi_satisfied;
use super::super::trace::{LineError, TraceHeader};
use crate::codes;
use serde_json::Value;
use std::sync::Arc;

impl RunState<'_, '_> {
    /// Check the header line, as parsed (`parsed`; `terminated`: the line ended in `\n`);
    /// `None` ends the run.
    pub(crate) fn check_d601(
        &mut self,
        parsed: Result<Arc<TraceHeader>, LineError>,
        terminated: bool,
    ) -> Option<Arc<TraceHeader>> {
        let header = match parsed {
            Ok(h) => h,
            Err(e) => {
                let message = if terminated {
                    format!("line 1 is not a trace header: {}", e.message)
                } else {
                    format!(
                        "line 1 is not a trace header (truncated: no newline): {}",
                        e.message
                    )
                };
                // A duplicate key is malformed like in any other line (SPEC §4.1): D616.
                let code = if e.is_duplicate_key() {
                    &codes::D616
                } else {
                    &codes::D601
                };
                self.report(
                    code,
                    e.pointer,
                    message,
                    Some(Value::from("a trace header")),
                    None,
                )
                .column = e.column;
                return None;
            }
        };
        let well_formed = super::super::digest::is_sha256(&header.graph_digest);
        if !well_formed {
            self.report(
                &codes::D601,
                "/graph_digest",
                "`graph_digest` must be `sha256:` and 64 lowercase hex digits",
                Some(Value::from("sha256:<64 hex digits>")),
                Some(Value::from(header.graph_digest.clone())),
            );
            return None;
        }
        let graph = self.graph();
        if header.graph != graph.name {
            self.report(
                &codes::D601,
                "/graph",
                format!(
                    "the trace records a run of graph `{}`, not of `{}`",
                    header.graph, graph.name
                ),
                Some(Value::from(graph.name.clone())),
                Some(Value::from(header.graph.clone())),
            );
            return None;
        }
        let registry_abi = self.registry().abi().to_string();
        if !abi_satisfied(&header.abi, &registry_abi) {
            self.report(
                &codes::D601,
                "/abi",
                format!(
                    "the trace was recorded against ABI {}, which registry ABI {} does not satisfy",
                    header.abi, registry_abi
                ),
                Some(Value::from(registry_abi)),
                Some(Value::from(header.abi.clone())),
            );
            return None;
        }
        Some(header)
    }
}

/// Fault injection (`simulate --faults`): a header naming another graph (`NAME-other`).
pub(crate) fn inject(site: &mut FaultSite<'_>) -> Option<(Vec<u8>, u64)> {
    let graph = site.graph();
    let header = line_object(&mut site.lines, 0)?;
    header.insert("graph".into(), Value::from(format!("{}-other", graph.name)));
    Some((chain(&mut site.lines), 0))
}
