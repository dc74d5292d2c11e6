//! Human rendering, rustc-style (via `annotate-snippets`): `error[A407]: message`, `--> file:line:col`,
//! the source line with the span underlined, related locations as secondary annotations, the
//! witness and the help as notes, and a final summary line. Colour only when asked. What is
//! underlined is the extent `diagnostic::resolve` carried; the source is only quoted, never
//! parsed again.

use super::{Diagnostic, Extent, FileReport, Severity, Tally, visible};
use crate::json::LineIndex;
use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use std::ops::Range;

/// Render every diagnostic of `reports`, in order, then the summary line.
pub fn render(reports: &[FileReport], color: bool) -> String {
    let mut out = String::new();
    for report in reports {
        out.push_str(&render_file(report, color));
    }
    out.push_str(&summary_line(reports));
    out.push('\n');
    let suppressed = reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .filter(|d| d.is_suppressed())
        .count();
    if suppressed > 0 {
        out.push_str(&format!(
            "{suppressed} diagnostic(s) turned off by configuration (see --format json or sarif)\n"
        ));
    }
    out
}

/// `2 errors, 1 warning in 3 files`.
pub fn summary_line(reports: &[FileReport]) -> String {
    Tally::of(reports).to_string()
}

/// The diagnostics of one file, each followed by a blank line.
pub fn render_file(report: &FileReport, color: bool) -> String {
    if report.diagnostics.iter().all(|d| d.is_suppressed()) {
        return String::new();
    }
    let source: &str = &report.source;
    let lines = LineIndex::new(source);
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    let no_lines = LineIndex::new("");
    // The line tables of the other files diagnostics quote (a fragment file, SPEC §9.3), built
    // once per text however many diagnostics quote it.
    let mut tables: Vec<(*const u8, LineIndex)> = Vec::new();
    for (_, text) in report.diagnostics.iter().flat_map(|d| &d.sources) {
        if !tables.iter().any(|(at, _)| *at == text.as_ptr()) {
            tables.push((text.as_ptr(), LineIndex::new(text)));
        }
    }
    for diag in report.diagnostics.iter().filter(|d| !d.is_suppressed()) {
        let quoted: Vec<(&str, &str, &LineIndex)> = diag
            .sources
            .iter()
            .filter_map(|(f, text)| {
                let (_, lines) = tables.iter().find(|(at, _)| *at == text.as_ptr())?;
                Some((f.as_str(), &**text, lines))
            })
            .collect();
        let view_of = |key: Option<&str>| -> Option<FileView<'_>> {
            match key.filter(|k| *k != report.file) {
                None => Some(FileView {
                    key: None,
                    report_file: &report.file,
                    file: &report.file,
                    source,
                    lines: &lines,
                    unquoted: false,
                }),
                Some(f) => quoted.iter().find(|q| q.0 == f).map(|q| FileView {
                    key: Some(q.0),
                    report_file: &report.file,
                    file: q.0,
                    source: q.1,
                    lines: q.2,
                    unquoted: false,
                }),
            }
        };
        // A diagnostic in another file (a pack's) without its text is shown by its location,
        // not quoted.
        let elsewhere = diag
            .file
            .as_ref()
            .map(|f| format!("{f}:{}:{}", diag.line, diag.column));
        let quoted_view = diag.file.as_deref().and_then(|f| view_of(Some(f)));
        let view = match (quoted_view, &elsewhere) {
            (Some(view), _) => view,
            (None, Some(file)) => FileView {
                key: diag.file.as_deref(),
                report_file: &report.file,
                file,
                source: "",
                lines: &no_lines,
                unquoted: true,
            },
            (None, None) => FileView {
                key: None,
                report_file: &report.file,
                file: &report.file,
                source,
                lines: &lines,
                unquoted: false,
            },
        };
        out.push_str(&renderer.render(&view.groups(diag, &view_of)));
        out.push_str("\n\n");
    }
    out
}

/// The file a related location is in: its own `file`, else its diagnostic's (a pack's finding
/// relates places in that pack's file without naming it again), else the report's (`None`).
fn related_file<'d>(diag: &'d Diagnostic, r: &'d super::Related) -> Option<&'d str> {
    r.file.as_deref().or(diag.file.as_deref())
}

struct FileView<'a> {
    /// The related locations' `file` that means this file (`None`: the report's own).
    key: Option<&'a str>,
    /// The report's own file (a related location naming it is in the `None` view).
    report_file: &'a str,
    file: &'a str,
    source: &'a str,
    lines: &'a LineIndex,
    /// A file shown by its location only (`file` is `path:line:col` already): nothing in it is
    /// located again, or the location would be printed twice (`pack.json:1:9:1:1`).
    unquoted: bool,
}

/// How many lines apart a related location may be and still share the primary's snippet (the
/// lines between are folded): a bound on the text each diagnostic's snippet spans.
const NEAR_LINES: u32 = 120;

/// A located range of the source, with the 1-based line it starts on.
#[derive(Clone)]
struct Located {
    range: Range<usize>,
    line: u32,
}

impl<'a> FileView<'a> {
    /// A related location's `file`, with the report's own file as `None`.
    fn norm<'f>(&self, file: Option<&'f str>) -> Option<&'f str> {
        file.filter(|f| *f != self.report_file)
    }

    /// The byte range of a resolved extent in this file (`None`: not located, or not quoted).
    fn locate(&self, extent: Option<Extent>) -> Option<Located> {
        if self.unquoted {
            return None;
        }
        let extent = extent?;
        Some(Located {
            range: extent.range(self.source, self.lines)?,
            line: extent.line,
        })
    }

    fn groups(
        &self,
        diag: &'a Diagnostic,
        view_of: &dyn Fn(Option<&str>) -> Option<FileView<'a>>,
    ) -> Vec<Group<'a>> {
        let level = match diag.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Info => Level::INFO,
        };
        let title = level
            .primary_title(visible(&diag.message))
            .id(diag.code.as_str());
        let primary = self.locate(diag.extent());
        let related: Vec<(Option<Located>, &'a super::Related)> = diag
            .related
            .iter()
            .filter(|r| self.norm(related_file(diag, r)) == self.key)
            .map(|r| (self.locate(r.extent()), r))
            .collect();

        let mut group = match &primary {
            Some(primary) => {
                // Related locations near the primary share its snippet; each far one gets a
                // snippet of its own, so a snippet never spans the file between them (with
                // 3,000 findings related to one line at the top, that made rendering cost
                // findings × file size).
                let near = |l: &Located| l.line.abs_diff(primary.line) <= NEAR_LINES;
                let shared: Vec<&Located> = std::iter::once(primary)
                    .chain(
                        related
                            .iter()
                            .filter_map(|(l, _)| l.as_ref())
                            .filter(|l| near(l)),
                    )
                    .collect();
                let first_line = shared.iter().map(|l| l.line).min().unwrap_or(primary.line);
                let last_line = shared.iter().map(|l| l.line).max().unwrap_or(primary.line);
                let mut snippet = self.snippet(first_line, last_line).annotation(
                    AnnotationKind::Primary
                        .span(self.clamp(first_line, last_line, &primary.range))
                        .label(visible(&diag.pointer)),
                );
                let mut far = Vec::new();
                for (located, r) in &related {
                    match located {
                        Some(located) if near(located) => {
                            snippet = snippet.annotation(
                                AnnotationKind::Context
                                    .span(self.clamp(first_line, last_line, &located.range))
                                    .label(visible(&r.message)),
                            );
                        }
                        Some(located) => far.push((located, r)),
                        None => {}
                    }
                }
                // Far locations are shown in file order, as rustc orders its snippets.
                far.sort_by_key(|(l, _)| l.line);
                let mut group = title.element(snippet);
                for (located, r) in far {
                    group = group.element(
                        self.snippet(located.line, located.line).annotation(
                            AnnotationKind::Context
                                .span(self.clamp(located.line, located.line, &located.range))
                                .label(visible(&r.message)),
                        ),
                    );
                }
                group
            }
            None => title.element(Origin::path(self.file)),
        };
        for (located, r) in &related {
            if located.is_none() {
                group = group.element(Level::NOTE.message(format!(
                    "{} (at {})",
                    visible(&r.message),
                    visible(&r.pointer)
                )));
            }
        }
        // Related locations in other files (a fragment's use sites): one snippet per location,
        // in order (innermost first, outermost last), as rustc shows a macro's call site.
        for r in diag
            .related
            .iter()
            .filter(|r| self.norm(related_file(diag, r)) != self.key)
        {
            let other = view_of(self.norm(related_file(diag, r)));
            let located = other
                .as_ref()
                .and_then(|v| v.locate(r.extent()).map(|l| (v, l)));
            match located {
                Some((v, l)) => {
                    let window = v.window(l.line, l.line);
                    let start = l.range.start.clamp(window.start, window.end) - window.start;
                    let end = l.range.end.clamp(window.start, window.end) - window.start;
                    let text = v.source.get(window.clone()).unwrap_or_default();
                    group = group.element(
                        Snippet::source(text)
                            .line_start(l.line as usize)
                            .path(v.file)
                            .fold(true)
                            .annotation(
                                AnnotationKind::Context
                                    .span(start..end.max(start))
                                    .label(visible(&r.message)),
                            ),
                    );
                }
                None => {
                    group = group.element(Level::NOTE.message(visible(&r.message)));
                }
            }
        }
        if primary.is_none() && !diag.pointer.is_empty() {
            group = group.element(Level::NOTE.message(format!("at {}", visible(&diag.pointer))));
        }
        if let Some(witness) = &diag.witness {
            group = group
                .element(Level::NOTE.message(format!("witness: {}", visible(&witness.describe()))));
        }
        if let Some(seq) = diag.seq {
            group = group.element(Level::NOTE.message(format!("event seq {seq}")));
        }
        if let Some(help) = &diag.help {
            group = group.element(Level::HELP.message(visible(help)));
        }
        if let Some(by) = &diag.overridden_by {
            group = group.element(Level::NOTE.message(format!(
                "severity {} changed by {}",
                by.from.as_str(),
                by.describe()
            )));
        }
        vec![group]
    }

    /// The source of lines `first..=last` as a snippet of this file.
    fn snippet(&self, first: u32, last: u32) -> Snippet<'a, annotate_snippets::Annotation<'a>> {
        let window = self.window(first, last);
        Snippet::source(self.source.get(window).unwrap_or_default())
            .line_start(first as usize)
            .path(self.file)
            .fold(true)
    }

    /// `range` (of the whole source) relative to the snippet of lines `first..=last`, clamped
    /// to it.
    fn clamp(&self, first: u32, last: u32, range: &Range<usize>) -> Range<usize> {
        let window = self.window(first, last);
        let start = range.start.clamp(window.start, window.end) - window.start;
        let end = range.end.clamp(window.start, window.end) - window.start;
        start..end.max(start)
    }

    /// The byte range of lines `first..=last` (without the last line's terminator).
    fn window(&self, first: u32, last: u32) -> Range<usize> {
        let start = self.lines.offset(self.source, first, 1).unwrap_or(0);
        let end = self
            .lines
            .offset(self.source, last, 1)
            .and_then(|line_start| {
                self.lines
                    .line_text(self.source, last)
                    .map(|text| line_start + text.len())
            })
            .unwrap_or(self.source.len());
        start..end.max(start)
    }
}
