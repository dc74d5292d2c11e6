//! The mapping file of `primgraph import --map MAP.toml` (SPEC §10): which node a tool or span
//! name is (`[tools]`), where a decision node's outcome is in its output (`[outcomes]`), where a
//! failure mode is in a tool's error (`[errors]`), which evidence kinds an imported step carries
//! (`[evidence]`), the node the run's final answer becomes a step at (`[final]`), and what makes
//! a run `success` (`[end]`). Every node named must be one of the graph's; every error is located
//! by line and column in the file.

use crate::replay::ReplayGraph;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use toml::Spanned;

/// A mapping file that cannot be used, with its location.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
#[non_exhaustive]
pub struct MapError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Where a decision node's outcome is read from its output.
#[derive(Debug, Clone, PartialEq)]
pub enum OutcomeRule {
    /// The string at this pointer is the outcome.
    Pointer(String),
    /// The value at `at`: a string is the outcome (unless `map` names it), another value goes
    /// through `map` by its JSON text.
    Mapped {
        at: String,
        map: BTreeMap<String, String>,
    },
}

/// What makes an imported run `success` (SPEC §10 `[end]`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EndRule {
    /// The scorer whose score decides (default: the first score).
    pub scorer: Option<String>,
    /// Score values that mean success (default: `"C"`, `1`, `1.0`, `true`).
    pub success: Option<Vec<Value>>,
    /// Instead of scores: `success` exactly when the last step is at one of these nodes.
    pub success_nodes: Option<Vec<String>>,
}

/// A loaded mapping (the empty mapping when no `--map` is given).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mapping {
    pub tools: BTreeMap<String, String>,
    pub outcomes: BTreeMap<String, OutcomeRule>,
    pub errors: BTreeMap<String, String>,
    pub evidence: BTreeMap<String, Vec<String>>,
    pub final_node: Option<String>,
    pub end: EndRule,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    #[serde(default)]
    tools: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    outcomes: BTreeMap<Spanned<String>, Spanned<RawOutcome>>,
    #[serde(default)]
    errors: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    evidence: BTreeMap<Spanned<String>, Vec<String>>,
    #[serde(default, rename = "final")]
    final_: Option<RawFinal>,
    #[serde(default)]
    end: Option<RawEnd>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawOutcome {
    Pointer(String),
    Mapped {
        at: String,
        map: BTreeMap<String, String>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFinal {
    node: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnd {
    scorer: Option<String>,
    success: Option<Vec<toml::Value>>,
    success_nodes: Option<Vec<Spanned<String>>>,
}

/// 1-based line and column (in chars) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn toml_to_json(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.into_iter().map(|(k, v)| (k, toml_to_json(v))).collect())
        }
    }
}

impl Mapping {
    /// Parse a mapping file's text and check every node it names against `graph`.
    pub fn parse(file: &str, text: &str, graph: &ReplayGraph) -> Result<Mapping, MapError> {
        let error = |offset: usize, message: String| {
            let (line, column) = line_column(text, offset);
            MapError {
                file: file.to_string(),
                line,
                column,
                message,
            }
        };
        let raw: RawMap = toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            error(offset, e.message().trim().to_string())
        })?;
        let node = |name: &Spanned<String>, what: &str| -> Result<String, MapError> {
            if graph.index.contains_key(name.get_ref()) {
                Ok(name.get_ref().clone())
            } else {
                let known: Vec<&str> = graph.nodes.iter().map(|n| n.id.as_str()).collect();
                let nearest =
                    crate::diagnostic::suggest::nearest(name.get_ref(), known.iter().copied(), 1);
                let hint = nearest
                    .first()
                    .map_or_else(String::new, |s| format!(" (did you mean `{s}`?)"));
                Err(error(
                    name.span().start,
                    format!(
                        "{what} names `{}`, which is not a node of graph `{}`{hint}",
                        name.get_ref(),
                        graph.name
                    ),
                ))
            }
        };
        let pointer = |p: &str, offset: usize| -> Result<String, MapError> {
            if p.is_empty() || p.starts_with('/') {
                Ok(p.to_string())
            } else {
                Err(error(
                    offset,
                    format!("`{p}` is not a JSON pointer (it starts with `/`)"),
                ))
            }
        };
        let mut m = Mapping::default();
        for (tool, target) in &raw.tools {
            m.tools
                .insert(tool.clone(), node(target, &format!("[tools] `{tool}`"))?);
        }
        for (n, rule) in raw.outcomes {
            let id = node(&n, "[outcomes]")?;
            let at = rule.span().start;
            let rule = match rule.into_inner() {
                RawOutcome::Pointer(p) => OutcomeRule::Pointer(pointer(&p, at)?),
                RawOutcome::Mapped { at: p, map } => OutcomeRule::Mapped {
                    at: pointer(&p, at)?,
                    map,
                },
            };
            m.outcomes.insert(id, rule);
        }
        for (n, p) in raw.errors {
            let id = node(&n, "[errors]")?;
            m.errors.insert(id, pointer(p.get_ref(), p.span().start)?);
        }
        for (n, kinds) in raw.evidence {
            let id = node(&n, "[evidence]")?;
            m.evidence.insert(id, kinds);
        }
        if let Some(f) = raw.final_ {
            let id = node(&f.node, "[final] node")?;
            let terminal = graph
                .index
                .get(&id)
                .and_then(|&i| graph.nodes.get(i))
                .is_some_and(|n| n.is_terminal());
            if !terminal {
                return Err(error(
                    f.node.span().start,
                    format!("[final] node `{id}` is not a terminal node of the graph"),
                ));
            }
            m.final_node = Some(id);
        }
        if let Some(end) = raw.end {
            m.end.scorer = end.scorer;
            m.end.success = end
                .success
                .map(|v| v.into_iter().map(toml_to_json).collect());
            if let Some(nodes) = end.success_nodes {
                let mut ids = Vec::new();
                for n in &nodes {
                    ids.push(node(n, "[end] success_nodes")?);
                }
                m.end.success_nodes = Some(ids);
            }
        }
        Ok(m)
    }
}
