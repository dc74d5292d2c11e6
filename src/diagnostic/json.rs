//! JSON rendering (SPEC §3.1): one stable document `{"files": [...], "summary": {...}}`. Keys
//! come in a fixed order (the field order of the types, kept by serde_json's `preserve_order`)
//! and diagnostics in their sorted order, so the same reports always give the same bytes.
//! Diagnostics a configuration override turned off are listed apart, under the file's
//! `suppressed` (written only when there are some), each with its `overridden_by`.

use super::{Diagnostic, FileReport, Tally};
use serde_json::{Value, json};

/// The document as a value.
pub fn to_value(reports: &[FileReport]) -> Value {
    let files: Vec<Value> = reports
        .iter()
        .map(|report| {
            let (suppressed, shown): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
                report.diagnostics.iter().partition(|d| d.is_suppressed());
            let mut file = json!({
                "file": report.file,
                "graph": report.graph,
                "diagnostics": serde_json::to_value(&shown).unwrap_or(Value::Array(Vec::new())),
            });
            if !suppressed.is_empty()
                && let Value::Object(map) = &mut file
            {
                map.insert(
                    "suppressed".into(),
                    serde_json::to_value(&suppressed).unwrap_or(Value::Array(Vec::new())),
                );
            }
            file
        })
        .collect();
    json!({
        "files": files,
        "summary": serde_json::to_value(Tally::of(reports)).unwrap_or(Value::Null),
    })
}

/// The document, pretty-printed, with a final newline.
pub fn render(reports: &[FileReport]) -> String {
    let mut out = serde_json::to_string_pretty(&to_value(reports)).unwrap_or_default();
    out.push('\n');
    out
}

/// The document on one line (for piping), with a final newline.
pub fn render_compact(reports: &[FileReport]) -> String {
    let mut out = to_value(reports).to_string();
    out.push('\n');
    out
}
