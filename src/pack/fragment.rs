//! Fragment documents (SPEC §9.3): the `*.fragment.json` files a pack lists in `fragments`,
//! loaded strictly (duplicate keys, unknown fields, bad names, malformed nodes, bindings and
//! successors: P801 located in the fragment file) and indexed per pack by name. This module owns
//! the [`Fragment`] type (its interface — `params`, input ports, output ports, `exits`, `entry` —
//! and its nodes as written, with the parsed, spanned source), [`PackFragments`] (a pack's
//! fragments by name, each loaded or with its findings) and the per-pack cache
//! ([`fragments_of`]). Expansion is `fragment_expand`'s; mapping diagnostics back is
//! `fragment_map`'s.

use super::Pack;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::json::Parsed;
use crate::json::pointer::push;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

/// The suffix of a fragment file.
pub const SUFFIX: &str = ".fragment.json";

/// One output port: `{"from": NODE, "at": POINTER}` in the fragment's `outputs`.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputPort {
    pub from: String,
    pub at: String,
}

/// A loaded fragment: its interface and its nodes as written.
#[derive(Debug)]
pub struct Fragment {
    /// `fragment`: the name (the file is `NAME.fragment.json`).
    pub name: String,
    /// The pack it belongs to.
    pub pack: String,
    /// The file, as reported in diagnostics (the pack folder joined with its relative path).
    pub file: String,
    pub summary: Option<String>,
    /// `params`: a JSON Schema of the `with` object (defaults in its `properties`).
    pub params: Option<Value>,
    /// Input ports: name → schema, in name order.
    pub inputs: BTreeMap<String, Value>,
    /// Output ports: name → where the value comes from.
    pub outputs: BTreeMap<String, OutputPort>,
    /// `exits`, as declared.
    pub exits: Vec<String>,
    pub entry: String,
    /// The parsed file with its span table; `parsed.value["nodes"]` are the nodes as written.
    pub parsed: Arc<Parsed>,
    /// Node ID → index in `nodes`.
    pub index: HashMap<String, usize>,
}

impl Fragment {
    /// `PACK/NAME`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.pack, self.name)
    }

    /// The nodes as written.
    pub fn nodes(&self) -> &[Value] {
        self.parsed
            .value
            .get("nodes")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The node with this ID and its index.
    pub fn node(&self, id: &str) -> Option<(usize, &Value)> {
        let i = *self.index.get(id)?;
        Some((i, self.nodes().get(i)?))
    }

    /// Whether the node with this ID uses a fragment.
    pub fn is_use(&self, id: &str) -> bool {
        self.node(id)
            .is_some_and(|(_, n)| n.get("fragment").is_some())
    }

    /// The default of a parameter, from `params.properties.NAME.default`.
    pub fn param_default(&self, name: &str) -> Option<&Value> {
        self.params
            .as_ref()?
            .get("properties")?
            .get(name)?
            .get("default")
    }

    /// Whether `params` declares a parameter of this name (any name when it lists none).
    pub fn declares_param(&self, name: &str) -> bool {
        match self.params.as_ref().and_then(|p| p.get("properties")) {
            Some(Value::Object(props)) => props.contains_key(name),
            _ => false,
        }
    }

    /// The declared parameter names.
    pub fn param_names(&self) -> Vec<&str> {
        match self.params.as_ref().and_then(|p| p.get("properties")) {
            Some(Value::Object(props)) => props.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }
}

/// A fragment that did not load: its findings, located in its file (`file` set, line and
/// column resolved).
pub type FragmentErrors = Vec<Diagnostic>;

/// A pack's fragments by name (the file stem), each loaded or with its findings.
#[derive(Debug, Default)]
pub struct PackFragments {
    pub by_name: BTreeMap<String, Result<Arc<Fragment>, Arc<FragmentErrors>>>,
}

impl PackFragments {
    /// Every finding of every fragment file of the pack (for `pack lint`).
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.by_name
            .values()
            .filter_map(|r| r.as_ref().err())
            .flat_map(|e| e.iter())
    }
}

/// The process-wide cache of loaded fragments: (pack folder, digest) → the pack's fragments.
type Cache = Mutex<HashMap<(std::path::PathBuf, String), Arc<PackFragments>>>;

/// The loaded fragments of a pack, cached by (pack folder, digest): every graph validated in a
/// process reads a pack's fragment files once.
pub fn fragments_of(pack: &Pack) -> Arc<PackFragments> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (pack.dir.clone(), pack.digest().to_string());
    if let Ok(map) = cache.lock()
        && let Some(found) = map.get(&key)
    {
        return found.clone();
    }
    let loaded = Arc::new(load_all(pack));
    if let Ok(mut map) = cache.lock() {
        if map.len() >= 256 {
            map.clear();
        }
        map.insert(key, loaded.clone());
    }
    loaded
}

/// Load every fragment file of a pack (no cache).
pub fn load_all(pack: &Pack) -> PackFragments {
    let mut out = PackFragments::default();
    for rel in &pack.fragment_files {
        let path = pack.dir.join(rel);
        let file = path.display().to_string();
        let base = rel.rsplit('/').next().unwrap_or(rel);
        let stem = base.strip_suffix(SUFFIX).unwrap_or(base).to_string();
        let result = match crate::input::read_capped(&path, super::MAX_FILE_BYTES) {
            Ok(bytes) => load_source(&pack.name, &file, &stem, &bytes),
            Err(error) => Err(vec![whole_file(
                &file,
                codes::P801.at("", format!("cannot read the fragment file: {error}")),
            )]),
        };
        let entry = match result {
            Ok(f) => Ok(Arc::new(f)),
            Err(e) => Err(Arc::new(e)),
        };
        if let Some(slot) = out.by_name.get_mut(&stem) {
            let d = whole_file(
                &file,
                codes::P801.at(
                    "",
                    format!(
                        "a second fragment file named `{stem}` in pack `{}`",
                        pack.name
                    ),
                ),
            );
            *slot = Err(Arc::new(vec![d]));
            continue;
        }
        out.by_name.insert(stem, entry);
    }
    out
}

fn whole_file(file: &str, mut d: Diagnostic) -> Diagnostic {
    d.file = Some(file.to_string());
    d.line = 1;
    d.column = 1;
    d
}

/// The JSON limits of a fragment file.
pub const LIMITS: crate::json::Limits = crate::json::Limits {
    max_bytes: super::MAX_FILE_BYTES,
    max_depth: 128,
};

/// Load one fragment file's bytes strictly; `stem` is the name its file name gives it.
pub fn load_source(
    pack: &str,
    file: &str,
    stem: &str,
    bytes: &[u8],
) -> Result<Fragment, FragmentErrors> {
    let parsed = match crate::json::parse(bytes, &LIMITS) {
        Ok(parsed) => parsed,
        Err(error) => {
            let mut d =
                crate::diagnostic::duplicate_key(&codes::P801, &error).unwrap_or_else(|| {
                    let mut d =
                        codes::P801.at("", format!("the fragment file is not valid JSON: {error}"));
                    d.line = error.span.line;
                    d.column = error.span.column;
                    d
                });
            d.file = Some(file.to_string());
            return Err(vec![d]);
        }
    };
    let mut checker = Shape::default();
    let fragment = checker.document(pack, file, stem, &parsed.value);
    if checker.errors.is_empty()
        && let Some(build) = fragment
    {
        return Ok(build(Arc::new(parsed)));
    }
    let mut errors = checker.errors;
    crate::diagnostic::resolve(&mut errors, &parsed);
    for d in &mut errors {
        d.file = Some(file.to_string());
        d.sources.push((file.to_string(), parsed.source_arc()));
    }
    crate::diagnostic::sort(&mut errors);
    Err(errors)
}

/// Whether `name` is a fragment name (`^[a-z][a-z0-9-]*$`, as pack names).
pub fn is_fragment_name(name: &str) -> bool {
    super::is_pack_name(name)
}

#[derive(Default)]
struct Shape {
    errors: Vec<Diagnostic>,
}

const PLAIN_FIELDS: [&str; 8] = [
    "id",
    "primitive",
    "workspace",
    "inputs",
    "next",
    "branches",
    "on_error",
    "max_visits",
];
const USE_FIELDS: [&str; 5] = ["id", "fragment", "with", "inputs", "exits"];

impl Shape {
    fn error(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.errors.push(
            codes::P801
                .at(pointer, message)
                .with_help("see SPEC §9.3 for the members of a fragment and its nodes"),
        );
    }

    fn unknown(&mut self, pointer: &str, object: &Map<String, Value>, allowed: &[&str]) {
        for key in object.keys() {
            if allowed.contains(&key.as_str()) {
                continue;
            }
            let near = crate::diagnostic::suggest::nearest(key, allowed.iter().copied(), 1);
            let hint = match near.first() {
                Some(n) => format!("did you mean `{n}`?"),
                None => format!("expected one of {}", allowed.join(", ")),
            };
            self.error(push(pointer, key), format!("unknown field `{key}`; {hint}"));
        }
    }

    fn schema(&mut self, pointer: &str, what: &str, value: &Value) -> bool {
        match value {
            Value::Object(_) | Value::Bool(_) => match jsonschema::validator_for(value) {
                Ok(_) => true,
                Err(e) => {
                    self.error(pointer, format!("{what} is not a valid JSON Schema: {e}"));
                    false
                }
            },
            other => {
                self.error(
                    pointer,
                    format!(
                        "{what} must be a JSON Schema (an object or a boolean), found {}",
                        crate::graph::load::type_name(other)
                    ),
                );
                false
            }
        }
    }

    fn document(
        &mut self,
        pack: &str,
        file: &str,
        stem: &str,
        value: &Value,
    ) -> Option<impl FnOnce(Arc<Parsed>) -> Fragment + use<>> {
        let Value::Object(top) = value else {
            self.error("", "a fragment document must be an object");
            return None;
        };
        self.unknown(
            "",
            top,
            &[
                "$schema", "fragment", "summary", "params", "inputs", "outputs", "exits", "entry",
                "nodes",
            ],
        );
        let name = match top.get("fragment") {
            Some(Value::String(s)) => {
                if !is_fragment_name(s) {
                    self.error(
                        "/fragment",
                        format!("fragment name {s:?} must match ^[a-z][a-z0-9-]*$"),
                    );
                } else if s != stem {
                    self.error(
                        "/fragment",
                        format!("fragment `{s}` is in a file named for `{stem}` (`{stem}{SUFFIX}`): name the file `{s}{SUFFIX}`"),
                    );
                }
                s.clone()
            }
            Some(_) => {
                self.error("/fragment", "`fragment` must be a string");
                String::new()
            }
            None => {
                self.error(
                    "",
                    "missing required field `fragment` (the fragment's name)",
                );
                String::new()
            }
        };
        let summary = match top.get("summary") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.error("/summary", "`summary` must be a string");
                None
            }
        };
        let params = top.get("params").cloned();
        if let Some(p) = &params
            && self.schema("/params", "`params`", p)
            && !matches!(p, Value::Object(_))
        {
            self.error("/params", "`params` must be an object schema");
        }
        let mut inputs = BTreeMap::new();
        match top.get("inputs") {
            None => {}
            Some(Value::Object(ports)) => {
                for (port, schema) in ports {
                    let at = push("/inputs", port);
                    if !crate::graph::load::is_node_id(port) {
                        self.error(
                            at.clone(),
                            format!("port name {port:?} must match ^[a-z][a-z0-9_]*$"),
                        );
                    }
                    self.schema(&at, &format!("port `{port}`"), schema);
                    inputs.insert(port.clone(), schema.clone());
                }
            }
            Some(_) => self.error(
                "/inputs",
                "`inputs` must be an object: port name → JSON Schema",
            ),
        }
        let mut outputs = BTreeMap::new();
        match top.get("outputs") {
            None => {}
            Some(Value::Object(ports)) => {
                for (port, binding) in ports {
                    let at = push("/outputs", port);
                    if !crate::graph::load::is_node_id(port) {
                        self.error(
                            at.clone(),
                            format!("port name {port:?} must match ^[a-z][a-z0-9_]*$"),
                        );
                    }
                    let Value::Object(b) = binding else {
                        self.error(
                            at,
                            "an output port must be `{\"from\": NODE, \"at\": POINTER}`",
                        );
                        continue;
                    };
                    self.unknown(&at, b, &["from", "at"]);
                    let from = match b.get("from") {
                        Some(Value::String(s)) => s.clone(),
                        _ => {
                            self.error(
                                at.clone(),
                                "an output port needs `from` (a node of the fragment)",
                            );
                            continue;
                        }
                    };
                    let pointer = match b.get("at") {
                        None => String::new(),
                        Some(Value::String(p)) if crate::graph::load::is_json_pointer(p) => {
                            p.clone()
                        }
                        Some(_) => {
                            self.error(push(&at, "at"), "`at` must be a JSON pointer");
                            continue;
                        }
                    };
                    outputs.insert(port.clone(), OutputPort { from, at: pointer });
                }
            }
            Some(_) => self.error(
                "/outputs",
                "`outputs` must be an object: port name → `{\"from\", \"at\"}`",
            ),
        }
        let mut exits = Vec::new();
        match top.get("exits") {
            None => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) if crate::graph::load::is_node_id(s) => {
                            if exits.contains(s) {
                                self.error(
                                    format!("/exits/{i}"),
                                    format!("exit `{s}` is declared twice"),
                                );
                            }
                            exits.push(s.clone());
                        }
                        _ => self.error(
                            format!("/exits/{i}"),
                            "an exit is a name matching ^[a-z][a-z0-9_]*$",
                        ),
                    }
                }
            }
            Some(_) => self.error("/exits", "`exits` must be an array of names"),
        }
        let entry = match top.get("entry") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                self.error("/entry", "`entry` must be a node ID");
                String::new()
            }
            None => {
                self.error("", "missing required field `entry`");
                String::new()
            }
        };
        let mut index = HashMap::new();
        match top.get("nodes") {
            Some(Value::Array(nodes)) if !nodes.is_empty() => {
                for (i, node) in nodes.iter().enumerate() {
                    let at = format!("/nodes/{i}");
                    if let Some(id) = self.node(&at, node)
                        && index.insert(id.clone(), i).is_some()
                    {
                        self.error(push(&at, "id"), format!("duplicate node id `{id}`"));
                    }
                }
            }
            Some(Value::Array(_)) => self.error("/nodes", "`nodes` must not be empty"),
            Some(_) => self.error("/nodes", "`nodes` must be an array of nodes"),
            None => self.error("", "missing required field `nodes`"),
        }
        if !entry.is_empty() && !index.is_empty() && !index.contains_key(&entry) {
            self.error(
                "/entry",
                format!("`entry` names no node of the fragment: `{entry}`"),
            );
        }
        let (pack, file) = (pack.to_string(), file.to_string());
        Some(move |parsed| Fragment {
            name,
            pack,
            file,
            summary,
            params,
            inputs,
            outputs,
            exits,
            entry,
            parsed,
            index,
        })
    }

    /// One node's shape; its ID when it has a good one.
    fn node(&mut self, at: &str, node: &Value) -> Option<String> {
        let Value::Object(object) = node else {
            self.error(at, "a node must be an object");
            return None;
        };
        let is_use = object.contains_key("fragment");
        self.unknown(at, object, if is_use { &USE_FIELDS } else { &PLAIN_FIELDS });
        let id = match object.get("id") {
            Some(Value::String(id)) if crate::graph::load::is_node_id(id) => Some(id.clone()),
            Some(Value::String(id)) => {
                self.error(
                    push(at, "id"),
                    format!("node id {id:?} must match ^[a-z][a-z0-9_]*$ (no `/`: expansion adds the use site's prefix)"),
                );
                None
            }
            Some(_) => {
                self.error(push(at, "id"), "`id` must be a string");
                None
            }
            None => {
                self.error(at, "missing required field `id`");
                None
            }
        };
        if let Some(Value::Object(inputs)) = object.get("inputs") {
            for (name, binding) in inputs {
                self.binding(&push(&push(at, "inputs"), name), binding, is_use);
            }
        } else if let Some(other) = object.get("inputs") {
            self.error(
                push(at, "inputs"),
                format!(
                    "`inputs` must be an object, found {}",
                    crate::graph::load::type_name(other)
                ),
            );
        }
        if is_use {
            if !matches!(object.get("fragment"), Some(Value::String(_))) {
                self.error(
                    push(at, "fragment"),
                    "`fragment` must be a string `PACK/NAME`",
                );
            }
            match object.get("with") {
                None | Some(Value::Object(_)) => {}
                Some(_) => self.error(
                    push(at, "with"),
                    "`with` must be an object of parameter values",
                ),
            }
            match object.get("exits") {
                None => {}
                Some(Value::Object(exits)) => {
                    for (name, target) in exits {
                        self.successor(&push(&push(at, "exits"), name), target);
                    }
                }
                Some(_) => self.error(
                    push(at, "exits"),
                    "`exits` must be an object: exit name → node ID or `{\"exit\": NAME}`",
                ),
            }
            return id;
        }
        match object.get("primitive") {
            Some(Value::String(_)) => {}
            Some(_) => self.error(push(at, "primitive"), "`primitive` must be a string"),
            None => self.error(at, "missing required field `primitive`"),
        }
        if let Some(next) = object.get("next") {
            self.successor(&push(at, "next"), next);
        }
        for member in ["branches", "on_error"] {
            match object.get(member) {
                None => {}
                Some(Value::Object(map)) => {
                    for (label, target) in map {
                        self.successor(&push(&push(at, member), label), target);
                    }
                }
                Some(_) => self.error(push(at, member), format!("`{member}` must be an object")),
            }
        }
        match object.get("max_visits") {
            None => {}
            Some(Value::Object(p)) => self.param_ref(&push(at, "max_visits"), p),
            Some(v)
                if v.as_u64()
                    .is_some_and(|n| n >= 1 && n <= u64::from(u32::MAX)) => {}
            Some(_) => self.error(
                push(at, "max_visits"),
                "`max_visits` must be a positive integer or `{\"param\": NAME}`",
            ),
        }
        match object.get("workspace") {
            None | Some(Value::String(_)) => {}
            Some(_) => self.error(push(at, "workspace"), "`workspace` must be a string"),
        }
        id
    }

    fn param_ref(&mut self, at: &str, object: &Map<String, Value>) {
        self.unknown(at, object, &["param"]);
        if !matches!(object.get("param"), Some(Value::String(_))) {
            self.error(at, "a parameter reference is `{\"param\": NAME}`");
        }
    }

    fn successor(&mut self, at: &str, target: &Value) {
        match target {
            Value::String(_) => {}
            Value::Object(object) => {
                self.unknown(at, object, &["exit"]);
                if !matches!(object.get("exit"), Some(Value::String(_))) {
                    self.error(at, "a successor is a node ID or `{\"exit\": NAME}`");
                }
            }
            _ => self.error(at, "a successor is a node ID or `{\"exit\": NAME}`"),
        }
    }

    fn binding(&mut self, at: &str, binding: &Value, _in_use: bool) {
        let Value::Object(object) = binding else {
            self.error(at, "a binding is `{\"from\": NODE, \"at\": POINTER}`, `{\"const\": VALUE}` or `{\"param\": NAME}`");
            return;
        };
        let kinds = ["from", "const", "param"]
            .iter()
            .filter(|k| object.contains_key(**k))
            .count();
        if kinds != 1 {
            self.error(
                at,
                "a binding has exactly one of `from` (with an optional `at`), `const` or `param`",
            );
            return;
        }
        if object.contains_key("from") {
            self.unknown(at, object, &["from", "at"]);
            if !matches!(object.get("from"), Some(Value::String(_))) {
                self.error(
                    push(at, "from"),
                    "`from` must be a node ID, `$in` or `$input`",
                );
            }
            match object.get("at") {
                None => {}
                Some(Value::String(p))
                    if crate::graph::load::is_json_pointer(p)
                        && object.get("from").and_then(Value::as_str) == Some("$in")
                        && p.len() < 2 =>
                {
                    self.error(
                        push(at, "at"),
                        "a `$in` binding's `at` starts with the port name (`/patch/diff`)",
                    );
                }
                Some(Value::String(p)) if crate::graph::load::is_json_pointer(p) => {}
                Some(_) => self.error(push(at, "at"), "`at` must be a JSON pointer"),
            }
            if object.get("from").and_then(Value::as_str) == Some("$in")
                && !object.contains_key("at")
            {
                self.error(
                    at,
                    "a `$in` binding needs `at`, starting with the port name (`/patch/diff`)",
                );
            }
        } else if object.contains_key("param") {
            self.param_ref(at, object);
        } else {
            self.unknown(at, object, &["const"]);
        }
    }
}

/// The node IDs a fragment's nodes use as fragments, with the use's `fragment` value.
pub fn uses(fragment: &Fragment) -> Vec<(usize, String)> {
    fragment
        .nodes()
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((i, n.get("fragment")?.as_str()?.to_string())))
        .collect()
}

/// Whether a set of strings contains one: a small helper for suggestion lists.
pub fn names<'a>(items: impl Iterator<Item = &'a String>) -> HashSet<&'a str> {
    items.map(String::as_str).collect()
}
