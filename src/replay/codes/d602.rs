//! D602 (warning): the trace's `graph_digest` differs from the graph's (what-if replay).
//!
//! What it checks: the header's `graph_digest` equals the SHA-256 of the replayed graph document
//! in RFC 8785 canonical form (`sha256:` + 64 lowercase hex digits).
//!
//! Why: a different digest means the run was recorded against another version of the graph.
//! That is not an error: replaying an old run against a new graph is the what-if mode, which
//! answers whether the recorded behaviour is still legal under the new graph. Replay goes on.
//!
//! Fires: a trace recorded with `fix-failing-test` before a node's `max_visits` changed from 3 to
//! 2, replayed against the edited graph.
//!
//! Does not fire: the same trace replayed against the graph it was recorded with (key order,
//! whitespace and number spelling such as `4.50` vs `4.5` do not change the digest).

use super::super::engine::RunState;
use super::super::trace::TraceHeader;
use crate::diagnostic::Severity;
use serde_json::Value;

/// The help line of every D602 diagnostic.
pub(crate) const HELP: &str = "the digest is SHA-256 of the graph in RFC 8785 canonical form";

impl RunState<'_, '_> {
    pub(crate) fn check_d602(&mut self, header: &TraceHeader) {
        let digest = self.graph().digest.clone();
        if header.graph_digest != digest {
            self.report(
                "D602",
                Severity::Warning,
                "/graph_digest",
                "the trace was recorded against another version of the graph (what-if replay against this one)",
                Some(Value::from(digest)),
                Some(Value::from(header.graph_digest.clone())),
            );
        }
    }
}
