//! D602 (warning): the trace's `graph_digest` differs from the graph's (what-if replay).
//!
//! ## What it checks
//!
//! The header's `graph_digest` equals the SHA-256 of the replayed graph document
//! in RFC 8785 canonical form (`sha256:` + 64 lowercase hex digits).
//!
//! ## Why it matters
//!
//! A different digest means the run was recorded against another version of the graph.
//! That is not an error: replaying an old run against a new graph is the what-if mode, which
//! answers whether the recorded behaviour is still legal under the new graph. Replay goes on.
//!
//! ## Example
//!
//! A trace recorded with `fix-failing-test` before a node's `max_visits` changed from 3 to
//! 2, replayed against the edited graph.
//!
//! Fixture `tests/fixtures/replay/d602.trace.jsonl` (replayed against `tests/fixtures/replay/d602.graph.json` with the fixture registry) reports D602 at line 1:
//!
//! ```json
//! {"trace":"1","run":"sim-3-000001","graph":"fix-failing-test","graph_digest":"sha256:…","abi":"1…
//! ```
//!
//! ## Fix
//!
//! The digest is SHA-256 of the graph in RFC 8785 canonical form.
//!
//! Does not fire: The same trace replayed against the graph it was recorded with (key order,
//! whitespace and number spelling such as `4.50` vs `4.5` do not change the digest).
//!
//! ## Implements
//!
//! SPEC §4.1 (`graph_digest`) and §4.2 (the what-if mode); the code is listed in §5.

use super::super::engine::RunState;
use super::super::trace::TraceHeader;
use crate::codes;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d602(&mut self, header: &TraceHeader) {
        let digest = self.graph().digest.clone();
        if header.graph_digest != digest {
            self.report(&codes::D602, "/graph_digest",
                "the trace was recorded against another version of the graph (what-if replay against this one)",
                Some(Value::from(digest)),
                Some(Value::from(header.graph_digest.clone())),
            );
        }
    }
}
