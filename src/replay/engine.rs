//! The replay engine (SPEC §4.2): walks the graph from `entry` alongside one trace, read line by
//! line, without running any primitive, and reports every check of §4.2 as a D6xx diagnostic.
//! The checks themselves live in `codes/`, one file per code; this file owns the walk, the
//! per-run state and the compiled schema validators shared by every run of a corpus.

use super::digest::{Hash, sha256};
use super::graph::{NodeIdx, ReplayGraph};
use super::next_node::{Expected, select_next};
use super::report::{RunReport, RunStats, SealStatus, TraceDiagnostic};
use super::seal::TrustedKey;
use super::step_memo::StepMemo;
use super::trace::{
    DEFAULT_MAX_LINE_BYTES, EndStatus, Event, Line, LinePos, LineReader, TraceHeader, usd_to_nanos,
};
use crate::codes::{Code, D601, D616};
use crate::diagnostic::Diagnostic;
use crate::registry::{CompiledSchema, PrimIdx, Registry};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

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

/// Replays traces of one graph against one registry. Shareable across threads: the compiled
/// validators are the registry's (built once per primitive, on first use, for every corpus and
/// every graph checked against it).
pub struct Replayer<'r> {
    pub(crate) registry: &'r Registry,
    pub(crate) graph: ReplayGraph,
    pub(crate) options: ReplayOptions,
    pub(crate) run_input: Option<CompiledSchema>,
    /// The keys whose seals are accepted; when not empty, every run must carry a valid seal by
    /// one of them (D618).
    pub(crate) trusted: Vec<TrustedKey>,
}

impl<'r> Replayer<'r> {
    pub fn new(registry: &'r Registry, graph: ReplayGraph, options: ReplayOptions) -> Replayer<'r> {
        let run_input = graph
            .input_schema
            .as_ref()
            .and_then(|s| CompiledSchema::compile(s).ok());
        Replayer {
            registry,
            graph,
            options,
            run_input,
            trusted: Vec::new(),
        }
    }

    /// Require every run to be sealed by one of `keys` (`replay --trust`): a missing seal, or
    /// one by another key, is D618. An empty list requires nothing (a seal that does not verify
    /// is D618 either way).
    pub fn with_trusted_keys(mut self, keys: Vec<TrustedKey>) -> Replayer<'r> {
        self.trusted = keys;
        self
    }

    /// The keys set with [`Replayer::with_trusted_keys`].
    pub fn trusted_keys(&self) -> &[TrustedKey] {
        &self.trusted
    }

    pub fn graph(&self) -> &ReplayGraph {
        &self.graph
    }

    pub fn registry(&self) -> &'r Registry {
        self.registry
    }

    /// The compiled output schema of `prim` (`None`: it does not compile, lint L505).
    pub(crate) fn output_validator(&self, prim: PrimIdx) -> Option<&'r CompiledSchema> {
        self.registry.output_validator(prim)
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
                    run.stop_unreadable(lines.position(), &e);
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
    /// Shared (not copied) with the other run of a paired replay.
    pub(crate) header: Option<Arc<TraceHeader>>,
    /// The run ID the header names, kept when the header is refused (D601) as long as it is an
    /// object with a string `run` (SPEC §4.2's report has `run`; §9.5 keys runs by it).
    pub(crate) run_id: Option<String>,
    pub(crate) last_seq: u64,
    pub(crate) prev_hash: Hash,
    /// Whether the previous line ended in `\r` (for D615's line-ending hint).
    pub(crate) prev_line_cr: bool,
    pub(crate) seal: SealStatus,
    pub(crate) signer: Option<String>,
    pub(crate) expected: Expected,
    /// Each node's latest step, kept only when it has an output (`None`: it never ran or its
    /// latest step errored). The event is shared, not copied: a paired replay's two runs hold
    /// the same one.
    pub(crate) latest: Vec<Option<Arc<Event>>>,
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
    pub(crate) site: Site,
    /// Where a diagnostic past the stored cap is written (and dropped).
    overflow: Option<Diagnostic>,
    /// The previous step's node (when it is in the graph), the edge it left by, and the
    /// distinct moves so far.
    prev_node: Option<NodeIdx>,
    prev_via: super::report::Via,
    moves: rustc_hash::FxHashSet<(NodeIdx, NodeIdx, super::report::Via)>,
}

/// Where in the run the line being checked is (a diagnostic's `site`): written out only when a
/// diagnostic is reported, so checking a clean line copies no node ID.
pub(crate) enum Site {
    Fixed(&'static str),
    /// A step's node, or `(end)` for the end event.
    Event(Arc<Event>),
}

impl Site {
    fn text(&self) -> String {
        match self {
            Site::Fixed(s) => (*s).to_string(),
            Site::Event(e) => match &**e {
                Event::Step(s) => s.node.clone(),
                Event::End(_) => "(end)".into(),
            },
        }
    }
}

/// A budget in USD as integer nano-USD: a budget too large for a `u64` of nano-USD is one no
/// run can exceed (every step's spend is checked to fit, and so is the run's sum), so it is
/// `u64::MAX`; a negative or non-finite one (the loader refuses those) allows nothing.
pub(crate) fn budget_nanos(usd: f64) -> u64 {
    match usd_to_nanos(usd) {
        Some(n) => n,
        None if usd.is_finite() && usd > 0.0 => u64::MAX,
        None => 0,
    }
}

impl<'a, 'r> RunState<'a, 'r> {
    pub(crate) fn new(replayer: &'a Replayer<'r>) -> RunState<'a, 'r> {
        let n = replayer.graph.nodes.len();
        RunState {
            replayer,
            diagnostics: Vec::new(),
            header: None,
            run_id: None,
            last_seq: 0,
            prev_hash: [0; 32],
            prev_line_cr: false,
            seal: SealStatus::Absent,
            signer: None,
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
            site: Site::Fixed("(header)"),
            overflow: None,
            prev_node: None,
            prev_via: super::report::Via::Other,
            moves: rustc_hash::FxHashSet::default(),
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
        expected: Option<Value>,
        actual: Option<Value>,
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
            site: self.site.text(),
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
        self.site = Site::Fixed("(unreadable line)");
        let code = if self.header.is_none() { &D601 } else { &D616 };
        self.seq = if self.header.is_none() {
            0
        } else {
            self.last_seq + 1
        };
        self.report(code, pointer, message, None, None).column = column.max(1);
        self.stopped = true;
    }

    /// The trace could not be read further (an I/O error): malformed, as [`Self::stop_malformed`].
    pub(crate) fn stop_unreadable(&mut self, pos: LinePos, error: &std::io::Error) {
        self.stop_malformed(
            pos,
            format!("cannot read the trace: {error}"),
            String::new(),
            1,
        );
    }

    /// Check one line; `false` stops reading.
    pub(crate) fn line(&mut self, pos: LinePos, line: Line<'_>) -> bool {
        self.pos = pos;
        if self.ended.is_some() {
            self.site = Site::Fixed("(after end)");
            self.seq = self.last_seq + 1;
            // SPEC §5: anything after the end event (an event, a second header, a line that
            // does not parse, a blank line) is D614, "events after the end": one run per file.
            let second_header = matches!(line, Line::Text { bytes, .. }
                if super::trace::parse_header(bytes).is_ok());
            self.check_d614_after_end(second_header);
            self.stopped = true;
            return false;
        }
        let (bytes, terminated) = match line {
            Line::TooLong { len } => {
                let limit = self.replayer.options.max_line_bytes;
                self.stop_malformed(
                    pos,
                    format!(
                        "line {} is {len} bytes long, over the limit of {limit} bytes (raise it with --max-line-bytes)",
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
        let event = match super::trace::parse_line(bytes, terminated, pos.number) {
            Ok(e) => e,
            Err(e) => {
                self.stop_malformed(pos, e.message, e.pointer, e.column);
                return false;
            }
        };
        self.event(
            Arc::new(event),
            bytes.last() == Some(&b'\r'),
            || sha256(bytes),
            None,
        )
    }

    /// Whether the next line is an event line this run will check (its header is read and it
    /// has not ended or stopped): the lines a paired replay parses once for both runs.
    pub(crate) fn awaits_event(&self) -> bool {
        self.header.is_some() && self.ended.is_none() && !self.stopped
    }

    /// Whether the next line is the header line this run will check.
    pub(crate) fn awaits_header(&self) -> bool {
        self.header.is_none() && self.ended.is_none() && !self.stopped
    }

    /// Check a parsed event line at `pos` (`line_cr`: the line's bytes end in `\r`; `hash`: the
    /// SHA-256 of the line's bytes; `memo`: the checks the other run of a paired replay already
    /// made of this line); `false` stops reading.
    pub(crate) fn event_at(
        &mut self,
        pos: LinePos,
        event: Arc<Event>,
        line_cr: bool,
        hash: Hash,
        memo: &mut StepMemo<'_>,
    ) -> bool {
        self.pos = pos;
        self.event(event, line_cr, || hash, Some(memo))
    }

    /// Check the header line at `pos`, parsed (`header`), its task key and hash computed by the
    /// caller (a paired replay does it once for both runs); `false` stops reading.
    pub(crate) fn header_at(
        &mut self,
        pos: LinePos,
        header: Arc<TraceHeader>,
        line_cr: bool,
        hash: Hash,
        task: String,
    ) -> bool {
        self.pos = pos;
        self.header_parsed(Ok(header), true, line_cr, || hash, Some(task))
    }

    fn event(
        &mut self,
        event: Arc<Event>,
        line_cr: bool,
        hash: impl FnOnce() -> Hash,
        memo: Option<&mut StepMemo<'_>>,
    ) -> bool {
        self.seq = event.seq();
        self.site = Site::Event(Arc::clone(&event));
        let chain_ok = self.check_d615(event.prev(), line_cr);
        let seq_ok = self.check_d617(event.seq());
        if !chain_ok || !seq_ok {
            self.stopped = true;
            return false;
        }
        if let Event::Step(step) = &*event {
            let add = usd_to_nanos(step.cost.usd);
            match add.and_then(|n| self.spend_nanos.checked_add(n)) {
                Some(total) => self.spend_nanos = total,
                None => {
                    let message = format!(
                        "the run's spend passes 18446744073.709551615 USD at this step (u64 nano-USD), which cannot be summed exactly; {} USD here",
                        step.cost.usd
                    );
                    self.stop_malformed(self.pos, message, "/cost/usd".into(), 1);
                    return false;
                }
            }
        }
        self.prev_hash = hash();
        self.prev_line_cr = line_cr;
        self.last_seq = event.seq();
        match &*event {
            Event::Step(_) => self.step(&event, memo),
            Event::End(end) => self.end(end),
        }
        true
    }

    fn header_line(&mut self, bytes: &[u8], terminated: bool) -> bool {
        let parsed = super::trace::parse_header(bytes).map(Arc::new);
        if parsed.is_err() {
            self.run_id = super::trace::header_run_id(bytes);
        }
        self.header_parsed(
            parsed,
            terminated,
            bytes.last() == Some(&b'\r'),
            || sha256(bytes),
            None,
        )
    }

    /// `task`: the header's task key, when the caller has it (else computed here).
    fn header_parsed(
        &mut self,
        parsed: Result<Arc<TraceHeader>, super::trace::LineError>,
        terminated: bool,
        line_cr: bool,
        hash: impl FnOnce() -> Hash,
        task: Option<String>,
    ) -> bool {
        self.seq = 0;
        self.site = Site::Fixed("(header)");
        if let Ok(header) = &parsed {
            self.run_id = Some(header.run.clone());
        }
        match self.check_d601(parsed, terminated) {
            Some(header) => {
                self.prev_hash = hash();
                self.prev_line_cr = line_cr;
                self.check_d602(&header);
                self.check_d619(&header);
                self.check_run_input(&header);
                self.stats.task =
                    Some(task.unwrap_or_else(|| super::digest::task_key(&header.input)));
                self.header = Some(header);
                true
            }
            None => {
                self.stopped = true;
                false
            }
        }
    }

    fn step(&mut self, event: &Arc<Event>, mut memo: Option<&mut StepMemo<'_>>) {
        let Event::Step(step) = &**event else { return };
        self.steps += 1;
        if step.unmapped {
            // An imported step the mapping did not place (SPEC §10): a divergence, never dropped;
            // nothing is known of it to check, and the walk resynchronises on the next step.
            let expected = std::mem::replace(&mut self.expected, Expected::Free);
            self.check_d603_unmapped(&expected, step.source_name.as_deref().unwrap_or(""));
            self.check_d612();
            return;
        }
        // Counted without allocating once the node has been seen in this run.
        match self.stats.visits.get_mut(&step.node) {
            Some(n) => *n += 1,
            None => {
                self.stats.visits.insert(step.node.clone(), 1);
            }
        }
        let expected = std::mem::replace(&mut self.expected, Expected::Free);
        let node = self.check_d603(&expected, &step.node);
        let (running, primitive_agrees) = self.check_d604(&expected, node, &step.primitive);
        let prim_name: &str = match running {
            Some(p) => &self.replayer.registry.get(p).id,
            None => &step.primitive,
        };
        // Counted without allocating once the primitive has been seen in this run.
        match self.stats.primitive_steps.get_mut(prim_name) {
            Some(n) => *n += 1,
            None => {
                self.stats.primitive_steps.insert(prim_name.to_string(), 1);
            }
        }
        if let Err(error) = &step.result {
            *self
                .stats
                .failure_modes
                .entry(prim_name.to_string())
                .or_default()
                .entry(error.mode.clone())
                .or_insert(0) += 1;
        }
        if let Some(n) = node
            && let Some(v) = self.visits.get_mut(n)
        {
            *v = v.saturating_add(1);
        }
        let via = node.and_then(|n| self.graph().doc.nodes.get(n)).map_or(
            super::report::Via::Other,
            |n| {
                super::report::Via::of_step(
                    n,
                    step.outcome.as_deref(),
                    step.result.as_ref().err().map(|e| e.mode.as_str()),
                )
            },
        );
        self.record_move(node, step.result.is_err(), via);
        // A partial imported step (SPEC §10) skips the checks of content the source did not
        // capture, and so does a step whose bindings read a partial step's output.
        let content_known = !step.partial && !node.is_some_and(|n| self.binds_from_partial(n));
        if let Some(prim) = running
            && content_known
        {
            self.check_d606(prim, &step.input, memo.as_deref_mut());
            // A step that ran another primitive than the node's is D604; the node's bindings do
            // not say what that primitive's input should be, so no D605 beside it.
            if let Some(n) = node
                && primitive_agrees
            {
                self.check_d605(n, prim, &step.input, memo.as_deref_mut());
            }
        }
        if let Some(prim) = running {
            if let Ok(output) = &step.result
                && !step.partial
            {
                self.check_d607(prim, output, memo);
            }
            self.check_d608(prim, &step.evidence);
            self.check_d620(prim, &step.evidence_paths);
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
            Some(n) => self.transition(n, running, step),
            None => Expected::Free,
        };
        if let Some(n) = node
            && let Some(slot) = self.latest.get_mut(n)
        {
            *slot = step.result.is_ok().then(|| Arc::clone(event));
        }
    }

    /// Whether a binding of `node` reads the latest output of a partial (imported) step.
    fn binds_from_partial(&self, node: NodeIdx) -> bool {
        let Some(n) = self.graph().node(node) else {
            return false;
        };
        n.inputs.iter().any(|(_, binding)| match binding {
            super::graph::ResolvedBinding::Node {
                node: Some(src), ..
            } => self
                .latest
                .get(*src)
                .and_then(Option::as_deref)
                .is_some_and(|e| matches!(e, Event::Step(s) if s.partial)),
            _ => false,
        })
    }

    /// Note the move from the previous step's node to `node`, and an error step at `node`.
    fn record_move(&mut self, node: Option<NodeIdx>, error: bool, via: super::report::Via) {
        if let (Some(from), Some(to)) = (self.prev_node, node) {
            let edge = (from, to, self.prev_via);
            if self.moves.len() < super::report::MAX_RECORDED_MOVES {
                self.moves.insert(edge);
            } else if !self.moves.contains(&edge) {
                self.stats.moves_truncated = true;
            }
        }
        self.prev_via = via;
        if let Some(n) = node
            && error
        {
            *self.stats.node_errors.entry(n).or_insert(0) += 1;
        }
        self.prev_node = node;
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
        let (next, grant) = select_next(self.registry(), graph, node, prim, step);
        if grant {
            self.granted = true;
        }
        next
    }

    fn end(&mut self, end: &super::trace::EndEvent) {
        self.ended = Some(end.end);
        let expected = std::mem::replace(&mut self.expected, Expected::Free);
        self.check_d614_end(&expected, end.end);
        self.check_d618(end);
    }

    pub(crate) fn finish(&mut self, eof: LinePos) {
        if self.stopped || self.ended.is_some() {
            return;
        }
        self.pos = eof;
        self.site = Site::Fixed("(end of trace)");
        if self.header.is_none() {
            self.seq = 0;
            self.report(
                &D601,
                "",
                "the trace is empty: it has no header",
                Some(Value::from("a trace header")),
                None,
            );
            return;
        }
        self.seq = self.last_seq + 1;
        self.check_d616_eof();
    }

    pub(crate) fn into_report(self, trace: &str) -> RunReport {
        let mut stats = self.stats;
        stats.spend_nanos = self.spend_nanos;
        stats.moves = self.moves.into_iter().collect();
        stats.moves.sort_unstable();
        let imported = self.header.as_ref().is_some_and(|h| h.imported.is_some());
        let mut report = RunReport::conclude(
            self.run_id,
            trace.to_string(),
            self.ended,
            self.steps,
            self.diagnostics,
            stats,
        );
        report.seal = self.seal;
        report.signer = self.signer;
        report.imported = imported;
        report
    }
}
