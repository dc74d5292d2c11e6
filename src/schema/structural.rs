//! A structural, co-inductive containment prover for the part of Draft 2020-12 the canonical
//! algebra leaves undecided: two documents whose local `$ref`s recurse (trees, linked lists)
//! compared against each other. It walks both schemas keyword by keyword and answers `true` only
//! when every rule it applies is a sufficient condition for source ⊆ target; anything it does not
//! model makes it answer `false` ("not proven"), never a guess.
//!
//! Recursion is handled co-inductively: a pair of subschemas already under comparison is assumed
//! contained when it is met again — but only after the walk has stepped into a child value
//! (`properties`, `items`, `prefixItems`, `additionalProperties`) since it was assumed. JSON
//! values are finite, so that assumption is discharged by induction on the depth of the value;
//! a cycle through `$ref`/`allOf` alone never steps into a child and is not assumed.
//!
//! A target union is met by one branch containing the source, or else by splitting the source
//! into cases that make it up exactly (by `type`, by the `const`/`enum` values of a property, by
//! the presence of a required name) and placing each case on its own. For `oneOf` the branch
//! that contains a case must be the only one that can admit its values: [`disjoint`], a
//! sufficient test of disjointness, must hold against every other branch.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::pattern::{self, Inclusion};
use super::walk::{escape_token, is_annotation, resolve_local};

/// Keywords the prover understands on a schema object (besides annotations and `$defs`).
const MODELLED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "pattern",
    "$ref",
    "allOf",
    "anyOf",
    "oneOf",
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "$anchor",
    "enum",
    "const",
    "propertyNames",
    "patternProperties",
];

/// How many pair comparisons one proof may take.
const BUDGET: usize = 2_000;
/// How deeply comparisons may nest (past it: not proven).
const MAX_PROOF_DEPTH: usize = 200;

const TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "string", "number", "integer",
];

/// A schema node inside its document, with its pointer there (the identity for assumptions).
#[derive(Clone, Copy)]
struct Node<'a> {
    root: &'a Value,
    schema: &'a Value,
    pointer: &'a str,
}

struct Prover {
    /// Pairs under comparison, with the number of child steps taken when each was assumed.
    assumed: HashMap<(String, String), usize>,
    budget: usize,
    /// What is left of the work [`disjoint`] may do within this proof.
    disjoint_work: usize,
    /// How many comparisons are nested now: bounded, so a proof cannot overflow the stack.
    depth: usize,
    /// Whether either document refers (`$ref`): only then can the walk meet a pair again, so
    /// only then are pointers built and pairs assumed. Most real schemas do not refer, and the
    /// walk over them allocates nothing.
    track: bool,
}

/// A child pointer when pointers are tracked, else an empty string (which allocates nothing).
macro_rules! child {
    ($track:expr, $($format:tt)*) => {
        if $track { format!($($format)*) } else { String::new() }
    };
}

/// Whether a document holds a `$ref` or `$dynamicRef` anywhere.
fn refers(value: &Value) -> bool {
    match value {
        Value::Object(object) => object
            .iter()
            .any(|(key, member)| key == "$ref" || key == "$dynamicRef" || refers(member)),
        Value::Array(items) => items.iter().any(refers),
        _ => false,
    }
}

/// Whether every value `source` admits is admitted by `target`, proven structurally. `false`
/// means "not proven", not "incompatible".
pub fn proves_contained(source: &Value, target: &Value) -> bool {
    let mut prover = Prover {
        assumed: HashMap::new(),
        budget: BUDGET,
        disjoint_work: DISJOINT_WORK,
        depth: 0,
        track: refers(source) || refers(target),
    };
    let s = Node {
        root: source,
        schema: source,
        pointer: "",
    };
    let t = Node {
        root: target,
        schema: target,
        pointer: "",
    };
    prover.sub(s, t, 0)
}

pub fn is_trivially_true(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(object) => object
            .keys()
            .all(|k| is_annotation(k) || k == "$defs" || k == "definitions" || k == "$schema"),
        _ => false,
    }
}

fn is_false(schema: &Value) -> bool {
    matches!(schema, Value::Bool(false))
}

fn is_modelled(object: &Map<String, Value>) -> bool {
    object
        .keys()
        .all(|k| is_annotation(k) || MODELLED.contains(&k.as_str()))
}

/// A set of JSON type names, as bits in the order of [`TYPES`].
#[derive(Clone, Copy, PartialEq, Eq)]
struct TypeSet(u8);

impl TypeSet {
    fn bit(ty: &str) -> u8 {
        TYPES.iter().position(|t| *t == ty).map_or(0, |i| 1 << i)
    }

    fn contains(&self, ty: &&str) -> bool {
        self.0 & Self::bit(ty) != 0
    }

    fn iter(self) -> impl Iterator<Item = &'static str> {
        TYPES
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, ty)| ty)
    }
}

/// The JSON types `object` admits (`None`: it has no `type`, so all of them). Allocation-free:
/// this runs at every step of every proof.
fn admitted_types(object: &Map<String, Value>) -> Option<TypeSet> {
    let mut bits = match object.field("type")? {
        Value::String(ty) => TypeSet::bit(ty),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .fold(0, |bits, ty| bits | TypeSet::bit(ty)),
        _ => 0,
    };
    if bits & TypeSet::bit("number") != 0 {
        bits |= TypeSet::bit("integer");
    }
    Some(TypeSet(bits))
}

/// Keyword lookup on a schema object. serde_json's ordered map hashes every key with SipHash;
/// schema objects hold a handful of keywords, where comparing them in turn is cheaper.
trait Field {
    fn field(&self, keyword: &str) -> Option<&Value>;
}

impl Field for Map<String, Value> {
    #[inline]
    fn field(&self, keyword: &str) -> Option<&Value> {
        if self.len() <= 12 {
            self.iter().find(|(k, _)| *k == keyword).map(|(_, v)| v)
        } else {
            self.get(keyword)
        }
    }
}

fn number(object: &Map<String, Value>, keyword: &str) -> Option<f64> {
    object.field(keyword).and_then(Value::as_f64)
}

impl Prover {
    fn sub(&mut self, s: Node<'_>, t: Node<'_>, steps: usize) -> bool {
        if self.budget == 0 || self.depth >= MAX_PROOF_DEPTH {
            return false;
        }
        self.budget -= 1;
        self.depth += 1;
        let proven = self.sub_counted(s, t, steps);
        self.depth -= 1;
        proven
    }

    fn sub_counted(&mut self, s: Node<'_>, t: Node<'_>, steps: usize) -> bool {
        if is_false(s.schema) || is_trivially_true(t.schema) {
            return true;
        }
        if is_false(t.schema) {
            return false;
        }
        if std::ptr::eq(s.root, t.root) && std::ptr::eq(s.schema, t.schema) {
            return true;
        }
        if !self.track {
            return self.sub_unfolded(s, t, steps);
        }
        let key = (s.pointer.to_string(), t.pointer.to_string());
        if let Some(&assumed_at) = self.assumed.get(&key) {
            // Met again after stepping into a child value: the induction hypothesis applies.
            return steps > assumed_at;
        }
        self.assumed.insert(key.clone(), steps);
        let proven = self.sub_unfolded(s, t, steps);
        self.assumed.remove(&key);
        proven
    }

    fn sub_unfolded(&mut self, s: Node<'_>, t: Node<'_>, steps: usize) -> bool {
        let track = self.track;
        let (Value::Object(so), Value::Object(to)) = (s.schema, t.schema) else {
            // `true` as the source against a non-trivial target is not proven.
            return false;
        };
        if !is_modelled(so) || !is_modelled(to) {
            return false;
        }
        // A `$ref` beside other keywords is the conjunction of its target and the rest.
        if let Some(reference) = so.field("$ref").and_then(Value::as_str) {
            let Some(target) = resolve_local(s.root, reference) else {
                return false;
            };
            let pointer = reference.trim_start_matches('#').to_string();
            let rest = without(so, "$ref");
            let referenced = Node {
                root: s.root,
                schema: target,
                pointer: &(pointer),
            };
            if self.sub(referenced, t, steps) {
                return true;
            }
            return self.sub_rest(s, rest, t, steps, "$ref");
        }
        if let Some(reference) = to.field("$ref").and_then(Value::as_str) {
            let Some(target) = resolve_local(t.root, reference) else {
                return false;
            };
            let pointer = reference.trim_start_matches('#').to_string();
            let referenced = Node {
                root: t.root,
                schema: target,
                pointer: &(pointer),
            };
            let rest = without(to, "$ref");
            return self.sub(s, referenced, steps)
                && self.sub_target_rest(s, t, rest, steps, "$ref");
        }
        // Source unions: every branch must be contained (oneOf admits no more than anyOf).
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = so.field(keyword) {
                let rest = without(so, keyword);
                return branches.iter().enumerate().all(|(index, branch)| {
                    let pointer = child!(track, "{}/{keyword}/{index}", s.pointer);
                    let Some(merged) = &conjoin(&rest, branch) else {
                        return false;
                    };
                    let node = Node {
                        root: s.root,
                        schema: merged,
                        pointer: &(child!(track, "{pointer}&")),
                    };
                    self.sub(node, t, steps)
                });
            }
        }
        // Target intersections: the source must be contained in every part.
        if let Some(Value::Array(parts)) = to.field("allOf") {
            let rest = without(to, "allOf");
            return parts.iter().enumerate().all(|(index, part)| {
                let node = Node {
                    root: t.root,
                    schema: part,
                    pointer: &(child!(track, "{}/allOf/{index}", t.pointer)),
                };
                self.sub(s, node, steps)
            }) && self.sub_target_rest(s, t, rest, steps, "allOf");
        }
        // Source intersections: the merged whole contained suffices, when the parts merge
        // without a clash; otherwise one part contained suffices.
        if let Some(Value::Array(parts)) = so.field("allOf") {
            let rest = without(so, "allOf");
            let mut merged = Some(Value::Object(rest.clone()));
            for part in parts {
                merged = merged.and_then(|m| conjoin_values(&m, part));
            }
            if let Some(merged) = &merged {
                let node = Node {
                    root: s.root,
                    schema: merged,
                    pointer: &child!(track, "{}/allOf&", s.pointer),
                };
                return self.sub(node, t, steps);
            }
            let rest = Value::Object(rest);
            return std::iter::once(&rest)
                .chain(parts)
                .enumerate()
                .any(|(index, part)| {
                    let node = Node {
                        root: s.root,
                        schema: part,
                        pointer: &child!(track, "{}/allOf/{index}-", s.pointer),
                    };
                    self.sub(node, t, steps)
                });
        }
        // Target unions: see `union_target`. The target's other keywords are a conjunction
        // beside the union, so they must hold of the source as well.
        for (keyword, exclusive) in [("anyOf", false), ("oneOf", true)] {
            if let Some(Value::Array(branches)) = to.field(keyword) {
                let rest = without(to, keyword);
                let pointer = child!(track, "{}/{keyword}", t.pointer);
                return self.union_target(s, so, t.root, &pointer, branches, exclusive, steps)
                    && self.sub_target_rest(s, t, rest, steps, keyword);
            }
        }
        self.flat(s, so, t, to, steps)
    }

    /// Source ⊆ `anyOf`/`oneOf` of `branches` (`exclusive`: `oneOf`). One branch containing
    /// the whole source suffices for `anyOf`; for `oneOf` the source must besides be provably
    /// disjoint from every other branch, so that each of its values matches exactly one. Failing
    /// that, the source is split into cases whose union is the source — by `type`, by the
    /// `const`/`enum` values of a property, by the presence of a `required` name — and each case
    /// must be contained on its own (possibly in a different branch). Splits nest at most
    /// [`MAX_SPLITS`] deep and every case is a comparison of the budget.
    #[allow(clippy::too_many_arguments)]
    fn union_target(
        &mut self,
        s: Node<'_>,
        so: &Map<String, Value>,
        t_root: &Value,
        t_pointer: &str,
        branches: &[Value],
        exclusive: bool,
        steps: usize,
    ) -> bool {
        self.union_cases(
            s, so, t_root, t_pointer, branches, exclusive, steps, MAX_SPLITS,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn union_cases(
        &mut self,
        s: Node<'_>,
        so: &Map<String, Value>,
        t_root: &Value,
        t_pointer: &str,
        branches: &[Value],
        exclusive: bool,
        steps: usize,
        splits: usize,
    ) -> bool {
        let track = self.track;
        for (index, branch) in branches.iter().enumerate() {
            let node = Node {
                root: t_root,
                schema: branch,
                pointer: &(child!(track, "{t_pointer}/{index}")),
            };
            if !self.sub(s, node, steps) {
                continue;
            }
            if !exclusive
                || branches.iter().enumerate().all(|(other, branch)| {
                    other == index
                        || apart(s.root, s.schema, t_root, branch, 0, &mut self.disjoint_work)
                })
            {
                return true;
            }
        }
        if splits == 0 || self.budget == 0 {
            return false;
        }
        let Some((label, cases)) = split(so, branches) else {
            return false;
        };
        cases.iter().enumerate().all(|(index, case)| {
            let Value::Object(case_object) = case else {
                return true;
            };
            let node = Node {
                root: s.root,
                schema: case,
                pointer: &(child!(track, "{}/~case:{label}:{index}", s.pointer)),
            };
            self.union_cases(
                node,
                case_object,
                t_root,
                t_pointer,
                branches,
                exclusive,
                steps,
                splits - 1,
            )
        })
    }

    fn sub_rest(
        &mut self,
        s: Node<'_>,
        rest: Map<String, Value>,
        t: Node<'_>,
        steps: usize,
        keyword: &str,
    ) -> bool {
        let track = self.track;
        let node = Node {
            root: s.root,
            schema: (&Value::Object(rest)),
            pointer: &(child!(track, "{}/-{keyword}", s.pointer)),
        };
        self.sub(node, t, steps)
    }

    fn sub_target_rest(
        &mut self,
        s: Node<'_>,
        t: Node<'_>,
        rest: Map<String, Value>,
        steps: usize,
        keyword: &str,
    ) -> bool {
        let track = self.track;
        let node = Node {
            root: t.root,
            schema: (&Value::Object(rest)),
            pointer: &(child!(track, "{}/-{keyword}", t.pointer)),
        };
        self.sub(s, node, steps)
    }

    /// Both sides are flat keyword sets: compare type by type, keyword by keyword.
    fn flat(
        &mut self,
        s: Node<'_>,
        so: &Map<String, Value>,
        t: Node<'_>,
        to: &Map<String, Value>,
        steps: usize,
    ) -> bool {
        // A finite source (`const`, `enum`) is contained when each of its values is admitted:
        // the source admits at most those values, whatever its other keywords say.
        if let Some(values) = finite_values(so) {
            return first_rejected(values, t.schema).is_none();
        }
        // A finite target against an infinite source is not proven.
        if to.contains_key("enum") || to.contains_key("const") {
            return false;
        }
        let source_types = admitted_types(so);
        let target_types = admitted_types(to);
        let admits = |ty: &str| {
            source_types
                .as_ref()
                .is_none_or(|types| types.contains(&ty))
        };
        if let Some(target_types) = &target_types {
            let Some(source_types) = &source_types else {
                return false;
            };
            for ty in source_types.iter() {
                let ok = target_types.contains(&ty)
                    || (ty == "integer" && target_types.contains(&"number"));
                if !ok {
                    return false;
                }
            }
            if target_types.contains(&"integer")
                && !target_types.contains(&"number")
                && source_types.contains(&"number")
            {
                return false;
            }
        }
        let numeric = admits("number") || admits("integer");
        if numeric && !numbers_contained(so, to, !admits("number")) {
            return false;
        }
        if admits("string") {
            if !bound_implied(so, to, "minLength", true)
                || !bound_implied(so, to, "maxLength", false)
            {
                return false;
            }
            if let Some(pattern) = to.field("pattern")
                && so.field("pattern") != Some(pattern)
            {
                // Two different patterns: inclusion of the regular languages, decided by
                // automata within the source's length bounds.
                let source_pattern = match so.field("pattern") {
                    None => None,
                    Some(Value::String(p)) => Some(p.as_str()),
                    Some(_) => return false,
                };
                let Some(target_pattern) = pattern.as_str() else {
                    return false;
                };
                let min = so.field("minLength").and_then(Value::as_u64).unwrap_or(0);
                let max = so.field("maxLength").and_then(Value::as_u64);
                if pattern::inclusion(source_pattern, Some(target_pattern), min, max)
                    != Inclusion::Included
                {
                    return false;
                }
            }
        }
        if admits("array") && !self.arrays(s, so, t, to, steps) {
            return false;
        }
        if admits("object") && !self.objects(s, so, t, to, steps) {
            return false;
        }
        true
    }

    fn arrays(
        &mut self,
        s: Node<'_>,
        so: &Map<String, Value>,
        t: Node<'_>,
        to: &Map<String, Value>,
        steps: usize,
    ) -> bool {
        let track = self.track;
        if !bound_implied(so, to, "minItems", true) || !bound_implied(so, to, "maxItems", false) {
            return false;
        }
        let empty = Vec::new();
        let sp = so
            .field("prefixItems")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        let tp = to
            .field("prefixItems")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        let positions = sp.len().max(tp.len());
        let source_at = |index: usize| {
            if let Some(schema) = sp.get(index) {
                return Some((schema, child!(track, "{}/prefixItems/{index}", s.pointer)));
            }
            so.field("items")
                .map(|schema| (schema, child!(track, "{}/items", s.pointer)))
        };
        let target_at = |index: usize| {
            if let Some(schema) = tp.get(index) {
                return Some((schema, child!(track, "{}/prefixItems/{index}", t.pointer)));
            }
            to.field("items")
                .map(|schema| (schema, child!(track, "{}/items", t.pointer)))
        };
        for index in 0..=positions {
            let Some((target_schema, target_pointer)) = target_at(index) else {
                continue;
            };
            let (source_schema, source_pointer) =
                source_at(index).unwrap_or((&TRUE, child!(track, "{}/*", s.pointer)));
            let sn = Node {
                root: s.root,
                schema: source_schema,
                pointer: &(source_pointer),
            };
            let tn = Node {
                root: t.root,
                schema: target_schema,
                pointer: &(target_pointer),
            };
            if !self.sub(sn, tn, steps + 1) {
                return false;
            }
        }
        true
    }

    fn objects(
        &mut self,
        s: Node<'_>,
        so: &Map<String, Value>,
        t: Node<'_>,
        to: &Map<String, Value>,
        steps: usize,
    ) -> bool {
        let track = self.track;
        fn names(object: &Map<String, Value>) -> impl Iterator<Item = &str> {
            object
                .field("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
        }
        if !names(to).all(|name| names(so).any(|required| required == name)) {
            return false;
        }
        let required_count = names(so).count() as f64;
        let min_ok = match number(to, "minProperties") {
            None => true,
            Some(min) => {
                number(so, "minProperties")
                    .unwrap_or(0.0)
                    .max(required_count)
                    >= min
            }
        };
        if !min_ok || !bound_implied(so, to, "maxProperties", false) {
            return false;
        }
        let empty = Map::new();
        let sprops = so
            .field("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let tprops = to
            .field("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let spatterns = so
            .field("patternProperties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let tpatterns = to
            .field("patternProperties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let source_rest = match so.field("additionalProperties") {
            Some(schema) => (schema, child!(track, "{}/additionalProperties", s.pointer)),
            None => (&TRUE, child!(track, "{}/*", s.pointer)),
        };
        // The source schema of member `name` (an over-approximation, which is what a proof of
        // containment may use): its property, else one pattern it matches, else the rest.
        // `None` when whether a pattern matches the name cannot be decided.
        let source_for = |name: &str| -> Option<(&Value, String)> {
            if let Some(schema) = sprops.get(name) {
                return Some((
                    schema,
                    child!(track, "{}/properties/{}", s.pointer, escape_token(name)),
                ));
            }
            for (source_pattern, schema) in spatterns {
                if pattern::matches(source_pattern, name)? {
                    return Some((
                        schema,
                        child!(
                            track,
                            "{}/patternProperties/{}",
                            s.pointer,
                            escape_token(source_pattern)
                        ),
                    ));
                }
            }
            Some(source_rest.clone())
        };
        let mut pairs: Vec<(&Value, String, &Value, String)> = Vec::new();
        // Every property the target names.
        for (name, target_schema) in tprops {
            let Some((source_schema, source_pointer)) = source_for(name) else {
                return false;
            };
            let target_pointer = child!(track, "{}/properties/{}", t.pointer, escape_token(name));
            pairs.push((source_schema, source_pointer, target_schema, target_pointer));
        }
        // Every target pattern, against each source member it may apply to.
        for (target_pattern, target_schema) in tpatterns {
            let target_pointer = child!(
                track,
                "{}/patternProperties/{}",
                t.pointer,
                escape_token(target_pattern)
            );
            for name in sprops.keys().chain(tprops.keys()) {
                match pattern::matches(target_pattern, name) {
                    Some(false) => continue,
                    Some(true) => {}
                    None => return false,
                }
                let Some((source_schema, source_pointer)) = source_for(name) else {
                    return false;
                };
                pairs.push((
                    source_schema,
                    source_pointer,
                    target_schema,
                    target_pointer.clone(),
                ));
            }
            // Members matched by a source pattern, or by none (the rest): conservatively, as if
            // every one of them matched the target pattern.
            for (source_pattern, source_schema) in spatterns {
                let source_pointer = child!(
                    track,
                    "{}/patternProperties/{}",
                    s.pointer,
                    escape_token(source_pattern)
                );
                pairs.push((
                    source_schema,
                    source_pointer,
                    target_schema,
                    target_pointer.clone(),
                ));
            }
            pairs.push((
                source_rest.0,
                source_rest.1.clone(),
                target_schema,
                target_pointer,
            ));
        }
        // Every member the target leaves to its `additionalProperties`.
        if let Some(target_additional) = to.field("additionalProperties") {
            let additional_pointer = child!(track, "{}/additionalProperties", t.pointer);
            let covered_by_target_pattern = |name: &str| -> Option<bool> {
                for target_pattern in tpatterns.keys() {
                    if pattern::matches(target_pattern, name)? {
                        return Some(true);
                    }
                }
                Some(false)
            };
            for (name, source_schema) in sprops {
                if tprops.contains_key(name) {
                    continue;
                }
                match covered_by_target_pattern(name) {
                    Some(true) => continue,
                    Some(false) => {}
                    None => return false,
                }
                let source_pointer =
                    child!(track, "{}/properties/{}", s.pointer, escape_token(name));
                pairs.push((
                    source_schema,
                    source_pointer,
                    target_additional,
                    additional_pointer.clone(),
                ));
            }
            for (source_pattern, source_schema) in spatterns {
                // Skipped only when one target pattern provably takes every name it matches.
                let taken = tpatterns.keys().any(|target_pattern| {
                    pattern::inclusion(Some(source_pattern), Some(target_pattern), 0, None)
                        == Inclusion::Included
                });
                if taken {
                    continue;
                }
                let source_pointer = child!(
                    track,
                    "{}/patternProperties/{}",
                    s.pointer,
                    escape_token(source_pattern)
                );
                pairs.push((
                    source_schema,
                    source_pointer,
                    target_additional,
                    additional_pointer.clone(),
                ));
            }
            pairs.push((
                source_rest.0,
                source_rest.1.clone(),
                target_additional,
                additional_pointer,
            ));
        }
        for (source_schema, source_pointer, target_schema, target_pointer) in &pairs {
            let sn = Node {
                root: s.root,
                schema: source_schema,
                pointer: source_pointer,
            };
            let tn = Node {
                root: t.root,
                schema: target_schema,
                pointer: target_pointer,
            };
            if !self.sub(sn, tn, steps + 1) {
                return false;
            }
        }
        if let Some(target_names) = to.field("propertyNames") {
            return self.property_names(s, so, t, target_names, steps);
        }
        true
    }

    /// Every member name the source admits satisfies the target's `propertyNames`.
    fn property_names(
        &mut self,
        s: Node<'_>,
        so: &Map<String, Value>,
        t: Node<'_>,
        target_names: &Value,
        steps: usize,
    ) -> bool {
        let track = self.track;
        let source_names = so.field("propertyNames").unwrap_or(&TRUE);
        let string = serde_json::json!({"type": "string"});
        let target_node = Node {
            root: t.root,
            schema: target_names,
            pointer: &child!(track, "{}/propertyNames", t.pointer),
        };
        if matches!(so.field("additionalProperties"), Some(Value::Bool(false))) {
            // The source's names are its properties and its patterns' languages.
            let empty = Map::new();
            let sprops = so
                .field("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            for name in sprops.keys() {
                let name = Value::String(name.clone());
                if admits(source_names, &name) == Some(false) {
                    continue;
                }
                if admits(target_names, &name) != Some(true) {
                    return false;
                }
            }
            let spatterns = so
                .field("patternProperties")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            for source_pattern in spatterns.keys() {
                let names = serde_json::json!({"type": "string", "pattern": source_pattern});
                let node = Node {
                    root: s.root,
                    schema: &names,
                    pointer: &child!(track, "{}/patternProperties/{}&", s.pointer, source_pattern),
                };
                if !self.sub(node, target_node, steps + 1) {
                    return false;
                }
            }
            return true;
        }
        let Some(names) = conjoin_values(&string, source_names) else {
            return false;
        };
        let node = Node {
            root: s.root,
            schema: &names,
            pointer: &child!(track, "{}/propertyNames&", s.pointer),
        };
        self.sub(node, target_node, steps + 1)
    }
}

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
                    index.entry(equality_hash(value)).or_default().push(value);
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
                    .get(&equality_hash(value))
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

/// A hash that agrees with [`json_equal`]: numbers by their `f64` value (so `1` and `1.0`
/// collide), object members in any order.
fn equality_hash(value: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    fn feed(value: &Value, state: &mut rustc_hash::FxHasher) {
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
                    feed(item, state);
                }
            }
            Value::Object(members) => {
                state.write_u8(6);
                state.write_usize(members.len());
                // Order-independent: the members' hashes summed.
                let mut sum = 0u64;
                for (key, member) in members {
                    let mut inner = rustc_hash::FxHasher::default();
                    key.hash(&mut inner);
                    feed(member, &mut inner);
                    sum = sum.wrapping_add(inner.finish());
                }
                state.write_u64(sum);
            }
        }
    }
    let mut state = rustc_hash::FxHasher::default();
    feed(value, &mut state);
    state.finish()
}

/// The values of a schema that is finite at its root (`const`, else `enum`).
pub fn finite_root_values(schema: &Value) -> Option<&[Value]> {
    finite_values(schema.as_object()?)
}

/// Whether the source's bound implies the target's (`lower`: a minimum, else a maximum).
fn bound_implied(
    so: &Map<String, Value>,
    to: &Map<String, Value>,
    keyword: &str,
    lower: bool,
) -> bool {
    match (number(so, keyword), number(to, keyword)) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(s), Some(t)) => {
            if lower {
                s >= t
            } else {
                s <= t
            }
        }
    }
}

/// Numeric keywords: the source's window and divisor imply the target's.
fn numbers_contained(
    so: &Map<String, Value>,
    to: &Map<String, Value>,
    integers_only: bool,
) -> bool {
    let lower = |o: &Map<String, Value>| -> Option<(f64, bool)> {
        match (number(o, "minimum"), number(o, "exclusiveMinimum")) {
            (Some(m), Some(e)) if e >= m => Some((e, true)),
            (Some(m), _) => Some((m, false)),
            (None, Some(e)) => Some((e, true)),
            (None, None) => None,
        }
    };
    let upper = |o: &Map<String, Value>| -> Option<(f64, bool)> {
        match (number(o, "maximum"), number(o, "exclusiveMaximum")) {
            (Some(m), Some(e)) if e <= m => Some((e, true)),
            (Some(m), _) => Some((m, false)),
            (None, Some(e)) => Some((e, true)),
            (None, None) => None,
        }
    };
    let lower_ok = match (lower(so), lower(to)) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some((s, s_ex)), Some((t, t_ex))) => s > t || (s == t && (s_ex || !t_ex)),
    };
    let upper_ok = match (upper(so), upper(to)) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some((s, s_ex)), Some((t, t_ex))) => s < t || (s == t && (s_ex || !t_ex)),
    };
    let multiple_ok = match (number(so, "multipleOf"), number(to, "multipleOf")) {
        (_, None) => true,
        (_, Some(t)) if t == 1.0 && integers_only => true,
        (None, Some(_)) => false,
        (Some(s), Some(t)) => {
            let ratio = s / t;
            t > 0.0 && ratio.is_finite() && ratio.fract() == 0.0 && ratio >= 1.0
        }
    };
    lower_ok && upper_ok && multiple_ok
}

fn without(object: &Map<String, Value>, keyword: &str) -> Map<String, Value> {
    let mut rest = object.clone();
    rest.remove(keyword);
    rest
}

/// The conjunction of a keyword set and a schema as one flat schema, or `None` when their
/// keywords clash (then the caller reasons part by part instead).
fn conjoin(rest: &Map<String, Value>, branch: &Value) -> Option<Value> {
    conjoin_values(&Value::Object(rest.clone()), branch)
}

fn conjoin_values(left: &Value, right: &Value) -> Option<Value> {
    Some(match (left, right) {
        (Value::Bool(true), other) | (other, Value::Bool(true)) => other.clone(),
        (Value::Bool(false), _) | (_, Value::Bool(false)) => Value::Bool(false),
        (Value::Object(l), Value::Object(r)) => {
            let meaningful = |o: &Map<String, Value>| o.keys().any(|k| !is_annotation(k));
            if !meaningful(l) {
                return Some(right.clone());
            }
            if !meaningful(r) {
                return Some(left.clone());
            }
            if l.keys().all(|k| !r.contains_key(k) || is_annotation(k)) {
                let mut merged = l.clone();
                merged.extend(r.iter().map(|(k, v)| (k.clone(), v.clone())));
                return Some(Value::Object(merged));
            }
            return None;
        }
        _ => Value::Bool(false),
    })
}

static TRUE: Value = Value::Bool(true);

/// The values of a finite schema: `const`, else `enum` (`None` when neither is there).
fn finite_values(object: &Map<String, Value>) -> Option<&[Value]> {
    if let Some(value) = object.field("const") {
        return Some(std::slice::from_ref(value));
    }
    object.field("enum")?.as_array().map(Vec::as_slice)
}

/// JSON Schema equality: numbers by value (`1` equals `1.0`), arrays and objects member-wise.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| json_equal(x, y)))
        }
        _ => a == b,
    }
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

/// How deeply the source is split into cases against a target union.
const MAX_SPLITS: usize = 3;
/// The most cases one split makes (a larger `enum` is not split).
const MAX_CASES: usize = 16;
/// The most cases [`union_split_cases`] hands to the witness search (each is a copy of the
/// source).
const MAX_WITNESS_CASES: usize = 64;
/// How deeply [`disjoint`] follows subschemas and `$ref`s.
const DISJOINT_DEPTH: usize = 16;
/// The work one disjointness question, or all of those of one proof, may take.
const DISJOINT_WORK: usize = 50_000;

fn required_names(object: &Map<String, Value>) -> impl Iterator<Item = &str> {
    object
        .field("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

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
fn split(so: &Map<String, Value>, branches: &[Value]) -> Option<(String, Vec<Value>)> {
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
fn apart(
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
