//! Completion: primitive IDs and aliases (with their summaries) in a `primitive` value; node IDs
//! in `entry`, `next`, `branches` and `on_error` targets and a binding's `from` (with `$input`);
//! the primitive's outcomes as `branches` keys, its failure modes as `on_error` keys, and its
//! input properties as `inputs` keys — each offering only what the node does not have yet; for a
//! node that uses a fragment (SPEC §9.3), the fragments of the packs on the pack path as its
//! `fragment` value, and the fragment's ports, exits and parameters as `inputs`, `exits` and
//! `with` keys.
//! Every item replaces the whole string under the cursor (quotes included), so it works in the
//! middle of a half-typed, unterminated string too.

use super::position::LineMap;
use super::scan::{Outline, Role, Seg, cursor_at, is_node_reference};
use crate::registry::Registry;
use lsp_types::{CompletionItem, CompletionItemKind, CompletionTextEdit, TextEdit};
use serde_json::Value;

struct Edit<'a> {
    text: &'a str,
    lines: &'a LineMap,
    range: std::ops::Range<usize>,
    /// Whether a key being inserted (not replacing a string) needs its `: `.
    add_colon: bool,
}

impl Edit<'_> {
    fn item(
        &self,
        label: &str,
        kind: CompletionItemKind,
        detail: Option<String>,
        sort: usize,
    ) -> CompletionItem {
        let quoted = serde_json::to_string(label).unwrap_or_else(|_| format!("\"{label}\""));
        let new_text = if self.add_colon {
            format!("{quoted}: ")
        } else {
            quoted.clone()
        };
        CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            detail,
            filter_text: Some(quoted),
            sort_text: Some(format!("{sort:05}")),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                self.lines
                    .range(self.text, self.range.start, self.range.end),
                new_text,
            ))),
            ..CompletionItem::default()
        }
    }
}

/// The completions at `offset` of `text`.
/// `outline` is asked for only when the answer needs the document's nodes.
pub fn complete(
    text: &str,
    lines: &LineMap,
    outline: &mut dyn FnMut() -> std::sync::Arc<Outline>,
    registry: &Registry,
    fragments: &super::fragments::Fragments,
    offset: usize,
) -> Vec<CompletionItem> {
    let cursor = cursor_at(text, offset);
    let (range, add_colon) = match &cursor.token {
        Some(range) if cursor.string.is_some() => (range.clone(), false),
        Some(_) => return Vec::new(), // inside a number or literal
        None => (offset..offset, cursor.role == Role::Key),
    };
    let edit = Edit {
        text,
        lines,
        range,
        add_colon,
    };
    let current = cursor.string.as_deref().unwrap_or("");
    let path = cursor.path.as_slice();
    match (cursor.role, path) {
        (Role::Value, [Seg::Key(n), Seg::Index(_), Seg::Key(p)])
            if n == "nodes" && p == "primitive" =>
        {
            let mut items = Vec::with_capacity(registry.len() * 2);
            for (i, prim) in registry.primitives().iter().enumerate() {
                items.push(edit.item(
                    &prim.id,
                    CompletionItemKind::FUNCTION,
                    Some(prim.summary.clone()),
                    i,
                ));
                items.push(edit.item(
                    &prim.alias,
                    CompletionItemKind::CONSTANT,
                    Some(format!("alias of {} — {}", prim.id, prim.summary)),
                    registry.len() + i,
                ));
            }
            items
        }
        (Role::Value, [Seg::Key(n), Seg::Index(_), Seg::Key(f)])
            if n == "nodes" && f == "fragment" =>
        {
            fragments
                .all()
                .iter()
                .enumerate()
                .map(|(i, f)| edit.item(&f.key(), CompletionItemKind::MODULE, f.summary.clone(), i))
                .collect()
        }
        (Role::Value, path) if is_node_reference(path) => {
            let mut items: Vec<CompletionItem> = outline()
                .nodes
                .iter()
                .filter_map(|n| {
                    let (id, _) = n.id.as_ref()?;
                    let detail = n.primitive.as_ref().map(|(p, _)| p.clone());
                    Some(edit.item(id, CompletionItemKind::REFERENCE, detail, n.index))
                })
                .collect();
            if path.last() == Some(&Seg::Key("from".into())) {
                items.push(edit.item(
                    crate::graph::INPUT_WORD,
                    CompletionItemKind::VARIABLE,
                    Some("the run's input".into()),
                    usize::MAX / 2,
                ));
            }
            items
        }
        (Role::Key, [Seg::Key(n), Seg::Index(i), Seg::Key(field)]) if n == "nodes" => {
            let outline = outline();
            let Some(node) = outline.at(*i) else {
                return Vec::new();
            };
            if let Some((key, _)) = &node.fragment {
                return fragment_keys(&edit, fragments, node, key, field, current);
            }
            let Some(prim) = node
                .primitive
                .as_ref()
                .and_then(|(p, _)| registry.lookup(p))
            else {
                return Vec::new();
            };
            let (names, existing, kind): (Vec<(String, Option<String>)>, Vec<&String>, _) =
                match field.as_str() {
                    "branches" => (
                        prim.outcomes
                            .iter()
                            .flatten()
                            .map(|o| (o.clone(), Some(format!("outcome of {}", prim.id))))
                            .chain([("*".to_string(), Some("every other outcome".to_string()))])
                            .collect(),
                        node.branches.iter().map(|(k, _)| k).collect(),
                        CompletionItemKind::ENUM_MEMBER,
                    ),
                    "on_error" => (
                        prim.failure_modes
                            .iter()
                            .map(|f| (f.clone(), Some(format!("failure mode of {}", prim.id))))
                            .chain([(
                                "*".to_string(),
                                Some("every other failure mode".to_string()),
                            )])
                            .collect(),
                        node.on_error.iter().collect(),
                        CompletionItemKind::ENUM_MEMBER,
                    ),
                    "inputs" => (
                        input_names(&prim.inputs),
                        node.inputs.iter().collect(),
                        CompletionItemKind::FIELD,
                    ),
                    _ => return Vec::new(),
                };
            names
                .into_iter()
                .filter(|(name, _)| name == current || !existing.contains(&name))
                .enumerate()
                .map(|(i, (name, detail))| edit.item(&name, kind, detail, i))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// A fragment use's `inputs`, `exits` or `with` keys: the fragment's ports, exits or parameters
/// the use does not have yet.
fn fragment_keys(
    edit: &Edit<'_>,
    fragments: &super::fragments::Fragments,
    node: &super::scan::NodeEntry,
    key: &str,
    field: &str,
    current: &str,
) -> Vec<CompletionItem> {
    use super::fragments::Member;
    let (Some(member), Some(fragment)) = (Member::of_field(field), fragments.get(key)) else {
        return Vec::new();
    };
    let (existing, kind) = match member {
        Member::Input => (&node.inputs, CompletionItemKind::FIELD),
        Member::Exit => (&node.exits, CompletionItemKind::ENUM_MEMBER),
        Member::Param => (&node.with, CompletionItemKind::PROPERTY),
    };
    super::fragments::names(&fragment, member)
        .into_iter()
        .filter(|(name, _)| name == current || !existing.contains(name))
        .enumerate()
        .map(|(i, (name, detail))| edit.item(&name, kind, Some(detail), i))
        .collect()
}

/// The input properties of a primitive, required ones first, with their types.
fn input_names(inputs: &Value) -> Vec<(String, Option<String>)> {
    let required: Vec<&str> = inputs
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut names: Vec<(bool, String, Option<String>)> = inputs
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, schema)| {
                    let is_required = required.contains(&name.as_str());
                    let detail = format!(
                        "{}{}",
                        super::hover::type_name(schema),
                        if is_required { " (required)" } else { "" }
                    );
                    (!is_required, name.clone(), Some(detail))
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort_by_key(|a| a.0);
    names.into_iter().map(|(_, n, d)| (n, d)).collect()
}
