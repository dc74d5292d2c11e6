//! Diagnostics of an expanded graph mapped back to what the user wrote (SPEC §9.3): a pointer
//! into an expanded node that came from a fragment moves into the fragment file (its `file`,
//! pointer, line and column there), and the use sites that put the node there are appended as
//! related locations, innermost first and outermost last ("in fragment `ship`, used at
//! graphs/x.graph.json:41:7"), as rustc reports an error inside a macro. A pointer into an
//! expanded node that came from the graph itself moves back to that node's index. Related
//! locations are mapped the same way, each carrying its own file. The fragment files' text rides
//! along on the diagnostic (`Diagnostic::sources`) so the human renderer can quote both places.
//!
//! It also owns the way back for what is drawn and compared on the expanded graph: which
//! expanded nodes belong to which fragment use, nested, and each use's label
//! ([`use_groups`], for `graph dot|mermaid` and the report's picture), and which expanded node a
//! mapped-back diagnostic is about ([`NodeFinder`], for the drawings' marks and `graph diff`'s
//! findings keyed by expanded IDs).

use super::fragment::Fragment;
use super::fragment_expand::{Expansion, Origin, UseSite, chain_related};
use crate::diagnostic::{Diagnostic, Related, anchor_span, location_span};
use crate::graph::render::{Group, Groups};
use crate::json::Parsed;
use std::collections::HashMap;
use std::sync::Arc;

/// The fragment used at `chain[k]` (innermost first): the origin's own fragment for the
/// innermost use, else the fragment the next inner use is written in.
fn used_at<'a>(fragment: &'a Arc<Fragment>, chain: &'a [UseSite], k: usize) -> &'a Arc<Fragment> {
    match k {
        0 => fragment,
        _ => chain[k - 1].in_fragment.as_ref().unwrap_or(fragment),
    }
}

/// One fragment use of an expanded graph, as drawings and `graph diff` name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseInfo {
    /// The use's expanded ID (`ship`, `ship/inner`).
    pub id: String,
    /// `PACK/NAME` of the fragment it uses.
    pub fragment: String,
    /// The version of the fragment's pack, when known.
    pub version: Option<String>,
    /// Where the use is written: the graph's file, or the enclosing fragment's.
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl UseInfo {
    /// `ship: shipkit/land@1.0.0 (graphs/x.graph.json:41:7)`.
    pub fn label(&self) -> String {
        let version = self
            .version
            .as_ref()
            .map(|v| format!("@{v}"))
            .unwrap_or_default();
        format!(
            "{}: {}{version} ({}:{}:{})",
            self.id, self.fragment, self.file, self.line, self.column
        )
    }
}

fn use_info(
    expansion: &Expansion,
    graph_file: &str,
    graph: &Parsed,
    used: &Fragment,
    site: &UseSite,
) -> UseInfo {
    let (file, parsed) = match &site.in_fragment {
        Some(f) => (f.file.as_str(), &*f.parsed),
        None => (graph_file, graph),
    };
    let span = anchor_span(parsed, &site.pointer);
    UseInfo {
        id: site.id.clone(),
        fragment: used.key(),
        version: expansion.versions.get(&used.pack).cloned(),
        file: file.to_string(),
        line: span.line,
        column: span.column,
    }
}

/// Every fragment use of an expanded graph with the expanded nodes in each: `groups[g]` is one
/// use (outer uses before the uses nested in them), `of_node[i]` the innermost use expanded
/// node `i` came from. The drawings and the report draw each as a cluster labelled with
/// [`UseInfo::label`]; `uses[g]` is the same use, described.
pub fn use_groups(
    expansion: &Expansion,
    graph_file: &str,
    graph: &Parsed,
) -> (Groups, Vec<UseInfo>) {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut groups = Groups::default();
    let mut uses = Vec::new();
    for origin in &expansion.origins {
        let Origin::Fragment {
            fragment, chain, ..
        } = origin
        else {
            groups.of_node.push(None);
            continue;
        };
        let mut parent = None;
        for (k, site) in chain.iter().enumerate().rev() {
            let g = match index.get(site.id.as_str()) {
                Some(&g) => g,
                None => {
                    let info = use_info(
                        expansion,
                        graph_file,
                        graph,
                        used_at(fragment, chain, k),
                        site,
                    );
                    groups.groups.push(Group {
                        key: site.id.clone(),
                        label: info.label(),
                        parent,
                    });
                    uses.push(info);
                    index.insert(site.id.as_str(), groups.groups.len() - 1);
                    groups.groups.len() - 1
                }
            };
            parent = Some(g);
        }
        groups.of_node.push(parent);
    }
    (groups, uses)
}

/// The innermost use expanded node `i` came from, described; `None` for a node of the graph.
pub fn use_of_node(
    expansion: &Expansion,
    graph_file: &str,
    graph: &Parsed,
    i: usize,
) -> Option<UseInfo> {
    let Some(Origin::Fragment {
        fragment, chain, ..
    }) = expansion.origins.get(i)
    else {
        return None;
    };
    let site = chain.first()?;
    Some(use_info(expansion, graph_file, graph, fragment, site))
}

/// Finds the expanded node a diagnostic mapped back by [`map_back`] is about: its pointer in
/// the graph or in a fragment file, and — for a fragment node used more than once — the use
/// sites its related locations end with.
pub struct NodeFinder<'e> {
    expansion: &'e Expansion,
    graph_file: &'e str,
    graph: &'e Parsed,
    /// (fragment file or `None` for the graph, node index there) → expanded nodes.
    by_place: HashMap<(Option<&'e str>, usize), Vec<usize>>,
}

impl<'e> NodeFinder<'e> {
    pub fn new(expansion: &'e Expansion, graph_file: &'e str, graph: &'e Parsed) -> Self {
        let mut by_place: HashMap<(Option<&str>, usize), Vec<usize>> = HashMap::new();
        for (k, origin) in expansion.origins.iter().enumerate() {
            let key = match origin {
                Origin::Graph(i) => (None, *i),
                Origin::Fragment {
                    fragment, index, ..
                } => (Some(fragment.file.as_str()), *index),
            };
            by_place.entry(key).or_default().push(k);
        }
        NodeFinder {
            expansion,
            graph_file,
            graph,
            by_place,
        }
    }

    /// The expanded node index `d` is about, when its pointer names a node.
    pub fn node_of(&self, d: &Diagnostic) -> Option<usize> {
        let rest = d.pointer.strip_prefix("/nodes/")?;
        let index: usize = rest.split('/').next()?.parse().ok()?;
        let candidates = self.by_place.get(&(d.file.as_deref(), index))?;
        if candidates.len() == 1 {
            return candidates.first().copied();
        }
        candidates.iter().copied().find(|&k| {
            let Some(Origin::Fragment { chain, .. }) = self.expansion.origins.get(k) else {
                return false;
            };
            let sites = chain_related(self.graph_file, self.graph, chain);
            d.related.len() >= sites.len()
                && d.related[d.related.len() - sites.len()..]
                    .iter()
                    .zip(&sites)
                    .all(|(a, b)| a.file == b.file && a.pointer == b.pointer)
        })
    }
}

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
    // Every node of a fragment that leaves by an exit wired to no node has its own S202; mapped
    // to the one `exits` entry at the use site, they are one finding.
    let mut exits_entries = std::collections::HashSet::new();
    diags
        .into_iter()
        .map(|d| {
            let mut d = map_one(d, expansion, graph_file, graph);
            steps(&mut d, expansion, &index, graph_file, graph);
            d
        })
        .filter(|d| {
            d.code != crate::codes::S202.code
                || !d.pointer.contains("/exits/")
                || exits_entries.insert((d.file.clone(), d.pointer.clone()))
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
                r.file = Some(fragment.file.clone());
                r.set_span(location_span(&fragment.parsed, &p));
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
        ) if exit_wired_to_no_node(&d, fragment, &p).is_some() && !chain.is_empty() => {
            // S202 at a fragment's `{"exit": NAME}`: the target that names no node is the use
            // site's `exits` entry, which is what the user wrote and can fix.
            let mut exit = exit_wired_to_no_node(&d, fragment, &p).unwrap_or_default();
            let exits_entry = |site: &UseSite, exit: &str| {
                crate::json::pointer::push(
                    &crate::json::pointer::push(&site.pointer, "exits"),
                    exit,
                )
            };
            // A nested use whose `exits` entry passes the exit on (`{"exit": OUTER}`) did not
            // write the target either: follow the uses outward to the one that named it.
            let mut k = 0;
            let mut at = exits_entry(&chain[0], &exit);
            while let Some(enclosing) = &chain[k].in_fragment
                && k + 1 < chain.len()
                && let Some(outer) = enclosing
                    .parsed
                    .value
                    .pointer(&at)
                    .and_then(|t| t.get("exit"))
                    .and_then(serde_json::Value::as_str)
            {
                exit = outer.to_string();
                k += 1;
                at = exits_entry(&chain[k], &exit);
            }
            let site = &chain[k];
            let mut leaves = Related {
                file: Some(fragment.file.clone()),
                pointer: p.clone(),
                message: format!("fragment `{}` leaves by exit `{exit}` here", fragment.key()),
                line: None,
                column: None,
                end_line: None,
                end_column: None,
            };
            leaves.set_span(location_span(&fragment.parsed, &p));
            add_source(&mut d, &fragment.file, &fragment.parsed);
            d.pointer = at;
            match &site.in_fragment {
                None => related.push(leaves),
                Some(enclosing) => {
                    d.file = Some(enclosing.file.clone());
                    d.set_span(location_span(&enclosing.parsed, &d.pointer));
                    add_source(&mut d, &enclosing.file, &enclosing.parsed);
                    for r in related.iter_mut() {
                        if r.file.is_none() {
                            r.file = Some(graph_file.to_string());
                            r.set_span(location_span(graph, &r.pointer));
                        }
                    }
                    related.push(leaves);
                    related.extend(chain_related(graph_file, graph, &chain[k + 1..]));
                    for outer in chain[k + 1..].iter() {
                        if let Some(f) = &outer.in_fragment {
                            add_source(&mut d, &f.file, &f.parsed);
                        }
                    }
                }
            }
        }
        Place::Fragment(
            Origin::Fragment {
                fragment, chain, ..
            },
            p,
        ) => {
            let p = written(&fragment.parsed, p);
            d.file = Some(fragment.file.clone());
            d.set_span(location_span(&fragment.parsed, &p));
            d.pointer = p;
            add_source(&mut d, &fragment.file, &fragment.parsed);
            // Related locations written against the graph (no file) are in the graph file, which
            // is no longer the diagnostic's own: resolve them now.
            for r in related.iter_mut() {
                if r.file.is_none() {
                    r.file = Some(graph_file.to_string());
                    r.set_span(location_span(graph, &r.pointer));
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

/// `p`, or its longest prefix that the fragment's file has: a finding about what expansion
/// put in place of what was written (the `{"const"}` a `{"param"}` became) is located at what
/// was written.
fn written(parsed: &Parsed, mut p: String) -> String {
    while !p.is_empty() && parsed.value.pointer(&p).is_none() {
        p.truncate(p.rfind('/').unwrap_or(0));
    }
    p
}

/// The exit name when `d` is S202 at a target a fragment writes as `{"exit": NAME}` (`p`, in
/// the fragment's file): the use site wired that exit to a name that is no node.
fn exit_wired_to_no_node(d: &Diagnostic, fragment: &Fragment, p: &str) -> Option<String> {
    if d.code != crate::codes::S202.code {
        return None;
    }
    let target = fragment.parsed.value.pointer(p)?;
    target.get("exit")?.as_str().map(str::to_string)
}

/// Sort diagnostics as SPEC §3.1 says (file, line, column, code): the report's own file first,
/// then the others by name; within a file as [`crate::diagnostic::sort`].
pub fn sort_by_file(diags: &mut [Diagnostic]) {
    crate::diagnostic::sort(diags);
    diags.sort_by(|a, b| (a.file.is_some(), &a.file).cmp(&(b.file.is_some(), &b.file)));
}
