//! The report page (SPEC §11): one HTML document with its styles, script, data and pictures
//! inline, and a Content-Security-Policy that forbids every fetch, so it opens the same from
//! `file://`, a CI artefact or a mail attachment. Sections: the overview (verdicts, ends, seals),
//! the graph picture with its measure selector, legend and node panel, first divergences by node,
//! per-primitive failure rates with Wilson intervals, steps and spend histograms, diagnostics by
//! code, and with a baseline the §6.3 comparison (regressions first) and the §6.2 structural
//! changes. The node panel is filled by the script from one inline JSON document (`#pg-data`,
//! escaped by [`super::text::script_json`]), never by parsing markup.

use super::evaluation::Evaluation;
use super::svg::{self, Cluster, Drawing, Measure, NodeChange, NodeFigures};
use super::text::{attr, esc, number, percent, script_json};
use super::{Report, Side};
use crate::compare::{self, Change, Comparison, Metric, stats};
use crate::replay::Summary;
use crate::replay::report::Via;
use crate::replay::summary::{GraphIdentity, SPEND_BUCKETS_NANOS, STEP_BUCKETS};
use crate::versions::graph_diff::{self, ChangeKind, StructureChange};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Write the whole page.
pub fn write(out: &mut dyn Write, r: &Report<'_>) -> std::io::Result<()> {
    let cand = &r.candidate;
    let (changes, removed, structure) = match &r.baseline {
        Some(base) => structural_changes(r, base),
        None => (BTreeMap::new(), Vec::new(), Vec::new()),
    };
    let mut clusters = workspace_clusters(cand);
    clusters.extend(cand.fragments.iter().cloned());
    let drawing = Drawing {
        graph: cand.graph,
        registry: r.registry,
        evaluation: cand.evaluation,
        changes: &changes,
        removed: &removed,
        clusters: &clusters,
    };
    let figures = svg::node_figures(cand.graph, cand.evaluation);
    let picture = svg::render(&drawing);
    let data = page_data(r, &figures, &changes);

    let title = format!("primgraph report: {}", cand.graph.name);
    let mut head = String::new();
    let _ = write!(
        head,
        concat!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ",
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
            "<meta name=\"generator\" content=\"primgraph {version}\">",
            "<title>{title}</title><style>{style}</style></head><body>\n"
        ),
        version = env!("CARGO_PKG_VERSION"),
        title = esc(&title),
        style = STYLE,
    );
    out.write_all(head.as_bytes())?;

    let mut body = String::new();
    header(&mut body, r);
    overview(&mut body, &cand.evaluation.summary);
    graph_section(&mut body, &picture, &figures, r.baseline.is_some());
    if let Some(base) = &r.baseline {
        comparison(&mut body, r, base);
        structure_section(&mut body, &structure, base, cand);
    }
    divergences(&mut body, cand);
    failure_rates(&mut body, &cand.evaluation.summary, r.confidence);
    distributions(&mut body, &cand.evaluation.summary);
    diagnostics(&mut body, &cand.evaluation.summary);
    out.write_all(body.as_bytes())?;

    out.write_all(b"<script type=\"application/json\" id=\"pg-data\">")?;
    out.write_all(script_json(&data).as_bytes())?;
    out.write_all(b"</script>\n<script>")?;
    out.write_all(SCRIPT.as_bytes())?;
    out.write_all(b"</script>\n</body></html>\n")?;
    out.flush()
}

/// The summary alone, as an HTML fragment (a notebook's `_repr_html_`): overview, failure rates
/// and histograms, with the page's styles scoped under `.pg-report`.
pub fn summary_fragment(summary: &Summary, confidence: f64) -> String {
    let mut s = String::new();
    let _ = write!(s, "<div class=\"pg-report\"><style>{STYLE}</style>");
    overview(&mut s, summary);
    failure_rates(&mut s, summary, confidence);
    distributions(&mut s, summary);
    diagnostics(&mut s, summary);
    s.push_str("</div>");
    s
}

fn header(s: &mut String, r: &Report<'_>) {
    let g = r.candidate.graph;
    let _ = write!(
        s,
        "<header><h1>{name}</h1><p class=\"meta\">graph <code>{name}</code> · digest <code>{digest}</code> · ABI {abi} · registry ABI {rabi} · <b>{runs}</b> runs",
        name = esc(&g.name),
        digest = esc(&g.digest),
        abi = esc(&g.abi),
        rabi = esc(r.registry.abi()),
        runs = r.candidate.evaluation.summary.runs,
    );
    if let Some(b) = &r.baseline {
        let _ = write!(
            s,
            " · baseline <code>{}</code> (<code>{}</code>, {} runs)",
            esc(&b.graph.name),
            esc(&b.graph.digest),
            b.evaluation.summary.runs
        );
    }
    if let Some(file) = r.candidate.file {
        let _ = write!(s, " · <span class=\"file\">{}</span>", esc(file));
    }
    s.push_str("</p></header>\n");
}

fn count(map: &BTreeMap<String, u64>, key: &str) -> u64 {
    map.get(key).copied().unwrap_or(0)
}

fn share(k: u64, n: u64) -> String {
    if n == 0 {
        "–".into()
    } else {
        percent(k as f64 / n as f64)
    }
}

fn overview(s: &mut String, summary: &Summary) {
    let runs = summary.runs;
    s.push_str("<section id=\"overview\"><h2>Runs</h2><div class=\"cards\">");
    let mut card = |title: &str, rows: Vec<(String, u64, &str)>| {
        let _ = write!(s, "<div class=\"card\"><h3>{}</h3><table>", esc(title));
        for (name, k, class) in rows {
            let _ = write!(
                s,
                "<tr class=\"{class}\"><th>{}</th><td class=\"num\">{k}</td><td class=\"num\">{}</td></tr>",
                esc(&name),
                share(k, runs)
            );
        }
        s.push_str("</table></div>");
    };
    card(
        "Verdicts",
        ["faithful", "violated", "diverged", "malformed"]
            .iter()
            .map(|v| (v.to_string(), count(&summary.by_verdict, v), *v))
            .collect(),
    );
    let mut ends: Vec<(String, u64, &str)> = ["success", "failure"]
        .iter()
        .map(|e| (e.to_string(), count(&summary.by_end, e), ""))
        .collect();
    for (e, &k) in &summary.by_end {
        if e != "success" && e != "failure" {
            let name = if e == "none" { "no end event" } else { e };
            ends.push((name.to_string(), k, ""));
        }
    }
    card("Ends", ends);
    card(
        "Seals",
        ["verified", "unverified", "absent"]
            .iter()
            .map(|v| (v.to_string(), count(&summary.by_seal, v), ""))
            .collect(),
    );
    let mean = |sum: f64| {
        if runs == 0 {
            "–".to_string()
        } else {
            number(sum / runs as f64)
        }
    };
    let _ = write!(
        s,
        "<div class=\"card\"><h3>Totals</h3><table><tr><th>runs</th><td class=\"num\">{runs}</td></tr><tr><th>steps</th><td class=\"num\">{}</td></tr><tr><th>mean steps</th><td class=\"num\">{}</td></tr><tr><th>spend (USD)</th><td class=\"num\">{:.4}</td></tr><tr><th>mean spend (USD)</th><td class=\"num\">{}</td></tr></table></div>",
        summary.steps_sum,
        mean(summary.steps_sum as f64),
        summary.spend_usd(),
        if runs == 0 {
            "–".to_string()
        } else {
            format!("{:.4}", summary.spend_usd() / runs as f64)
        }
    );
    s.push_str("</div></section>\n");
}

fn graph_section(s: &mut String, picture: &str, figures: &[NodeFigures], baseline: bool) {
    s.push_str("<section id=\"graph\"><h2>Graph</h2><div class=\"toolbar\"><label>Colour nodes by <select id=\"pg-measure\">");
    for m in Measure::ALL {
        let _ = write!(
            s,
            "<option value=\"{}\">{}</option>",
            m.as_str(),
            esc(m.label())
        );
    }
    s.push_str("</select></label>");
    for (k, m) in Measure::ALL.iter().enumerate() {
        let max = svg::measure_max(figures, *m);
        let top = match m {
            Measure::FailureRate => percent(max),
            Measure::Visits => number(max),
            Measure::Divergences => format!("{max:.0}"),
        };
        let _ = write!(
            s,
            "<div class=\"legend\" data-measure=\"{name}\"{hidden}><span>0</span><span class=\"ramp\" style=\"background:linear-gradient(90deg,{lo},{hi})\"></span><span>{top}</span><span class=\"legend-label\">{label}</span></div>",
            name = m.as_str(),
            hidden = if k == 0 { "" } else { " hidden" },
            lo = m.colour(0.0, 1.0),
            hi = m.colour(1.0, 1.0),
            top = esc(&top),
            label = esc(m.label()),
        );
    }
    s.push_str("<div class=\"key\"><span class=\"k-next\">next</span><span class=\"k-branch\">branch</span><span class=\"k-grant\">grant</span><span class=\"k-error\">on_error</span><span>edge width: runs that took it</span>");
    if baseline {
        s.push_str("<span class=\"k-added\">added</span><span class=\"k-changed\">changed</span>");
    }
    s.push_str("</div></div><div class=\"graph-wrap\"><div class=\"svg-scroll\">");
    s.push_str(picture);
    s.push_str("</div><aside id=\"pg-details\" aria-live=\"polite\"><p class=\"hint\">Click a node to see its numbers and its contract.</p></aside></div></section>\n");
}

fn divergences(s: &mut String, side: &Side<'_>) {
    let ev = side.evaluation;
    s.push_str("<section id=\"divergences\"><h2>First divergences by node</h2>");
    if ev.divergences.is_empty() {
        s.push_str("<p class=\"empty\">No run has a first divergence.</p></section>\n");
        return;
    }
    s.push_str("<table class=\"data\"><thead><tr><th>node</th><th class=\"num\">runs</th><th>code</th><th>expected</th><th>actual</th><th class=\"num\">runs</th><th>example</th></tr></thead><tbody>");
    let mut sites: Vec<(&String, &super::evaluation::DivergenceSite)> =
        ev.divergences.iter().collect();
    sites.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
    for (site, group) in sites {
        let rows = group.cases.len() + usize::from(group.other > 0);
        let in_graph = side.graph.index.contains_key(site.as_str());
        for (k, case) in group.cases.iter().enumerate() {
            s.push_str("<tr");
            if in_graph {
                let _ = write!(s, " data-node=\"{}\"", attr(site));
            }
            s.push('>');
            if k == 0 {
                let _ = write!(
                    s,
                    "<td rowspan=\"{rows}\"><code>{}</code></td><td class=\"num\" rowspan=\"{rows}\">{}</td>",
                    esc(site),
                    group.count
                );
            }
            let link = match (side.trace_href)(&case.example_trace) {
                Some(href) => format!(
                    "<a href=\"{}\">{}</a>",
                    attr(&href),
                    esc(&case.example_trace)
                ),
                None => esc(&case.example_trace),
            };
            let run = case
                .example_run
                .as_deref()
                .map(|r| format!(" run <code>{}</code>", esc(r)))
                .unwrap_or_default();
            let value = |v: &Option<String>| {
                v.as_deref()
                    .map_or("<span class=\"none\">–</span>".to_string(), |t| {
                        format!("<code>{}</code>", esc(t))
                    })
            };
            let _ = write!(
                s,
                "<td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{link}{run} seq {}</td></tr>",
                esc(&case.code),
                value(&case.expected),
                value(&case.actual),
                case.count,
                case.example_seq
            );
        }
        if group.other > 0 {
            let _ = write!(
                s,
                "<tr><td colspan=\"3\" class=\"none\">other cases</td><td class=\"num\">{}</td><td></td></tr>",
                group.other
            );
        }
    }
    s.push_str("</tbody></table>");
    if ev.other_divergences > 0 {
        let _ = write!(
            s,
            "<p class=\"note\">{} more runs diverge first at sites past the first {}.</p>",
            ev.other_divergences,
            super::evaluation::MAX_SITES
        );
    }
    s.push_str("</section>\n");
}

fn interval_text(i: Option<stats::Interval>, as_percent: bool) -> String {
    match i {
        None => "–".into(),
        Some(i) if as_percent => format!("[{}, {}]", percent(i.low), percent(i.high)),
        Some(i) => format!("[{:.4}, {:.4}]", i.low, i.high),
    }
}

fn failure_rates(s: &mut String, summary: &Summary, confidence: f64) {
    let z = stats::z_quantile(confidence);
    let _ = write!(
        s,
        "<section id=\"failures\"><h2>Failure rates by primitive</h2><p class=\"note\">Error steps / steps of the primitive, with the Wilson score interval at {}.</p>",
        percent(confidence)
    );
    if summary.primitive_steps.is_empty() {
        s.push_str("<p class=\"empty\">No steps were recorded.</p></section>\n");
        return;
    }
    let mut rows: Vec<(&String, u64, u64)> = summary
        .primitive_steps
        .iter()
        .map(|(p, &n)| (p, summary.error_steps(p), n))
        .collect();
    rows.sort_by(|a, b| {
        let ra = a.1 as f64 / a.2.max(1) as f64;
        let rb = b.1 as f64 / b.2.max(1) as f64;
        rb.total_cmp(&ra).then(a.0.cmp(b.0))
    });
    s.push_str("<table class=\"data\"><thead><tr><th>primitive</th><th class=\"num\">steps</th><th class=\"num\">errors</th><th class=\"num\">rate</th><th>interval</th><th>failure modes</th></tr></thead><tbody>");
    for (prim, errors, steps) in rows {
        let interval = z.and_then(|z| stats::wilson(errors.min(steps), steps, z));
        let modes = summary
            .failure_modes
            .get(prim)
            .map(|m| {
                m.iter()
                    .map(|(mode, k)| format!("<code>{}</code> {k}", esc(mode)))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let _ = write!(
            s,
            "<tr><td><code>{}</code></td><td class=\"num\">{steps}</td><td class=\"num\">{errors}</td><td class=\"num\">{}</td><td>{}</td><td>{modes}</td></tr>",
            esc(prim),
            share(errors, steps),
            interval_text(interval, true)
        );
    }
    s.push_str("</tbody></table></section>\n");
}

/// A small bar chart of histogram buckets.
fn bar_chart(title: &str, labels: &[String], counts: &[u64]) -> String {
    let max = counts.iter().copied().max().unwrap_or(0).max(1);
    let (bar, gap, plot) = (34.0, 6.0, 90.0);
    let width = labels.len() as f64 * (bar + gap) + gap;
    let height = plot + 44.0;
    let mut s = String::new();
    let _ = write!(
        s,
        "<figure class=\"chart\"><figcaption>{}</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{a}\">",
        esc(title),
        w = number(width),
        h = number(height),
        a = attr(title),
    );
    for (i, (label, &k)) in labels.iter().zip(counts).enumerate() {
        let x = gap + i as f64 * (bar + gap);
        let bh = if k == 0 {
            0.0
        } else {
            (plot * k as f64 / max as f64).max(1.0)
        };
        let _ = write!(
            s,
            "<g><title>{t}: {k} runs</title><rect x=\"{x}\" y=\"{y}\" width=\"{bar}\" height=\"{bh}\"/><text class=\"count\" x=\"{cx}\" y=\"{ty}\">{k}</text><text x=\"{cx}\" y=\"{ly}\">{l}</text></g>",
            t = esc(label),
            x = number(x),
            y = number(14.0 + plot - bh),
            bar = number(bar),
            bh = number(bh),
            cx = number(x + bar / 2.0),
            ty = number(12.0 + plot - bh),
            ly = number(plot + 30.0),
            l = esc(label),
        );
    }
    s.push_str("</svg></figure>");
    s
}

fn distributions(s: &mut String, summary: &Summary) {
    s.push_str("<section id=\"distributions\"><h2>Steps and spend</h2><div class=\"charts\">");
    let mut step_labels: Vec<String> = STEP_BUCKETS.iter().map(|b| format!("≤{b}")).collect();
    step_labels.push(format!(">{}", STEP_BUCKETS[STEP_BUCKETS.len() - 1]));
    s.push_str(&bar_chart(
        "steps per run",
        &step_labels,
        &summary.steps_histogram,
    ));
    let usd = |nanos: u64| {
        let x = nanos as f64 / 1e9;
        if x == 0.0 {
            "0".to_string()
        } else if x < 1.0 {
            format!("{x:.2}")
        } else {
            format!("{x:.0}")
        }
    };
    let mut spend_labels: Vec<String> = SPEND_BUCKETS_NANOS
        .iter()
        .map(|&b| format!("≤{}", usd(b)))
        .collect();
    spend_labels.push(format!(
        ">{}",
        usd(SPEND_BUCKETS_NANOS[SPEND_BUCKETS_NANOS.len() - 1])
    ));
    s.push_str(&bar_chart(
        "spend per run (USD)",
        &spend_labels,
        &summary.spend_histogram,
    ));
    s.push_str("</div></section>\n");
}

fn diagnostics(s: &mut String, summary: &Summary) {
    s.push_str("<section id=\"diagnostics\"><h2>Diagnostics by code</h2>");
    if summary.diagnostics_by_code.is_empty() {
        s.push_str("<p class=\"empty\">No diagnostics.</p></section>\n");
        return;
    }
    s.push_str("<table class=\"data\"><thead><tr><th>code</th><th>title</th><th class=\"num\">count</th></tr></thead><tbody>");
    for (code, k) in &summary.diagnostics_by_code {
        let title = crate::codes::find(code).map_or("", |c| c.title);
        let _ = write!(
            s,
            "<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{k}</td></tr>",
            esc(code),
            esc(title)
        );
    }
    s.push_str("</tbody></table></section>\n");
}

fn estimate_text(metric: &Metric, e: Option<f64>) -> String {
    match e {
        None => "–".into(),
        Some(x) if is_rate(metric) => percent(x),
        Some(x) => format!("{x:.4}"),
    }
}

fn is_rate(metric: &Metric) -> bool {
    matches!(
        metric.metric,
        "success_rate" | "faithful_rate" | "failure_rate" | "paired_success"
    )
}

fn comparison(s: &mut String, r: &Report<'_>, base: &Side<'_>) {
    let cand = &r.candidate;
    let identity = |side: &Side<'_>| GraphIdentity {
        name: side.graph.name.clone(),
        digest: side.graph.digest.clone(),
    };
    let c: Comparison = compare::compare(
        &base.evaluation.summary,
        &cand.evaluation.summary,
        r.confidence,
    )
    .with_graphs(Some(identity(base)), Some(identity(cand)));
    let _ = write!(
        s,
        "<section id=\"comparison\"><h2>Compared with the baseline</h2><p class=\"note\">Candidate − baseline at {} confidence (SPEC §6.3): a regression when the interval lies wholly on the bad side of zero. Regressions first.</p>",
        percent(r.confidence)
    );
    let rank = |m: &Metric| match m.change {
        Change::Regression => 0,
        Change::Improvement => 1,
        Change::None => 2,
    };
    let mut metrics: Vec<&Metric> = c.metrics.iter().collect();
    metrics.sort_by_key(|m| rank(m));
    s.push_str("<table class=\"data compare\"><thead><tr><th>metric</th><th>key</th><th class=\"num\">baseline</th><th>interval</th><th class=\"num\">candidate</th><th>interval</th><th class=\"num\">difference</th><th>interval</th><th>change</th></tr></thead><tbody>");
    for m in metrics {
        let arrow = match m.change {
            Change::Regression => "▼ regression",
            Change::Improvement => "▲ improvement",
            Change::None => "no significant change",
        };
        let rate = is_rate(m);
        let _ = write!(
            s,
            "<tr class=\"{cls}\"><td>{metric}</td><td><code>{key}</code></td><td class=\"num\">{b}</td><td>{bi}</td><td class=\"num\">{c}</td><td>{ci}</td><td class=\"num\">{d}</td><td>{di}</td><td>{arrow}</td></tr>",
            cls = m.change.as_str(),
            metric = esc(m.metric),
            key = esc(m.key.as_deref().unwrap_or("")),
            b = estimate_text(m, m.baseline.estimate),
            bi = interval_text(m.baseline.interval, rate),
            c = estimate_text(m, m.candidate.estimate),
            ci = interval_text(m.candidate.interval, rate),
            d = estimate_text(m, m.difference.estimate),
            di = interval_text(m.difference.interval, rate),
        );
    }
    s.push_str("</tbody></table></section>\n");
}

/// The §6.2 structure changes: node marks for the drawing, removed node IDs, and the list.
fn structural_changes(
    r: &Report<'_>,
    base: &Side<'_>,
) -> (
    BTreeMap<String, NodeChange>,
    Vec<String>,
    Vec<StructureChange>,
) {
    fn version<'s>(side: &Side<'s>) -> graph_diff::Version<'s> {
        graph_diff::Version {
            file: side.file.unwrap_or(""),
            doc: &side.graph.doc,
            digest: &side.graph.digest,
            parsed: None,
            diagnostics: &[],
            expansion: None,
        }
    }
    let changes = graph_diff::structure(r.registry, &version(base), &version(&r.candidate));
    let mut marks = BTreeMap::new();
    let mut removed = Vec::new();
    for c in &changes {
        let Some(node) = &c.node else { continue };
        match c.kind {
            ChangeKind::NodeAdded => {
                marks.insert(node.clone(), NodeChange::Added);
            }
            ChangeKind::NodeChanged => {
                marks.insert(node.clone(), NodeChange::Changed(c.fields.clone()));
            }
            ChangeKind::NodeRemoved => removed.push(node.clone()),
            ChangeKind::GraphChanged => {}
        }
    }
    (marks, removed, changes)
}

fn structure_section(
    s: &mut String,
    changes: &[StructureChange],
    base: &Side<'_>,
    cand: &Side<'_>,
) {
    let _ = write!(
        s,
        "<section id=\"structure\"><h2>Structure changed since the baseline</h2><p class=\"note\">Baseline graph <code>{}</code> → <code>{}</code> (SPEC §6.2); the drawing outlines added and changed nodes and lists removed ones below it.</p>",
        esc(&base.graph.name),
        esc(&cand.graph.name)
    );
    if changes.is_empty() {
        s.push_str("<p class=\"empty\">No structural change.</p></section>\n");
        return;
    }
    s.push_str("<table class=\"data\"><thead><tr><th>change</th><th>node</th><th>fields</th><th>baseline</th><th>candidate</th></tr></thead><tbody>");
    for c in changes {
        let place = |p: &Option<graph_diff::Place>| {
            p.as_ref()
                .map(|p| format!("<code>{}</code>", esc(&p.pointer)))
                .unwrap_or_default()
        };
        let _ = write!(
            s,
            "<tr class=\"{k}\"><td>{k}</td><td><code>{n}</code></td><td>{f}</td><td>{o}</td><td>{nw}</td></tr>",
            k = c.kind.as_str(),
            n = esc(c.node.as_deref().unwrap_or("")),
            f = esc(&c.fields.join(", ")),
            o = place(&c.old),
            nw = place(&c.new),
        );
    }
    s.push_str("</tbody></table></section>\n");
}

/// Workspaces other than `main`, framed (the DOT drawing's clusters).
fn workspace_clusters(side: &Side<'_>) -> Vec<Cluster> {
    let nodes = &side.graph.doc.nodes;
    if nodes.iter().all(|n| n.workspace() == "main") {
        return Vec::new();
    }
    let mut map: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.workspace() != "main" {
            map.entry(n.workspace()).or_default().push(i);
        }
    }
    map.into_iter()
        .map(|(w, members)| Cluster {
            label: format!("workspace {w}"),
            members,
            fragment: false,
        })
        .collect()
}

/// The JSON the script reads: the runs, every node's figures, and the contracts of the
/// primitives the graph uses.
fn page_data(
    r: &Report<'_>,
    figures: &[NodeFigures],
    changes: &BTreeMap<String, NodeChange>,
) -> Value {
    let cand = &r.candidate;
    let ev: &Evaluation = cand.evaluation;
    let mut contracts = Map::new();
    let mut nodes = Vec::with_capacity(cand.graph.doc.nodes.len());
    for (i, n) in cand.graph.doc.nodes.iter().enumerate() {
        let prim = r.registry.lookup(&n.primitive);
        let prim_id = prim.map_or(n.primitive.clone(), |p| p.id.clone());
        if let Some(p) = prim
            && !contracts.contains_key(&p.id)
        {
            contracts.insert(p.id.clone(), serde_json::to_value(p).unwrap_or(Value::Null));
        }
        let f = figures.get(i).copied().unwrap_or_default();
        let modes = ev.summary.failure_modes.get(&prim_id).cloned();
        let divergence = ev.divergences.get(&n.id).map(|d| {
            d.cases
                .iter()
                .map(|c| {
                    json!({"code": c.code, "expected": c.expected, "actual": c.actual,
                           "count": c.count, "example": c.example_trace, "run": c.example_run,
                           "seq": c.example_seq})
                })
                .collect::<Vec<_>>()
        });
        let change = changes.get(&n.id).map(|c| match c {
            NodeChange::Added => json!({"kind": "added"}),
            NodeChange::Changed(fields) => json!({"kind": "changed", "fields": fields}),
        });
        let out_edges: Vec<Value> = ev
            .moves
            .range((i, 0, Via::Next)..(i + 1, 0, Via::Next))
            .filter_map(|(&(_, to, via), &k)| {
                let by = Evaluation::via_label(n, via);
                cand.graph
                    .nodes
                    .get(to)
                    .map(|t| json!({"to": t.id, "by": by, "runs": k}))
            })
            .collect();
        nodes.push(json!({
            "id": n.id,
            "primitive": n.primitive,
            "contract": prim.map(|p| p.id.clone()),
            "workspace": n.workspace(),
            "max_visits": n.max_visits,
            "terminal": n.next.is_none() && n.branches.is_none(),
            "steps": f.steps,
            "errors": f.errors,
            "visits_per_run": f.visits_per_run,
            "failure_rate": f.failure_rate,
            "first_divergences": f.divergences,
            "divergence_cases": divergence,
            "primitive_failure_modes": modes,
            "moves": out_edges,
            "change": change,
        }));
    }
    json!({
        "graph": cand.graph.name,
        "runs": ev.summary.runs,
        "nodes": nodes,
        "contracts": contracts,
    })
}
