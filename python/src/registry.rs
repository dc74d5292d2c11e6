//! `primgraph.Registry`: the embedded Kernel ABI 1.0.0 or a registry file, linted on load
//! (a file that breaks an invariant of SPEC §1.3 raises `RegistryError` with its L5xx code and
//! location), and `lookup` by dotted ID or alias.

use crate::convert;
use crate::errors::{self, Located};
use primgraph::{LintError, Packs, Registry, Severity};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

/// The registry behind a Python `Registry`: the embedded one (`'static`), a loaded one, or
/// either with a pack path (`with_packs`, SPEC §9.2).
#[derive(Clone)]
pub enum RegistryRef {
    Builtin,
    Loaded(Arc<Registry>),
    Packs(Arc<PackSet>),
}

/// A base registry with a pack path: the composer validation and replay use for the packs a
/// graph declares, and every pack on the path composed (what `lookup`, `ids` and `len` see).
pub struct PackSet {
    pub base: RegistryRef,
    pub packs: Packs,
    /// The pack path as given (for pickling).
    pub dirs: Vec<std::path::PathBuf>,
    /// The trusted signers' key files, the lock file and `locked`, as given (for pickling).
    pub trust: Vec<std::path::PathBuf>,
    pub lock: Option<std::path::PathBuf>,
    pub locked: bool,
}

impl RegistryRef {
    /// The base registry (validation composes a graph's packs over it).
    pub fn get(&self) -> &Registry {
        match self {
            RegistryRef::Builtin => Registry::builtin(),
            RegistryRef::Loaded(r) => r,
            RegistryRef::Packs(p) => p.base.get(),
        }
    }

    /// What lookups see: the base registry and every pack on the pack path.
    pub fn view(&self) -> &Registry {
        match self {
            RegistryRef::Packs(p) => p.packs.registry(),
            other => other.get(),
        }
    }

    /// The validation options: the pack path, when there is one.
    pub fn options(&self) -> primgraph::ValidateOptions {
        match self {
            RegistryRef::Packs(p) => primgraph::ValidateOptions::with_packs(&p.packs),
            // Python reads no primgraph.toml: a graph's packs are found through the registry.
            _ => primgraph::ValidateOptions {
                pack_path_hint: Some(
                    "pass registry=primgraph.Registry.builtin().with_packs([DIR]); primgraph.toml \
                     is read by the command line, not by the Python package",
                ),
                ..primgraph::ValidateOptions::default()
            },
        }
    }
}

/// A primitive registry: the embedded Kernel ABI 1.0.0 (`Registry.builtin()`) or a registry file
/// (`Registry.from_path(path)`, `Registry.from_bytes(data)`), linted when it is loaded.
#[pyclass(name = "Registry", module = "primgraph", frozen)]
pub struct PyRegistry {
    pub inner: RegistryRef,
    origin: String,
    /// The file's bytes, so that a loaded registry pickles (Ray ships it to its workers).
    source: Option<Arc<[u8]>>,
}

/// The registry an optional `registry=` argument names (default: the embedded one).
pub fn resolve(registry: Option<&Bound<'_, PyAny>>) -> PyResult<RegistryRef> {
    match registry {
        None => Ok(RegistryRef::Builtin),
        Some(r) if r.is_none() => Ok(RegistryRef::Builtin),
        Some(r) => match r.cast::<PyRegistry>() {
            Ok(r) => Ok(r.get().inner.clone()),
            Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument `registry` must be a primgraph.Registry or None, not {}",
                convert::type_name(r)
            ))),
        },
    }
}

fn load(py: Python<'_>, bytes: &[u8], origin: &str) -> PyResult<PyRegistry> {
    let outcome = py.detach(|| match primgraph::lint_registry(bytes) {
        Err(e) => Err(e),
        Ok(diags) => Ok((
            diags.into_iter().find(|d| d.severity == Severity::Error),
            Registry::from_slice(bytes, origin),
        )),
    });
    match outcome {
        Err(LintError::Json(e)) => Err(errors::raise(
            py,
            "RegistryError",
            Located {
                code: None,
                message: format!("not a registry: {}", e.kind),
                file: Some(origin.to_string()),
                line: Some(e.span.line),
                column: Some(e.span.column),
            },
        )),
        Err(e) => {
            let (line, column) = e.location();
            let message = match &e {
                LintError::Shape { message, .. } => message.clone(),
                other => other.to_string(),
            };
            Err(errors::raise(
                py,
                "RegistryError",
                Located {
                    code: None,
                    message: format!("not a registry: {message}"),
                    file: Some(origin.to_string()),
                    line: Some(line),
                    column: Some(column),
                },
            ))
        }
        Ok((Some(finding), _)) => Err(errors::raise(
            py,
            "RegistryError",
            Located::of_diagnostic(&finding, origin),
        )),
        Ok((None, Err(e))) => Err(errors::raise(
            py,
            "RegistryError",
            Located::new(e.to_string()).in_file(origin),
        )),
        Ok((None, Ok(registry))) => Ok(PyRegistry {
            inner: RegistryRef::Loaded(Arc::new(registry)),
            origin: origin.to_string(),
            source: Some(Arc::from(bytes)),
        }),
    }
}

#[pymethods]
impl PyRegistry {
    /// The embedded Kernel ABI 1.0.0 (191 primitives); costs nothing after the first call.
    #[staticmethod]
    fn builtin() -> PyRegistry {
        PyRegistry {
            inner: RegistryRef::Builtin,
            origin: "<builtin>".into(),
            source: None,
        }
    }

    /// Load and lint a registry file. Raises `RegistryError` (with the L5xx code, file, line and
    /// column) when it breaks an invariant, `InputError` when it cannot be read.
    #[staticmethod]
    fn from_path(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<PyRegistry> {
        let path = convert::to_path("path", path)?;
        let bytes = primgraph::read_input(&path, primgraph::registry::LIMITS.max_bytes)
            .map_err(|e| errors::input(py, &path, &e))?;
        load(py, &bytes, &path.display().to_string())
    }

    /// Load and lint a registry from its bytes; `origin` names it in errors.
    #[staticmethod]
    #[pyo3(signature = (data, origin = "<bytes>"))]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>, origin: &str) -> PyResult<PyRegistry> {
        let Ok(bytes) = data.cast::<PyBytes>() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument `data` must be bytes, not {}",
                convert::type_name(data)
            )));
        };
        let bytes = bytes.as_bytes().to_vec();
        load(py, &bytes, origin)
    }

    /// The contract of the primitive with this dotted ID or alias, as Python values (a dict
    /// shaped as the registry file's entry, plus its `index`), or `None`.
    fn lookup<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let key = convert::to_str("key", key)?;
        let Some(p) = self.inner.view().lookup(&key) else {
            return Ok(None);
        };
        let mut value = serde_json::to_value(p)
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        if let serde_json::Value::Object(m) = &mut value {
            m.insert("index".into(), serde_json::Value::from(p.index));
        }
        convert::to_py(py, &value).map(Some)
    }

    /// The registry's ABI version, e.g. `"1.0.0"`.
    #[getter]
    fn abi(&self) -> String {
        self.inner.view().abi().to_string()
    }

    /// Where the registry came from: `"<builtin>"`, a path, or the `origin` given.
    #[getter]
    fn origin(&self) -> String {
        self.origin.clone()
    }

    /// The dotted IDs of every primitive, in registry order.
    fn ids(&self) -> Vec<String> {
        self.inner
            .get()
            .primitives()
            .iter()
            .map(|p| p.id.clone())
            .collect()
    }

    fn __len__(&self) -> usize {
        self.inner.view().len()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> bool {
        key.extract::<String>()
            .is_ok_and(|k| self.inner.view().lookup(&k).is_some())
    }

    /// Pickles as `Registry.builtin()` or as `Registry.from_bytes(the file's bytes, origin)`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let cls = py.get_type::<PyRegistry>();
        if let RegistryRef::Packs(p) = &self.inner {
            // The base registry's `with_packs(dirs, …)` with the same options.
            let base = Bound::new(
                py,
                PyRegistry {
                    inner: p.base.clone(),
                    origin: self
                        .origin
                        .split(" + ")
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                    source: self.source.clone(),
                },
            )?;
            let shown = |paths: &[std::path::PathBuf]| -> Vec<String> {
                paths.iter().map(|d| d.display().to_string()).collect()
            };
            // `base.with_packs(dirs, trust=…, lock=…, locked=…)`: a partial carries the
            // keyword arguments.
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("trust", shown(&p.trust))?;
            kwargs.set_item("lock", p.lock.as_ref().map(|l| l.display().to_string()))?;
            kwargs.set_item("locked", p.locked)?;
            let partial = py
                .import("functools")?
                .getattr("partial")?
                .call((base.getattr("with_packs")?,), Some(&kwargs))?;
            return pyo3::types::PyTuple::new(
                py,
                [
                    partial,
                    pyo3::types::PyTuple::new(
                        py,
                        [pyo3::types::PyList::new(py, shown(&p.dirs))?.into_any()],
                    )?
                    .into_any(),
                ],
            );
        }
        match &self.source {
            None => pyo3::types::PyTuple::new(
                py,
                [
                    cls.getattr("builtin")?,
                    pyo3::types::PyTuple::empty(py).into_any(),
                ],
            ),
            Some(bytes) => pyo3::types::PyTuple::new(
                py,
                [
                    cls.getattr("from_bytes")?,
                    pyo3::types::PyTuple::new(
                        py,
                        [
                            PyBytes::new(py, bytes).into_any(),
                            pyo3::types::PyString::new(py, &self.origin).into_any(),
                        ],
                    )?
                    .into_any(),
                ],
            ),
        }
    }

    /// This registry with a pack path (SPEC §9.2): `paths` are packs, or folders whose
    /// sub-folders are packs (the first wins for the same name and version). A graph that
    /// declares `packs` is then validated and replayed against their effective registry, with
    /// every loaded pack's rules; `lookup`, `ids` and `len` see every pack on the path. With
    /// `trust` (paths of `KEY.pub` files) every loaded pack must be signed by one of them
    /// (P807). With `lock` (the path of a `primgraph.lock`, as `primgraph pack lock` writes
    /// it) exactly the locked versions load, from the lock's paths, and a pack whose digest
    /// differs from the lock is P806 — as the CLI does with the lock beside `primgraph.toml`;
    /// `locked=True` makes a lock required (a graph that declares packs without one is P806).
    /// Raises `RegistryError` (with its code and location) when the packs do not compose or
    /// do not match the lock or the lock cannot be read, `InputError` when a path is not a
    /// folder or a key cannot be read.
    #[pyo3(signature = (paths, *, trust = None, lock = None, locked = false))]
    fn with_packs(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        trust: Option<&Bound<'_, PyAny>>,
        lock: Option<&Bound<'_, PyAny>>,
        locked: bool,
    ) -> PyResult<PyRegistry> {
        let mut dirs = convert::to_paths("paths", paths)?;
        let mut trust_files = match trust.filter(|t| !t.is_none()) {
            Some(keys) => convert::to_paths("trust", keys)?,
            None => Vec::new(),
        };
        let mut lock_file = match lock.filter(|l| !l.is_none()) {
            Some(l) => Some(convert::to_path("lock", l)?),
            None => None,
        };
        let mut locked = locked;
        let base = match &self.inner {
            // Adding to a pack path keeps what it had: its trusted keys, its lock (unless a
            // new one is given) and `locked`.
            RegistryRef::Packs(p) => {
                let mut all = p.dirs.clone();
                all.append(&mut dirs);
                dirs = all;
                let mut keys = p.trust.clone();
                keys.append(&mut trust_files);
                trust_files = keys;
                lock_file = lock_file.or_else(|| p.lock.clone());
                locked |= p.locked;
                p.base.clone()
            }
            other => other.clone(),
        };
        for dir in &dirs {
            if !dir.is_dir() {
                return Err(errors::raise(
                    py,
                    "InputError",
                    Located::new(format!(
                        "not a folder (a pack, or a folder of packs): {}",
                        dir.display()
                    ))
                    .in_file(dir.display().to_string()),
                ));
            }
        }
        let mut trusted = Vec::new();
        for key in &trust_files {
            let k = primgraph::TrustedKey::read(key).map_err(|e| {
                errors::raise(
                    py,
                    "InputError",
                    Located::new(e.to_string()).in_file(key.display().to_string()),
                )
            })?;
            trusted.push(k.signer());
        }
        let base_registry = match &base {
            RegistryRef::Loaded(r) => Some(r.clone()),
            _ => None,
        };
        let options = primgraph::PackOptions {
            trusted,
            lock: lock_file.clone(),
            locked,
        };
        // A lock that does not read, or packs that do not compose: the first located error.
        let packs = py
            .detach(|| primgraph::Packs::open(base_registry, &dirs, &options))
            .map_err(|diagnostics| {
                let first = diagnostics
                    .first()
                    .map(|d| Located::of_diagnostic(d, d.file.as_deref().unwrap_or("<pack path>")));
                errors::raise(
                    py,
                    "RegistryError",
                    first.unwrap_or_else(|| Located::new("the packs do not compose")),
                )
            })?;
        let origin = format!(
            "{} + {}",
            self.origin,
            packs
                .loaded()
                .iter()
                .map(|(name, version, _)| format!("{name}@{version}"))
                .collect::<Vec<_>>()
                .join(" + ")
        );
        Ok(PyRegistry {
            inner: RegistryRef::Packs(Arc::new(PackSet {
                base,
                packs,
                dirs,
                trust: trust_files,
                lock: lock_file,
                locked,
            })),
            origin,
            source: self.source.clone(),
        })
    }

    /// The packs on the pack path: `[(name, version, digest)]` (empty without `with_packs`).
    fn packs(&self) -> Vec<(String, String, String)> {
        match &self.inner {
            RegistryRef::Packs(p) => p.packs.loaded(),
            _ => Vec::new(),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Registry(abi={:?}, primitives={}, origin={:?})",
            self.inner.view().abi(),
            self.inner.view().len(),
            self.origin
        )
    }
}
