//! Pictures of a graph: Graphviz DOT and Mermaid flowchart text, for reviewers and docs.
//!
//! The picture shows every node (its ID, its primitive and any `max_visits` bound) with a shape
//! by the primitive's class, and every control-flow edge with its meaning:
//!
//! | thing | DOT | Mermaid |
//! |---|---|---|
//! | entry | a point `__entry` with an edge to `entry` | a small `start` circle |
//! | `verification` node | `hexagon`, blue fill | `{{…}}` hexagon, class `verification` |
//! | `policy` node | `octagon`, yellow fill | `[/…\]` trapezoid, class `policy` |
//! | `s1_decision` node | `diamond` | `{…}` rhombus |
//! | `mutation` node | `box3d` | `[[…]]` subroutine |
//! | `retrieval` node | `cylinder` | `[(…)]` cylinder |
//! | `generation` node | `parallelogram` | `[/…/]` parallelogram |
//! | other node | rounded `box` | `(…)` rounded |
//! | unknown primitive | dashed `box` | `[…]`, class `unknown` |
//! | terminal (no `next`, no `branches`) | `doublecircle` | `(((…)))` double circle |
//! | `next` edge | plain | `-->` |
//! | `branches` edge | labelled with the outcome | `-->` with the outcome |
//! | grant edge (SPEC §3.4) | bold dark green, label `OUTCOME (grant)` | `==>` thick, green |
//! | `on_error` edge | dashed orange, label `on_error: MODE` | `-.->` dotted, orange |
//!
//! Nodes outside the default workspace are drawn in one cluster (subgraph) per workspace.
//!
//! | group | DOT | Mermaid |
//! |---|---|---|
//! | workspace other than `main` | `subgraph cluster_K`, label `workspace: NAME`, rounded grey | `subgraph wsK["workspace: NAME"]` |
//! | fragment use (SPEC §9.3), nested uses nested | `subgraph cluster_use_K`, label `ship: shipkit/land@1.0.0 (FILE:LINE:COL)`, dashed violet | `subgraph fragK["ship: …"]` |
//!
//! A fragment use's cluster sits inside its nodes' workspace cluster; a use whose nodes run in
//! several workspaces is drawn as one cluster per workspace, each with the use's label. The
//! groups come from the caller ([`Groups`]: `pack::fragment_map::use_groups` for an expanded
//! graph), so this module knows nothing about packs.
//!
//! With [`Marks`] built from diagnostics, the node a diagnostic is about (its pointer
//! `/nodes/N…`, else the last node of its witness) is the culprit: drawn red (errors) or orange
//! (warnings) with the codes in its label. The other nodes of a witness route are only outlined
//! (a dashed border in that colour, no code, no fill), so the route reads as the way there and
//! the culprit stands out; the control edges the witness took are drawn in the colour. Infos are
//! not marked.
//!
//! The output is a pure function of the document, the registry and the marks: nodes in document
//! order, edges per node in the order `next`, `branches` (by outcome), `on_error` (by mode).

use super::doc::{GraphDoc, NodeDoc};
use crate::diagnostic::{Diagnostic, Severity, Witness};
use crate::registry::{Authority, Class, Primitive, Registry};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

/// The picture language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Dot,
    Mermaid,
}

/// How a node or an edge is marked by diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeMark {
    /// The worst severity among the diagnostics naming the node.
    pub severity: Severity,
    /// The codes naming the node, sorted.
    pub codes: BTreeSet<crate::codes::CodeName>,
}

/// The nodes and edges diagnostics point at, by node index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// The culprits: nodes a diagnostic is about.
    pub nodes: BTreeMap<usize, NodeMark>,
    /// Nodes on a witness route that no diagnostic is about, with the worst severity of the
    /// witnesses through them (outlined, not painted).
    pub route: BTreeMap<usize, Severity>,
    /// Control edges along witness paths, with the worst severity: (source, target, edge key),
    /// the key `next`, `branch:OUTCOME` or `on_error:MODE`, so that of two edges joining the
    /// same nodes only the one a witness took is marked.
    pub edges: BTreeMap<(usize, usize, String), Severity>,
}

/// One labelled group of nodes, drawn as a cluster (a fragment use).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// What the group is (a use's expanded ID: `ship`, `ship/inner`).
    pub key: String,
    /// The cluster's label.
    pub label: String,
    /// The enclosing group (a nested use's enclosing use).
    pub parent: Option<usize>,
}

/// Labelled, nested groups of nodes: each node in at most one innermost group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Groups {
    pub groups: Vec<Group>,
    /// Per node index, the innermost group the node is in (shorter than the node list: the
    /// rest are in none).
    pub of_node: Vec<Option<usize>>,
}

impl Groups {
    /// The groups node `i` is in, outermost first.
    pub fn chain(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.of_node.get(i).copied().flatten();
        // A parent index is always an earlier group, so the walk ends; the bound guards a
        // hand-built cycle.
        while let Some(g) = at {
            if out.len() > self.groups.len() {
                break;
            }
            out.push(g);
            at = self.groups.get(g).and_then(|g| g.parent);
        }
        out.reverse();
        out
    }
}

/// The node index a diagnostic pointer is inside of: `/nodes/N` or `/nodes/N/…`.
fn pointer_node(pointer: &str) -> Option<usize> {
    let rest = pointer.strip_prefix("/nodes/")?;
    let digits = rest.split('/').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn worse(a: Severity, b: Severity) -> Severity {
    // `Severity` orders Error < Warning < Info.
    a.min(b)
}

impl Marks {
    /// Marks from a file's diagnostics (errors and warnings; infos are not marked).
    pub fn from_diagnostics(doc: &GraphDoc, diagnostics: &[Diagnostic]) -> Marks {
        let mut ids: HashMap<&str, usize> = HashMap::with_capacity(doc.nodes.len());
        for (i, node) in doc.nodes.iter().enumerate() {
            ids.entry(node.id.as_str()).or_insert(i);
        }
        let mut marks = Marks::default();
        for d in diagnostics {
            if d.severity == Severity::Info {
                continue;
            }
            let culprit = pointer_node(&d.pointer).filter(|&i| i < doc.nodes.len());
            let mut on_route: Vec<usize> = Vec::new();
            let mut mark_edge = |key: (usize, usize, String)| {
                marks
                    .edges
                    .entry(key)
                    .and_modify(|s| *s = worse(*s, d.severity))
                    .or_insert(d.severity);
            };
            match &d.witness {
                // A route names each edge it took: mark exactly those.
                Some(Witness::Route { path, edges }) => {
                    on_route.extend(path.iter().filter_map(|id| ids.get(id.as_str()).copied()));
                    for edge in edges {
                        let (Some(&a), Some(&b)) =
                            (ids.get(edge.from.as_str()), ids.get(edge.to.as_str()))
                        else {
                            continue;
                        };
                        let key = match (edge.kind, &edge.label) {
                            ("next", _) => "next".to_string(),
                            (kind, label) => {
                                format!("{kind}:{}", label.as_deref().unwrap_or_default())
                            }
                        };
                        if edge_keys(&doc.nodes[a], &doc.nodes[b].id).contains(&key) {
                            mark_edge((a, b, key));
                        }
                    }
                }
                // A path of nodes alone: every edge between two consecutive nodes.
                Some(Witness::Path(path)) => {
                    let on_path: Vec<Option<usize>> = path
                        .iter()
                        .map(|id| ids.get(id.as_str()).copied())
                        .collect();
                    on_route.extend(on_path.iter().flatten());
                    for pair in on_path.windows(2) {
                        if let [Some(a), Some(b)] = pair {
                            for key in edge_keys(&doc.nodes[*a], &doc.nodes[*b].id) {
                                mark_edge((*a, *b, key));
                            }
                        }
                    }
                }
                _ => {}
            }
            // Without a node pointer, the witness ends at what it is about.
            if let Some(i) = culprit.or_else(|| on_route.last().copied()) {
                let mark = marks.nodes.entry(i).or_insert_with(|| NodeMark {
                    severity: d.severity,
                    codes: BTreeSet::new(),
                });
                mark.severity = worse(mark.severity, d.severity);
                mark.codes.insert(d.code.clone());
            }
            for i in on_route {
                marks
                    .route
                    .entry(i)
                    .and_modify(|s| *s = worse(*s, d.severity))
                    .or_insert(d.severity);
            }
        }
        // A culprit is painted; it is not outlined as well.
        let culprits: BTreeSet<usize> = marks.nodes.keys().copied().collect();
        marks.route.retain(|i, _| !culprits.contains(i));
        marks
    }
}

/// The keys of every edge from `node` to `target` (see [`Marks::edges`]).
fn edge_keys(node: &NodeDoc, target: &str) -> Vec<String> {
    let mut keys = Vec::new();
    if node.next.as_deref() == Some(target) {
        keys.push("next".to_string());
    }
    for (outcome, t) in node.branches.iter().flatten() {
        if t == target {
            keys.push(format!("branch:{outcome}"));
        }
    }
    for (mode, t) in node.on_error.iter().flatten() {
        if t == target {
            keys.push(format!("on_error:{mode}"));
        }
    }
    keys
}

/// What an edge means, for its style.
#[derive(Debug, Clone, PartialEq, Eq)]
enum EdgeStyle {
    Next,
    Branch { outcome: String, grant: bool },
    OnError { mode: String },
}

struct Edge {
    source: usize,
    target: usize,
    style: EdgeStyle,
}

impl Edge {
    /// This edge's key in [`Marks::edges`].
    fn mark_key(&self) -> (usize, usize, String) {
        let key = match &self.style {
            EdgeStyle::Next => "next".to_string(),
            EdgeStyle::Branch { outcome, .. } => format!("branch:{outcome}"),
            EdgeStyle::OnError { mode } => format!("on_error:{mode}"),
        };
        (self.source, self.target, key)
    }
}

/// Whether `outcome` of a node running `prim` is a grant edge (SPEC §3.4).
pub fn is_grant(prim: Option<&Primitive>, outcome: &str) -> bool {
    outcome != "*"
        && prim.is_some_and(|p| {
            p.authority == Authority::Authorize && p.grants.iter().any(|g| g == outcome)
        })
}

/// Every resolvable control edge, in the documented order.
fn edges(doc: &GraphDoc, prims: &[Option<&Primitive>], ids: &HashMap<&str, usize>) -> Vec<Edge> {
    let mut out = Vec::new();
    for (i, node) in doc.nodes.iter().enumerate() {
        let prim = prims.get(i).copied().flatten();
        let mut push = |target: &str, style: EdgeStyle| {
            if let Some(&j) = ids.get(target) {
                out.push(Edge {
                    source: i,
                    target: j,
                    style,
                });
            }
        };
        if let Some(next) = &node.next {
            push(next, EdgeStyle::Next);
        }
        for (outcome, target) in node.branches.iter().flatten() {
            push(
                target,
                EdgeStyle::Branch {
                    outcome: outcome.clone(),
                    grant: is_grant(prim, outcome),
                },
            );
        }
        for (mode, target) in node.on_error.iter().flatten() {
            push(target, EdgeStyle::OnError { mode: mode.clone() });
        }
    }
    out
}

/// The node's drawing category: terminal first, then the primitive's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Terminal,
    Verification,
    Policy,
    Decision,
    Mutation,
    Retrieval,
    Generation,
    Plain,
    Unknown,
}

impl Category {
    pub fn of(node: &NodeDoc, prim: Option<&Primitive>) -> Category {
        if node.next.is_none() && node.branches.is_none() {
            return Category::Terminal;
        }
        match prim.map(|p| p.class) {
            None => Category::Unknown,
            Some(Class::Verification) => Category::Verification,
            Some(Class::Policy) => Category::Policy,
            Some(Class::S1Decision) => Category::Decision,
            Some(Class::Mutation) => Category::Mutation,
            Some(Class::Retrieval) => Category::Retrieval,
            Some(Class::Generation) => Category::Generation,
            Some(Class::Deterministic) => Category::Plain,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Category::Terminal => "terminal",
            Category::Verification => "verification",
            Category::Policy => "policy",
            Category::Decision => "decision",
            Category::Mutation => "mutation",
            Category::Retrieval => "retrieval",
            Category::Generation => "generation",
            Category::Plain => "plain",
            Category::Unknown => "unknown",
        }
    }

    /// DOT attributes: shape and fill.
    fn dot_attrs(self) -> &'static str {
        match self {
            Category::Terminal => "shape=doublecircle",
            Category::Verification => "shape=hexagon, style=filled, fillcolor=\"#dbeafe\"",
            Category::Policy => "shape=octagon, style=filled, fillcolor=\"#fef3c7\"",
            Category::Decision => "shape=diamond",
            Category::Mutation => "shape=box3d",
            Category::Retrieval => "shape=cylinder",
            Category::Generation => "shape=parallelogram",
            Category::Plain => "shape=box, style=rounded",
            Category::Unknown => "shape=box, style=dashed",
        }
    }

    /// Mermaid opening and closing brackets.
    fn mermaid_brackets(self) -> (&'static str, &'static str) {
        match self {
            Category::Terminal => ("(((", ")))"),
            Category::Verification => ("{{", "}}"),
            Category::Policy => ("[/", "\\]"),
            Category::Decision => ("{", "}"),
            Category::Mutation => ("[[", "]]"),
            Category::Retrieval => ("[(", ")]"),
            Category::Generation => ("[/", "/]"),
            Category::Plain => ("(", ")"),
            Category::Unknown => ("[", "]"),
        }
    }

    /// Mermaid `classDef` body, for the categories that are coloured.
    fn mermaid_class(self) -> Option<&'static str> {
        match self {
            Category::Verification => Some("fill:#dbeafe,stroke:#1e40af"),
            Category::Policy => Some("fill:#fef3c7,stroke:#92400e"),
            Category::Unknown => Some("stroke-dasharray:4 3"),
            _ => None,
        }
    }
}

const GRANT_COLOR: &str = "#15803d";
const USE_COLOR: &str = "#7c3aed";
const ERROR_COLOR: &str = "#dc2626";
const WARNING_COLOR: &str = "#d97706";
const ON_ERROR_COLOR: &str = "#c2410c";

fn mark_color(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => ERROR_COLOR,
        _ => WARNING_COLOR,
    }
}

/// A node's DOT attributes with its border dashed: the category's own `style` gains `dashed`
/// (each attribute once).
fn dashed(attrs: &str) -> String {
    match attrs.split_once("style=") {
        Some((before, after)) => {
            let (style, rest) = after.split_once(',').unwrap_or((after, ""));
            let style = style.trim();
            let merged = if style == "dashed" {
                "dashed".to_string()
            } else {
                format!("\"{style},dashed\"")
            };
            let rest = if rest.is_empty() {
                String::new()
            } else {
                format!(",{rest}")
            };
            format!("{before}style={merged}{rest}")
        }
        None => format!("{attrs}, style=dashed"),
    }
}

/// The lines of a node's label: ID, primitive (with its dotted ID when written as an alias),
/// bound, and the codes marking it.
fn label_lines(node: &NodeDoc, prim: Option<&Primitive>, mark: Option<&NodeMark>) -> Vec<String> {
    let mut lines = vec![node.id.clone()];
    match prim {
        Some(p) if p.id != node.primitive => lines.push(format!("{} ({})", node.primitive, p.id)),
        _ => lines.push(node.primitive.clone()),
    }
    if let Some(max) = node.max_visits {
        lines.push(format!("max_visits {max}"));
    }
    if let Some(mark) = mark {
        lines.push(
            mark.codes
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    lines
}

/// A DOT double-quoted string.
fn dot_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Mermaid double-quoted label.
fn mermaid_quote(text: &str) -> String {
    format!("\"{}\"", mermaid_escape(text))
}

/// Entity codes for the characters Mermaid reads as syntax inside a label.
fn mermaid_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '#' => out.push_str("#35;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

struct Prepared<'a> {
    doc: &'a GraphDoc,
    prims: Vec<Option<&'a Primitive>>,
    edges: Vec<Edge>,
    entry: Option<usize>,
    /// Workspace → node indices, when any node leaves the default workspace.
    clusters: Option<BTreeMap<&'a str, Vec<usize>>>,
    groups: &'a Groups,
}

impl<'a> Prepared<'a> {
    fn new(doc: &'a GraphDoc, registry: &'a Registry, groups: &'a Groups) -> Prepared<'a> {
        let mut ids: HashMap<&str, usize> = HashMap::with_capacity(doc.nodes.len());
        for (i, node) in doc.nodes.iter().enumerate() {
            ids.entry(node.id.as_str()).or_insert(i);
        }
        let prims: Vec<Option<&Primitive>> = doc
            .nodes
            .iter()
            .map(|n| registry.lookup(&n.primitive))
            .collect();
        let edges = edges(doc, &prims, &ids);
        let entry = ids.get(doc.entry.as_str()).copied();
        let clusters = doc.nodes.iter().any(|n| n.workspace() != "main").then(|| {
            let mut map: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
            for (i, n) in doc.nodes.iter().enumerate() {
                map.entry(n.workspace()).or_default().push(i);
            }
            map
        });
        Prepared {
            doc,
            prims,
            edges,
            entry,
            clusters,
            groups,
        }
    }

    fn prim(&self, i: usize) -> Option<&'a Primitive> {
        self.prims.get(i).copied().flatten()
    }

    fn category(&self, i: usize) -> Category {
        Category::of(&self.doc.nodes[i], self.prim(i))
    }
}

/// Draw `doc` in `format`, each of `groups` (fragment uses) as a labelled cluster.
pub fn draw(
    doc: &GraphDoc,
    registry: &Registry,
    format: Format,
    marks: &Marks,
    groups: &Groups,
) -> String {
    let prepared = Prepared::new(doc, registry, groups);
    match format {
        Format::Dot => dot(&prepared, marks),
        Format::Mermaid => mermaid(&prepared, marks),
    }
}

fn dot(p: &Prepared<'_>, marks: &Marks) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", dot_quote(&p.doc.graph));
    out.push_str("  rankdir=TB;\n");
    out.push_str("  node [fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    if let Some(description) = &p.doc.description {
        let _ = writeln!(
            out,
            "  labelloc=t;\n  label={};",
            dot_quote(&format!("{}: {description}", p.doc.graph))
        );
    }
    out.push_str("  \"__entry\" [shape=point, width=0.15, label=\"\"];\n");
    let node_line = |i: usize| -> String {
        let node = &p.doc.nodes[i];
        let mark = marks.nodes.get(&i);
        let label = label_lines(node, p.prim(i), mark).join("\n");
        let route = marks.route.get(&i).copied();
        let shape = match route {
            Some(_) => dashed(p.category(i).dot_attrs()),
            None => p.category(i).dot_attrs().to_string(),
        };
        let mut attrs = format!(
            "label={}, {shape}, class={}",
            dot_quote(&label),
            dot_quote(p.category(i).name())
        );
        if let Some(mark) = mark {
            let color = mark_color(mark.severity);
            let _ = write!(
                attrs,
                ", color=\"{color}\", fontcolor=\"{color}\", penwidth=2.5"
            );
        } else if let Some(severity) = route {
            let color = mark_color(severity);
            let _ = write!(attrs, ", color=\"{color}\", penwidth=2");
        }
        format!("{} [{attrs}];", dot_quote(&node.id))
    };
    let opens = Opens {
        workspace: &|k, workspace| {
            format!(
                "subgraph \"cluster_{k}\" {{\n  label={}; style=rounded; color=\"#64748b\";\n",
                dot_quote(&format!("workspace: {workspace}"))
            )
        },
        group: &|k, group| {
            format!(
                "subgraph \"cluster_use_{k}\" {{\n  label={}; style=dashed; color=\"{USE_COLOR}\"; fontcolor=\"{USE_COLOR}\";\n",
                dot_quote(&group.label)
            )
        },
        close: "}\n",
    };
    write_nodes(&mut out, p, &node_line, &opens);
    if let Some(entry) = p.entry {
        let _ = writeln!(
            out,
            "  \"__entry\" -> {};",
            dot_quote(&p.doc.nodes[entry].id)
        );
    }
    for edge in &p.edges {
        // Each attribute once: a witness colour replaces the edge's own colour and width.
        let mut label: Option<String> = None;
        let mut style: Option<&str> = None;
        let mut color: Option<&str> = None;
        let mut penwidth: Option<&str> = None;
        match &edge.style {
            EdgeStyle::Next => {}
            EdgeStyle::Branch { outcome, grant } => {
                if *grant {
                    label = Some(format!("{outcome} (grant)"));
                    style = Some("bold");
                    penwidth = Some("2.5");
                    color = Some(GRANT_COLOR);
                } else {
                    label = Some(outcome.clone());
                }
            }
            EdgeStyle::OnError { mode } => {
                label = Some(format!("on_error: {mode}"));
                style = Some("dashed");
                color = Some(ON_ERROR_COLOR);
            }
        }
        let witness = marks.edges.get(&edge.mark_key()).copied();
        if let Some(severity) = witness {
            color = Some(mark_color(severity));
            penwidth = Some("3");
        }
        let mut attrs: Vec<String> = Vec::new();
        if let Some(label) = &label {
            attrs.push(format!("label={}", dot_quote(label)));
        }
        if let Some(style) = style {
            attrs.push(format!("style={style}"));
        }
        if let Some(penwidth) = penwidth {
            attrs.push(format!("penwidth={penwidth}"));
        }
        if let Some(color) = color {
            attrs.push(format!("color=\"{color}\", fontcolor=\"{color}\""));
        }
        if witness.is_some() {
            attrs.push("class=\"witness\"".to_string());
        }
        let from = dot_quote(&p.doc.nodes[edge.source].id);
        let to = dot_quote(&p.doc.nodes[edge.target].id);
        if attrs.is_empty() {
            let _ = writeln!(out, "  {from} -> {to};");
        } else {
            let _ = writeln!(out, "  {from} -> {to} [{}];", attrs.join(", "));
        }
    }
    out.push_str("}\n");
    out
}

fn mermaid(p: &Prepared<'_>, marks: &Marks) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "%% primgraph: {}", p.doc.graph.replace('\n', " "));
    out.push_str("flowchart TD\n");
    out.push_str("  __entry((\"start\"))\n");
    let node_line = |i: usize| -> String {
        let node = &p.doc.nodes[i];
        // `<br/>` is Mermaid syntax: escape each line, then join.
        let label = label_lines(node, p.prim(i), marks.nodes.get(&i))
            .iter()
            .map(|line| mermaid_escape(line))
            .collect::<Vec<_>>()
            .join("<br/>");
        let (open, close) = p.category(i).mermaid_brackets();
        format!("n{i}{open}\"{label}\"{close}")
    };
    let opens = Opens {
        workspace: &|k, workspace| {
            format!(
                "subgraph ws{k}[{}]\n",
                mermaid_quote(&format!("workspace: {workspace}"))
            )
        },
        group: &|k, group| format!("subgraph frag{k}[{}]\n", mermaid_quote(&group.label)),
        close: "end\n",
    };
    write_nodes(&mut out, p, &node_line, &opens);
    let mut link_styles: Vec<(usize, String)> = Vec::new();
    let mut link = 0usize;
    if let Some(entry) = p.entry {
        let _ = writeln!(out, "  __entry --> n{entry}");
        link += 1;
    }
    for edge in &p.edges {
        let (a, b) = (edge.source, edge.target);
        match &edge.style {
            EdgeStyle::Next => {
                let _ = writeln!(out, "  n{a} --> n{b}");
            }
            EdgeStyle::Branch { outcome, grant } => {
                if *grant {
                    let _ = writeln!(
                        out,
                        "  n{a} ==>|{}| n{b}",
                        mermaid_quote(&format!("{outcome} (grant)"))
                    );
                    link_styles.push((
                        link,
                        format!("stroke:{GRANT_COLOR},stroke-width:3px,color:{GRANT_COLOR}"),
                    ));
                } else {
                    let _ = writeln!(out, "  n{a} -->|{}| n{b}", mermaid_quote(outcome));
                }
            }
            EdgeStyle::OnError { mode } => {
                let _ = writeln!(
                    out,
                    "  n{a} -.->|{}| n{b}",
                    mermaid_quote(&format!("on_error: {mode}"))
                );
                link_styles.push((
                    link,
                    format!("stroke:{ON_ERROR_COLOR},color:{ON_ERROR_COLOR}"),
                ));
            }
        }
        if let Some(&severity) = marks.edges.get(&edge.mark_key()) {
            let color = mark_color(severity);
            // A witness style replaces the edge's own.
            link_styles.retain(|(k, _)| *k != link);
            link_styles.push((
                link,
                format!("stroke:{color},stroke-width:4px,color:{color}"),
            ));
        }
        link += 1;
    }
    let mut by_category: BTreeMap<Category, Vec<usize>> = BTreeMap::new();
    for i in 0..p.doc.nodes.len() {
        by_category.entry(p.category(i)).or_default().push(i);
    }
    for (category, members) in &by_category {
        if let Some(style) = category.mermaid_class() {
            let _ = writeln!(out, "  classDef {} {style}", category.name());
            let _ = writeln!(out, "  class {} {}", node_list(members), category.name());
        }
    }
    for (severity, name) in [(Severity::Error, "error"), (Severity::Warning, "warning")] {
        let members: Vec<usize> = marks
            .nodes
            .iter()
            .filter(|(_, m)| m.severity == severity)
            .map(|(&i, _)| i)
            .collect();
        if !members.is_empty() {
            let color = mark_color(severity);
            let _ = writeln!(
                out,
                "  classDef {name} fill:{},stroke:{color},stroke-width:3px,color:{color}",
                if severity == Severity::Error {
                    "#fee2e2"
                } else {
                    "#fef3c7"
                }
            );
            let _ = writeln!(out, "  class {} {name}", node_list(&members));
        }
    }
    for (severity, name) in [
        (Severity::Error, "route_error"),
        (Severity::Warning, "route_warning"),
    ] {
        let members: Vec<usize> = marks
            .route
            .iter()
            .filter(|(_, s)| **s == severity)
            .map(|(&i, _)| i)
            .collect();
        if !members.is_empty() {
            let color = mark_color(severity);
            let _ = writeln!(
                out,
                "  classDef {name} stroke:{color},stroke-width:2px,stroke-dasharray:5 3"
            );
            let _ = writeln!(out, "  class {} {name}", node_list(&members));
        }
    }
    for (k, style) in link_styles {
        let _ = writeln!(out, "  linkStyle {k} {style}");
    }
    out
}

/// How each format opens and closes a cluster (the text without its indentation).
struct Opens<'a> {
    workspace: &'a dyn Fn(usize, &str) -> String,
    group: &'a dyn Fn(usize, &Group) -> String,
    close: &'a str,
}

/// `text`'s lines, each indented by `depth` levels of two spaces.
fn indented(out: &mut String, depth: usize, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{:width$}{line}", "", width = 2 * depth);
    }
}

/// Every node's line, in one cluster per workspace when any node leaves the default one, and
/// within it one (nested) cluster per fragment use: the same grouping for both formats, which
/// differ only in how a cluster opens and closes. A use's nodes are consecutive in an expanded
/// graph, so a stack of open groups suffices; a group whose nodes are not consecutive is opened
/// again (drawn as two clusters with one label), never lost.
fn write_nodes(
    out: &mut String,
    p: &Prepared<'_>,
    node_line: &dyn Fn(usize) -> String,
    opens: &Opens<'_>,
) {
    let mut counter = 0usize;
    let mut bucket = |out: &mut String, members: &mut dyn Iterator<Item = usize>, base: usize| {
        let mut open: Vec<usize> = Vec::new();
        for i in members {
            let chain = p.groups.chain(i);
            let keep = open.iter().zip(&chain).take_while(|(a, b)| a == b).count();
            while open.len() > keep {
                open.pop();
                indented(out, base + open.len(), opens.close);
            }
            for &g in &chain[keep..] {
                indented(
                    out,
                    base + open.len(),
                    &(opens.group)(counter, &p.groups.groups[g]),
                );
                counter += 1;
                open.push(g);
            }
            indented(out, base + open.len(), &node_line(i));
        }
        while open.pop().is_some() {
            indented(out, base + open.len(), opens.close);
        }
    };
    match &p.clusters {
        None => bucket(out, &mut (0..p.doc.nodes.len()), 1),
        Some(clusters) => {
            for (k, (workspace, members)) in clusters.iter().enumerate() {
                indented(out, 1, &(opens.workspace)(k, workspace));
                bucket(out, &mut members.iter().copied(), 2);
                indented(out, 1, opens.close);
            }
        }
    }
}

fn node_list(members: &[usize]) -> String {
    members
        .iter()
        .map(|i| format!("n{i}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_node_reads_only_node_pointers() {
        assert_eq!(pointer_node("/nodes/4"), Some(4));
        assert_eq!(pointer_node("/nodes/12/inputs/patch"), Some(12));
        assert_eq!(pointer_node("/nodes/"), None);
        assert_eq!(pointer_node("/nodes/x1"), None);
        assert_eq!(pointer_node("/entry"), None);
        assert_eq!(pointer_node(""), None);
    }

    #[test]
    fn a_use_across_workspaces_is_one_cluster_per_workspace_each_labelled() {
        let value = serde_json::json!({
            "graph": "g", "abi": "1.0.0", "capabilities": [], "entry": "a",
            "nodes": [
                {"id": "a", "primitive": "intake.parse_issue", "next": "ship/x"},
                {"id": "ship/x", "primitive": "synth.patch", "workspace": "w", "next": "ship/y"},
                {"id": "ship/y", "primitive": "synth.patch", "next": "b"},
                {"id": "b", "primitive": "done.finish_success"}
            ]
        });
        let doc = crate::graph::load(&value).expect("a graph");
        let groups = Groups {
            groups: vec![Group {
                key: "ship".into(),
                label: "ship: kit/f@1.0.0 (g.graph.json:3:5)".into(),
                parent: None,
            }],
            of_node: vec![None, Some(0), Some(0), None],
        };
        let dot = draw(
            &doc,
            Registry::builtin(),
            Format::Dot,
            &Marks::default(),
            &groups,
        );
        let main = dot.find("label=\"workspace: main\"").expect(&dot);
        let w = dot.find("label=\"workspace: w\"").expect(&dot);
        let uses: Vec<usize> = dot
            .match_indices("label=\"ship: kit/f@1.0.0 (g.graph.json:3:5)\"")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(uses.len(), 2, "{dot}");
        assert!(main < uses[0] && uses[0] < w && w < uses[1], "{dot}");
        // Each use cluster sits one level inside its workspace cluster.
        assert!(
            dot.contains("\n    subgraph \"cluster_use_0\" {\n"),
            "{dot}"
        );
        assert!(
            dot.contains("\n    subgraph \"cluster_use_1\" {\n"),
            "{dot}"
        );
        assert!(dot.contains("\n      \"ship/y\" ["), "{dot}");
        let mermaid = draw(
            &doc,
            Registry::builtin(),
            Format::Mermaid,
            &Marks::default(),
            &groups,
        );
        assert_eq!(mermaid.matches("subgraph frag").count(), 2, "{mermaid}");
        assert_eq!(mermaid.matches("\n    end\n").count(), 2, "{mermaid}");
    }

    #[test]
    fn groups_chain_is_outermost_first_and_survives_a_cycle() {
        let groups = Groups {
            groups: vec![
                Group {
                    key: "a".into(),
                    label: "a".into(),
                    parent: None,
                },
                Group {
                    key: "a/b".into(),
                    label: "a/b".into(),
                    parent: Some(0),
                },
            ],
            of_node: vec![Some(1), None],
        };
        assert_eq!(groups.chain(0), vec![0, 1]);
        assert_eq!(groups.chain(1), Vec::<usize>::new());
        assert_eq!(groups.chain(7), Vec::<usize>::new());
        let cyclic = Groups {
            groups: vec![Group {
                key: "a".into(),
                label: "a".into(),
                parent: Some(0),
            }],
            of_node: vec![Some(0)],
        };
        assert!(cyclic.chain(0).len() <= 2);
    }

    #[test]
    fn quoting_escapes_syntax() {
        assert_eq!(dot_quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
        assert_eq!(mermaid_quote("a\"<b>#"), "\"a#quot;#lt;b#gt;#35;\"");
    }
}
