//! Fuzz the trace reader and the replay engine: any bytes, taken as a trace of the fixed graph
//! `graphs/runs/fix-failing-test.graph.json`, replay without a panic to a report that is the
//! same every time and however the bytes are chunked, whose verdict agrees with its diagnostics,
//! and whose every diagnostic points at a line (and that line's byte offset) of the input. The
//! streaming line reader and the line parsers are fed the same bytes directly.
//!
//! The registry is the built-in Kernel ABI 1.0.0, the graph the one the recorded runs were made
//! with: it has branches, a bounded loop, `on_error` and a fallback.
//!
//! Run (seeds: five faithful runs from `primgraph simulate … --runs 5 --seed 1`):
//! `cd fuzz && mkdir -p corpus/trace_replay && RUSTC_BOOTSTRAP=1 cargo fuzz run trace_replay
//! corpus/trace_replay seeds/trace_replay ../graphs/runs -- -max_total_time=600`
#![no_main]

use libfuzzer_sys::fuzz_target;
use primgraph::diagnostic::Severity;
use primgraph::registry::Registry;
use primgraph::replay::trace::{Line, LineReader, parse_event, parse_header};
use primgraph::replay::{ReplayGraph, ReplayOptions, Replayer, RunReport, Verdict, render};
use std::io::BufReader;
use std::sync::OnceLock;

const GRAPH: &[u8] = include_bytes!("../../graphs/runs/fix-failing-test.graph.json");
fn registry() -> &'static Registry {
    Registry::builtin()
}

/// One replayer for every input, so that its schema validators are compiled once.
fn replayer() -> &'static Replayer<'static> {
    static REPLAYER: OnceLock<Replayer<'static>> = OnceLock::new();
    REPLAYER.get_or_init(|| {
        let graph = ReplayGraph::load("<graph>", GRAPH, registry()).expect("the graph loads");
        Replayer::new(registry(), graph, ReplayOptions::default())
    })
}

/// Byte offsets of the lines' first bytes, as the reader splits them: a line ends at `\n`; a
/// last line without one counts when it is not empty.
fn line_starts(data: &[u8]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut start = 0;
    for (i, b) in data.iter().enumerate() {
        if *b == b'\n' {
            starts.push(start);
            start = i + 1;
        }
    }
    if start < data.len() {
        starts.push(start);
    }
    starts
}

fn rendered(report: &RunReport) -> (String, String) {
    (render::jsonl_run(report), render::human_run(report))
}

fn check_report(report: &RunReport, data: &[u8], starts: &[usize]) {
    let line_count = starts.len() as u64;
    let errors: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.diagnostic.severity == Severity::Error)
        .collect();
    if report.verdict == Verdict::Faithful {
        assert!(
            errors.is_empty(),
            "a faithful run has error diagnostics: {:?}",
            errors
        );
        assert!(report.first_divergence.is_none());
    }
    for d in &errors {
        assert!(
            report.verdict >= Verdict::of_code(&d.diagnostic.code),
            "verdict {:?} is better than error {} implies",
            report.verdict,
            d.diagnostic.code
        );
    }
    match (&report.first_divergence, errors.first()) {
        (None, None) => {}
        (Some(f), Some(d)) => {
            assert_eq!(f.code, d.diagnostic.code);
            assert_eq!(f.line, d.diagnostic.line);
        }
        (f, d) => panic!("first divergence {f:?} but first error {d:?}"),
    }
    // Every input line is at most one step.
    assert!(report.steps <= line_count, "{} steps", report.steps);
    let counted: u64 = report.stats.codes.values().sum();
    assert_eq!(
        counted,
        report.diagnostics.len() as u64 + report.stats.suppressed,
        "code counts disagree with the stored and suppressed diagnostics"
    );
    for d in &report.diagnostics {
        let line = u64::from(d.diagnostic.line);
        assert!(line >= 1, "line 0: {d:?}");
        assert!(d.diagnostic.column >= 1, "column 0: {d:?}");
        if line <= line_count {
            let start = starts[(line - 1) as usize] as u64;
            assert_eq!(d.byte, start, "byte offset of line {line}: {d:?}");
        } else {
            // Only a finding about the end of the input sits just past its last line.
            assert_eq!(line, line_count + 1, "line past the input: {d:?}");
            assert_eq!(d.site, "(end of trace)", "line past the input: {d:?}");
            assert_eq!(d.byte, data.len() as u64, "{d:?}");
        }
    }
}

/// The line reader on its own, with a small buffer and line limit: it hands back exactly the
/// input, line by line, at the right offsets; the line parsers take every line without a panic.
fn check_line_reader(data: &[u8], starts: &[usize]) {
    let capacity = 1 + usize::from(data.first().copied().unwrap_or(0) % 16);
    let max_line_bytes = 64 + usize::from(data.last().copied().unwrap_or(0));
    let mut reader = LineReader::new(BufReader::with_capacity(capacity, data), max_line_bytes);
    let mut expected_number = 1u32;
    let mut expected_offset = 0u64;
    while let Some((pos, line)) = reader.next_line().expect("reading a slice cannot fail") {
        assert_eq!(pos.number, expected_number);
        assert_eq!(pos.offset, expected_offset);
        assert_eq!(
            starts.get(pos.number as usize - 1).map(|s| *s as u64),
            Some(pos.offset)
        );
        let start = pos.offset as usize;
        let (len, terminated) = match line {
            Line::Text { bytes, terminated } => {
                assert!(bytes.len() <= max_line_bytes);
                assert_eq!(bytes, &data[start..start + bytes.len()]);
                if let Err(e) = parse_header(bytes) {
                    assert!(e.column >= 1, "{e:?}");
                }
                if let Err(e) = parse_event(bytes) {
                    assert!(e.column >= 1, "{e:?}");
                }
                (bytes.len(), terminated)
            }
            Line::TooLong { len } => {
                assert!(len as usize > max_line_bytes);
                let end = start + len as usize;
                (len as usize, data.get(end) == Some(&b'\n'))
            }
        };
        assert!(!data[start..start + len].contains(&b'\n'));
        assert_eq!(terminated, data.get(start + len) == Some(&b'\n'));
        expected_number += 1;
        expected_offset += len as u64 + u64::from(terminated);
    }
    assert_eq!(
        expected_offset,
        data.len() as u64,
        "the reader stopped early"
    );
    assert_eq!(expected_number as usize, starts.len() + 1);
}

fuzz_target!(|data: &[u8]| {
    let starts = line_starts(data);
    check_line_reader(data, &starts);

    let report =
        primgraph::replay::replay_bytes(registry(), GRAPH, data).expect("the fixed graph loads");
    check_report(&report, data, &starts);

    // Deterministic: the same bytes again, through a replayer that is reused across inputs,
    // render the same, and so do they streamed through a tiny buffer.
    let replayer = replayer();
    let again = replayer.replay_slice("<trace>", data);
    assert_eq!(
        rendered(&report),
        rendered(&again),
        "replay is not deterministic"
    );
    assert_eq!(report, again);
    let capacity = 1 + usize::from(data.get(1).copied().unwrap_or(0) % 7);
    let streamed = replayer.replay_bufread("<trace>", BufReader::with_capacity(capacity, data));
    assert_eq!(
        rendered(&report),
        rendered(&streamed),
        "replay depends on how the input is chunked"
    );
});
