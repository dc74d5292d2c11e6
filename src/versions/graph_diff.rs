//! Graph versions compared (SPEC §6.2, `primgraph graph diff OLD NEW`): the structural changes
//! (nodes matched by `id`: added, removed, changed field by field; the graph's own fields), the
//! input-schema check of NEW against OLD with a witness, the validation findings NEW introduces
//! and resolves, and — given recorded runs replayed against both versions — the verdict
//! transition table and the regressions grouped by first divergence. This module owns the
//! [`GraphDiff`] document and its three renderings; it does no IO (the caller reads the files
//! and replays the runs, see [`crate::replay::pair`]).
//!
//! Choices where the SPEC is silent: a node's `inputs` (its bindings) are one field, named
//! `inputs` as in the document; primitives are compared by the ID they resolve to, so `gate`
//! moving from an alias to its dotted ID is no change; `capabilities` are compared as a set;
//! the graph's fields compared are `graph`, `abi`, `entry`, `capabilities`, `budget` and
//! `input` (not `description` or `$schema`), one `graph_changed` entry per field so each has its
//! own pointers. Findings are keyed by (code, node): within a key, diagnostics with equal
//! messages are paired first, then the rest in order, and what is left over on NEW's side is
//! introduced, on OLD's resolved. Each change also carries the old and new value of every field
//! it names (from the spanned documents; absent when the field is not in that version), shown as
//! `old → new` in every format — in JSON as `"values": {FIELD: {"old"?, "new"?}}` beside the
//! §6.2 keys.
//!
//! Fragments (SPEC §9.3): a version that uses fragments is compared as its expansion, so a
//! fragment's new version changes the expanded nodes even when the graph file is unchanged.
//! A change of an expanded node says through which use it came ([`Through`]: the innermost use,
//! its fragment and the fragment pack's version on each side), and its places are in the file
//! the node is written in (the fragment's); findings are keyed by the expanded node they are
//! about (`fragment_map::NodeFinder`), whichever file they are located in.

use crate::diagnostic::{Diagnostic, Severity, counted};
use crate::graph::{GraphDoc, NodeDoc};
use crate::json::Parsed;
use crate::pack::fragment_expand::{Expansion, Origin};
use crate::pack::fragment_map::{NodeFinder, UseInfo, use_groups};
use crate::registry::Registry;
use crate::replay::report::{RunReport, Verdict};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// One graph version as the diff sees it.
pub struct Version<'a> {
    pub file: &'a str,
    pub doc: &'a GraphDoc,
    pub digest: &'a str,
    /// The spanned parse of the file (pointers → line and column in the human output).
    pub parsed: Option<&'a Parsed>,
    /// Its validation diagnostics.
    pub diagnostics: &'a [Diagnostic],
    /// When the graph uses fragments: its expansion (`doc` is then the expanded document and
    /// `parsed` the file as written).
    pub expansion: Option<&'a Expansion>,
}

impl Version<'_> {
    /// Where expanded node `i` is written: in the graph (`file: None`) or in a fragment file.
    fn node_place(&self, i: usize) -> Place {
        match self.expansion.and_then(|e| e.origins.get(i)) {
            None => place(self.parsed, format!("/nodes/{i}")),
            Some(Origin::Graph(j)) => place(self.parsed, format!("/nodes/{j}")),
            Some(Origin::Fragment {
                fragment, index, ..
            }) => {
                let mut p = place(Some(&fragment.parsed), format!("/nodes/{index}"));
                p.file = Some(fragment.file.clone());
                p
            }
        }
    }

    /// The value of field `field` of node `i` as it is checked (the expanded node's).
    fn node_value(&self, i: usize, field: &str) -> Option<Value> {
        let pointer = format!("/nodes/{i}/{field}");
        match self.expansion {
            Some(e) => e.value.pointer(&pointer).cloned(),
            None => self.parsed.and_then(|p| p.value.pointer(&pointer)).cloned(),
        }
    }

    /// The fragment uses of the version, by expanded use ID.
    fn uses(&self) -> BTreeMap<String, UseInfo> {
        match (self.expansion, self.parsed) {
            (Some(e), Some(parsed)) => use_groups(e, self.file, parsed)
                .1
                .into_iter()
                .map(|u| (u.id.clone(), u))
                .collect(),
            _ => BTreeMap::new(),
        }
    }

    /// The innermost use expanded node `id` came from.
    fn use_of(&self, id: &str) -> Option<String> {
        let e = self.expansion?;
        let i = e.ids.iter().position(|x| x == id)?;
        match e.origins.get(i)? {
            Origin::Fragment { chain, .. } => chain.first().map(|site| site.id.clone()),
            Origin::Graph(_) => None,
        }
    }
}

/// The fragment use an expanded node's change came through: the use, and on each side the
/// fragment it uses there and that fragment's pack version (`None`: no such use on that side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Through {
    pub use_id: String,
    pub old: Option<(String, Option<String>)>,
    pub new: Option<(String, Option<String>)>,
}

impl Through {
    /// `through fragment `ship` (shipkit/land 1.0.0 → 1.1.0)`.
    pub fn describe(&self) -> String {
        let side = |s: &Option<(String, Option<String>)>| match s {
            Some((fragment, Some(version))) => format!("{fragment} {version}"),
            Some((fragment, None)) => fragment.clone(),
            None => "(none)".to_string(),
        };
        let what = match (&self.old, &self.new) {
            (Some((a, va)), Some((b, vb))) if a == b && va != vb => format!(
                "{a} {} → {}",
                va.as_deref().unwrap_or("?"),
                vb.as_deref().unwrap_or("?")
            ),
            (Some(a), Some(b)) if a == b => side(&self.new),
            _ => format!("{} → {}", side(&self.old), side(&self.new)),
        };
        format!("through fragment `{}` ({what})", self.use_id)
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("use".into(), Value::from(self.use_id.clone()));
        let (fragment, old_fragment) = match (&self.old, &self.new) {
            (_, Some((b, _))) => (b.clone(), self.old.as_ref().map(|(a, _)| a.clone())),
            (Some((a, _)), None) => (a.clone(), None),
            (None, None) => (String::new(), None),
        };
        m.insert("fragment".into(), Value::from(fragment.clone()));
        if let Some(a) = old_fragment.filter(|a| *a != fragment) {
            m.insert("old_fragment".into(), Value::from(a));
        }
        if let Some((_, Some(v))) = &self.old {
            m.insert("old_version".into(), Value::from(v.clone()));
        }
        if let Some((_, Some(v))) = &self.new {
            m.insert("new_version".into(), Value::from(v.clone()));
        }
        Value::Object(m)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    GraphChanged,
    NodeAdded,
    NodeRemoved,
    NodeChanged,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::GraphChanged => "graph_changed",
            ChangeKind::NodeAdded => "node_added",
            ChangeKind::NodeRemoved => "node_removed",
            ChangeKind::NodeChanged => "node_changed",
        }
    }
}

/// A pointer into one file with its resolved position (0 when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file, when not the version's own (a fragment node's place is in its fragment file).
    pub file: Option<String>,
    pub pointer: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StructureChange {
    pub kind: ChangeKind,
    pub node: Option<String>,
    pub fields: Vec<&'static str>,
    pub old: Option<Place>,
    pub new: Option<Place>,
    /// For `node_changed` and `graph_changed`: each field of `fields` with its value in OLD and
    /// in NEW (`None`: absent from that version, or its source was not at hand).
    pub values: Vec<FieldValues>,
    /// For an expanded node that came from a fragment: the use it came through.
    pub through: Option<Through>,
}

/// One changed field's two values.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldValues {
    pub field: &'static str,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// The values of `fields` under the JSON value at `base` in each version's document.
fn field_values(
    old: &Version<'_>,
    new: &Version<'_>,
    old_base: &str,
    new_base: &str,
    fields: &[&'static str],
) -> Vec<FieldValues> {
    let value = |v: &Version<'_>, base: &str, field: &str| {
        v.parsed
            .and_then(|p| p.value.pointer(&format!("{base}/{field}")))
            .cloned()
    };
    fields
        .iter()
        .map(|&field| FieldValues {
            field,
            old: value(old, old_base, field),
            new: value(new, new_base, field),
        })
        .collect()
}

/// A validation finding introduced or resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The file the finding is located in, when not the version's own (a fragment file).
    pub file: Option<String>,
    pub code: crate::codes::CodeName,
    pub severity: Severity,
    pub node: Option<String>,
    pub message: String,
    pub line: u32,
    pub column: u32,
}

/// Runs replayed against both versions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunsDiff {
    /// (old verdict, new verdict) → runs.
    pub transitions: BTreeMap<(Verdict, Verdict), u64>,
    /// Runs faithful under OLD and not under NEW, by NEW's first divergence (node, code).
    pub regressions: BTreeMap<(String, String), Regression>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Regression {
    pub count: u64,
    /// Up to [`EXAMPLES`] trace names, in corpus order.
    pub examples: Vec<String>,
}

/// Example traces kept per regression group.
pub const EXAMPLES: usize = 3;

impl RunsDiff {
    /// Add one trace's two reports (OLD's, NEW's).
    pub fn add(&mut self, old: &RunReport, new: &RunReport) {
        *self
            .transitions
            .entry((old.verdict, new.verdict))
            .or_insert(0) += 1;
        if old.verdict == Verdict::Faithful && new.verdict != Verdict::Faithful {
            let (node, code) = match &new.first_divergence {
                Some(f) => (f.site.clone(), f.code.to_string()),
                // Not faithful without an error: impossible, but never dropped.
                None => ("(run)".into(), String::new()),
            };
            let group = self.regressions.entry((node, code)).or_default();
            group.count += 1;
            if group.examples.len() < EXAMPLES {
                group.examples.push(new.trace.clone());
            }
        }
    }

    /// Runs faithful under OLD that are not under NEW.
    pub fn regressed(&self) -> u64 {
        self.regressions.values().map(|r| r.count).sum()
    }

    pub fn runs(&self) -> u64 {
        self.transitions.values().sum()
    }
}

/// What NEW's input schema does to OLD's inputs.
#[derive(Debug, Clone, PartialEq)]
pub enum InputCheck {
    /// Every input OLD admits, NEW admits.
    Admitted,
    /// A value OLD admits and NEW rejects.
    Narrowed { witness: Value },
    /// The checker could not decide.
    Unknown { reason: String },
}

/// The report of `graph diff`.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphDiff {
    pub old: (String, String, String),
    pub new: (String, String, String),
    pub structure: Vec<StructureChange>,
    pub input: InputCheck,
    pub introduced: Vec<Finding>,
    pub resolved: Vec<Finding>,
    pub runs: Option<RunsDiff>,
}

fn place(parsed: Option<&Parsed>, pointer: String) -> Place {
    let (line, column) = parsed.map_or((0, 0), |p| {
        let span = crate::diagnostic::anchor_span(p, &pointer);
        (span.line, span.column)
    });
    Place {
        file: None,
        pointer,
        line,
        column,
    }
}

fn resolved_primitive(registry: &Registry, name: &str) -> String {
    registry
        .lookup(name)
        .map_or_else(|| name.to_string(), |p| p.id.clone())
}

fn node_fields(registry: &Registry, a: &NodeDoc, b: &NodeDoc) -> Vec<&'static str> {
    let mut fields = Vec::new();
    if resolved_primitive(registry, &a.primitive) != resolved_primitive(registry, &b.primitive) {
        fields.push("primitive");
    }
    if a.workspace() != b.workspace() {
        fields.push("workspace");
    }
    if a.inputs != b.inputs {
        fields.push("inputs");
    }
    if a.next != b.next {
        fields.push("next");
    }
    if a.branches != b.branches {
        fields.push("branches");
    }
    if a.on_error != b.on_error {
        fields.push("on_error");
    }
    if a.max_visits != b.max_visits {
        fields.push("max_visits");
    }
    fields
}

/// The default run input schema (SPEC §2): any object.
pub fn default_input_schema() -> Value {
    json!({"type": "object"})
}

/// The structural changes from `old` to `new`: graph fields first (in document order), then
/// nodes by ID.
pub fn structure(
    registry: &Registry,
    old: &Version<'_>,
    new: &Version<'_>,
) -> Vec<StructureChange> {
    let (a, b) = (old.doc, new.doc);
    let mut out = Vec::new();
    let caps = |d: &GraphDoc| d.capabilities.iter().cloned().collect::<BTreeSet<_>>();
    let graph_fields: [(&'static str, bool, bool, bool); 6] = [
        ("graph", a.graph != b.graph, true, true),
        ("abi", a.abi != b.abi, true, true),
        (
            "capabilities",
            caps(a) != caps(b),
            !a.capabilities.is_empty(),
            !b.capabilities.is_empty(),
        ),
        (
            "budget",
            a.budget != b.budget,
            a.budget.is_some(),
            b.budget.is_some(),
        ),
        (
            "input",
            a.input != b.input,
            a.input.is_some(),
            b.input.is_some(),
        ),
        ("entry", a.entry != b.entry, true, true),
    ];
    for (field, changed, in_old, in_new) in graph_fields {
        if !changed {
            continue;
        }
        let pointer = format!("/{field}");
        // A field present on one side only (a budget added): the other side's pointer is the
        // document.
        let at = |parsed, present: bool| {
            place(
                parsed,
                if present {
                    pointer.clone()
                } else {
                    String::new()
                },
            )
        };
        out.push(StructureChange {
            kind: ChangeKind::GraphChanged,
            node: None,
            fields: vec![field],
            old: Some(at(old.parsed, in_old)),
            new: Some(at(new.parsed, in_new)),
            values: field_values(old, new, "", "", &[field]),
            through: None,
        });
    }
    let index = |d: &GraphDoc| -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for (i, n) in d.nodes.iter().enumerate() {
            m.entry(n.id.clone()).or_insert(i);
        }
        m
    };
    let (ia, ib) = (index(a), index(b));
    let ids: BTreeSet<&String> = ia.keys().chain(ib.keys()).collect();
    for id in ids {
        let change = match (ia.get(id), ib.get(id)) {
            (Some(&i), Some(&j)) => {
                let fields = node_fields(registry, &a.nodes[i], &b.nodes[j]);
                if fields.is_empty() {
                    continue;
                }
                StructureChange {
                    kind: ChangeKind::NodeChanged,
                    node: Some(id.clone()),
                    old: Some(old.node_place(i)),
                    new: Some(new.node_place(j)),
                    values: fields
                        .iter()
                        .map(|&field| FieldValues {
                            field,
                            old: old.node_value(i, field),
                            new: new.node_value(j, field),
                        })
                        .collect(),
                    fields,
                    through: None,
                }
            }
            (Some(&i), None) => StructureChange {
                kind: ChangeKind::NodeRemoved,
                node: Some(id.clone()),
                fields: Vec::new(),
                old: Some(old.node_place(i)),
                new: None,
                values: Vec::new(),
                through: None,
            },
            (None, Some(&j)) => StructureChange {
                kind: ChangeKind::NodeAdded,
                node: Some(id.clone()),
                fields: Vec::new(),
                old: None,
                new: Some(new.node_place(j)),
                values: Vec::new(),
                through: None,
            },
            (None, None) => continue,
        };
        out.push(change);
    }
    if old.expansion.is_some() || new.expansion.is_some() {
        let (old_uses, new_uses) = (old.uses(), new.uses());
        let side = |uses: &BTreeMap<String, UseInfo>, id: &str| {
            uses.get(id)
                .map(|u| (u.fragment.clone(), u.version.clone()))
        };
        for change in &mut out {
            let Some(node) = &change.node else { continue };
            let Some(use_id) = new.use_of(node).or_else(|| old.use_of(node)) else {
                continue;
            };
            change.through = Some(Through {
                old: side(&old_uses, &use_id),
                new: side(&new_uses, &use_id),
                use_id,
            });
        }
    }
    out
}

/// Does NEW's input schema admit every input OLD's admits? (the §3.2 checker, OLD ⊆ NEW)
pub fn input_check(registry: &Registry, old: &GraphDoc, new: &GraphDoc) -> InputCheck {
    let default = default_input_schema();
    let a = old.input.as_ref().unwrap_or(&default);
    let b = new.input.as_ref().unwrap_or(&default);
    if a == b {
        return InputCheck::Admitted;
    }
    match registry.schema_checker().verdict(a, b) {
        crate::schema::CompatVerdict::Yes => InputCheck::Admitted,
        crate::schema::CompatVerdict::No { witness, .. } => InputCheck::Narrowed { witness },
        crate::schema::CompatVerdict::Unknown { reason } => InputCheck::Unknown { reason },
    }
}

/// The node a diagnostic is about: `/nodes/N…` names node N of `doc`.
fn node_of(doc: &GraphDoc, pointer: &str) -> Option<String> {
    let rest = pointer.strip_prefix("/nodes/")?;
    let index: usize = rest.split('/').next()?.parse().ok()?;
    doc.nodes.get(index).map(|n| n.id.clone())
}

/// The expanded node a diagnostic is about: by its pointer in the expanded document, or — for
/// a version that uses fragments, whose diagnostics are mapped back to the files as written —
/// through the expansion's origins.
struct Nodes<'v> {
    doc: &'v GraphDoc,
    finder: Option<NodeFinder<'v>>,
}

impl<'v> Nodes<'v> {
    fn of(v: &'v Version<'v>) -> Nodes<'v> {
        Nodes {
            doc: v.doc,
            finder: match (v.expansion, v.parsed) {
                (Some(e), Some(parsed)) => Some(NodeFinder::new(e, v.file, parsed)),
                _ => None,
            },
        }
    }

    fn node(&self, d: &Diagnostic) -> Option<String> {
        match &self.finder {
            None => node_of(self.doc, &d.pointer),
            Some(f) => f
                .node_of(d)
                .and_then(|k| self.doc.nodes.get(k))
                .map(|n| n.id.clone()),
        }
    }
}

fn finding(nodes: &Nodes<'_>, d: &Diagnostic) -> Finding {
    Finding {
        file: d.file.clone(),
        code: d.code.clone(),
        severity: d.severity,
        node: nodes.node(d),
        message: d.message.clone(),
        line: d.line,
        column: d.column,
    }
}

/// What makes two findings of the two versions the same finding: the code, the node (by ID,
/// since node indexes shift between versions), the place inside the node, the message and the
/// witness. A finding of NEW with no equal finding of OLD is introduced, and the reverse is
/// resolved: two different findings of one code on one node never cancel each other (a new
/// T304 beside a fixed T304 is one introduced and one resolved).
fn finding_key(
    nodes: &Nodes<'_>,
    d: &Diagnostic,
) -> (String, Option<String>, String, String, String) {
    let node = nodes.node(d);
    let within = match d.pointer.strip_prefix("/nodes/") {
        Some(rest) if node.is_some() => rest.find('/').map_or("", |i| &rest[i..]).to_string(),
        _ => d.pointer.clone(),
    };
    let witness = d
        .witness
        .as_ref()
        .and_then(|w| serde_json::to_string(w).ok())
        .unwrap_or_default();
    (d.code.to_string(), node, within, d.message.clone(), witness)
}

/// The findings NEW introduces and those it resolves: OLD's and NEW's diagnostics matched as
/// multisets of `finding_key`.
pub fn findings(old: &Version<'_>, new: &Version<'_>) -> (Vec<Finding>, Vec<Finding>) {
    type Key = (String, Option<String>, String, String, String);
    let (old_nodes, new_nodes) = (Nodes::of(old), Nodes::of(new));
    let mut old_left: BTreeMap<Key, Vec<&Diagnostic>> = BTreeMap::new();
    for d in old.diagnostics {
        old_left
            .entry(finding_key(&old_nodes, d))
            .or_default()
            .push(d);
    }
    let mut introduced = Vec::new();
    for d in new.diagnostics {
        let key = finding_key(&new_nodes, d);
        match old_left.get_mut(&key) {
            Some(same) if !same.is_empty() => {
                same.pop();
            }
            _ => introduced.push(finding(&new_nodes, d)),
        }
    }
    let mut resolved: Vec<Finding> = old_left
        .into_values()
        .flatten()
        .map(|d| finding(&old_nodes, d))
        .collect();
    let order = |f: &Finding| {
        (
            f.file.is_some(),
            f.file.clone(),
            f.line,
            f.column,
            f.code.clone(),
            f.message.clone(),
        )
    };
    introduced.sort_by_key(order);
    resolved.sort_by_key(order);
    (introduced, resolved)
}

impl GraphDiff {
    /// Build the report from the two versions (and the runs' transitions, when replayed).
    pub fn new(
        registry: &Registry,
        old: &Version<'_>,
        new: &Version<'_>,
        runs: Option<RunsDiff>,
    ) -> GraphDiff {
        let (introduced, resolved) = findings(old, new);
        let ident = |v: &Version<'_>| {
            (
                v.file.to_string(),
                v.doc.graph.clone(),
                v.digest.to_string(),
            )
        };
        GraphDiff {
            old: ident(old),
            new: ident(new),
            structure: structure(registry, old, new),
            input: input_check(registry, old.doc, new.doc),
            introduced,
            resolved,
            runs,
        }
    }

    /// Exit 1 (SPEC §6.2): NEW introduces an error, or a run faithful under OLD fails under NEW.
    pub fn is_regression(&self) -> bool {
        self.introduced
            .iter()
            .any(|f| f.severity == Severity::Error)
            || self.runs.as_ref().is_some_and(|r| r.regressed() > 0)
    }

    /// The SPEC §6.2 document.
    pub fn to_json(&self) -> Value {
        let ident = |(file, graph, digest): &(String, String, String)| json!({"file": file, "graph": graph, "digest": digest});
        let structure: Vec<Value> = self
            .structure
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("kind".into(), Value::from(c.kind.as_str()));
                if let Some(n) = &c.node {
                    m.insert("node".into(), Value::from(n.clone()));
                }
                m.insert("fields".into(), json!(c.fields));
                if let Some(p) = &c.old {
                    m.insert("old_pointer".into(), Value::from(p.pointer.clone()));
                    if let Some(file) = &p.file {
                        m.insert("old_file".into(), Value::from(file.clone()));
                    }
                }
                if let Some(p) = &c.new {
                    m.insert("new_pointer".into(), Value::from(p.pointer.clone()));
                    if let Some(file) = &p.file {
                        m.insert("new_file".into(), Value::from(file.clone()));
                    }
                }
                if let Some(t) = &c.through {
                    m.insert("through".into(), t.to_json());
                }
                if !c.values.is_empty() {
                    let mut values = Map::new();
                    for v in &c.values {
                        let mut pair = Map::new();
                        if let Some(old) = &v.old {
                            pair.insert("old".into(), old.clone());
                        }
                        if let Some(new) = &v.new {
                            pair.insert("new".into(), new.clone());
                        }
                        values.insert(v.field.into(), Value::Object(pair));
                    }
                    m.insert("values".into(), Value::Object(values));
                }
                Value::Object(m)
            })
            .collect();
        let findings = |fs: &[Finding]| -> Vec<Value> {
            fs.iter()
                .map(|f| {
                    let mut m = Map::new();
                    m.insert("code".into(), Value::from(f.code.as_str()));
                    m.insert("severity".into(), json!(f.severity));
                    if let Some(n) = &f.node {
                        m.insert("node".into(), Value::from(n.clone()));
                    }
                    m.insert("message".into(), Value::from(f.message.clone()));
                    if let Some(file) = &f.file {
                        m.insert("file".into(), Value::from(file.clone()));
                    }
                    Value::Object(m)
                })
                .collect()
        };
        let mut doc = Map::new();
        doc.insert("old".into(), ident(&self.old));
        doc.insert("new".into(), ident(&self.new));
        doc.insert("structure".into(), Value::Array(structure));
        if let InputCheck::Narrowed { witness } = &self.input {
            doc.insert("input_witness".into(), witness.clone());
        }
        doc.insert(
            "findings".into(),
            json!({"introduced": findings(&self.introduced), "resolved": findings(&self.resolved)}),
        );
        if let Some(runs) = &self.runs {
            let transitions: Vec<Value> = runs
                .transitions
                .iter()
                .map(
                    |((o, n), count)| json!({"old": o.as_str(), "new": n.as_str(), "count": count}),
                )
                .collect();
            let mut groups: Vec<(&(String, String), &Regression)> =
                runs.regressions.iter().collect();
            // Largest group first; ties by (node, code).
            groups.sort_by(|a, b| b.1.count.cmp(&a.1.count).then_with(|| a.0.cmp(b.0)));
            let regressions: Vec<Value> = groups
                .into_iter()
                .map(|((node, code), r)| {
                    json!({"node": node, "code": code, "count": r.count, "examples": r.examples})
                })
                .collect();
            doc.insert(
                "runs".into(),
                json!({"transitions": transitions, "regressions": regressions}),
            );
        }
        Value::Object(doc)
    }
}

fn at(file: &str, p: &Place) -> String {
    let file = p.file.as_deref().unwrap_or(file);
    if p.line > 0 {
        format!(
            "{file}:{}:{} ({})",
            p.line,
            p.column,
            display_pointer(&p.pointer)
        )
    } else {
        format!("{file} ({})", display_pointer(&p.pointer))
    }
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the document"
    } else {
        pointer
    }
}

fn describe(c: &StructureChange) -> String {
    let through = c
        .through
        .as_ref()
        .map(|t| format!(" — {}", t.describe()))
        .unwrap_or_default();
    let what = match c.kind {
        ChangeKind::GraphChanged => format!("graph field `{}` changed", c.fields.join("`, `")),
        ChangeKind::NodeAdded => format!("node `{}` added", c.node.as_deref().unwrap_or("")),
        ChangeKind::NodeRemoved => format!("node `{}` removed", c.node.as_deref().unwrap_or("")),
        ChangeKind::NodeChanged => format!(
            "node `{}` changed: {}",
            c.node.as_deref().unwrap_or(""),
            c.fields.join(", ")
        ),
    };
    format!("{what}{through}")
}

/// Longest value shown inline; a longer one (a whole input schema) is cut with `…` (the pointers
/// lead to the whole text).
const MAX_SHOWN: usize = 120;

fn shown(value: &Option<Value>) -> String {
    let Some(value) = value else {
        return "(absent)".into();
    };
    let text = value.to_string();
    if text.chars().count() <= MAX_SHOWN {
        text
    } else {
        let cut: String = text.chars().take(MAX_SHOWN).collect();
        format!("{cut}…")
    }
}

/// `3 → 2`
fn old_to_new(v: &FieldValues) -> String {
    format!("{} → {}", shown(&v.old), shown(&v.new))
}

/// `` `3` → `2` `` (Markdown code spans; an absent side is plain text).
fn old_to_new_code(v: &FieldValues) -> String {
    let code = |value: &Option<Value>| match value {
        Some(_) => format!("`{}`", shown(value).replace('`', "'")),
        None => shown(value),
    };
    format!("{} → {}", code(&v.old), code(&v.new))
}

fn input_line(input: &InputCheck) -> String {
    match input {
        InputCheck::Admitted => "input: NEW admits every input OLD admits".into(),
        InputCheck::Narrowed { witness } => format!(
            "input: NEW rejects inputs OLD admits, e.g. {witness} (recorded runs may no longer be valid)"
        ),
        InputCheck::Unknown { reason } => {
            format!("input: could not decide whether NEW admits every input OLD admits: {reason}")
        }
    }
}

fn finding_line(f: &Finding) -> String {
    let node = f
        .node
        .as_ref()
        .map(|n| format!(" at node `{n}`"))
        .unwrap_or_default();
    let severity = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    format!("{severity}[{}]{node}: {}", f.code, f.message)
}

impl GraphDiff {
    /// The report for a terminal.
    pub fn render_human(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "old: {} ({} {})\n",
            self.old.0, self.old.1, self.old.2
        ));
        out.push_str(&format!(
            "new: {} ({} {})\n",
            self.new.0, self.new.1, self.new.2
        ));
        out.push_str(&format!(
            "\nstructure: {}\n",
            counted(self.structure.len() as u64, "change", "changes")
        ));
        for c in &self.structure {
            out.push_str(&format!("  {}\n", describe(c)));
            for v in &c.values {
                out.push_str(&format!("    {}: {}\n", v.field, old_to_new(v)));
            }
            if let Some(p) = &c.old {
                out.push_str(&format!("    old {}\n", at(&self.old.0, p)));
            }
            if let Some(p) = &c.new {
                out.push_str(&format!("    new {}\n", at(&self.new.0, p)));
            }
        }
        out.push_str(&format!("{}\n", input_line(&self.input)));
        out.push_str(&format!(
            "\nfindings: {} introduced, {} resolved\n",
            self.introduced.len(),
            self.resolved.len()
        ));
        for f in &self.introduced {
            out.push_str(&format!(
                "  + {}\n    {}:{}:{}\n",
                finding_line(f),
                f.file.as_deref().unwrap_or(&self.new.0),
                f.line,
                f.column
            ));
        }
        for f in &self.resolved {
            out.push_str(&format!(
                "  - {}\n    {}:{}:{}\n",
                finding_line(f),
                f.file.as_deref().unwrap_or(&self.old.0),
                f.line,
                f.column
            ));
        }
        if let Some(runs) = &self.runs {
            out.push_str(&format!(
                "\nruns: {} replayed against both; {} faithful under OLD {} not under NEW\n",
                runs.runs(),
                runs.regressed(),
                if runs.regressed() == 1 { "is" } else { "are" }
            ));
            let width = "malformed".len();
            out.push_str(&format!("  {:<width$}  {:<width$}  runs\n", "old", "new"));
            for ((o, n), count) in &runs.transitions {
                out.push_str(&format!(
                    "  {:<width$} → {:<width$}  {count}\n",
                    o.as_str(),
                    n.as_str()
                ));
            }
            if !runs.regressions.is_empty() {
                out.push_str("  regressions (first divergence under NEW):\n");
                for g in self.regression_groups() {
                    out.push_str(&format!(
                        "    {} at `{}`: {}, e.g. {}\n",
                        g.1,
                        g.0,
                        counted(g.2.count, "run", "runs"),
                        g.2.examples.join(", ")
                    ));
                }
            }
        }
        out
    }

    fn regression_groups(&self) -> Vec<(&String, &String, &Regression)> {
        let Some(runs) = &self.runs else {
            return Vec::new();
        };
        let mut groups: Vec<(&String, &String, &Regression)> = runs
            .regressions
            .iter()
            .map(|((n, c), r)| (n, c, r))
            .collect();
        groups.sort_by(|a, b| {
            b.2.count
                .cmp(&a.2.count)
                .then_with(|| (a.0, a.1).cmp(&(b.0, b.1)))
        });
        groups
    }

    /// The report as Markdown, for a pull request.
    pub fn render_markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut out = format!(
            "**graph diff** `{}` → `{}`  \nold `{}` · new `{}`\n\n",
            self.old.0, self.new.0, self.old.2, self.new.2
        );
        out.push_str("| change | old | new |\n|---|---|---|\n");
        for c in &self.structure {
            let p = |p: &Option<Place>| {
                p.as_ref()
                    .map(|p| match &p.file {
                        Some(file) => {
                            format!("`{file}` `{}` line {}", display_pointer(&p.pointer), p.line)
                        }
                        None => format!("`{}` line {}", display_pointer(&p.pointer), p.line),
                    })
                    .unwrap_or_else(|| "—".into())
            };
            let mut change = describe(c);
            for v in &c.values {
                change.push_str(&format!("<br>`{}`: {}", v.field, old_to_new_code(v)));
            }
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                cell(&change),
                p(&c.old),
                p(&c.new)
            ));
        }
        out.push_str(&format!("\n{}\n", cell(&input_line(&self.input))));
        out.push_str(&format!(
            "\n**findings**: {} introduced, {} resolved\n\n",
            self.introduced.len(),
            self.resolved.len()
        ));
        for (sign, fs) in [
            ("introduced", &self.introduced),
            ("resolved", &self.resolved),
        ] {
            for f in fs {
                out.push_str(&format!("- {sign}: {}\n", cell(&finding_line(f))));
            }
        }
        if let Some(runs) = &self.runs {
            out.push_str(&format!(
                "\n**runs**: {} replayed; {} faithful under old {} not under new\n\n| old | new | runs |\n|---|---|---|\n",
                runs.runs(),
                runs.regressed(),
                if runs.regressed() == 1 { "is" } else { "are" }
            ));
            for ((o, n), count) in &runs.transitions {
                out.push_str(&format!("| {} | {} | {count} |\n", o.as_str(), n.as_str()));
            }
            if !runs.regressions.is_empty() {
                out.push_str("\n| node | code | runs | examples |\n|---|---|---|---|\n");
                for (node, code, r) in self.regression_groups() {
                    out.push_str(&format!(
                        "| `{}` | {} | {} | {} |\n",
                        cell(node),
                        code,
                        r.count,
                        cell(&r.examples.join(", "))
                    ));
                }
            }
        }
        out
    }
}
