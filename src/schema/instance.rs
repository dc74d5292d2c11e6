//! Candidate instances of a schema: a small, deterministic generator that reads the keywords of a
//! Draft 2020-12 schema and writes down values likely to satisfy it (boundary values, the members
//! of `enum`, minimal and full objects, short and long arrays). It proves nothing on its own:
//! every candidate is checked with a `jsonschema` validator before anything relies on it, so a
//! wrong guess costs a candidate, never a wrong verdict.
//!
//! A second generator of values, `replay::schema_gen::random_instance`, remains on purpose: it
//! draws one seeded, realistic value a schema admits for the simulator, where this one lists
//! many boundary values on both sides of every bound so the checker can find a witness the
//! target refuses. Merging them would either flood the simulator with edge cases or lose the
//! witnesses here; they share `walk::resolve_local` for `$ref`s.

use serde_json::{Map, Number, Value, json};

use super::budget::{Budget, json_size};
use super::walk::resolve_local;

/// How deep the generator follows nesting and `$ref`s.
const MAX_DEPTH: usize = 6;
/// How many candidates one node keeps.
const MAX_CANDIDATES: usize = 32;
/// The largest candidate built, in bytes as serialized (about what it costs in memory, twice):
/// far above any real schema's bounds (`maxLength: 10000`, `maxItems: 100`), so a witness is
/// as large as the schemas demand, and a schema that demands more (`minItems: 1e12`) is given
/// no candidate of that size rather than unbounded memory.
pub const MAX_WITNESS_BYTES: usize = 1 << 20;
/// Arrays longer than this get fewer variants (one element varied, not every position).
const LONG_ARRAY: usize = 64;
/// The most positions of a short array varied one at a time (each member of a prefix, up to
/// this many).
const VARIED_POSITIONS: usize = 16;
/// Objects whose smallest candidate is larger than this (as compact JSON) get fewer variants.
const LARGE_OBJECT: usize = 64 << 10;

/// A length bound read from a schema (`minLength`, `maxItems`, …) as a `usize`, saturating.
fn bound(object: &Map<String, Value>, keyword: &str) -> Option<usize> {
    object
        .get(keyword)
        .and_then(Value::as_u64)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Candidate instances of `schema`, read inside the document `root` (for `$ref`s).
pub fn candidates(schema: &Value, root: &Value) -> Vec<Value> {
    candidates_within(schema, root, &Budget::default())
}

/// [`candidates`], each value built charged to `budget`; once it is exhausted, the values built
/// so far.
pub fn candidates_within(schema: &Value, root: &Value, budget: &Budget) -> Vec<Value> {
    let mut out = generate(schema, root, 0, budget).into_values();
    for stock in stock_values() {
        push_unique(&mut out, stock, MAX_CANDIDATES * 2, budget);
    }
    out
}

/// The first `count` of [`candidates_within`] without the rest (nor the stock values): the
/// minimal values, tried before the others are built, which for a schema of long arrays are
/// megabytes.
pub fn first_candidates_within(
    schema: &Value,
    root: &Value,
    count: usize,
    budget: &Budget,
) -> Vec<Value> {
    generate_at_most(schema, root, 0, budget, count).into_values()
}

/// Values of every type, tried when the keywords give nothing better (`not`, patterns).
fn stock_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(-1),
        json!(0.5),
        json!(7),
        json!(""),
        json!("a"),
        json!("abc"),
        // A line terminator: ECMA-262's `.` does not match it, so `.+` does not either.
        json!("\n"),
        json!([]),
        json!([null]),
        json!({}),
        json!({"a": null}),
    ]
}

/// Keep `value` unless `out` is full, holds it already, or the budget cannot pay for it (for
/// the small stock values; built candidates go through [`Kept`]).
fn push_unique(out: &mut Vec<Value>, value: Value, limit: usize, budget: &Budget) {
    if out.len() < limit
        && budget.charge_value(&value, "building candidate values")
        && !out.contains(&value)
    {
        out.push(value);
    }
}

/// The candidates one node keeps, each with its size as compact JSON and a hash, measured in
/// one walk: the size is what the budget is charged, and a new value is compared in full only
/// with a kept one of the same size and hash. (Comparing every new value with every kept one
/// walked long arrays equal but for their last member again and again: a tenth of the time
/// of IBM's slowest pairs.)
struct Kept {
    values: Vec<Value>,
    keys: Vec<(usize, u64)>,
    limit: usize,
}

impl Kept {
    fn new(limit: usize) -> Self {
        Kept {
            values: Vec::new(),
            keys: Vec::new(),
            limit,
        }
    }

    /// Whether nothing more is kept: a caller stops building values then, rather than build
    /// one to throw it away.
    fn is_full(&self) -> bool {
        self.values.len() >= self.limit
    }

    /// Keep `value` unless this is full, holds it already, or the budget cannot pay for it.
    fn push(&mut self, value: Value, budget: &Budget) {
        if self.is_full() {
            return;
        }
        let key = fingerprint(&value);
        self.push_keyed(value, key, budget);
    }

    /// [`Kept::push`], for arrays: one larger than [`MAX_WITNESS_BYTES`] is paid for (it was
    /// built) and dropped, so that no array candidate is larger (see [`out_of_reach`]).
    fn push_array(&mut self, value: Value, budget: &Budget) {
        if self.is_full() {
            return;
        }
        let key = fingerprint(&value);
        if key.0 > MAX_WITNESS_BYTES {
            budget.charge(key.0 as u64, "building candidate values");
            return;
        }
        self.push_keyed(value, key, budget);
    }

    fn push_keyed(&mut self, value: Value, key: (usize, u64), budget: &Budget) {
        if self.is_full() || !budget.charge(key.0 as u64, "building candidate values") {
            return;
        }
        let held = self
            .keys
            .iter()
            .zip(&self.values)
            .any(|(held_key, held)| *held_key == key && *held == value);
        if !held {
            self.values.push(value);
            self.keys.push(key);
        }
    }

    /// Keep the values of `other` (their sizes and hashes known), in order.
    fn absorb(&mut self, other: Kept, budget: &Budget) {
        for (value, key) in other.values.into_iter().zip(other.keys) {
            self.push_keyed(value, key, budget);
        }
    }

    fn into_values(self) -> Vec<Value> {
        self.values
    }
}

/// The size of `value` as compact JSON ([`json_size`]) and a hash of it, in one walk.
fn fingerprint(value: &Value) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    fn feed(value: &Value, state: &mut rustc_hash::FxHasher) -> usize {
        match value {
            Value::Null => {
                state.write_u8(0);
                4
            }
            Value::Bool(b) => {
                state.write_u8(1 + u8::from(*b));
                4 + usize::from(!b)
            }
            Value::Number(_) => {
                state.write_u8(3);
                let size = json_size(value);
                // `-0.0 == 0.0`: one hash for both.
                let f = value.as_f64().unwrap_or(0.0);
                let f = if f == 0.0 { 0.0 } else { f };
                state.write_u64(f.to_bits());
                size
            }
            Value::String(text) => {
                state.write_u8(4);
                text.hash(state);
                text.len() + 2
            }
            Value::Array(items) => {
                state.write_u8(5);
                state.write_usize(items.len());
                let mut size = 2 + items.len().saturating_sub(1);
                for item in items {
                    size += feed(item, state);
                }
                size
            }
            Value::Object(members) => {
                // Member order is not significant to equality: the members' hashes are summed.
                state.write_u8(6);
                state.write_usize(members.len());
                let mut size = 2 + members.len().saturating_sub(1);
                let mut sum = 0u64;
                for (key, member) in members {
                    let mut inner = rustc_hash::FxHasher::default();
                    key.hash(&mut inner);
                    size += key.len() + 3 + feed(member, &mut inner);
                    sum = sum.wrapping_add(inner.finish());
                }
                state.write_u64(sum);
                size
            }
        }
    }
    let mut state = rustc_hash::FxHasher::default();
    let size = feed(value, &mut state);
    (size, state.finish())
}

fn generate(schema: &Value, root: &Value, depth: usize, budget: &Budget) -> Kept {
    generate_at_most(schema, root, depth, budget, MAX_CANDIDATES)
}

/// [`generate`], keeping at most `limit` candidates for the node of `schema` (its members and
/// items keep their usual number).
fn generate_at_most(
    schema: &Value,
    root: &Value,
    depth: usize,
    budget: &Budget,
    limit: usize,
) -> Kept {
    let mut out = Kept::new(limit);
    if budget.is_exhausted() {
        return out;
    }
    let object = match schema {
        Value::Bool(true) => {
            for value in [Value::Null, json!(0), json!("")] {
                out.push(value, budget);
            }
            return out;
        }
        Value::Object(object) => object,
        _ => return out,
    };
    if depth > MAX_DEPTH {
        for value in [Value::Null, json!({}), json!([]), json!(0), json!("")] {
            out.push(value, budget);
        }
        return out;
    }
    if let Some(constant) = object.get("const") {
        out.push(constant.clone(), budget);
        return out;
    }
    if let Some(Value::Array(members)) = object.get("enum") {
        for member in members.iter().take(MAX_CANDIDATES) {
            out.push(member.clone(), budget);
        }
        return out;
    }
    if let Some(Value::String(reference)) = object.get("$ref")
        && let Some(target) = resolve_local(root, reference)
    {
        let merged = merge_without(object, "$ref", target);
        out.absorb(
            generate_at_most(&merged, root, depth + 1, budget, limit),
            budget,
        );
        return out;
    }
    if let Some(Value::Array(branches)) = object.get("allOf") {
        let mut merged = Value::Object(without(object, "allOf"));
        for branch in branches {
            merged = merge_schemas(&merged, branch);
        }
        return generate_at_most(&merged, root, depth + 1, budget, limit);
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(keyword) {
            let rest = without(object, keyword);
            for branch in branches {
                if out.is_full() {
                    break;
                }
                let merged = merge_schemas(&Value::Object(rest.clone()), branch);
                out.absorb(
                    generate_at_most(&merged, root, depth + 1, budget, limit),
                    budget,
                );
            }
            return out;
        }
    }
    for ty in types_of(object) {
        if out.is_full() {
            break;
        }
        let values = match ty {
            "null" => vec![Value::Null],
            "boolean" => vec![json!(false), json!(true)],
            "integer" => numbers(object, true, budget),
            "number" => numbers(object, false, budget),
            "string" => strings(object, budget),
            "array" => {
                out.absorb(arrays(object, root, depth, budget, limit), budget);
                continue;
            }
            "object" => {
                out.absorb(objects(object, root, depth, budget, limit), budget);
                continue;
            }
            _ => Vec::new(),
        };
        for value in values {
            out.push(value, budget);
        }
    }
    out
}

fn without(object: &Map<String, Value>, keyword: &str) -> Map<String, Value> {
    let mut rest = object.clone();
    rest.remove(keyword);
    rest
}

fn merge_without(object: &Map<String, Value>, keyword: &str, other: &Value) -> Value {
    merge_schemas(&Value::Object(without(object, keyword)), other)
}

/// A rough conjunction of two schemas for generating values: keywords of `right` override those
/// of `left`, except `type` (intersected), `required` (united) and `properties` (merged).
fn merge_schemas(left: &Value, right: &Value) -> Value {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            let mut out = l.clone();
            for (keyword, value) in r {
                let merged = match (keyword.as_str(), out.get(keyword)) {
                    ("required", Some(Value::Array(existing))) => {
                        let mut all = existing.clone();
                        if let Value::Array(more) = value {
                            all.extend(more.iter().cloned());
                        }
                        Value::Array(all)
                    }
                    ("properties", Some(Value::Object(existing))) => {
                        let mut all = existing.clone();
                        if let Value::Object(more) = value {
                            for (name, schema) in more {
                                let combined = match all.get(name) {
                                    Some(prior) => merge_schemas(prior, schema),
                                    None => schema.clone(),
                                };
                                all.insert(name.clone(), combined);
                            }
                        }
                        Value::Object(all)
                    }
                    ("type", Some(existing)) => intersect_types(existing, value),
                    _ => value.clone(),
                };
                out.insert(keyword.clone(), merged);
            }
            Value::Object(out)
        }
        (Value::Bool(true), other) | (other, Value::Bool(true)) => other.clone(),
        _ => Value::Bool(false),
    }
}

fn type_list(value: &Value) -> Vec<String> {
    match value {
        Value::String(ty) => vec![ty.clone()],
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

fn intersect_types(left: &Value, right: &Value) -> Value {
    let right = type_list(right);
    let kept: Vec<Value> = type_list(left)
        .into_iter()
        .filter_map(|ty| {
            if right.contains(&ty) {
                Some(ty)
            } else if ty == "number" && right.iter().any(|r| r == "integer") {
                Some("integer".to_string())
            } else if ty == "integer" && right.iter().any(|r| r == "number") {
                Some(ty)
            } else {
                None
            }
        })
        .map(Value::String)
        .collect();
    Value::Array(kept)
}

/// The types a schema object can take, guessed from `type` or from the keywords it uses.
fn types_of(object: &Map<String, Value>) -> Vec<&'static str> {
    const ALL: [&str; 7] = [
        "object", "array", "string", "integer", "number", "boolean", "null",
    ];
    if let Some(declared) = object.get("type") {
        let declared = type_list(declared);
        return ALL
            .into_iter()
            .filter(|ty| declared.iter().any(|d| d == ty))
            .collect();
    }
    let has = |keys: &[&str]| keys.iter().any(|k| object.contains_key(*k));
    let mut guessed = Vec::new();
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
        "maxProperties",
        "patternProperties",
        "propertyNames",
    ]) {
        guessed.push("object");
    }
    if has(&["items", "prefixItems", "minItems", "maxItems", "contains"]) {
        guessed.push("array");
    }
    if has(&["minLength", "maxLength", "pattern"]) {
        guessed.push("string");
    }
    if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        guessed.push("integer");
        guessed.push("number");
    }
    for ty in ALL {
        if !guessed.contains(&ty) {
            guessed.push(ty);
        }
    }
    guessed
}

fn number_value(value: f64, integral: bool) -> Option<Value> {
    if !value.is_finite() {
        return None;
    }
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        return Some(json!(value as i64));
    }
    if integral {
        return None;
    }
    Number::from_f64(value).map(Value::Number)
}

fn numbers(object: &Map<String, Value>, integral: bool, budget: &Budget) -> Vec<Value> {
    let get = |k: &str| object.get(k).and_then(Value::as_f64);
    let step = get("multipleOf").filter(|m| *m > 0.0);
    let unit = if integral { 1.0 } else { 0.5 };
    let lower = match (get("minimum"), get("exclusiveMinimum")) {
        (Some(min), Some(ex)) if ex >= min => Some((ex, true)),
        (Some(min), _) => Some((min, false)),
        (None, Some(ex)) => Some((ex, true)),
        (None, None) => None,
    };
    let upper = match (get("maximum"), get("exclusiveMaximum")) {
        (Some(max), Some(ex)) if ex <= max => Some((ex, true)),
        (Some(max), _) => Some((max, false)),
        (None, Some(ex)) => Some((ex, true)),
        (None, None) => None,
    };
    let mut seeds = vec![0.0, 1.0, -1.0, 2.0, 0.5, 1.5];
    if let Some((bound, exclusive)) = lower {
        seeds.extend([bound, bound + unit, bound.ceil(), bound + 1.0]);
        if exclusive {
            seeds.push(bound + 0.25);
        }
    }
    if let Some((bound, exclusive)) = upper {
        seeds.extend([bound, bound - unit, bound.floor(), bound - 1.0]);
        if exclusive {
            seeds.push(bound - 0.25);
        }
    }
    if let (Some((lo, _)), Some((hi, _))) = (lower, upper) {
        seeds.push((lo + hi) / 2.0);
    }
    let mut candidates: Vec<f64> = Vec::new();
    for seed in seeds {
        match step {
            Some(step) => {
                let below = (seed / step).floor() * step;
                candidates.extend([below, below + step, step, -step, step * 2.0, step * 3.0]);
                candidates.push(step * 1.5);
            }
            None => candidates.push(seed),
        }
    }
    let admits = |value: f64| {
        let above = match lower {
            Some((bound, true)) => value > bound,
            Some((bound, false)) => value >= bound,
            None => true,
        };
        let below = match upper {
            Some((bound, true)) => value < bound,
            Some((bound, false)) => value <= bound,
            None => true,
        };
        above && below
    };
    let mut out = Vec::new();
    // Values inside the window first; the rest still help find values the target refuses.
    for inside in [true, false] {
        for &value in &candidates {
            if admits(value) == inside
                && let Some(value) = number_value(value, integral)
            {
                push_unique(&mut out, value, MAX_CANDIDATES, budget);
            }
        }
    }
    out
}

fn strings(object: &Map<String, Value>, budget: &Budget) -> Vec<Value> {
    let min = bound(object, "minLength").unwrap_or(0);
    let max = bound(object, "maxLength");
    let mut lengths = vec![min, min.saturating_add(1), min.saturating_add(3)];
    if let Some(max) = max {
        lengths.extend([max, max.saturating_sub(1), max.saturating_add(1)]);
    }
    let mut out = Vec::new();
    // Lengths count code points; `a` is one byte, so the budget is the length.
    for length in lengths.into_iter().filter(|&l| l <= MAX_WITNESS_BYTES) {
        push_unique(&mut out, json!("a".repeat(length)), MAX_CANDIDATES, budget);
    }
    for stock in ["", "0", "abc", "A-1", "hello world", "2020-01-01", "\n"] {
        push_unique(&mut out, json!(stock), MAX_CANDIDATES, budget);
    }
    out
}

fn arrays(
    object: &Map<String, Value>,
    root: &Value,
    depth: usize,
    budget: &Budget,
    limit: usize,
) -> Kept {
    let mut out = Kept::new(limit);
    let min = bound(object, "minItems").unwrap_or(0);
    let max = bound(object, "maxItems");
    let prefix: Vec<Vec<Value>> = match object.get("prefixItems") {
        Some(Value::Array(schemas)) => schemas
            .iter()
            .map(|schema| generate(schema, root, depth + 1, budget).into_values())
            .collect(),
        _ => Vec::new(),
    };
    let items = object.get("items");
    let rest = match items {
        Some(schema) => generate(schema, root, depth + 1, budget).into_values(),
        None => vec![Value::Null, json!(0), json!("a")],
    };
    let contains = object
        .get("contains")
        .map(|schema| generate(schema, root, depth + 1, budget).into_values())
        .unwrap_or_default();
    // The most items an array of the cheapest elements may have within the byte budget.
    let element_size = rest.first().map_or(4, json_size) + 1;
    let fits = |length: usize| length.saturating_mul(element_size) <= MAX_WITNESS_BYTES;
    let mut lengths = vec![
        min,
        min.max(prefix.len()),
        min.saturating_add(1),
        prefix.len() + 1,
    ];
    if let Some(max) = max {
        lengths.extend([max, max.saturating_add(1)]);
    }
    lengths.retain(|&l| fits(l));
    // A length met twice builds the same arrays twice (`minItems` = `maxItems` on a long array
    // built hundreds of kilobytes to throw away); the first of each is kept, in order.
    let mut seen_lengths = Vec::with_capacity(lengths.len());
    lengths.retain(|&l| {
        let first = !seen_lengths.contains(&l);
        seen_lengths.push(l);
        first
    });
    let base_length = min.max(prefix.len()).max(1);
    let long = base_length > LONG_ARRAY;
    let element_at = |index: usize| prefix.get(index).unwrap_or(&rest).first().cloned();
    // A long array is built few times (each one is hundreds of kilobytes): first one that
    // holds, after its prefix, every element of the pool that the items' schema admits (as
    // the structural evaluator says), each once, the rest the first of them. Where the
    // source's elements vary, that one array carries each variety to the target at once (an
    // element the target refuses at row 1 or at the last column of a row).
    let mut built_diverse = false;
    if long && fits(base_length) {
        let item_schema = items.unwrap_or(&Value::Bool(true));
        let admitted: Vec<&Value> = rest
            .iter()
            .filter(|value| super::structural::admits(item_schema, value) == Some(true))
            .collect();
        if admitted.len() > 1 {
            built_diverse = true;
            let array: Vec<Value> = (0..base_length)
                .filter_map(|index| match index.checked_sub(prefix.len()) {
                    None => element_at(index),
                    Some(row) => Some((*admitted.get(row).unwrap_or(&admitted[0])).clone()),
                })
                .collect();
            out.push_array(Value::Array(array), budget);
        }
    }
    // One element varied at a time, the rest minimal: finds a single offending element. Each
    // variety at every position before the next variety, and every position of a prefix (up
    // to `VARIED_POSITIONS`): a prefix's later members (the eighth column of a row) are
    // reached within the node's candidates. Not for a long array that holds its varieties
    // already.
    let (positions, varieties) = if built_diverse {
        (0, 0)
    } else if long {
        (1, 2)
    } else {
        (prefix.len().clamp(4, VARIED_POSITIONS), 8)
    };
    if fits(base_length) {
        'varieties: for variety in 0..varieties {
            for position in 0..base_length.min(positions) {
                if budget.is_exhausted() || out.is_full() {
                    break 'varieties;
                }
                let pool = prefix.get(position).unwrap_or(&rest);
                // Variety 0 at every position is the same array.
                let Some(varied) = pool.get(variety).filter(|_| variety > 0 || position == 0)
                else {
                    continue;
                };
                let array: Vec<Value> = (0..base_length)
                    .filter_map(|index| {
                        if index == position {
                            return Some(varied.clone());
                        }
                        element_at(index)
                    })
                    .collect();
                out.push_array(Value::Array(array), budget);
            }
        }
    }
    // A repeated element, for `uniqueItems`.
    if let Some(first) = rest.first().filter(|_| fits(prefix.len() + 2)) {
        let mut array: Vec<Value> = prefix.iter().filter_map(|p| p.first().cloned()).collect();
        array.extend([first.clone(), first.clone()]);
        out.push_array(Value::Array(array), budget);
    }
    // Whole arrays of each length; a long one only once (its rows differ only in which
    // varieties sit where), and not at the length of the one that holds its varieties.
    let variants = if long { 1 } else { 3 };
    if built_diverse {
        lengths.retain(|&length| length != base_length);
    }
    for variant in 0..variants {
        for &length in &lengths {
            if budget.is_exhausted() || out.is_full() {
                return out;
            }
            let mut array = Vec::new();
            for index in 0..length {
                let pool = prefix.get(index).unwrap_or(&rest);
                let pick = pool.get(variant + index).or_else(|| pool.first());
                if let Some(value) = pick {
                    array.push(value.clone());
                }
            }
            if let Some(first) = contains.get(variant).or_else(|| contains.first()) {
                if array.len() > prefix.len() {
                    array.pop();
                }
                array.push(first.clone());
            }
            out.push_array(Value::Array(array), budget);
        }
    }
    out
}

fn objects(
    object: &Map<String, Value>,
    root: &Value,
    depth: usize,
    budget: &Budget,
    limit: usize,
) -> Kept {
    let properties = match object.get("properties") {
        Some(Value::Object(properties)) => properties.clone(),
        _ => Map::new(),
    };
    let required: Vec<String> = match object.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    };
    let additional = object.get("additionalProperties");
    // Each member's candidates are generated once: generating them anew at every use made the
    // work exponential in the nesting depth.
    let pools: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Vec<Value>>>> =
        Default::default();
    let values_of = |name: &str| -> std::rc::Rc<Vec<Value>> {
        // Names outside `properties` share the `additionalProperties` pool under one key.
        let key = if properties.contains_key(name) {
            name
        } else {
            ""
        };
        if let Some(pool) = pools.borrow().get(key) {
            return std::rc::Rc::clone(pool);
        }
        let schema = properties.get(name).or(additional);
        let pool = std::rc::Rc::new(match schema {
            Some(schema) => generate(schema, root, depth + 1, budget).into_values(),
            None => vec![Value::Null, json!(0), json!("a")],
        });
        pools
            .borrow_mut()
            .insert(key.to_string(), std::rc::Rc::clone(&pool));
        pool
    };
    let min_properties = object
        .get("minProperties")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(32) as usize;
    let mut out = Kept::new(limit);
    let pattern_keys: Vec<(String, Value)> = match object.get("patternProperties") {
        Some(Value::Object(patterns)) => patterns
            .iter()
            .map(|(pattern, schema)| (key_for_pattern(pattern), schema.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let minimal: Map<String, Value> = required
        .iter()
        .filter_map(|name| values_of(name).first().map(|v| (name.clone(), v.clone())))
        .collect();
    // Whole-object variants first (every optional member, an extra member): with four or more
    // declared members the per-member variations alone used to fill every candidate slot, and a
    // nested object's extra-member variant came too late in its pool to be tried.
    // Every optional member adds nothing where every declared member is required.
    let has_optional = properties.keys().any(|name| !required.contains(name));
    // A large object (lale's datasets: arrays of thousands of rows) gets fewer variants, as a
    // long array does: each one copies its members.
    let minimal_size: usize = minimal
        .iter()
        .map(|(name, value)| name.len() + 4 + json_size(value))
        .sum();
    let large = minimal_size > LARGE_OBJECT;
    let (variants, varieties) = if large { (1, 3) } else { (3, 8) };
    for variant in 0..variants {
        for with_optional in [false, true] {
            if with_optional && !has_optional {
                continue;
            }
            for with_extra in [false, true] {
                if out.is_full() {
                    break;
                }
                let mut instance = Map::new();
                let mut names: Vec<String> = required.clone();
                if with_optional {
                    names.extend(properties.keys().cloned());
                }
                for name in names {
                    if instance.contains_key(&name) {
                        continue;
                    }
                    let pool = values_of(&name);
                    if let Some(value) = pool.get(variant).or_else(|| pool.first()) {
                        instance.insert(name, value.clone());
                    }
                }
                let mut extra_index = 0;
                while instance.len() < min_properties || (with_extra && extra_index == 0) {
                    let name = format!("extra{extra_index}");
                    extra_index += 1;
                    let pool = values_of(&name);
                    let value = pool.first().cloned().unwrap_or(Value::Null);
                    instance.insert(name, value);
                }
                out.push(Value::Object(instance), budget);
            }
        }
    }
    // An extra member varied over what `additionalProperties` admits: finds a witness where
    // the target's additional members are tighter (an object map against a narrower one).
    if additional.is_some_and(|schema| schema != &Value::Bool(false)) {
        for varied in values_of("extra0").iter().take(varieties).cloned() {
            if out.is_full() {
                break;
            }
            let mut instance = minimal.clone();
            instance.insert("extra0".into(), varied);
            out.push(Value::Object(instance), budget);
        }
    }
    // One property varied at a time over its candidates, the rest minimal.
    let mut varied_names: Vec<&String> = Vec::new();
    for name in required.iter().chain(properties.keys()) {
        if !varied_names.contains(&name) {
            varied_names.push(name);
        }
    }
    for name in varied_names {
        // The first of a required member's values is the minimal object again.
        let skip = usize::from(large && required.contains(name));
        for varied in values_of(name).iter().take(varieties).skip(skip).cloned() {
            if out.is_full() {
                break;
            }
            let mut instance = minimal.clone();
            instance.insert(name.clone(), varied);
            out.push(Value::Object(instance), budget);
        }
    }
    for (key, schema) in &pattern_keys {
        if out.is_full() {
            break;
        }
        for varied in generate(schema, root, depth + 1, budget)
            .into_values()
            .into_iter()
            .take(4)
        {
            let mut instance = minimal.clone();
            instance.insert(key.clone(), varied);
            out.push(Value::Object(instance), budget);
        }
    }
    out
}

/// Why no candidate the search builds can be a value `schema` admits, if that is so: an array
/// it requires (at the root, or a required member, at any depth) has no value small enough to be
/// built (every array candidate is at most [`MAX_WITNESS_BYTES`]; a one-member mutation adds a
/// stock value, a few bytes, to it, far less than `REACH_SLACK`). lale's datasets of 32,724 rows of 14
/// columns are over 1.2 MB: the search cannot find their witness, and is not run.
pub fn out_of_reach(schema: &Value, root: &Value) -> Option<String> {
    fn walk(schema: &Value, root: &Value, depth: usize) -> Option<(usize, String)> {
        let object = schema.as_object()?;
        if depth > MAX_DEPTH {
            return None;
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && let Some(found) = walk(resolve_local(root, reference)?, root, depth + 1)
        {
            return Some(found);
        }
        match only_type(object)? {
            "array" => {
                let smallest = smallest_size(schema, depth);
                (smallest > MAX_WITNESS_BYTES + REACH_SLACK).then(|| (smallest, String::new()))
            }
            "object" => {
                let properties = object.get("properties").and_then(Value::as_object)?;
                object
                    .get("required")?
                    .as_array()?
                    .iter()
                    .filter_map(Value::as_str)
                    .find_map(|name| {
                        let (smallest, pointer) = walk(properties.get(name)?, root, depth + 1)?;
                        let name = name.replace('~', "~0").replace('/', "~1");
                        Some((smallest, format!("/properties/{name}{pointer}")))
                    })
            }
            _ => None,
        }
    }
    let (smallest, pointer) = walk(schema, root, 0)?;
    Some(format!(
        "the array at #{pointer} has no value smaller than {smallest} bytes, larger than the \
         witness search builds ({MAX_WITNESS_BYTES})"
    ))
}

/// Room above [`MAX_WITNESS_BYTES`] for what the search adds to a built array (mutations).
const REACH_SLACK: usize = 64 << 10;

/// The one type `object` declares, if it declares exactly one.
fn only_type(object: &Map<String, Value>) -> Option<&str> {
    match object.get("type")? {
        Value::String(ty) => Some(ty),
        Value::Array(types) if types.len() == 1 => types[0].as_str(),
        _ => None,
    }
}

/// A lower bound on the size as compact JSON of every value `schema` admits, read from its own
/// `const`, `enum`, `type`, `minLength`, `minItems`, `prefixItems`, `items`, `required` and
/// `properties` (a keyword beside them only narrows what it admits, so the bound holds).
fn smallest_size(schema: &Value, depth: usize) -> usize {
    let Some(object) = schema.as_object().filter(|_| depth <= MAX_DEPTH) else {
        return 1;
    };
    if let Some(constant) = object.get("const") {
        return json_size(constant);
    }
    if let Some(Value::Array(members)) = object.get("enum") {
        return members.iter().map(json_size).min().unwrap_or(1);
    }
    let Some(declared) = object.get("type") else {
        return 1;
    };
    type_list(declared)
        .iter()
        .map(|ty| match ty.as_str() {
            "null" | "boolean" => 4,
            "string" => bound(object, "minLength").unwrap_or(0).saturating_add(2),
            "array" => {
                let length = bound(object, "minItems").unwrap_or(0);
                let prefix = match object.get("prefixItems") {
                    Some(Value::Array(schemas)) => schemas.as_slice(),
                    _ => &[],
                };
                let in_prefix: usize = prefix
                    .iter()
                    .take(length)
                    .map(|item| smallest_size(item, depth + 1))
                    .fold(0, usize::saturating_add);
                let others = length.saturating_sub(prefix.len());
                let other = object
                    .get("items")
                    .map_or(1, |item| smallest_size(item, depth + 1));
                let commas = length.saturating_sub(1);
                in_prefix
                    .saturating_add(others.saturating_mul(other))
                    .saturating_add(commas)
                    .saturating_add(2)
            }
            "object" => {
                let properties = object.get("properties").and_then(Value::as_object);
                let mut names: Vec<&str> = match object.get("required") {
                    Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                names.sort_unstable();
                names.dedup();
                names
                    .iter()
                    .map(|name| {
                        let member = properties
                            .and_then(|p| p.get(*name))
                            .map_or(1, |member| smallest_size(member, depth + 1));
                        // `"name":` and the member; a name's escapes only lengthen it.
                        name.len().saturating_add(3).saturating_add(member)
                    })
                    .fold(names.len().saturating_sub(1), usize::saturating_add)
                    .saturating_add(2)
            }
            _ => 1,
        })
        .min()
        .unwrap_or(1)
}

/// A key likely to match `pattern`: its literal prefix after `^` (letters, digits, `-`, `_`),
/// followed by a letter.
fn key_for_pattern(pattern: &str) -> String {
    let literal: String = pattern
        .trim_start_matches('^')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    format!("{literal}k")
}

/// Variations of `value` with one nested member or element (up to `depth` levels down) replaced
/// by a value of another type: finds a witness where a target constrains a member the source
/// leaves open.
pub fn mutations(value: &Value, depth: usize) -> Vec<Value> {
    mutations_within(value, depth, &Budget::default())
}

/// [`mutations`], each variation charged to `budget`; once it is exhausted, those made so far.
pub fn mutations_within(value: &Value, depth: usize, budget: &Budget) -> Vec<Value> {
    let mut out = Kept::new(MAX_CANDIDATES * 4);
    mutate(value, depth, budget, &mut out);
    out.into_values()
}

/// The replacements of one member of a value mutated `depth` deep: the stock values, then the
/// member's own variations (made only when the stock ones have not filled the caller's list).
fn replacements<'a>(
    member: &'a Value,
    depth: usize,
    budget: &'a Budget,
) -> impl Iterator<Item = Value> + 'a {
    let nested = std::iter::once(()).flat_map(move |()| {
        let mut nested = Kept::new(MAX_CANDIDATES * 4);
        mutate(member, depth - 1, budget, &mut nested);
        nested.into_values()
    });
    stock_values().into_iter().chain(nested)
}

/// The variations of [`mutations_within`] into `out`; none is built once `out` is full (each
/// can be a copy of a long array).
fn mutate(value: &Value, depth: usize, budget: &Budget, out: &mut Kept) {
    if depth == 0 {
        return;
    }
    match value {
        Value::Object(object) => {
            for (key, member) in object {
                for replacement in replacements(member, depth, budget) {
                    if budget.is_exhausted() || out.is_full() {
                        return;
                    }
                    if replacement == *member {
                        continue;
                    }
                    // The other members cloned, the replaced one not (it may be a large array).
                    let mut replacement = Some(replacement);
                    let changed: Map<String, Value> = object
                        .iter()
                        .map(|(name, member)| {
                            let value = match replacement.take_if(|_| name == key) {
                                Some(replacement) => replacement,
                                None => member.clone(),
                            };
                            (name.clone(), value)
                        })
                        .collect();
                    out.push(Value::Object(changed), budget);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate().take(4) {
                for replacement in replacements(item, depth, budget) {
                    if budget.is_exhausted() || out.is_full() {
                        return;
                    }
                    // A replacement equal to the item is the value again.
                    if replacement == *item {
                        continue;
                    }
                    let mut replacement = Some(replacement);
                    let changed: Vec<Value> = items
                        .iter()
                        .enumerate()
                        .map(|(at, item)| match replacement.take_if(|_| at == index) {
                            Some(replacement) => replacement,
                            None => item.clone(),
                        })
                        .collect();
                    out.push(Value::Array(changed), budget);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::budget::WORK_LIMIT;
    use proptest::prelude::*;

    /// Exactly `rows` rows of `width` non-negative numbers (lale's dataset schemas).
    fn table(rows: usize, width: usize) -> Value {
        let column = json!({"type": "number", "minimum": 0});
        json!({
            "type": "array",
            "minItems": rows,
            "maxItems": rows,
            "items": {
                "type": "array",
                "minItems": width,
                "maxItems": width,
                "prefixItems": vec![column; width],
            },
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        /// A long array's candidates cost a bounded number of arrays of its length, counted in
        /// budget units: a length named twice (`minItems` = `maxItems`) is built once. And one
        /// of them is a value the schema admits, as the validators say.
        #[test]
        fn long_array_candidates_cost_a_bounded_number_of_arrays(
            rows in (LONG_ARRAY + 1)..1_500,
            width in 1usize..10,
        ) {
            let schema = table(rows, width);
            let budget = Budget::new(WORK_LIMIT);
            let candidates = candidates_within(&schema, &schema, &budget);
            let spent = WORK_LIMIT - budget.left();
            let largest = candidates.iter().map(json_size).max().unwrap_or(0) as u64;
            // One array holding the admitted rows and one of `rows + 1` (two arrays with one row
            // varied and three variants of each length before), each charged when built and
            // when its node keeps it, and the rows and stock values besides (a few kilobytes).
            // (A length named twice, as `minItems` and `maxItems`, used to build its arrays
            // twice.) The bound is the old one, eight arrays: a loose ceiling, not a target.
            prop_assert!(
                spent <= 18 * largest + 8 * 1024,
                "{spent} units for arrays of at most {largest} bytes"
            );
            let validator = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&schema)
                .expect("the schema compiles");
            prop_assert!(candidates.iter().any(|c| validator.is_valid(c)));
        }

        /// `smallest_size` is a lower bound: every candidate the validators say a schema admits
        /// is at least that large as compact JSON (the candidates sit on the schema's bounds,
        /// where the bound is tight).
        #[test]
        fn no_admitted_value_is_smaller_than_the_smallest_size(schema in small_schema()) {
            let validator = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&schema)
                .expect("the schema compiles");
            let smallest = smallest_size(&schema, 0);
            for candidate in candidates(&schema, &schema) {
                if validator.is_valid(&candidate) {
                    prop_assert!(
                        json_size(&candidate) >= smallest,
                        "{candidate} is smaller than {smallest} bytes, admitted by {schema}"
                    );
                }
            }
        }
    }

    /// Schemas of the keywords `smallest_size` reads, nested.
    fn small_schema() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            (0usize..4).prop_map(|min| json!({"type": "string", "minLength": min})),
            Just(json!({"type": "number"})),
            Just(json!({"type": ["integer", "null"]})),
            Just(json!({"enum": ["ab", 12, [1, 2]]})),
            Just(json!({"const": {"k": true}})),
            Just(json!({})),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                (
                    0usize..5,
                    proptest::collection::vec(inner.clone(), 1..3),
                    inner.clone()
                )
                    .prop_map(|(min, prefix, items)| json!({
                        "type": "array",
                        "minItems": min,
                        "prefixItems": prefix,
                        "items": items,
                    })),
                (
                    proptest::collection::vec(inner.clone(), 0..3),
                    any::<bool>()
                )
                    .prop_map(|(members, all_required)| {
                        let names: Vec<String> =
                            (0..members.len()).map(|i| format!("m{i}")).collect();
                        let required: Vec<&String> =
                            names.iter().filter(|_| all_required).collect();
                        json!({
                            "type": "object",
                            "properties": names.iter().cloned().zip(members).collect::<Map<_, _>>(),
                            "required": required,
                        })
                    }),
            ]
        })
    }

    #[test]
    fn lale_datasets_of_32724_rows_are_out_of_reach_and_16512_rows_are_not() {
        let table = |rows: usize, columns: usize| {
            json!({
                "type": "object",
                "required": ["X"],
                "properties": {"X": {
                    "type": "array",
                    "minItems": rows,
                    "items": {
                        "type": "array",
                        "minItems": columns,
                        "prefixItems": vec![json!({"type": "number"}); columns],
                    },
                }},
            })
        };
        // A row of 14 numbers is 29 bytes and its comma: 32,724 of them are 981,720 bytes, within
        // reach; of 105 numbers, 7 MB, not.
        assert!(out_of_reach(&table(32_724, 14), &json!({})).is_none());
        let why = out_of_reach(&table(32_724, 105), &json!({})).expect("out of reach");
        assert!(why.contains("#/properties/X"), "{why}");
        assert!(out_of_reach(&table(16_512, 8), &json!({})).is_none());
    }
}
