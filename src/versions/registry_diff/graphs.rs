//! The graph-aware gate, `registry diff --graphs PATH…` (SPEC §6.1, V719): every graph file
//! (recursively `*.graph.json`, collected as `validate` collects them) is validated under OLD
//! and under NEW — under NEW as if its `abi` targeted NEW, so a major bump alone is not a
//! finding — and each graph with no errors under OLD and errors under NEW is one V719 in the
//! graph's own file, at its first new error, with every error under NEW as a related location
//! (pointer, line, column, `CODE: message`). This checks the real edges of real graphs, which
//! no schema-only comparison can.

use super::{Bump, DiffSide, Finding, GateSummary, Place};
use crate::codes;
use crate::diagnostic::{Diagnostic, Related, Severity};
use crate::validate::{Options, check_source, check_source_targeting, collect_paths};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// Why the gate could not run.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("--graphs: {0}")]
    Paths(std::io::Error),
    #[error("--graphs: {source}")]
    Read {
        path: String,
        #[source]
        source: crate::input::InputError,
    },
}

pub(crate) struct Gated {
    pub findings: Vec<Finding>,
    pub summary: GateSummary,
    pub sources: Vec<(String, Arc<str>)>,
}

enum Outcome {
    FailingUnderOld,
    Fine,
    Broken(Box<Finding>, Arc<str>),
}

pub(super) fn gate(
    old: &DiffSide,
    new: &DiffSide,
    paths: &[PathBuf],
    options: (&Options, &Options),
) -> Result<Gated, GateError> {
    let new_abi = new.registry().abi();
    gate_by(
        paths,
        &format!("ABI {}", old.registry().abi()),
        &format!("ABI {new_abi}"),
        &|file, bytes| check_source(file, bytes, old.registry(), options.0),
        &|file, bytes| {
            check_source_targeting(file, bytes, new.registry(), options.1, Some(new_abi))
        },
    )
}

/// The gate over any two ways of checking a graph (`pack diff --graphs` checks each graph
/// with OLD's pack and with NEW's): a graph with no errors under OLD and errors under NEW is
/// one V719. `old_name`/`new_name` say what OLD and NEW are in its message (`ABI 1.0.0`).
pub(crate) fn gate_by(
    paths: &[PathBuf],
    old_name: &str,
    new_name: &str,
    under_old: &(dyn Fn(&str, &[u8]) -> crate::diagnostic::FileReport + Sync),
    under_new: &(dyn Fn(&str, &[u8]) -> crate::diagnostic::FileReport + Sync),
) -> Result<Gated, GateError> {
    let files = collect_paths(paths).map_err(GateError::Paths)?;
    let outcomes: Vec<Outcome> = files
        .par_iter()
        .map(|path| {
            let file = path.display().to_string();
            let bytes = match crate::input::read_capped(path, crate::json::Limits::default().max_bytes) {
                Ok(bytes) => bytes,
                // A graph over the size limit is a G001 finding under either registry (as
                // `validate` reports it): failing before the change, not broken by it.
                Err(crate::input::InputError::TooLarge { .. }) => {
                    return Ok(Outcome::FailingUnderOld);
                }
                Err(source) => {
                    return Err(GateError::Read {
                        path: file.clone(),
                        source,
                    });
                }
            };
            let under_old = under_old(&file, &bytes);
            if errors(&under_old.diagnostics).next().is_some() {
                return Ok(Outcome::FailingUnderOld);
            }
            let under_new = under_new(&file, &bytes);
            let new_errors: Vec<&Diagnostic> = errors(&under_new.diagnostics).collect();
            let Some(first) = new_errors.first() else {
                return Ok(Outcome::Fine);
            };
            let mut new_codes: Vec<&str> = new_errors.iter().map(|d| d.code.as_str()).collect();
            new_codes.dedup();
            let graph = under_new
                .graph
                .as_deref()
                .map_or_else(|| file.clone(), |g| format!("`{g}`"));
            let mut diagnostic = codes::V719.at(
                first.pointer.clone(),
                format!(
                    "graph {graph} has no errors under OLD ({old_name}) but {} under NEW ({new_name}): {}",
                    plural(new_errors.len(), "error"),
                    new_codes.join(", ")
                ),
            )
            .with_help(
                "the registry change breaks this graph: fix the graph in the same change, or keep the old contract",
            );
            diagnostic.line = first.line;
            diagnostic.column = first.column;
            diagnostic.end_line = first.end_line;
            diagnostic.end_column = first.end_column;
            diagnostic.related = new_errors
                .iter()
                .map(|d| Related {
                    file: None,
                    pointer: d.pointer.clone(),
                    message: format!("{}: {}", d.code, d.message),
                    line: Some(d.line),
                    column: Some(d.column),
                    end_line: (d.end_line > 0).then_some(d.end_line),
                    end_column: (d.end_line > 0).then_some(d.end_column),
                })
                .collect();
            let finding = Finding {
                diagnostic,
                primitive: None,
                place: Place::Graph(file),
                bump: Bump::Major,
                verdict: None,
                new_anchor: None,
                shown_in_new: None,
            };
            Ok(Outcome::Broken(Box::new(finding), under_new.source))
        })
        .collect::<Result<_, GateError>>()?;
    let mut gated = Gated {
        findings: Vec::new(),
        summary: GateSummary {
            checked: files.len(),
            ..GateSummary::default()
        },
        sources: Vec::new(),
    };
    for outcome in outcomes {
        match outcome {
            Outcome::FailingUnderOld => gated.summary.failing_under_old += 1,
            Outcome::Fine => {}
            Outcome::Broken(finding, source) => {
                gated.summary.broken += 1;
                if let Place::Graph(file) = &finding.place {
                    gated.sources.push((file.clone(), source));
                }
                gated.findings.push(*finding);
            }
        }
    }
    Ok(gated)
}

fn errors(diagnostics: &[Diagnostic]) -> impl Iterator<Item = &Diagnostic> {
    diagnostics.iter().filter(|d| d.severity == Severity::Error)
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
