//! The renderings of a [`RegistryDiff`]: the §6.1 JSON document, human output (rustc-style,
//! through `diagnostic::human`, one section per file: OLD for removals, NEW, each broken
//! graph), SARIF (through `diagnostic::sarif`, NEW's file as the artifact: a finding in OLD is
//! placed at its nearest counterpart in NEW, with OLD's location in its message), and Markdown
//! (a table for a pull-request comment). [`RegistryDiff::file_reports`] gives the findings as
//! common [`FileReport`]s for any other renderer (e.g. GitHub workflow commands).

use super::{Finding, Place, RegistryDiff};
use crate::diagnostic::{self, FileReport, Severity};
use serde_json::{Map, Value, json};
use std::sync::Arc;

impl RegistryDiff {
    fn source_of(&self, place: &Place) -> Arc<str> {
        match place {
            Place::Old => Arc::clone(&self.old_source),
            Place::New => Arc::clone(&self.new_source),
            Place::Graph(file) => self
                .graph_sources
                .iter()
                .find(|(f, _)| f == file)
                .map(|(_, s)| Arc::clone(s))
                .unwrap_or_else(|| Arc::from("")),
        }
    }

    /// The findings grouped by the file they point into, in the diff's order: the common
    /// report type every renderer of the project reads.
    pub fn file_reports(&self) -> Vec<FileReport> {
        let mut reports: Vec<(Place, FileReport)> = Vec::new();
        for finding in &self.findings {
            let index = match reports.iter().position(|(p, _)| *p == finding.place) {
                Some(i) => i,
                None => {
                    reports.push((
                        finding.place.clone(),
                        FileReport {
                            file: self.file_of(&finding.place).to_string(),
                            graph: None,
                            diagnostics: Vec::new(),
                            source: self.source_of(&finding.place),
                        },
                    ));
                    reports.len() - 1
                }
            };
            reports[index]
                .1
                .diagnostics
                .push(finding.diagnostic.clone());
        }
        reports.into_iter().map(|(_, r)| r).collect()
    }

    /// As [`RegistryDiff::file_reports`], but every registry finding in NEW's file: a finding
    /// in OLD moves to its `new_anchor`, its message saying where it is in OLD.
    pub fn new_file_reports(&self) -> Vec<FileReport> {
        let mut new_report = FileReport {
            file: self.new.file.clone(),
            graph: None,
            diagnostics: Vec::new(),
            source: Arc::clone(&self.new_source),
        };
        let mut graphs: Vec<FileReport> = Vec::new();
        for finding in &self.findings {
            match &finding.place {
                Place::New => new_report.diagnostics.push(finding.diagnostic.clone()),
                Place::Old => new_report
                    .diagnostics
                    .extend(finding.shown_in_new.as_deref().cloned()),
                Place::Graph(_) => {}
            }
        }
        diagnostic::sort(&mut new_report.diagnostics);
        for report in self.file_reports() {
            if report.file != self.new.file && report.file != self.old.file {
                graphs.push(report);
            }
        }
        std::iter::once(new_report).chain(graphs).collect()
    }

    /// The §6.1 document: `{"old", "new", "required_bump", "diagnostics", "summary"}` (plus
    /// `"graphs"` with `--graphs`). Each diagnostic is §3.1's with `file` and `primitive`, and
    /// for a schema finding `verdict` and `reason`; a related location carries its `file`.
    pub fn to_json(&self) -> Value {
        let diagnostics: Vec<Value> = self.findings.iter().map(|f| self.finding_json(f)).collect();
        let mut doc = Map::new();
        // A pack diff prints §6.1's document (SPEC §9.5), whose sides are `{"file", "abi"}`;
        // the pack's `abi` is its `version` (SPEC §9.6), also given under that name.
        let side = |s: &super::SideInfo| match self.pack {
            true => json!({"file": s.file, "abi": s.abi, "version": s.abi}),
            false => json!({"file": s.file, "abi": s.abi}),
        };
        doc.insert("old".into(), side(&self.old));
        doc.insert("new".into(), side(&self.new));
        doc.insert(
            "required_bump".into(),
            Value::from(self.required_bump.as_str()),
        );
        doc.insert("diagnostics".into(), Value::Array(diagnostics));
        doc.insert(
            "summary".into(),
            serde_json::to_value(self.counts()).unwrap_or(Value::Null),
        );
        if let Some(gate) = &self.gate {
            doc.insert(
                "graphs".into(),
                json!({"checked": gate.checked, "failing_under_old": gate.failing_under_old, "broken": gate.broken}),
            );
        }
        Value::Object(doc)
    }

    fn finding_json(&self, f: &Finding) -> Value {
        let file = self.file_of(&f.place);
        let mut out = Map::new();
        out.insert("file".into(), Value::from(file));
        out.insert(
            "primitive".into(),
            f.primitive.clone().map_or(Value::Null, Value::from),
        );
        if let Ok(Value::Object(d)) = serde_json::to_value(&f.diagnostic) {
            for (k, v) in d {
                if k == "related" {
                    let related = match v {
                        Value::Array(items) => items
                            .into_iter()
                            .map(|r| {
                                let mut m = Map::new();
                                m.insert("file".into(), Value::from(file));
                                if let Value::Object(r) = r {
                                    m.extend(r);
                                }
                                Value::Object(m)
                            })
                            .collect(),
                        other => vec![other],
                    };
                    out.insert(k, Value::Array(related));
                } else {
                    out.insert(k, v);
                }
            }
        }
        if let Some(verdict) = &f.verdict {
            out.insert("verdict".into(), Value::from(verdict.verdict));
            out.insert("reason".into(), Value::from(verdict.reason.clone()));
        }
        Value::Object(out)
    }

    /// The header line of human and Markdown output.
    pub fn headline(&self) -> String {
        let rise = match super::bump::satisfies(&self.old.abi, &self.new.abi, self.required_bump) {
            Some(true) => "NEW's abi rises enough",
            Some(false) => "NEW's abi does not rise enough (V718)",
            None => "an abi is not a version (V718)",
        };
        if self.pack {
            return format!(
                "pack diff {} (version {}) → {} (version {}): required bump {}; {}",
                self.old.file,
                self.old.abi,
                self.new.file,
                self.new.abi,
                self.required_bump,
                rise.replace("abi", "version")
            );
        }
        format!(
            "registry diff {} (ABI {}) → {} (ABI {}): required bump {}; {rise}",
            self.old.file, self.old.abi, self.new.file, self.new.abi, self.required_bump
        )
    }

    /// `2 errors, 1 warning, 3 infos` (and the gate's figures).
    pub fn summary_line(&self) -> String {
        let c = self.counts();
        let mut line = format!(
            "{}, {}, {}",
            plural(c.errors, "error"),
            plural(c.warnings, "warning"),
            plural(c.infos, "info")
        );
        if let Some(gate) = &self.gate {
            line.push_str(&format!(
                "; {} checked, {} broken by NEW, {} already failing under OLD",
                plural(gate.checked, "graph"),
                gate.broken,
                gate.failing_under_old
            ));
        }
        line
    }

    /// Human output: the headline, each file's diagnostics rustc-style, the summary.
    #[cfg(feature = "cli")]
    pub fn render_human(&self, color: bool) -> String {
        let mut out = self.headline();
        out.push_str("\n\n");
        for report in self.file_reports() {
            out.push_str(&diagnostic::human::render_file(&report, color));
        }
        out.push_str(&self.summary_line());
        out.push('\n');
        out
    }

    /// GitHub Actions workflow commands (SPEC §8), one per finding, each in the file it points
    /// into.
    pub fn render_github(&self) -> String {
        diagnostic::github::render_reports(&self.file_reports())
    }

    /// SARIF 2.1.0 with NEW's file as the artifact (and the graph files of V719).
    pub fn render_sarif(&self) -> String {
        let reports = self.new_file_reports();
        let rules = diagnostic::sarif::rules_used(&reports, crate::codes::ALL);
        diagnostic::sarif::render(&reports, &rules)
    }

    pub fn render_json(&self) -> String {
        let mut out = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        out.push('\n');
        out
    }

    /// Markdown for a pull-request comment: the headline, a table of every finding, the
    /// summary.
    pub fn render_markdown(&self) -> String {
        let mut out = format!("### {}\n\n", md_escape(&self.headline()));
        if self.findings.is_empty() {
            out.push_str("No differences.\n\n");
        } else {
            out.push_str("| | code | primitive | where | what |\n|---|---|---|---|---|\n");
            for f in &self.findings {
                let d = &f.diagnostic;
                let icon = match d.severity {
                    Severity::Error => "❌ error",
                    Severity::Warning => "⚠️ warning",
                    Severity::Info => "ℹ️ info",
                };
                let mut what = md_escape(&d.message);
                if let Some(w) = &d.witness {
                    what.push_str(&format!("<br>witness: `{}`", md_code(&w.describe())));
                }
                if let Some(help) = &d.help {
                    what.push_str(&format!("<br>_{}_", md_escape(help)));
                }
                out.push_str(&format!(
                    "| {icon} | {code} | {prim} | `{file}:{line}:{col}` `{ptr}` | {what} |\n",
                    code = d.code,
                    prim = f
                        .primitive
                        .as_deref()
                        .map_or_else(String::new, |p| format!("`{p}`")),
                    file = md_code(self.file_of(&f.place)),
                    line = d.line,
                    col = d.column,
                    ptr = md_code(&d.pointer),
                ));
            }
            out.push('\n');
        }
        out.push_str(&format!("**{}**\n", self.summary_line()));
        out
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Text in a Markdown table cell: pipes and line breaks would end the cell.
fn md_escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', "<br>")
}

/// Text inside backticks in a table cell.
fn md_code(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('`', "'")
        .replace('\n', " ")
}
