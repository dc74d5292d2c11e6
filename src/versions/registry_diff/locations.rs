//! Schema locations compared one by one (SPEC §6.1): a *location* is a place a binding's `at`
//! can name, a path through `properties` (a name), `prefixItems` (an index) and `items` (any
//! element, written `*`), followed also through `allOf`/`anyOf`/`oneOf` members and local
//! `$ref`s. V707: an output location OLD declares that NEW no longer does (graphs that bind it
//! fail T304); only the outermost missing location is reported. V716: the safety annotations
//! at each location — `x-trust: untrusted` on outputs (inherited by everything inside, as
//! taint is), `x-sink` on inputs, `x-authority` on both — added (error: graphs valid under OLD
//! may now fail A405/A403) or removed (warning for `x-trust`/`x-sink`: less tracking; error for
//! `x-authority`, whose binding rule A403 changes either way).

use super::{Bump, Draft, Place, Sink, field_pointer};
use crate::codes;
use crate::diagnostic::Severity;
use crate::registry::Primitive;
use crate::schema::annotations::Annotations;
use serde_json::Value;
use std::collections::BTreeMap;

/// One step of a location.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Step {
    Property(String),
    Index(usize),
    /// Any element (`items`).
    Element,
}

type Path = Vec<Step>;

/// What a schema says at one location.
#[derive(Debug, Clone, Default)]
struct At {
    /// The pointer of (the first) subschema describing it, relative to the schema root.
    schema_pointer: String,
    untrusted: bool,
    sink: bool,
    authority: bool,
}

/// How deep locations are followed, and how many `$ref` expansions a walk may make: registry
/// schemas are shallow, and a recursive `$ref` must not expand for ever.
const MAX_DEPTH: usize = 24;
const MAX_REFS: usize = 256;

fn locations(root: &Value) -> BTreeMap<Path, At> {
    let mut out = BTreeMap::new();
    let mut refs = 0;
    visit(
        root,
        root,
        &mut Vec::new(),
        String::new(),
        &mut out,
        &mut refs,
    );
    out
}

fn visit(
    root: &Value,
    schema: &Value,
    path: &mut Path,
    pointer: String,
    out: &mut BTreeMap<Path, At>,
    refs: &mut usize,
) {
    let Value::Object(object) = schema else {
        out.entry(path.clone()).or_insert_with(|| At {
            schema_pointer: pointer,
            ..At::default()
        });
        return;
    };
    let at = out.entry(path.clone()).or_insert_with(|| At {
        schema_pointer: pointer.clone(),
        ..At::default()
    });
    // The one annotation walk the rules use: through `$ref`s, `allOf` and alternatives.
    let annotations = Annotations::at(root, schema);
    at.untrusted |= annotations.untrusted;
    at.sink |= annotations.sink;
    at.authority |= annotations.may_be_authority;
    if path.len() >= MAX_DEPTH {
        return;
    }
    let esc = |t: &str| crate::json::pointer::escape_token(t).into_owned();
    if let Some(Value::Object(properties)) = object.get("properties") {
        for (name, sub) in properties {
            path.push(Step::Property(name.clone()));
            let p = format!("{pointer}/properties/{}", esc(name));
            visit(root, sub, path, p, out, refs);
            path.pop();
        }
    }
    if let Some(Value::Array(prefix)) = object.get("prefixItems") {
        for (i, sub) in prefix.iter().enumerate() {
            path.push(Step::Index(i));
            visit(
                root,
                sub,
                path,
                format!("{pointer}/prefixItems/{i}"),
                out,
                refs,
            );
            path.pop();
        }
    }
    if let Some(items) = object.get("items")
        && items != &Value::Bool(false)
    {
        path.push(Step::Element);
        visit(root, items, path, format!("{pointer}/items"), out, refs);
        path.pop();
    }
    for keyword in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = object.get(keyword) {
            for (i, sub) in members.iter().enumerate() {
                visit(
                    root,
                    sub,
                    path,
                    format!("{pointer}/{keyword}/{i}"),
                    out,
                    refs,
                );
            }
        }
    }
    if let Some(reference) = object.get("$ref").and_then(Value::as_str)
        && *refs < MAX_REFS
        && let Some(target) = crate::schema::walk::resolve_local(root, reference)
    {
        *refs += 1;
        let p = reference.trim_start_matches('#').to_string();
        visit(root, target, path, p, out, refs);
    }
}

/// `/files/*/name`: how a location reads in a message.
fn display(path: &Path) -> String {
    if path.is_empty() {
        return "the root".into();
    }
    path.iter()
        .map(|s| match s {
            Step::Property(name) => format!("/{}", crate::json::pointer::escape_token(name)),
            Step::Index(i) => format!("/{i}"),
            Step::Element => "/*".to_string(),
        })
        .collect()
}

/// `input` or `output`.
fn singular(field: &str) -> &'static str {
    if field == "inputs" { "input" } else { "output" }
}

/// A pointer a binding could write for `path` (any element: index 0).
fn concrete(path: &Path) -> String {
    path.iter()
        .map(|s| match s {
            Step::Property(name) => format!("/{}", crate::json::pointer::escape_token(name)),
            Step::Index(i) => format!("/{i}"),
            Step::Element => "/0".to_string(),
        })
        .collect()
}

/// The nearest location of `path` (itself or an ancestor) present in `map`.
fn nearest<'m>(map: &'m BTreeMap<Path, At>, path: &Path) -> Option<(&'m Path, &'m At)> {
    (0..=path.len())
        .rev()
        .find_map(|n| map.get_key_value(&path[..n]))
}

/// Whether `path` or one of its ancestors is marked untrusted in `map`.
fn untrusted_through(map: &BTreeMap<Path, At>, path: &Path) -> bool {
    (0..=path.len()).any(|n| map.get(&path[..n]).is_some_and(|at| at.untrusted))
}

pub(super) fn compare(sink: &mut Sink, old: &Primitive, new: &Primitive) {
    let (old_out, new_out) = (locations(&old.outputs), locations(&new.outputs));
    let id = &new.id;
    let new_root = field_pointer(new, "outputs");
    let old_root = field_pointer(old, "outputs");
    // V707: the outermost output locations gone from NEW.
    for (path, at) in &old_out {
        if new_out.contains_key(path) {
            continue;
        }
        let parent = &path[..path.len().saturating_sub(1)];
        if !path.is_empty() && !new_out.contains_key(parent) {
            continue;
        }
        let anchor = nearest(&new_out, path)
            .map(|(_, a)| format!("{new_root}{}", a.schema_pointer))
            .unwrap_or_else(|| new_root.clone());
        sink.push(Draft {
            code: &codes::V707,
            severity: Severity::Error,
            bump: Bump::Major,
            place: Place::Old,
            primitive: Some(id.clone()),
            pointer: format!("{old_root}{}", at.schema_pointer),
            message: format!(
                "`{id}`: output location `{}` is gone from NEW",
                display(path)
            ),
            help: format!(
                "graphs that bind `at: {}` from a node of it no longer resolve (T304); keep declaring it",
                display(path).replace('*', "0")
            ),
        })
        .new_anchor = Some(anchor);
    }
    // V716 on outputs: `x-trust: untrusted`, inherited, reported where it starts or stops.
    for (path, at) in &new_out {
        // A location OLD does not declare matters only if OLD's graphs could bind it (an open
        // object): then its taint is new to them.
        let was_bindable = old_out.contains_key(path)
            || crate::schema::select::select(&old.outputs, &concrete(path)).is_ok();
        if !was_bindable {
            continue;
        }
        let (before, after) = (
            untrusted_through(&old_out, path),
            untrusted_through(&new_out, path),
        );
        let parent = &path[..path.len().saturating_sub(1)];
        let parent_changed_alike = !path.is_empty()
            && untrusted_through(&old_out, &parent.to_vec()) == before
            && untrusted_through(&new_out, &parent.to_vec()) == after;
        if before == after || parent_changed_alike {
            continue;
        }
        let pointer = format!("{new_root}{}", at.schema_pointer);
        let where_ = display(path);
        if after {
            sink.push(Draft {
                code: &codes::V716,
                severity: Severity::Error,
                bump: Bump::Major,
                place: Place::New,
                primitive: Some(id.clone()),
                pointer: format!("{pointer}/x-trust"),
                message: format!("`{id}`: output location `{where_}` is now `x-trust: untrusted`"),
                help: "graphs that route this value to an `x-sink` input without a verification or policy node now fail A405".into(),
            });
        } else {
            sink.push(Draft {
                code: &codes::V716,
                severity: Severity::Warning,
                bump: Bump::Minor,
                place: Place::New,
                primitive: Some(id.clone()),
                pointer,
                message: format!("`{id}`: output location `{where_}` is no longer `x-trust: untrusted`"),
                help: "taint tracking stops here: a reviewer must confirm the value no longer comes from outside the trust boundary".into(),
            });
        }
    }
    compare_flags(sink, old, new, &old_out, &new_out, "outputs");
    let (old_in, new_in) = (locations(&old.inputs), locations(&new.inputs));
    compare_flags(sink, old, new, &old_in, &new_in, "inputs");
}

/// V716 for `x-sink` (inputs) and `x-authority` (both), own annotations only.
fn compare_flags(
    sink: &mut Sink,
    old: &Primitive,
    new: &Primitive,
    old_map: &BTreeMap<Path, At>,
    new_map: &BTreeMap<Path, At>,
    field: &str,
) {
    let id = &new.id;
    let (old_root, new_root) = (field_pointer(old, field), field_pointer(new, field));
    let kinds: &[&str] = if field == "inputs" {
        &["x-sink", "x-authority"]
    } else {
        &["x-authority"]
    };
    let flag = |at: &At, kind: &str| {
        if kind == "x-sink" {
            at.sink
        } else {
            at.authority
        }
    };
    for &kind in kinds {
        // Locations in both, and those only in OLD (a removed property loses its annotation).
        for (path, old_at) in old_map {
            let new_at = new_map.get(path);
            let (before, after) = (flag(old_at, kind), new_at.is_some_and(|a| flag(a, kind)));
            if before == after {
                continue;
            }
            if new_at.is_none() && field == "outputs" {
                // A gone output location is V707.
                continue;
            }
            let where_ = display(path);
            let (place, pointer) = match new_at {
                Some(a) => (Place::New, format!("{new_root}{}", a.schema_pointer)),
                None => (Place::Old, format!("{old_root}{}", old_at.schema_pointer)),
            };
            let (severity, bump, message, help) = match (kind, after) {
                ("x-sink", true) => (
                    Severity::Error,
                    Bump::Major,
                    format!("`{id}`: input `{where_}` is now an `x-sink`"),
                    "graphs that bind untrusted data to it without a verification or policy node now fail A405",
                ),
                ("x-sink", false) => (
                    Severity::Warning,
                    Bump::Minor,
                    format!("`{id}`: input `{where_}` is no longer an `x-sink`"),
                    "untrusted data may now reach it unchecked: a reviewer must confirm it is no longer dangerous",
                ),
                (_, true) => (
                    Severity::Error,
                    Bump::Major,
                    format!(
                        "`{id}`: {} location `{where_}` is now `x-authority`",
                        singular(field)
                    ),
                    "an authority input binds only from a policy node's authority output (A403): existing bindings may break",
                ),
                (_, false) => (
                    Severity::Error,
                    Bump::Major,
                    format!(
                        "`{id}`: {} location `{where_}` is no longer `x-authority`",
                        singular(field)
                    ),
                    "grant tokens bound to or from it are no longer checked (A403), and authority bindings from it break",
                ),
            };
            let pointer = if after {
                format!("{pointer}/{kind}")
            } else {
                pointer
            };
            let finding = sink.push(Draft {
                code: &codes::V716,
                severity,
                bump,
                place: place.clone(),
                primitive: Some(id.clone()),
                pointer,
                message,
                help: help.into(),
            });
            if place == Place::Old {
                finding.new_anchor = Some(new_root.clone());
            }
        }
        // Locations only in NEW are not compared: OLD's graphs could not bind an undeclared
        // input (T301), and a new output location's `x-authority` constrains only new bindings.
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn locations_follow_properties_items_and_refs() {
        let schema = json!({"type": "object", "properties": {
            "files": {"type": "array", "items": {"$ref": "#/$defs/file"}},
            "pair": {"prefixItems": [{"type": "string", "x-trust": "untrusted"}]}},
            "$defs": {"file": {"type": "object", "properties": {"name": {"type": "string"}}}}});
        let map = locations(&schema);
        let shown: Vec<String> = map.keys().map(display).collect();
        assert_eq!(
            shown,
            [
                "the root",
                "/files",
                "/files/*",
                "/files/*/name",
                "/pair",
                "/pair/0"
            ]
        );
        let name = &map[&vec![
            Step::Property("files".into()),
            Step::Element,
            Step::Property("name".into()),
        ]];
        assert_eq!(name.schema_pointer, "/$defs/file/properties/name");
        assert!(map[&vec![Step::Property("pair".into()), Step::Index(0)]].untrusted);
    }

    #[test]
    fn a_recursive_ref_stops() {
        let schema = json!({"$defs": {"t": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/t"}}}}},
            "$ref": "#/$defs/t"});
        let map = locations(&schema);
        assert!(map.len() <= 2 * MAX_DEPTH + 2, "{}", map.len());
    }
}
