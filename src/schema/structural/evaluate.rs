//! The structural evaluator: whether a schema admits a value, for the keywords the prover
//! models ([`admits`]: `None` when it meets one it does not evaluate), whether it decides
//! every value of a schema ([`is_evaluable`]), and the first of a finite source's values a
//! target is not proven to admit ([`first_rejected`], hashing a large target `enum` once).

use serde_json::{Map, Value};

use crate::schema::pattern::{self};
use crate::schema::walk::is_annotation;

use super::{Field, finite_values, json_equal};

/// The first of `values` that `target` is not proven to admit, with what [`admits`] said of it
/// (`Some(false)`: rejected, `None`: not evaluated); `None` when it admits them all. A large
/// target `enum` is hashed once, so a finite source against a finite target costs linear time,
/// not the product of their sizes; the hash only narrows the candidates, and [`json_equal`]
/// (JSON Schema equality: `1` equals `1.0`) decides.
pub fn first_rejected<'v>(
    values: &'v [Value],
    target: &Value,
) -> Option<(&'v Value, Option<bool>)> {
    let hashed = match target {
        Value::Object(object) => match object.field("enum") {
            Some(Value::Array(allowed)) if allowed.len() > 16 && values.len() > 1 => {
                let mut index: rustc_hash::FxHashMap<u64, Vec<&Value>> = Default::default();
                for value in allowed {
                    index
                        .entry(value_hash(value, usize::MAX, MemberOrder::Ignored))
                        .or_default()
                        .push(value);
                }
                let rest: Map<String, Value> = object
                    .iter()
                    .filter(|(keyword, _)| *keyword != "enum")
                    .map(|(keyword, argument)| (keyword.clone(), argument.clone()))
                    .collect();
                Some((index, Value::Object(rest)))
            }
            _ => None,
        },
        _ => None,
    };
    for value in values {
        let verdict = match &hashed {
            Some((index, rest)) => {
                let listed = index
                    .get(&value_hash(value, usize::MAX, MemberOrder::Ignored))
                    .is_some_and(|candidates| candidates.iter().any(|c| json_equal(c, value)));
                if listed {
                    admits(rest, value)
                } else {
                    Some(false)
                }
            }
            None => admits(target, value),
        };
        if verdict != Some(true) {
            return Some((value, verdict));
        }
    }
    None
}

/// Whether the order of an object's members counts in [`value_hash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberOrder {
    /// Members hash in document order: the schema cache, which must tell apart documents that
    /// differ only in order (what the checker reports, first keyword or witness, follows it).
    Significant,
    /// Members hash in any order, agreeing with [`json_equal`]: the index of a target `enum`.
    Ignored,
}

/// A hash of a value's first `max_depth` levels, numbers by their `f64` value (so `1` and `1.0`
/// collide, as [`json_equal`] has them equal); what is deeper is not fed, so a large document
/// hashes in the time of its top. It only narrows candidates: the schema cache and a large
/// target `enum` both index by it and let equality decide.
pub fn value_hash(value: &Value, max_depth: usize, order: MemberOrder) -> u64 {
    use std::hash::{Hash, Hasher};
    fn feed(
        value: &Value,
        state: &mut rustc_hash::FxHasher,
        depth: usize,
        max_depth: usize,
        order: MemberOrder,
    ) {
        if depth > max_depth {
            return;
        }
        match value {
            Value::Null => state.write_u8(0),
            Value::Bool(b) => state.write_u8(1 + u8::from(*b)),
            Value::Number(n) => {
                state.write_u8(3);
                let f = n.as_f64().unwrap_or(0.0);
                // `-0.0 == 0.0`: one hash for both.
                let f = if f == 0.0 { 0.0 } else { f };
                state.write_u64(f.to_bits());
            }
            Value::String(text) => {
                state.write_u8(4);
                text.hash(state);
            }
            Value::Array(items) => {
                state.write_u8(5);
                state.write_usize(items.len());
                for item in items {
                    feed(item, state, depth + 1, max_depth, order);
                }
            }
            Value::Object(members) => {
                state.write_u8(6);
                state.write_usize(members.len());
                match order {
                    MemberOrder::Significant => {
                        for (key, member) in members {
                            key.hash(state);
                            feed(member, state, depth + 1, max_depth, order);
                        }
                    }
                    MemberOrder::Ignored => {
                        // The members' hashes summed.
                        let mut sum = 0u64;
                        for (key, member) in members {
                            let mut inner = rustc_hash::FxHasher::default();
                            key.hash(&mut inner);
                            feed(member, &mut inner, depth + 1, max_depth, order);
                            sum = sum.wrapping_add(inner.finish());
                        }
                        state.write_u64(sum);
                    }
                }
            }
        }
    }
    let mut state = rustc_hash::FxHasher::default();
    feed(value, &mut state, 0, max_depth, order);
    state.finish()
}

/// The values of a schema that is finite at its root (`const`, else `enum`).
pub fn finite_root_values(schema: &Value) -> Option<&[Value]> {
    finite_values(schema.as_object()?)
}

fn is_type(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.as_f64().is_some_and(|n| n.fract() == 0.0) || value.is_i64() || value.is_u64()
        }
        _ => false,
    }
}

/// Whether [`admits`] decides every value for `schema`: every keyword, at every depth, is one
/// it evaluates (no `$ref`, no `pattern` the automata refuse, nothing outside the model).
pub fn is_evaluable(schema: &Value) -> bool {
    fn walk(schema: &Value, depth: usize) -> bool {
        let object = match schema {
            Value::Bool(_) => return true,
            Value::Object(object) => object,
            _ => return false,
        };
        if depth > ADMITS_DEPTH {
            return false;
        }
        object
            .iter()
            .all(|(keyword, argument)| match keyword.as_str() {
                "properties" => argument
                    .as_object()
                    .is_some_and(|members| members.values().all(|m| walk(m, depth + 1))),
                "patternProperties" => argument.as_object().is_some_and(|members| {
                    members
                        .iter()
                        .all(|(p, m)| pattern::compiled(p).is_ok() && walk(m, depth + 1))
                }),
                "pattern" => argument
                    .as_str()
                    .is_some_and(|p| pattern::compiled(p).is_ok()),
                "additionalProperties" | "items" | "not" | "propertyNames" => {
                    walk(argument, depth + 1)
                }
                "prefixItems" | "allOf" | "anyOf" | "oneOf" => argument
                    .as_array()
                    .is_some_and(|parts| parts.iter().all(|p| walk(p, depth + 1))),
                "type" | "const" | "enum" | "minimum" | "maximum" | "exclusiveMinimum"
                | "exclusiveMaximum" | "multipleOf" | "minLength" | "maxLength" | "minItems"
                | "maxItems" | "minProperties" | "maxProperties" | "required" | "$schema" => true,
                other => is_annotation(other),
            })
    }
    walk(schema, 0)
}

/// A `min*`/`max*` count keyword (`lower`: a minimum) on a value's length; `length` is `None`
/// when the keyword does not apply to the value's type (so it holds), and the answer is `None`
/// when the bound is not a count.
fn count_within(lower: bool, length: Option<usize>, bound: &Value) -> Option<bool> {
    let Some(length) = length else {
        return Some(true);
    };
    let (length, bound) = (length as u64, bound.as_u64()?);
    Some(if lower {
        length >= bound
    } else {
        length <= bound
    })
}

/// How deep [`admits`] follows nested subschemas before it gives up.
const ADMITS_DEPTH: usize = 32;

/// Whether `schema` admits `value`, for the keywords this prover models:
/// `Some(true)` or `Some(false)` when every keyword met was evaluated, `None` when one was not
/// (a `pattern` the automata refuse, a `$ref`, anything outside the model), which a caller must
/// read as "not proven".
pub fn admits(schema: &Value, value: &Value) -> Option<bool> {
    admits_at(schema, value, 0)
}

fn admits_at(schema: &Value, value: &Value, depth: usize) -> Option<bool> {
    let object = match schema {
        Value::Bool(b) => return Some(*b),
        Value::Object(object) => object,
        _ => return None,
    };
    if depth > ADMITS_DEPTH {
        return None;
    }
    let mut verdict = true;
    for (keyword, argument) in object {
        let holds = match keyword.as_str() {
            "type" => match argument {
                Value::String(ty) => is_type(value, ty),
                Value::Array(types) => types
                    .iter()
                    .any(|ty| ty.as_str().is_some_and(|ty| is_type(value, ty))),
                _ => return None,
            },
            "const" => json_equal(argument, value),
            "enum" => argument
                .as_array()?
                .iter()
                .any(|allowed| json_equal(allowed, value)),
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
                match (value.as_f64(), argument.as_f64()) {
                    (None, _) => true,
                    (Some(_), None) => return None,
                    (Some(n), Some(bound)) => match keyword.as_str() {
                        "minimum" => n >= bound,
                        "maximum" => n <= bound,
                        "exclusiveMinimum" => n > bound,
                        "exclusiveMaximum" => n < bound,
                        // Only whole numbers are divided here: a float remainder can round
                        // to zero where the validator's exact arithmetic would not.
                        _ => match (value.as_i64(), argument.as_i64()) {
                            (Some(n), Some(bound)) if bound > 0 => n % bound == 0,
                            _ => return None,
                        },
                    },
                }
            }
            "minLength" | "maxLength" => {
                let length = value.as_str().map(|text| text.chars().count());
                count_within(keyword == "minLength", length, argument)?
            }
            "minItems" | "maxItems" => {
                let length = value.as_array().map(Vec::len);
                count_within(keyword == "minItems", length, argument)?
            }
            "minProperties" | "maxProperties" => {
                let length = value.as_object().map(Map::len);
                count_within(keyword == "minProperties", length, argument)?
            }
            "required" => match value.as_object() {
                None => true,
                Some(members) => argument
                    .as_array()?
                    .iter()
                    .all(|name| name.as_str().is_some_and(|name| members.contains_key(name))),
            },
            "properties" => match value.as_object() {
                None => true,
                Some(members) => {
                    let mut all = true;
                    for (name, subschema) in argument.as_object()? {
                        if let Some(member) = members.get(name) {
                            all &= admits_at(subschema, member, depth + 1)?;
                        }
                    }
                    all
                }
            },
            "pattern" => match value.as_str() {
                None => true,
                Some(text) => pattern::matches(argument.as_str()?, text)?,
            },
            "propertyNames" => match value.as_object() {
                None => true,
                Some(members) => {
                    let mut all = true;
                    for name in members.keys() {
                        all &= admits_at(argument, &Value::String(name.clone()), depth + 1)?;
                    }
                    all
                }
            },
            "patternProperties" => match value.as_object() {
                None => true,
                Some(members) => {
                    let mut all = true;
                    for (member_pattern, subschema) in argument.as_object()? {
                        for (name, member) in members {
                            if pattern::matches(member_pattern, name)? {
                                all &= admits_at(subschema, member, depth + 1)?;
                            }
                        }
                    }
                    all
                }
            },
            "additionalProperties" => match value.as_object() {
                None => true,
                Some(members) => {
                    let declared = object.field("properties").and_then(Value::as_object);
                    let patterns = object.field("patternProperties").and_then(Value::as_object);
                    let mut all = true;
                    for (name, member) in members {
                        if declared.is_some_and(|d| d.contains_key(name)) {
                            continue;
                        }
                        let mut by_pattern = false;
                        for member_pattern in patterns.into_iter().flat_map(|p| p.keys()) {
                            by_pattern |= pattern::matches(member_pattern, name)?;
                        }
                        if by_pattern {
                            continue;
                        }
                        all &= admits_at(argument, member, depth + 1)?;
                    }
                    all
                }
            },
            "items" | "prefixItems" => match value.as_array() {
                None => true,
                Some(items) => {
                    let prefix = object.field("prefixItems").and_then(Value::as_array);
                    let prefix_len = prefix.map_or(0, Vec::len);
                    let mut all = true;
                    if keyword == "prefixItems" {
                        for (item, subschema) in items.iter().zip(prefix.into_iter().flatten()) {
                            all &= admits_at(subschema, item, depth + 1)?;
                        }
                    } else {
                        for item in items.iter().skip(prefix_len) {
                            all &= admits_at(argument, item, depth + 1)?;
                        }
                    }
                    all
                }
            },
            "allOf" => {
                let mut all = true;
                for part in argument.as_array()? {
                    all &= admits_at(part, value, depth + 1)?;
                }
                all
            }
            "anyOf" => {
                let mut any = false;
                for branch in argument.as_array()? {
                    any |= admits_at(branch, value, depth + 1)?;
                }
                any
            }
            "oneOf" => {
                let mut matched = 0;
                for branch in argument.as_array()? {
                    matched += usize::from(admits_at(branch, value, depth + 1)?);
                }
                matched == 1
            }
            "not" => !admits_at(argument, value, depth + 1)?,
            "$defs" | "definitions" | "$schema" | "$id" | "$anchor" => true,
            other if is_annotation(other) => true,
            _ => return None,
        };
        verdict &= holds;
    }
    Some(verdict)
}
