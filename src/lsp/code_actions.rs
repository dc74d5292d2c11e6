//! Quick fixes: for R102, replace a primitive's alias by its dotted ID; for S206, add a branch
//! for every outcome the node's `branches` does not cover. A new branch's target is left empty
//! (`""`): which node an outcome should go to is the author's decision, and S202 keeps pointing
//! at it until it is filled in. The fixes are computed from the document, so they are offered
//! wherever the cursor is in the node, with or without the client's diagnostics.

use super::position::LineMap;
use super::scan::Outline;
use crate::registry::Registry;
use lsp_types::{
    CodeAction, CodeActionKind, Diagnostic, NumberOrString, Range, TextEdit, Uri, WorkspaceEdit,
};
use std::collections::HashMap;

fn overlaps(a: &std::ops::Range<usize>, b: &std::ops::Range<usize>) -> bool {
    a.start <= b.end && b.start <= a.end
}

fn matching(diagnostics: &[Diagnostic], code: &str, range: Range) -> Vec<Diagnostic> {
    diagnostics
        .iter()
        .filter(|d| d.code == Some(NumberOrString::String(code.into())))
        .filter(|d| d.range.start <= range.end && range.start <= d.range.end)
        .cloned()
        .collect()
}

/// The quick fixes for the byte range `at` of the document.
pub fn code_actions(
    uri: &Uri,
    text: &str,
    lines: &LineMap,
    outline: &Outline,
    registry: &Registry,
    at: std::ops::Range<usize>,
    client_diagnostics: &[Diagnostic],
) -> Vec<CodeAction> {
    let mut actions = Vec::new();
    let action = |title: String, edits: Vec<TextEdit>, diagnostics: Vec<Diagnostic>| {
        // `WorkspaceEdit::changes` is keyed by `Uri` (lsp-types' choice); its cached parse state
        // never changes its hash or equality.
        #[allow(clippy::mutable_key_type)]
        let mut changes = HashMap::new();
        changes.insert(uri.clone(), edits);
        CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
            edit: Some(WorkspaceEdit::new(changes)),
            is_preferred: Some(true),
            ..CodeAction::default()
        }
    };
    for node in outline.nodes.iter().filter(|n| overlaps(&n.range, &at)) {
        let Some((written, prim_range)) = &node.primitive else {
            continue;
        };
        let Some(prim) = registry.lookup(written) else {
            continue;
        };
        let node_range = lines.range(text, node.range.start, node.range.end);
        if *written != prim.id {
            let edit = TextEdit::new(
                lines.range(text, prim_range.start, prim_range.end),
                serde_json::to_string(&prim.id).unwrap_or_default(),
            );
            actions.push(action(
                format!("Replace alias `{written}` with ID `{}`", prim.id),
                vec![edit],
                matching(client_diagnostics, "R102", node_range),
            ));
        }
        let (Some(outcomes), Some(branches)) = (&prim.outcomes, &node.branches_range) else {
            continue;
        };
        if node.branches.iter().any(|(k, _)| k == "*") {
            continue;
        }
        let missing: Vec<&String> = outcomes
            .iter()
            .filter(|o| !node.branches.iter().any(|(k, _)| k == *o))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let members: Vec<String> = missing
            .iter()
            .map(|o| format!("{}: \"\"", serde_json::to_string(o).unwrap_or_default()))
            .collect();
        let (insert_at, new_text) = match node.branch_value_ends.last() {
            Some(&end) => (end, format!(", {}", members.join(", "))),
            None => (branches.start + 1, members.join(", ")),
        };
        let edit = TextEdit::new(lines.range(text, insert_at, insert_at), new_text);
        actions.push(action(
            format!(
                "Add branches for missing outcome(s) {}",
                missing
                    .iter()
                    .map(|o| format!("`{o}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            vec![edit],
            matching(client_diagnostics, "S206", node_range),
        ));
    }
    actions
}
