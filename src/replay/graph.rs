//! The graph as replay sees it: the document resolved against a registry into node indices,
//! primitive indices and successor maps, with its digest. Loading refuses what replay cannot walk
//! (SPEC §4.2: any G code or R101); other validation findings do not stop a replay.

use super::digest::graph_digest;
use crate::codes;
use crate::diagnostic::{Diagnostic, FileReport, Severity};
use crate::graph::{Binding, GraphDoc, Source};
use crate::registry::{PrimIdx, Registry};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Index of a node in the graph document's `nodes`.
pub type NodeIdx = usize;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphLoadError {
    #[error("the graph does not load: {}", summarize(.0))]
    Refused(Vec<Diagnostic>),
}

fn summarize(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| format!("{} at {}: {}", d.code, d.pointer, d.message))
        .collect::<Vec<_>>()
        .join("; ")
}

impl GraphLoadError {
    /// The findings that refuse the graph.
    pub fn findings(&self) -> &[Diagnostic] {
        match self {
            GraphLoadError::Refused(diags) => diags,
        }
    }

    /// The refusal as a command prints it: `FILE: the graph does not load:` then each finding on
    /// its own line, located in its own file (`file` for the graph's, the pack's or lock file's
    /// when it is in one) as `file:line:col: CODE [pointer]: message` — as `validate` locates them
    /// (SPEC §3.1: every diagnostic has file, pointer, line and column).
    pub fn located(&self, file: &str) -> String {
        let mut out = format!("{file}: the graph does not load:");
        for d in self.findings() {
            let in_file = d.file.as_deref().unwrap_or(file);
            let at = if d.line > 0 {
                format!("{in_file}:{}:{}", d.line, d.column.max(1))
            } else {
                in_file.to_string()
            };
            let pointer = if d.pointer.is_empty() {
                String::new()
            } else {
                format!(" {}", d.pointer)
            };
            out.push_str(&format!("\n  {at}: {}{pointer}: {}", d.code, d.message));
        }
        out
    }
}

/// An input binding, resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolvedBinding {
    /// From the run's input.
    RunInput {
        at: String,
    },
    /// From a node's latest output (`None`: the node does not exist).
    Node {
        node: Option<NodeIdx>,
        at: String,
    },
    Const(Value),
}

#[derive(Debug, Clone)]
pub struct ReplayNode {
    pub id: String,
    pub primitive: PrimIdx,
    pub inputs: Vec<(String, ResolvedBinding)>,
    /// `Some(None)`: a `next` that names no node.
    pub next: Option<Option<NodeIdx>>,
    pub branches: Option<BTreeMap<String, Option<NodeIdx>>>,
    pub on_error: BTreeMap<String, Option<NodeIdx>>,
    pub max_visits: Option<u32>,
}

impl ReplayNode {
    /// A node with neither `next` nor `branches` ends the graph.
    pub fn is_terminal(&self) -> bool {
        self.next.is_none() && self.branches.is_none()
    }
}

/// A graph loaded for replay: what the trace is checked against. Build it with
/// [`ReplayGraph::load`]; the identity fields (`name`, `abi`, `digest`) and the run limits are
/// the embedder's to read, the node table is the replay engine's.
#[derive(Debug, Clone)]
pub struct ReplayGraph {
    /// The graph's `graph` field.
    pub name: String,
    /// The Kernel ABI version the graph targets.
    pub abi: String,
    /// `sha256:` of the graph document's RFC 8785 form: the identity a trace header names.
    pub digest: String,
    /// The graph document as parsed.
    pub document: Value,
    #[doc(hidden)]
    pub doc: GraphDoc,
    #[doc(hidden)]
    pub nodes: Vec<ReplayNode>,
    #[doc(hidden)]
    pub entry: Option<NodeIdx>,
    #[doc(hidden)]
    pub index: HashMap<String, NodeIdx>,
    /// The graph's `max_steps` budget, if any.
    pub max_steps: Option<u64>,
    /// The graph's `max_spend_usd` budget, if any.
    pub max_spend_usd: Option<f64>,
    /// The graph's `input` schema, if any.
    pub input_schema: Option<Value>,
    /// The packs the graph was loaded with, as a trace header records them (SPEC §9.2); empty
    /// when it declares none.
    pub packs: Vec<crate::replay::trace::RecordedPack>,
    /// The composition whose effective registry the graph was resolved against (its context
    /// rules are D620's), when it declares packs. Packs are not part of the embedding API yet
    /// (the command line and the Python package reach them).
    #[doc(hidden)]
    pub composition: Option<Arc<crate::pack::compose::Composition>>,
}

fn refused(code: &'static codes::Code, pointer: &str, message: String) -> GraphLoadError {
    GraphLoadError::Refused(vec![code.at(pointer, message)])
}

/// A document that is not a graph: one located G003 per shape problem.
fn shape_refused(errors: Vec<crate::graph::ShapeError>) -> GraphLoadError {
    GraphLoadError::Refused(
        errors
            .into_iter()
            .map(|e| codes::G003.at(e.pointer, e.message))
            .collect(),
    )
}

/// Does a registry of ABI `have` satisfy a graph targeting `want` (same major, minor ≥)?
pub fn abi_satisfied(want: &str, have: &str) -> bool {
    let parse = |s: &str| -> Option<(u64, u64)> {
        let mut it = s.split('.');
        let major = it.next()?.parse().ok()?;
        let minor = it.next()?.parse().ok()?;
        Some((major, minor))
    };
    match (parse(want), parse(have)) {
        (Some((wm, wn)), Some((hm, hn))) => wm == hm && hn >= wn,
        _ => false,
    }
}

impl ReplayGraph {
    /// Load a graph file's bytes: refuse it when validation reports any G code or R101, then
    /// resolve it.
    pub fn load(
        file: &str,
        bytes: &[u8],
        registry: &Registry,
    ) -> Result<ReplayGraph, GraphLoadError> {
        ReplayGraph::load_with(file, bytes, registry, &crate::validate::Options::default())
    }

    /// [`ReplayGraph::load`] with the pack path of `options` (SPEC §9.2, §9.3): a graph that
    /// uses fragments is replayed as its expansion (traces record expanded IDs such as
    /// `ship/test`, and the digest is the expanded document's), and a graph that declares packs
    /// is resolved against their effective registry, which the returned graph keeps
    /// (hand [`ReplayGraph::registry`] to the `Replayer`). Refused
    /// as `load` refuses, and also when the packs do not compose (P801–P811: the effective
    /// registry would be missing contracts) or a use does not expand (its boundary findings).
    pub fn load_with(
        file: &str,
        bytes: &[u8],
        registry: &Registry,
        options: &crate::validate::Options,
    ) -> Result<ReplayGraph, GraphLoadError> {
        let report: FileReport = crate::validate::check_source(file, bytes, registry, options);
        let blocking: Vec<Diagnostic> = report
            .diagnostics
            .into_iter()
            .filter(|d| {
                d.severity == Severity::Error
                    && (d.code.starts_with('G') || d.code == "R101" || blocks_packs(&d.code))
            })
            .collect();
        if !blocking.is_empty() {
            return Err(GraphLoadError::Refused(blocking));
        }
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|e| refused(&codes::G001, "", format!("not valid JSON: {e}")))?;
        let value = if crate::pack::fragment_expand::has_uses(&value) {
            crate::validate::expand_source(file, bytes, registry, options).map_err(|report| {
                GraphLoadError::Refused(
                    report
                        .diagnostics
                        .into_iter()
                        .filter(|d| d.severity == Severity::Error)
                        .collect(),
                )
            })?
        } else {
            value
        };
        let doc = crate::graph::load(&value).map_err(shape_refused)?;
        match crate::validate::composition_of(file, &doc, options) {
            None => ReplayGraph::from_value(value, registry),
            Some(Err(errors)) => Err(GraphLoadError::Refused(errors)),
            Some(Ok(composition)) => {
                let mut graph = ReplayGraph::from_value(value, &composition.registry)?;
                graph.packs = recorded_packs(&composition);
                graph.composition = Some(composition);
                Ok(graph)
            }
        }
    }

    /// The registry to replay this graph against: its composition's effective registry, or
    /// `base` when it declares no packs.
    pub fn registry<'a>(&'a self, base: &'a Registry) -> &'a Registry {
        self.composition.as_ref().map_or(base, |c| &c.registry)
    }

    /// Resolve a parsed graph document (the checks that make it walkable are repeated here so a
    /// library caller gets the same refusal without the file driver).
    pub fn from_value(document: Value, registry: &Registry) -> Result<ReplayGraph, GraphLoadError> {
        let doc = crate::graph::load(&document).map_err(shape_refused)?;
        if !abi_satisfied(&doc.abi, registry.abi()) {
            return Err(refused(
                &codes::G005,
                "/abi",
                format!(
                    "the graph targets ABI {} and the registry is ABI {}",
                    doc.abi,
                    registry.abi()
                ),
            ));
        }
        let digest = graph_digest(&document)
            .map_err(|e| refused(&codes::G001, "", format!("cannot canonicalize: {e}")))?;
        let mut index = HashMap::new();
        let mut problems = Vec::new();
        for (i, n) in doc.nodes.iter().enumerate() {
            if index.insert(n.id.clone(), i).is_some() {
                problems.push(codes::G004.at(
                    format!("/nodes/{i}/id"),
                    format!("duplicate node id `{}`", n.id),
                ));
            }
        }
        let mut nodes = Vec::with_capacity(doc.nodes.len());
        for (i, n) in doc.nodes.iter().enumerate() {
            let Some(prim) = registry.lookup(&n.primitive) else {
                problems.push(codes::R101.at(
                    format!("/nodes/{i}/primitive"),
                    format!("unknown primitive `{}`", n.primitive),
                ));
                continue;
            };
            let target = |id: &String| index.get(id).copied();
            let inputs = n
                .inputs
                .iter()
                .map(|(prop, b)| {
                    let rb = match b {
                        Binding::Const { value } => ResolvedBinding::Const(value.clone()),
                        Binding::From {
                            from: Source::Input,
                            at,
                        } => ResolvedBinding::RunInput {
                            at: at.clone().unwrap_or_default(),
                        },
                        Binding::From {
                            from: Source::Node(from),
                            at,
                        } => ResolvedBinding::Node {
                            node: target(from),
                            at: at.clone().unwrap_or_default(),
                        },
                    };
                    (prop.clone(), rb)
                })
                .collect();
            nodes.push(ReplayNode {
                id: n.id.clone(),
                primitive: prim.index,
                inputs,
                next: n.next.as_ref().map(target),
                branches: n
                    .branches
                    .as_ref()
                    .map(|b| b.iter().map(|(k, v)| (k.clone(), target(v))).collect()),
                on_error: n
                    .on_error
                    .iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), target(v)))
                    .collect(),
                max_visits: n.max_visits,
            });
        }
        if !problems.is_empty() {
            return Err(GraphLoadError::Refused(problems));
        }
        let entry = index.get(&doc.entry).copied();
        Ok(ReplayGraph {
            name: doc.graph.clone(),
            abi: doc.abi.clone(),
            digest,
            max_steps: doc.budget.as_ref().and_then(|b| b.max_steps),
            max_spend_usd: doc.budget.as_ref().and_then(|b| b.max_spend_usd),
            input_schema: doc.input.clone(),
            packs: Vec::new(),
            composition: None,
            document,
            doc,
            nodes,
            entry,
            index,
        })
    }

    #[doc(hidden)]
    pub fn node(&self, idx: NodeIdx) -> Option<&ReplayNode> {
        self.nodes.get(idx)
    }
}

/// Whether a pack code stops a graph from loading for replay: the graph's packs did not
/// compose (P801–P811), so the effective registry would lack their contracts.
fn blocks_packs(code: &str) -> bool {
    code.strip_prefix('P')
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| (801..=811).contains(&n))
}

/// A composition's packs as a trace header records them.
pub fn recorded_packs(
    composition: &crate::pack::compose::Composition,
) -> Vec<crate::replay::trace::RecordedPack> {
    composition
        .packs
        .iter()
        .map(|p| crate::replay::trace::RecordedPack {
            name: p.name.clone(),
            version: p.version.to_string(),
            digest: p.digest().to_string(),
        })
        .collect()
}
