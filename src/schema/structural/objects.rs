//! The object keywords of a proof: `required`, `minProperties`/`maxProperties`, `properties`,
//! `patternProperties` (whose names the automata compare), `additionalProperties` and
//! `propertyNames`. Each member the target constrains is paired with the source schema that
//! governs it (an over-approximation, which a proof of containment may use) and compared by the
//! prover.

use serde_json::{Map, Value};

use super::{
    Field, FlatPair, Node, Prover, TRUE, admits, bound_implied, conjoin_values, number,
    required_names, subschema_map,
};
use crate::schema::pattern::{self, Inclusion};
use crate::schema::walk::escape_token;

impl Prover {
    pub(super) fn objects(&mut self, pair: FlatPair<'_>, steps: usize) -> bool {
        let FlatPair { s, so, t, to } = pair;
        let track = self.track;
        if !required_names(to).all(|name| required_names(so).any(|required| required == name)) {
            return false;
        }
        let required_count = required_names(so).count() as f64;
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
        let sprops = subschema_map(so, "properties");
        let tprops = subschema_map(to, "properties");
        let spatterns = subschema_map(so, "patternProperties");
        let tpatterns = subschema_map(to, "patternProperties");
        let pattern_pointer = |schema_pointer: &str, pattern: &str| {
            child!(
                track,
                "{schema_pointer}/patternProperties/{}",
                escape_token(pattern)
            )
        };
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
                    return Some((schema, pattern_pointer(s.pointer, source_pattern)));
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
            let target_pointer = pattern_pointer(t.pointer, target_pattern);
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
                let source_pointer = pattern_pointer(s.pointer, source_pattern);
                pairs.push((
                    source_schema,
                    source_pointer,
                    target_schema,
                    target_pointer.clone(),
                ));
            }
            // The rest meets the target pattern only with a name that no source property
            // or pattern takes; none when the automata show every name it matches is taken.
            if !names_taken(target_pattern, sprops, spatterns) {
                pairs.push((
                    source_rest.0,
                    source_rest.1.clone(),
                    target_schema,
                    target_pointer,
                ));
            }
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
                // Skipped only when the target's properties and patterns provably take every
                // name it matches.
                if names_taken(source_pattern, tprops, tpatterns) {
                    continue;
                }
                let source_pointer = pattern_pointer(s.pointer, source_pattern);
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
            let sprops = subschema_map(so, "properties");
            for name in sprops.keys() {
                let name = Value::String(name.clone());
                if admits(source_names, &name) == Some(false) {
                    continue;
                }
                if admits(target_names, &name) != Some(true) {
                    return false;
                }
            }
            let spatterns = subschema_map(so, "patternProperties");
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

/// Whether every name `pattern` matches is one of `properties` or matched by one of
/// `patterns` (the union of their languages, decided by automata; `false` when undecided).
fn names_taken(
    pattern: &str,
    properties: &Map<String, Value>,
    patterns: &Map<String, Value>,
) -> bool {
    let mut takers: Vec<String> = patterns.keys().cloned().collect();
    for name in properties.keys() {
        match pattern::literal_pattern(name) {
            Some(literal) => takers.push(literal),
            None => return false,
        }
    }
    if takers.is_empty() {
        return false;
    }
    let union = pattern::union_pattern(takers.iter().map(String::as_str));
    pattern::inclusion(Some(pattern), Some(&union), 0, None) == Inclusion::Included
}
