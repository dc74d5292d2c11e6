//! The replay engine (SPEC §4.2): walks the graph from `entry` alongside one trace, read line by
//! line, without running any primitive, and reports every check of §4.2 as a D6xx diagnostic.
//! The checks themselves live in `codes/`, one file per code; this file owns the walk, the
//! per-run state and the compiled schema validators shared by every run of a corpus.

use super::codes::{self, d603::Expected};
use super::digest::{Hash, sha256};
use super::graph::{NodeIdx, ReplayGraph};
use super::report::{RunReport, RunStats, TraceDiagnostic};
use super::trace::{
    DEFAULT_MAX_LINE_BYTES, EndStatus, Event, Line, LinePos, LineReader, TraceHeader,
};
use crate::codes::{Code, D601, D616};
use crate::diagnostic::Diagnostic;
use crate::registry::{PrimIdx, Registry};
use jsonschema::Validator;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    /// A line longer than this is malformed (D616) and is never held in memory.
    pub max_line_bytes: usize,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// The compiled input and output schemas of one primitive (`None`: the schema does not compile,
/// which the registry lint reports as L505; replay then skips that check).
pub(crate) struct PrimValidators {
    pub(crate) input: Option<Validator>,
    pub(crate) output: Option<Validator>,
}

/// Replays traces of one graph against one registry. Shareable across threads: the compiled
/// validators are built once, on first use, for the whole corpus.
pub struct Replayer<'r> {
    pub(crate) registry: &'r Registry,
    pub(crate) graph: ReplayGraph,
    pub(crate) options: ReplayOptions,
    validators: Vec<OnceLock<PrimValidators>>,
    pub(crate) run_input: Option<Validator>,
}

impl<'r> Replayer<'r> {
    pub fn new(registry: &'r Registry, graph: ReplayGraph, options: ReplayOptions) -> Replayer<'r> {
        let run_input = graph
            .input_schema
            .as_ref()
            .and_then(|s| jsonschema::validator_for(s).ok());
        Replayer {
            registry,
            graph,
            options,
            validators: (0..registry.len()).map(|_| OnceLock::new()).collect(),
            run_input,
        }
    }

    pub fn graph(&self) -> &ReplayGraph {
        &self.graph
    }

    pub fn registry(&self) -> &'r Registry {
        self.registry
    }

    pub(crate) fn validators(&self, prim: PrimIdx) -> Option<&PrimValidators> {
        let cell = self.validators.get(prim as usize)?;
        Some(cell.get_or_init(|| {
            let p = self.registry.get(prim);
            PrimValidators {
                input: jsonschema::validator_for(&p.inputs).ok(),
                output: jsonschema::validator_for(&p.outputs).ok(),
            }
        }))
    }

    /// Replay one trace given as bytes.
    pub fn replay_slice(&self, trace: &str, bytes: &[u8]) -> RunReport {
        self.replay_reader(trace, bytes)
    }

    /// Replay one trace, streaming it line by line.
    pub fn replay_reader<R: Read>(&self, trace: &str, reader: R) -> RunReport {
        self.replay_bufread(trace, BufReader::with_capacity(64 * 1024, reader))
    }

    pub fn replay_bufread<R: BufRead>(&self, trace: &str, reader: R) -> RunReport {
        let mut lines = LineReader::new(reader, self.options.max_line_bytes);
        let mut run = RunState::new(self);
        loop {
            match lines.next_line() {
                Err(e) => {
                    let pos = lines.position();
                    run.stop_malformed(
                        pos,
                        format!("cannot read the trace: {e}"),
                        String::new(),
                        1,
                    );
                    break;
                }
                Ok(None) => break,
                Ok(Some((pos, line))) => {
                    if !run.line(pos, line) {
                        break;
                    }
                }
            }
        }
        run.finish(lines.position());
        run.into_report(trace)
    }
}

/// The state of one run being replayed.
pub(crate) struct RunState<'a, 'r> {
    pub(crate) replayer: &'a Replayer<'r>,
    pub(crate) diagnostics: Vec<TraceDiagnostic>,
    pub(crate) header: Option<TraceHeader>,
    pub(crate) last_seq: u64,
    pub(crate) prev_hash: Hash,
    pub(crate) expected: Expected,
    /// Each node's latest output; `None` when it never ran or its latest step errored.
    pub(crate) latest: Vec<Option<Value>>,
    pub(crate) visits: Vec<u32>,
    pub(crate) visits_reported: Vec<bool>,
    pub(crate) steps: u64,
    pub(crate) spend_nanos: u64,
    pub(crate) steps_reported: bool,
    pub(crate) spend_reported: bool,
    pub(crate) granted: bool,
    pub(crate) ended: Option<EndStatus>,
    /// Set when a line made the rest unreadable: nothing after it is checked.
    pub(crate) stopped: bool,
    pub(crate) stats: RunStats,
    /// The line being checked.
    pub(crate) pos: LinePos,
    pub(crate) seq: u64,
    pub(crate) site: String,
    /// Where a diagnostic past the stored cap is written (and dropped).
    overflow: Option<Diagnostic>,
}

/// USD to integer nano-USD (rounded; saturating).
pub(crate) fn nanos(usd: f64) -> u64 {
    let n = (usd * 1e9).round();
    if n.is_finite() && n > 0.0 {
        n.min(u64::MAX as f64) as u64
    } else {
        0
    }
}

impl<'a, 'r> RunState<'a, 'r> {
    fn new(replayer: &'a Replayer<'r>) -> RunState<'a, 'r> {
        let n = replayer.graph.nodes.len();
        RunState {
            replayer,
            diagnostics: Vec::new(),
            header: None,
            last_seq: 0,
            prev_hash: [0; 32],
            expected: Expected::start(&replayer.graph),
            latest: vec![None; n],
            visits: vec![0; n],
            visits_reported: vec![false; n],
            steps: 0,
            spend_nanos: 0,
            steps_reported: false,
            spend_reported: false,
            granted: false,
            ended: None,
            stopped: false,
            stats: RunStats::default(),
            pos: LinePos {
                number: 1,
                offset: 0,
            },
            seq: 0,
            site: "(header)".into(),
            overflow: None,
        }
    }

    pub(crate) fn graph(&self) -> &'a ReplayGraph {
        &self.replayer.graph
    }

    pub(crate) fn registry(&self) -> &'r Registry {
        self.replayer.registry
    }

    /// Record a diagnostic about the current line.
    pub(crate) fn report(
        &mut self,
        code: &'static Code,
        pointer: impl Into<String>,
        message: impl Into<String>,
        expected: Value,
        actual: Value,
    ) -> &mut Diagnostic {
        let mut diagnostic = code.at(pointer, message);
        let code = code.code;
        diagnostic.seq = Some(self.seq);
        diagnostic.line = self.pos.number;
        diagnostic.column = 1;
        *self.stats.codes.entry(code.to_string()).or_insert(0) += 1;
        if self.diagnostics.len() >= super::report::MAX_STORED_DIAGNOSTICS {
            self.stats.suppressed += 1;
            return self.overflow.insert(diagnostic);
        }
        self.diagnostics.push(TraceDiagnostic {
            diagnostic,
            byte: self.pos.offset,
            expected,
            actual,
            site: self.site.clone(),
        });
        let last = self.diagnostics.len() - 1;
        &mut self.diagnostics[last].diagnostic
    }

    /// A line that cannot be read ends the run as malformed (D616 after the header, D601 for it).
    pub(crate) fn stop_malformed(
        &mut self,
        pos: LinePos,
        message: String,
        pointer: String,
        column: u32,
    ) {
        self.pos = pos;
        self.site = "(unreadable line)".into();
        let code = if self.header.is_none() { &D601 } else { &D616 };
        self.seq = if self.header.is_none() {
            0
        } else {
            self.last_seq + 1
        };
        self.report(code, pointer, message, Value::Null, Value::Null)
            .column = column.max(1);
        self.stopped = true;
    }

    /// Check one line; `false` stops reading.
    fn line(&mut self, pos: LinePos, line: Line<'_>) -> bool {
        self.pos = pos;
        if self.ended.is_some() {
            self.site = "(after end)".into();
            self.seq = self.last_seq + 1;
            self.check_d614_after_end();
            self.stopped = true;
            return false;
        }
        let (bytes, terminated) = match line {
            Line::TooLong { len } => {
                let limit = self.replayer.options.max_line_bytes;
                self.stop_malformed(
                    pos,
                    format!(
                        "line {} is {len} bytes long, over the limit of {limit} bytes",
                        pos.number
                    ),
                    String::new(),
                    1,
                );
                return false;
            }
            Line::Text { bytes, terminated } => (bytes, terminated),
        };
        if self.header.is_none() {
            return self.header_line(bytes, terminated);
        }
        let event = match codes::d616::parse_line(bytes, terminated) {
            Ok(e) => e,
            Err(e) => {
                self.stop_malformed(pos, e.message, e.pointer, e.column);
                return false;
            }
        };
        self.seq = event.seq();
        self.site = match &event {
            Event::Step(s) => s.node.clone(),
            Event::End(_) => "(end)".into(),
        };
        let chain_ok = self.check_d615(event.prev());
        let seq_ok = self.check_d617(event.seq());
        if !chain_ok || !seq_ok {
            self.stopped = true;
            return false;
        }
        self.prev_hash = sha256(bytes);
        self.last_seq = event.seq();
        match event {
            Event::Step(step) => self.step(step),
            Event::End(end) => self.end(end.end),
        }
        true
    }

    fn header_line(&mut self, bytes: &[u8], terminated: bool) -> bool {
        self.seq = 0;
        self.site = "(header)".into();
        match self.check_d601(bytes, terminated) {
            Some(header) => {
                self.prev_hash = sha256(bytes);
                self.check_d602(&header);
                self.check_run_input(&header);
                self.header = Some(header);
                true
            }
            None => {
                self.stopped = true;
                false
            }
        }
    }

    fn step(&mut self, step: super::trace::StepEvent) {
        self.steps += 1;
        *self.stats.visits.entry(step.node.clone()).or_insert(0) += 1;
        self.spend_nanos = self.spend_nanos.saturating_add(nanos(step.cost.usd));
        let expected = std::mem::replace(&mut self.expected, Expected::Free);
        let node = self.check_d603(&expected, &step.node);
        let running = self.check_d604(&expected, node, &step.primitive);
        if let Err(error) = &step.result {
            let prim_name = running
                .map(|p| self.registry().get(p).id.clone())
                .unwrap_or_else(|| step.primitive.clone());
            *self
                .stats
                .failure_modes
                .entry(prim_name)
                .or_default()
                .entry(error.mode.clone())
                .or_insert(0) += 1;
        }
        if let Some(n) = node
            && let Some(v) = self.visits.get_mut(n)
        {
            *v = v.saturating_add(1);
        }
        if let Some(prim) = running {
            self.check_d606(prim, &step.input);
            if let Some(n) = node {
                self.check_d605(n, prim, &step.input);
            }
            if let Ok(output) = &step.result {
                self.check_d607(prim, output);
            }
            self.check_d608(prim, &step.evidence);
            if let Err(error) = &step.result {
                self.check_d609(prim, &error.mode);
            } else {
                self.check_d610(prim, step.outcome.as_deref());
            }
        }
        if let Some(n) = node {
            self.check_d611(n);
        }
        self.check_d612();
        if let Some(prim) = running {
            self.check_d613(prim);
        }
        self.expected = match node {
            Some(n) => self.transition(n, running, &step),
            None => Expected::Free,
        };
        if let Some(n) = node
            && let Some(slot) = self.latest.get_mut(n)
        {
            *slot = step.result.ok();
        }
    }

    fn transition(
        &mut self,
        node: NodeIdx,
        running: Option<PrimIdx>,
        step: &super::trace::StepEvent,
    ) -> Expected {
        let graph = self.graph();
        let Some(n) = graph.node(node) else {
            return Expected::Free;
        };
        let prim = running.unwrap_or(n.primitive);
        let (next, grant) = codes::d603::select_next(self.registry(), graph, node, prim, step);
        if grant {
            self.granted = true;
        }
        next
    }

    fn end(&mut self, status: EndStatus) {
        self.ended = Some(status);
        let expected = std::mem::replace(&mut self.expected, Expected::Free);
        self.check_d614_end(&expected, status);
    }

    fn finish(&mut self, eof: LinePos) {
        if self.stopped || self.ended.is_some() {
            return;
        }
        self.pos = eof;
        self.site = "(end of trace)".into();
        if self.header.is_none() {
            self.seq = 0;
            self.report(
                &D601,
                "",
                "the trace is empty: it has no header",
                Value::from("a trace header"),
                Value::Null,
            );
            return;
        }
        self.seq = self.last_seq + 1;
        self.check_d614_eof();
    }

    fn into_report(self, trace: &str) -> RunReport {
        let mut stats = self.stats;
        stats.spend_nanos = self.spend_nanos;
        RunReport::conclude(
            self.header.map(|h| h.run),
            trace.to_string(),
            self.ended,
            self.steps,
            self.diagnostics,
            stats,
        )
    }
}
