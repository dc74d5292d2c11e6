//! The effective registry of a graph (SPEC §9.2): the base registry (the embedded Kernel ABI,
//! or `--registry FILE`) plus the packs the graph declares and the packs they require. A
//! [`Composition`] is built once per set of resolved packs — one `Registry` with one perfect
//! hash over every ID and alias (`Registry::extended`), so a lookup costs what a kernel lookup
//! costs — and the [`Composer`] caches compositions (and loaded packs) so validating many
//! graphs with the same packs builds it once. Across the composition: no root claimed twice
//! (P802), IDs and aliases unique (P803), fallbacks name a primitive (L507) and failure modes
//! come from the registry, the pack itself or a pack it requires (P808).

use super::lock::Lock;
use super::path::{Candidate, PackPath};
use super::resolve::{self, Chooser, Request, Resolution};
use super::{Pack, PackErrors, Range};
use crate::codes;
use crate::diagnostic::{self, Diagnostic};
use crate::registry::{PrimIdx, Registry};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Who asked for a pack: the graph being checked, or a pack's `requires`.
#[derive(Debug, Clone)]
pub enum Asker {
    Graph {
        file: String,
    },
    Pack {
        label: String,
        file: String,
        source: Arc<crate::json::Parsed>,
    },
}

impl Asker {
    /// `graphs/x.graph.json`, `pyrepo@1.2.0`: as the lock's `requested` keys it.
    pub fn key(&self) -> String {
        match self {
            Asker::Graph { file } => file.clone(),
            Asker::Pack { label, .. } => label.clone(),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Asker::Graph { file } => format!("the graph {file}"),
            Asker::Pack { label, .. } => format!("pack {label}"),
        }
    }

    /// A diagnostic about this asker's range, placed in its file.
    pub fn locate(&self, d: Diagnostic) -> Located {
        match self {
            Asker::Graph { .. } => Located::in_graph(d),
            Asker::Pack { file, source, .. } => Located::in_file(file, source, d),
        }
    }
}

/// A diagnostic of composition: in the graph being checked (`file: None`; its pointer is
/// resolved against the graph), or in a pack's file (located already).
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub file: Option<String>,
    pub diagnostic: Diagnostic,
}

impl Located {
    pub fn in_graph(diagnostic: Diagnostic) -> Located {
        Located {
            file: None,
            diagnostic,
        }
    }

    /// A diagnostic in `file`, its pointer resolved against `source`.
    pub fn in_file(file: &str, source: &crate::json::Parsed, mut d: Diagnostic) -> Located {
        diagnostic::resolve(std::slice::from_mut(&mut d), source);
        // The text goes with the diagnostic: a graph's report quotes it (SPEC §3.1) though the
        // pack's file is not the report's.
        d.sources.push((file.to_string(), source.source_arc()));
        Located {
            file: Some(file.to_string()),
            diagnostic: d,
        }
    }

    pub fn in_pack(pack: &Pack, d: Diagnostic) -> Located {
        Located::in_file(&pack.manifest, &pack.source, d)
    }

    /// Every finding of a pack that did not load.
    pub fn from_errors(errors: PackErrors) -> Vec<Located> {
        errors
            .reports
            .into_iter()
            .flat_map(|r| {
                let file = r.file;
                let source = (!r.source.is_empty()).then_some(r.source);
                r.diagnostics.into_iter().map(move |mut d| {
                    if let Some(text) = &source
                        && !d.sources.iter().any(|(f, _)| *f == file)
                    {
                        d.sources.push((file.clone(), text.clone()));
                    }
                    Located {
                        file: Some(file.clone()),
                        diagnostic: d,
                    }
                })
            })
            .collect()
    }
}

/// A resolved set of packs over a base registry: the effective registry.
#[derive(Debug)]
pub struct Composition {
    /// The base registry's primitives (indices `0..base_len`), then each pack's, in
    /// [`Composition::packs`] order.
    pub registry: Registry,
    /// Dependencies before dependents.
    pub packs: Vec<Arc<Pack>>,
    base_len: usize,
    /// For each pack primitive (index − `base_len`), its pack's position in `packs`.
    owner: Vec<u16>,
}

impl Composition {
    /// Check the packs together and build the one lookup table.
    pub fn build(base: &Registry, packs: Vec<Arc<Pack>>) -> Result<Composition, Vec<Located>> {
        let mut errors = Vec::new();
        // Roots: never claimed twice (the base's prefixes are refused when a pack loads).
        let mut roots: HashMap<&str, &Pack> = HashMap::new();
        for pack in &packs {
            for (i, root) in pack.roots.iter().enumerate() {
                if let Some(other) = roots.get(root.as_str()) {
                    errors.push(Located::in_pack(
                        pack,
                        codes::P802.at(
                            format!("/roots/{i}"),
                            format!(
                                "root `{root}` is claimed by pack {} too: no two loaded packs \
                                 share a root",
                                other.label()
                            ),
                        ),
                    ));
                } else {
                    roots.insert(root, pack);
                }
            }
        }
        // IDs and aliases: unique across the base and every pack. Each key's owner (its pack,
        // `None` for the base, and the ID) is described only when another key collides.
        let mut keys: HashMap<&str, (Option<&Pack>, &str)> = HashMap::with_capacity(
            2 * base.len() + packs.iter().map(|p| 2 * p.primitives.len()).sum::<usize>(),
        );
        for p in base.primitives() {
            keys.insert(&p.id, (None, &p.id));
            keys.insert(&p.alias, (None, &p.id));
        }
        for pack in &packs {
            for p in &pack.primitives {
                for (field, key) in [("id", &p.contract.id), ("alias", &p.contract.alias)] {
                    match keys.get(key.as_str()) {
                        Some(&(owner_pack, owner_id)) => {
                            let owner = match owner_pack {
                                None => format!("the registry's `{owner_id}`"),
                                Some(other) => format!("pack {}'s `{owner_id}`", other.label()),
                            };
                            errors.push(Located::in_pack(
                                pack,
                                codes::P803.at(
                                    format!("{}/{field}", p.pointer),
                                    format!(
                                        "{field} `{key}` collides with {owner}: IDs and \
                                         aliases are unique across the registry and every \
                                         loaded pack"
                                    ),
                                ),
                            ))
                        }
                        None => {
                            keys.insert(key, (Some(pack), &p.contract.id));
                        }
                    }
                }
            }
        }
        // Failure modes: the registry's, the pack's own, or a required pack's error classes.
        let base_modes: HashSet<&str> = base
            .primitives()
            .iter()
            .flat_map(|p| p.failure_modes.iter().map(String::as_str))
            .collect();
        let by_name: HashMap<&str, &Pack> = packs.iter().map(|p| (p.name.as_str(), &**p)).collect();
        // A fallback names an ID: a key of `keys` whose owner's ID is the key itself.
        let is_id = |name: &str| keys.get(name).is_some_and(|&(_, id)| id == name);
        for pack in &packs {
            let mut allowed: BTreeSet<&str> =
                pack.error_classes.iter().map(String::as_str).collect();
            for r in &pack.requires {
                if let Some(dep) = by_name.get(r.name.as_str()) {
                    allowed.extend(dep.error_classes.iter().map(String::as_str));
                }
            }
            for p in &pack.primitives {
                for (k, mode) in p.contract.failure_modes.iter().enumerate() {
                    if !base_modes.contains(mode.as_str()) && !allowed.contains(mode.as_str()) {
                        errors.push(Located::in_pack(
                            pack,
                            codes::P808.at(
                                format!("{}/failure_modes/{k}", p.pointer),
                                format!(
                                    "failure mode `{mode}` is not an error class of the \
                                     registry, of pack `{}` (`error_classes`) or of a pack it \
                                     requires",
                                    pack.name
                                ),
                            ),
                        ));
                    }
                }
                if let Some(fallback) = &p.contract.fallback
                    && !is_id(fallback)
                {
                    errors.push(Located::in_pack(
                        pack,
                        codes::L507.at(
                            format!("{}/fallback", p.pointer),
                            format!(
                                "fallback `{fallback}` names no primitive of the registry or of \
                                 the loaded packs"
                            ),
                        ),
                    ));
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut families = Vec::new();
        let mut owner = Vec::new();
        for (k, pack) in packs.iter().enumerate() {
            families.extend(pack.families.iter().cloned());
            owner.extend(std::iter::repeat_n(k as u16, pack.primitives.len()));
        }
        // The contracts are copied on both cores (their schemas are shared, not copied), in
        // pack order: rayon's collect keeps it.
        let primitives: Vec<_> = {
            use rayon::prelude::*;
            packs
                .par_iter()
                .flat_map_iter(|pack| pack.primitives.iter().map(|p| p.contract.clone()))
                .collect()
        };
        let origin = packs
            .iter()
            .map(|p| p.label())
            .collect::<Vec<_>>()
            .join(" + ");
        let registry = Registry::extended(base, families, primitives, &origin).map_err(|e| {
            vec![Located::in_graph(
                codes::P803.at("/packs", format!("the effective registry: {e}")),
            )]
        })?;
        Ok(Composition {
            registry,
            base_len: base.len(),
            packs,
            owner,
        })
    }

    /// The pack a primitive of the effective registry comes from (`None`: the base's).
    pub fn pack_of(&self, idx: PrimIdx) -> Option<&Arc<Pack>> {
        let i = (idx as usize).checked_sub(self.base_len)?;
        self.owner.get(i).map(|&k| &self.packs[k as usize])
    }

    /// The loaded pack of this name.
    pub fn pack(&self, name: &str) -> Option<&Arc<Pack>> {
        self.packs.iter().find(|p| p.name == name)
    }

    /// The context rules that apply to a primitive of the effective registry (SPEC §9.1: from
    /// every loaded pack, matched by ID, alias or `prefix.*`).
    pub fn context_rules(&self, idx: PrimIdx) -> Vec<&super::ContextRule> {
        let Some(p) = self.registry.try_get(idx) else {
            return Vec::new();
        };
        self.packs
            .iter()
            .flat_map(|pack| pack.context_rules.iter())
            .filter(|r| r.selects(&p.id, &p.alias))
            .collect()
    }

    /// `[{name, version, digest}]`: what a trace header records (SPEC §9.2).
    pub fn header_packs(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.packs
                .iter()
                .map(|p| {
                    serde_json::json!({
                        "name": p.name,
                        "version": p.version.to_string(),
                        "digest": p.digest(),
                    })
                })
                .collect(),
        )
    }
}

/// A composition is freed on two threads: its registry and its packs (their contracts'
/// schemas, every `pack.json`'s span table) are many small allocations, and freeing them is as
/// much work as a third of loading them. The caller still waits for all of it (the memory is
/// free when `drop` returns); only the work is spread. A scoped thread, not the rayon pool: a
/// drop runs wherever the last reference goes, maybe under a lock that every pool worker is
/// waiting for, and the pool would then never run it.
///
/// Each thread takes half of the packs together with the registry's copies of their contracts:
/// a schema is shared by the two, and its tree is freed by whichever lets go last, so the
/// halves are only even when both references to a schema go on one thread. (Packs on one
/// thread and the registry's contracts on the other left nearly all the trees to the second:
/// 1.9 ms against 0.3 ms, measured on the bench's 20 packs.)
impl Drop for Composition {
    fn drop(&mut self) {
        if self.packs.len() < 2 {
            return;
        }
        let mut first = std::mem::take(&mut self.packs);
        let second = first.split_off(first.len() / 2);
        let mut first_contracts = self.registry.take_primitives();
        let split = self.base_len + first.iter().map(|p| p.primitives.len()).sum::<usize>();
        let second_contracts = first_contracts.split_off(split.min(first_contracts.len()));
        std::thread::scope(|scope| {
            let first_half = move || {
                drop(first_contracts);
                drop(first);
            };
            // When no thread can be spawned, the closure (and what it holds) is dropped here,
            // on this thread.
            let _ = std::thread::Builder::new().spawn_scoped(scope, first_half);
            drop(second_contracts);
            drop(second);
        });
    }
}

/// Where the base registry lives: the embedded one, or one loaded at run time.
#[derive(Debug, Clone)]
pub enum Base {
    Builtin,
    Loaded(Arc<Registry>),
    /// A registry that lives for the whole process (the CLI's `--registry FILE`).
    Static(&'static Registry),
}

impl Base {
    pub fn registry(&self) -> &Registry {
        match self {
            Base::Builtin => Registry::builtin(),
            Base::Loaded(r) => r,
            Base::Static(r) => r,
        }
    }
}

/// A pack loaded, or why not (located).
pub type Loaded = Result<Arc<Pack>, Vec<Located>>;
/// A composition built, or why not (located).
type Composed = Result<Arc<Composition>, Vec<Located>>;

/// Everything composition needs, shared by every graph of a run: the base registry, the pack
/// path, the trusted pack keys, the lock; with the caches of loaded packs and compositions.
#[derive(Debug)]
pub struct Composer {
    base: Base,
    path: PackPath,
    /// Trusted signers (`ed25519:` + hex), from `--trust-pack` and `trust_pack`.
    trusted: Vec<String>,
    lock: Option<Lock>,
    /// `--locked`: a graph that declares packs needs the lock (P806 without one).
    locked: bool,
    packs: Mutex<HashMap<PathBuf, Loaded>>,
    /// Packs loaded ahead of resolution (in parallel) that resolution has not asked for yet:
    /// moved into `packs` when it does, so [`Composer::loaded`] lists only packs resolved to.
    prefetched: Mutex<HashMap<PathBuf, Loaded>>,
    compositions: Mutex<HashMap<Vec<(String, String)>, Composed>>,
}

/// The options of a [`Composer`].
#[derive(Debug, Clone, Default)]
pub struct ComposerOptions {
    /// Trusted pack signers, `ed25519:` + 64 hex digits.
    pub trusted: Vec<String>,
    /// The lock to honour (load exactly its versions, refuse digest drift).
    pub lock: Option<Lock>,
    /// `--locked`: without a lock, a graph that declares packs is P806 (SPEC §9.2).
    pub locked: bool,
}

impl Composer {
    pub fn new(base: Base, path: PackPath, options: ComposerOptions) -> Composer {
        Composer {
            base,
            path,
            trusted: options.trusted,
            lock: options.lock,
            locked: options.locked,
            packs: Mutex::new(HashMap::new()),
            prefetched: Mutex::new(HashMap::new()),
            compositions: Mutex::new(HashMap::new()),
        }
    }

    pub fn base(&self) -> &Registry {
        self.base.registry()
    }

    pub fn path(&self) -> &PackPath {
        &self.path
    }

    pub fn lock(&self) -> Option<&Lock> {
        self.lock.as_ref()
    }

    /// Every pack this composer has loaded so far (the ones the run's graphs resolved to),
    /// by name, highest version first.
    pub fn loaded(&self) -> Vec<Arc<Pack>> {
        let mut out: Vec<Arc<Pack>> = self
            .packs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter_map(|l| l.as_ref().ok().cloned())
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name).then(b.version.cmp(&a.version)));
        out
    }

    /// Load a pack (once per directory), signature trust and lock digest checked.
    pub fn load(&self, candidate: &Candidate) -> Result<Arc<Pack>, Vec<Located>> {
        if let Some(done) = self
            .packs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&candidate.dir)
        {
            return done.clone();
        }
        let prefetched = self
            .prefetched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&candidate.dir);
        let result = prefetched.unwrap_or_else(|| self.load_uncached(candidate));
        self.packs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(candidate.dir.clone(), result.clone());
        result
    }

    fn load_uncached(&self, candidate: &Candidate) -> Result<Arc<Pack>, Vec<Located>> {
        let pack =
            super::manifest::load(&candidate.dir, self.base()).map_err(Located::from_errors)?;
        if let Err(d) = super::signature::check_trusted(&pack, &self.trusted) {
            let sig = candidate.dir.join(super::SIGNATURE);
            let located = match &pack.signature {
                // No signature: the pack's manifest is where the requirement bites.
                None => Located::in_pack(&pack, d),
                Some(_) => Located {
                    file: Some(sig.display().to_string()),
                    diagnostic: super::signature::locate_in_file(&candidate.dir, d),
                },
            };
            return Err(vec![located]);
        }
        if let Some(lock) = &self.lock {
            lock.check_digest(&pack)?;
        }
        Ok(Arc::new(pack))
    }

    /// The composition for a graph's `packs` requests (`file` names the graph in messages).
    pub fn compose(
        &self,
        file: &str,
        requests: &[(String, Range)],
    ) -> Result<Arc<Composition>, Vec<Located>> {
        let resolution = self.resolve(file, requests)?;
        let key: Vec<(String, String)> = resolution
            .packs
            .iter()
            .map(|p| (p.name.clone(), p.version.to_string()))
            .collect();
        if let Some(done) = self
            .compositions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return done.clone();
        }
        let built = Composition::build(self.base(), resolution.packs).map(Arc::new);
        self.compositions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, built.clone());
        built
    }

    /// Load in parallel the packs resolution will start from: for each request, the version
    /// its range alone chooses. Resolution is sequential (a pack's `requires` decide what comes
    /// next) and reads every pack through [`Composer::load`], which takes a prefetched pack
    /// instead of loading it again, so its order, its findings and their order are the
    /// sequential ones. A prefetched pack resolution does not choose costs only its load.
    fn prefetch(&self, requests: &[(String, Range)], chooser: &dyn Chooser) {
        use rayon::prelude::*;
        let mut wanted: Vec<Candidate> = Vec::new();
        for (name, range) in requests {
            let ok = |c: &Candidate| range.req.matches(&c.version);
            if let Some(c) = chooser.choose(name, &self.path, &ok)
                && !wanted.iter().any(|w| w.dir == c.dir)
            {
                wanted.push(c);
            }
        }
        {
            let packs = self.packs.lock().unwrap_or_else(|e| e.into_inner());
            let prefetched = self.prefetched.lock().unwrap_or_else(|e| e.into_inner());
            wanted.retain(|c| !packs.contains_key(&c.dir) && !prefetched.contains_key(&c.dir));
        }
        if wanted.len() < 2 {
            return;
        }
        let loaded: Vec<(PathBuf, Loaded)> = wanted
            .par_iter()
            .map(|c| (c.dir.clone(), self.load_uncached(c)))
            .collect();
        self.prefetched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(loaded);
    }

    /// Resolve a graph's requests on the pack path (or the lock).
    pub fn resolve(
        &self,
        file: &str,
        requests: &[(String, Range)],
    ) -> Result<Resolution, Vec<Located>> {
        if self.locked && self.lock.is_none() {
            return Err(requests
                .iter()
                .map(|(name, range)| {
                    Located::in_graph(codes::P806.at(
                        range.pointer.clone(),
                        format!(
                            "--locked, and there is no {}: pack `{name}` cannot be loaded \
                             from a lock (run `primgraph pack lock` and commit the lock)",
                            super::lock::FILE_NAME
                        ),
                    ))
                })
                .collect());
        }
        let roots: Vec<Request> = requests
            .iter()
            .map(|(name, range)| Request {
                asker: Asker::Graph {
                    file: file.to_string(),
                },
                name: name.clone(),
                range: range.clone(),
            })
            .collect();
        let chooser: Box<dyn Chooser> = match &self.lock {
            Some(lock) => Box::new(lock.chooser()),
            None => Box::new(resolve::Highest),
        };
        self.prefetch(requests, chooser.as_ref());
        let result = resolve::resolve(
            &roots,
            &self.path,
            self.base().abi(),
            chooser.as_ref(),
            &|c| self.load(c),
        );
        match (&self.lock, result) {
            (Some(lock), Err(errors)) => Err(lock.explain(errors, &roots, &self.path)),
            (_, result) => result,
        }
    }
}
