//! The primitive registry: the contracts of Kernel ABI 1.0.0 (embedded at build time) or of any
//! other registry file loaded at run time, and lookup by dotted ID or alias.
//!
//! SKELETON: the registry issue replaces the runtime index below with the build-time generated
//! ISA enum and perfect-hash tables; the public API (`Registry`, `Primitive`, `PrimIdx`,
//! `lookup`, `get`) keeps its shape.

use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

/// Index of a primitive in its registry (for the built-in registry: the ISA enum discriminant).
pub type PrimIdx = u16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Deterministic,
    S1Decision,
    Generation,
    Verification,
    Policy,
    Mutation,
    Retrieval,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Authority {
    Propose,
    Decide,
    Verify,
    Authorize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    ReadsWorkspace,
    WritesWorkspace,
    ExecutesCode,
    Network,
    MintsPermission,
    RaisesSpend,
    CrossesWorkspace,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Family {
    pub name: String,
    pub prefix: String,
    pub group: String,
    pub summary: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Evaluation {
    pub method: String,
    pub metric: String,
}

/// One primitive's contract (SPEC §1.2).
#[derive(Debug, Clone, Deserialize)]
pub struct Primitive {
    #[serde(skip)]
    pub index: PrimIdx,
    pub id: String,
    pub alias: String,
    pub family: String,
    pub class: Class,
    pub authority: Authority,
    pub summary: String,
    pub inputs: Value,
    pub outputs: Value,
    #[serde(default)]
    pub outcomes: Option<Vec<String>>,
    #[serde(default)]
    pub grants: Vec<String>,
    #[serde(default)]
    pub evidence: Vec<String>,
    #[serde(default)]
    pub failure_modes: Vec<String>,
    #[serde(default)]
    pub fallback: Option<String>,
    pub evaluation: Evaluation,
    #[serde(default)]
    pub effects: Vec<Effect>,
    #[serde(default)]
    pub requires_authorization: bool,
    #[serde(default)]
    pub requires_verifier: bool,
    #[serde(default)]
    pub terminal: bool,
}

impl Primitive {
    pub fn has_effect(&self, effect: Effect) -> bool {
        self.effects.contains(&effect)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("cannot read registry {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("registry {origin} is not a valid registry: {message}")]
    Invalid { origin: String, message: String },
}

#[derive(Debug, Deserialize)]
struct RegistryFile {
    abi: String,
    families: Vec<Family>,
    primitives: Vec<Primitive>,
}

/// A loaded registry.
#[derive(Debug)]
pub struct Registry {
    abi: String,
    families: Vec<Family>,
    primitives: Vec<Primitive>,
    index: HashMap<String, PrimIdx>,
}

pub const BUILTIN_JSON: &str = include_str!("../../registry/kernel-abi-1.0.0.json");

impl Registry {
    /// The embedded Kernel ABI 1.0.0.
    pub fn builtin() -> &'static Registry {
        static BUILTIN: OnceLock<Registry> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            Registry::from_slice(BUILTIN_JSON.as_bytes(), "<builtin>")
                .expect("the frozen registry is checked at build time")
        })
    }

    pub fn from_path(path: &Path) -> Result<Registry, RegistryError> {
        let bytes = std::fs::read(path).map_err(|source| RegistryError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Registry::from_slice(&bytes, &path.display().to_string())
    }

    pub fn from_slice(bytes: &[u8], origin: &str) -> Result<Registry, RegistryError> {
        let file: RegistryFile =
            serde_json::from_slice(bytes).map_err(|e| RegistryError::Invalid {
                origin: origin.to_string(),
                message: e.to_string(),
            })?;
        let mut primitives = file.primitives;
        let mut index = HashMap::new();
        for (i, p) in primitives.iter_mut().enumerate() {
            p.index = i as PrimIdx;
            index.insert(p.id.clone(), i as PrimIdx);
            index.insert(p.alias.clone(), i as PrimIdx);
        }
        Ok(Registry {
            abi: file.abi,
            families: file.families,
            primitives,
            index,
        })
    }

    pub fn abi(&self) -> &str {
        &self.abi
    }

    pub fn families(&self) -> &[Family] {
        &self.families
    }

    pub fn primitives(&self) -> &[Primitive] {
        &self.primitives
    }

    /// Look a primitive up by dotted ID or alias.
    pub fn lookup(&self, key: &str) -> Option<&Primitive> {
        self.index.get(key).map(|&i| &self.primitives[i as usize])
    }

    pub fn get(&self, idx: PrimIdx) -> &Primitive {
        &self.primitives[idx as usize]
    }

    pub fn len(&self) -> usize {
        self.primitives.len()
    }

    pub fn is_empty(&self) -> bool {
        self.primitives.is_empty()
    }
}
