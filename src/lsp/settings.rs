//! Which configuration and registry a document is checked with: `--config` when the server was
//! started with one, else the nearest `primgraph.toml` from the document's folder upwards (for a
//! document with no file path, from the server's working directory), and the registry that file
//! names, else the embedded one. Both are read once per folder and kept (restart the server to
//! pick up an edited configuration); an unusable file is reported once and the defaults used.

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
}

impl std::ops::Deref for RegistryHandle {
    type Target = Registry;
    fn deref(&self) -> &Registry {
        match self {
            RegistryHandle::Builtin => Registry::builtin(),
            RegistryHandle::File(registry) => registry,
        }
    }
}

/// What one document is checked with.
#[derive(Clone)]
pub struct DocSettings {
    pub config: Option<Arc<Config>>,
    pub registry: RegistryHandle,
    /// Why the configuration or its registry could not be used (the defaults are used then).
    pub error: Option<String>,
}

/// The settings of every folder seen so far.
pub struct Settings {
    explicit: Option<PathBuf>,
    by_folder: Mutex<HashMap<PathBuf, DocSettings>>,
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
        }
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
        DocSettings {
            config: config.map(Arc::new),
            registry,
            error,
        }
    }
}
