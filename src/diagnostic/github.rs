//! GitHub Actions workflow commands (SPEC §8, `--format github`): one line per diagnostic,
//! `::error file=F,line=L,col=C,title=CODE::message`, which the Actions runner turns into an
//! annotation on the pull request's diff. `warning` and `notice` carry the other severities.
//!
//! Generic over the common [`Diagnostic`]: any command that has (file, diagnostic) pairs —
//! `validate`, `replay`, `registry diff` — renders through [`render`]. Values are escaped as the
//! Actions toolkit does: the message (`data`) escapes `%`, `\r` and `\n`; properties escape
//! those and `:` and `,` as well, so a file name or code can never end a property early.
//! Diagnostics turned off by configuration are not written (no annotation for them).

use super::{Diagnostic, FileReport, Severity};
use std::fmt::Write;

/// The workflow command name of a severity.
pub fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

/// Escape a command's message: `%` → `%25`, `\r` → `%0D`, `\n` → `%0A`.
pub fn escape_data(text: &str) -> String {
    escape(text, false)
}

/// Escape a property value: as [`escape_data`], and `:` → `%3A`, `,` → `%2C`.
pub fn escape_property(text: &str) -> String {
    escape(text, true)
}

fn escape(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

/// The one workflow command for `diag` in `file`, without its line end. The message carries
/// the witness, the help and any configuration override on further lines.
pub fn annotation(file: &str, diag: &Diagnostic) -> String {
    let mut properties = Vec::with_capacity(4);
    if !file.is_empty() {
        properties.push(format!("file={}", escape_property(file)));
    }
    if diag.line > 0 {
        properties.push(format!("line={}", diag.line));
        if diag.column > 0 {
            properties.push(format!("col={}", diag.column));
        }
    }
    properties.push(format!("title={}", escape_property(&diag.code)));
    let mut message = diag.message.clone();
    // Related locations in another file (a fragment's use sites, SPEC §9.3) say where they are.
    for r in diag.related.iter().filter(|r| r.file.is_some()) {
        let _ = write!(message, "\n{}", r.message);
    }
    if let Some(witness) = &diag.witness {
        let _ = write!(message, "\nwitness: {}", witness.describe());
    }
    if let Some(help) = &diag.help {
        let _ = write!(message, "\nhelp: {help}");
    }
    if let Some(by) = &diag.overridden_by {
        let _ = write!(
            message,
            "\nseverity {} changed by {}",
            by.from.as_str(),
            by.describe()
        );
    }
    format!(
        "::{} {}::{}",
        command(diag.severity),
        properties.join(","),
        escape_data(&message)
    )
}

/// One command per (file, diagnostic) pair, each on its own line; suppressed ones are skipped.
pub fn render<'a, I>(items: I) -> String
where
    I: IntoIterator<Item = (&'a str, &'a Diagnostic)>,
{
    let mut out = String::new();
    for (file, diag) in items {
        if diag.is_suppressed() {
            continue;
        }
        out.push_str(&annotation(file, diag));
        out.push('\n');
    }
    out
}

/// The commands for every diagnostic of `reports`, in their order.
pub fn render_reports(reports: &[FileReport]) -> String {
    render(reports.iter().flat_map(|r| {
        r.diagnostics
            .iter()
            .map(move |d| (d.file.as_deref().unwrap_or(r.file.as_str()), d))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_escape_what_would_end_them() {
        assert_eq!(escape_property("a:b,c%d\r\ne"), "a%3Ab%2Cc%25d%0D%0Ae");
        assert_eq!(escape_data("a:b,c%d\r\ne"), "a:b,c%25d%0D%0Ae");
    }
}
