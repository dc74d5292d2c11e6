//! A run's report (SPEC §4.2): its verdict, end, steps, first divergence and diagnostics, the
//! per-run figures the corpus summary adds up, and the JSON shape they are written in.

use super::trace::EndStatus;
use crate::diagnostic::{Diagnostic, Severity};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How a run relates to its graph. Ordered from best to worst: the worst finding wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Faithful,
    Violated,
    Diverged,
    Malformed,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faithful => "faithful",
            Verdict::Violated => "violated",
            Verdict::Diverged => "diverged",
            Verdict::Malformed => "malformed",
        }
    }

    /// The verdict an error of `code` implies (SPEC §4.2).
    pub fn of_code(code: &str) -> Verdict {
        match code {
            "D603" => Verdict::Diverged,
            "D601" | "D615" | "D616" | "D617" | "D618" => Verdict::Malformed,
            _ => Verdict::Violated,
        }
    }
}

/// What replay can vouch for about a run's seal (SPEC §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SealStatus {
    /// The seal's signature holds (and, with trusted keys, its signer is one of them).
    Verified,
    /// A seal is there but does not hold, or its signer is not trusted (always with a D618).
    Unverified,
    /// No seal, or the run stopped before its end event.
    Absent,
}

impl SealStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SealStatus::Verified => "verified",
            SealStatus::Unverified => "unverified",
            SealStatus::Absent => "absent",
        }
    }
}

/// A diagnostic about one trace line: the shared diagnostic (with `seq` and `line` set) plus the
/// line's byte offset and, for errors, what was expected and what was found. `None` is "no
/// value" (a property absent from the record, nothing expected), distinct from `Some(null)`, a
/// recorded JSON `null`; in JSON an absent value is an absent key.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceDiagnostic {
    pub diagnostic: Diagnostic,
    /// Byte offset of the line's first byte in the trace file.
    pub byte: u64,
    pub expected: Option<Value>,
    pub actual: Option<Value>,
    /// The node (or `(end)`, `(header)`, …) the event is about: the first-divergence site.
    pub site: String,
}

impl TraceDiagnostic {
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(&self.diagnostic).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("byte".into(), Value::from(self.byte));
            insert_present(m, "expected", &self.expected);
            insert_present(m, "actual", &self.actual);
        }
        v
    }
}

/// `expected`/`actual` into a JSON object: the key only when there is a value (`null` included).
fn insert_present(m: &mut Map<String, Value>, key: &str, value: &Option<Value>) {
    if let Some(v) = value {
        m.insert(key.into(), v.clone());
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FirstDivergence {
    pub seq: u64,
    pub code: crate::codes::CodeName,
    pub expected: Option<Value>,
    pub actual: Option<Value>,
    pub pointer: String,
    pub line: u32,
    pub site: String,
}

/// Figures of one run that the corpus summary adds up.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunStats {
    /// Steps recorded at each node (by the recorded node id).
    pub visits: BTreeMap<String, u64>,
    /// Failure modes recorded, by primitive ID.
    pub failure_modes: BTreeMap<String, BTreeMap<String, u64>>,
    /// Spend in nano-USD (an integer, so that sums are exact and merge in any order).
    pub spend_nanos: u64,
    /// Diagnostics by code (all of them, also those past the stored cap).
    pub codes: BTreeMap<String, u64>,
    /// Diagnostics not stored because the run already had `MAX_STORED_DIAGNOSTICS`.
    pub suppressed: u64,
    /// Steps by the primitive that ran them (the node's, or its fallback; the recorded one when
    /// it resolves to neither): the denominator of a primitive's failure rate (SPEC §6.3).
    pub primitive_steps: BTreeMap<String, u64>,
    /// The run's task key (SPEC §4.3): `sha256:` of the RFC 8785 form of the header's `input`;
    /// `None` when the header could not be read.
    pub task: Option<String>,
    /// The distinct moves the run made between two graph nodes (recorded node to recorded node,
    /// both in the graph), by node index and the out-edge of the first it left by, sorted: which
    /// edges a run took, for reports (two branches to one node are two edges). At most
    /// [`MAX_RECORDED_MOVES`] are kept; `moves_truncated` says when more were made.
    pub moves: Vec<(usize, usize, Via)>,
    pub moves_truncated: bool,
    /// Error steps by graph node index (a step whose recorded node is in the graph).
    pub node_errors: BTreeMap<usize, u64>,
}

/// Which out-edge of its node a step left by: `next`, the `k`th entry of its `branches` (the
/// step's outcome), or the `k`th of its `on_error` (the step's failure mode, else `*`), both
/// counted in the loaded document's (name) order. `Other` when the node names no edge for
/// what the step did (a divergence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Via {
    Next,
    Branch(u16),
    OnError(u16),
    Other,
}

impl Via {
    /// The edge a step at `node` leaves by: its failure mode's `on_error` entry (else `*`'s)
    /// when it failed; else its outcome's `branches` entry, else `next`.
    pub(crate) fn of_step(
        node: &crate::graph::doc::NodeDoc,
        outcome: Option<&str>,
        failed_mode: Option<&str>,
    ) -> Via {
        let position = |map: &Option<crate::graph::doc::SmallMap<String>>, key: &str| {
            map.as_ref()
                .and_then(|m| m.iter().position(|(k, _)| k == key))
                .and_then(|p| u16::try_from(p).ok())
        };
        if let Some(mode) = failed_mode {
            return position(&node.on_error, mode)
                .or_else(|| position(&node.on_error, "*"))
                .map_or(Via::Other, Via::OnError);
        }
        if let Some(p) = outcome.and_then(|o| position(&node.branches, o)) {
            return Via::Branch(p);
        }
        if node.next.is_some() {
            Via::Next
        } else {
            Via::Other
        }
    }
}

/// At most this many distinct moves are kept per run (a faithful run makes at most one per graph
/// edge; a run that wanders off the graph could make one per step).
pub const MAX_RECORDED_MOVES: usize = 4096;

/// At most this many diagnostics are kept per run (memory stays flat on huge traces); the counts
/// by code include all of them.
pub const MAX_STORED_DIAGNOSTICS: usize = 1000;

#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// The header's `run`, when the header was read.
    pub run: Option<String>,
    /// The trace's name (its path).
    pub trace: String,
    pub verdict: Verdict,
    pub end: Option<EndStatus>,
    pub steps: u64,
    pub first_divergence: Option<FirstDivergence>,
    pub diagnostics: Vec<TraceDiagnostic>,
    pub stats: RunStats,
    /// What replay can vouch for about the run's seal.
    pub seal: SealStatus,
    /// The end event's `signer`, as recorded.
    pub signer: Option<String>,
    /// The header says the run was imported from another tool (SPEC §10): the report says
    /// `"provenance": "imported"`.
    pub imported: bool,
}

impl RunReport {
    pub(crate) fn conclude(
        run: Option<String>,
        trace: String,
        end: Option<EndStatus>,
        steps: u64,
        diagnostics: Vec<TraceDiagnostic>,
        stats: RunStats,
    ) -> RunReport {
        let mut verdict = Verdict::Faithful;
        // From the counts, which include diagnostics past the stored cap.
        for code in stats.codes.keys() {
            // The warnings (D602 another graph, D619 other packs) leave the verdict alone.
            if code != "D602" && code != "D619" {
                verdict = verdict.max(Verdict::of_code(code));
            }
        }
        let mut first_divergence = None;
        for d in &diagnostics {
            if d.diagnostic.severity != Severity::Error {
                continue;
            }
            verdict = verdict.max(Verdict::of_code(&d.diagnostic.code));
            if first_divergence.is_none() {
                first_divergence = Some(FirstDivergence {
                    seq: d.diagnostic.seq.unwrap_or(0),
                    code: d.diagnostic.code.clone(),
                    expected: d.expected.clone(),
                    actual: d.actual.clone(),
                    pointer: d.diagnostic.pointer.clone(),
                    line: d.diagnostic.line,
                    site: d.site.clone(),
                });
            }
        }
        RunReport {
            run,
            trace,
            verdict,
            end,
            steps,
            first_divergence,
            diagnostics,
            stats,
            seal: SealStatus::Absent,
            signer: None,
            imported: false,
        }
    }

    /// The run as §4.2's JSON (fixed key order).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "run".into(),
            self.run.clone().map_or(Value::Null, Value::from),
        );
        m.insert("trace".into(), Value::from(self.trace.clone()));
        m.insert("verdict".into(), Value::from(self.verdict.as_str()));
        m.insert(
            "end".into(),
            self.end.map_or(Value::Null, |e| Value::from(e.as_str())),
        );
        m.insert("steps".into(), Value::from(self.steps));
        if self.imported {
            m.insert("provenance".into(), Value::from("imported"));
        }
        m.insert("seal".into(), Value::from(self.seal.as_str()));
        m.insert(
            "signer".into(),
            self.signer.clone().map_or(Value::Null, Value::from),
        );
        m.insert(
            "first_divergence".into(),
            match &self.first_divergence {
                None => Value::Null,
                Some(f) => {
                    let mut d = Map::new();
                    d.insert("seq".into(), Value::from(f.seq));
                    d.insert("code".into(), Value::from(f.code.as_str()));
                    // SPEC §4.2 names all four keys: no value is `null` here (a diagnostic
                    // keeps the absent/`null` distinction).
                    d.insert("expected".into(), f.expected.clone().unwrap_or(Value::Null));
                    d.insert("actual".into(), f.actual.clone().unwrap_or(Value::Null));
                    d.insert("pointer".into(), Value::from(f.pointer.clone()));
                    d.insert("line".into(), Value::from(f.line));
                    d.insert("node".into(), Value::from(f.site.clone()));
                    Value::Object(d)
                }
            },
        );
        m.insert(
            "diagnostics".into(),
            Value::Array(
                self.diagnostics
                    .iter()
                    .map(TraceDiagnostic::to_json)
                    .collect(),
            ),
        );
        m.insert(
            "task".into(),
            self.stats.task.clone().map_or(Value::Null, Value::from),
        );
        Value::Object(m)
    }
}
