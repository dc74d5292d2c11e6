//! L505: a schema that does not compile.
//!
//! ## What it checks
//!
//! Every primitive's `inputs` and `outputs` is a JSON Schema object that the
//! `jsonschema` crate compiles (draft 2020-12 unless the schema's `$schema` says otherwise), and
//! describes an object (`"type": "object"`): inputs and outputs are always objects of named
//! properties. The finding points at the schema and quotes the compiler's error.
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
