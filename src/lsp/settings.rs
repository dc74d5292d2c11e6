//! Which configuration and registry a document is checked with: `--config` when the server was
//! started with one, else the nearest `primgraph.toml` from the document's folder upwards (for a
//! document with no file path, from the server's working directory), and the registry that file
//! names, else the embedded one. Both are read once per folder and kept (restart the server to
//! pick up an edited configuration); an unusable file is reported once and the defaults used.
//! The configuration's pack path (`packs`, `trust_pack`, the lock beside it, SPEC §9.2) makes a
//! composer that validation uses for a graph's declared packs, and an editor registry — the base
//! and every pack on the path — that hover, completion, code actions and go to definition read.

use crate::config::Config;
use crate::registry::Registry;
use lsp_types::Uri;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The registry a document is checked against.
#[derive(Clone)]
pub enum RegistryHandle {
    Builtin,
    File(Arc<Registry>),
    /// The base registry and every pack on the pack path.
    Composed(Arc<crate::pack::compose::Composition>),
}

impl RegistryHandle {
    /// The pack a primitive of this registry comes from.
    pub fn pack_of(&self, id: &str) -> Option<&Arc<crate::pack::Pack>> {
        match self {
            RegistryHandle::Composed(c) => c.pack_of(c.registry.lookup_index(id)?),
            _ => None,
        }
    }
}

impl std::ops::Deref for RegistryHandle {
    type Target = Registry;
    fn deref(&self) -> &Registry {
        match self {
            RegistryHandle::Builtin => Registry::builtin(),
            RegistryHandle::File(registry) => registry,
            RegistryHandle::Composed(c) => &c.registry,
        }
    }
}

/// What one document is checked with.
#[derive(Clone)]
pub struct DocSettings {
    pub config: Option<Arc<Config>>,
    pub registry: RegistryHandle,
    /// The pack path of the configuration, for the packs a graph declares.
    pub packs: Option<Arc<crate::pack::compose::Composer>>,
    /// What hover, completion and definition look primitives up in: `registry` with every pack
    /// on the pack path.
    pub editor: RegistryHandle,
    /// Why the configuration or its registry could not be used (the defaults are used then).
    pub error: Option<String>,
}

/// The settings of every folder seen so far.
pub struct Settings {
    explicit: Option<PathBuf>,
    by_folder: Mutex<HashMap<PathBuf, DocSettings>>,
    /// Per pack folder: that pack with the packs it requires, for its open fragment files
    /// (`None`: it does not load or compose). Refreshed each time one of them is validated.
    own_packs: Mutex<HashMap<PathBuf, Option<Arc<crate::pack::compose::Composition>>>>,
}

/// The file path of a `file:` URI (percent-decoded), `None` for other schemes.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    // `file:///path` (empty authority) or `file://localhost/path`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = rest
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            decoded.push(byte);
            i += 3;
            continue;
        }
        decoded.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(decoded).ok().map(PathBuf::from)
}

impl Settings {
    pub fn new(explicit: Option<PathBuf>) -> Settings {
        Settings {
            explicit,
            by_folder: Mutex::new(HashMap::new()),
            own_packs: Mutex::new(HashMap::new()),
        }
    }

    /// The pack the fragment file at `path` is in, composed with the packs it requires
    /// (`super::fragments::own_pack`): built when `fresh` or not built yet, else as last built.
    pub fn own_pack(
        &self,
        path: &Path,
        doc: &DocSettings,
        fresh: bool,
    ) -> Option<Arc<crate::pack::compose::Composition>> {
        let dir = super::fragments::pack_dir_of(path)?;
        let cache = || {
            self.own_packs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if !fresh && let Some(found) = cache().get(&dir) {
            return found.clone();
        }
        let base = match &doc.registry {
            RegistryHandle::File(r) => crate::pack::compose::Base::Loaded(r.clone()),
            _ => crate::pack::compose::Base::Builtin,
        };
        let pack_path = doc.config.as_ref().map_or(&[][..], |c| c.packs.as_slice());
        let built = super::fragments::own_pack(&dir, base, pack_path);
        cache().insert(dir, built.clone());
        built
    }

    /// The settings for the document at `uri`.
    pub fn for_uri(&self, uri: &Uri) -> DocSettings {
        let folder = uri_to_path(uri)
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| PathBuf::from("."));
        let key = if self.explicit.is_some() {
            PathBuf::new()
        } else {
            folder.clone()
        };
        if let Some(found) = self.lock().get(&key) {
            return found.clone();
        }
        let settings = self.load(&folder);
        self.lock().insert(key, settings.clone());
        settings
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, DocSettings>> {
        // A panic while holding the lock cannot leave the cache inconsistent (inserts only).
        self.by_folder
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn load(&self, folder: &Path) -> DocSettings {
        let config = match &self.explicit {
            Some(path) => Config::load(path).map(Some),
            None => Config::discover(folder),
        };
        let config = match config {
            Ok(config) => config,
            Err(error) => {
                return DocSettings {
                    config: None,
                    registry: RegistryHandle::Builtin,
                    packs: None,
                    editor: RegistryHandle::Builtin,
                    error: Some(error.to_string()),
                };
            }
        };
        let mut error = None;
        let registry = match config.as_ref().and_then(|c| c.registry.as_ref()) {
            None => RegistryHandle::Builtin,
            Some(path) => match Registry::from_path(path) {
                Ok(registry) => RegistryHandle::File(Arc::new(registry)),
                Err(e) => {
                    error = Some(format!("registry {}: {e}", path.display()));
                    RegistryHandle::Builtin
                }
            },
        };
        let (packs, editor) = match &config {
            Some(c) if !c.packs.is_empty() || !c.trust_pack.is_empty() => {
                match pack_path(c, &registry) {
                    Ok((composer, editor)) => (Some(composer), editor),
                    Err(e) => {
                        error.get_or_insert(e);
                        (None, registry.clone())
                    }
                }
            }
            _ => (None, registry.clone()),
        };
        DocSettings {
            config: config.map(Arc::new),
            registry,
            packs,
            editor,
            error,
        }
    }
}

/// The composer of a configuration's pack path over `registry`, and the editor registry (every
/// pack on the path composed; the base alone when they do not compose).
fn pack_path(
    config: &Config,
    registry: &RegistryHandle,
) -> Result<(Arc<crate::pack::compose::Composer>, RegistryHandle), String> {
    use crate::pack::compose::{Base, Composer, ComposerOptions};
    let mut trusted = Vec::new();
    for key in &config.trust_pack {
        let key = crate::replay::TrustedKey::read(key)
            .map_err(|e| format!("trust_pack {}: {e}", key.display()))?;
        trusted.push(key.signer());
    }
    let lock_path = config.root.join(crate::pack::lock::FILE_NAME);
    let lock = if lock_path.exists() {
        Some(crate::pack::lock::Lock::read(&lock_path).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let base = match registry {
        RegistryHandle::File(r) => Base::Loaded(r.clone()),
        _ => Base::Builtin,
    };
    let composer = Arc::new(Composer::new(
        base,
        crate::pack::path::PackPath::scan(&config.packs),
        ComposerOptions {
            trusted,
            lock,
            locked: false,
        },
    ));
    let mut names: Vec<String> = composer.path().names().map(str::to_string).collect();
    if let Some(lock) = composer.lock() {
        names.extend(lock.packs.iter().map(|p| p.name.clone()));
    }
    names.sort();
    names.dedup();
    let requests: Vec<(String, crate::pack::Range)> = names
        .into_iter()
        .map(|name| {
            let pointer = crate::json::pointer::push("/packs", &name);
            let range = crate::pack::Range {
                text: "*".into(),
                req: crate::pack::VersionReq::STAR,
                pointer,
            };
            (name, range)
        })
        .collect();
    let editor = match composer.compose(&config.file, &requests) {
        Ok(c) => RegistryHandle::Composed(c),
        Err(_) => registry.clone(),
    };
    Ok((composer, editor))
}
