//! Validation diagnostics as LSP diagnostics: the §3.1 code and severity, the range of the
//! extent `diagnostic::resolve` carried (the same span the human and SARIF renderers underline)
//! in UTF-16 positions, related locations as `relatedInformation`, and the witness, help and any
//! configuration override in the message. A diagnostic the configuration turned off is not
//! published.

use super::position::LineMap;
use crate::diagnostic::{Diagnostic, Extent, Severity};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range, Uri,
};

/// What an LSP diagnostic is built from: the document's text, to turn the diagnostics' extents
/// (lines and columns in chars) into UTF-16 positions.
pub struct Source<'a> {
    pub uri: &'a Uri,
    pub text: &'a str,
    pub lines: &'a LineMap,
}

pub fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

impl Source<'_> {
    /// The range of a located extent in this document (an empty one covers the char at its
    /// start; an unlocated one is the document's first char).
    fn range(&self, extent: Option<Extent>) -> Range {
        let extent = extent.unwrap_or(Extent::FILE_START);
        let start = self
            .lines
            .offset_of_line_column(self.text, extent.line, extent.column);
        let end = if extent.is_empty() {
            self.text[start..]
                .chars()
                .next()
                .filter(|&c| c != '\n' && c != '\r')
                .map_or(start, |c| start + c.len_utf8())
        } else {
            self.lines
                .offset_of_line_column(self.text, extent.end_line, extent.end_column)
        };
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
        // A diagnostic in another file (inside a fragment, SPEC §9.3): shown in this document at
        // the outermost use site written here, the fragment's place as related information.
        let mut related: Vec<DiagnosticRelatedInformation> = diag
            .related
            .iter()
            .filter_map(|r| {
                let elsewhere = r
                    .file
                    .as_deref()
                    .filter(|f| diag.file.is_some() && !self.is_this(f));
                let location = match elsewhere {
                    None => Location::new(self.uri.clone(), self.range(r.extent())),
                    Some(file) => Location::new(file_uri(file)?, elsewhere_range(r.extent())),
                };
                Some(DiagnosticRelatedInformation {
                    location,
                    message: if r.message.is_empty() {
                        r.pointer.clone()
                    } else {
                        r.message.clone()
                    },
                })
            })
            .collect();
        let mut range = self.range(diag.extent());
        if let Some(file) = &diag.file {
            // The outermost use site is the last related location, in this document.
            let site = diag
                .related
                .iter()
                .rev()
                .find(|r| r.file.as_deref().is_none_or(|f| self.is_this(f)));
            if let Some(site) = site {
                range = self.range(site.extent());
            }
            if let Some(uri) = file_uri(file) {
                related.insert(
                    0,
                    DiagnosticRelatedInformation {
                        location: Location::new(uri, elsewhere_range(diag.extent())),
                        message: format!("{}:{}:{}: {}", file, diag.line, diag.column, diag.code),
                    },
                );
            }
        }
        lsp_types::Diagnostic {
            range,
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

    /// Whether a related location's `file` names this document.
    fn is_this(&self, file: &str) -> bool {
        super::settings::uri_to_path(self.uri)
            .is_some_and(|p| p == std::path::Path::new(file) || p.ends_with(file))
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

/// The range of an extent in another file, whose text is not at hand: UTF-16 positions
/// approximated by the columns (exact for the BMP), one char for an empty extent.
fn elsewhere_range(extent: Option<Extent>) -> Range {
    let extent = extent.unwrap_or(Extent::FILE_START);
    let position = |line: u32, column: u32| {
        lsp_types::Position::new(line.saturating_sub(1), column.saturating_sub(1))
    };
    let start = position(extent.line, extent.column);
    let end = if extent.is_empty() {
        position(extent.line, extent.column + 1)
    } else {
        position(extent.end_line, extent.end_column)
    };
    Range::new(start, end)
}

/// The `file://` URI of a file name as reported (made absolute against the working directory).
fn file_uri(file: &str) -> Option<Uri> {
    let path = std::path::Path::new(file);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let mut text = String::from("file://");
    for b in absolute.to_str()?.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            text.push(b as char);
        } else {
            text.push_str(&format!("%{b:02X}"));
        }
    }
    text.parse().ok()
}

#[cfg(test)]
mod fragment_tests {
    use super::*;

    /// In an editor, a finding inside a fragment (SPEC §9.3) is shown at the use site in the
    /// open graph, with the fragment's place (its file, line and column) as related information.
    #[test]
    fn a_fragment_finding_is_shown_at_the_use_site() {
        use crate::pack::compose::{Base, Composer, ComposerOptions};
        use crate::pack::path::PackPath;
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fragments");
        let options = crate::validate::Options {
            packs: Some(std::sync::Arc::new(Composer::new(
                Base::Builtin,
                PackPath::scan(&[root.join("path")]),
                ComposerOptions::default(),
            ))),
            ..Default::default()
        };
        let path = root.join("unchecked.graph.json");
        let report =
            crate::validate::check_file(&path, crate::registry::Registry::builtin(), &options)
                .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = LineMap::new(&text);
        let uri = file_uri(&path.display().to_string()).unwrap();
        let source = Source {
            uri: &uri,
            text: &text,
            lines: &lines,
        };
        let a407 = report
            .diagnostics
            .iter()
            .find(|d| d.code == "A407")
            .unwrap();
        let shown = source.convert(a407);
        assert_eq!(shown.range.start.line, 11, "the use site, line 12");
        let related = shown.related_information.expect("related");
        assert!(
            related[0]
                .location
                .uri
                .as_str()
                .ends_with("land-unchecked.fragment.json")
        );
        assert_eq!(
            related[0].location.range.start.line, 13,
            "the fragment's line 14"
        );
    }
}
