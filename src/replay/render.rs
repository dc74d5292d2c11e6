//! Renderings of replay results: §4.2's JSON document, JSON Lines (one run a line, the summary
//! last), and the human form (the unfaithful runs with their diagnostics, then the summary as a
//! compact table). Every rendering is deterministic: fixed key order, sorted maps.

use super::report::{RunReport, TraceDiagnostic};
use super::summary::{SPEND_BUCKETS_NANOS, STEP_BUCKETS, Summary};
use crate::diagnostic::{Severity, visible};
use serde_json::json;
use std::fmt::Write as _;

/// The whole corpus as one JSON document.
pub fn json_document(runs: &[RunReport], summary: &Summary) -> String {
    let doc = json!({
        "runs": runs.iter().map(RunReport::to_json).collect::<Vec<_>>(),
        "summary": summary.to_json(),
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// One run as a JSON Lines line.
pub fn jsonl_run(run: &RunReport) -> String {
    let mut s = run.to_json().to_string();
    s.push('\n');
    s
}

/// The summary as the last JSON Lines line.
pub fn jsonl_summary(summary: &Summary) -> String {
    let mut s = json!({"summary": summary.to_json()}).to_string();
    s.push('\n');
    s
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// A value as the human form shows it: JSON, or `(absent)` when there is none (never `null`,
/// which is a recorded JSON null).
fn shown(v: &Option<serde_json::Value>) -> String {
    v.as_ref().map_or_else(
        || "(absent)".to_string(),
        // JSON escapes control characters, not bidirectional overrides.
        |v| {
            let text = v.to_string();
            match visible(&text) {
                std::borrow::Cow::Borrowed(_) => text,
                std::borrow::Cow::Owned(escaped) => escaped,
            }
        },
    )
}

fn human_diagnostic(out: &mut String, trace: &str, d: &TraceDiagnostic) {
    let g = &d.diagnostic;
    let seq = g.seq.map_or(String::new(), |s| format!(", seq {s}"));
    let _ = writeln!(
        out,
        "{}[{}]: {}",
        severity(g.severity),
        g.code,
        visible(&g.message)
    );
    let at = if g.pointer.is_empty() {
        String::new()
    } else {
        format!(" at {}", g.pointer)
    };
    let trace = visible(trace);
    let at = visible(&at);
    let _ = writeln!(out, "  --> {trace}:{} (byte {}{seq}){at}", g.line, d.byte);
    if g.severity == Severity::Error && (d.expected.is_some() || d.actual.is_some()) {
        let _ = writeln!(out, "   = expected: {}", shown(&d.expected));
        let _ = writeln!(out, "   =   actual: {}", shown(&d.actual));
    }
    for r in &g.related {
        let _ = writeln!(
            out,
            "   = graph {}: {}",
            visible(&r.pointer),
            visible(&r.message)
        );
    }
    if let Some(h) = &g.help {
        let _ = writeln!(out, "   = help: {}", visible(h));
    }
}

/// One run in human form: a line, and its diagnostics when it has any.
pub fn human_run(run: &RunReport) -> String {
    let mut out = String::new();
    if run.verdict == super::report::Verdict::Faithful && run.diagnostics.is_empty() {
        return out;
    }
    let end = run.end.map_or("no end", |e| e.as_str());
    let id = run.run.as_deref().unwrap_or("?");
    let id = visible(id);
    let seal = match &run.signer {
        Some(signer) => format!("seal {} by {}", run.seal.as_str(), visible(signer)),
        None => format!("seal {}", run.seal.as_str()),
    };
    let _ = writeln!(
        out,
        "{}: {} (run {id}, {end}, {}, {seal})",
        visible(&run.trace),
        run.verdict.as_str(),
        crate::diagnostic::counted(run.steps, "step", "steps")
    );
    for d in &run.diagnostics {
        human_diagnostic(&mut out, &run.trace, d);
    }
    if run.stats.suppressed > 0 {
        let _ = writeln!(out, "  … and {} more diagnostics", run.stats.suppressed);
    }
    out.push('\n');
    out
}

/// The human form of a corpus with repeated reports folded: the first run with a given set of
/// diagnostics is printed whole, a later run whose verdict and diagnostics (code, severity,
/// message, pointer — not the line, byte or `seq`, which move with the run's length) are the
/// same is only counted, and [`FoldedRuns::tail`] says how many there were ("… and 99 more runs
/// with the same diagnostics as …"). A hundred unsealed runs under `--trust` read as one D618
/// and a count instead of a hundred identical blocks before the summary.
#[derive(Debug, Default)]
pub struct FoldedRuns {
    index: std::collections::HashMap<String, usize>,
    groups: Vec<FoldedGroup>,
}

#[derive(Debug)]
struct FoldedGroup {
    first: String,
    more: u64,
    examples: Vec<String>,
}

/// Example traces named per folded group.
const FOLDED_EXAMPLES: usize = 3;

impl FoldedRuns {
    /// The run's text ([`human_run`]) if it is the first of its kind, else empty (counted).
    pub fn run(&mut self, run: &RunReport) -> String {
        let text = human_run(run);
        if text.is_empty() {
            return text;
        }
        let mut key = String::from(run.verdict.as_str());
        for d in &run.diagnostics {
            let g = &d.diagnostic;
            let _ = write!(
                key,
                "\u{0}{}\u{0}{}\u{0}{}\u{0}{}",
                g.code,
                severity(g.severity),
                g.pointer,
                g.message
            );
        }
        match self.index.get(&key) {
            Some(&i) => {
                let group = &mut self.groups[i];
                group.more += 1;
                if group.examples.len() < FOLDED_EXAMPLES {
                    group.examples.push(run.trace.clone());
                }
                String::new()
            }
            None => {
                self.index.insert(key, self.groups.len());
                self.groups.push(FoldedGroup {
                    first: run.trace.clone(),
                    more: 0,
                    examples: Vec::new(),
                });
                text
            }
        }
    }

    /// One line per group that folded runs, in the order the groups were first met (empty when
    /// nothing was folded).
    pub fn tail(&self) -> String {
        let mut out = String::new();
        for g in self.groups.iter().filter(|g| g.more > 0) {
            let more = g.more as usize > g.examples.len();
            let _ = writeln!(
                out,
                "… and {} with the same diagnostics as {}: {}{}",
                crate::diagnostic::counted(g.more, "more run", "more runs"),
                g.first,
                g.examples.join(", "),
                if more { ", …" } else { "" }
            );
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out
    }
}

fn row(out: &mut String, key: &str, value: impl std::fmt::Display) {
    let _ = writeln!(out, "  {key:<28} {value}");
}

/// The summary as a compact table.
pub fn human_summary(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "summary: {}",
        crate::diagnostic::counted(s.runs, "run", "runs")
    );
    let join = |c: &std::collections::BTreeMap<String, u64>| {
        c.iter()
            .map(|(k, v)| format!("{} {v}", visible(k)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    row(&mut out, "verdicts", join(&s.by_verdict));
    row(&mut out, "end", join(&s.by_end));
    row(&mut out, "seals", join(&s.by_seal));
    if !s.diagnostics_by_code.is_empty() {
        row(&mut out, "diagnostics", join(&s.diagnostics_by_code));
    }
    let mean = if s.runs == 0 {
        0.0
    } else {
        s.steps_sum as f64 / s.runs as f64
    };
    row(
        &mut out,
        "steps",
        format!("{} total, {mean:.1} per run", s.steps_sum),
    );
    let hist = |bounds: &[u64], counts: &[u64], unit: &dyn Fn(u64) -> String| {
        let mut parts: Vec<String> = bounds
            .iter()
            .zip(counts)
            .filter(|(_, c)| **c > 0)
            .map(|(b, c)| format!("≤{} {c}", unit(*b)))
            .collect();
        if let Some(&c) = counts.last()
            && c > 0
        {
            parts.push(format!(">{} {c}", unit(*bounds.last().unwrap_or(&0))));
        }
        parts.join(", ")
    };
    row(
        &mut out,
        "steps per run",
        hist(&STEP_BUCKETS, &s.steps_histogram, &|b| b.to_string()),
    );
    row(&mut out, "spend", format!("{:.4} USD", s.spend_usd()));
    row(
        &mut out,
        "spend per run (USD)",
        hist(&SPEND_BUCKETS_NANOS, &s.spend_histogram, &|b| {
            format!("{}", b as f64 / 1e9)
        }),
    );
    if !s.visits.is_empty() {
        let _ = writeln!(out, "  visits per node:");
        for (node, v) in &s.visits {
            let _ = writeln!(out, "    {:<26} {v}", visible(node));
        }
    }
    if !s.failure_modes.is_empty() {
        let _ = writeln!(out, "  failure modes:");
        for (prim, modes) in &s.failure_modes {
            let _ = writeln!(out, "    {:<26} {}", visible(prim), join(modes));
        }
    }
    if !s.first_divergence_sites.is_empty() {
        let _ = writeln!(out, "  first divergences:");
        for (site, codes) in &s.first_divergence_sites {
            let _ = writeln!(out, "    {:<26} {}", visible(site), join(codes));
        }
    }
    out
}
