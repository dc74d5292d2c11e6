//! The human and Markdown renderings of a [`Comparison`]: one row per metric, each side's
//! estimate with its interval, the difference with its interval, and the label with an arrow
//! (↑ the candidate is higher, ↓ lower) where the change is significant. Rates are shown as
//! percentages and their differences in percentage points; colour (red regression, green
//! improvement) only when the caller asks for it.

use super::stats::Interval;
use super::{Bad, Change, Comparison, Difference, Estimate, Metric};
use crate::diagnostic::{counted, visible};

/// How a metric's numbers are written.
#[derive(Clone, Copy)]
enum Unit {
    Rate,
    Count,
    Usd,
}

fn unit(metric: &str) -> Unit {
    match metric {
        "mean_spend_usd" => Unit::Usd,
        "mean_steps" | "visits_per_run" => Unit::Count,
        _ => Unit::Rate,
    }
}

fn value(unit: Unit, x: f64, signed: bool) -> String {
    let sign = if signed && x >= 0.0 { "+" } else { "" };
    match unit {
        Unit::Rate if signed => format!("{sign}{:.1} pp", x * 100.0),
        Unit::Rate => format!("{:.1}%", x * 100.0),
        Unit::Count => format!("{sign}{x:.2}"),
        Unit::Usd => format!("{sign}{x:.4}"),
    }
}

fn bounds(unit: Unit, i: Interval, signed: bool) -> String {
    let scale = if matches!(unit, Unit::Rate) {
        100.0
    } else {
        1.0
    };
    let digits = match unit {
        Unit::Rate => 1,
        Unit::Count => 2,
        Unit::Usd => 4,
    };
    let f = |x: f64| {
        let sign = if signed && x >= 0.0 { "+" } else { "" };
        format!("{sign}{:.*}", digits, x * scale)
    };
    format!("[{}, {}]", f(i.low), f(i.high))
}

fn side_cell(m: &Metric, e: &Estimate) -> String {
    let u = unit(m.metric);
    match e.estimate {
        None => "—".into(),
        Some(x) => {
            let mut s = value(u, x, false);
            if let Some(i) = e.interval {
                s.push(' ');
                s.push_str(&bounds(u, i, false));
            }
            s
        }
    }
}

fn difference_cell(m: &Metric, d: &Difference) -> String {
    let u = unit(m.metric);
    match d.estimate {
        None => "—".into(),
        Some(x) => {
            let mut s = value(u, x, true);
            if let Some(i) = d.interval {
                s.push(' ');
                s.push_str(&bounds(u, i, true));
            }
            s
        }
    }
}

fn change_cell(m: &Metric) -> String {
    let arrow = match m.difference.estimate {
        Some(x) if x > 0.0 => "↑",
        _ => "↓",
    };
    match m.change {
        Change::Regression => format!("{arrow} regression"),
        Change::Improvement => format!("{arrow} improvement"),
        Change::None if m.bad == Bad::Neither => "(not tested)".into(),
        Change::None if m.reason.is_some() => "no verdict (see note)".into(),
        Change::None if m.difference.interval.is_none() => "no interval".into(),
        Change::None => "no significant change".into(),
    }
}

fn key_cell(m: &Metric) -> String {
    match (&m.key, m.tasks) {
        (Some(k), _) => visible(k).into_owned(),
        (None, Some(t)) => format!(
            "{} tasks: {}↑ {}↓ {}=",
            t.improved + t.worsened + t.unchanged,
            t.improved,
            t.worsened,
            t.unchanged
        ),
        (None, None) => String::new(),
    }
}

fn side_line(name: &str, side: &super::SideInfo) -> String {
    match &side.graph {
        Some(g) => format!(
            "{name}: {} {} ({})",
            visible(&g.name),
            visible(&g.digest),
            counted(side.runs, "run", "runs")
        ),
        None => format!("{name}: ({})", counted(side.runs, "run", "runs")),
    }
}

const HEADERS: [&str; 6] = [
    "metric",
    "key",
    "baseline",
    "candidate",
    "difference",
    "change",
];

fn rows(c: &Comparison) -> Vec<[String; 6]> {
    c.metrics
        .iter()
        .map(|m| {
            [
                m.metric.to_string(),
                key_cell(m),
                side_cell(m, &m.baseline),
                side_cell(m, &m.candidate),
                difference_cell(m, &m.difference),
                change_cell(m),
            ]
        })
        .collect()
}

fn preamble(c: &Comparison) -> Vec<String> {
    let mut lines = vec![
        side_line("baseline", &c.baseline),
        side_line("candidate", &c.candidate),
    ];
    if c.graphs_differ() {
        lines.push("the two sides were replayed against different graphs (digests above)".into());
    }
    lines
}

/// One line per metric that has no verdict for a reason: `metric[ key]: reason`.
fn notes(c: &Comparison) -> Vec<String> {
    c.metrics
        .iter()
        .filter_map(|m| {
            let reason = m.reason.as_ref()?;
            Some(match &m.key {
                Some(k) => format!("{} {}: {reason}", m.metric, visible(k)),
                None => format!("{}: {reason}", m.metric),
            })
        })
        .collect()
}

/// The aligned table for a terminal; `color` paints regressions red and improvements green.
pub fn human(c: &Comparison, color: bool) -> String {
    let rows = rows(c);
    let mut widths = HEADERS.map(|h| h.chars().count());
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for line in preamble(c) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!(
        "confidence {}%; difference = candidate − baseline\n\n",
        c.confidence * 100.0
    ));
    let line = |cells: &[String; 6], paint: Option<&str>| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            let padded = if i + 1 == cells.len() {
                cell.clone()
            } else {
                format!("{cell:<w$}  ")
            };
            match (paint, i + 1 == cells.len()) {
                (Some(code), true) => s.push_str(&format!("\x1b[{code}m{padded}\x1b[0m")),
                _ => s.push_str(&padded),
            }
        }
        s.trim_end().to_string() + "\n"
    };
    out.push_str(&line(&HEADERS.map(String::from), None));
    for (r, m) in rows.iter().zip(&c.metrics) {
        let paint = match (color, m.change) {
            (true, Change::Regression) => Some("31"),
            (true, Change::Improvement) => Some("32"),
            _ => None,
        };
        out.push_str(&line(r, paint));
    }
    let count = |want: Change| c.metrics.iter().filter(|m| m.change == want).count();
    out.push_str(&format!(
        "\n{}, {}\n",
        counted(
            count(Change::Regression) as u64,
            "regression",
            "regressions"
        ),
        counted(
            count(Change::Improvement) as u64,
            "improvement",
            "improvements"
        )
    ));
    let notes = notes(c);
    if !notes.is_empty() {
        out.push_str("\nno verdict:\n");
        for note in notes {
            out.push_str(&format!("  {note}\n"));
        }
    }
    out
}

fn markdown_cell(cell: &str) -> String {
    cell.replace('|', "\\|")
}

/// A Markdown table ready to paste into a pull request.
pub fn markdown(c: &Comparison) -> String {
    let mut out = String::new();
    for line in preamble(c) {
        out.push_str(&format!("{}  \n", markdown_cell(&line)));
    }
    out.push_str(&format!(
        "confidence {}%; difference = candidate − baseline\n\n",
        c.confidence * 100.0
    ));
    out.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
    for r in rows(c) {
        let cells: Vec<String> = r.iter().map(|s| markdown_cell(s)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    let notes = notes(c);
    if !notes.is_empty() {
        out.push_str("\n**No verdict:**\n\n");
        for note in notes {
            out.push_str(&format!("- {}\n", markdown_cell(&note)));
        }
    }
    out
}
