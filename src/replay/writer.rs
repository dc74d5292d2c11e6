//! `TraceWriter`: the library API a runtime uses to record a run in the format of SPEC §4.1. It
//! writes the header (with the graph digest), numbers the events, chains every line to the one
//! before it, and refuses with a typed error any event that would break the format, so what it
//! writes is always readable (and, for a run that followed its graph, replays `faithful`).

use super::digest::{Hash, format_hash, graph_digest, sha256};
use super::trace::{Cost, EndStatus, Evidence, StepError, TRACE_VERSION, TraceHeader};
use serde::Serialize;
use serde_json::Value;
use std::io::Write;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    #[error("cannot write the trace: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot encode the event: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("the run has already ended: no event may follow the end")]
    AfterEnd,
    #[error("`{field}` must not be empty")]
    Empty { field: &'static str },
    #[error("`{field}` must be a JSON object")]
    NotAnObject { field: &'static str },
    #[error("`cost.usd` must be a finite non-negative number, not {0}")]
    BadCost(f64),
    #[error("the header's `graph_digest` must be `sha256:` and 64 lowercase hex digits")]
    BadDigest,
}

/// What a step produced: an output (with the outcome of a decision primitive) or an error.
#[derive(Debug, Clone, PartialEq)]
pub enum StepResult {
    Output {
        output: Value,
        outcome: Option<String>,
    },
    Error(StepError),
}

/// One step as a runtime records it; the writer adds `seq` and `prev`.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub node: String,
    pub primitive: String,
    pub input: Value,
    pub result: StepResult,
    pub evidence: Vec<Evidence>,
    pub cost: Option<Cost>,
}

#[derive(Serialize)]
struct StepLine<'a> {
    seq: u64,
    node: &'a str,
    primitive: &'a str,
    input: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a StepError>,
    evidence: &'a [Evidence],
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<&'a Cost>,
    prev: String,
}

#[derive(Serialize)]
struct EndLine {
    seq: u64,
    end: EndStatus,
    prev: String,
}

/// Writes one run.
pub struct TraceWriter<W: Write> {
    out: W,
    prev: Hash,
    seq: u64,
    ended: bool,
    line: Vec<u8>,
}

impl<W: Write> TraceWriter<W> {
    /// Start a run of `graph_document` (the graph as parsed JSON; its digest is computed here).
    pub fn for_graph(
        out: W,
        run: &str,
        graph_document: &Value,
        input: Value,
    ) -> Result<TraceWriter<W>, WriteError> {
        let name = graph_document
            .get("graph")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let abi = graph_document
            .get("abi")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let header = TraceHeader {
            trace: TRACE_VERSION.to_string(),
            run: run.to_string(),
            graph: name.to_string(),
            graph_digest: graph_digest(graph_document)?,
            abi: abi.to_string(),
            input,
        };
        TraceWriter::new(out, &header)
    }

    /// Start a run with a header given in full.
    pub fn new(out: W, header: &TraceHeader) -> Result<TraceWriter<W>, WriteError> {
        for (field, value) in [
            ("run", &header.run),
            ("graph", &header.graph),
            ("abi", &header.abi),
        ] {
            if value.is_empty() {
                return Err(WriteError::Empty { field });
            }
        }
        let digest_ok = header
            .graph_digest
            .strip_prefix("sha256:")
            .is_some_and(|h| {
                h.len() == 64
                    && h.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            });
        if !digest_ok {
            return Err(WriteError::BadDigest);
        }
        if !header.input.is_object() {
            return Err(WriteError::NotAnObject { field: "input" });
        }
        let mut writer = TraceWriter {
            out,
            prev: [0; 32],
            seq: 0,
            ended: false,
            line: Vec::with_capacity(512),
        };
        let mut header = header.clone();
        header.trace = TRACE_VERSION.to_string();
        writer.emit(&header)?;
        Ok(writer)
    }

    fn emit<T: Serialize>(&mut self, line: &T) -> Result<(), WriteError> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, line)?;
        self.prev = sha256(&self.line);
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        Ok(())
    }

    /// Record one step; returns its `seq`.
    pub fn step(&mut self, step: &Step) -> Result<u64, WriteError> {
        if self.ended {
            return Err(WriteError::AfterEnd);
        }
        if step.node.is_empty() {
            return Err(WriteError::Empty { field: "node" });
        }
        if step.primitive.is_empty() {
            return Err(WriteError::Empty { field: "primitive" });
        }
        if !step.input.is_object() {
            return Err(WriteError::NotAnObject { field: "input" });
        }
        let (output, outcome, error) = match &step.result {
            StepResult::Output { output, outcome } => {
                if !output.is_object() {
                    return Err(WriteError::NotAnObject { field: "output" });
                }
                if outcome.as_deref() == Some("") {
                    return Err(WriteError::Empty { field: "outcome" });
                }
                (Some(output), outcome.as_deref(), None)
            }
            StepResult::Error(error) => {
                if error.mode.is_empty() {
                    return Err(WriteError::Empty {
                        field: "error.mode",
                    });
                }
                (None, None, Some(error))
            }
        };
        if let Some(cost) = &step.cost
            && (!cost.usd.is_finite() || cost.usd < 0.0)
        {
            return Err(WriteError::BadCost(cost.usd));
        }
        for e in &step.evidence {
            if e.kind.is_empty() {
                return Err(WriteError::Empty {
                    field: "evidence.kind",
                });
            }
        }
        let seq = self.seq + 1;
        let line = StepLine {
            seq,
            node: &step.node,
            primitive: &step.primitive,
            input: &step.input,
            output,
            outcome,
            error,
            evidence: &step.evidence,
            cost: step.cost.as_ref(),
            prev: format_hash(&self.prev),
        };
        self.emit(&line)?;
        self.seq = seq;
        Ok(seq)
    }

    /// Record the end of the run; no event may follow.
    pub fn end(&mut self, status: EndStatus) -> Result<u64, WriteError> {
        if self.ended {
            return Err(WriteError::AfterEnd);
        }
        let seq = self.seq + 1;
        let line = EndLine {
            seq,
            end: status,
            prev: format_hash(&self.prev),
        };
        self.emit(&line)?;
        self.seq = seq;
        self.ended = true;
        Ok(seq)
    }

    /// Flush and hand the output back.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.out.flush()?;
        Ok(self.out)
    }
}
