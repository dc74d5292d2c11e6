//! Fragment expansion (SPEC §9.3), JSON-level and before the graph is loaded: a graph document
//! whose nodes use fragments (`{"id", "fragment": "PACK/NAME", "with", "inputs", "exits"}`)
//! becomes an expanded document whose nodes are the fragments' nodes with IDs `use/node`, plus an
//! origin map (expanded node → the graph's node, or the fragment file's node and the chain of use
//! sites that put it there). This module owns the resolution of fragment references (P821, P811
//! across packs, a broken fragment file's P801), the nesting checks before anything is expanded
//! (P828: cycles and depth > 8), the boundary checks at every use site (P822 `with` against
//! `params`, P823 ports, P824/P825 port bindings by the §3.2 checker, P826 exits) and of every
//! fragment's interface (P823 `$in` ports, P826 exit targets, P827 output ports), and the rewrite
//! itself: `$in` bindings with pointer composition, `{"param"}` values and defaults, `{"exit"}`
//! successors wired to the use site's targets, output ports resolved through nested uses.
//! [`lint_fragments`] runs the same fragment-side checks over a whole pack, for `pack lint`.
//! Everything downstream — every rule, pack rules, replay, simulate — runs on the expanded
//! document unchanged; `fragment_map` maps their diagnostics back.

use super::fragment::{Fragment, fragments_of};
use super::{Pack, fragment};
use crate::codes;
use crate::diagnostic::{Diagnostic, Related, Witness, location_span};
use crate::json::Parsed;
use crate::json::pointer::push;
use crate::registry::Registry;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// The deepest nesting of fragment uses (a use in a graph is depth 1).
pub const MAX_DEPTH: usize = 8;
/// The most nodes an expansion may produce (a fragment used 10,000 times is well within it).
pub const MAX_NODES: usize = 200_000;

/// Where an expanded node came from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// Node `i` of the graph document itself.
    Graph(usize),
    /// Node `index` of a fragment file, put there by `chain` (innermost use first).
    Fragment {
        fragment: Arc<Fragment>,
        index: usize,
        chain: Arc<Vec<UseSite>>,
    },
}

/// One use of a fragment: the node that uses it, in the graph or in an enclosing fragment.
#[derive(Debug, Clone)]
pub struct UseSite {
    /// The use's expanded ID (`ship`, `ship/inner`).
    pub id: String,
    /// The fragment the use is written in; `None` for the graph.
    pub in_fragment: Option<Arc<Fragment>>,
    /// The use node's pointer in its file (`/nodes/4`).
    pub pointer: String,
}

/// An expanded document and where its nodes came from.
#[derive(Debug, Clone)]
pub struct Expansion {
    /// The expanded graph document (no `fragment` nodes).
    pub value: Value,
    /// One per expanded node, in `value["nodes"]` order.
    pub origins: Vec<Origin>,
    /// The expanded node IDs, in the same order (for witness paths, which name nodes by ID).
    pub ids: Vec<String>,
    /// Warnings found at the boundary (P825), located.
    pub warnings: Vec<Diagnostic>,
    /// The version of every pack of the composition, by name (a use site's label names the
    /// fragment's version: `shipkit/land@1.2.0`).
    pub versions: BTreeMap<String, String>,
}

/// What expansion needs besides the document.
pub struct Context<'a> {
    /// The graph file, as reported.
    pub file: &'a str,
    /// The graph document's spans (for the use sites' lines in messages).
    pub parsed: &'a Parsed,
    /// The effective registry of the graph's composition.
    pub registry: &'a Registry,
    /// The composition's packs.
    pub packs: &'a [Arc<Pack>],
    /// The pack names the graph declares in `packs`.
    pub declared: &'a [String],
    /// The pack names on the pack path (a fragment of one the graph does not declare is P811).
    pub on_path: &'a [String],
}

/// Whether a graph document has any node that uses a fragment.
pub fn has_uses(value: &Value) -> bool {
    value
        .get("nodes")
        .and_then(Value::as_array)
        .is_some_and(|nodes| nodes.iter().any(is_use))
}

fn is_use(node: &Value) -> bool {
    node.get("fragment").is_some()
}

/// Expand a graph document. `Err` holds the boundary findings (errors, and any warnings found
/// with them) when the graph cannot be expanded soundly; diagnostics in the graph have
/// `file: None` and unresolved lines, those in fragment files are located.
pub fn expand(value: &Value, cx: &Context<'_>) -> Result<Expansion, Vec<Diagnostic>> {
    expand_over(value, cx, None)
}

/// [`expand`], with `overlay` standing in for its pack's file of the same name (an editor's
/// unsaved text, checked by [`check_alone`]).
fn expand_over(
    value: &Value,
    cx: &Context<'_>,
    overlay: Option<&Arc<Fragment>>,
) -> Result<Expansion, Vec<Diagnostic>> {
    let Some(nodes) = value.get("nodes").and_then(Value::as_array) else {
        return Err(vec![
            codes::G003.at("/nodes", "`nodes` must be an array of node objects"),
        ]);
    };
    let mut ex = Expander::new(cx, value.get("input").cloned());
    // The stand-in is what every reference to its name resolves to, wherever a reference to
    // it may be written: the graph, its own pack's fragments, and those of packs that require
    // its pack (the references are resolved through this table first).
    if let Some(o) = overlay {
        let key = o.key();
        ex.refs.insert((None, key.clone()), o.clone());
        for p in cx.packs {
            if p.name == o.pack || p.requires.iter().any(|r| r.name == o.pack) {
                ex.refs
                    .insert((Some(p.name.clone()), key.clone()), o.clone());
            }
        }
    }
    // 1. Resolve every reference and check the nesting before expanding anything.
    let mut graph_uses = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        if !is_use(node) {
            continue;
        }
        let at = format!("/nodes/{i}");
        if !ex.use_shape(&at, node) {
            continue;
        }
        let text = node["fragment"].as_str().unwrap_or_default();
        if let Some(f) = ex.resolve(None, &at, text, &[]) {
            if let Some(id) = node.get("id").and_then(Value::as_str) {
                ex.graph_uses.insert(id.to_string(), f.clone());
            }
            graph_uses.push((i, f));
        }
    }
    if ex.has_errors() {
        return Err(ex.diags);
    }
    let mut ok_depth: HashMap<String, usize> = HashMap::new();
    for (i, f) in &graph_uses {
        let id = nodes[*i]
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let path = vec![(None, format!("/nodes/{i}"), id, f.clone())];
        if !ex.nesting(f, 1, &path, &mut ok_depth) {
            return Err(ex.diags);
        }
    }
    if ex.has_errors() {
        return Err(ex.diags);
    }
    // 2. Expand.
    let graph_scope = Scope {
        prefix: String::new(),
        fragment: None,
        chain: Arc::new(Vec::new()),
        inputs: BTreeMap::new(),
        params: Map::new(),
        exits: BTreeMap::new(),
    };
    for (i, node) in nodes.iter().enumerate() {
        if is_use(node) {
            if !ex.expand_use(&graph_scope, i, node) {
                return Err(ex.diags);
            }
        } else {
            let rewritten = ex.rewrite_node(&graph_scope, i, node);
            ex.out.push(rewritten);
            ex.origins.push(Origin::Graph(i));
        }
    }
    ex.check_ports();
    if ex.has_errors() {
        return Err(ex.diags);
    }
    let ids: Vec<String> = ex
        .out
        .iter()
        .map(|n| {
            n.get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let mut doc = Map::new();
    if let Value::Object(top) = value {
        for (k, v) in top {
            if k == "nodes" {
                doc.insert(k.clone(), Value::Array(std::mem::take(&mut ex.out)));
            } else if k == "entry"
                && let Some(entry) = v.as_str().and_then(|e| ex.graph_target(e))
            {
                // An entry that names a use starts at the use's entry.
                doc.insert(k.clone(), Value::String(entry));
            } else {
                doc.insert(k.clone(), v.clone());
            }
        }
    }
    Ok(Expansion {
        value: Value::Object(doc),
        origins: ex.origins,
        ids,
        warnings: ex.diags,
        versions: cx
            .packs
            .iter()
            .map(|p| (p.name.clone(), p.version.to_string()))
            .collect(),
    })
}

/// `pack lint`'s checks of a pack's fragments, without a graph (SPEC §9.5): every fragment
/// file loaded strictly (its P801s, located in it), every node's primitive known to `cx`'s
/// registry (R101, as a graph through the fragment would say), every nested use resolved (P821; P811 for a
/// pack the fragment's pack does not require; P801 at the use of a broken one) and its names
/// checked against the fragment it uses (P822 `with`, P823 ports, P826 exits), every
/// fragment's interface (P822, P823, P826, P827: what the fragment's nodes use is declared) and
/// the nesting of its uses (P828: a cycle, or deeper than 8 counting the fragment as depth 1).
/// `cx` is the pack's composition (`declared`: the pack itself); each finding is located in
/// the fragment file it is about, once.
pub fn lint_fragments(pack: &Pack, cx: &Context<'_>) -> Vec<Diagnostic> {
    let all = fragments_of(pack);
    let mut out: Vec<Diagnostic> = all.errors().cloned().collect();
    let mut ex = Expander::new(cx, None);
    // A broken fragment used by another is reported in its own file above already.
    ex.reported.extend(
        all.by_name
            .keys()
            .map(|name| format!("{}/{name}", pack.name)),
    );
    let loaded: Vec<&Arc<Fragment>> = all
        .by_name
        .values()
        .filter_map(|r| r.as_ref().ok())
        .collect();
    for f in &loaded {
        // Each node's primitive against the pack's composition: the R101 a graph would get
        // through the fragment, whether or not a graph uses it yet.
        for (j, node) in f.nodes().iter().enumerate() {
            if let Some(primitive) = node.get("primitive").and_then(Value::as_str)
                && cx.registry.lookup(primitive).is_none()
            {
                let pointer = push(&format!("/nodes/{j}"), "primitive");
                let d =
                    crate::rules::r101_unknown_primitive::unknown(pointer, primitive, cx.registry);
                ex.report(Some(f), d, &[]);
            }
        }
        for (j, text) in fragment::uses(f) {
            let at = format!("/nodes/{j}");
            if let Some(inner) = ex.resolve(Some(f), &at, &text, &[]) {
                for d in nested_use_interface(&at, &f.nodes()[j], &inner) {
                    ex.report(Some(f), d, &[]);
                }
            }
        }
        ex.interface(f);
    }
    let mut ok_depth: HashMap<String, usize> = HashMap::new();
    for f in &loaded {
        ex.nesting(f, 1, &[], &mut ok_depth);
    }
    // Once per place; a cycle once, wherever along it the walk started.
    let mut seen = HashSet::new();
    for d in ex.diags {
        let key = match &d.witness {
            Some(Witness::Path(cycle)) if d.code == codes::P828.code => {
                let members: std::collections::BTreeSet<&String> = cycle.iter().collect();
                format!("cycle {members:?}")
            }
            _ => format!("{:?} {} {} {}", d.file, d.pointer, d.code, d.message),
        };
        if seen.insert(key) {
            out.push(d);
        }
    }
    out
}

/// What `pack lint` can say of a nested use without values: the names it writes against the
/// fragment it uses — `with` members the fragment declares (P822), ports bound exactly as
/// declared (P823), exits wired exactly as declared (P826). The values (`with` against
/// `params`, port schemas) are checked when a graph expands the use.
fn nested_use_interface(at: &str, node: &Value, inner: &Fragment) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let members = |name: &str| match node.get(name) {
        Some(Value::Object(m)) => m.keys().cloned().collect::<Vec<_>>(),
        _ => Vec::new(),
    };
    for name in members("with") {
        if !inner.declares_param(&name) {
            out.push(codes::P822.at(
                push(&push(at, "with"), &name),
                format!("fragment `{}` has no parameter `{name}`", inner.key()),
            ));
        }
    }
    let bound = members("inputs");
    for port in &bound {
        if !inner.inputs.contains_key(port) {
            out.push(codes::P823.at(
                push(&push(at, "inputs"), port),
                format!("fragment `{}` has no input port `{port}`", inner.key()),
            ));
        }
    }
    for port in inner.inputs.keys() {
        if !bound.contains(port) {
            out.push(codes::P823.at(
                if node.get("inputs").is_some() {
                    push(at, "inputs")
                } else {
                    at.to_string()
                },
                format!(
                    "input port `{port}` of fragment `{}` is not bound",
                    inner.key()
                ),
            ));
        }
    }
    let wired = members("exits");
    for name in &wired {
        if !inner.exits.contains(name) {
            out.push(codes::P826.at(
                push(&push(at, "exits"), name),
                format!("fragment `{}` has no exit `{name}`", inner.key()),
            ));
        }
    }
    for name in &inner.exits {
        if !wired.contains(name) {
            out.push(codes::P826.at(
                if node.get("exits").is_some() {
                    push(at, "exits")
                } else {
                    at.to_string()
                },
                format!("exit `{name}` of fragment `{}` is not wired", inner.key()),
            ));
        }
    }
    out
}

/// The scope a node is expanded in: the graph, or one use of a fragment.
struct Scope {
    /// `""` in the graph, `ship/` inside the use `ship`.
    prefix: String,
    fragment: Option<Arc<Fragment>>,
    /// The use sites enclosing this scope, innermost first.
    chain: Arc<Vec<UseSite>>,
    /// Port → the use site's binding, resolved to expanded IDs (`{"from", "at"}` or `{"const"}`).
    inputs: BTreeMap<String, Value>,
    /// The parameter values: `with`, then defaults.
    params: Map<String, Value>,
    /// Exit → the expanded node it goes to.
    exits: BTreeMap<String, String>,
}

/// A port binding to check against the port's schema once every node is expanded.
struct PortCheck {
    binding: Value,
    schema: Value,
    /// Where the binding is written: `(fragment or graph, pointer, chain of that scope)`.
    fragment: Option<Arc<Fragment>>,
    pointer: String,
    chain: Arc<Vec<UseSite>>,
    port: String,
    /// How much of the binding's resolved pointer an enclosing use site wrote (a nested use
    /// that passes its fragment's port on, `{"from": "$in", …}`): a pointer that goes wrong
    /// there is that site's mistake, reported by its own check.
    inherited: usize,
}

struct Expander<'c, 'a> {
    cx: &'c Context<'a>,
    /// The graph's use nodes by ID.
    graph_uses: HashMap<String, Arc<Fragment>>,
    /// (pack the reference is written in, text) → fragment.
    refs: HashMap<(Option<String>, String), Arc<Fragment>>,
    /// Broken fragment files already reported.
    reported: HashSet<String>,
    out: Vec<Value>,
    origins: Vec<Origin>,
    diags: Vec<Diagnostic>,
    ports: Vec<PortCheck>,
    interfaces: HashSet<String>,
    missing_params: HashSet<(String, String)>,
    /// The graph's `input` schema.
    input: Option<Value>,
}

impl<'c, 'a> Expander<'c, 'a> {
    /// An expander with nothing expanded yet; `input` is the graph's `input` schema.
    fn new(cx: &'c Context<'a>, input: Option<Value>) -> Self {
        Expander {
            cx,
            graph_uses: HashMap::new(),
            refs: HashMap::new(),
            reported: HashSet::new(),
            out: Vec::new(),
            origins: Vec::new(),
            diags: Vec::new(),
            ports: Vec::new(),
            interfaces: HashSet::new(),
            missing_params: HashSet::new(),
            input,
        }
    }
}

/// One use on a nesting-check path: (the fragment it is written in, its pointer, its ID, the
/// fragment it uses).
type PathStep = (Option<Arc<Fragment>>, String, String, Arc<Fragment>);

impl Expander<'_, '_> {
    fn has_errors(&self) -> bool {
        self.diags
            .iter()
            .any(|d| d.severity == codes::Severity::Error)
    }

    /// Report `d` at `pointer` in `fragment`'s file (or the graph's), with the use sites of
    /// `chain` as related locations (innermost first, outermost last).
    fn report(&mut self, fragment: Option<&Arc<Fragment>>, mut d: Diagnostic, chain: &[UseSite]) {
        if let Some(f) = fragment {
            d.set_span(location_span(&f.parsed, &d.pointer));
            d.file = Some(f.file.clone());
            d.sources.push((f.file.clone(), f.parsed.source_arc()));
        }
        for site in chain {
            if let Some(f) = &site.in_fragment
                && !d.sources.iter().any(|(file, _)| *file == f.file)
            {
                d.sources.push((f.file.clone(), f.parsed.source_arc()));
            }
        }
        d.related
            .extend(chain_related(self.cx.file, self.cx.parsed, chain));
        self.diags.push(d);
    }

    /// A use node's shape (in the graph; fragments' uses were checked when they loaded).
    fn use_shape(&mut self, at: &str, node: &Value) -> bool {
        let before = self.diags.len();
        let Value::Object(object) = node else {
            return false;
        };
        for key in object.keys() {
            if !["id", "fragment", "with", "inputs", "exits"].contains(&key.as_str()) {
                let near = crate::diagnostic::suggest::nearest(
                    key,
                    ["id", "fragment", "with", "inputs", "exits"].into_iter(),
                    1,
                );
                let hint = near
                    .first()
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_else(|| {
                        "; a node that uses a fragment has `id`, `fragment`, `with`, `inputs`, `exits`"
                            .to_string()
                    });
                self.diags.push(codes::G003.at(
                    push(at, key),
                    format!("unknown field `{key}` on a fragment use{hint}"),
                ));
            }
        }
        match object.get("id") {
            Some(Value::String(id)) if crate::graph::load::is_node_id(id) => {}
            Some(_) => self.diags.push(codes::G003.at(
                push(at, "id"),
                "the ID of a node that uses a fragment must match ^[a-z][a-z0-9_]*$",
            )),
            None => self
                .diags
                .push(codes::G003.at(at, "missing required field `id`")),
        }
        if !matches!(object.get("fragment"), Some(Value::String(_))) {
            self.diags.push(codes::G003.at(
                push(at, "fragment"),
                "`fragment` must be a string `PACK/NAME`",
            ));
        }
        if !matches!(object.get("with"), None | Some(Value::Object(_))) {
            self.diags.push(codes::G003.at(
                push(at, "with"),
                "`with` must be an object of parameter values",
            ));
        }
        match object.get("inputs") {
            None => {}
            Some(Value::Object(bindings)) => {
                for (port, b) in bindings {
                    let ok = match b {
                        Value::Object(m) => {
                            (m.len() == 1 && m.contains_key("const"))
                                || (matches!(m.get("from"), Some(Value::String(_)))
                                    && m.keys().all(|k| k == "from" || k == "at")
                                    && m.get("at").is_none_or(|a| {
                                        a.as_str().is_some_and(crate::graph::load::is_json_pointer)
                                    }))
                        }
                        _ => false,
                    };
                    if !ok {
                        self.diags.push(codes::G003.at(
                            push(&push(at, "inputs"), port),
                            "a port binding is `{\"from\": NODE, \"at\": POINTER}` or `{\"const\": VALUE}`",
                        ));
                    }
                }
            }
            Some(_) => self.diags.push(codes::G003.at(
                push(at, "inputs"),
                "`inputs` must be an object: port name → binding",
            )),
        }
        match object.get("exits") {
            None => {}
            Some(Value::Object(exits)) => {
                for (name, target) in exits {
                    if !target.is_string() {
                        self.diags.push(codes::G003.at(
                            push(&push(at, "exits"), name),
                            "an exit is wired to a node ID (a string)",
                        ));
                    }
                }
            }
            Some(_) => self.diags.push(codes::G003.at(
                push(at, "exits"),
                "`exits` must be an object: exit name → node ID",
            )),
        }
        self.diags.len() == before
    }

    /// Resolve `PACK/NAME` written at `at` (a use node) in `in_fragment` (or the graph).
    fn resolve(
        &mut self,
        in_fragment: Option<&Arc<Fragment>>,
        at: &str,
        text: &str,
        chain: &[UseSite],
    ) -> Option<Arc<Fragment>> {
        let key = (in_fragment.map(|f| f.pack.clone()), text.to_string());
        if let Some(f) = self.refs.get(&key) {
            return Some(f.clone());
        }
        let pointer = push(at, "fragment");
        let Some((pack_name, name)) = text
            .split_once('/')
            .filter(|(p, n)| super::is_pack_name(p) && fragment::is_fragment_name(n))
        else {
            let d = codes::P821.at(
                pointer,
                format!("`{text}` is not a fragment reference: write `PACK/NAME`"),
            );
            self.report(in_fragment, d, chain);
            return None;
        };
        let pack = self.cx.packs.iter().find(|p| p.name == pack_name).cloned();
        let allowed = match in_fragment {
            None => self.cx.declared.iter().any(|d| d == pack_name),
            Some(f) => {
                f.pack == pack_name
                    || self
                        .cx
                        .packs
                        .iter()
                        .find(|p| p.name == f.pack)
                        .is_some_and(|p| p.requires.iter().any(|r| r.name == pack_name))
            }
        };
        let exists = pack.is_some();
        let Some(pack) = pack.filter(|_| allowed) else {
            let d = match (in_fragment, exists) {
                (None, true) => codes::P811
                    .at(
                        pointer,
                        format!("fragment `{text}` is in pack `{pack_name}`, which this graph does not declare"),
                    )
                    .with_help(format!("add `\"{pack_name}\"` with a range to the graph's `packs`")),
                (None, false) if self.cx.on_path.iter().any(|p| p == pack_name) => codes::P811
                    .at(
                        pointer,
                        format!(
                            "fragment `{text}` is in pack `{pack_name}`, which this graph does not declare"
                        ),
                    )
                    .with_help(format!(
                        "add `\"{pack_name}\"` with a range to the graph's `packs`"
                    )),
                (None, false) => codes::P821.at(
                    pointer,
                    format!("unknown fragment `{text}`: the graph declares no pack `{pack_name}`"),
                ),
                (Some(f), _) => codes::P811.at(
                    pointer,
                    format!(
                        "fragment `{text}` is in pack `{pack_name}`, which pack `{}` does not require",
                        f.pack
                    ),
                ),
            };
            self.report(in_fragment, d, chain);
            return None;
        };
        let all = fragments_of(&pack);
        match all.by_name.get(name) {
            Some(Ok(f)) => {
                self.refs.insert(key, f.clone());
                Some(f.clone())
            }
            Some(Err(errors)) => {
                let file_key = format!("{pack_name}/{name}");
                if self.reported.insert(file_key) {
                    for e in errors.iter() {
                        let mut e = e.clone();
                        e.related
                            .extend(chain_related(self.cx.file, self.cx.parsed, chain));
                        self.diags.push(e);
                    }
                    let d = codes::P801.at(
                        pointer,
                        format!("fragment `{text}` does not load (see its file's findings)"),
                    );
                    self.report(in_fragment, d, chain);
                }
                None
            }
            None => {
                let names: Vec<&str> = all.by_name.keys().map(String::as_str).collect();
                let near = crate::diagnostic::suggest::nearest(name, names.iter().copied(), 1);
                let mut d = codes::P821.at(
                    pointer,
                    format!(
                        "unknown fragment `{text}`: pack `{pack_name}` has no fragment `{name}`"
                    ),
                );
                if let Some(n) = near.first() {
                    d = d.with_help(format!("did you mean `{pack_name}/{n}`?"));
                } else if !names.is_empty() {
                    d = d.with_help(format!("pack `{pack_name}` has: {}", names.join(", ")));
                }
                self.report(in_fragment, d, chain);
                None
            }
        }
    }

    /// P828 and the references of `f`'s nested uses, `f` being used at `depth` along `path`.
    fn nesting(
        &mut self,
        f: &Arc<Fragment>,
        depth: usize,
        path: &[PathStep],
        ok_depth: &mut HashMap<String, usize>,
    ) -> bool {
        if ok_depth.get(&f.key()).is_some_and(|&d| d >= depth) {
            return true;
        }
        let chain = path_chain(path);
        for (j, text) in fragment::uses(f) {
            let at = format!("/nodes/{j}");
            let Some(inner) = self.resolve(Some(f), &at, &text, &chain) else {
                continue;
            };
            if let Some(pos) = path.iter().position(|(_, _, _, g)| g.key() == inner.key()) {
                let cycle: Vec<String> = path[pos..]
                    .iter()
                    .map(|(_, _, _, g)| g.key())
                    .chain(std::iter::once(inner.key()))
                    .collect();
                let d = codes::P828
                    .at(
                        push(&at, "fragment"),
                        format!("fragment uses form a cycle: {}", cycle.join(" → ")),
                    )
                    .with_witness(Witness::Path(cycle));
                self.report(Some(f), d, &chain);
                return false;
            }
            if depth + 1 > MAX_DEPTH {
                let d = codes::P828.at(
                    push(&at, "fragment"),
                    format!(
                        "fragment uses nest {} deep here (at most {MAX_DEPTH}: a use in a graph is depth 1)",
                        depth + 1
                    ),
                );
                self.report(Some(f), d, &chain);
                return false;
            }
            let id = f.nodes()[j]
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let mut next = path.to_vec();
            next.push((Some(f.clone()), at, id, inner.clone()));
            if !self.nesting(&inner, depth + 1, &next, ok_depth) {
                return false;
            }
        }
        let best = ok_depth.entry(f.key()).or_insert(0);
        *best = (*best).max(depth);
        true
    }

    /// The fragment `f` at use `id` (expanded ID prefix, without the slash).
    fn entry_of(&self, prefix: &str, f: &Fragment) -> String {
        let id = format!("{prefix}/{}", f.entry);
        match f.node(&f.entry).and_then(|(_, n)| self.nested(f, n)) {
            Some(inner) => self.entry_of(&id, &inner),
            None => id,
        }
    }

    /// The fragment a node of `f` uses, when it uses one.
    /// Whether the output behind port `port` of fragment `f` declares `rest` below it (through
    /// nested uses' ports, at most 8 deep, P828's bound): `None` when that cannot be told (a
    /// port, node or primitive that does not resolve, reported by its own code).
    fn port_declares(&self, f: &Fragment, port: &str, rest: &str, depth: usize) -> Option<bool> {
        if depth > 8 {
            return None;
        }
        let out = f.outputs.get(port)?;
        let (_, node) = f.node(&out.from)?;
        let full = format!("{}{rest}", out.at);
        if let Some(inner) = self.nested(f, node) {
            let (inner_port, inner_rest) = split_port(&full)?;
            if !inner.outputs.contains_key(&inner_port) {
                return Some(false);
            }
            return self.port_declares(&inner, &inner_port, inner_rest, depth + 1);
        }
        let prim = node
            .get("primitive")
            .and_then(Value::as_str)
            .and_then(|p| self.cx.registry.lookup(p))?;
        Some(
            crate::schema::select::declares(&prim.outputs, &full)
                && crate::schema::select::select(&prim.outputs, &full).is_ok(),
        )
    }

    fn nested(&self, f: &Fragment, node: &Value) -> Option<Arc<Fragment>> {
        let text = node.get("fragment")?.as_str()?;
        self.refs
            .get(&(Some(f.pack.clone()), text.to_string()))
            .cloned()
    }

    /// An output port of the use `prefix` of `f`, with `rest` appended: the expanded node and
    /// pointer it reads. `None` when the port does not exist or does not resolve.
    fn output_of(
        &self,
        prefix: &str,
        f: &Fragment,
        port: &str,
        rest: &str,
    ) -> Option<(String, String)> {
        let out = f.outputs.get(port)?;
        let at = format!("{}{rest}", out.at);
        let (_, node) = f.node(&out.from)?;
        let id = format!("{prefix}/{}", out.from);
        match self.nested(f, node) {
            Some(inner) => {
                let (p, r) = split_port(&at)?;
                self.output_of(&id, &inner, &p, r)
            }
            None => Some((id, at)),
        }
    }

    /// A successor target written in `scope`, as an expanded node ID.
    fn target(&self, scope: &Scope, target: &Value) -> Option<String> {
        match target {
            Value::String(t) => {
                let id = format!("{}{t}", scope.prefix);
                match &scope.fragment {
                    Some(f) => match f.node(t).and_then(|(_, n)| self.nested(f, n)) {
                        Some(inner) => Some(self.entry_of(&id, &inner)),
                        None => Some(id),
                    },
                    None => Some(self.graph_target(t).unwrap_or(id)),
                }
            }
            Value::Object(o) => {
                let exit = o.get("exit")?.as_str()?;
                scope.exits.get(exit).cloned()
            }
            _ => None,
        }
    }

    /// A graph-level target that names a use: the use's entry.
    fn graph_target(&self, t: &str) -> Option<String> {
        let f = self.graph_use(t)?;
        Some(self.entry_of(t, &f))
    }

    fn graph_use(&self, id: &str) -> Option<Arc<Fragment>> {
        self.graph_uses.get(id).cloned()
    }

    /// A binding written in `scope` (in a node's `inputs`, or a use's port binding), resolved
    /// to expanded IDs. `Err(())` when it cannot be (reported).
    fn binding(&mut self, scope: &Scope, at: &str, binding: &Value) -> Result<Value, ()> {
        let Value::Object(b) = binding else {
            return Ok(binding.clone());
        };
        // `{"param"}` and `$in` mean something inside a fragment only: written in the graph
        // they stay as written, for the graph's own checks (G003, T303) to report there.
        let in_graph = scope.fragment.is_none();
        if in_graph
            && (b.contains_key("param") || b.get("from").and_then(Value::as_str) == Some("$in"))
        {
            return Ok(binding.clone());
        }
        if let Some(name) = b.get("param").and_then(Value::as_str) {
            return match scope.params.get(name) {
                Some(v) => Ok(serde_json::json!({ "const": v })),
                None => {
                    self.missing_param(scope, name);
                    Err(())
                }
            };
        }
        let Some(from) = b.get("from").and_then(Value::as_str) else {
            return Ok(binding.clone());
        };
        let pointer = b.get("at").and_then(Value::as_str).unwrap_or("");
        if from == "$in" {
            let Some((port, rest)) = split_port(pointer) else {
                return Err(());
            };
            let Some(bound) = scope.inputs.get(&port) else {
                // Unknown or unbound port: P823 at the fragment or the use site.
                return Err(());
            };
            return match compose(bound, rest) {
                Some(resolved) => Ok(resolved),
                None => {
                    let d = codes::T304.at(
                        at,
                        format!(
                            "port `{port}` is bound to a constant that has nothing at `{rest}`"
                        ),
                    );
                    self.report(scope.fragment.as_ref(), d, &scope.chain);
                    Err(())
                }
            };
        }
        if from == crate::graph::INPUT_WORD {
            return Ok(binding.clone());
        }
        let sibling_use = match &scope.fragment {
            Some(f) => f.node(from).and_then(|(_, n)| self.nested(f, n)),
            None => self.graph_use(from),
        };
        let id = format!("{}{from}", scope.prefix);
        match sibling_use {
            None if scope.prefix.is_empty() => Ok(binding.clone()),
            None => {
                let mut b = b.clone();
                b.insert("from".into(), Value::String(id));
                Ok(Value::Object(b))
            }
            Some(inner) => {
                let resolved = split_port(pointer)
                    .and_then(|(port, rest)| self.output_of(&id, &inner, &port, rest));
                match resolved {
                    Some((node, at_out)) => Ok(serde_json::json!({"from": node, "at": at_out})),
                    None => {
                        let ports: Vec<&str> = inner.outputs.keys().map(String::as_str).collect();
                        let d = codes::T304.at(
                            push(at, "at"),
                            format!(
                                "`{from}` uses fragment `{}`, which has no output port at `{pointer}` (ports: {})",
                                inner.key(),
                                if ports.is_empty() { "none".to_string() } else { ports.join(", ") }
                            ),
                        ).with_help("read a fragment use through its output ports: `{\"from\": USE, \"at\": \"/PORT/…\"}`");
                        self.report(scope.fragment.as_ref(), d, &scope.chain);
                        Err(())
                    }
                }
            }
        }
    }

    fn missing_param(&mut self, scope: &Scope, name: &str) {
        let Some(site) = scope.chain.first() else {
            return;
        };
        if !self
            .missing_params
            .insert((site.id.clone(), name.to_string()))
        {
            return;
        }
        let d = codes::P822.at(
            site.pointer.clone(),
            format!("parameter `{name}` has no value: pass it in `with` or give it a `default` in `params`"),
        );
        let outer = scope.chain[1..].to_vec();
        self.report(site.in_fragment.as_ref(), d, &outer);
    }

    /// A plain node written in `scope`, rewritten: its ID prefixed, bindings, successors and
    /// `max_visits` resolved.
    fn rewrite_node(&mut self, scope: &Scope, index: usize, node: &Value) -> Value {
        let Value::Object(object) = node else {
            return node.clone();
        };
        let at = format!("/nodes/{index}");
        let mut out = Map::new();
        for (key, value) in object {
            let new = match key.as_str() {
                "id" => match value {
                    Value::String(id) => Value::String(format!("{}{id}", scope.prefix)),
                    other => other.clone(),
                },
                "inputs" => match value {
                    Value::Object(bindings) => {
                        let mut m = Map::new();
                        for (name, b) in bindings {
                            let bat = push(&push(&at, "inputs"), name);
                            if let Ok(r) = self.binding(scope, &bat, b) {
                                m.insert(name.clone(), r);
                            }
                        }
                        Value::Object(m)
                    }
                    other => other.clone(),
                },
                "next" => self
                    .target(scope, value)
                    .map_or_else(|| value.clone(), Value::String),
                "branches" | "on_error" => match value {
                    Value::Object(map) => Value::Object(
                        map.iter()
                            .map(|(k, t)| {
                                (
                                    k.clone(),
                                    self.target(scope, t)
                                        .map_or_else(|| t.clone(), Value::String),
                                )
                            })
                            .collect(),
                    ),
                    other => other.clone(),
                },
                "max_visits" => match value.get("param").and_then(Value::as_str) {
                    Some(name) => match scope.params.get(name) {
                        Some(v) => v.clone(),
                        None => {
                            self.missing_param(scope, name);
                            value.clone()
                        }
                    },
                    None => value.clone(),
                },
                _ => value.clone(),
            };
            out.insert(key.clone(), new);
        }
        Value::Object(out)
    }

    /// Expand use node `index` (written in `scope`). `false` when the expansion must stop.
    fn expand_use(&mut self, scope: &Scope, index: usize, node: &Value) -> bool {
        let at = format!("/nodes/{index}");
        let Some(use_id) = node.get("id").and_then(Value::as_str) else {
            return false;
        };
        let text = node
            .get("fragment")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let key = (
            scope.fragment.as_ref().map(|f| f.pack.clone()),
            text.to_string(),
        );
        let Some(f) = self.refs.get(&key).cloned() else {
            return false;
        };
        let id = format!("{}{use_id}", scope.prefix);
        let site = UseSite {
            id: id.clone(),
            in_fragment: scope.fragment.clone(),
            pointer: at.clone(),
        };
        let mut chain = vec![site];
        chain.extend(scope.chain.iter().cloned());
        let chain = Arc::new(chain);
        self.interface(&f);
        let errors_before = self.error_count();

        // `with` against `params` (P822).
        let mut with = Map::new();
        if let Some(Value::Object(w)) = node.get("with") {
            for (name, v) in w {
                let v = match v.get("param").and_then(Value::as_str) {
                    Some(p)
                        if v.as_object().is_some_and(|o| o.len() == 1)
                            && scope.fragment.is_some() =>
                    {
                        match scope.params.get(p) {
                            Some(value) => value.clone(),
                            None => {
                                self.missing_param(scope, p);
                                continue;
                            }
                        }
                    }
                    _ => v.clone(),
                };
                if !f.declares_param(name) {
                    let names = f.param_names();
                    let near = crate::diagnostic::suggest::nearest(name, names.iter().copied(), 1);
                    let mut d = codes::P822.at(
                        push(&push(&at, "with"), name),
                        format!("fragment `{}` has no parameter `{name}`", f.key()),
                    );
                    d = match near.first() {
                        Some(n) => d.with_help(format!("did you mean `{n}`?")),
                        None if names.is_empty() => {
                            d.with_help(format!("fragment `{}` takes no parameters", f.key()))
                        }
                        None => d.with_help(format!("its parameters: {}", names.join(", "))),
                    };
                    self.report(scope.fragment.as_ref(), d, &scope.chain);
                    continue;
                }
                with.insert(name.clone(), v);
            }
        }
        let mut params = with.clone();
        if let Some(Value::Object(props)) = f.params.as_ref().and_then(|p| p.get("properties")) {
            for (name, schema) in props {
                if !params.contains_key(name)
                    && let Some(d) = schema.get("default")
                {
                    params.insert(name.clone(), d.clone());
                }
            }
        }
        if let Some(schema) = &f.params
            && let Ok(validator) = jsonschema::validator_for(schema)
        {
            let instance = Value::Object(params.clone());
            let mut found = Vec::new();
            for e in validator.iter_errors(&instance) {
                let path = e.instance_path().to_string();
                let pointer = if path.is_empty() {
                    push(&at, "with")
                } else if with.is_empty() && node.get("with").is_none() {
                    at.clone()
                } else {
                    format!("{}{path}", push(&at, "with"))
                };
                let mut d = codes::P822.at(
                    pointer,
                    format!(
                        "`with` fails fragment `{}`'s `params`: {}",
                        f.key(),
                        short(&e.to_string())
                    ),
                );
                // The parameters as checked, when they are small enough to read.
                if short(&instance.to_string()).len() == instance.to_string().len() {
                    d = d.with_witness(Witness::Value(instance.clone()));
                }
                found.push(d);
                if found.len() >= 8 {
                    break;
                }
            }
            for d in found {
                self.report(scope.fragment.as_ref(), d, &scope.chain);
            }
        }

        // Ports (P823), resolved in the enclosing scope.
        let mut inputs = BTreeMap::new();
        let bound = node.get("inputs").and_then(Value::as_object);
        if let Some(bound) = bound {
            for (port, b) in bound {
                let bat = push(&push(&at, "inputs"), port);
                let Some(schema) = f.inputs.get(port) else {
                    let near = crate::diagnostic::suggest::nearest(
                        port,
                        f.inputs.keys().map(String::as_str),
                        1,
                    );
                    let mut d = codes::P823.at(
                        bat,
                        format!("fragment `{}` has no input port `{port}`", f.key()),
                    );
                    if let Some(n) = near.first() {
                        d = d.with_help(format!("did you mean `{n}`?"));
                    }
                    self.report(scope.fragment.as_ref(), d, &scope.chain);
                    continue;
                };
                if let Ok(resolved) = self.binding(scope, &bat, b) {
                    let inherited = if b.get("from").and_then(Value::as_str) == Some("$in") {
                        let written = b.get("at").and_then(Value::as_str).unwrap_or("");
                        let rest = split_port(written).map_or(0, |(_, rest)| rest.len());
                        let at = resolved.get("at").and_then(Value::as_str).unwrap_or("");
                        at.len().saturating_sub(rest)
                    } else {
                        0
                    };
                    self.ports.push(PortCheck {
                        inherited,
                        binding: resolved.clone(),
                        schema: schema.clone(),
                        fragment: scope.fragment.clone(),
                        pointer: bat,
                        chain: scope.chain.clone(),
                        port: port.clone(),
                    });
                    inputs.insert(port.clone(), resolved);
                }
            }
        }
        for port in f.inputs.keys() {
            if bound.is_none_or(|b| !b.contains_key(port)) {
                let d = codes::P823.at(
                    if bound.is_some() {
                        push(&at, "inputs")
                    } else {
                        at.clone()
                    },
                    format!("input port `{port}` of fragment `{}` is not bound", f.key()),
                );
                self.report(scope.fragment.as_ref(), d, &scope.chain);
            }
        }

        // Exits (P826), resolved in the enclosing scope.
        let mut exits = BTreeMap::new();
        let wired = node.get("exits").and_then(Value::as_object);
        if let Some(wired) = wired {
            for (name, target) in wired {
                if !f.exits.contains(name) {
                    let near = crate::diagnostic::suggest::nearest(
                        name,
                        f.exits.iter().map(String::as_str),
                        1,
                    );
                    let mut d = codes::P826.at(
                        push(&push(&at, "exits"), name),
                        format!("fragment `{}` has no exit `{name}`", f.key()),
                    );
                    if let Some(n) = near.first() {
                        d = d.with_help(format!("did you mean `{n}`?"));
                    }
                    self.report(scope.fragment.as_ref(), d, &scope.chain);
                    continue;
                }
                if let Some(t) = self.target(scope, target) {
                    exits.insert(name.clone(), t);
                }
            }
        }
        for name in &f.exits {
            if wired.is_none_or(|w| !w.contains_key(name)) {
                let d = codes::P826.at(
                    if wired.is_some() {
                        push(&at, "exits")
                    } else {
                        at.clone()
                    },
                    format!("exit `{name}` of fragment `{}` is not wired", f.key()),
                );
                self.report(scope.fragment.as_ref(), d, &scope.chain);
            }
        }
        if self.error_count() > errors_before {
            // The boundary does not hold: nothing is expanded through it.
            return true;
        }
        let inner = Scope {
            prefix: format!("{id}/"),
            fragment: Some(f.clone()),
            chain: chain.clone(),
            inputs,
            params,
            exits,
        };
        for (j, n) in f.nodes().iter().enumerate() {
            if self.out.len() >= MAX_NODES {
                let d = codes::P828.at(
                    at.clone(),
                    format!("expanding the fragment uses would make more than {MAX_NODES} nodes"),
                );
                self.report(scope.fragment.as_ref(), d, &scope.chain);
                return false;
            }
            if is_use(n) {
                if !self.expand_use(&inner, j, n) {
                    return false;
                }
            } else {
                let rewritten = self.rewrite_node(&inner, j, n);
                self.out.push(rewritten);
                self.origins.push(Origin::Fragment {
                    fragment: f.clone(),
                    index: j,
                    chain: chain.clone(),
                });
            }
        }
        true
    }

    fn error_count(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity == codes::Severity::Error)
            .count()
    }

    /// The checks of a fragment's own interface, once per fragment: `$in` ports and `param`
    /// names its nodes use (P823, P822), exit targets (P826), output ports (P827).
    fn interface(&mut self, f: &Arc<Fragment>) {
        if !self.interfaces.insert(f.key()) {
            return;
        }
        let mut found = Vec::new();
        for (j, node) in f.nodes().iter().enumerate() {
            let at = format!("/nodes/{j}");
            if let Some(Value::Object(inputs)) = node.get("inputs") {
                for (name, b) in inputs {
                    let bat = push(&push(&at, "inputs"), name);
                    if b.get("from").and_then(Value::as_str) == Some("$in") {
                        let pointer = b.get("at").and_then(Value::as_str).unwrap_or("");
                        if let Some((port, _)) = split_port(pointer)
                            && !f.inputs.contains_key(&port)
                        {
                            found.push(codes::P823.at(
                                push(&bat, "at"),
                                format!("`$in` reads port `{port}`, which fragment `{}` does not declare in `inputs`", f.key()),
                            ));
                        }
                    }
                    if let Some(p) = b.get("param").and_then(Value::as_str)
                        && !f.declares_param(p)
                    {
                        found.push(codes::P822.at(
                            bat.clone(),
                            format!("`{p}` is not a parameter of fragment `{}` (declare it in `params`)", f.key()),
                        ));
                    }
                }
            }
            if let Some(p) = node
                .get("max_visits")
                .and_then(|m| m.get("param"))
                .and_then(Value::as_str)
                && !f.declares_param(p)
            {
                found.push(codes::P822.at(
                    push(&at, "max_visits"),
                    format!(
                        "`{p}` is not a parameter of fragment `{}` (declare it in `params`)",
                        f.key()
                    ),
                ));
            }
            let mut targets: Vec<(String, &Value)> = Vec::new();
            if let Some(t) = node.get("next") {
                targets.push((push(&at, "next"), t));
            }
            for member in ["branches", "on_error", "exits"] {
                if let Some(Value::Object(m)) = node.get(member) {
                    for (k, t) in m {
                        targets.push((push(&push(&at, member), k), t));
                    }
                }
            }
            for (pointer, t) in targets {
                if let Some(exit) = t.get("exit").and_then(Value::as_str)
                    && !f.exits.iter().any(|e| e == exit)
                {
                    found.push(codes::P826.at(
                        pointer,
                        format!("`{{\"exit\": \"{exit}\"}}`: fragment `{}` does not declare exit `{exit}` in `exits`", f.key()),
                    ));
                }
            }
        }
        for (port, out) in &f.outputs {
            let pointer = push("/outputs", port);
            let Some((_, node)) = f.node(&out.from) else {
                found.push(codes::P827.at(
                    push(&pointer, "from"),
                    format!(
                        "output port `{port}` names `{}`, which is no node of the fragment",
                        out.from
                    ),
                ));
                continue;
            };
            if let Some(inner) = self.nested(f, node) {
                let split = split_port(&out.at);
                let ok = split
                    .as_ref()
                    .is_some_and(|(p, _)| inner.outputs.contains_key(p));
                if !ok {
                    found.push(codes::P827.at(
                        push(&pointer, "at"),
                        format!("output port `{port}` reads `{}` at `{}`, which is no output port of fragment `{}`", out.from, out.at, inner.key()),
                    ));
                } else if let Some((inner_port, rest)) = split
                    && self.port_declares(&inner, &inner_port, rest, 1) == Some(false)
                {
                    // A pointer below the nested port is read through its ports to the
                    // primitive whose output it is, and must be declared there too.
                    found.push(codes::P827.at(
                        push(&pointer, "at"),
                        format!("output port `{port}` reads `{}` at `{}`, which the output behind fragment `{}`'s port `{inner_port}` does not declare", out.from, out.at, inner.key()),
                    ));
                }
                continue;
            }
            let Some(prim) = node
                .get("primitive")
                .and_then(Value::as_str)
                .and_then(|p| self.cx.registry.lookup(p))
            else {
                continue;
            };
            // Declared, and not ruled out by the schema around it (a closed object naming
            // the property only in an alternative admits no value there).
            let declared = crate::schema::select::declares(&prim.outputs, &out.at)
                && crate::schema::select::select(&prim.outputs, &out.at).is_ok();
            if !declared {
                found.push(codes::P827.at(
                    push(&pointer, "at"),
                    format!(
                        "output port `{port}` reads `{}` at `{}`, which `{}`'s output schema does not declare",
                        out.from, out.at, prim.id
                    ),
                ));
            }
        }
        for d in found {
            self.report(Some(f), d, &[]);
        }
    }

    /// P824/P825: each port binding's source schema against the port's, once every node is
    /// expanded (a source may be any expanded node).
    fn check_ports(&mut self) {
        let ports = std::mem::take(&mut self.ports);
        if ports.is_empty() {
            return;
        }
        let primitives: HashMap<&str, &str> = self
            .out
            .iter()
            .filter_map(|n| Some((n.get("id")?.as_str()?, n.get("primitive")?.as_str()?)))
            .collect();
        let input_schema = self.input.clone();
        let checker = self.cx.registry.schema_checker();
        let mut found = Vec::new();
        // One verdict per distinct (source primitive or `$input`, pointer, port schema): a
        // fragment used 200 times from the same sources is checked once.
        let mut verdicts: HashMap<(String, String, String), crate::schema::CompatVerdict> =
            HashMap::new();
        for check in &ports {
            let mut located =
                |d: Diagnostic| found.push((check.fragment.clone(), d, check.chain.clone()));
            if let Some(v) = check.binding.get("const") {
                if let Ok(validator) = jsonschema::validator_for(&check.schema)
                    && !validator.is_valid(v)
                {
                    let why = validator
                        .iter_errors(v)
                        .next()
                        .map(|e| short(&e.to_string()))
                        .unwrap_or_default();
                    let mut d = codes::P824.at(
                        check.pointer.clone(),
                        format!("the constant bound to port `{}` is not admitted by the port's schema: {why}", check.port),
                    );
                    if v.to_string().len() <= 1024 {
                        d = d.with_witness(Witness::Value(v.clone()));
                    }
                    located(d);
                }
                continue;
            }
            let (Some(from), at) = (
                check.binding.get("from").and_then(Value::as_str),
                check
                    .binding
                    .get("at")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            ) else {
                continue;
            };
            let default_input = serde_json::json!({"type": "object"});
            let source_key = if from == crate::graph::INPUT_WORD {
                crate::graph::INPUT_WORD.to_string()
            } else {
                match primitives.get(from) {
                    Some(p) => (*p).to_string(),
                    None => {
                        // A port bound in the graph from no node of it: T303 where it is
                        // written, not inside the fragment the binding would reach.
                        if check.fragment.is_none() {
                            located(codes::T303.at(
                                push(&check.pointer, "from"),
                                format!(
                                    "port `{}` is bound from `{from}`, which is no node of this graph",
                                    check.port
                                ),
                            ));
                        }
                        continue;
                    }
                }
            };
            let key = (source_key, at.to_string(), check.schema.to_string());
            let root: &Value = if from == crate::graph::INPUT_WORD {
                input_schema.as_ref().unwrap_or(&default_input)
            } else {
                let Some(prim) = primitives
                    .get(from)
                    .and_then(|p| self.cx.registry.lookup(p))
                else {
                    continue;
                };
                &prim.outputs
            };
            let selected = match crate::schema::select::select(root, at) {
                Ok(selected) => selected,
                Err(missing) => {
                    // The pointer the use site wrote finds nothing: T304 at that binding, the
                    // mistake's place, before expansion would move it to the fragment's `$in`.
                    if missing.prefix.len() > check.inherited {
                        let owner = match primitives.get(from) {
                            Some(prim) if from != crate::graph::INPUT_WORD => {
                                format!("the output schema of `{from}` (`{prim}`)")
                            }
                            _ => "the graph's `input` schema".to_string(),
                        };
                        located(codes::T304.at(
                            push(&check.pointer, "at"),
                            format!(
                                "`{at}` is not in {owner}: at `{}`, {}",
                                missing.prefix, missing.reason
                            ),
                        ));
                    }
                    continue;
                }
            };
            let source = crate::schema::walk::standalone(root, &selected.schema);
            let verdict = verdicts
                .entry(key)
                .or_insert_with(|| checker.verdict(&source, &check.schema))
                .clone();
            match verdict {
                crate::schema::CompatVerdict::Yes => {}
                crate::schema::CompatVerdict::No { witness, reason } => {
                    let admitted = jsonschema::is_valid(&source, &witness);
                    let rejected = !jsonschema::is_valid(&check.schema, &witness);
                    if admitted && rejected {
                        located(
                            codes::P824
                                .at(
                                    check.pointer.clone(),
                                    format!("`{from}` at `{at}` is not within port `{}`'s schema: {reason}", check.port),
                                )
                                .with_witness(Witness::Value(witness)),
                        );
                    } else {
                        located(codes::P825.at(
                            check.pointer.clone(),
                            format!("whether `{from}` at `{at}` fits port `{}` is undecided (the checker's witness did not check out: {reason})", check.port),
                        ));
                    }
                }
                crate::schema::CompatVerdict::Unknown { reason } => located(codes::P825.at(
                    check.pointer.clone(),
                    format!(
                        "whether `{from}` at `{at}` fits port `{}` is undecided: {reason}",
                        check.port
                    ),
                )),
            }
        }
        for (fragment, d, chain) in found {
            self.report(fragment.as_ref(), d, &chain);
        }
    }
}

/// The use sites of `chain` as related locations, innermost first (outermost last): "in
/// fragment `ship`, used at graphs/x.graph.json:41:7".
pub fn chain_related(graph_file: &str, graph: &Parsed, chain: &[UseSite]) -> Vec<Related> {
    chain
        .iter()
        .map(|site| {
            let (file, parsed) = match &site.in_fragment {
                Some(f) => (f.file.as_str(), &*f.parsed),
                None => (graph_file, graph),
            };
            let span = location_span(parsed, &site.pointer);
            let mut related = Related {
                file: Some(file.to_string()),
                pointer: site.pointer.clone(),
                message: format!(
                    "in fragment `{}`, used at {file}:{}:{}",
                    site.id, span.line, span.column
                ),
                line: None,
                column: None,
                end_line: None,
                end_column: None,
            };
            related.set_span(span);
            related
        })
        .collect()
}

/// The file name a standalone check's stand-in graph is reported under (never shown: only
/// findings in the fragment's own file are kept).
const ALONE: &str = "<a use of the fragment>";

/// What can be said of a fragment without a use site (the editor's check of an open
/// `*.fragment.json`): its interface (P822/P823 `param` and `$in` names, P826 exit targets, P827
/// output ports), its nested uses (P821/P811 references, P828 nesting, and at each nested use
/// P822 `with`, P823 ports, P824/P825 port bindings, P826 exits). The fragment is expanded once
/// through a stand-in graph that binds every port to the run's input with the port's own schema,
/// keeps the `params` defaults and wires every exit, so nothing found is about the stand-in.
/// Findings located in the fragment's file are returned, the stand-in's use site left out of
/// their related locations; one located in a fragment it uses is moved to the nested use in this
/// file it is reached through, naming where it is. `packs` is the fragment's pack composed with
/// the packs it requires, over `registry`.
pub fn check_alone(
    fragment: &Arc<Fragment>,
    registry: &Registry,
    packs: &[Arc<Pack>],
) -> Vec<Diagnostic> {
    let mut properties = Map::new();
    let mut inputs = Map::new();
    for (port, schema) in &fragment.inputs {
        properties.insert(port.clone(), schema.clone());
        inputs.insert(
            port.clone(),
            serde_json::json!({"from": crate::graph::INPUT_WORD, "at": push("", port)}),
        );
    }
    let exits: Map<String, Value> = fragment
        .exits
        .iter()
        .map(|e| (e.clone(), Value::String("end".into())))
        .collect();
    let graph = serde_json::json!({
        "graph": "alone",
        "abi": registry.abi(),
        "packs": {fragment.pack.clone(): "*"},
        "input": {"type": "object", "properties": properties,
                  "required": fragment.inputs.keys().collect::<Vec<_>>()},
        "entry": "use",
        "nodes": [{"id": "use", "fragment": fragment.key(), "inputs": inputs, "exits": exits}],
    });
    let text = graph.to_string();
    let Ok(parsed) = crate::json::parse(text.as_bytes(), &Default::default()) else {
        return Vec::new();
    };
    let declared = [fragment.pack.clone()];
    let cx = Context {
        file: ALONE,
        parsed: &parsed,
        registry,
        packs,
        declared: &declared,
        on_path: &[],
    };
    let found = match expand_over(&parsed.value, &cx, Some(fragment)) {
        Ok(expansion) => expansion.warnings,
        Err(diags) => diags,
    };
    let own = fragment.file.as_str();
    found
        .into_iter()
        .filter_map(|mut d| {
            d.related.retain(|r| r.file.as_deref() != Some(ALONE));
            if d.file.as_deref() == Some(own) {
                return Some(d);
            }
            // Found in a fragment this one uses (a cycle closing there, its interface): shown
            // at the nested use in this file it is reached through, as a graph shows it at the
            // use site. A nested file that does not load has its P801 at the use already.
            if d.code == "P801" {
                return None;
            }
            let at = d
                .related
                .iter()
                .rposition(|r| r.file.as_deref() == Some(own))?;
            let site = d.related.remove(at);
            d.message = format!(
                "{} (in {}:{}:{})",
                d.message,
                d.file.as_deref()?,
                d.line,
                d.column
            );
            d.file = Some(own.to_string());
            d.pointer = site.pointer;
            d.line = site.line?;
            d.column = site.column?;
            d.end_line = site.end_line.unwrap_or(d.line);
            d.end_column = site.end_column.unwrap_or(d.column);
            Some(d)
        })
        .collect()
}

/// The use-site chain of a nesting-check path (innermost first).
fn path_chain(path: &[PathStep]) -> Vec<UseSite> {
    let mut prefix = String::new();
    let mut chain = Vec::new();
    for (in_fragment, pointer, id, _) in path {
        prefix = if prefix.is_empty() {
            id.clone()
        } else {
            format!("{prefix}/{id}")
        };
        chain.push(UseSite {
            id: prefix.clone(),
            in_fragment: in_fragment.clone(),
            pointer: pointer.clone(),
        });
    }
    chain.reverse();
    chain
}

/// A message part cut to 200 characters (a 10 MB parameter is not repeated in full).
fn short(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// `/port/rest…` → (`port`, `/rest…`).
fn split_port(pointer: &str) -> Option<(String, &str)> {
    let body = pointer.strip_prefix('/')?;
    let (token, rest) = match body.find('/') {
        Some(i) => (&body[..i], &body[i..]),
        None => (body, ""),
    };
    let port = crate::json::pointer::unescape_token(token)?.into_owned();
    Some((port, rest))
}

/// A resolved port binding with `rest` appended: a `from` binding's pointer extended, a
/// constant's value at `rest` (`None` when it has nothing there).
fn compose(bound: &Value, rest: &str) -> Option<Value> {
    if let Some(v) = bound.get("const") {
        return Some(serde_json::json!({"const": v.pointer(rest)?}));
    }
    let from = bound.get("from")?;
    let at = bound.get("at").and_then(Value::as_str).unwrap_or("");
    Some(serde_json::json!({"from": from, "at": format!("{at}{rest}")}))
}
