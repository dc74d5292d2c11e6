//! The graph document as written (SPEC §2), before resolution against a registry. The serde
//! derives are kept for embedders; validation loads through `graph::load`, which reports every
//! shape error with its pointer.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphDoc {
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    pub graph: String,
    pub abi: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub capabilities: Vec<String>,
    #[serde(default)]
    pub budget: Option<Budget>,
    #[serde(default)]
    pub input: Option<Value>,
    /// The packs the graph uses (SPEC §9.2): name → semver range, as written; resolved by
    /// `crate::pack` (`validate` reports a bad range there, P801/P804).
    #[serde(default)]
    pub packs: SmallMap<String>,
    pub entry: String,
    pub nodes: Vec<NodeDoc>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    #[serde(default)]
    pub max_steps: Option<u64>,
    #[serde(default)]
    pub max_spend_usd: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeDoc {
    pub id: String,
    pub primitive: String,
    #[serde(default)]
    pub workspace: Option<String>,
    #[serde(default)]
    pub inputs: SmallMap<Binding>,
    #[serde(default)]
    pub next: Option<String>,
    #[serde(default)]
    pub branches: Option<SmallMap<String>>,
    #[serde(default)]
    pub on_error: Option<SmallMap<String>>,
    #[serde(default)]
    pub max_visits: Option<u32>,
}

impl NodeDoc {
    /// The residency label, `"main"` by default.
    pub fn workspace(&self) -> &str {
        self.workspace.as_deref().unwrap_or("main")
    }
}

/// The word a binding's `from` names the run's input with (SPEC §2): a graph-document word,
/// told from a node ID once, when the document is loaded ([`Source`]). Only this module and
/// texts for people (completions, docs) spell it.
pub const INPUT_WORD: &str = "$input";

/// Where a binding reads from: the run's input (`"from": "$input"`) or a node's output.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(from = "String")]
pub enum Source {
    Input,
    Node(String),
}

impl Source {
    /// The source as the document writes it: [`INPUT_WORD`] or the node ID.
    pub fn as_str(&self) -> &str {
        match self {
            Source::Input => INPUT_WORD,
            Source::Node(id) => id,
        }
    }
}

impl From<String> for Source {
    fn from(from: String) -> Source {
        if from == INPUT_WORD {
            Source::Input
        } else {
            Source::Node(from)
        }
    }
}

/// An input binding: from a node's (or the run's) output at a pointer, or a constant.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Binding {
    From {
        from: Source,
        #[serde(default)]
        at: Option<String>,
    },
    Const {
        #[serde(rename = "const")]
        value: Value,
    },
}

/// A map from names to values kept as one vector sorted by name: the few inputs, branches and
/// error routes of a node. It iterates in name order as a `BTreeMap` does, but a map of three
/// entries costs three entries, not a B-tree leaf of eleven — on a 100,000-node graph that is
/// most of the loaded document's memory.
#[derive(Debug, Clone, PartialEq)]
pub struct SmallMap<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for SmallMap<V> {
    fn default() -> Self {
        SmallMap {
            entries: Vec::new(),
        }
    }
}

impl<V> SmallMap<V> {
    pub fn new() -> Self {
        SmallMap::default()
    }

    /// Insert or replace; the previous value of `key`, if any.
    pub fn insert(&mut self, key: String, value: V) -> Option<V> {
        match self.search(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.entries[at].1, value)),
            Err(at) => {
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        self.search(key).ok().map(|at| &self.entries[at].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.search(key).is_ok()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in name order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    fn search(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }
}

impl<V> std::ops::Index<&str> for SmallMap<V> {
    type Output = V;

    /// The value of `key`; panics when there is none, as `BTreeMap`'s index does.
    fn index(&self, key: &str) -> &V {
        self.get(key).expect("no entry of that name in the map")
    }
}

impl<'a, V> IntoIterator for &'a SmallMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, V)>,
        fn(&'a (String, V)) -> (&'a String, &'a V),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for SmallMap<V> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::<String, V>::deserialize(deserializer).map(|map| map.into_iter().collect())
    }
}

impl<V: serde::Serialize> serde::Serialize for SmallMap<V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<V> FromIterator<(String, V)> for SmallMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(items: I) -> Self {
        let mut entries: Vec<(String, V)> = items.into_iter().collect();
        // Stable: of two equal names the last one wins, as in a `BTreeMap` built by `insert`.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.reverse();
        entries.dedup_by(|later, earlier| later.0 == earlier.0);
        entries.reverse();
        SmallMap { entries }
    }
}
