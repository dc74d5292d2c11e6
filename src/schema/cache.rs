//! The checker's per-schema cache: each schema is read once into a [`Prepared`] (its checks,
//! and, on first need, its annotation-free and canonical forms) and compiled once into a
//! validator, found again by a structural hash and equality (never by serializing it), and
//! bounded so that a long-lived checker fed ever new schemas stays small.

use std::sync::{Arc, OnceLock};

use jsonschema::Validator;
use jsonschema::canonical::CanonicalSchema;
use serde_json::Value;

use super::structural::{MemberOrder, value_hash};
use super::{canonicalize, walk};

/// One schema, read once: the document, what keeps it from being decided, and — computed only
/// when a check needs them — its annotation-free form and its canonical form.
pub(super) struct Prepared {
    pub(super) document: Value,
    /// The first keyword that looks like a typo of a Draft 2020-12 keyword: (keyword, pointer,
    /// the keyword it is probably meant to be).
    pub(super) unknown_keyword: Option<(String, String, &'static str)>,
    pub(super) stripped: OnceLock<Value>,
    pub(super) canonical: OnceLock<Result<CanonicalSchema, String>>,
}

impl Prepared {
    pub(super) fn stripped(&self) -> &Value {
        self.stripped
            .get_or_init(|| walk::strip_annotations(&self.document))
    }

    /// The canonical form when `wanted`; `None` (and nothing computed) otherwise, unless it was
    /// computed already.
    pub(super) fn canonical_if(&self, wanted: bool) -> Option<&Result<CanonicalSchema, String>> {
        if wanted {
            Some(self.canonical())
        } else {
            self.canonical.get()
        }
    }

    pub(super) fn canonical(&self) -> &Result<CanonicalSchema, String> {
        self.canonical
            .get_or_init(|| canonicalize(&self.document).map_err(|error| error.to_string()))
    }
}

/// How many distinct schemas one checker keeps; past it, new schemas are prepared per check
/// and not kept, so a long-lived checker fed ever new schemas stays bounded.
const CACHE_LIMIT: usize = 8192;

/// Something cached per schema, which keeps the schema it was made from.
pub(super) trait OfSchema {
    fn document(&self) -> &Value;
}

impl OfSchema for Prepared {
    fn document(&self) -> &Value {
        &self.document
    }
}

/// A validator with the schema it was compiled from.
pub(super) struct Compiled {
    pub(super) document: Value,
    pub(super) validator: Validator,
}

impl OfSchema for Compiled {
    fn document(&self) -> &Value {
        &self.document
    }
}

/// Schemas by content: a structural hash, then equality, so no schema is serialized to find
/// it and two equal documents at different addresses share one entry.
pub(super) struct ContentCache<T> {
    entries: rustc_hash::FxHashMap<u64, Vec<Arc<T>>>,
    len: usize,
}

impl<T> Default for ContentCache<T> {
    fn default() -> Self {
        ContentCache {
            entries: Default::default(),
            len: 0,
        }
    }
}

impl<T: OfSchema> ContentCache<T> {
    pub(super) fn get(&self, hash: u64, schema: &Value) -> Option<Arc<T>> {
        self.entries
            .get(&hash)?
            .iter()
            .find(|entry| identical(entry.document(), schema))
            .map(Arc::clone)
    }

    pub(super) fn insert(&mut self, hash: u64, value: &Arc<T>) {
        if self.len < CACHE_LIMIT {
            self.len += 1;
            self.entries
                .entry(hash)
                .or_default()
                .push(Arc::clone(value));
        }
    }
}

/// The cache's key: [`value_hash`] of the schema's first levels, members in document order.
pub(super) fn content_hash(schema: &Value) -> u64 {
    value_hash(schema, 3, MemberOrder::Significant)
}

/// Equality that counts the order of object members (serde_json's `==` on ordered maps does
/// not): two documents that differ only in order are different entries, because what the
/// checker reports of a schema (its first unknown keyword, a witness built from it) follows
/// its document order.
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && identical(vx, vy))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| identical(x, y))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Checker;
    use serde_json::json;

    #[test]
    fn schemas_differing_only_in_member_order_are_reported_each_in_its_own_order() {
        // `==` on serde_json's ordered maps ignores order; the first suspected typo reported
        // is the first in document order, so the two must not share an entry.
        let min_first = json!({"type": "string", "minLenght": 1, "maxLenght": 3});
        let max_first = json!({"type": "string", "maxLenght": 3, "minLenght": 1});
        assert_eq!(min_first, max_first);
        let target = json!({"type": "string"});
        let checker = Checker::new();
        for (source, first) in [(&min_first, "minLenght"), (&max_first, "maxLenght")] {
            let decision = checker.check(source, &target).expect("usable schemas");
            assert_eq!(decision.reason().keyword, first, "{source}");
        }
        // Below the levels the hash reads, the two collide: equality must still tell them
        // apart (it did not before: the entry of the first was found for the second).
        let nest = |inner: &serde_json::Value| json!({"type": "object", "properties": {"a": {"properties": {"b": inner}}}});
        let target = json!({"type": "object"});
        let checker = Checker::new();
        for (source, first) in [(&min_first, "minLenght"), (&max_first, "maxLenght")] {
            let decision = checker.check(&nest(source), &target).expect("usable");
            assert_eq!(decision.reason().keyword, first, "{source}");
        }
    }
}
