//! Seeded generation of JSON values that satisfy a JSON Schema (the subset the registry's
//! conventions use: `type`, `enum`, `const`, `properties`, `required`, `items`, `prefixItems`,
//! `minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/`maximum`/`exclusive*`,
//! `multipleOf`, `format`, `anyOf`/`oneOf`/`allOf`), drawn from the crate's one PRNG
//! ([`crate::rng::Rng`], re-exported here for the simulator). Values the generator cannot
//! promise (a `pattern`, say) are checked by the caller against the compiled schema.
//!
//! Why this is not `schema::instance`: that module enumerates, deterministically, every
//! candidate worth trying — boundary values on both sides of each bound, values of every type,
//! arrays varied one element at a time — because the compatibility checker hunts for a witness
//! the *target* refuses, so most of its candidates are meant to fail one schema or the other.
//! Here the simulator needs one plausible value the schema *admits*, drawn from a seed so
//! traces vary but replay the same: realistic words and in-range numbers, optional properties
//! sometimes present. The two read the same keywords and resolve `$ref` through the same
//! `schema::walk::resolve_local`; their `allOf` merges differ on purpose (the checker
//! intersects `type` to stay sound about what a conjunction admits, this one keeps the first
//! part's keyword, which is enough to generate from since the caller checks the result).

use serde_json::{Map, Value};

use crate::rng::Rng;

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "patch", "test", "src", "main", "fix", "log",
];

fn gen_string(schema: &Map<String, Value>, rng: &mut Rng) -> Value {
    match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => return Value::from("2026-01-01T00:00:00Z"),
        Some("date") => return Value::from("2026-01-01"),
        Some("uri") | Some("url") => {
            return Value::from(format!("https://example.com/{}", rng.below(1000)));
        }
        Some("email") => return Value::from("agent@example.com"),
        _ => {}
    }
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
    let max = schema
        .get("maxLength")
        .and_then(Value::as_u64)
        .unwrap_or(min + 24)
        .max(min);
    let target = min + rng.below((max - min).min(24) + 1);
    let mut s = String::new();
    while (s.chars().count() as u64) < target {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS).copied().unwrap_or("x"));
    }
    let s: String = s.chars().take(target as usize).collect();
    Value::from(s)
}

fn gen_number(schema: &Map<String, Value>, rng: &mut Rng, integer: bool) -> Value {
    let get = |k: &str| schema.get(k).and_then(Value::as_f64);
    let mut lo = get("minimum").unwrap_or(0.0);
    let mut hi = get("maximum").unwrap_or(lo.max(0.0) + 100.0);
    if let Some(x) = get("exclusiveMinimum") {
        lo = lo.max(if integer {
            x.floor() + 1.0
        } else {
            x + (hi - x).abs().min(1.0) * 1e-3
        });
    }
    if let Some(x) = get("exclusiveMaximum") {
        hi = hi.min(if integer {
            x.ceil() - 1.0
        } else {
            x - (x - lo).abs().min(1.0) * 1e-3
        });
    }
    if hi < lo {
        hi = lo;
    }
    if let Some(m) = get("multipleOf").filter(|m| *m > 0.0) {
        let k_lo = (lo / m).ceil();
        let k_hi = (hi / m).floor().max(k_lo);
        let k = k_lo + rng.below((k_hi - k_lo).min(1000.0) as u64 + 1) as f64;
        let v = k * m;
        return if integer || v.fract() == 0.0 && m.fract() == 0.0 {
            Value::from(v as i64)
        } else {
            Value::from(v)
        };
    }
    if integer {
        let lo_i = lo.ceil() as i64;
        let hi_i = (hi.floor() as i64).max(lo_i);
        let span = (hi_i - lo_i).clamp(0, 1000) as u64;
        Value::from(lo_i + rng.below(span + 1) as i64)
    } else {
        let v = lo + (hi - lo) * rng.unit();
        let rounded = (v * 1000.0).round() / 1000.0;
        Value::from(if rounded >= lo && rounded <= hi {
            rounded
        } else {
            v
        })
    }
}

/// A value `schema` admits (best effort, see the module doc). Local `$ref`s (into `$defs`, say)
/// resolve against `schema` itself, and `allOf` parts are merged, at every depth.
pub fn random_instance(schema: &Value, rng: &mut Rng) -> Value {
    generate_depth(schema, schema, rng, 0)
}

/// `schema` with its local `$ref` and its `allOf` parts merged in (the first part to set a
/// keyword wins, except `properties` and `required`, which are united): enough to generate
/// from; the caller checks what is generated against the compiled schema.
fn flatten(root: &Value, schema: &Value, hops: u32) -> Value {
    let Some(object) = schema.as_object() else {
        return schema.clone();
    };
    let mut out: Map<String, Value> = object
        .iter()
        .filter(|(k, _)| *k != "$ref" && *k != "allOf")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut parts = Vec::new();
    if hops < 32 {
        if let Some(reference) = object.get("$ref").and_then(Value::as_str)
            && let Some(target) = crate::schema::walk::resolve_local(root, reference)
        {
            parts.push(flatten(root, target, hops + 1));
        }
        for part in object
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            parts.push(flatten(root, part, hops + 1));
        }
    }
    for part in parts {
        let Value::Object(part) = part else { continue };
        for (keyword, value) in part {
            match (keyword.as_str(), out.get_mut(&keyword), value) {
                ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                    for (name, sub) in theirs {
                        mine.entry(name).or_insert(sub);
                    }
                }
                ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                    for name in theirs {
                        if !mine.contains(&name) {
                            mine.push(name);
                        }
                    }
                }
                (_, Some(_), _) => {}
                (_, None, value) => {
                    out.insert(keyword, value);
                }
            }
        }
    }
    Value::Object(out)
}

fn generate_depth(root: &Value, schema: &Value, rng: &mut Rng, depth: u32) -> Value {
    let flattened;
    let schema = match schema.as_object() {
        Some(object) if object.contains_key("$ref") || object.contains_key("allOf") => {
            flattened = flatten(root, schema, 0);
            &flattened
        }
        _ => schema,
    };
    let Some(s) = schema.as_object() else {
        return Value::Object(Map::new());
    };
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && let Some(v) = rng.pick(e)
    {
        return v.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = s.get(key).and_then(Value::as_array)
            && let Some(b) = rng.pick(branches)
        {
            return generate_depth(root, b, rng, depth + 1);
        }
    }
    if s.get("type").is_none()
        && let Some(first) = s
            .get("allOf")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
    {
        return generate_depth(root, first, rng, depth + 1);
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if s.contains_key("properties") => "object",
        _ if s.contains_key("items") => "array",
        _ => "string",
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (k, sub) in props {
                    if required.contains(&k.as_str()) || (depth < 6 && rng.chance(0.5)) {
                        out.insert(k.clone(), generate_depth(root, sub, rng, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => {
            let mut out = Vec::new();
            if let Some(prefix) = s.get("prefixItems").and_then(Value::as_array) {
                for p in prefix {
                    out.push(generate_depth(root, p, rng, depth + 1));
                }
            }
            let min = s.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let max = s
                .get("maxItems")
                .and_then(Value::as_u64)
                .unwrap_or(min + 3)
                .max(min);
            let n = if depth >= 6 {
                min
            } else {
                min + rng.below((max - min).min(3) + 1)
            };
            let items = s.get("items").cloned().unwrap_or(Value::Bool(true));
            while (out.len() as u64) < n {
                out.push(generate_depth(root, &items, rng, depth + 1));
            }
            Value::Array(out)
        }
        "string" => gen_string(s, rng),
        "integer" => gen_number(s, rng, true),
        "number" => gen_number(s, rng, false),
        "boolean" => Value::Bool(rng.chance(0.5)),
        _ => Value::Null,
    }
}
