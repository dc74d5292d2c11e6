//! Validation diagnostics as LSP diagnostics: the §3.1 code and severity, the range of the
//! pointer's highlight span (the same span the human and SARIF renderers underline) in UTF-16
//! positions, related locations as `relatedInformation`, and the witness, help and any
//! configuration override in the message. A diagnostic the configuration turned off is not
//! published.

use super::position::LineMap;
use crate::diagnostic::{Diagnostic, Severity, highlight_span};
use crate::json::Parsed;
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range, Uri,
};

/// What an LSP diagnostic is built from: the document's text and, when it parsed, its spans.
pub struct Source<'a> {
    pub uri: &'a Uri,
    pub text: &'a str,
    pub lines: &'a LineMap,
    pub parsed: Option<&'a Parsed>,
}

pub fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

impl Source<'_> {
    /// The range for `pointer`, or, when the document did not parse, one char at the resolved
    /// line and column.
    fn range(&self, pointer: &str, line: u32, column: u32) -> Range {
        if let Some(parsed) = self.parsed {
            let span = highlight_span(parsed, pointer);
            return self.lines.range(self.text, span.start, span.end);
        }
        let start = self.lines.offset_of_line_column(self.text, line, column);
        let end = self.text[start..]
            .chars()
            .next()
            .filter(|&c| c != '\n' && c != '\r')
            .map_or(start, |c| start + c.len_utf8());
        self.lines.range(self.text, start, end)
    }

    pub fn convert(&self, diag: &Diagnostic) -> lsp_types::Diagnostic {
        let mut message = diag.message.clone();
        if let Some(witness) = &diag.witness {
            message.push_str("\nwitness: ");
            message.push_str(&witness.describe());
        }
        if let Some(help) = &diag.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        if let Some(by) = &diag.overridden_by {
            message.push_str(&format!(
                "\nseverity {} changed by {}",
                by.from.as_str(),
                by.describe()
            ));
        }
        let related: Vec<DiagnosticRelatedInformation> = diag
            .related
            .iter()
            .map(|r| DiagnosticRelatedInformation {
                location: Location::new(
                    self.uri.clone(),
                    self.range(&r.pointer, r.line.unwrap_or(1), r.column.unwrap_or(1)),
                ),
                message: if r.message.is_empty() {
                    r.pointer.clone()
                } else {
                    r.message.clone()
                },
            })
            .collect();
        lsp_types::Diagnostic {
            range: self.range(&diag.pointer, diag.line, diag.column),
            severity: Some(severity(diag.severity)),
            code: Some(NumberOrString::String(diag.code.to_string())),
            code_description: None,
            source: Some("primgraph".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            tags: None,
            data: Some(serde_json::json!({"pointer": diag.pointer})),
        }
    }

    /// Every published diagnostic (suppressed ones left out).
    pub fn convert_all(&self, diags: &[Diagnostic]) -> Vec<lsp_types::Diagnostic> {
        diags
            .iter()
            .filter(|d| !d.is_suppressed())
            .map(|d| self.convert(d))
            .collect()
    }
}
