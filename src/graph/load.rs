//! The hand-written loader from a parsed JSON value to a [`GraphDoc`] (SPEC §2). Unlike a serde
//! derive it keeps going after the first problem: every missing, unknown or mistyped field is
//! reported as a [`ShapeError`] with the JSON pointer of the offending member and what was
//! expected there (the validation driver turns them into G003 diagnostics).

use super::doc::{Binding, Budget, GraphDoc, NodeDoc, SmallMap, Source};
use crate::json::pointer::escape_token as escape_pointer_token;
use serde_json::{Map, Value};

/// One document-shape problem at `pointer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    pub pointer: String,
    pub message: String,
}

impl ShapeError {
    /// The pointer, or `(root)` for the document itself.
    pub fn pointer_display(&self) -> &str {
        if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        }
    }
}

/// The name of a JSON value's type, as messages say it.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Whether `name` matches `^[a-z0-9][a-z0-9-]*$` (graph names).
pub fn is_graph_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Whether `id` matches `^[a-z][a-z0-9_]*$` (node IDs).
pub fn is_node_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Whether `id` matches `^[a-z][a-z0-9_]*(/[a-z][a-z0-9_]*)*$`: a node ID of an expanded graph
/// (SPEC §9.3: a fragment's node `test` used at `ship` is `ship/test`). A graph's own nodes may
/// carry such IDs too, so that the document `graph expand` prints validates as itself.
pub fn is_expanded_node_id(id: &str) -> bool {
    id.split('/').all(is_node_id)
}

/// Whether `abi` is `MAJOR.MINOR.PATCH` with decimal parts and, as semver requires, no leading
/// zero (`01.0.0` is refused, as `graph.schema.json` refuses it); returns the parts.
pub fn parse_version(abi: &str) -> Option<(u64, u64, u64)> {
    let mut parts = abi.split('.');
    let mut next = || -> Option<u64> {
        let part = parts.next()?;
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if part.len() > 1 && part.starts_with('0') {
            return None;
        }
        part.parse().ok()
    };
    let version = (next()?, next()?, next()?);
    if parts.next().is_some() {
        return None;
    }
    Some(version)
}

/// A non-negative integer in the JSON Schema sense: `3` or `3.0` (not `3.5`, not `-1`).
fn integer_value(value: &Value) -> Option<u64> {
    if let Some(n) = value.as_u64() {
        return Some(n);
    }
    let f = value.as_f64()?;
    // Exact for every value up to 2^53, far beyond any bound the loader accepts.
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= 9_007_199_254_740_992.0)
        .then_some(f as u64)
}

/// Whether `pointer` is an RFC 6901 JSON pointer (empty, or `/`-separated tokens whose `~` is
/// always followed by `0` or `1`).
pub fn is_json_pointer(pointer: &str) -> bool {
    if pointer.is_empty() {
        return true;
    }
    if !pointer.starts_with('/') {
        return false;
    }
    let bytes = pointer.as_bytes();
    bytes
        .iter()
        .enumerate()
        .all(|(i, &b)| b != b'~' || matches!(bytes.get(i + 1), Some(b'0') | Some(b'1')))
}

struct Loader {
    errors: Vec<ShapeError>,
}

/// Where the loader is in the document: a pointer that is only spelled out when an error names
/// it, so a clean document formats no pointers at all.
#[derive(Clone, Copy)]
enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl<'p> Path<'p> {
    fn key(&'p self, token: &'p str) -> Path<'p> {
        Path::Key(self, token)
    }

    fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Key(parent, token) => {
                parent.write(out);
                out.push('/');
                out.push_str(&escape_pointer_token(token));
            }
            Path::Index(parent, index) => {
                parent.write(out);
                out.push('/');
                out.push_str(&index.to_string());
            }
        }
    }
}

fn child(pointer: &Path<'_>, token: &str) -> String {
    pointer.key(token).render()
}

impl Loader {
    fn error(&mut self, pointer: String, message: String) {
        self.errors.push(ShapeError { pointer, message });
    }

    fn mistyped(&mut self, pointer: String, what: &str, expected: &str, found: &Value) {
        self.error(
            pointer,
            format!("`{what}` must be {expected}, found {}", type_name(found)),
        );
    }

    /// Reports unknown members of `object` (everything not in `allowed`).
    fn unknown_fields(
        &mut self,
        pointer: &Path<'_>,
        object: &Map<String, Value>,
        allowed: &[&str],
    ) {
        self.fields::<0>(pointer, object, allowed, &[]);
    }

    /// Reports unknown members of `object` (everything not in `allowed`) and returns the members
    /// named in `wanted`, by position: one pass over the keys instead of a hashed lookup per
    /// field.
    fn fields<'v, const N: usize>(
        &mut self,
        pointer: &Path<'_>,
        object: &'v Map<String, Value>,
        allowed: &[&str],
        wanted: &[&str; N],
    ) -> [Option<&'v Value>; N] {
        let mut found = [None; N];
        for (key, value) in object {
            if let Some(slot) = wanted.iter().position(|w| *w == key) {
                found[slot] = Some(value);
            }
            if !allowed.contains(&key.as_str()) {
                let suggestions = crate::diagnostic::suggest::nearest(
                    key,
                    allowed.iter().copied().filter(|a| *a != "$schema"),
                    1,
                );
                let expected = match suggestions.first() {
                    Some(near) => format!("did you mean `{near}`?"),
                    None => format!(
                        "expected one of {}",
                        allowed
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                self.error(
                    child(pointer, key),
                    format!("unknown field `{key}`; {expected}"),
                );
            }
        }
        found
    }

    fn string(
        &mut self,
        pointer: &Path<'_>,
        object: &Map<String, Value>,
        key: &str,
        required: bool,
    ) -> Option<String> {
        self.string_member(pointer, object.get(key), key, required)
    }

    /// [`Loader::string`] given the member `key` already looked up.
    fn string_member(
        &mut self,
        pointer: &Path<'_>,
        member: Option<&Value>,
        key: &str,
        required: bool,
    ) -> Option<String> {
        match member {
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.mistyped(child(pointer, key), key, "a string", other);
                None
            }
            None => {
                if required {
                    self.error(
                        pointer.render(),
                        format!("missing required field `{key}` (a string)"),
                    );
                }
                None
            }
        }
    }

    fn string_map(
        &mut self,
        pointer: &Path<'_>,
        what: &str,
        value: &Value,
    ) -> Option<SmallMap<String>> {
        let Value::Object(object) = value else {
            self.mistyped(
                pointer.render(),
                what,
                "an object from names to node IDs",
                value,
            );
            return None;
        };
        let mut map = SmallMap::new();
        let mut ok = true;
        for (key, target) in object {
            match target {
                Value::String(s) => {
                    map.insert(key.clone(), s.clone());
                }
                other => {
                    ok = false;
                    self.mistyped(
                        child(pointer, key),
                        &format!("{what}.{key}"),
                        "a node ID (a string)",
                        other,
                    );
                }
            }
        }
        ok.then_some(map)
    }

    fn binding(&mut self, pointer: &Path<'_>, value: &Value) -> Option<Binding> {
        let Value::Object(object) = value else {
            self.mistyped(
                pointer.render(),
                "binding",
                "an object `{\"from\": NODE, \"at\": POINTER}` or `{\"const\": VALUE}`",
                value,
            );
            return None;
        };
        // One pass over the (few) members instead of a hashed lookup per field.
        let (mut from, mut constant, mut at) = (None, None, None);
        for (key, member) in object {
            match key.as_str() {
                "from" => from = Some(member),
                "const" => constant = Some(member),
                "at" => at = Some(member),
                _ => {}
            }
        }
        match (from, constant) {
            (Some(_), Some(_)) => {
                self.error(
                    pointer.render(),
                    "a binding has either `from` (with an optional `at`) or `const`, not both"
                        .to_string(),
                );
                None
            }
            (None, Some(value)) => {
                let before = self.errors.len();
                self.unknown_fields(pointer, object, &["const"]);
                (self.errors.len() == before).then(|| Binding::Const {
                    value: value.clone(),
                })
            }
            (from, None) => {
                self.unknown_fields(pointer, object, &["from", "at"]);
                let clean = object.len() == usize::from(from.is_some()) + usize::from(at.is_some());
                if from.is_none() {
                    self.error(
                        pointer.render(),
                        "a binding needs `from` (a node ID or `$input`) or `const`".to_string(),
                    );
                    return None;
                }
                let from = self.string_member(pointer, from, "from", true);
                let at = self.string_member(pointer, at, "at", false);
                if let Some(at) = &at
                    && !is_json_pointer(at)
                {
                    self.error(
                        child(pointer, "at"),
                        format!(
                            "`at` must be a JSON pointer (empty or starting with `/`, `~` only as `~0` or `~1`), found {at:?}"
                        ),
                    );
                    return None;
                }
                if clean {
                    from.map(|from| Binding::From {
                        from: Source::from(from),
                        at,
                    })
                } else {
                    None
                }
            }
        }
    }

    fn node(&mut self, pointer: &Path<'_>, value: &Value) -> Option<NodeDoc> {
        let Value::Object(object) = value else {
            self.mistyped(pointer.render(), "node", "an object", value);
            return None;
        };
        let before = self.errors.len();
        const FIELDS: [&str; 8] = [
            "id",
            "primitive",
            "workspace",
            "inputs",
            "next",
            "branches",
            "on_error",
            "max_visits",
        ];
        let [
            id,
            primitive,
            workspace,
            inputs_member,
            next,
            branches,
            on_error,
            max_visits,
        ] = self.fields(pointer, object, &FIELDS, &FIELDS);
        let id = self.string_member(pointer, id, "id", true);
        if let Some(id) = &id
            && !is_expanded_node_id(id)
        {
            self.error(
                child(pointer, "id"),
                format!("node id {id:?} must match ^[a-z][a-z0-9_]*$"),
            );
        }
        let primitive = self.string_member(pointer, primitive, "primitive", true);
        let workspace = self.string_member(pointer, workspace, "workspace", false);
        if workspace.as_deref() == Some("") {
            self.error(
                child(pointer, "workspace"),
                "`workspace` must not be empty".to_string(),
            );
        }
        let mut inputs = SmallMap::new();
        match inputs_member {
            None => {}
            Some(Value::Object(bindings)) => {
                let inputs_pointer = pointer.key("inputs");
                for (property, binding) in bindings {
                    if let Some(b) = self.binding(&inputs_pointer.key(property), binding) {
                        inputs.insert(property.clone(), b);
                    }
                }
            }
            Some(other) => self.mistyped(
                child(pointer, "inputs"),
                "inputs",
                "an object from input properties to bindings",
                other,
            ),
        }
        let next = self.string_member(pointer, next, "next", false);
        let branches =
            branches.and_then(|v| self.string_map(&pointer.key("branches"), "branches", v));
        let on_error =
            on_error.and_then(|v| self.string_map(&pointer.key("on_error"), "on_error", v));
        let max_visits = match max_visits {
            None => None,
            // JSON Schema's `integer` is any number with a zero fractional part: `3.0` is 3.
            Some(value) => match integer_value(value) {
                Some(n) if n >= 1 && n <= u64::from(u32::MAX) => Some(n as u32),
                _ => {
                    self.error(
                        child(pointer, "max_visits"),
                        format!(
                            "`max_visits` must be a positive integer (at most {}), found {}",
                            u32::MAX,
                            render_short(value)
                        ),
                    );
                    None
                }
            },
        };
        if self.errors.len() != before {
            return None;
        }
        Some(NodeDoc {
            id: id?,
            primitive: primitive?,
            workspace,
            inputs,
            next,
            branches,
            on_error,
            max_visits,
        })
    }

    fn budget(&mut self, value: &Value) -> Option<Budget> {
        let pointer = &Path::Root.key("budget");
        let Value::Object(object) = value else {
            self.mistyped(pointer.render(), "budget", "an object", value);
            return None;
        };
        let before = self.errors.len();
        self.unknown_fields(pointer, object, &["max_steps", "max_spend_usd"]);
        let max_steps = match object.get("max_steps") {
            None => None,
            // An integer in the JSON Schema sense (`100` or `100.0`), as `max_visits` and the
            // editor schema's `"type": "integer"` take it.
            Some(value) => match integer_value(value) {
                Some(n) => Some(n),
                None => {
                    self.error(
                        child(pointer, "max_steps"),
                        format!(
                            "`max_steps` must be a non-negative integer, found {}",
                            render_short(value)
                        ),
                    );
                    None
                }
            },
        };
        let max_spend_usd = match object.get("max_spend_usd") {
            None => None,
            Some(value) => match value.as_f64() {
                Some(x) if x >= 0.0 && x.is_finite() => Some(x),
                _ => {
                    self.error(
                        child(pointer, "max_spend_usd"),
                        format!(
                            "`max_spend_usd` must be a non-negative number, found {}",
                            render_short(value)
                        ),
                    );
                    None
                }
            },
        };
        (self.errors.len() == before).then_some(Budget {
            max_steps,
            max_spend_usd,
        })
    }

    /// `taken_nodes`: the `nodes` array, moved out of `value` by [`load_owned`] (`value` then
    /// holds an empty array there).
    fn document(&mut self, value: &Value, taken_nodes: Option<Vec<Value>>) -> Option<GraphDoc> {
        let Value::Object(object) = value else {
            self.mistyped(String::new(), "the graph document", "an object", value);
            return None;
        };
        self.unknown_fields(
            &Path::Root,
            object,
            &[
                "$schema",
                "graph",
                "abi",
                "description",
                "capabilities",
                "budget",
                "input",
                "packs",
                "entry",
                "nodes",
            ],
        );
        let schema = self.string(&Path::Root, object, "$schema", false);
        let graph = self.string(&Path::Root, object, "graph", true);
        if let Some(name) = &graph
            && !is_graph_name(name)
        {
            self.error(
                "/graph".to_string(),
                format!("graph name {name:?} must match ^[a-z0-9][a-z0-9-]*$"),
            );
        }
        let abi = self.string(&Path::Root, object, "abi", true);
        if let Some(abi) = &abi
            && parse_version(abi).is_none()
        {
            self.error(
                "/abi".to_string(),
                format!("`abi` must be a version MAJOR.MINOR.PATCH, found {abi:?}"),
            );
        }
        let description = self.string(&Path::Root, object, "description", false);
        let mut capabilities = Vec::new();
        match object.get("capabilities") {
            // Required (SPEC §2 marks only `budget`, `input` and `packs` optional); `[]` is the
            // empty tool boundary, which R104 then reports node by node.
            None => self.error(
                String::new(),
                "missing required field `capabilities` (an array of primitive IDs, aliases or \
                 `prefix.*`)"
                    .to_string(),
            ),
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => capabilities.push(s.clone()),
                        other => self.mistyped(
                            format!("/capabilities/{i}"),
                            "capabilities entry",
                            "a string (an ID, an alias or `prefix.*`)",
                            other,
                        ),
                    }
                }
            }
            Some(other) => self.mistyped(
                "/capabilities".to_string(),
                "capabilities",
                "an array of strings",
                other,
            ),
        }
        let budget = object.get("budget").and_then(|b| self.budget(b));
        let input = match object.get("input") {
            None => None,
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => {
                if let Err(e) = jsonschema::validator_for(schema) {
                    self.error(
                        "/input".to_string(),
                        format!("`input` is not a valid JSON Schema: {e}"),
                    );
                }
                Some(schema.clone())
            }
            Some(other) => {
                self.mistyped(
                    "/input".to_string(),
                    "input",
                    "a JSON Schema (an object or a boolean)",
                    other,
                );
                None
            }
        };
        let mut packs = SmallMap::new();
        match object.get("packs") {
            None => {}
            Some(Value::Object(members)) => {
                for (name, range) in members {
                    match range {
                        Value::String(range) => {
                            packs.insert(name.clone(), range.clone());
                        }
                        other => self.error(
                            Path::Root.key("packs").key(name).render(),
                            format!(
                                "the `packs` entry for `{name}` must be a semver range string \
                                 such as \"^1.2\", found {}",
                                type_name(other)
                            ),
                        ),
                    }
                }
            }
            Some(other) => self.mistyped(
                "/packs".to_string(),
                "packs",
                "an object of pack name → semver range",
                other,
            ),
        }
        let entry = self.string(&Path::Root, object, "entry", true);
        let mut nodes = Vec::new();
        if let Some(items) = taken_nodes {
            nodes.reserve_exact(items.len());
            // Each node's value is dropped as soon as its `NodeDoc` is built: the value tree and
            // the document are never both whole.
            for (i, item) in items.into_iter().enumerate() {
                if let Some(node) = self.node(&Path::Index(&Path::Root.key("nodes"), i), &item) {
                    nodes.push(node);
                }
            }
        } else {
            self.nodes(object.get("nodes"), &mut nodes);
        }
        if !self.errors.is_empty() {
            return None;
        }
        Some(GraphDoc {
            schema,
            graph: graph?,
            abi: abi?,
            description,
            capabilities,
            budget,
            input,
            packs,
            entry: entry?,
            nodes,
        })
    }

    fn nodes(&mut self, member: Option<&Value>, nodes: &mut Vec<NodeDoc>) {
        match member {
            None => self.error(
                String::new(),
                "missing required field `nodes` (an array of node objects)".to_string(),
            ),
            Some(Value::Array(items)) => {
                if items.is_empty() {
                    self.error(
                        "/nodes".to_string(),
                        "`nodes` must not be empty".to_string(),
                    );
                }
                nodes.reserve_exact(items.len());
                for (i, item) in items.iter().enumerate() {
                    if let Some(node) = self.node(&Path::Index(&Path::Root.key("nodes"), i), item) {
                        nodes.push(node);
                    }
                }
            }
            Some(other) => self.mistyped(
                "/nodes".to_string(),
                "nodes",
                "an array of node objects",
                other,
            ),
        }
    }
}

fn render_short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// Load a graph document, or every shape error found in it (in document order).
pub fn load(value: &Value) -> Result<GraphDoc, Vec<ShapeError>> {
    let mut loader = Loader { errors: Vec::new() };
    match loader.document(value, None) {
        Some(doc) if loader.errors.is_empty() => Ok(doc),
        _ => Err(loader.errors),
    }
}

/// The shape errors of a document's own members, its nodes left out: what can be said of a graph
/// that uses fragments before it is expanded (its nodes are checked once expanded, its use sites
/// by the expansion), so that a malformed `packs` or an unknown member is G003 whether or not a
/// fragment is used.
pub fn document_shape(value: &Value) -> Vec<ShapeError> {
    let mut loader = Loader { errors: Vec::new() };
    loader.document(value, Some(Vec::new()));
    loader.errors
}

/// [`load`], consuming the value: the nodes are loaded one by one and each node's part of the
/// value tree is freed once it is loaded, so a large graph's peak memory is about one copy of
/// it, not two. Same result and errors as [`load`].
pub fn load_owned(mut value: Value) -> Result<GraphDoc, Vec<ShapeError>> {
    let taken = match value.get_mut("nodes") {
        Some(Value::Array(items)) if !items.is_empty() => Some(std::mem::take(items)),
        _ => None,
    };
    let mut loader = Loader { errors: Vec::new() };
    match loader.document(&value, taken) {
        Some(doc) if loader.errors.is_empty() => Ok(doc),
        _ => Err(loader.errors),
    }
}
