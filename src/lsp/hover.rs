//! Hover: over a `primitive` value, that primitive's contract (class, authority, effects,
//! outcomes, failure modes, the flags, inputs and outputs summarised); over a node reference
//! (`entry`, `next`, a branch or `on_error` target, a binding's `from`), the referenced node and
//! its primitive's contract; over a binding's `at`, the source schema that pointer selects in
//! the source node's outputs (or the graph's `input`).

use super::scan::{Cursor, Outline, Seg, cursor_at, is_node_reference};
use crate::registry::{Primitive, Registry};
use crate::schema::annotations::Annotations;
use crate::schema::select;
use serde_json::Value;
use std::fmt::Write;

/// The hover text at `offset` of `text`, and the byte range it is about.
/// `outline` is asked for only when the answer needs the document's nodes, so a hover over a
/// `primitive` value in a huge document costs a scan up to the cursor, not of the whole text.
pub fn hover(
    text: &str,
    outline: &mut dyn FnMut() -> std::sync::Arc<Outline>,
    registry: &Registry,
    fragments: &super::fragments::Fragments,
    offset: usize,
) -> Option<(String, std::ops::Range<usize>)> {
    let cursor = cursor_at(text, offset);
    let range = cursor.token.clone()?;
    let value = cursor.string.as_deref()?;
    let markdown = match cursor.path.as_slice() {
        [Seg::Key(n), Seg::Index(_), Seg::Key(p)]
            if n == "nodes" && p == "primitive" && is_value(&cursor) =>
        {
            match registry.lookup(value) {
                Some(prim) => contract(prim),
                None => format!(
                    "`{value}` is not a primitive of ABI {} (ID or alias)",
                    registry.abi()
                ),
            }
        }
        [Seg::Key(n), Seg::Index(_), Seg::Key(f)]
            if n == "nodes" && f == "fragment" && is_value(&cursor) =>
        {
            match fragments.get(value) {
                Some(fragment) => super::fragments::hover(&fragment, registry),
                None => format!(
                    "`{value}` is no fragment of the packs on the pack path (write `PACK/NAME`)"
                ),
            }
        }
        [
            Seg::Key(n),
            Seg::Index(i),
            Seg::Key(inputs),
            Seg::Key(name),
            Seg::Key(at),
        ] if n == "nodes" && inputs == "inputs" && at == "at" && is_value(&cursor) => {
            source_schema(text, &outline(), registry, *i, name, value)?
        }
        path if is_node_reference(path) && is_value(&cursor) => {
            if value == crate::graph::INPUT_WORD {
                "`$input`: the run's input (the graph's `input` schema)".to_string()
            } else {
                let outline = outline();
                let node = outline.node(value)?;
                let primitive = node.primitive.as_ref().map(|(p, _)| p.as_str());
                let mut text = format!("node `{value}`");
                match primitive.and_then(|p| registry.lookup(p).map(|prim| (p, prim))) {
                    Some((_, prim)) => {
                        let _ = write!(text, " runs `{}`\n\n---\n\n{}", prim.id, contract(prim));
                    }
                    None => {
                        if let Some(p) = primitive {
                            let _ = write!(text, " runs `{p}` (not in the registry)");
                        }
                    }
                }
                text
            }
        }
        _ => return None,
    };
    Some((markdown, range))
}

fn is_value(cursor: &Cursor) -> bool {
    cursor.role == super::scan::Role::Value
}

/// A primitive's contract as Markdown.
pub fn contract(prim: &Primitive) -> String {
    let mut out = format!(
        "**`{}`** (`{}`)\n\n{}\n\n",
        prim.id, prim.alias, prim.summary
    );
    let effects = if prim.effects.is_empty() {
        "none".to_string()
    } else {
        prim.effects
            .iter()
            .map(|e| format!("`{}`", e.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        out,
        "- class `{}` · authority `{}` · family `{}`",
        prim.class.as_str(),
        prim.authority.as_str(),
        prim.family
    );
    let _ = writeln!(out, "- effects: {effects}");
    if let Some(outcomes) = &prim.outcomes {
        let _ = write!(out, "- outcomes: {}", list(outcomes));
        if !prim.grants.is_empty() {
            let _ = write!(out, " (grants: {})", list(&prim.grants));
        }
        out.push('\n');
    }
    if !prim.failure_modes.is_empty() {
        let _ = writeln!(out, "- failure modes: {}", list(&prim.failure_modes));
    }
    let flags: Vec<&str> = [
        (prim.requires_authorization, "requires authorization"),
        (prim.requires_verifier, "requires a verifier"),
        (prim.terminal, "may end the graph"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    if !flags.is_empty() {
        let _ = writeln!(out, "- {}", flags.join(" · "));
    }
    let _ = writeln!(out, "- inputs: {}", properties(&prim.inputs));
    let _ = writeln!(out, "- outputs: {}", properties(&prim.outputs));
    out
}

fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `name: type (required, x-sink)` for each property of an object schema.
pub fn properties(schema: &Value) -> String {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return "(any)".to_string();
    };
    if props.is_empty() {
        return "none".to_string();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .map(|(name, sub)| {
            let mut notes = Vec::new();
            if required.contains(&name.as_str()) {
                notes.push("required".to_string());
            }
            // Through `$ref`s and `allOf`, as the rules read them.
            let annotations = Annotations::at(schema, sub);
            if annotations.may_be_authority {
                notes.push("x-authority".to_string());
            }
            if annotations.sink {
                notes.push("x-sink".to_string());
            }
            if annotations.untrusted {
                notes.push("untrusted".to_string());
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join(", "))
            };
            format!("`{name}`: {}{notes}", type_name(sub))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A short name of a schema's type.
pub fn type_name(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => match schema.get("items") {
            Some(items) => format!("array of {}", type_name(items)),
            None => "array".into(),
        },
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if schema.get("enum").is_some() => "enum".into(),
        _ if schema.get("const").is_some() => "const".into(),
        _ => "any".into(),
    }
}

/// The schema a binding's `at` selects in its source, as Markdown.
fn source_schema(
    text: &str,
    outline: &Outline,
    registry: &Registry,
    node: usize,
    input: &str,
    at: &str,
) -> Option<String> {
    let from = outline
        .at(node)?
        .bindings
        .iter()
        .find(|(name, _)| name == input)
        .map(|(_, from)| from.clone())?;
    let (root, owner): (Value, String) = if from == crate::graph::INPUT_WORD {
        let schema = outline
            .input_range
            .as_ref()
            .and_then(|r| text.get(r.clone()))
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or(Value::Bool(true));
        (schema, "the graph's `input`".to_string())
    } else {
        let source = outline.node(&from)?;
        let prim = registry.lookup(&source.primitive.as_ref()?.0)?;
        (
            (*prim.outputs).clone(),
            format!("the outputs of `{from}` (`{}`)", prim.id),
        )
    };
    Some(match select::select(&root, at) {
        Ok(selected) => {
            let mut notes = Vec::new();
            if selected.optional {
                notes.push("may be absent");
            }
            if selected.untrusted() {
                notes.push("untrusted");
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join(", "))
            };
            let mut pretty =
                serde_json::to_string_pretty(&*selected.schema).unwrap_or_else(|_| "?".into());
            if pretty.len() > 2000 {
                let mut cut = 2000;
                while !pretty.is_char_boundary(cut) {
                    cut -= 1;
                }
                pretty.truncate(cut);
                pretty.push_str("\n…");
            }
            format!(
                "source schema at `{at}` in {owner}{notes}: {}\n\n```json\n{pretty}\n```",
                type_name(&selected.schema)
            )
        }
        Err(missing) => format!(
            "`{at}` selects nothing in {owner}: {} (at `{}`)",
            missing.reason, missing.prefix
        ),
    })
}
