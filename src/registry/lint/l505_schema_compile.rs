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
//! A schema written only in the common vocabulary (`type`, `properties`, `required`,
//! `additionalProperties`, `items`, `enum`, the size and number bounds, `allOf`/`anyOf`/`oneOf`,
//! `not`, annotations such as `description` and `x-…`), each keyword with a value of the shape
//! the 2020-12 meta-schema requires, is accepted by a structural walk without running the
//! compiler: every such schema compiles (`tests/it/registry_lint.rs` checks it against the
//! compiler over the lint fixtures and generated schemas). Any other schema, and any schema the
//! walk would refuse, is compiled, so a finding always quotes the compiler.
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
    // A plain schema object has no `$ref` (so nothing for `bad_reference` to find) and compiles.
    if schema.is_object() && is_plain(schema) {
        return not_an_object_schema(schema);
    }
    problem_by_compiler(schema)
}

/// The last check of both paths: the schema must describe an object.
fn not_an_object_schema(schema: &Value) -> Option<(String, String)> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Some((
            String::new(),
            "does not describe an object (`\"type\": \"object\"`)".to_string(),
        ));
    }
    None
}

/// What the value of a keyword of the plain vocabulary must be.
#[derive(Clone, Copy)]
enum Expect {
    /// A schema (an object or a boolean).
    Schema,
    /// An object whose every value is a schema (`properties`).
    SchemaMap,
    /// A non-empty array of schemas.
    SchemaList,
    /// An integer in `0..=u64::MAX` written as an integer.
    Size,
    /// A number.
    Number,
    /// A number above zero (`multipleOf`).
    Positive,
    Bool,
    String,
    /// A type name, or a non-empty array of distinct type names.
    Type,
    /// An array of distinct strings (`required`).
    Names,
    /// A non-empty array of data (`enum`).
    Values,
    /// An array of data (`examples`).
    List,
    /// Any data (`const`, `default`, `x-…`).
    Data,
}

/// The plain vocabulary: keywords whose compilation cannot fail once their value has the
/// meta-schema's shape (no references, identifiers, dialects, regular expressions or formats).
fn plain_keyword(key: &str) -> Option<Expect> {
    Some(match key {
        "additionalProperties" | "items" | "not" => Expect::Schema,
        "properties" => Expect::SchemaMap,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Expect::SchemaList,
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            Expect::Size
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => Expect::Number,
        "multipleOf" => Expect::Positive,
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => Expect::Bool,
        "description" | "title" | "$comment" => Expect::String,
        "type" => Expect::Type,
        "required" => Expect::Names,
        "enum" => Expect::Values,
        "examples" => Expect::List,
        "const" | "default" => Expect::Data,
        _ if key.starts_with("x-") => Expect::Data,
        _ => return None,
    })
}

const TYPE_NAMES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Whether `schema` is written in the plain vocabulary only, every value of the meta-schema's
/// shape, with no `$`-key inside data: then it compiles, and it holds no `$ref`. `false` means
/// "not known": the caller compiles it.
fn is_plain(schema: &Value) -> bool {
    // Iterative: a hostile schema may nest deeply.
    let mut schemas: Vec<&Value> = vec![schema];
    while let Some(current) = schemas.pop() {
        let map = match current {
            Value::Bool(_) => continue,
            Value::Object(map) => map,
            _ => return false,
        };
        for (key, value) in map {
            let Some(expect) = plain_keyword(key) else {
                return false;
            };
            let fits = match expect {
                Expect::Schema => {
                    schemas.push(value);
                    true
                }
                Expect::SchemaMap => match value {
                    Value::Object(members) => {
                        schemas.extend(members.values());
                        true
                    }
                    _ => false,
                },
                Expect::SchemaList => match value {
                    Value::Array(items) if !items.is_empty() => {
                        schemas.extend(items);
                        true
                    }
                    _ => false,
                },
                Expect::Size => value.as_u64().is_some(),
                Expect::Number => value.as_f64().is_some_and(f64::is_finite),
                Expect::Positive => value.as_f64().is_some_and(|n| n.is_finite() && n > 0.0),
                Expect::Bool => value.is_boolean(),
                Expect::String => value.is_string(),
                Expect::Type => match value {
                    Value::String(name) => TYPE_NAMES.contains(&name.as_str()),
                    Value::Array(names) => {
                        !names.is_empty()
                            && names.iter().enumerate().all(|(i, n)| {
                                n.as_str().is_some_and(|n| TYPE_NAMES.contains(&n))
                                    && !names[..i].contains(n)
                            })
                    }
                    _ => false,
                },
                Expect::Names => match value {
                    Value::Array(names) => names
                        .iter()
                        .enumerate()
                        .all(|(i, n)| n.is_string() && !names[..i].contains(n)),
                    _ => false,
                },
                Expect::Values => match value {
                    Value::Array(items) => !items.is_empty() && items.iter().all(plain_data),
                    _ => false,
                },
                Expect::List => match value {
                    Value::Array(items) => items.iter().all(plain_data),
                    _ => false,
                },
                Expect::Data => plain_data(value),
            };
            if !fits {
                return false;
            }
        }
    }
    true
}

/// Data with no object key starting with `$` (no `$ref` the reference check would read, no
/// `$schema` or `$id` a compiler might look for).
fn plain_data(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map.keys().any(|k| k.starts_with('$')) {
                    return false;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    true
}

/// [`problem`] without the plain-vocabulary shortcut: every schema compiled. The reference the
/// shortcut is tested against.
#[doc(hidden)]
pub fn problem_by_compiler(schema: &Value) -> Option<(String, String)> {
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
    not_an_object_schema(schema)
}

/// Whether the shortcut of [`problem`] accepts `schema` without compiling it.
#[doc(hidden)]
pub fn accepted_without_compiling(schema: &Value) -> bool {
    is_plain(schema)
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
