//! The report's picture of the graph, as SVG drawn here (no Graphviz): the [`layout`] of the
//! control-flow edges, each node shaped by its role as in the DOT drawing (`graph::render`:
//! terminal double ellipse, verification hexagon, policy octagon, decision diamond, mutation
//! 3-D box, retrieval cylinder, generation parallelogram, other nodes rounded boxes, unknown
//! primitives dashed), filled by a measure, each edge as wide as the share of runs that took it.
//!
//! Every node carries its fill under each [`Measure`] (`data-c-…`), so the page switches
//! measures without recomputing; structural changes against a baseline are outlined (`added`
//! green, `changed` orange) and removed nodes are drawn apart, dashed, below the graph.
//! Clusters (a labelled frame around member nodes) frame workspaces other than `main`, as the
//! DOT drawing does, and each fragment use of an expanded graph (SPEC §9.3: dashed violet,
//! labelled with the use site; a nested use's frame inside its enclosing use's, each frame the
//! bounding box of its nodes, drawn over the workspace frames). Every text is escaped.

use super::evaluation::Evaluation;
use super::layout::{self, Layout, Size};
use super::text::{attr, esc, number};
use crate::graph::render::{Category, is_grant};
use crate::registry::{Primitive, Registry};
use crate::replay::ReplayGraph;
use crate::replay::report::Via;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What a node's fill shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Steps at the node per run.
    Visits,
    /// Error steps at the node / steps at the node.
    FailureRate,
    /// Runs whose first divergence is at the node.
    Divergences,
}

impl Measure {
    pub const ALL: [Measure; 3] = [Measure::Visits, Measure::FailureRate, Measure::Divergences];

    /// The name in the page (`data-c-NAME`, the selector's values).
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Visits => "visits",
            Measure::FailureRate => "failure",
            Measure::Divergences => "divergence",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Measure::Visits => "visits per run",
            Measure::FailureRate => "failure rate (error steps / steps)",
            Measure::Divergences => "first divergences (runs)",
        }
    }

    /// The light and dark ends of the colour scale.
    fn scale(self) -> ((u8, u8, u8), (u8, u8, u8)) {
        match self {
            Measure::Visits => ((0xef, 0xf6, 0xff), (0x3b, 0x82, 0xf6)),
            Measure::FailureRate => ((0xfe, 0xf2, 0xf2), (0xef, 0x44, 0x44)),
            Measure::Divergences => ((0xfa, 0xf5, 0xff), (0xa8, 0x55, 0xf7)),
        }
    }

    /// The colour of `value` on a scale from 0 to `max`.
    pub fn colour(self, value: f64, max: f64) -> String {
        let t = if max > 0.0 && value.is_finite() {
            (value / max).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (a, b) = self.scale();
        let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * t).round() as u8;
        format!(
            "#{:02x}{:02x}{:02x}",
            mix(a.0, b.0),
            mix(a.1, b.1),
            mix(a.2, b.2)
        )
    }
}

/// A node's figures under every measure.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NodeFigures {
    /// Steps recorded at the node.
    pub steps: u64,
    pub errors: u64,
    pub divergences: u64,
    pub visits_per_run: f64,
    /// `None` when the node never ran.
    pub failure_rate: Option<f64>,
}

impl NodeFigures {
    pub fn value(&self, m: Measure) -> f64 {
        match m {
            Measure::Visits => self.visits_per_run,
            Measure::FailureRate => self.failure_rate.unwrap_or(0.0),
            Measure::Divergences => self.divergences as f64,
        }
    }
}

/// Every node's figures, in document order.
pub fn node_figures(graph: &ReplayGraph, evaluation: &Evaluation) -> Vec<NodeFigures> {
    let s = &evaluation.summary;
    graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let steps = s.visits.get(&n.id).copied().unwrap_or(0);
            let errors = evaluation.node_errors.get(&i).copied().unwrap_or(0);
            NodeFigures {
                steps,
                errors,
                divergences: evaluation.divergences.get(&n.id).map_or(0, |d| d.count),
                visits_per_run: if s.runs > 0 {
                    steps as f64 / s.runs as f64
                } else {
                    0.0
                },
                failure_rate: (steps > 0).then(|| errors as f64 / steps as f64),
            }
        })
        .collect()
}

/// The largest value of each measure over the nodes (the top of its legend).
pub fn measure_max(figures: &[NodeFigures], m: Measure) -> f64 {
    figures.iter().map(|f| f.value(m)).fold(0.0, f64::max)
}

/// How a node differs from the baseline graph (SPEC §6.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeChange {
    Added,
    /// The fields that changed.
    Changed(Vec<&'static str>),
}

/// A labelled frame around nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    pub label: String,
    pub members: Vec<usize>,
    /// A fragment use (class `cluster fragment`), not a workspace.
    pub fragment: bool,
}

/// The frames of an expanded graph's fragment uses (`pack::fragment_map::use_groups`): one
/// per use, its members every node of the use (nested uses' included), outer uses first.
pub fn fragment_clusters(groups: &crate::graph::render::Groups) -> Vec<Cluster> {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups.groups.len()];
    for i in 0..groups.of_node.len() {
        for g in groups.chain(i) {
            members[g].push(i);
        }
    }
    groups
        .groups
        .iter()
        .zip(members)
        .map(|(g, members)| Cluster {
            label: g.label.clone(),
            members,
            fragment: true,
        })
        .collect()
}

/// What the picture shows.
pub struct Drawing<'a> {
    pub graph: &'a ReplayGraph,
    pub registry: &'a Registry,
    pub evaluation: &'a Evaluation,
    /// Node ID → its change against the baseline.
    pub changes: &'a BTreeMap<String, NodeChange>,
    /// Nodes of the baseline that the graph no longer has.
    pub removed: &'a [String],
    pub clusters: &'a [Cluster],
}

/// What an edge means.
#[derive(Debug, Clone, PartialEq, Eq)]
enum EdgeKind {
    Next,
    Branch { outcome: String, grant: bool },
    OnError { mode: String },
}

struct Edge {
    from: usize,
    to: usize,
    kind: EdgeKind,
    /// Which of `from`'s out-edges it is, as a run's moves name it.
    via: Via,
}

/// Every control edge that names a node, in the DOT drawing's order.
fn edges(graph: &ReplayGraph, prims: &[Option<&Primitive>]) -> Vec<Edge> {
    let mut out = Vec::new();
    for (i, node) in graph.doc.nodes.iter().enumerate() {
        let mut push = |target: &str, kind: EdgeKind, via: Via| {
            if let Some(&j) = graph.index.get(target) {
                out.push(Edge {
                    from: i,
                    to: j,
                    kind,
                    via,
                });
            }
        };
        let position = |p: usize| u16::try_from(p).unwrap_or(u16::MAX);
        if let Some(next) = &node.next {
            push(next, EdgeKind::Next, Via::Next);
        }
        for (p, (outcome, target)) in node.branches.iter().flatten().enumerate() {
            let grant = is_grant(prims.get(i).copied().flatten(), outcome);
            push(
                target,
                EdgeKind::Branch {
                    outcome: outcome.clone(),
                    grant,
                },
                Via::Branch(position(p)),
            );
        }
        for (p, (mode, target)) in node.on_error.iter().flatten().enumerate() {
            push(
                target,
                EdgeKind::OnError { mode: mode.clone() },
                Via::OnError(position(p)),
            );
        }
    }
    out
}

/// A node's box from its label: wide enough for its ID and primitive (at about 7 px a character).
fn node_size(category: Category, id: &str, primitive: &str) -> Size {
    let chars = id.chars().count().max(primitive.chars().count() * 6 / 7);
    let width = (chars as f64 * 7.2 + 28.0).clamp(72.0, 420.0);
    match category {
        Category::Decision => Size {
            width: width * 1.4,
            height: 58.0,
        },
        Category::Terminal => Size {
            width: width + 16.0,
            height: 46.0,
        },
        _ => Size {
            width,
            height: 40.0,
        },
    }
}

/// Lay out and draw.
pub fn render(d: &Drawing<'_>) -> String {
    let doc = &d.graph.doc;
    let prims: Vec<Option<&Primitive>> = doc
        .nodes
        .iter()
        .map(|n| d.registry.lookup(&n.primitive))
        .collect();
    let categories: Vec<Category> = doc
        .nodes
        .iter()
        .zip(&prims)
        .map(|(n, p)| Category::of(n, *p))
        .collect();
    let sizes: Vec<Size> = doc
        .nodes
        .iter()
        .zip(&categories)
        .map(|(n, &c)| node_size(c, &n.id, &n.primitive))
        .collect();
    let edges = edges(d.graph, &prims);
    let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.from, e.to)).collect();
    let lay = layout::layout(&sizes, &pairs, d.graph.entry);
    let figures = node_figures(d.graph, d.evaluation);
    let maxima: Vec<f64> = Measure::ALL
        .iter()
        .map(|&m| measure_max(&figures, m))
        .collect();

    // Removed nodes: one row below the graph.
    let removed_y = lay.height + 10.0;
    let removed_height = if d.removed.is_empty() { 0.0 } else { 70.0 };
    let mut removed_width: f64 = layout::MARGIN;
    let removed_boxes: Vec<(f64, Size)> = d
        .removed
        .iter()
        .map(|id| {
            let s = node_size(Category::Plain, id, "removed");
            let x = removed_width + s.width / 2.0;
            removed_width += s.width + 20.0;
            (x, s)
        })
        .collect();
    let width = lay.width.max(removed_width + layout::MARGIN).ceil();
    let height = (lay.height + removed_height).ceil();

    let mut s = String::with_capacity(1024 + doc.nodes.len() * 700 + edges.len() * 300);
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" id="pg-graph" class="pg-graph" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">"##,
        w = number(width),
        h = number(height),
        label = attr(&format!("control flow of graph {}", d.graph.name)),
    );
    s.push_str(concat!(
        r##"<defs>"##,
        r##"<marker id="pg-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#475569"/></marker>"##,
        r##"<marker id="pg-arrow-error" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#c2410c"/></marker>"##,
        r##"<marker id="pg-arrow-grant" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#15803d"/></marker>"##,
        r##"</defs>"##
    ));
    clusters(&mut s, d, &lay, &sizes);
    draw_edges(&mut s, d, &lay, &sizes, &edges);
    if let Some(entry) = d.graph.entry.filter(|&e| e < lay.centres.len()) {
        let (x, y) = lay.centres[entry];
        let top = y - sizes[entry].height / 2.0;
        let _ = write!(
            s,
            r##"<g class="entry"><circle cx="{x}" cy="{cy}" r="5" fill="#0f172a"/><path d="M{x},{y1}L{x},{y2}" stroke="#0f172a" stroke-width="1.5" marker-end="url(#pg-arrow)"/></g>"##,
            x = number(x),
            cy = number(top - 14.0),
            y1 = number(top - 9.0),
            y2 = number(top - 1.0),
        );
    }
    for (i, node) in doc.nodes.iter().enumerate() {
        let (cx, cy) = lay.centres[i];
        let fills: Vec<String> = Measure::ALL
            .iter()
            .zip(&maxima)
            .map(|(&m, &max)| m.colour(figures[i].value(m), max))
            .collect();
        let change = d.changes.get(&node.id);
        let class = match change {
            None => "node",
            Some(NodeChange::Added) => "node added",
            Some(NodeChange::Changed(_)) => "node changed",
        };
        let _ = write!(
            s,
            r#"<g class="{class} {cat}" data-node="{id}" data-index="{i}" data-c-visits="{c0}" data-c-failure="{c1}" data-c-divergence="{c2}" tabindex="0"><title>{title}</title>"#,
            cat = categories[i].name(),
            id = attr(&node.id),
            c0 = fills[0],
            c1 = fills[1],
            c2 = fills[2],
            title = esc(&format!("{} ({})", node.id, node.primitive)),
        );
        shape(&mut s, categories[i], cx, cy, sizes[i], &fills[0]);
        let _ = write!(
            s,
            r#"<text class="id" x="{x}" y="{y1}">{id}</text><text class="prim" x="{x}" y="{y2}">{prim}</text>"#,
            x = number(cx),
            y1 = number(cy - 2.0),
            y2 = number(cy + 11.0),
            id = esc(&node.id),
            prim = esc(&node.primitive),
        );
        if let Some(change) = change {
            let badge = match change {
                NodeChange::Added => "added".to_string(),
                NodeChange::Changed(fields) => format!("changed: {}", fields.join(", ")),
            };
            let _ = write!(
                s,
                r#"<text class="badge" x="{x}" y="{y}">{b}</text>"#,
                x = number(cx + sizes[i].width / 2.0 - 2.0),
                y = number(cy - sizes[i].height / 2.0 - 3.0),
                b = esc(&badge),
            );
        }
        s.push_str("</g>");
    }
    if !d.removed.is_empty() {
        let _ = write!(
            s,
            r#"<text class="removed-title" x="{x}" y="{y}">removed since the baseline</text>"#,
            x = number(layout::MARGIN),
            y = number(removed_y),
        );
        for (id, (x, size)) in d.removed.iter().zip(&removed_boxes) {
            let y = removed_y + 12.0 + size.height / 2.0;
            let _ = write!(
                s,
                r#"<g class="node removed" data-removed="{a}"><title>{t}</title><rect x="{x0}" y="{y0}" width="{w}" height="{h}" rx="8"/><text class="id" x="{x}" y="{ty}">{t}</text></g>"#,
                a = attr(id),
                t = esc(id),
                x0 = number(x - size.width / 2.0),
                y0 = number(y - size.height / 2.0),
                w = number(size.width),
                h = number(size.height),
                x = number(*x),
                ty = number(y + 4.0),
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// How many frames deep inside cluster `c` the clusters it contains go (0: none inside): a
/// frame is padded by that much more, so a nested use's frame and label sit inside its
/// enclosing use's instead of on its border. A cluster with the same members as `c` and after
/// it is inside it (outer uses come first: a use whose fragment is one nested use frames
/// exactly the nodes of that use).
fn nesting_height(c: usize, all: &[Cluster], depth: usize) -> usize {
    if depth > all.len() {
        return 0;
    }
    let outer = &all[c];
    (0..all.len())
        .filter(|&o| {
            let inner = &all[o];
            let within = inner.members.iter().all(|m| outer.members.contains(m));
            within
                && (inner.members.len() < outer.members.len()
                    || (o > c && inner.members.len() == outer.members.len()))
        })
        .map(|o| 1 + nesting_height(o, all, depth + 1))
        .max()
        .unwrap_or(0)
}

fn clusters(s: &mut String, d: &Drawing<'_>, lay: &Layout, sizes: &[Size]) {
    for (k, cluster) in d.clusters.iter().enumerate() {
        let members: Vec<usize> = cluster
            .members
            .iter()
            .copied()
            .filter(|&m| m < lay.centres.len())
            .collect();
        if members.is_empty() {
            continue;
        }
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for &m in &members {
            let (cx, cy) = lay.centres[m];
            x0 = x0.min(cx - sizes[m].width / 2.0);
            x1 = x1.max(cx + sizes[m].width / 2.0);
            y0 = y0.min(cy - sizes[m].height / 2.0);
            y1 = y1.max(cy + sizes[m].height / 2.0);
        }
        let pad = 10.0 + 16.0 * nesting_height(k, d.clusters, 0) as f64;
        let _ = write!(
            s,
            r#"<g class="{class}"><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6"/><text x="{tx}" y="{ty}">{label}</text></g>"#,
            class = if cluster.fragment {
                "cluster fragment"
            } else {
                "cluster"
            },
            x = number(x0 - pad),
            y = number(y0 - pad - 8.0),
            w = number(x1 - x0 + 2.0 * pad),
            h = number(y1 - y0 + 2.0 * pad + 8.0),
            tx = number(x0 - pad + 4.0),
            ty = number(y0 - pad + 3.0),
            label = esc(&cluster.label),
        );
    }
}

fn draw_edges(s: &mut String, d: &Drawing<'_>, lay: &Layout, sizes: &[Size], edges: &[Edge]) {
    let runs = d.evaluation.summary.runs;
    let max_runs = edges
        .iter()
        .map(|e| d.evaluation.runs_moving(e.from, e.to, e.via))
        .max()
        .unwrap_or(0);
    let names = &d.graph.doc.nodes;
    for (k, e) in edges.iter().enumerate() {
        let taken = d.evaluation.runs_moving(e.from, e.to, e.via);
        let width = if max_runs > 0 {
            1.0 + 7.0 * taken as f64 / max_runs as f64
        } else {
            1.5
        };
        let (class, marker, label) = match &e.kind {
            EdgeKind::Next => ("edge next", "pg-arrow", String::new()),
            EdgeKind::Branch { outcome, grant } => (
                if *grant { "edge grant" } else { "edge branch" },
                if *grant { "pg-arrow-grant" } else { "pg-arrow" },
                if *grant {
                    format!("{outcome} (grant)")
                } else {
                    outcome.clone()
                },
            ),
            EdgeKind::OnError { mode } => (
                "edge on-error",
                "pg-arrow-error",
                format!("on_error: {mode}"),
            ),
        };
        let untaken = if runs > 0 && taken == 0 {
            " untaken"
        } else {
            ""
        };
        let share = if runs > 0 {
            format!(" ({}%)", number(100.0 * taken as f64 / runs as f64))
        } else {
            String::new()
        };
        let title = format!(
            "{} → {}{}: {taken} runs{share}",
            names[e.from].id,
            names[e.to].id,
            if label.is_empty() {
                String::new()
            } else {
                format!(" [{label}]")
            },
        );
        let route = &lay.routes[k];
        let path = if route.is_empty() {
            // A self-loop, beside the node's right side.
            let (cx, cy) = lay.centres[e.from];
            let x = cx + sizes[e.from].width / 2.0;
            format!(
                "M{},{}C{},{} {},{} {},{}",
                number(x),
                number(cy - 8.0),
                number(x + 36.0),
                number(cy - 30.0),
                number(x + 36.0),
                number(cy + 30.0),
                number(x),
                number(cy + 8.0)
            )
        } else {
            curve(route)
        };
        let _ = write!(
            s,
            r#"<g class="{class}{untaken}" data-from="{from}" data-to="{to}" data-by="{by}" data-runs="{taken}"><title>{title}</title><path d="{path}" stroke-width="{sw}" marker-end="url(#{marker})"/>"#,
            from = e.from,
            to = e.to,
            by = attr(&Evaluation::via_label(&names[e.from], e.via).unwrap_or_default()),
            title = esc(&title),
            sw = number(width),
        );
        if !label.is_empty() {
            let (lx, ly) = label_point(route, lay.centres[e.from], sizes[e.from]);
            let _ = write!(
                s,
                r#"<text x="{x}" y="{y}">{t}</text>"#,
                x = number(lx),
                y = number(ly),
                t = esc(&label),
            );
        }
        s.push_str("</g>");
    }
}

/// Where an edge's label goes: the middle of its route (beside a self-loop).
fn label_point(route: &[(f64, f64)], centre: (f64, f64), size: Size) -> (f64, f64) {
    match route.len() {
        0 => (centre.0 + size.width / 2.0 + 40.0, centre.1 + 4.0),
        1 => route[0],
        n if n % 2 == 1 => route[n / 2],
        n => {
            let (a, b) = (route[n / 2 - 1], route[n / 2]);
            ((a.0 + b.0) / 2.0 + 4.0, (a.1 + b.1) / 2.0)
        }
    }
}

/// A smooth path through the points: each leg a cubic with vertical tangents.
fn curve(points: &[(f64, f64)]) -> String {
    let mut d = String::new();
    let _ = write!(d, "M{},{}", number(points[0].0), number(points[0].1));
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let my = (a.1 + b.1) / 2.0;
        let _ = write!(
            d,
            "C{},{} {},{} {},{}",
            number(a.0),
            number(my),
            number(b.0),
            number(my),
            number(b.0),
            number(b.1)
        );
    }
    d
}

/// A node's outline by its category, centred at (cx, cy).
fn shape(s: &mut String, category: Category, cx: f64, cy: f64, size: Size, fill: &str) {
    let (w, h) = (size.width, size.height);
    let (l, r, t, b) = (cx - w / 2.0, cx + w / 2.0, cy - h / 2.0, cy + h / 2.0);
    let poly = |s: &mut String, points: &[(f64, f64)], extra: &str| {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{},{}", number(*x), number(*y)))
            .collect();
        let _ = write!(
            s,
            r#"<polygon class="shape" points="{}" fill="{fill}"{extra}/>"#,
            pts.join(" ")
        );
    };
    let rect = |s: &mut String, x: f64, y: f64, rx: f64, extra: &str| {
        let _ = write!(
            s,
            r#"<rect class="shape" x="{}" y="{}" width="{}" height="{}" rx="{}" fill="{fill}"{extra}/>"#,
            number(x),
            number(y),
            number(w),
            number(h),
            number(rx)
        );
    };
    match category {
        Category::Terminal => {
            for inset in [0.0, 4.0] {
                let _ = write!(
                    s,
                    r#"<ellipse class="shape" cx="{}" cy="{}" rx="{}" ry="{}" fill="{fill}"/>"#,
                    number(cx),
                    number(cy),
                    number(w / 2.0 - inset),
                    number(h / 2.0 - inset)
                );
            }
        }
        Category::Verification => poly(
            s,
            &[
                (l, cy),
                (l + 12.0, t),
                (r - 12.0, t),
                (r, cy),
                (r - 12.0, b),
                (l + 12.0, b),
            ],
            "",
        ),
        Category::Policy => {
            let c = 10.0;
            poly(
                s,
                &[
                    (l + c, t),
                    (r - c, t),
                    (r, t + c),
                    (r, b - c),
                    (r - c, b),
                    (l + c, b),
                    (l, b - c),
                    (l, t + c),
                ],
                "",
            );
        }
        Category::Decision => poly(s, &[(cx, t), (r, cy), (cx, b), (l, cy)], ""),
        Category::Mutation => {
            rect(s, l + 5.0, t - 5.0, 2.0, "");
            rect(s, l, t, 2.0, "");
        }
        Category::Retrieval => {
            let ry = 6.0;
            let _ = write!(
                s,
                r#"<path class="shape" d="M{l},{t1}A{rx},{ry} 0 0 1 {r},{t1}L{r},{b1}A{rx},{ry} 0 0 1 {l},{b1}Z" fill="{fill}"/><path class="rim" d="M{l},{t1}A{rx},{ry} 0 0 0 {r},{t1}" fill="none"/>"#,
                l = number(l),
                r = number(r),
                t1 = number(t + ry),
                b1 = number(b - ry),
                rx = number(w / 2.0),
                ry = number(ry),
            );
        }
        Category::Generation => poly(s, &[(l + 10.0, t), (r, t), (r - 10.0, b), (l, b)], ""),
        Category::Plain => rect(s, l, t, 8.0, ""),
        Category::Unknown => rect(s, l, t, 0.0, r#" stroke-dasharray="4 3""#),
    }
}
