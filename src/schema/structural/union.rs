//! Target unions and disjointness for the prover: the cases that split a source exactly
//! against a target union (by `type`, by the `const`/`enum` values of a property, by the
//! presence of a required name), the cases handed to the witness search
//! ([`union_split_cases`]), and [`disjoint`], a sufficient test that no value is admitted by
//! both of two schemas (what `oneOf` needs of the branch that contains a case).

use serde_json::{Map, Value};

use crate::schema::walk::{is_annotation, resolve_local};

use super::evaluate::admits;
use super::{
    Field, TRUE, TypeSet, admitted_types, finite_values, is_false, number, required_names, without,
};

/// How deeply the source is split into cases against a target union.
pub(super) const MAX_SPLITS: usize = 3;
/// The most cases one split makes (a larger `enum` is not split).
const MAX_CASES: usize = 16;
/// The most cases [`union_split_cases`] hands to the witness search (each is a copy of the
/// source).
const MAX_WITNESS_CASES: usize = 64;
/// How deeply [`disjoint`] follows subschemas and `$ref`s.
const DISJOINT_DEPTH: usize = 16;
/// The work one disjointness question, or all of those of one proof, may take.
pub(super) const DISJOINT_WORK: usize = 50_000;

/// `object` with `name` added to its `required`.
fn with_required(object: &Map<String, Value>, name: &str) -> Map<String, Value> {
    let mut case = object.clone();
    let mut required: Vec<Value> = required_names(object).map(Value::from).collect();
    required.push(Value::from(name));
    case.insert("required".into(), Value::Array(required));
    case
}

/// `object` with its property `name` replaced by `schema`.
fn with_property(object: &Map<String, Value>, name: &str, schema: Value) -> Map<String, Value> {
    let mut case = object.clone();
    let mut properties = object
        .field("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    properties.insert(name.to_string(), schema);
    case.insert("properties".into(), Value::Object(properties));
    case
}

/// Cases whose union is exactly the flat source `so`, on the first discriminating keyword that
/// the target's `branches` use and the source leaves open: its `type` (one case per type, when
/// it admits several and a branch names a type), the `const`/`enum` values of a property that a
/// branch constrains (one case per value, the property then required, and one where it is
/// absent unless the source requires it), or a name a branch requires and the source does not
/// (present, absent). A value outside the case's kind of instance (a non-object for a property
/// case) belongs to every case, so the union stays the source. `None` when nothing splits.
pub(super) fn split(so: &Map<String, Value>, branches: &[Value]) -> Option<(String, Vec<Value>)> {
    let branch_has = |keyword: &str| branches.iter().any(|b| b.get(keyword).is_some());
    let types = admitted_types(so).unwrap_or(TypeSet(0x7f));
    let kinds: Vec<&str> = types
        .iter()
        .filter(|ty| !(*ty == "integer" && types.contains(&"number")))
        .collect();
    if kinds.len() > 1 && branch_has("type") {
        let cases = kinds
            .into_iter()
            .map(|ty| {
                let mut case = so.clone();
                case.insert("type".into(), Value::from(ty));
                Value::Object(case)
            })
            .collect();
        return Some(("type".into(), cases));
    }
    if !types.contains(&"object") {
        return None;
    }
    let branch_property = |name: &str| {
        branches.iter().any(|b| {
            b.get("properties")
                .and_then(|p| p.get(name))
                .is_some_and(|p| p.get("const").is_some() || p.get("enum").is_some())
        })
    };
    let properties = so.field("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        let Value::Object(property) = property else {
            continue;
        };
        let Some(values) = finite_values(property) else {
            continue;
        };
        let required = required_names(so).any(|r| r == name);
        if (values.len() <= 1 && required) || values.len() > MAX_CASES || !branch_property(name) {
            continue;
        }
        let mut cases: Vec<Value> = values
            .iter()
            .map(|value| {
                let mut single = property.clone();
                single.remove("enum");
                single.insert("const".into(), value.clone());
                let case = with_property(so, name, Value::Object(single));
                Value::Object(with_required(&case, name))
            })
            .collect();
        if !required {
            cases.push(Value::Object(with_property(so, name, Value::Bool(false))));
        }
        return Some((format!("properties/{name}"), cases));
    }
    let absent = |name: &str| properties.and_then(|p| p.get(name)).is_some_and(is_false);
    for branch in branches.iter().filter_map(Value::as_object) {
        for name in required_names(branch) {
            if required_names(so).any(|r| r == name) || absent(name) {
                continue;
            }
            let cases = vec![
                Value::Object(with_required(so, name)),
                Value::Object(with_property(so, name, Value::Bool(false))),
            ];
            return Some((format!("required/{name}"), cases));
        }
    }
    None
}

/// The cases the prover's split makes of `source` against a target union at the root, split
/// again within each case as the prover would: candidates of each case are candidates of a
/// witness (a case no branch contains holds the value that tells the schemas apart). A case
/// may keep local `$ref`s: read it inside the source document.
pub fn union_split_cases(source: &Value, target: &Value) -> Vec<Value> {
    // A root that only refers (`{"$defs": …, "$ref": …}`) is read as what it refers to.
    fn referred(root: &Value) -> &Value {
        let mut schema = root;
        for _ in 0..16 {
            let Some(object) = schema.as_object() else {
                break;
            };
            let only_refers = object
                .keys()
                .all(|k| k == "$ref" || k == "$defs" || k == "definitions" || is_annotation(k));
            match object.field("$ref").and_then(Value::as_str) {
                Some(reference) if only_refers => match resolve_local(root, reference) {
                    Some(next) => schema = next,
                    None => break,
                },
                _ => break,
            }
        }
        schema
    }
    let branches = match referred(target).as_object() {
        Some(t) => match t.field("anyOf").or_else(|| t.field("oneOf")) {
            Some(Value::Array(branches)) => branches,
            _ => return Vec::new(),
        },
        None => return Vec::new(),
    };
    let mut out = Vec::new();
    let mut frontier = vec![referred(source).clone()];
    for _ in 0..MAX_SPLITS {
        let mut next = Vec::new();
        for case in &frontier {
            let Value::Object(object) = case else {
                continue;
            };
            if ["$ref", "allOf", "anyOf", "oneOf"]
                .iter()
                .any(|k| object.contains_key(*k))
            {
                continue;
            }
            if let Some((_, cases)) = split(object, branches) {
                next.extend(cases);
            }
        }
        if next.is_empty() {
            break;
        }
        out.extend(next.iter().cloned());
        frontier = next;
        if out.len() >= MAX_WITNESS_CASES {
            break;
        }
    }
    out.truncate(MAX_WITNESS_CASES);
    out
}

/// Whether no value is admitted by both `a` (read inside the document `a_root`) and `b`
/// (inside `b_root`): `true` is a proof, `false` means "not proven". Sound because every rule
/// reads each side as a superset of itself: dropping a keyword a rule does not use only widens
/// a schema (`properties` and `additionalProperties` are read together).
pub fn disjoint(a_root: &Value, a: &Value, b_root: &Value, b: &Value) -> bool {
    let mut work = DISJOINT_WORK;
    apart(a_root, a, b_root, b, 0, &mut work)
}

/// [`disjoint`] within a work budget shared by the caller (a unit per comparison and per
/// value of a finite schema): unions inside unions would otherwise multiply the work.
pub(super) fn apart(
    a_root: &Value,
    a: &Value,
    b_root: &Value,
    b: &Value,
    depth: usize,
    work: &mut usize,
) -> bool {
    if is_false(a) || is_false(b) {
        return true;
    }
    if depth > DISJOINT_DEPTH || *work == 0 {
        return false;
    }
    *work -= 1;
    let (Value::Object(ao), Value::Object(bo)) = (a, b) else {
        return false;
    };
    if let Some(proven) = disjoint_composite(a_root, ao, b_root, b, depth, work) {
        return proven;
    }
    if let Some(proven) = disjoint_composite(b_root, bo, a_root, a, depth, work) {
        return proven;
    }
    disjoint_flat(a_root, ao, b_root, bo, depth, work)
}

/// `a` with a `$ref`, `allOf` or union: `Some` of the answer, `None` when `a` is flat.
fn disjoint_composite(
    a_root: &Value,
    ao: &Map<String, Value>,
    b_root: &Value,
    b: &Value,
    depth: usize,
    work: &mut usize,
) -> Option<bool> {
    let next = depth + 1;
    if let Some(reference) = ao.field("$ref") {
        let rest = Value::Object(without(ao, "$ref"));
        let referenced = reference
            .as_str()
            .and_then(|reference| resolve_local(a_root, reference));
        return Some(
            referenced.is_some_and(|r| apart(a_root, r, b_root, b, next, work))
                || apart(a_root, &rest, b_root, b, next, work),
        );
    }
    if let Some(Value::Array(parts)) = ao.field("allOf") {
        let rest = Value::Object(without(ao, "allOf"));
        return Some(
            parts
                .iter()
                .chain(std::iter::once(&rest))
                .any(|part| apart(a_root, part, b_root, b, next, work)),
        );
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = ao.field(keyword) {
            let rest = Value::Object(without(ao, keyword));
            return Some(
                branches
                    .iter()
                    .all(|branch| apart(a_root, branch, b_root, b, next, work))
                    || apart(a_root, &rest, b_root, b, next, work),
            );
        }
    }
    None
}

/// The bound a schema puts on numbers from below (`lower`) or above: (value, exclusive).
fn numeric_bound(object: &Map<String, Value>, lower: bool) -> Option<(f64, bool)> {
    let (inclusive, exclusive) = if lower {
        ("minimum", "exclusiveMinimum")
    } else {
        ("maximum", "exclusiveMaximum")
    };
    let tighter = |a: (f64, bool), b: (f64, bool)| {
        let a_first = if lower { a.0 > b.0 } else { a.0 < b.0 };
        if a_first || (a.0 == b.0 && a.1) { a } else { b }
    };
    match (number(object, inclusive), number(object, exclusive)) {
        (Some(i), Some(e)) => Some(tighter((i, false), (e, true))),
        (Some(i), None) => Some((i, false)),
        (None, Some(e)) => Some((e, true)),
        (None, None) => None,
    }
}

/// Whether the upper bound of `a` lies below the lower bound of `b`.
fn below(a: Option<(f64, bool)>, b: Option<(f64, bool)>) -> bool {
    match (a, b) {
        (Some((high, high_strict)), Some((low, low_strict))) => {
            high < low || (high == low && (high_strict || low_strict))
        }
        _ => false,
    }
}

/// Whether one count range ends before the other begins (`maxLength` < `minLength`, …).
fn counts_apart(a: &Map<String, Value>, b: &Map<String, Value>, min: &str, max: &str) -> bool {
    let apart = |x: &Map<String, Value>, y: &Map<String, Value>| matches!((number(x, max), number(y, min)), (Some(high), Some(low)) if high < low);
    apart(a, b) || apart(b, a)
}

/// The schema a member `name` of an object meets under `object`, widened where patterns make
/// it unclear (then `true`).
fn member_schema<'v>(object: &'v Map<String, Value>, name: &str) -> &'v Value {
    if let Some(schema) = object.field("properties").and_then(|p| p.get(name)) {
        return schema;
    }
    if object.field("patternProperties").is_some() {
        return &TRUE;
    }
    object.field("additionalProperties").unwrap_or(&TRUE)
}

fn disjoint_flat(
    a_root: &Value,
    ao: &Map<String, Value>,
    b_root: &Value,
    bo: &Map<String, Value>,
    depth: usize,
    work: &mut usize,
) -> bool {
    let (a, b) = (Value::Object(ao.clone()), Value::Object(bo.clone()));
    for (finite, other) in [(ao, &b), (bo, &a)] {
        if let Some(values) = finite_values(finite) {
            if values.len() > *work {
                return false;
            }
            *work -= values.len();
            if values.iter().all(|v| admits(other, v) == Some(false)) {
                return true;
            }
        }
    }
    let all = TypeSet(0x7f);
    let shared = TypeSet(admitted_types(ao).unwrap_or(all).0 & admitted_types(bo).unwrap_or(all).0);
    shared.iter().all(|ty| match ty {
        "integer" if shared.contains(&"number") => true,
        "number" | "integer" => {
            below(numeric_bound(ao, false), numeric_bound(bo, true))
                || below(numeric_bound(bo, false), numeric_bound(ao, true))
        }
        "string" => counts_apart(ao, bo, "minLength", "maxLength"),
        "array" => counts_apart(ao, bo, "minItems", "maxItems"),
        "object" => {
            // A member one side requires, whose schemas on the two sides are disjoint: an
            // object of both would hold it, with a value of both.
            let mut names: Vec<&str> = required_names(ao).chain(required_names(bo)).collect();
            names.dedup();
            names.into_iter().any(|name| {
                apart(
                    a_root,
                    member_schema(ao, name),
                    b_root,
                    member_schema(bo, name),
                    depth + 1,
                    work,
                )
            })
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::structural::proves_contained;
    use serde_json::json;

    fn apart(a: Value, b: Value) -> bool {
        let forward = disjoint(&a, &a, &b, &b);
        assert_eq!(
            forward,
            disjoint(&b, &b, &a, &a),
            "disjointness is symmetric"
        );
        forward
    }

    #[test]
    fn disjointness_is_proven_by_type_value_range_and_member() {
        assert!(apart(json!({"type": "string"}), json!({"type": "number"})));
        assert!(!apart(
            json!({"type": "integer"}),
            json!({"type": "number"})
        ));
        assert!(apart(json!({"enum": ["a", "b"]}), json!({"const": "c"})));
        assert!(apart(
            json!({"type": "integer", "maximum": 10}),
            json!({"type": "number", "exclusiveMinimum": 10})
        ));
        assert!(!apart(
            json!({"type": "integer", "maximum": 10}),
            json!({"type": "number", "minimum": 10})
        ));
        // A member one side requires, with disjoint schemas (or forbidden on the other side).
        assert!(apart(
            json!({"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]}),
            json!({"properties": {"kind": {"const": "b"}}})
        ));
        // Without a type, both admit every non-object; unrequired, both admit `{}`.
        assert!(!apart(
            json!({"properties": {"kind": {"const": "a"}}, "required": ["kind"]}),
            json!({"properties": {"kind": {"const": "b"}}})
        ));
        assert!(!apart(
            json!({"type": "object", "properties": {"kind": {"const": "a"}}}),
            json!({"properties": {"kind": {"const": "b"}}})
        ));
        assert!(apart(
            json!({"type": "object", "required": ["token"]}),
            json!({"type": "object", "properties": {"token": false}})
        ));
        assert!(apart(
            json!({"type": "object", "required": ["token"]}),
            json!({"type": "object", "additionalProperties": false})
        ));
        // Unions and references on either side.
        assert!(apart(
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!({"type": "integer"})
        ));
        let referring = json!({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s"});
        assert!(apart(referring, json!({"type": "array"})));
        // Not modelled here: two string patterns that never both match.
        assert!(!apart(
            json!({"type": "string", "pattern": "^a"}),
            json!({"type": "string", "pattern": "^b"})
        ));
    }

    #[test]
    fn a_target_union_is_proven_by_splitting_the_source() {
        let discriminated = json!({"oneOf": [
            {"properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ]});
        let source = json!({"type": "object", "properties": {"kind": {"enum": ["a", "b"]},
            "n": {"type": "integer", "minimum": 0}}, "required": ["kind"]});
        assert!(proves_contained(&source, &discriminated));
        // Not required: the case where `kind` is absent fits no branch.
        let optional = json!({"type": "object", "properties": {"kind": {"enum": ["a", "b"]}}});
        assert!(!proves_contained(&optional, &discriminated));
        // A value of a case that another branch admits too: not exactly one branch.
        let overlapping = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert!(!proves_contained(&json!({"type": "integer"}), &overlapping));
        let by_type = json!({"oneOf": [{"type": "string", "maxLength": 9}, {"type": "number"}]});
        assert!(proves_contained(
            &json!({"type": ["string", "integer"], "maxLength": 3}),
            &by_type
        ));
        assert!(!proves_contained(
            &json!({"type": ["string", "integer"], "maxLength": 10}),
            &by_type
        ));
        let by_required = json!({"anyOf": [
            {"required": ["a"], "properties": {"a": {"type": "string"}}},
            {"properties": {"a": false, "b": {"type": "number"}}}
        ]});
        let source = json!({"type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}});
        assert!(proves_contained(&source, &by_required));
        // The target's keywords beside the union hold of the source as well.
        let with_sibling = json!({"type": "object", "minProperties": 1, "anyOf": [true]});
        assert!(!proves_contained(&json!({"type": "object"}), &with_sibling));
        assert!(proves_contained(
            &json!({"type": "object", "required": ["a"]}),
            &with_sibling
        ));
    }

    #[test]
    fn split_cases_make_up_the_source() {
        let branches = [json!({"properties": {"kind": {"const": "a"}}})];
        let source = json!({"type": "object", "properties": {"kind": {"enum": ["a", "b"]}}});
        let Value::Object(object) = &source else {
            unreachable!()
        };
        let Some((label, cases)) = split(object, &branches) else {
            panic!("the enum of `kind` splits");
        };
        assert_eq!(label, "properties/kind");
        assert_eq!(
            cases,
            vec![
                json!({"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]}),
                json!({"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}),
                json!({"type": "object", "properties": {"kind": false}}),
            ]
        );
        // Nothing the branches discriminate on: no split.
        assert!(split(object, &[json!({"minProperties": 1})]).is_none());
    }
}
