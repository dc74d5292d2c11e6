//! The primitive registry: the contracts of Kernel ABI 1.0.0 (embedded at build time) or of any
//! other registry file loaded at run time, and lookup by dotted ID or alias.
//!
//! `build.rs` checks the frozen file with the [`lint`] core and generates the [`Isa`] enum and a
//! perfect-hash table over its 382 keys (191 IDs + 191 aliases) into `OUT_DIR`; the built-in
//! [`Registry`] uses that table as is. A registry loaded with [`Registry::from_path`] builds the
//! same kind of table at load ([`phash`]). Either way a lookup hashes the `&str` bytes once,
//! reads two small arrays and compares one string: no allocation, no `String` hashing.
//! Compiled schemas ([`CompiledSchema`]) of every primitive's inputs and outputs are built on
//! first use and cached. [`report`] turns lint findings into located diagnostics for
//! `primgraph registry lint`.

#[doc(hidden)]
pub mod lint;
#[doc(hidden)]
pub mod phash;
pub mod report;

mod isa;

pub use isa::Isa;
pub use lint::shape::MAX_PRIMITIVES;
pub use report::{LintError, lint_source};

// Two keys (ID, alias) per primitive must fit in 16-bit slots beside the EMPTY marker.
const _: () = assert!(2 * MAX_PRIMITIVES < phash::EMPTY as usize);

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Index of a primitive in its registry (for the built-in registry: the ISA enum discriminant).
pub type PrimIdx = u16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
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

impl Class {
    pub const ALL: [Class; 7] = [
        Class::Deterministic,
        Class::S1Decision,
        Class::Generation,
        Class::Verification,
        Class::Policy,
        Class::Mutation,
        Class::Retrieval,
    ];

    /// The name as the registry file spells it (`s1_decision`).
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Deterministic => "deterministic",
            Class::S1Decision => "s1_decision",
            Class::Generation => "generation",
            Class::Verification => "verification",
            Class::Policy => "policy",
            Class::Mutation => "mutation",
            Class::Retrieval => "retrieval",
        }
    }

    pub fn parse(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Authority {
    Propose,
    Decide,
    Verify,
    Authorize,
}

impl Authority {
    pub fn as_str(self) -> &'static str {
        match self {
            Authority::Propose => "propose",
            Authority::Decide => "decide",
            Authority::Verify => "verify",
            Authority::Authorize => "authorize",
        }
    }
}

impl std::fmt::Display for Authority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
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

impl Effect {
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::ReadsWorkspace => "reads_workspace",
            Effect::WritesWorkspace => "writes_workspace",
            Effect::ExecutesCode => "executes_code",
            Effect::Network => "network",
            Effect::MintsPermission => "mints_permission",
            Effect::RaisesSpend => "raises_spend",
            Effect::CrossesWorkspace => "crosses_workspace",
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Family {
    pub name: String,
    pub prefix: String,
    pub group: String,
    pub summary: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Evaluation {
    pub method: String,
    pub metric: String,
}

/// One primitive's contract (SPEC §1.2).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Primitive {
    #[serde(skip)]
    pub index: PrimIdx,
    pub id: String,
    pub alias: String,
    pub family: String,
    pub class: Class,
    pub authority: Authority,
    pub summary: String,
    /// The input schema, shared: a composition's registry and the packs it is built from hold
    /// one copy of it (cloning a contract copies no schema).
    #[serde(
        serialize_with = "shared::serialize",
        deserialize_with = "shared::deserialize"
    )]
    pub inputs: Arc<Value>,
    /// The output schema, shared as `inputs` is.
    #[serde(
        serialize_with = "shared::serialize",
        deserialize_with = "shared::deserialize"
    )]
    pub outputs: Arc<Value>,
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

/// Serde for a shared schema, written and read as the plain value it is (serde's own `Arc`
/// support is behind a feature this crate does not turn on).
mod shared {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;
    use std::sync::Arc;

    pub fn serialize<S: Serializer>(value: &Arc<Value>, s: S) -> Result<S::Ok, S::Error> {
        value.as_ref().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Value>, D::Error> {
        Value::deserialize(d).map(Arc::new)
    }
}

impl Primitive {
    pub fn has_effect(&self, effect: Effect) -> bool {
        self.effects.contains(&effect)
    }

    /// The ISA variant of this primitive's ID in Kernel ABI 1.0.0, if it is one of its IDs.
    pub fn isa(&self) -> Option<Isa> {
        Isa::from_id(&self.id)
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    #[error("cannot read registry {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("registry {0}")]
    Input(#[from] crate::input::InputError),
    #[error("registry {origin} is not valid JSON: {error}")]
    Json {
        origin: String,
        #[source]
        error: Box<crate::json::JsonError>,
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

/// The lookup table of a registry: generated at build time for the built-in one, built at load
/// for the others. Key `k < len` is the ID of primitive `k`, key `len + k` its alias.
#[derive(Debug)]
struct KeyTable {
    seed: u64,
    slots: Box<[phash::Slot]>,
    /// By key index: the key's middle words (`phash::middle_words`).
    middles: Box<[[u64; 4]]>,
    /// Every key (IDs, then aliases) end to end, and where each ends: what a key longer than
    /// `phash::MIDDLE_MAX` bytes is confirmed against, in a few dense arrays rather than through
    /// the primitive's own strings.
    text: Box<str>,
    ends: Box<[u32]>,
}

impl KeyTable {
    /// The table `phash::build` built over `keys` (every ID, then every alias).
    fn new(built: phash::Table, keys: &[&str]) -> KeyTable {
        let (text, ends) = KeyTable::key_text(keys);
        KeyTable {
            seed: built.seed,
            slots: built.slots.into(),
            middles: built.middles.into(),
            text,
            ends,
        }
    }

    fn key_text(keys: &[&str]) -> (Box<str>, Box<[u32]>) {
        let mut text = String::with_capacity(keys.iter().map(|k| k.len()).sum());
        let mut ends = Vec::with_capacity(keys.len());
        for k in keys {
            text.push_str(k);
            ends.push(text.len() as u32);
        }
        (text.into(), ends.into())
    }

    /// The table as a probe reads it.
    #[inline(always)]
    fn view(&self) -> phash::TableRef<'_> {
        phash::TableRef {
            seed: self.seed,
            slots: &self.slots,
            middles: &self.middles,
        }
    }

    /// Key `k`'s bytes.
    #[inline(always)]
    fn key(&self, k: usize) -> Option<&[u8]> {
        let end = *self.ends.get(k)? as usize;
        let start = match k.checked_sub(1) {
            Some(before) => self.ends[before] as usize,
            None => 0,
        };
        self.text.as_bytes().get(start..end)
    }
}

/// A primitive's compiled schemas, built on first use (`None`: the schema does not compile).
#[derive(Debug, Default)]
struct Validators {
    input: OnceLock<Option<CompiledSchema>>,
    output: OnceLock<Option<CompiledSchema>>,
}

/// A compiled JSON Schema (draft 2020-12 unless its `$schema` names another draft): what
/// [`Registry::input_validator`] and [`Registry::output_validator`] hand out. The compiler
/// behind it is an implementation detail, kept out of the public signatures so that its
/// (exactly pinned) version can change without breaking an embedder.
#[derive(Debug)]
pub struct CompiledSchema(jsonschema::Validator);

/// One way an instance breaks a [`CompiledSchema`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaViolation {
    /// JSON pointer (RFC 6901) of the offending value inside the instance (`""`: the instance).
    pub instance_path: String,
    /// What is wrong, in the compiler's words.
    pub message: String,
}

impl std::fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.instance_path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.instance_path, self.message)
        }
    }
}

impl CompiledSchema {
    /// Compile `schema`, or say why it does not compile (lint L505's message).
    pub fn compile(schema: &Value) -> Result<CompiledSchema, String> {
        jsonschema::validator_for(schema)
            .map(CompiledSchema)
            .map_err(|e| e.to_string())
    }

    /// Whether `instance` is valid under the schema (stops at the first error).
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.0.is_valid(instance)
    }

    /// `Ok` when `instance` is valid, else its first violation.
    pub fn validate(&self, instance: &Value) -> Result<(), SchemaViolation> {
        if self.0.is_valid(instance) {
            return Ok(());
        }
        match self.errors(instance).next() {
            Some(violation) => Err(violation),
            // Unreachable for a validator that is consistent with itself; refuse anyway.
            None => Err(SchemaViolation {
                instance_path: String::new(),
                message: "is not valid under the schema".to_string(),
            }),
        }
    }

    /// Every violation of `instance`, in the compiler's order.
    pub fn errors<'a>(&'a self, instance: &'a Value) -> impl Iterator<Item = SchemaViolation> + 'a {
        self.0.iter_errors(instance).map(|e| SchemaViolation {
            instance_path: e.instance_path().as_str().to_string(),
            message: e.to_string(),
        })
    }
}

/// A loaded registry.
#[derive(Debug)]
pub struct Registry {
    abi: String,
    families: Vec<Family>,
    primitives: Vec<Primitive>,
    table: KeyTable,
    validators: Vec<Validators>,
    /// Schema-compatibility work on this registry's schemas (canonical forms, compiled
    /// validators), kept across the graphs validated against it.
    checker: crate::schema::Checker,
    builtin: bool,
}

pub const BUILTIN_JSON: &str = include_str!("../../registry/kernel-abi-1.0.0.json");

/// The limits of a registry file (the frozen one is about 0.3 MB).
#[doc(hidden)]
pub const LIMITS: crate::json::Limits = crate::json::Limits {
    max_bytes: 16 * 1024 * 1024,
    max_depth: 64,
};

impl Registry {
    /// The embedded Kernel ABI 1.0.0.
    pub fn builtin() -> &'static Registry {
        static BUILTIN: OnceLock<Registry> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            // The build-time table: building the perfect hash again at start-up would cost more
            // than everything else a small `validate` does.
            let mut registry = Registry::load(
                BUILTIN_JSON.as_bytes(),
                "<builtin>",
                Some(isa::static_table()),
            )
            .expect("the frozen registry is checked at build time");
            registry.builtin = true;
            registry
        })
    }

    pub fn from_path(path: &Path) -> Result<Registry, RegistryError> {
        // Only a regular file, refused by its size before it is read.
        let bytes = crate::input::read_capped(path, LIMITS.max_bytes)?;
        Registry::from_slice(&bytes, &path.display().to_string())
    }

    /// Load a registry from its bytes. The file must be strict JSON (no duplicate keys) of the
    /// registry's shape, with distinct IDs and aliases; the other invariants of §1.3 are
    /// `registry lint`'s business (validation reports what they break, e.g. A401).
    pub fn from_slice(bytes: &[u8], origin: &str) -> Result<Registry, RegistryError> {
        Registry::load(bytes, origin, None)
    }

    /// `from_slice`, with the lookup table given (the built-in one) or built here (`None`).
    fn load(
        bytes: &[u8],
        origin: &str,
        table: Option<phash::Table>,
    ) -> Result<Registry, RegistryError> {
        let parsed = crate::json::parse(bytes, &LIMITS).map_err(|error| RegistryError::Json {
            origin: origin.to_string(),
            error: Box::new(error),
        })?;
        let invalid = |message: String| RegistryError::Invalid {
            origin: origin.to_string(),
            message,
        };
        if let Err(e) = lint::shape::check(&parsed.value) {
            let span = parsed.locate_nearest(&e.pointer);
            let at = if e.pointer.is_empty() {
                "the document"
            } else {
                &e.pointer
            };
            return Err(invalid(format!(
                "{} (at {at}, line {}, column {})",
                e.message, span.line, span.column
            )));
        }
        let file: RegistryFile =
            serde_json::from_value(parsed.value).map_err(|e| invalid(e.to_string()))?;
        let mut primitives = file.primitives;
        // `lint::shape::check` above already refused more than MAX_PRIMITIVES (located); the
        // lookup table depends on it, so it is checked again here.
        if primitives.len() > MAX_PRIMITIVES {
            return Err(invalid(format!(
                "{} primitives, over the limit of {MAX_PRIMITIVES}",
                primitives.len()
            )));
        }
        for (i, p) in primitives.iter_mut().enumerate() {
            p.index = i as PrimIdx;
        }
        let keys: Vec<&str> = primitives
            .iter()
            .map(|p| p.id.as_str())
            .chain(primitives.iter().map(|p| p.alias.as_str()))
            .collect();
        let table = match table {
            Some(built) => KeyTable::new(built, &keys),
            None => {
                let n = primitives.len();
                let built = phash::build(&keys, |k| (k % n) as PrimIdx)
                    .map_err(|e| invalid(format!("IDs and aliases: {e}")))?;
                KeyTable::new(built, &keys)
            }
        };
        let validators = primitives.iter().map(|_| Validators::default()).collect();
        Ok(Registry {
            abi: file.abi,
            families: file.families,
            primitives,
            table,
            validators,
            checker: crate::schema::Checker::new(),
            builtin: false,
        })
    }

    /// A registry that is `base` extended by more families and primitives (SPEC §9.2: the
    /// effective registry of a pack composition). The base's primitives keep their indices;
    /// the extra ones follow in the given order. One perfect-hash table over every ID and alias
    /// is built here, once, so a lookup costs what a lookup in any loaded registry costs.
    /// Duplicate IDs or aliases are refused (the pack layer reports them as P803 before).
    pub fn extended(
        base: &Registry,
        families: Vec<Family>,
        primitives: Vec<Primitive>,
        origin: &str,
    ) -> Result<Registry, RegistryError> {
        let invalid = |message: String| RegistryError::Invalid {
            origin: origin.to_string(),
            message,
        };
        let mut all: Vec<Primitive> = Vec::with_capacity(base.len() + primitives.len());
        all.extend(base.primitives.iter().cloned());
        all.extend(primitives);
        if all.len() > MAX_PRIMITIVES {
            return Err(invalid(format!(
                "{} primitives, over the limit of {MAX_PRIMITIVES}",
                all.len()
            )));
        }
        for (i, p) in all.iter_mut().enumerate() {
            p.index = i as PrimIdx;
        }
        let keys: Vec<&str> = all
            .iter()
            .map(|p| p.id.as_str())
            .chain(all.iter().map(|p| p.alias.as_str()))
            .collect();
        let n = all.len();
        let built = phash::build(&keys, |k| (k % n) as PrimIdx)
            .map_err(|e| invalid(format!("IDs and aliases: {e}")))?;
        let table = KeyTable::new(built, &keys);
        let mut all_families = base.families.clone();
        all_families.extend(families);
        let validators = all.iter().map(|_| Validators::default()).collect();
        Ok(Registry {
            abi: base.abi.clone(),
            families: all_families,
            primitives: all,
            table,
            validators,
            checker: crate::schema::Checker::new(),
            builtin: false,
        })
    }

    /// The primitives, moved out (the registry is left with none, its table pointing nowhere):
    /// for a registry about to be dropped whose contracts are freed on another thread.
    pub(crate) fn take_primitives(&mut self) -> Vec<Primitive> {
        self.validators.clear();
        std::mem::take(&mut self.primitives)
    }

    pub fn abi(&self) -> &str {
        &self.abi
    }

    pub fn families(&self) -> &[Family] {
        &self.families
    }

    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name)
    }

    pub fn primitives(&self) -> &[Primitive] {
        &self.primitives
    }

    /// Whether this is the embedded Kernel ABI 1.0.0.
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }

    /// Look a primitive up by dotted ID or alias (no allocation, one hash of the bytes).
    #[inline(always)]
    pub fn lookup(&self, key: &str) -> Option<&Primitive> {
        self.lookup_index(key)
            .and_then(|i| self.primitives.get(i as usize))
    }

    /// The index of the primitive with this dotted ID or alias.
    #[inline(always)]
    pub fn lookup_index(&self, key: &str) -> Option<PrimIdx> {
        match self.table.view().probe_exact(key.as_bytes()) {
            Ok(found) => found,
            Err(phash::OtherLength) => self.lookup_other_length(key),
        }
    }

    /// [`Registry::lookup_index`] for a key shorter or longer than the table's packed words:
    /// out of line, so that the hot path builds no `confirm` closure and passes nothing
    /// through memory.
    #[cold]
    #[inline(never)]
    fn lookup_other_length(&self, key: &str) -> Option<PrimIdx> {
        let t = &self.table;
        t.view()
            .probe_other_lengths(key.as_bytes(), |k| t.key(k) == Some(key.as_bytes()))
    }

    /// The schema-compatibility checker shared by every check against this registry: a
    /// schema met in one graph is prepared once for all of them.
    #[doc(hidden)]
    pub fn schema_checker(&self) -> &crate::schema::Checker {
        &self.checker
    }

    /// The primitive at `idx`. Panics when `idx` is not an index of this registry (indices come
    /// from this registry's `lookup`); see [`Registry::try_get`].
    pub fn get(&self, idx: PrimIdx) -> &Primitive {
        &self.primitives[idx as usize]
    }

    pub fn try_get(&self, idx: PrimIdx) -> Option<&Primitive> {
        self.primitives.get(idx as usize)
    }

    /// The primitive of an ISA variant: by index in the built-in registry, by ID in any other
    /// (where the primitive may be missing).
    pub fn get_isa(&self, isa: Isa) -> Option<&Primitive> {
        if self.builtin {
            self.primitives.get(isa.index() as usize)
        } else {
            self.lookup(isa.id()).filter(|p| p.id == isa.id())
        }
    }

    /// The primitives of one family, in file order.
    pub fn by_family<'a>(&'a self, family: &'a str) -> impl Iterator<Item = &'a Primitive> + 'a {
        self.primitives.iter().filter(move |p| p.family == family)
    }

    /// The primitives of one class, in file order.
    pub fn by_class(&self, class: Class) -> impl Iterator<Item = &Primitive> + '_ {
        self.primitives.iter().filter(move |p| p.class == class)
    }

    /// The primitives matching every given criterion, in file order.
    pub fn filter<'a>(
        &'a self,
        filter: &'a Filter<'a>,
    ) -> impl Iterator<Item = &'a Primitive> + 'a {
        self.primitives.iter().filter(move |p| filter.matches(p))
    }

    /// The compiled schema of a primitive's `inputs` (built on first use, then cached); `None`
    /// when `idx` is out of range or the schema does not compile (lint L505).
    pub fn input_validator(&self, idx: PrimIdx) -> Option<&CompiledSchema> {
        let (cell, prim) = (
            &self.validators.get(idx as usize)?.input,
            self.try_get(idx)?,
        );
        cell.get_or_init(|| CompiledSchema::compile(&prim.inputs).ok())
            .as_ref()
    }

    /// The compiled schema of a primitive's `outputs`; see [`Registry::input_validator`].
    pub fn output_validator(&self, idx: PrimIdx) -> Option<&CompiledSchema> {
        let (cell, prim) = (
            &self.validators.get(idx as usize)?.output,
            self.try_get(idx)?,
        );
        cell.get_or_init(|| CompiledSchema::compile(&prim.outputs).ok())
            .as_ref()
    }

    pub fn len(&self) -> usize {
        self.primitives.len()
    }

    pub fn is_empty(&self) -> bool {
        self.primitives.is_empty()
    }
}

/// Criteria for [`Registry::filter`]; `None` matches everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    pub family: Option<&'a str>,
    pub class: Option<Class>,
    pub authority: Option<Authority>,
    pub effect: Option<Effect>,
}

impl Filter<'_> {
    pub fn matches(&self, p: &Primitive) -> bool {
        self.family.is_none_or(|f| p.family == f)
            && self.class.is_none_or(|c| p.class == c)
            && self.authority.is_none_or(|a| p.authority == a)
            && self.effect.is_none_or(|e| p.has_effect(e))
    }
}
