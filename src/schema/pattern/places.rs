//! Where two schemas constrain the same string: the places (along `properties` and `items`)
//! where the target's `pattern` or length bounds differ from the source's, the member names on
//! which two `patternProperties` objects may differ, and the instance a string found for a
//! place is put into.

use super::automata::{
    Inclusion, Lengths, common_string, example, inclusion, literal_pattern, union_pattern,
};

/// One step of an instance path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Member(String),
    Item,
}

/// A place where both schemas constrain the same string with different patterns: the string at
/// `path` in an instance, or (`names`) the member names of the object there.
#[derive(Debug, Clone)]
pub struct StringPlace {
    pub path: Vec<Step>,
    pub names: bool,
    pub source_pattern: Option<String>,
    /// The target's pattern (`None`: the target bounds only the length).
    pub target_pattern: Option<String>,
    pub min_length: u64,
    pub max_length: Option<u64>,
    /// The target's `minLength`/`maxLength` at the place.
    pub target_lengths: Lengths,
}

/// How many places, and how deep, [`string_places`] looks.
const MAX_PLACES: usize = 64;
const MAX_PLACE_DEPTH: usize = 8;
/// How many (source, target) pairs one search for places looks at.
const MAX_PLACE_VISITS: usize = 1024;

fn admits_strings(object: &serde_json::Map<String, serde_json::Value>) -> bool {
    match object.get("type") {
        None => true,
        Some(serde_json::Value::String(ty)) => ty == "string",
        Some(serde_json::Value::Array(types)) => types.iter().any(|t| t == "string"),
        Some(_) => false,
    }
}

fn follow<'a>(
    root: &'a serde_json::Value,
    mut schema: &'a serde_json::Value,
) -> &'a serde_json::Value {
    for _ in 0..16 {
        match schema.get("$ref").and_then(serde_json::Value::as_str) {
            Some(reference) => match crate::schema::walk::resolve_local(root, reference) {
                Some(next) => schema = next,
                None => break,
            },
            None => break,
        }
    }
    schema
}

/// The places, along `properties` and `items` (through local `$ref`s), where the target has a
/// `pattern` (or `propertyNames` with one) that the source does not share. Bounded.
pub fn string_places(source: &serde_json::Value, target: &serde_json::Value) -> Vec<StringPlace> {
    use serde_json::Value;
    static TRUE: Value = Value::Bool(true);
    let mut places = Vec::new();
    let mut stack: Vec<(&Value, &Value, Vec<Step>)> = vec![(source, target, Vec::new())];
    // Bounds the walk itself too: union branches and `$ref`s can lead back to the same pair
    // without adding a place or a step.
    let mut visits = 0;
    while let Some((s, t, path)) = stack.pop() {
        visits += 1;
        if places.len() >= MAX_PLACES || visits > MAX_PLACE_VISITS {
            break;
        }
        let (s, t) = (follow(source, s), follow(target, t));
        let (Some(so), Some(to)) = (s.as_object(), t.as_object()) else {
            continue;
        };
        let pattern_of = |o: &serde_json::Map<String, Value>| {
            o.get("pattern").and_then(Value::as_str).map(String::from)
        };
        let length = |o: &serde_json::Map<String, Value>, k: &str| o.get(k).and_then(Value::as_u64);
        let target_lengths = Lengths::new(
            length(to, "minLength").unwrap_or(0),
            length(to, "maxLength"),
        );
        // A target pattern the source does not share, or a target length bound beside a source
        // pattern (whose strings' lengths the pattern alone decides).
        let differs = match (pattern_of(so), pattern_of(to)) {
            (source, Some(target)) => source.as_deref() != Some(target.as_str()),
            (Some(_), None) => target_lengths != Lengths::default(),
            (None, None) => false,
        };
        if differs && admits_strings(so) {
            places.push(StringPlace {
                path: path.clone(),
                names: false,
                source_pattern: pattern_of(so),
                target_pattern: pattern_of(to),
                min_length: length(so, "minLength").unwrap_or(0),
                max_length: length(so, "maxLength"),
                target_lengths,
            });
        }
        if let Some(target_names) = to.get("propertyNames").and_then(Value::as_object)
            && let Some(target_pattern) = pattern_of(target_names)
        {
            let source_names = so.get("propertyNames").and_then(Value::as_object);
            places.push(StringPlace {
                path: path.clone(),
                names: true,
                source_pattern: source_names.and_then(pattern_of),
                target_pattern: Some(target_pattern),
                min_length: source_names
                    .and_then(|n| length(n, "minLength"))
                    .unwrap_or(0),
                max_length: source_names.and_then(|n| length(n, "maxLength")),
                target_lengths: Lengths::new(
                    length(target_names, "minLength").unwrap_or(0),
                    length(target_names, "maxLength"),
                ),
            });
        }
        // Union branches on either side, at the same place: a string outside one target
        // branch is only a candidate (the validators confirm that every branch rejects it), and
        // a source branch's pattern narrows where its strings are sought.
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = to.get(keyword).and_then(Value::as_array) {
                stack.extend(branches.iter().map(|branch| (s, branch, path.clone())));
            }
            if let Some(branches) = so.get(keyword).and_then(Value::as_array) {
                stack.extend(branches.iter().map(|branch| (branch, t, path.clone())));
            }
        }
        if path.len() >= MAX_PLACE_DEPTH {
            continue;
        }
        if let Some(properties) = to.get("properties").and_then(Value::as_object) {
            for (name, target_member) in properties {
                let source_member = so
                    .get("properties")
                    .and_then(|p| p.get(name))
                    .or_else(|| so.get("additionalProperties"))
                    .unwrap_or(&TRUE);
                let mut next = path.clone();
                next.push(Step::Member(name.clone()));
                stack.push((source_member, target_member, next));
            }
        }
        if let Some(target_items) = to.get("items") {
            let source_items = so.get("items").unwrap_or(&TRUE);
            let mut next = path.clone();
            next.push(Step::Item);
            stack.push((source_items, target_items, next));
        }
    }
    places
}

/// How many member names [`member_names`] returns.
const MAX_MEMBER_NAMES: usize = 16;

/// Member names on which two root objects with `patternProperties` may differ, each with the
/// source's subschema for it: for each target pattern, a name it matches that falls to the
/// source's `additionalProperties` (no source property or pattern takes it) and a name it
/// shares with each source pattern; for a target `additionalProperties`, a name of each source
/// pattern, and one of the source's rest, that no target property or pattern takes. The names
/// come from the automata (shortest strings of a product), so each is one the patterns really
/// govern; a name a pattern does not decide is skipped. Bounded by `MAX_MEMBER_NAMES`.
pub fn member_names(
    source: &serde_json::Value,
    target: &serde_json::Value,
) -> Vec<(String, serde_json::Value)> {
    use serde_json::{Map, Value};
    let (Some(so), Some(to)) = (source.as_object(), target.as_object()) else {
        return Vec::new();
    };
    let empty = Map::new();
    let map = |o: &'_ Map<String, Value>, k: &str| -> Option<Map<String, Value>> {
        match o.get(k) {
            None => Some(empty.clone()),
            Some(Value::Object(m)) => Some(m.clone()),
            Some(_) => None,
        }
    };
    let (Some(sprops), Some(spatterns), Some(tprops), Some(tpatterns)) = (
        map(so, "properties"),
        map(so, "patternProperties"),
        map(to, "properties"),
        map(to, "patternProperties"),
    ) else {
        return Vec::new();
    };
    let target_additional = to.get("additionalProperties");
    if tpatterns.is_empty() && target_additional.is_none() {
        return Vec::new();
    }
    let source_rest = so
        .get("additionalProperties")
        .cloned()
        .unwrap_or(Value::Bool(true));
    // The union of the names a side's properties and patterns take (`None`: no name).
    let takers = |props: &Map<String, Value>, patterns: &Map<String, Value>| {
        let mut all: Vec<String> = patterns.keys().cloned().collect();
        for name in props.keys() {
            all.push(literal_pattern(name)?);
        }
        Some((!all.is_empty()).then(|| union_pattern(all.iter().map(String::as_str))))
    };
    let (Some(source_takers), Some(target_takers)) =
        (takers(&sprops, &spatterns), takers(&tprops, &tpatterns))
    else {
        return Vec::new();
    };
    let outside = |pattern: Option<&str>, taken: Option<&str>| -> Option<String> {
        match taken {
            None => example(pattern?, 0, None),
            Some(taken) => match inclusion(pattern, Some(taken), 0, None) {
                Inclusion::Witness(name) => Some(name),
                _ => None,
            },
        }
    };
    let both_props = sprops
        .keys()
        .chain(tprops.keys())
        .cloned()
        .collect::<Vec<_>>();
    let mut names: Vec<(String, Value)> = Vec::new();
    let mut add = |name: Option<String>, schema: &Value| {
        if let Some(name) = name
            && !both_props.contains(&name)
            && names.len() < MAX_MEMBER_NAMES
            && !names.iter().any(|(n, _)| n == &name)
        {
            names.push((name, schema.clone()));
        }
    };
    for target_pattern in tpatterns.keys() {
        if source_rest != Value::Bool(false) {
            add(
                outside(Some(target_pattern), source_takers.as_deref()),
                &source_rest,
            );
        }
        for (source_pattern, source_schema) in &spatterns {
            if let Inclusion::Witness(name) =
                common_string(Some(source_pattern), Some(target_pattern))
            {
                add(Some(name), source_schema);
            }
        }
    }
    if target_additional.is_some() {
        for (source_pattern, source_schema) in &spatterns {
            add(
                outside(Some(source_pattern), target_takers.as_deref()),
                source_schema,
            );
        }
        if source_rest != Value::Bool(false) {
            let everything_taken = match (&source_takers, &target_takers) {
                (Some(s), Some(t)) => Some(union_pattern([s.as_str(), t.as_str()])),
                (Some(one), None) | (None, Some(one)) => Some(one.clone()),
                (None, None) => None,
            };
            let name = match everything_taken {
                None => Some("extra".to_string()),
                Some(taken) => outside(None, Some(&taken)),
            };
            add(name, &source_rest);
        }
    }
    names
}

/// `base` with `text` put at the place (creating the members and items on the way), as a few
/// candidates (for member names, one per member value tried).
pub fn place_witness(
    base: &serde_json::Value,
    place: &StringPlace,
    text: &serde_json::Value,
) -> Vec<serde_json::Value> {
    use serde_json::{Value, json};
    fn put(value: &mut Value, path: &[Step], leaf: &dyn Fn(&mut Value)) {
        let Some((step, rest)) = path.split_first() else {
            leaf(value);
            return;
        };
        match step {
            Step::Member(name) => {
                if !value.is_object() {
                    *value = json!({});
                }
                if let Value::Object(members) = value {
                    let member = members.entry(name.clone()).or_insert(Value::Null);
                    put(member, rest, leaf);
                }
            }
            Step::Item => {
                if !value.is_array() {
                    *value = json!([]);
                }
                if let Value::Array(items) = value {
                    if items.is_empty() {
                        items.push(Value::Null);
                    }
                    if let Some(first) = items.first_mut() {
                        put(first, rest, leaf);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    if place.names {
        let Some(name) = text.as_str() else {
            return out;
        };
        for member in [
            Value::Null,
            json!(""),
            json!(0),
            json!({}),
            json!([]),
            json!(false),
        ] {
            let mut candidate = base.clone();
            put(&mut candidate, &place.path, &|at: &mut Value| {
                if !at.is_object() {
                    *at = json!({});
                }
                if let Value::Object(members) = at {
                    members.insert(name.to_string(), member.clone());
                }
            });
            out.push(candidate);
        }
    } else {
        let mut candidate = base.clone();
        put(&mut candidate, &place.path, &|at: &mut Value| {
            *at = text.clone()
        });
        out.push(candidate);
    }
    out
}
