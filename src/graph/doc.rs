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
    pub inputs: BTreeMap<String, Binding>,
    #[serde(default)]
    pub next: Option<String>,
    #[serde(default)]
    pub branches: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub on_error: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub max_visits: Option<u32>,
}

impl NodeDoc {
    /// The residency label, `"main"` by default.
    pub fn workspace(&self) -> &str {
        self.workspace.as_deref().unwrap_or("main")
    }
}

/// An input binding: from a node's (or the run's) output at a pointer, or a constant.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Binding {
    From {
        from: String,
        #[serde(default)]
        at: Option<String>,
    },
    Const {
        #[serde(rename = "const")]
        value: Value,
    },
}

impl GraphDoc {
    /// Load a document from a parsed value; every shape error is joined into one message.
    /// [`crate::graph::load::load`] gives them one by one, with their pointers.
    pub fn from_value(value: &Value) -> Result<GraphDoc, String> {
        crate::graph::load::load(value).map_err(|errors| {
            errors
                .iter()
                .map(|e| format!("{}: {}", e.pointer_display(), e.message))
                .collect::<Vec<_>>()
                .join("; ")
        })
    }
}
