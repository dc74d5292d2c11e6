//! The checker's per-schema cache: each schema is read once into a [`Prepared`] (its checks,
//! and, on first need, its annotation-free and canonical forms) and compiled once into a
//! validator, found again by a structural hash and equality (never by serializing it), and
//! bounded so that a long-lived checker fed ever new schemas stays small.

use std::sync::{Arc, OnceLock};

use jsonschema::Validator;
use jsonschema::canonical::CanonicalSchema;
use serde_json::Value;

use super::structural::equality_hash;
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
            .find(|entry| entry.document() == schema)
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

/// The cache's key: [`equality_hash`] of the schema's first levels. The cache compares
/// documents for equality anyway, so the hash only needs to spread them, and a hash coarser
/// than `==` (it treats `1` and `1.0` alike) only merges buckets.
pub(super) fn content_hash(schema: &Value) -> u64 {
    equality_hash(schema, 3)
}
