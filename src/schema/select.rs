//! Walking a JSON pointer through a JSON Schema (SPEC §3.2): from an output schema to the
//! sub-schema a binding's `at` selects, through `properties`, `items` and `prefixItems`, noting on
//! the way whether the selected value may be absent (an optional property or array element) and
//! whether it is marked `x-trust: untrusted`. Shared by T304, T305/T306, T309, A403 and A405.

use crate::schema::annotations::{self, Annotations};
use serde_json::Value;
use std::borrow::Cow;
use std::cell::OnceCell;

static ANY: Value = Value::Bool(true);

/// What a pointer selects in a schema.
#[derive(Debug, Clone)]
pub struct Selected<'s> {
    /// The sub-schema (`true` where the schema does not constrain the value). Owned when the
    /// value is constrained by several parts of an `allOf` (their conjunction).
    pub schema: Cow<'s, Value>,
    /// Some step of the pointer may be absent in a valid instance.
    pub optional: bool,
    /// The document the pointer was walked in: the selected schema's local `$ref`s name places
    /// in it.
    root: &'s Value,
    /// Some schema on the path, the selected one included, is marked `x-trust: untrusted`.
    path_untrusted: bool,
    /// Whether anything inside the selected schema is: a walk of the whole sub-schema, which
    /// most callers never ask for, so it is done on first use and kept.
    inner_untrusted: OnceCell<bool>,
}

impl Selected<'_> {
    /// The selected value is, or lies inside, or contains an `x-trust: untrusted` value.
    pub fn untrusted(&self) -> bool {
        self.path_untrusted
            || *self
                .inner_untrusted
                .get_or_init(|| annotations::contains_untrusted(self.root, &self.schema))
    }

    /// The annotations of the selected schema, resolved through `$ref`s and `allOf` in the
    /// document it was selected from.
    pub fn annotations(&self) -> Annotations {
        Annotations::at(self.root, &self.schema)
    }
}

/// Why a pointer selects nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The pointer prefix up to and including the failing token.
    pub prefix: String,
    pub reason: String,
}

/// Decode one RFC 6901 reference token.
pub fn unescape_token(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

fn has_type(schema: &Value, name: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}

/// `x-trust: untrusted` at `schema` within `root`, through `$ref`s, `allOf` and alternatives
/// (the one annotation walk, [`crate::schema::annotations`]).
fn is_untrusted(root: &Value, schema: &Value) -> bool {
    Annotations::at(root, schema).untrusted
}

fn array_index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// How many `$ref` hops and `allOf` parts one step of a walk follows.
const MAX_PARTS: usize = 64;

/// The schemas that together constrain a value at `schema` (inside the document `root`):
/// `schema` itself, what its local `$ref`s name and its `allOf` parts, transitively (bounded).
fn parts<'s>(root: &'s Value, schema: &'s Value) -> Vec<&'s Value> {
    let mut out: Vec<&'s Value> = Vec::new();
    let mut pending = vec![schema];
    while let Some(part) = pending.pop() {
        if out.len() >= MAX_PARTS || out.iter().any(|seen| std::ptr::eq(*seen, part)) {
            continue;
        }
        out.push(part);
        if let Some(reference) = part.get("$ref").and_then(Value::as_str)
            && let Some(target) = crate::schema::walk::resolve_local(root, reference)
        {
            pending.push(target);
        }
        if let Some(all) = part.get("allOf").and_then(Value::as_array) {
            pending.extend(all.iter().rev());
        }
    }
    out
}

/// Whether `schema` *declares* `pointer`: every step names a property some part of the current
/// schema lists in `properties` (its `$ref`s, `allOf` parts and `anyOf`/`oneOf` alternatives
/// followed), or an array index its `items` or `prefixItems` cover. Stricter than [`select`],
/// which also walks into what an open schema merely admits: a fragment's output port (P827,
/// SPEC §9.3: "a pointer its output schema declares") must name what the schema says is there.
pub fn declares(schema: &Value, pointer: &str) -> bool {
    let mut current: Vec<&Value> = vec![schema];
    for raw in pointer.split('/').skip(1) {
        let token = unescape_token(raw);
        let token = token.as_ref();
        let mut candidates: Vec<&Value> = Vec::new();
        let mut pending: Vec<&Value> = current.iter().flat_map(|s| parts(schema, s)).collect();
        let mut visited = 0;
        while let Some(part) = pending.pop() {
            visited += 1;
            if visited > MAX_PARTS * 4 {
                break;
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(alternatives) = part.get(key).and_then(Value::as_array) {
                    for alternative in alternatives {
                        pending.extend(parts(schema, alternative));
                    }
                }
            }
            if let Some(named) = part.get("properties").and_then(|p| p.get(token)) {
                candidates.push(named);
            }
            if let Some(index) = array_index(token) {
                let prefix = part
                    .get("prefixItems")
                    .and_then(Value::as_array)
                    .and_then(|items| items.get(index));
                match (prefix, part.get("items")) {
                    (Some(item), _) => candidates.push(item),
                    (None, Some(items)) if items != &Value::Bool(false) => candidates.push(items),
                    _ => {}
                }
            }
        }
        if candidates.is_empty() {
            return false;
        }
        current = candidates;
    }
    true
}

/// Select the sub-schema of `schema` at `pointer` (`""` selects the whole schema). Local
/// `$ref`s and `allOf` parts are followed at every step (a graph's `input` rooted in a `$ref`
/// into `$defs`, say); the selected sub-schema's own `$ref`s still name places in `schema`
/// (see [`crate::schema::walk::standalone`]).
pub fn select<'s>(schema: &'s Value, pointer: &str) -> Result<Selected<'s>, Missing> {
    select_in(schema, schema, pointer)
}

/// [`select`] of `pointer` in `schema`, a sub-schema of the document `root` whose local `$ref`s
/// name places in `root`.
fn select_in<'s>(
    root: &'s Value,
    schema: &'s Value,
    pointer: &str,
) -> Result<Selected<'s>, Missing> {
    let mut current: Cow<'s, Value> = Cow::Borrowed(schema);
    let mut optional = false;
    let mut untrusted = is_untrusted(root, schema);
    if pointer.is_empty() {
        return Ok(Selected {
            schema: current,
            optional,
            root,
            path_untrusted: untrusted,
            inner_untrusted: OnceCell::new(),
        });
    }
    // Byte offset just past the current token: the prefix a `Missing` names is only sliced
    // out when the walk fails.
    let mut end = 0;
    for raw in pointer.split('/').skip(1) {
        end += 1 + raw.len();
        let token = unescape_token(raw);
        let token = token.as_ref();
        let missing = |reason: String| Missing {
            prefix: pointer.get(..end).unwrap_or(pointer).to_string(),
            reason,
        };
        // An owned conjunction only arises at the last step's result; a later step walks it
        // as one schema (its `allOf`), borrowing from the document where it can.
        let (step_parts, owned_parts): (Vec<&'s Value>, Option<Vec<Value>>) = match &current {
            Cow::Borrowed(borrowed) => (parts(root, borrowed), None),
            Cow::Owned(owned) => (
                Vec::new(),
                Some(
                    owned
                        .get("allOf")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_else(|| vec![owned.clone()]),
                ),
            ),
        };
        let (next, step_optional, step_untrusted) = match owned_parts {
            None => step(root, &step_parts, token, &missing)?,
            Some(owned) => {
                // Re-borrowing from an owned conjunction: walk each part, keep what they say.
                let mut subs = Vec::new();
                let mut all_optional = true;
                let mut any_untrusted = false;
                for part in &owned {
                    let selected =
                        select_in(root, part, &format!("/{raw}")).map_err(|m| Missing {
                            prefix: pointer.get(..end).unwrap_or(pointer).to_string(),
                            reason: m.reason,
                        })?;
                    all_optional &= selected.optional;
                    any_untrusted |= selected.path_untrusted;
                    subs.push(selected.schema.into_owned());
                }
                (
                    Cow::Owned(serde_json::json!({ "allOf": subs })),
                    all_optional,
                    any_untrusted,
                )
            }
        };
        optional |= step_optional;
        untrusted |= step_untrusted || is_untrusted(root, &next);
        current = next;
    }
    Ok(Selected {
        schema: current,
        optional,
        root,
        path_untrusted: untrusted,
        inner_untrusted: OnceCell::new(),
    })
}

/// One step of [`select`] over the parts constraining the current value: the sub-schema of
/// `token`, whether it may be absent, and whether a part on the way is marked untrusted.
fn step<'s>(
    root: &'s Value,
    step_parts: &[&'s Value],
    token: &str,
    missing: &dyn Fn(String) -> Missing,
) -> Result<(Cow<'s, Value>, bool, bool), Missing> {
    // Parts that name the token as a property: their sub-schemas all apply.
    let naming: Vec<&'s Value> = step_parts
        .iter()
        .filter_map(|part| part.get("properties")?.get(token))
        .collect();
    let required = step_parts.iter().any(|part| {
        part.get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(token)))
    });
    let untrusted = step_parts.iter().any(|part| is_untrusted(root, part));
    match naming.as_slice() {
        [] => {}
        [one] => return Ok((Cow::Borrowed(*one), !required, untrusted)),
        several => {
            let all: Vec<Value> = several.iter().map(|s| (*s).clone()).collect();
            return Ok((
                Cow::Owned(serde_json::json!({ "allOf": all })),
                !required,
                untrusted,
            ));
        }
    }
    // No part names it: the part that decides (the first with a type or a structural keyword,
    // else the schema itself).
    let current = step_parts
        .iter()
        .copied()
        .find(|part| {
            [
                "type",
                "items",
                "prefixItems",
                "additionalProperties",
                "properties",
            ]
            .iter()
            .any(|k| part.get(*k).is_some())
        })
        .or_else(|| step_parts.first().copied())
        .unwrap_or(&ANY);
    let mut optional = false;
    let next: &'s Value = match current {
        Value::Bool(true) => {
            optional = true;
            &ANY
        }
        Value::Bool(false) => return Err(missing("the schema admits no value".into())),
        Value::Object(object) => {
            let properties = object.get("properties").and_then(Value::as_object);
            let objectish = has_type(current, "object") || properties.is_some();
            let arrayish = has_type(current, "array")
                || object.contains_key("items")
                || object.contains_key("prefixItems");
            let typed = object.contains_key("type");
            if arrayish && let Some(index) = array_index(token) {
                let min_items = object.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                optional |= (index as u64) >= min_items;
                let prefix_item = object
                    .get("prefixItems")
                    .and_then(Value::as_array)
                    .and_then(|items| items.get(index));
                match prefix_item {
                    Some(sub) => sub,
                    None => match object.get("items") {
                        Some(Value::Bool(false)) => {
                            return Err(missing(format!(
                                "the array admits no element at index {index}"
                            )));
                        }
                        Some(sub) => sub,
                        None => &ANY,
                    },
                }
            } else if objectish {
                match object.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        let declared = properties
                            .map(|p| {
                                p.keys()
                                    .map(|k| format!("`{k}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            })
                            .unwrap_or_default();
                        return Err(missing(if declared.is_empty() {
                            format!("property `{token}` is not declared (no properties)")
                        } else {
                            format!("property `{token}` is not declared (declared: {declared})")
                        }));
                    }
                    Some(sub) => {
                        optional = true;
                        sub
                    }
                    None => {
                        optional = true;
                        &ANY
                    }
                }
            } else if arrayish {
                return Err(missing(format!("`{token}` is not an array index")));
            } else if typed {
                return Err(missing(format!(
                    "the value there is not an object or array (type {})",
                    object.get("type").map(Value::to_string).unwrap_or_default()
                )));
            } else {
                optional = true;
                &ANY
            }
        }
        _ => return Err(missing("the schema there is not a schema".into())),
    };
    Ok((Cow::Borrowed(next), optional, untrusted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn walks_properties_items_and_prefix_items() {
        let schema = json!({"type": "object", "required": ["a"], "additionalProperties": false,
            "properties": {"a": {"type": "array", "minItems": 1,
                "prefixItems": [{"type": "integer"}], "items": {"type": "string", "x-trust": "untrusted"}}}});
        let first = select(&schema, "/a/0").unwrap();
        assert_eq!(*first.schema, json!({"type": "integer"}));
        assert!(!first.optional);
        assert!(!first.untrusted());
        let later = select(&schema, "/a/3").unwrap();
        assert!(later.optional);
        assert!(later.untrusted());
        let missing = select(&schema, "/b").unwrap_err();
        assert_eq!(missing.prefix, "/b");
        assert!(select(&schema, "/a/x").is_err());
        assert!(select(&schema, "").unwrap().untrusted());
    }

    #[test]
    fn unconstrained_schemas_select_anything_optionally() {
        let any = json!({"type": "object"});
        let selected = select(&any, "/issue/x").unwrap();
        assert!(selected.optional);
        assert_eq!(*selected.schema, Value::Bool(true));
    }

    #[test]
    fn declares_names_only_what_the_schema_lists() {
        let schema = json!({
            "type": "object",
            "$defs": {"commit": {"type": "object", "properties": {"sha": {"type": "string"}}}},
            "properties": {
                "text": {"type": "string"},
                "commit": {"$ref": "#/$defs/commit"},
                "runs": {"type": "array", "prefixItems": [{"type": "integer"}],
                         "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": false},
                "either": {"anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]},
            },
            "allOf": [{"properties": {"extra": {"type": "integer"}}}],
        });
        for declared in [
            "",
            "/text",
            "/commit/sha",
            "/runs/0",
            "/runs/7/id",
            "/pair/0",
            "/either/a",
            "/either/b",
            "/extra",
        ] {
            assert!(declares(&schema, declared), "{declared}");
            assert!(select(&schema, declared).is_ok(), "{declared}");
        }
        // An open schema admits these (select walks them), but does not declare them.
        for undeclared in [
            "/nope",
            "/commit/author",
            "/runs/0/x",
            "/pair/1",
            "/either/c",
            "/text/0",
        ] {
            assert!(!declares(&schema, undeclared), "{undeclared}");
        }
        assert!(select(&schema, "/nope").is_ok());
    }
}
