//! JSON rendering (SPEC §3.1): one stable document `{"files": [...], "summary": {...}}`. Keys
//! come in a fixed order (the field order of the types, kept by serde_json's `preserve_order`)
//! and diagnostics in their sorted order, so the same reports always give the same bytes.

use super::{FileReport, Summary};
use serde_json::{Value, json};

/// The document as a value.
pub fn to_value(reports: &[FileReport]) -> Value {
    let files: Vec<Value> = reports
        .iter()
        .map(|report| {
            json!({
                "file": report.file,
                "graph": report.graph,
                "diagnostics": serde_json::to_value(&report.diagnostics).unwrap_or(Value::Array(Vec::new())),
            })
        })
        .collect();
    json!({
        "files": files,
        "summary": serde_json::to_value(Summary::of(reports)).unwrap_or(Value::Null),
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
