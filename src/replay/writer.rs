//! `TraceWriter`: the library API a runtime uses to record a run in the format of SPEC §4.1. It
//! writes the header (with the graph digest), numbers the events, chains every line to the one
//! before it, and refuses with a typed error any event that would break the format, so what it
//! writes is always readable (and, for a run that followed its graph, replays `faithful`): each
//! line is read back with replay's own parser and line limit before it is written, and the run's
//! spend is summed as replay sums it, so nothing written is a line replay calls malformed.
//! Given a key (`sealed`), it seals the run: the end event carries the `signer` and `sig` of
//! SPEC §4.1. A `Plan` is a whole run to write at once (the simulator's, and the faithful run
//! a fault injector edits).

use super::digest::{Hash, format_hash, graph_digest, sha256};
use super::seal::SealKey;
use super::trace::{
    Cost, DEFAULT_MAX_LINE_BYTES, EndStatus, Evidence, StepError, TRACE_VERSION, TraceHeader,
    usd_to_nanos,
};
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
    #[error(
        "`cost.usd` must be a non-negative amount of at most 18446744073.709551615 USD (replay sums spend in integer nano-USD), not {0}"
    )]
    BadCost(f64),
    /// The run's spend would pass what replay can sum (`u64` nano-USD) at this step.
    #[error(
        "`cost.usd` {0} takes the run's spend past 18446744073.709551615 USD (replay sums spend in integer nano-USD)"
    )]
    SpendOverflow(f64),
    /// The event would be a line replay refuses (`pointer`: where in the event, `""` for the whole).
    #[error("replay would refuse this event{}: {message}", if pointer.is_empty() { String::new() } else { format!(" at `{pointer}`") })]
    Unreadable { pointer: String, message: String },
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
    /// `None` (`"node": null`): an imported step the mapping did not place.
    node: Option<&'a str>,
    primitive: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a StepError>,
    evidence: EvidenceLine<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<&'a Cost>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    partial: bool,
    prev: String,
}

/// A step's evidence, each item marked `"imported": true` when an importer computed it.
struct EvidenceLine<'a> {
    items: &'a [Evidence],
    imported: bool,
}

impl Serialize for EvidenceLine<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        struct Item<'a>(&'a Evidence);
        impl Serialize for Item<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("kind", &self.0.kind)?;
                m.serialize_entry("digest", &self.0.digest)?;
                m.serialize_entry("imported", &true)?;
                m.end()
            }
        }
        if !self.imported {
            return self.items.serialize(s);
        }
        let mut seq = s.serialize_seq(Some(self.items.len()))?;
        for e in self.items {
            seq.serialize_element(&Item(e))?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct EndLine {
    seq: u64,
    end: EndStatus,
    prev: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    signer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sig: Option<String>,
}

/// What an importer knows about a step beyond [`Step`] (SPEC §10): the tool or span name in the
/// source, whether the mapping placed the step at a node, and whether the source captured its
/// input and output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StepOrigin {
    /// The tool or span name in the source (`"source_name"`).
    pub source_name: Option<String>,
    /// No node: the step is written with `"node": null` and `"primitive": null`.
    pub unmapped: bool,
    /// The source did not capture the step's input: the line has no `input` and says
    /// `"partial": true` (SPEC §10: absent, not invented).
    pub input_missing: bool,
    /// The source did not capture the step's output: the line has no `output` and says
    /// `"partial": true`. (An error, when the source recorded one, is written as recorded.)
    pub output_missing: bool,
    /// The evidence was computed by the importer (each item `"imported": true`).
    pub evidence_imported: bool,
}

impl StepOrigin {
    /// Whether the source left out the step's input or output (`"partial": true`).
    pub fn partial(&self) -> bool {
        self.input_missing || self.output_missing
    }
}

/// Writes one run.
pub struct TraceWriter<W: Write> {
    out: W,
    prev: Hash,
    seq: u64,
    ended: bool,
    line: Vec<u8>,
    run: String,
    seal: Option<SealKey>,
    /// The run's spend so far in nano-USD, summed as replay sums it.
    spend_nanos: u64,
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
            imported: None,
            packs: None,
        };
        TraceWriter::new(out, &header)
    }

    /// [`TraceWriter::for_graph`] of a graph loaded for replay: the header also records the
    /// packs the graph was loaded with (SPEC §9.2), so replay can tell when they changed (D619).
    pub fn for_loaded_graph(
        out: W,
        run: &str,
        graph: &super::graph::ReplayGraph,
        input: Value,
    ) -> Result<TraceWriter<W>, WriteError> {
        let header = TraceHeader {
            trace: TRACE_VERSION.to_string(),
            run: run.to_string(),
            graph: graph.name.clone(),
            graph_digest: graph.digest.clone(),
            abi: graph.abi.clone(),
            input,
            imported: None,
            packs: (!graph.packs.is_empty()).then(|| graph.packs.clone()),
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
        let digest_ok = super::digest::is_sha256(&header.graph_digest);
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
            run: header.run.clone(),
            seal: None,
            spend_nanos: 0,
        };
        let mut header = header.clone();
        header.trace = TRACE_VERSION.to_string();
        writer.encode(&header)?;
        if let Err(e) = super::trace::parse_header(&writer.line) {
            return Err(WriteError::Unreadable {
                pointer: e.pointer,
                message: e.message,
            });
        }
        writer.commit()?;
        Ok(writer)
    }

    /// Seal the run with `key`: the end event will carry `signer` and `sig` (SPEC §4.1).
    ///
    /// ```
    /// use primgraph::replay::{EndStatus, SealKey, TraceWriter};
    /// let graph = serde_json::json!({"graph": "g", "abi": "1.0.0", "entry": "a", "nodes": []});
    /// let key = SealKey::generate();
    /// let mut w = TraceWriter::for_graph(Vec::new(), "r-1", &graph, serde_json::json!({}))?
    ///     .sealed(key.clone());
    /// w.end(EndStatus::Failure)?;
    /// let text = String::from_utf8(w.finish()?).unwrap();
    /// assert!(text.contains(&format!("\"signer\":\"{}\"", key.signer())));
    /// # Ok::<(), primgraph::replay::WriteError>(())
    /// ```
    pub fn sealed(mut self, key: SealKey) -> Self {
        self.seal = Some(key);
        self
    }

    fn emit<T: Serialize>(&mut self, line: &T) -> Result<(), WriteError> {
        self.encode(line)?;
        self.commit()
    }

    /// Serialize `line` into the buffer (nothing written, the chain unchanged); a line longer
    /// than replay reads is refused.
    fn encode<T: Serialize>(&mut self, line: &T) -> Result<(), WriteError> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, line)?;
        if self.line.len() > DEFAULT_MAX_LINE_BYTES {
            return Err(WriteError::Unreadable {
                pointer: String::new(),
                message: format!(
                    "the line would be {} bytes; replay reads lines of at most {DEFAULT_MAX_LINE_BYTES}",
                    self.line.len()
                ),
            });
        }
        Ok(())
    }

    /// Chain and write the encoded line.
    fn commit(&mut self) -> Result<(), WriteError> {
        self.prev = sha256(&self.line);
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        Ok(())
    }

    /// Record one step; returns its `seq`.
    pub fn step(&mut self, step: &Step) -> Result<u64, WriteError> {
        self.step_from(step, &StepOrigin::default())
    }

    /// Record one imported step with its origin (SPEC §10); returns its `seq`. An unmapped step
    /// needs a `source_name` and ignores `step.node` and `step.primitive`.
    pub fn step_from(&mut self, step: &Step, origin: &StepOrigin) -> Result<u64, WriteError> {
        if self.ended {
            return Err(WriteError::AfterEnd);
        }
        if origin.unmapped {
            if origin.source_name.as_deref().is_none_or(str::is_empty) {
                return Err(WriteError::Empty {
                    field: "source_name",
                });
            }
        } else {
            if step.node.is_empty() {
                return Err(WriteError::Empty { field: "node" });
            }
            if step.primitive.is_empty() {
                return Err(WriteError::Empty { field: "primitive" });
            }
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
        let mut spend = self.spend_nanos;
        if let Some(cost) = &step.cost {
            let nanos = usd_to_nanos(cost.usd).ok_or(WriteError::BadCost(cost.usd))?;
            spend = spend
                .checked_add(nanos)
                .ok_or(WriteError::SpendOverflow(cost.usd))?;
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
            node: (!origin.unmapped).then_some(step.node.as_str()),
            primitive: (!origin.unmapped).then_some(step.primitive.as_str()),
            source_name: origin.source_name.as_deref(),
            input: (!origin.input_missing).then_some(&step.input),
            output: output.filter(|_| !origin.output_missing),
            outcome,
            error,
            evidence: EvidenceLine {
                items: &step.evidence,
                imported: origin.evidence_imported,
            },
            cost: step.cost.as_ref(),
            partial: origin.partial(),
            prev: format_hash(&self.prev),
        };
        self.encode(&line)?;
        // Read back with replay's parser (nesting deeper than it reads, …): refused unwritten.
        if let Err(e) = super::trace::parse_event(&self.line) {
            return Err(WriteError::Unreadable {
                pointer: e.pointer,
                message: e.message,
            });
        }
        self.commit()?;
        self.seq = seq;
        self.spend_nanos = spend;
        Ok(seq)
    }

    /// Record the end of the run; no event may follow.
    pub fn end(&mut self, status: EndStatus) -> Result<u64, WriteError> {
        if self.ended {
            return Err(WriteError::AfterEnd);
        }
        let seq = self.seq + 1;
        let prev = format_hash(&self.prev);
        let (signer, sig) = match &self.seal {
            Some(key) => (
                Some(key.signer()),
                Some(key.sign_end(&self.run, seq, status.as_str(), &prev)),
            ),
            None => (None, None),
        };
        let line = EndLine {
            seq,
            end: status,
            prev,
            signer,
            sig,
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

/// A run as a whole, before it is written: the header, the steps and the end status, as the
/// simulator's walk chooses them and fault injection edits them (`simulate`, `replay/fault.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub header: TraceHeader,
    pub steps: Vec<Step>,
    pub end: EndStatus,
}

impl Plan {
    /// The trace of the plan, sealed with `seal` when given.
    pub(crate) fn write(&self, seal: Option<&SealKey>) -> Result<Vec<u8>, WriteError> {
        let mut w = TraceWriter::new(Vec::new(), &self.header)?;
        if let Some(key) = seal {
            w = w.sealed(key.clone());
        }
        for s in &self.steps {
            w.step(s)?;
        }
        w.end(self.end)?;
        w.finish()
    }
}
