//! Diagnostics of an expanded graph mapped back to what the user wrote (SPEC §9.3): a pointer
//! into an expanded node that came from a fragment moves into the fragment file (its `file`,
//! pointer, line and column there), and the use sites that put the node there are appended as
//! related locations, innermost first and outermost last ("in fragment `ship`, used at
//! graphs/x.graph.json:41:7"), as rustc reports an error inside a macro. A pointer into an
//! expanded node that came from the graph itself moves back to that node's index. Related
//! locations are mapped the same way, each carrying its own file. The fragment files' text rides
//! along on the diagnostic (`Diagnostic::sources`) so the human renderer can quote both places.

use super::fragment_expand::{Expansion, Origin, chain_related};
use crate::diagnostic::{Diagnostic, anchor_span};
use crate::json::Parsed;

/// Where a pointer of the expanded document is in the files the user wrote.
enum Place<'e> {
    /// In the graph, at this pointer.
    Graph(String),
    /// In a fragment file, at this pointer, put there by the origin's use sites.
    Fragment(&'e Origin, String),
}

fn place<'e>(expansion: &'e Expansion, pointer: &str) -> Place<'e> {
    let Some(rest) = pointer.strip_prefix("/nodes/") else {
        return Place::Graph(pointer.to_string());
    };
    let (index, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let Some(origin) = index
        .parse::<usize>()
        .ok()
        .and_then(|k| expansion.origins.get(k))
    else {
        return Place::Graph(pointer.to_string());
    };
    match origin {
        Origin::Graph(i) => Place::Graph(format!("/nodes/{i}{tail}")),
        Origin::Fragment { index, .. } => Place::Fragment(origin, format!("/nodes/{index}{tail}")),
    }
}

/// Map every diagnostic of the expanded document back (see the module doc). Diagnostics already
/// in another file (a pack's) are left as they are.
pub fn map_back(
    diags: Vec<Diagnostic>,
    expansion: &Expansion,
    graph_file: &str,
    graph: &Parsed,
) -> Vec<Diagnostic> {
    let index: std::collections::HashMap<&str, usize> = expansion
        .ids
        .iter()
        .enumerate()
        .map(|(k, id)| (id.as_str(), k))
        .collect();
    diags
        .into_iter()
        .map(|d| {
            let mut d = map_one(d, expansion, graph_file, graph);
            steps(&mut d, expansion, &index, graph_file, graph);
            d
        })
        .collect()
}

/// The file, line and column of every step of a path witness that crosses into a fragment.
fn steps(
    d: &mut Diagnostic,
    expansion: &Expansion,
    index: &std::collections::HashMap<&str, usize>,
    graph_file: &str,
    graph: &Parsed,
) {
    let Some(path) = d.witness.as_ref().and_then(|w| w.nodes()) else {
        return;
    };
    let located: Vec<Option<(String, u32, u32, bool)>> = path
        .iter()
        .map(|id| {
            let origin = expansion.origins.get(*index.get(id.as_str())?)?;
            Some(match origin {
                Origin::Graph(i) => {
                    let span = anchor_span(graph, &format!("/nodes/{i}/id"));
                    (graph_file.to_string(), span.line, span.column, false)
                }
                Origin::Fragment {
                    fragment, index, ..
                } => {
                    let span = anchor_span(&fragment.parsed, &format!("/nodes/{index}/id"));
                    (fragment.file.clone(), span.line, span.column, true)
                }
            })
        })
        .collect();
    if located.iter().flatten().any(|(.., elsewhere)| *elsewhere) {
        d.steps = located
            .into_iter()
            .map(|l| l.map(|(file, line, column, _)| (file, line, column)))
            .collect();
    }
}

fn add_source(d: &mut Diagnostic, file: &str, parsed: &Parsed) {
    if !d.sources.iter().any(|(f, _)| f == file) {
        d.sources.push((file.to_string(), parsed.source_arc()));
    }
}

fn map_one(
    mut d: Diagnostic,
    expansion: &Expansion,
    graph_file: &str,
    graph: &Parsed,
) -> Diagnostic {
    if d.file.is_some() {
        return d;
    }
    let mut related = std::mem::take(&mut d.related);
    for r in related.iter_mut() {
        if r.file.is_some() {
            continue;
        }
        match place(expansion, &r.pointer) {
            Place::Graph(p) => r.pointer = p,
            Place::Fragment(Origin::Fragment { fragment, .. }, p) => {
                let span = anchor_span(&fragment.parsed, &p);
                r.file = Some(fragment.file.clone());
                r.line = Some(span.line);
                r.column = Some(span.column);
                r.pointer = p;
                add_source(&mut d, &fragment.file, &fragment.parsed);
            }
            Place::Fragment(Origin::Graph(_), _) => {}
        }
    }
    match place(expansion, &d.pointer) {
        Place::Graph(p) => d.pointer = p,
        Place::Fragment(
            Origin::Fragment {
                fragment, chain, ..
            },
            p,
        ) => {
            let span = anchor_span(&fragment.parsed, &p);
            d.file = Some(fragment.file.clone());
            d.line = span.line;
            d.column = span.column;
            d.pointer = p;
            add_source(&mut d, &fragment.file, &fragment.parsed);
            // Related locations written against the graph (no file) are in the graph file, which
            // is no longer the diagnostic's own: resolve them now.
            for r in related.iter_mut() {
                if r.file.is_none() {
                    let span = anchor_span(graph, &r.pointer);
                    r.file = Some(graph_file.to_string());
                    r.line = Some(span.line);
                    r.column = Some(span.column);
                }
            }
            related.extend(chain_related(graph_file, graph, chain));
            for site in chain.iter() {
                if let Some(f) = &site.in_fragment {
                    add_source(&mut d, &f.file, &f.parsed);
                }
            }
        }
        Place::Fragment(Origin::Graph(_), _) => {}
    }
    d.related = related;
    d
}

/// Sort diagnostics as SPEC §3.1 says (file, line, column, code): the report's own file first,
/// then the others by name; within a file as [`crate::diagnostic::sort`].
pub fn sort_by_file(diags: &mut [Diagnostic]) {
    crate::diagnostic::sort(diags);
    diags.sort_by(|a, b| (a.file.is_some(), &a.file).cmp(&(b.file.is_some(), &b.file)));
}
