//! One side of a report: the corpus summary (SPEC §4.3) plus what the drawing needs and the
//! summary does not keep — how many runs took each move between two graph nodes, error steps by
//! node, and the first divergences grouped by node with a few examples. Folded run by run from
//! the streaming replay, so a corpus of any size is held as these aggregates only (every map is
//! bounded: by the graph's size, or by the caps below).

use crate::replay::corpus::{CorpusError, replay_corpus_streaming};
use crate::replay::report::{RunReport, Via};
use crate::replay::{Replayer, Summary};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Divergence sites (nodes, `(end)`, …) kept; runs diverging elsewhere are counted in
/// [`Evaluation::other_divergences`].
pub const MAX_SITES: usize = 500;
/// Distinct (code, expected, actual) cases kept per site; the rest are counted in the site's
/// `other`.
pub const MAX_CASES: usize = 5;
/// Characters of an expected or actual value kept (compact JSON, cut at a character boundary).
pub const MAX_VALUE_CHARS: usize = 160;

/// One kind of first divergence at a site, with its first example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DivergenceCase {
    pub code: crate::codes::CodeName,
    /// Compact JSON of the expected value (cut at [`MAX_VALUE_CHARS`]); `None`: nothing expected.
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub count: u64,
    /// The first run (in corpus order) diverging this way: its trace, run ID and `seq`.
    pub example_trace: String,
    pub example_run: Option<String>,
    pub example_seq: u64,
}

/// The runs whose first divergence is at one site.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DivergenceSite {
    pub count: u64,
    pub cases: Vec<DivergenceCase>,
    /// Runs of this site in cases past [`MAX_CASES`].
    pub other: u64,
}

/// A replayed corpus, aggregated for the report.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    pub summary: Summary,
    /// (from node index, to node index, the out-edge of `from` it left by) → runs that made
    /// that move at least once.
    pub moves: BTreeMap<(usize, usize, Via), u64>,
    /// Runs that made more distinct moves than a run report keeps.
    pub moves_truncated_runs: u64,
    /// Error steps by node index.
    pub node_errors: BTreeMap<usize, u64>,
    /// Site (node ID, `(end)`, `(header)`, …) → its first divergences.
    pub divergences: BTreeMap<String, DivergenceSite>,
    /// Runs whose first divergence is at a site past [`MAX_SITES`].
    pub other_divergences: u64,
}

/// Compact JSON, cut to [`MAX_VALUE_CHARS`] characters (an ellipsis marks the cut).
fn short_json(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(MAX_VALUE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

impl Evaluation {
    /// Add one run. Fails, leaving the evaluation as it was, when the summary's counts would
    /// pass 2^64 − 1.
    pub fn add(&mut self, run: &RunReport) -> Result<(), crate::replay::summary::SummaryError> {
        self.summary.add(run)?;
        for &mv in &run.stats.moves {
            *self.moves.entry(mv).or_insert(0) += 1;
        }
        if run.stats.moves_truncated {
            self.moves_truncated_runs += 1;
        }
        for (&node, &errors) in &run.stats.node_errors {
            *self.node_errors.entry(node).or_insert(0) += errors;
        }
        let Some(first) = &run.first_divergence else {
            return Ok(());
        };
        if !self.divergences.contains_key(&first.site) && self.divergences.len() >= MAX_SITES {
            self.other_divergences += 1;
            return Ok(());
        }
        let site = self.divergences.entry(first.site.clone()).or_default();
        site.count += 1;
        let expected = first.expected.as_ref().map(short_json);
        let actual = first.actual.as_ref().map(short_json);
        if let Some(case) = site
            .cases
            .iter_mut()
            .find(|c| c.code == first.code && c.expected == expected && c.actual == actual)
        {
            case.count += 1;
        } else if site.cases.len() < MAX_CASES {
            site.cases.push(DivergenceCase {
                code: first.code.clone(),
                expected,
                actual,
                count: 1,
                example_trace: run.trace.clone(),
                example_run: run.run.clone(),
                example_seq: first.seq,
            });
        } else {
            site.other += 1;
        }
        Ok(())
    }

    /// Replay `files` on `jobs` threads (streamed: reports are folded as they come, none kept).
    pub fn replay(
        replayer: &Replayer<'_>,
        files: &[PathBuf],
        jobs: usize,
    ) -> Result<Evaluation, CorpusError> {
        let mut evaluation = Evaluation::default();
        let mut overflow = None;
        replay_corpus_streaming(replayer, files, jobs, &|| {}, &mut |run| {
            if overflow.is_none()
                && let Err(e) = evaluation.add(run)
            {
                overflow = Some(e);
            }
            Ok(())
        })?;
        match overflow {
            Some(e) => Err(e.into()),
            None => Ok(evaluation),
        }
    }

    /// The name of `node`'s out-edge `via` on the page (`next`, `branch:OUTCOME`,
    /// `on_error:MODE`), `None` for [`Via::Other`] or an entry the node does not have.
    pub(crate) fn via_label(node: &crate::graph::doc::NodeDoc, via: Via) -> Option<String> {
        let key = |map: &Option<crate::graph::doc::SmallMap<String>>, k: u16| {
            map.as_ref()?
                .iter()
                .nth(usize::from(k))
                .map(|(key, _)| key.clone())
        };
        match via {
            Via::Next => Some("next".to_string()),
            Via::Branch(k) => key(&node.branches, k).map(|o| format!("branch:{o}")),
            Via::OnError(k) => key(&node.on_error, k).map(|m| format!("on_error:{m}")),
            Via::Other => None,
        }
    }

    /// Runs that moved from `from` to `to` by `from`'s out-edge `via`.
    pub fn runs_moving(&self, from: usize, to: usize, via: Via) -> u64 {
        self.moves.get(&(from, to, via)).copied().unwrap_or(0)
    }
}
