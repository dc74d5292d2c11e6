//! [`Packs`], the pack path as the embedding API offers it (SPEC §9.2): a base registry, the
//! folders packs are found in, the trusted signers and the lock, behind one handle an embedder
//! keeps and hands to validation and replay (`ValidateOptions::with_packs`). It wraps the
//! composer the command line uses, so an embedder gets the same packs, the same refusals and
//! the same caches; refusals come back as located [`Diagnostic`]s whose `file` names the file
//! they point into.

use super::compose::{Base, Composer, ComposerOptions, Composition, Located};
use super::lock::Lock;
use super::path::PackPath;
use super::{Range, VersionReq};
use crate::diagnostic::Diagnostic;
use crate::registry::Registry;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What may load from a pack path: the trusted signers and the lock.
#[derive(Debug, Clone, Default)]
pub struct PackOptions {
    /// Every loaded pack must be signed by one of these signers (`ed25519:` + 64 hex digits,
    /// as [`TrustedKey::signer`](crate::TrustedKey::signer) gives it); empty: no signature
    /// is required (P807).
    pub trusted: Vec<String>,
    /// A `primgraph.lock` file: exactly its versions load, from its paths, and a pack whose
    /// digest differs is P806.
    pub lock: Option<PathBuf>,
    /// A graph that declares packs needs the lock (P806 without one).
    pub locked: bool,
}

/// A pack path over a base registry (SPEC §9.2). A graph that declares `packs` is validated
/// and replayed against the effective registry they compose, with every loaded pack's rules.
///
/// ```
/// use primgraph::{PackOptions, Packs, Registry};
///
/// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packs/path");
/// let packs = Packs::open(None, &[path], &PackOptions::default()).unwrap();
/// // Lookups see the embedded registry and every pack on the path.
/// assert!(packs.registry().len() > Registry::builtin().len());
/// assert_eq!(packs.base().len(), Registry::builtin().len());
/// let loaded = packs.loaded();
/// assert_eq!(loaded[0].0, "pyfix");
/// assert!(loaded[0].2.starts_with("sha256:"));
///
/// // Nothing composed yet: the base registry alone.
/// let empty = Packs::scan(None, &[]);
/// assert_eq!(empty.registry().len(), Registry::builtin().len());
/// ```
#[derive(Debug, Clone)]
pub struct Packs {
    composer: Arc<Composer>,
    /// Every pack on the path composed (`None` for [`Packs::scan`]).
    all: Option<Arc<Composition>>,
}

impl Packs {
    /// Open the packs in `dirs` (each a pack, or a folder of packs; the first wins for the same
    /// name and version) over `base` (the embedded registry when `None`) and compose every one
    /// of them (with a lock: every locked pack). Fails with the located diagnostics of a lock
    /// that does not read or packs that do not compose.
    pub fn open(
        base: Option<Arc<Registry>>,
        dirs: &[PathBuf],
        options: &PackOptions,
    ) -> Result<Packs, Vec<Diagnostic>> {
        let lock = match &options.lock {
            Some(path) => Some(read_lock(path)?),
            None => None,
        };
        let composer = Arc::new(Composer::new(
            base_of(base),
            PackPath::scan(dirs),
            ComposerOptions {
                trusted: options.trusted.clone(),
                lock,
                locked: options.locked,
            },
        ));
        let mut names: Vec<String> = match composer.lock() {
            Some(lock) => lock.packs.iter().map(|p| p.name.clone()).collect(),
            None => composer.path().names().map(str::to_string).collect(),
        };
        names.sort();
        names.dedup();
        let requests: Vec<(String, Range)> = names
            .into_iter()
            .map(|name| {
                let range = Range {
                    text: "*".into(),
                    req: VersionReq::STAR,
                    pointer: format!("/packs/{name}"),
                };
                (name, range)
            })
            .collect();
        let all = composer
            .compose("<pack path>", &requests)
            .map_err(|errors| errors.into_iter().map(filed).collect::<Vec<_>>())?;
        Ok(Packs {
            composer,
            all: Some(all),
        })
    }

    /// The pack path in `dirs` over `base`, with no signer or lock and nothing composed yet:
    /// only the packs a graph declares load, when it is validated or replayed.
    pub fn scan(base: Option<Arc<Registry>>, dirs: &[PathBuf]) -> Packs {
        let composer = Composer::new(
            base_of(base),
            PackPath::scan(dirs),
            ComposerOptions::default(),
        );
        Packs {
            composer: Arc::new(composer),
            all: None,
        }
    }

    /// The registry graphs without `packs` are checked against.
    pub fn base(&self) -> &Registry {
        self.composer.base()
    }

    /// The base registry and every pack [`Packs::open`] composed (the base alone for
    /// [`Packs::scan`]).
    pub fn registry(&self) -> &Registry {
        self.all.as_ref().map_or(self.base(), |all| &all.registry)
    }

    /// The packs [`Packs::open`] composed: `(name, version, digest)` in composition order.
    pub fn loaded(&self) -> Vec<(String, String, String)> {
        self.all.as_ref().map_or_else(Vec::new, |all| {
            all.packs
                .iter()
                .map(|p| {
                    (
                        p.name.clone(),
                        p.version.to_string(),
                        p.digest().to_string(),
                    )
                })
                .collect()
        })
    }

    pub(crate) fn composer(&self) -> &Arc<Composer> {
        &self.composer
    }
}

fn base_of(base: Option<Arc<Registry>>) -> Base {
    base.map_or(Base::Builtin, Base::Loaded)
}

/// A located error with the file it points into written on the diagnostic.
fn filed(located: Located) -> Diagnostic {
    let mut d = located.diagnostic;
    if located.file.is_some() {
        d.file = located.file;
    }
    d
}

fn read_lock(path: &Path) -> Result<Lock, Vec<Diagnostic>> {
    Lock::read(path).map_err(|e| {
        e.diagnostics()
            .map(|(file, d)| {
                let mut d = d.clone();
                d.file = Some(file.to_string());
                d
            })
            .collect()
    })
}
