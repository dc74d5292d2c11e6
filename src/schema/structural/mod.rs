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
//!
//! This file holds the prover. [`admits`], the small evaluator the witness search and the
//! finite-source rule read (does a schema admit a value, for the modelled keywords), lives in
//! `evaluate`; the split of a source into cases against a target union and the [`disjoint`]
//! test live in `union`; the object keywords of a proof (members, patterns, names) live in
//! `objects`.

mod evaluate;
mod union;

pub(super) use evaluate::{MemberOrder, value_hash};
pub use evaluate::{admits, finite_root_values, first_rejected, is_evaluable};
pub use union::{disjoint, union_split_cases};

use union::{DISJOINT_WORK, MAX_SPLITS, apart, split};

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::pattern::{self, Inclusion};
use super::result::Side;
use super::walk::{is_annotation, resolve_local};

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

/// Two schema objects with no applicator left to unfold, compared keyword by keyword.
#[derive(Clone, Copy)]
struct FlatPair<'a> {
    s: Node<'a>,
    so: &'a Map<String, Value>,
    t: Node<'a>,
    to: &'a Map<String, Value>,
}

/// A target `anyOf` (`exclusive`: `oneOf`) of `branches`, at `pointer` in the document `root`.
#[derive(Clone, Copy)]
struct TargetUnion<'a> {
    root: &'a Value,
    pointer: &'a str,
    branches: &'a [Value],
    exclusive: bool,
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

// Declared after `child!`, which it uses.
mod objects;

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

/// A keyword whose value is an array of subschemas (`prefixItems`), empty when absent.
fn subschema_list<'a>(object: &'a Map<String, Value>, keyword: &str) -> &'a [Value] {
    object
        .field(keyword)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A keyword whose value maps names to subschemas (`properties`, `patternProperties`), empty
/// when absent.
fn subschema_map<'a>(object: &'a Map<String, Value>, keyword: &str) -> &'a Map<String, Value> {
    static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    object
        .field(keyword)
        .and_then(Value::as_object)
        .unwrap_or(&EMPTY)
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
            return self.sub_rest(s, t, Side::Source, rest, steps, "$ref");
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
                && self.sub_rest(s, t, Side::Target, rest, steps, "$ref");
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
            }) && self.sub_rest(s, t, Side::Target, rest, steps, "allOf");
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
        // A finite source against a target union: no one branch need contain it (each value
        // may match another branch), so each value is evaluated against the whole target, which
        // for `oneOf` counts that exactly one branch matches.
        if (to.contains_key("anyOf") || to.contains_key("oneOf"))
            && let Some(values) = finite_values(so)
            && first_rejected(values, t.schema).is_none()
        {
            return true;
        }
        // Target unions: see `union_cases`. The target's other keywords are a conjunction
        // beside the union, so they must hold of the source as well.
        for (keyword, exclusive) in [("anyOf", false), ("oneOf", true)] {
            if let Some(Value::Array(branches)) = to.field(keyword) {
                let rest = without(to, keyword);
                let pointer = child!(track, "{}/{keyword}", t.pointer);
                let union = TargetUnion {
                    root: t.root,
                    pointer: &pointer,
                    branches,
                    exclusive,
                };
                return self.union_cases(s, so, &union, steps, MAX_SPLITS)
                    && self.sub_rest(s, t, Side::Target, rest, steps, keyword);
            }
        }
        self.flat(FlatPair { s, so, t, to }, steps)
    }

    /// Source ⊆ `anyOf`/`oneOf` of `branches` (`exclusive`: `oneOf`). One branch containing
    /// the whole source suffices for `anyOf`; for `oneOf` the source must besides be provably
    /// disjoint from every other branch, so that each of its values matches exactly one. Failing
    /// that, the source is split into cases whose union is the source — by `type`, by the
    /// `const`/`enum` values of a property, by the presence of a `required` name — and each case
    /// must be contained on its own (possibly in a different branch). Splits nest at most
    /// [`MAX_SPLITS`] deep and every case is a comparison of the budget.
    fn union_cases(
        &mut self,
        s: Node<'_>,
        so: &Map<String, Value>,
        union: &TargetUnion<'_>,
        steps: usize,
        splits: usize,
    ) -> bool {
        let TargetUnion {
            root: t_root,
            pointer: t_pointer,
            branches,
            exclusive,
        } = *union;
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
            self.union_cases(node, case_object, union, steps, splits - 1)
        })
    }

    /// Compare with one side replaced by what is left of it after `keyword` was taken apart.
    fn sub_rest(
        &mut self,
        s: Node<'_>,
        t: Node<'_>,
        side: Side,
        rest: Map<String, Value>,
        steps: usize,
        keyword: &str,
    ) -> bool {
        let owner = match side {
            Side::Source => s,
            Side::Target => t,
        };
        let rest = Value::Object(rest);
        let pointer = child!(self.track, "{}/-{keyword}", owner.pointer);
        let node = Node {
            root: owner.root,
            schema: &rest,
            pointer: &pointer,
        };
        match side {
            Side::Source => self.sub(node, t, steps),
            Side::Target => self.sub(s, node, steps),
        }
    }

    /// Both sides are flat keyword sets: compare type by type, keyword by keyword.
    fn flat(&mut self, pair: FlatPair<'_>, steps: usize) -> bool {
        let FlatPair { so, t, to, .. } = pair;
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
        if admits("string") && !strings_contained(so, to) {
            return false;
        }
        if admits("array") && !self.arrays(pair, steps) {
            return false;
        }
        if admits("object") && !self.objects(pair, steps) {
            return false;
        }
        true
    }

    fn arrays(&mut self, pair: FlatPair<'_>, steps: usize) -> bool {
        let FlatPair { s, so, t, to } = pair;
        let track = self.track;
        if !bound_implied(so, to, "minItems", true) || !bound_implied(so, to, "maxItems", false) {
            return false;
        }
        let sp = subschema_list(so, "prefixItems");
        let tp = subschema_list(to, "prefixItems");
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
        // A source array never has an item at or past its `maxItems`: those positions (the
        // last index stands for every position from it on) hold nothing to compare.
        let source_max = number(so, "maxItems");
        for index in 0..=positions {
            if source_max.is_some_and(|max| index as f64 >= max) {
                break;
            }
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
}

/// Whether every string the source admits meets the target's `minLength`, `maxLength` and
/// `pattern`: the bounds by comparison, and else — two different patterns, or a pattern that
/// implies a length — by the automata ([`pattern::inclusion_within`]), which decide the
/// inclusion of the regular languages within the source's and the target's length bounds.
fn strings_contained(so: &Map<String, Value>, to: &Map<String, Value>) -> bool {
    let bounds_implied =
        bound_implied(so, to, "minLength", true) && bound_implied(so, to, "maxLength", false);
    let target_pattern = to.field("pattern");
    let same_pattern = target_pattern.is_none() || so.field("pattern") == target_pattern;
    if bounds_implied && same_pattern {
        return true;
    }
    let text = |schema: &Map<String, Value>| match schema.field("pattern") {
        None => Ok(None),
        Some(Value::String(p)) => Ok(Some(p.clone())),
        Some(_) => Err(()),
    };
    let (Ok(source_pattern), Ok(target_pattern)) = (text(so), text(to)) else {
        return false;
    };
    // Bounds that are not whole numbers are left to the comparison above.
    let lengths = |schema: &Map<String, Value>| -> Option<pattern::Lengths> {
        let bound = |keyword: &str| match schema.field(keyword) {
            None => Some(None),
            Some(value) => value.as_u64().map(Some),
        };
        Some(pattern::Lengths::new(
            bound("minLength")?.unwrap_or(0),
            bound("maxLength")?,
        ))
    };
    // Bounds the source's imply are no part of the question (and a large one would only make
    // the search give up).
    let target_lengths = if bounds_implied {
        Some(pattern::Lengths::default())
    } else {
        lengths(to)
    };
    let (Some(source_lengths), Some(target_lengths)) = (lengths(so), target_lengths) else {
        return false;
    };
    pattern::inclusion_within(
        source_pattern.as_deref(),
        source_lengths,
        target_pattern.as_deref(),
        target_lengths,
    ) == Inclusion::Included
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

/// The names a schema object lists in `required` (what is not a string is passed over).
fn required_names(object: &Map<String, Value>) -> impl Iterator<Item = &str> {
    object
        .field("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
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
