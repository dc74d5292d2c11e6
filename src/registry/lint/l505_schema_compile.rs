//! L505: a schema that does not compile.
//!
//! ## What it checks
//!
//! Every primitive's `inputs` and `outputs` is a JSON Schema object that the
//! `jsonschema` crate compiles (draft 2020-12 unless the schema's `$schema` says otherwise), and
//! describes an object (`"type": "object"`): inputs and outputs are always objects of named
//! properties. The finding points at the schema and quotes the compiler's error. A `$ref` is
//! checked first, and the finding points at the `$ref` itself: a reference must be local (`#`,
//! `#/json/pointer` into the same schema, or `#anchor`), because no schema is ever fetched, and a
//! local pointer must name something.
//!
//! ## Why it matters
//!
//! Validation compares these schemas edge by edge and replay validates every
//! recorded input and output against them; a schema that does not compile would make every
//! such check silently vacuous.
//!
//! ## Example
//!
//! ```json
//! "inputs": {"type": "object", "properties": {"path": {"type": "strnig"}}}
//! "outputs": {"type": "object", "properties": {"n": {"minimum": "zero"}}}
//! "inputs": true
//! "inputs": {"type": "object", "properties": {"p": {"$ref": "https://example.com/p.json"}}}
//! "inputs": {"type": "object", "properties": {"p": {"$ref": "#/$defs/missing"}}}
//! ```
//!
//! Fixture `tests/fixtures/registry/l505_schema_compile.json` (with `primgraph registry lint`) reports L505 at line 114:
//!
//! ```json
//! "path": {
//!   "type": "strnig",
//!   "minLength": 1
//! ```
//!
//! ## Fix
//!
//! Fix the schema so that it compiles as a draft 2020-12 object schema.
//!
//! Does not fire:
//!
//! ```json
//! "inputs": {"type": "object", "properties": {"path": {"type": "string"}},
//!            "required": ["path"], "additionalProperties": false}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};
use serde_json::Value;

/// This file\'s row of the code table.
const CODE: &Code = &codes::L505;

/// Why `schema` is not a usable object schema — with the pointer inside the schema where the
/// compiler failed — or `None` when it is.
pub fn problem(schema: &Value) -> Option<(String, String)> {
    if !schema.is_object() {
        return Some((String::new(), "is not a JSON Schema object".to_string()));
    }
    if let Some(found) = bad_reference(schema) {
        return Some(found);
    }
    if let Err(e) = jsonschema::validator_for(schema) {
        return Some((
            e.instance_path().to_string(),
            format!("does not compile: {e}"),
        ));
    }
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Some((
            String::new(),
            "does not describe an object (`\"type\": \"object\"`)".to_string(),
        ));
    }
    None
}

/// The first `$ref` (in document order) that is not local or whose local pointer names nothing,
/// with its pointer inside `schema`.
fn bad_reference(schema: &Value) -> Option<(String, String)> {
    // Iterative: a hostile schema may nest deeply.
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), schema)];
    while let Some((at, value)) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    let here = format!("{at}/$ref");
                    match target.strip_prefix('#') {
                        None => {
                            return Some((
                                here,
                                format!(
                                    "has a `$ref` to `{target}`, which is not local: a registry \
                                     schema may only reference itself (`#/$defs/…`); nothing is fetched"
                                ),
                            ));
                        }
                        Some(pointer) if pointer.is_empty() || pointer.starts_with('/') => {
                            if resolve_pointer(schema, pointer).is_none() {
                                return Some((
                                    here,
                                    format!(
                                        "has a `$ref` to `{target}`, which names nothing in the schema"
                                    ),
                                ));
                            }
                        }
                        Some(_) => {} // an `$anchor`: the compiler resolves it
                    }
                }
                for (key, child) in map.iter().rev() {
                    stack.push((format!("{at}/{}", escape(key)), child));
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate().rev() {
                    stack.push((format!("{at}/{i}"), child));
                }
            }
            _ => {}
        }
    }
    None
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Resolve an RFC 6901 pointer as it appears after `#` in a `$ref` (taken literally: no
/// percent-decoding).
fn resolve_pointer<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut current = root;
    for raw in pointer.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        current = match current {
            Value::Object(map) => map.get(&token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    for p in &view.primitives {
        for (field, schema) in [("inputs", p.inputs), ("outputs", p.outputs)] {
            if let Some((inner, why)) = problem(schema) {
                out.push(
                    Finding::new(
                        CODE,
                        format!("{}{inner}", p.pointer(field)),
                        format!("`{field}` {why}"),
                    )
                    .of(p),
                );
            }
        }
    }
}
