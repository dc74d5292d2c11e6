//! `primgraph report` (SPEC §11): one self-contained HTML page for an evaluation — the graph
//! drawn here as SVG ([`layout`], [`svg`]) with each node coloured by a measure and each edge as
//! wide as the runs that took it, the verdict, end and seal counts, first divergences by node,
//! per-primitive failure rates with intervals, steps and spend histograms, and with a baseline
//! the §6.3 comparison and the §6.2 structural changes marked on the drawing ([`html`]).
//!
//! The runs are replayed by the streaming corpus replay and folded into an [`Evaluation`] as
//! they come (no run report is kept), so memory is bounded by the graph and the report's caps,
//! not by the corpus. The page is written into any [`std::io::Write`]; the library prints
//! nothing. Everything taken from a graph, registry or trace is escaped ([`text`]).

pub mod evaluation;
pub mod html;
pub mod layout;
pub mod request;
pub mod svg;
pub mod text;

pub use evaluation::Evaluation;
pub use request::{Request, RequestError, Written, write_report};

use crate::registry::Registry;
use crate::replay::ReplayGraph;

/// The default confidence of the intervals (as `primgraph compare`).
pub const DEFAULT_CONFIDENCE: f64 = 0.95;

/// One side of the report: a graph and its replayed runs.
pub struct Side<'a> {
    pub graph: &'a ReplayGraph,
    pub evaluation: &'a Evaluation,
    /// The graph's file, as named on the command line (shown in the header).
    pub file: Option<&'a str>,
    /// The link of an example trace, from its name (`None`: shown without a link).
    pub trace_href: &'a dyn Fn(&str) -> Option<String>,
    /// The graph's fragment uses, each framed and labelled with its use site (SPEC §9.3;
    /// empty when it uses none): outer uses before the uses nested in them.
    pub fragments: &'a [svg::Cluster],
}

/// Everything the page shows.
pub struct Report<'a> {
    pub registry: &'a Registry,
    pub candidate: Side<'a>,
    pub baseline: Option<Side<'a>>,
    /// Confidence of every interval, strictly between 0 and 1.
    pub confidence: f64,
}

/// No link for example traces.
pub fn no_link(_: &str) -> Option<String> {
    None
}

/// Write the page.
pub fn write_html(out: &mut dyn std::io::Write, report: &Report<'_>) -> std::io::Result<()> {
    html::write(out, report)
}

/// A corpus summary as an HTML fragment (for notebooks): the run counts, failure rates,
/// histograms and diagnostics, without the graph.
pub fn summary_html(summary: &crate::replay::Summary, confidence: f64) -> String {
    html::summary_fragment(summary, confidence)
}

/// A relative link from a folder to a file, percent-encoded (every byte but unreserved ones and
/// `/`), so a trace named anything stays a path (never a scheme such as `javascript:`). Both
/// paths must be absolute; `None` otherwise.
pub fn relative_href(from_dir: &std::path::Path, to: &std::path::Path) -> Option<String> {
    use std::path::Component;
    if !from_dir.is_absolute() || !to.is_absolute() {
        return None;
    }
    let norm = |p: &std::path::Path| -> Vec<String> {
        let mut parts: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                Component::ParentDir => {
                    parts.pop();
                }
                _ => {}
            }
        }
        parts
    };
    let (a, b) = (norm(from_dir), norm(to));
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(b[common..].iter().cloned());
    let encoded: Vec<String> = parts.iter().map(|p| percent_encode(p)).collect();
    Some(encoded.join("/"))
}

fn percent_encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn links_are_relative_and_encoded() {
        assert_eq!(
            relative_href(Path::new("/a/out"), Path::new("/a/runs/x y.trace.jsonl")).as_deref(),
            Some("../runs/x%20y.trace.jsonl")
        );
        assert_eq!(
            relative_href(Path::new("/a"), Path::new("/a/javascript:alert(1)")).as_deref(),
            Some("javascript%3Aalert%281%29")
        );
        assert_eq!(relative_href(Path::new("a"), Path::new("/b")), None);
    }
}
