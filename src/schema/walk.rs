//! The Draft 2020-12 vocabulary as this checker reads it: which keywords hold subschemas, which
//! are annotations that never change what a schema admits, and a walk over every subschema of a
//! document that finds keywords outside that vocabulary and `$ref`s that do not resolve locally.

use serde_json::{Map, Value};

/// What a keyword's value is to this checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// One subschema (`items`, `not`).
    Subschema,
    /// An array of subschemas (`allOf`, `prefixItems`).
    SubschemaArray,
    /// An object of subschemas (`properties`, `$defs`).
    SubschemaMap,
    /// Data, not a subschema: an assertion or a core keyword (`type`, `enum`, `$ref`).
    Value,
    /// An annotation, which never changes which values a schema admits. `format` is one under
    /// Draft 2020-12's default format-annotation vocabulary (so is every `x-` extension, which
    /// [`is_annotation`] adds).
    Annotation,
}

/// Every keyword of Draft 2020-12 (core, applicator, validation, meta-data, format, content and
/// unevaluated vocabularies) with its role, in the order [`suspected_typo`] tries them (the
/// first of two equally near keywords is the one suggested).
const VOCABULARY: &[(&str, Role)] = &[
    ("$schema", Role::Value),
    ("$id", Role::Value),
    ("$ref", Role::Value),
    ("$anchor", Role::Value),
    ("$dynamicRef", Role::Value),
    ("$dynamicAnchor", Role::Value),
    ("$vocabulary", Role::Value),
    ("$comment", Role::Annotation),
    ("$defs", Role::SubschemaMap),
    ("allOf", Role::SubschemaArray),
    ("anyOf", Role::SubschemaArray),
    ("oneOf", Role::SubschemaArray),
    ("not", Role::Subschema),
    ("if", Role::Subschema),
    ("then", Role::Subschema),
    ("else", Role::Subschema),
    ("dependentSchemas", Role::SubschemaMap),
    ("prefixItems", Role::SubschemaArray),
    ("items", Role::Subschema),
    ("contains", Role::Subschema),
    ("properties", Role::SubschemaMap),
    ("patternProperties", Role::SubschemaMap),
    ("additionalProperties", Role::Subschema),
    ("propertyNames", Role::Subschema),
    ("unevaluatedItems", Role::Subschema),
    ("unevaluatedProperties", Role::Subschema),
    ("type", Role::Value),
    ("enum", Role::Value),
    ("const", Role::Value),
    ("multipleOf", Role::Value),
    ("maximum", Role::Value),
    ("exclusiveMaximum", Role::Value),
    ("minimum", Role::Value),
    ("exclusiveMinimum", Role::Value),
    ("maxLength", Role::Value),
    ("minLength", Role::Value),
    ("pattern", Role::Value),
    ("maxItems", Role::Value),
    ("minItems", Role::Value),
    ("uniqueItems", Role::Value),
    ("maxContains", Role::Value),
    ("minContains", Role::Value),
    ("maxProperties", Role::Value),
    ("minProperties", Role::Value),
    ("required", Role::Value),
    ("dependentRequired", Role::Value),
    ("title", Role::Annotation),
    ("description", Role::Annotation),
    ("default", Role::Annotation),
    ("deprecated", Role::Annotation),
    ("readOnly", Role::Annotation),
    ("writeOnly", Role::Annotation),
    ("examples", Role::Annotation),
    ("format", Role::Annotation),
    ("contentEncoding", Role::Value),
    ("contentMediaType", Role::Value),
    ("contentSchema", Role::Subschema),
    ("definitions", Role::SubschemaMap),
];

/// The role of a Draft 2020-12 keyword; `None` outside the vocabulary.
fn role(keyword: &str) -> Option<Role> {
    static ROLES: std::sync::LazyLock<rustc_hash::FxHashMap<&'static str, Role>> =
        std::sync::LazyLock::new(|| VOCABULARY.iter().copied().collect());
    ROLES.get(keyword).copied()
}

/// Whether `keyword` is an annotation (it never affects a verdict): a listed annotation, an
/// `x-` extension, or any keyword outside the Draft 2020-12 vocabulary that is not a likely typo
/// of one ([`suspected_typo`]). Draft 2020-12 treats unknown keywords as annotations, and the
/// validators replay uses ignore them, so the checker decides as if they were absent.
pub fn is_annotation(keyword: &str) -> bool {
    role(keyword) == Some(Role::Annotation)
        || keyword.starts_with("x-")
        || (!is_vocabulary(keyword) && suspected_typo(keyword).is_none())
}

/// Whether `keyword` is a Draft 2020-12 keyword this checker reads (assertions, applicators,
/// core keywords and the listed annotations).
pub fn is_vocabulary(keyword: &str) -> bool {
    role(keyword).is_some()
}

/// Whether `keyword` is part of the vocabulary this checker knows, or an annotation by the rule
/// of [`is_annotation`]: everything but a suspected typo.
pub fn is_known(keyword: &str) -> bool {
    is_vocabulary(keyword) || is_annotation(keyword)
}

/// The Draft 2020-12 keyword that `keyword` (not itself one) is probably a misspelling of: equal
/// but for letter case or surrounding punctuation (`multipleOF`, `maxItems:`), or within a small
/// edit distance (1 for keywords up to 5 letters, 2 beyond; `maxLen`, `minimumLength` is not).
/// Such a keyword would silently validate nothing, so the checker answers unknown for it rather
/// than ignoring it as an annotation.
pub fn suspected_typo(keyword: &str) -> Option<&'static str> {
    if keyword.starts_with("x-") || is_vocabulary(keyword) {
        return None;
    }
    let trimmed = keyword.trim_matches(|c: char| !c.is_alphanumeric() && c != '$');
    let mut best: Option<(usize, &'static str)> = None;
    for &(real, _) in VOCABULARY {
        if trimmed.eq_ignore_ascii_case(real) || real.strip_prefix('$') == Some(trimmed) {
            return Some(real);
        }
        let allowed = if real.len() <= 5 { 1 } else { 2 };
        // Prefixes of a keyword (`maxLen`) are typos too, when they keep most of it.
        let prefix = real.len() > trimmed.len()
            && trimmed.len() >= 5
            && real
                .to_ascii_lowercase()
                .starts_with(&trimmed.to_ascii_lowercase());
        let distance = if prefix {
            1
        } else if trimmed.len().abs_diff(real.len()) > allowed {
            continue;
        } else {
            crate::diagnostic::suggest::edit_distance_within(
                &trimmed.to_ascii_lowercase(),
                &real.to_ascii_lowercase(),
                allowed,
            )
            .unwrap_or(allowed + 1)
        };
        if distance <= allowed && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, real));
        }
    }
    best.map(|(_, real)| real)
}

/// The keywords of `root` ignored as annotations because they are outside the vocabulary (not
/// the listed annotations, not `x-` extensions), with the pointer of the schema holding each.
pub fn ignored_annotations(root: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (pointer, schema) in subschemas(root) {
        if let Value::Object(object) = schema {
            for keyword in object.keys() {
                if !is_vocabulary(keyword)
                    && !keyword.starts_with("x-")
                    && suspected_typo(keyword).is_none()
                {
                    found.push((keyword.clone(), pointer.clone()));
                }
            }
        }
    }
    found
}

/// Escape one reference token of a JSON pointer (RFC 6901).
pub fn escape_token(token: &str) -> String {
    crate::json::pointer::escape_token(token).into_owned()
}

/// Something in a document the checker cannot read as a schema it understands.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// A keyword outside the vocabulary that looks like a typo of `suggestion`, at the pointer
    /// of the schema object holding it.
    UnknownKeyword {
        keyword: String,
        pointer: String,
        suggestion: &'static str,
    },
    /// A `$ref` that names nothing in this document.
    UnresolvableRef { reference: String, pointer: String },
}

/// Every subschema of `root` with its pointer, the root first, in document order. Iterative,
/// so a deep document cannot overflow the stack.
pub fn subschemas(root: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), root)];
    while let Some((pointer, schema)) = stack.pop() {
        let children_from = stack.len();
        if let Value::Object(object) = schema {
            for (keyword, value) in object {
                children(keyword, value, &pointer, &mut stack);
            }
        }
        // Children were pushed in document order; reverse them so they pop in that order.
        stack[children_from..].reverse();
        out.push((pointer, schema));
    }
    out
}

/// Push the subschemas that `keyword`'s `value` holds, with their pointers.
fn children<'a>(
    keyword: &str,
    value: &'a Value,
    pointer: &str,
    out: &mut Vec<(String, &'a Value)>,
) {
    let here = || format!("{pointer}/{}", escape_token(keyword));
    match (role(keyword), value) {
        (Some(Role::Subschema), _) => out.push((here(), value)),
        (Some(Role::SubschemaArray), Value::Array(items)) => {
            let here = here();
            for (index, item) in items.iter().enumerate() {
                out.push((format!("{here}/{index}"), item));
            }
        }
        (Some(Role::SubschemaMap), Value::Object(members)) => {
            let here = here();
            for (name, member) in members {
                out.push((format!("{here}/{}", escape_token(name)), member));
            }
        }
        _ => {}
    }
}

/// How deep a schema may reach: levels of nesting plus one per `$ref` hop along a chain of
/// references (a reference back into a schema being measured ends the chain). The validators
/// and the canonicalizer recurse that deep; past it a schema is refused as input, never walked.
pub const MAX_DEPTH: usize = 64;

/// The pointer at which `root` first reaches more than [`MAX_DEPTH`] levels (a `$ref` whose
/// chain goes too deep, or a subschema nested too deeply), or `None` when it stays within.
/// The walk inside one schema is iterative; it recurses once per `$ref` hop and gives up past
/// the limit, so its own depth is bounded.
pub fn too_deep(root: &Value) -> Option<String> {
    let mut memo = rustc_hash::FxHashMap::default();
    let mut on_path = rustc_hash::FxHashSet::default();
    reach(root, root, 0, &mut memo, &mut on_path).err()
}

/// The deepest level below `node` (nesting, plus the reach of each schema it refers to); `level`
/// is the depth at which `node` sits. The error is the pointer, relative to `node`, where the
/// limit is passed.
fn reach(
    root: &Value,
    node: &Value,
    level: usize,
    memo: &mut rustc_hash::FxHashMap<*const Value, usize>,
    on_path: &mut rustc_hash::FxHashSet<*const Value>,
) -> Result<usize, String> {
    let key = node as *const Value;
    if let Some(&deepest) = memo.get(&key) {
        if level + deepest > MAX_DEPTH {
            return Err(String::new());
        }
        return Ok(deepest);
    }
    on_path.insert(key);
    let mut deepest = 0;
    let mut stack = vec![(String::new(), node, 0usize)];
    let mut scratch = Vec::new();
    while let Some((pointer, schema, nest)) = stack.pop() {
        if level + nest > MAX_DEPTH {
            on_path.remove(&key);
            return Err(pointer);
        }
        deepest = deepest.max(nest);
        let Value::Object(object) = schema else {
            continue;
        };
        if let Some(Value::String(reference)) = object.get("$ref")
            && let Some(target) = resolve_local(root, reference)
            && !on_path.contains(&(target as *const Value))
        {
            let here = format!("{pointer}/$ref");
            match reach(root, target, level + nest + 1, memo, on_path) {
                Ok(below) if level + nest + 1 + below <= MAX_DEPTH => {
                    deepest = deepest.max(nest + 1 + below);
                }
                _ => {
                    on_path.remove(&key);
                    return Err(here);
                }
            }
        }
        for (keyword, value) in object {
            children(keyword, value, &pointer, &mut scratch);
        }
        stack.extend(scratch.drain(..).map(|(p, v)| (p, v, nest + 1)));
    }
    on_path.remove(&key);
    memo.insert(key, deepest);
    Ok(deepest)
}

/// The regular expressions a schema object holds: its `pattern`, then the keys of its
/// `patternProperties`.
pub fn regular_expressions(object: &Map<String, Value>) -> impl Iterator<Item = &str> {
    object
        .get("pattern")
        .and_then(Value::as_str)
        .into_iter()
        .chain(
            object
                .get("patternProperties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|members| members.keys().map(String::as_str)),
        )
}

/// Keywords outside the vocabulary and unresolvable references, in document order.
pub fn findings(root: &Value) -> Vec<Finding> {
    let mut found = Vec::new();
    for (pointer, schema) in subschemas(root) {
        let Value::Object(object) = schema else {
            continue;
        };
        for (keyword, value) in object {
            if let Some(suggestion) = suspected_typo(keyword) {
                found.push(Finding::UnknownKeyword {
                    keyword: keyword.clone(),
                    pointer: pointer.clone(),
                    suggestion,
                });
            }
            if keyword == "$ref"
                && let Value::String(reference) = value
                && resolve_local(root, reference).is_none()
            {
                found.push(Finding::UnresolvableRef {
                    reference: reference.clone(),
                    pointer: format!("{pointer}/$ref"),
                });
            }
        }
    }
    found
}

/// The subschema a local reference (`#`, `#/json/pointer` or `#anchor`) names in `root`.
pub fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    if fragment.starts_with('/') {
        let decoded = percent_decode(fragment)?;
        return root.pointer(&decoded);
    }
    subschemas(root).into_iter().find_map(|(_, schema)| {
        let anchor = schema.get("$anchor").and_then(Value::as_str);
        (anchor == Some(fragment)).then_some(schema)
    })
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        if byte == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            decoded.push(byte);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// `value` of `keyword` with `f` applied to every subschema it holds (the value itself, the
/// items of an array, the members of a map); `None` for a keyword that holds no subschema. A
/// value of the wrong shape for its keyword is kept as it is.
fn map_subschemas(keyword: &str, value: &Value, f: &dyn Fn(&Value) -> Value) -> Option<Value> {
    let mapped = match (role(keyword)?, value) {
        (Role::Subschema, _) => f(value),
        (Role::SubschemaArray, Value::Array(items)) => Value::Array(items.iter().map(f).collect()),
        (Role::SubschemaMap, Value::Object(members)) => Value::Object(
            members
                .iter()
                .map(|(name, member)| (name.clone(), f(member)))
                .collect(),
        ),
        (Role::SubschemaArray | Role::SubschemaMap, other) => other.clone(),
        (Role::Value | Role::Annotation, _) => return None,
    };
    Some(mapped)
}

/// `schema` with every annotation removed, so that two schemas differing only in annotations
/// compare equal. Data-valued keywords (`enum`, `const`) are kept verbatim.
pub fn strip_annotations(schema: &Value) -> Value {
    let Value::Object(object) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (keyword, value) in object {
        if is_annotation(keyword) {
            continue;
        }
        let stripped =
            map_subschemas(keyword, value, &strip_annotations).unwrap_or_else(|| value.clone());
        out.insert(keyword.clone(), stripped);
    }
    Value::Object(out)
}

/// The pointer of the subschema of `root` that constrains the value at `instance_path` (an RFC
/// 6901 pointer into an instance), following `properties`, `prefixItems` and `items` (and local
/// `$ref`s on the way). `None` when no single such subschema exists.
pub fn schema_pointer_for_instance(root: &Value, instance_path: &str) -> Option<String> {
    let mut pointer = String::new();
    let mut schema = root;
    let tokens = instance_path
        .split('/')
        .skip(1)
        .map(|token| token.replace("~1", "/").replace("~0", "~"));
    for token in tokens {
        // A `$ref` hop keeps the walk in the document, at the referenced schema.
        let mut hops = 0;
        while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            hops += 1;
            if hops > 32 {
                return None;
            }
            schema = resolve_local(root, reference)?;
            pointer = reference.trim_start_matches('#').to_string();
        }
        let escaped = escape_token(&token);
        if let Some(next) = schema.get("properties").and_then(|p| p.get(&token)) {
            pointer = format!("{pointer}/properties/{escaped}");
            schema = next;
        } else if let Ok(index) = token.parse::<usize>()
            && let Some(next) = schema
                .get("prefixItems")
                .and_then(Value::as_array)
                .and_then(|items| items.get(index))
        {
            pointer = format!("{pointer}/prefixItems/{index}");
            schema = next;
        } else if token.parse::<usize>().is_ok()
            && let Some(next) = schema.get("items")
        {
            pointer = format!("{pointer}/items");
            schema = next;
        } else if let Some(next) = schema.get("additionalProperties") {
            pointer = format!("{pointer}/additionalProperties");
            schema = next;
        } else {
            return Some(pointer);
        }
    }
    Some(pointer)
}

/// `sub`, a subschema of `root`, as a schema that stands on its own: its local `$ref`s name
/// places in `root` (a reference is resolved against the document, not the subschema), so each
/// schema they reach, transitively, is copied into `$defs` under a fresh name and every
/// reference is rewritten to it. Borrowed when nothing needs resolving (`sub` is the root, or
/// refers to nothing); also borrowed, unchanged, when a `$id` would change what references
/// mean or a reference does not resolve (the checker then reports it as it would have).
pub fn standalone<'a>(root: &Value, sub: &'a Value) -> std::borrow::Cow<'a, Value> {
    use std::borrow::Cow;
    if std::ptr::eq(root, sub) {
        return Cow::Borrowed(sub);
    }
    let refers = |schema: &Value| {
        subschemas(schema)
            .iter()
            .any(|(_, s)| s.get("$ref").is_some_and(Value::is_string))
    };
    if !refers(sub) || subschemas(root).iter().any(|(_, s)| s.get("$id").is_some()) {
        return Cow::Borrowed(sub);
    }
    let Value::Object(top) = sub else {
        return Cow::Borrowed(sub);
    };
    let taken = |name: &str| {
        top.get("$defs")
            .and_then(Value::as_object)
            .is_some_and(|defs| defs.contains_key(name))
    };
    // Reference text → the name its copy gets; the copies, in the order names were given.
    let mut names: rustc_hash::FxHashMap<String, String> = Default::default();
    let mut copies: Vec<(String, &Value)> = Vec::new();
    let mut pending: Vec<&Value> = vec![sub];
    while let Some(schema) = pending.pop() {
        for (_, subschema) in subschemas(schema) {
            let Some(Value::String(reference)) = subschema.get("$ref") else {
                continue;
            };
            if names.contains_key(reference) {
                continue;
            }
            let Some(target) = resolve_local(root, reference) else {
                return Cow::Borrowed(sub);
            };
            if copies.len() >= 1024 {
                return Cow::Borrowed(sub);
            }
            let mut name = format!("primgraph-root-{}", copies.len());
            while taken(&name) {
                name.push('_');
            }
            names.insert(reference.clone(), name.clone());
            copies.push((name, target));
            pending.push(target);
        }
    }
    let mut bundled = rewrite_refs(sub, &names);
    let defs: Map<String, Value> = copies
        .iter()
        .map(|(name, target)| (name.clone(), rewrite_refs(target, &names)))
        .collect();
    if let Value::Object(object) = &mut bundled {
        let slot = object
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(existing) = slot {
            existing.extend(defs);
        }
    }
    Cow::Owned(bundled)
}

/// A copy of `schema` with every `$ref` in a schema position renamed by `names`.
fn rewrite_refs(schema: &Value, names: &rustc_hash::FxHashMap<String, String>) -> Value {
    let Value::Object(object) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (keyword, value) in object {
        let rewritten = if keyword == "$ref" {
            match value.as_str().and_then(|r| names.get(r)) {
                Some(name) => Value::String(format!("#/$defs/{name}")),
                None => value.clone(),
            }
        } else {
            map_subschemas(keyword, value, &|sub| rewrite_refs(sub, names))
                .unwrap_or_else(|| value.clone())
        };
        out.insert(keyword.clone(), rewritten);
    }
    Value::Object(out)
}
