//! The three safety annotations of SPEC §1.2 (`x-authority`, `x-sink`, `x-trust: untrusted`) as
//! they hold at one place of a schema document: read on the schema object itself and on
//! everything that constrains the same value — what its local `$ref`s name (into `$defs` or
//! anywhere in the document), its `allOf` parts, and, for the annotations that make a check
//! *stricter*, the alternatives of `anyOf`/`oneOf` — transitively, with `$ref` cycles cut.
//!
//! This is the one walk every reader of an annotation uses: the A403/A405 rules (through
//! `schema::select`), the language server's hover and `registry diff`'s locations. A schema
//! factored into `$defs` + `$ref` (an ordinary refactor) therefore means exactly what it meant
//! inline; before this walk existed such a refactor silently switched A403 and A405 off.

use serde_json::Value;

/// How many schema objects one query visits at most: `$ref` chains and `allOf` trees in real
/// contracts are a handful deep; the bound keeps a hostile document linear.
const MAX_VISITS: usize = 512;

/// The annotations at one place of a schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `"x-authority": true` holds for every value there (on the schema, a `$ref` target or
    /// an `allOf` part): the value is a grant token.
    pub authority: bool,
    /// `"x-authority": true` on the schema or on any alternative of it: some value there may
    /// be a grant token, so a binding into it must come from a policy node.
    pub may_be_authority: bool,
    /// `"x-sink": true` on the schema or on any alternative of it.
    pub sink: bool,
    /// `"x-trust": "untrusted"` on the schema or on any alternative of it.
    pub untrusted: bool,
}

impl Annotations {
    /// The annotations of `schema`, a sub-schema of the document `root` (local `$ref`s in
    /// `schema` name places in `root`).
    pub fn at(root: &Value, schema: &Value) -> Annotations {
        let mut found = Annotations::default();
        // (schema, whether it constrains every value: reached through `$ref`/`allOf` only)
        let mut pending: Vec<(&Value, bool)> = vec![(schema, true)];
        let mut seen: Vec<(*const Value, bool)> = Vec::new();
        while let Some((part, definite)) = pending.pop() {
            if seen.len() >= MAX_VISITS || seen.contains(&(part as *const Value, definite)) {
                continue;
            }
            seen.push((part as *const Value, definite));
            let Value::Object(object) = part else {
                continue;
            };
            let own = own(part);
            found.authority |= definite && own.authority;
            found.may_be_authority |= own.authority;
            found.sink |= own.sink;
            found.untrusted |= own.untrusted;
            if let Some(target) = object
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| super::walk::resolve_local(root, r))
            {
                pending.push((target, definite));
            }
            if let Some(parts) = object.get("allOf").and_then(Value::as_array) {
                pending.extend(parts.iter().rev().map(|p| (p, definite)));
            }
            for keyword in ["anyOf", "oneOf"] {
                if let Some(parts) = object.get(keyword).and_then(Value::as_array) {
                    pending.extend(parts.iter().rev().map(|p| (p, false)));
                }
            }
        }
        found
    }

    /// Any annotation at all.
    pub fn any(self) -> bool {
        self.may_be_authority || self.sink || self.untrusted
    }
}

/// The annotations written on `schema` itself, nothing followed: what a schema object says
/// of itself, for walks that follow `$ref`s on their own (the registry diff's locations).
pub fn own(schema: &Value) -> Annotations {
    let authority = schema.get("x-authority").and_then(Value::as_bool) == Some(true);
    Annotations {
        authority,
        may_be_authority: authority,
        sink: schema.get("x-sink").and_then(Value::as_bool) == Some(true),
        untrusted: schema.get("x-trust").and_then(Value::as_str) == Some("untrusted"),
    }
}

/// Whether `schema` (in the document `root`), or any value it describes inside — properties,
/// items, additional or pattern properties, alternatives, and what local `$ref`s name — is
/// marked `x-trust: untrusted`. A value containing untrusted text is untrusted as a whole.
pub fn contains_untrusted(root: &Value, schema: &Value) -> bool {
    let mut pending: Vec<&Value> = vec![schema];
    let mut seen: Vec<*const Value> = Vec::new();
    while let Some(part) = pending.pop() {
        if seen.len() >= MAX_VISITS * 8 || seen.contains(&(part as *const Value)) {
            continue;
        }
        seen.push(part as *const Value);
        let Value::Object(object) = part else {
            continue;
        };
        if own(part).untrusted {
            return true;
        }
        if let Some(target) = object
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| super::walk::resolve_local(root, r))
        {
            pending.push(target);
        }
        for keyword in ["properties", "patternProperties", "dependentSchemas"] {
            if let Some(map) = object.get(keyword).and_then(Value::as_object) {
                pending.extend(map.values());
            }
        }
        for keyword in [
            "items",
            "additionalProperties",
            "unevaluatedProperties",
            "unevaluatedItems",
            "contains",
            "then",
            "else",
        ] {
            if let Some(sub) = object.get(keyword) {
                pending.push(sub);
            }
        }
        for keyword in ["prefixItems", "allOf", "anyOf", "oneOf"] {
            if let Some(list) = object.get(keyword).and_then(Value::as_array) {
                pending.extend(list);
            }
        }
    }
    false
}

/// The schema of property `name` of the object schema `schema` (in `root`), looked up on the
/// schema, its `$ref` targets and its `allOf` parts: where an input property is declared when
/// the contract's `inputs` is itself factored into `$defs`.
pub fn property<'a>(root: &'a Value, schema: &'a Value, name: &str) -> Option<&'a Value> {
    let mut pending: Vec<&'a Value> = vec![schema];
    let mut seen: Vec<*const Value> = Vec::new();
    while let Some(part) = pending.pop() {
        if seen.len() >= MAX_VISITS || seen.contains(&(part as *const Value)) {
            continue;
        }
        seen.push(part as *const Value);
        let Value::Object(object) = part else {
            continue;
        };
        if let Some(found) = object.get("properties").and_then(|p| p.get(name)) {
            return Some(found);
        }
        if let Some(parts) = object.get("allOf").and_then(Value::as_array) {
            pending.extend(parts.iter().rev());
        }
        if let Some(target) = object
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| super::walk::resolve_local(root, r))
        {
            pending.push(target);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn follows_refs_all_of_and_alternatives() {
        let root = json!({
            "$defs": {
                "grant": {"type": "object", "x-authority": true},
                "alias": {"$ref": "#/$defs/grant"},
                "cmd": {"allOf": [{"type": "string"}, {"x-sink": true}]},
                "loop": {"$ref": "#/$defs/loop"},
                "text": {"anyOf": [{"type": "null"}, {"type": "string", "x-trust": "untrusted"}]}
            },
            "properties": {
                "grant": {"$ref": "#/$defs/alias"},
                "cmd": {"$ref": "#/$defs/cmd"},
                "loop": {"$ref": "#/$defs/loop"},
                "text": {"$ref": "#/$defs/text"},
                "maybe": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/grant"}]}
            }
        });
        let at = |name: &str| Annotations::at(&root, &root["properties"][name]);
        assert!(at("grant").authority && at("grant").may_be_authority);
        assert!(at("cmd").sink && !at("cmd").authority);
        assert_eq!(at("loop"), Annotations::default());
        assert!(at("text").untrusted);
        assert!(!at("maybe").authority && at("maybe").may_be_authority);
        assert!(contains_untrusted(
            &root,
            &json!({"properties": {"t": {"$ref": "#/$defs/text"}}})
        ));
        assert!(!contains_untrusted(&root, &root["$defs"]["loop"]));
    }

    #[test]
    fn property_through_refs() {
        let root = json!({"$ref": "#/$defs/in", "$defs": {"in": {"allOf": [{"properties": {"q": {"type": "string"}}}]}}});
        assert_eq!(
            property(&root, &root, "q"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(property(&root, &root, "r"), None);
    }
}
