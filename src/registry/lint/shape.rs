//! The shape of a registry file: every field the invariants and the loader read exists with the
//! right JSON type and, for the enumerations (`class`, `authority`, `effects`), a known value.
//! A file that fails this is unusable input (`registry lint` exits 2 with the location), not a
//! finding: the invariants L501–L510 are only meaningful over a well-shaped file.

use super::ShapeError;
use serde_json::Value;

pub const CLASSES: &[&str] = &[
    "deterministic",
    "s1_decision",
    "generation",
    "verification",
    "policy",
    "mutation",
    "retrieval",
];
/// The most primitives a registry may hold: the lookup table stores 2 keys (ID and alias) per
/// primitive in 16-bit slots, one value of which marks an empty slot. Every command that loads a
/// registry, and `registry lint`, refuses a larger one with this limit and its location.
pub const MAX_PRIMITIVES: usize = 32_766;
pub const AUTHORITIES: &[&str] = &["propose", "decide", "verify", "authorize"];
pub const EFFECTS: &[&str] = &[
    "reads_workspace",
    "writes_workspace",
    "executes_code",
    "network",
    "mints_permission",
    "raises_spend",
    "crosses_workspace",
];

fn err(pointer: impl Into<String>, message: impl Into<String>) -> ShapeError {
    ShapeError {
        pointer: pointer.into(),
        message: message.into(),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Want {
    Str,
    Bool,
    Object,
    Strings,
    StrOrNull,
    Any,
}

fn field(obj: &Value, at: &str, key: &str, want: Want, required: bool) -> Result<(), ShapeError> {
    // Built only for an error: this runs for every field of every primitive of every load.
    let pointer = || format!("{at}/{key}");
    let Some(v) = obj.get(key) else {
        return if required {
            Err(err(at, format!("missing required field `{key}`")))
        } else {
            Ok(())
        };
    };
    let ok = match want {
        Want::Str => v.is_string(),
        Want::Bool => v.is_boolean(),
        Want::Object => v.is_object(),
        Want::StrOrNull => v.is_string() || v.is_null(),
        Want::Any => true,
        Want::Strings => match v.as_array() {
            Some(items) => {
                if let Some((i, bad)) = items.iter().enumerate().find(|(_, x)| !x.is_string()) {
                    return Err(err(
                        format!("{}/{i}", pointer()),
                        format!("expected a string, found {}", kind(bad)),
                    ));
                }
                true
            }
            None => false,
        },
    };
    if ok {
        return Ok(());
    }
    let expected = match want {
        Want::Str => "a string",
        Want::Bool => "a boolean",
        Want::Object => "an object",
        Want::Strings => "an array of strings",
        Want::StrOrNull => "a string or null",
        Want::Any => "any value",
    };
    Err(err(
        pointer(),
        format!("expected {expected}, found {}", kind(v)),
    ))
}

fn one_of(obj: &Value, at: &str, key: &str, allowed: &[&str]) -> Result<(), ShapeError> {
    let Some(s) = obj.get(key).and_then(Value::as_str) else {
        return Ok(());
    };
    if allowed.contains(&s) {
        Ok(())
    } else {
        Err(err(
            format!("{at}/{key}"),
            format!(
                "unknown {key} `{s}` (expected one of {})",
                allowed.join(", ")
            ),
        ))
    }
}

/// Check the shape of a whole registry document.
pub fn check(root: &Value) -> Result<(), ShapeError> {
    if !root.is_object() {
        return Err(err("", format!("expected an object, found {}", kind(root))));
    }
    field(root, "", "abi", Want::Str, true)?;
    for key in ["families", "primitives"] {
        match root.get(key) {
            None => return Err(err("", format!("missing required field `{key}`"))),
            Some(v) if !v.is_array() => {
                return Err(err(
                    format!("/{key}"),
                    format!("expected an array, found {}", kind(v)),
                ));
            }
            Some(_) => {}
        }
    }
    let count = root
        .get("primitives")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if count > MAX_PRIMITIVES {
        return Err(err(
            "/primitives",
            format!(
                "{count} primitives, over the limit of {MAX_PRIMITIVES} (the lookup table indexes \
                 every ID and alias in 16 bits)"
            ),
        ));
    }
    let empty = Vec::new();
    let families = root
        .get("families")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for (i, f) in families.iter().enumerate() {
        let at = format!("/families/{i}");
        if !f.is_object() {
            return Err(err(
                at,
                format!("expected a family object, found {}", kind(f)),
            ));
        }
        for key in ["name", "prefix", "group", "summary"] {
            field(f, &at, key, Want::Str, true)?;
        }
    }
    let primitives = root
        .get("primitives")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for (i, p) in primitives.iter().enumerate() {
        let at = format!("/primitives/{i}");
        if !p.is_object() {
            return Err(err(
                at,
                format!("expected a primitive object, found {}", kind(p)),
            ));
        }
        for key in ["id", "alias", "family", "class", "authority", "summary"] {
            field(p, &at, key, Want::Str, true)?;
        }
        field(p, &at, "inputs", Want::Any, true)?;
        field(p, &at, "outputs", Want::Any, true)?;
        field(p, &at, "evaluation", Want::Object, true)?;
        if let Some(eval) = p.get("evaluation") {
            let eat = format!("{at}/evaluation");
            field(eval, &eat, "method", Want::Str, true)?;
            field(eval, &eat, "metric", Want::Str, true)?;
        }
        if p.get("outcomes").is_some_and(|v| !v.is_null()) {
            field(p, &at, "outcomes", Want::Strings, false)?;
        }
        for key in ["grants", "evidence", "failure_modes", "effects"] {
            field(p, &at, key, Want::Strings, false)?;
        }
        field(p, &at, "fallback", Want::StrOrNull, false)?;
        for key in ["requires_authorization", "requires_verifier", "terminal"] {
            field(p, &at, key, Want::Bool, false)?;
        }
        one_of(p, &at, "class", CLASSES)?;
        one_of(p, &at, "authority", AUTHORITIES)?;
        if let Some(effects) = p.get("effects").and_then(Value::as_array) {
            for (j, e) in effects.iter().enumerate() {
                let name = e.as_str().unwrap_or("");
                if !EFFECTS.contains(&name) {
                    return Err(err(
                        format!("{at}/effects/{j}"),
                        format!(
                            "unknown effect `{name}` (expected one of {})",
                            EFFECTS.join(", ")
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}
