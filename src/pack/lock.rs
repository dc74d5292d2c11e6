//! The lock (SPEC §9.2): `primgraph.lock`, `{"lock": 1, "packs": [{"name", "version", "path",
//! "digest", "requested": {ASKER: RANGE}}]}` beside `primgraph.toml` (or in the working
//! directory), `path` relative to the lock's folder, `requested` keyed by the graph file
//! (relative to the lock's folder) or `pack@version` that asked. When a lock exists, exactly the
//! locked versions load, from the locked paths, and a pack whose digest differs, a range the
//! locked version no longer satisfies, or a locked pack missing is P806.

use super::compose::{Asker, Located};
use super::path::{Candidate, PackPath};
use super::resolve::{Chooser, Request, Resolution};
use super::{MANIFEST, Pack, PackErrors, Version, parse_version};
use crate::codes;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The lock's file name.
pub const FILE_NAME: &str = "primgraph.lock";

/// One locked pack.
#[derive(Debug, Clone, PartialEq)]
pub struct LockedPack {
    pub name: String,
    pub version: Version,
    /// Relative to the lock's folder, `/` separators.
    pub path: String,
    pub digest: String,
    pub requested: BTreeMap<String, String>,
}

/// A read `primgraph.lock`.
#[derive(Debug, Clone)]
pub struct Lock {
    /// The lock file as named.
    pub file: String,
    /// Its folder, against which `path`s resolve.
    pub dir: PathBuf,
    pub packs: Vec<LockedPack>,
    source: Arc<crate::json::Parsed>,
}

impl Lock {
    /// Read a lock file strictly (unknown fields, a wrong shape: P806 located in it).
    pub fn read(path: &Path) -> Result<Lock, PackErrors> {
        let file = path.display().to_string();
        let bytes = crate::input::read_capped(path, super::MAX_MANIFEST_BYTES)
            .map_err(|e| PackErrors::whole_file(&file, codes::P806.at("", e.to_string())))?;
        let parsed = crate::json::parse(&bytes, &super::LIMITS).map_err(|e| {
            let mut d = codes::P806.at("", format!("the lock is not valid JSON: {}", e.kind));
            d.line = e.span.line;
            d.column = e.span.column;
            PackErrors {
                reports: vec![crate::diagnostic::FileReport {
                    file: file.clone(),
                    graph: None,
                    diagnostics: vec![d],
                    source: Arc::from(String::from_utf8_lossy(&bytes).as_ref()),
                }],
            }
        })?;
        let parsed = Arc::new(parsed);
        let fail = |pointer: String, message: String| {
            let mut d = codes::P806.at(pointer, message);
            crate::diagnostic::resolve(std::slice::from_mut(&mut d), &parsed);
            PackErrors {
                reports: vec![crate::diagnostic::FileReport {
                    file: file.clone(),
                    graph: None,
                    diagnostics: vec![d],
                    source: parsed.source_arc(),
                }],
            }
        };
        let root = &parsed.value;
        let Some(o) = root.as_object() else {
            return Err(fail(String::new(), "the lock must be an object".into()));
        };
        if let Some(k) = o.keys().find(|k| *k != "lock" && *k != "packs") {
            return Err(fail(
                format!("/{k}"),
                format!("unknown field `{k}` in the lock"),
            ));
        }
        if o.get("lock") != Some(&Value::from(1)) {
            return Err(fail(
                "/lock".into(),
                "`lock` must be 1 (the lock format this primgraph reads)".into(),
            ));
        }
        let Some(items) = o.get("packs").and_then(Value::as_array) else {
            return Err(fail("/packs".into(), "`packs` must be an array".into()));
        };
        let mut packs = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = format!("/packs/{i}");
            let Some(e) = item.as_object() else {
                return Err(fail(at, "a locked pack must be an object".into()));
            };
            for k in e.keys() {
                if !["name", "version", "path", "digest", "requested"].contains(&k.as_str()) {
                    return Err(fail(format!("{at}/{k}"), format!("unknown field `{k}`")));
                }
            }
            let s = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_string);
            let (Some(name), Some(version), Some(rel), Some(digest)) =
                (s("name"), s("version"), s("path"), s("digest"))
            else {
                return Err(fail(
                    at,
                    "a locked pack needs the strings `name`, `version`, `path` and `digest`".into(),
                ));
            };
            let Some(version) = parse_version(&version) else {
                return Err(fail(
                    format!("{at}/version"),
                    format!("{version:?} is not a version"),
                ));
            };
            let mut requested = BTreeMap::new();
            if let Some(r) = e.get("requested") {
                let Some(r) = r.as_object() else {
                    return Err(fail(
                        format!("{at}/requested"),
                        "`requested` must be an object".into(),
                    ));
                };
                for (k, v) in r {
                    let Some(v) = v.as_str() else {
                        return Err(fail(
                            format!("{at}/requested/{k}"),
                            "a requested range must be a string".into(),
                        ));
                    };
                    requested.insert(k.clone(), v.to_string());
                }
            }
            packs.push(LockedPack {
                name,
                version,
                path: rel,
                digest,
                requested,
            });
        }
        Ok(Lock {
            file,
            dir: path.parent().map_or_else(PathBuf::new, Path::to_path_buf),
            packs,
            source: parsed,
        })
    }

    fn entry_index(&self, name: &str, version: &Version) -> Option<usize> {
        self.packs
            .iter()
            .position(|p| p.name == name && &p.version == version)
    }

    /// The chooser that picks only locked versions, from their locked paths.
    pub fn chooser(&self) -> LockChooser<'_> {
        LockChooser { lock: self }
    }

    /// P806 when a loaded pack's digest differs from its lock entry.
    pub fn check_digest(&self, pack: &Pack) -> Result<(), Vec<Located>> {
        let Some(i) = self.entry_index(&pack.name, &pack.version) else {
            return Ok(());
        };
        let locked = &self.packs[i];
        if locked.digest == pack.digest() {
            return Ok(());
        }
        let d = codes::P806.at(
            format!("/packs/{i}/digest"),
            format!(
                "pack {} changed since it was locked: its digest is {}, the lock says {} (run \
                 `primgraph pack lock` after reviewing the change)",
                pack.label(),
                pack.digest(),
                locked.digest
            ),
        );
        Err(vec![Located::in_file(&self.file, &self.source, d)])
    }

    /// Turn a failed locked resolution into P806s where the lock is the reason: a graph's range
    /// the locked version no longer satisfies, a pack not in the lock, a locked pack missing.
    pub fn explain(
        &self,
        errors: Vec<Located>,
        roots: &[Request],
        path: &PackPath,
    ) -> Vec<Located> {
        let _ = path;
        let mut out = Vec::new();
        for r in roots {
            let locked: Vec<&LockedPack> = self.packs.iter().filter(|p| p.name == r.name).collect();
            let message = if locked.is_empty() {
                Some(format!(
                    "pack `{}` is not in the lock {}: run `primgraph pack lock`",
                    r.name, self.file
                ))
            } else if !locked.iter().any(|p| r.range.req.matches(&p.version)) {
                let versions: Vec<String> = locked.iter().map(|p| p.version.to_string()).collect();
                Some(format!(
                    "the locked version {} of pack `{}` no longer satisfies {:?}: run `primgraph \
                     pack lock`",
                    versions.join(", "),
                    r.name,
                    r.range.text
                ))
            } else {
                locked
                    .iter()
                    .find(|p| {
                        r.range.req.matches(&p.version)
                            && !self.dir.join(&p.path).join(MANIFEST).exists()
                    })
                    .map(|p| {
                        format!(
                            "the locked pack {}@{} is missing: {} has no {MANIFEST}",
                            p.name,
                            p.version,
                            self.dir.join(&p.path).display()
                        )
                    })
            };
            if let Some(m) = message {
                out.push(r.asker.locate(codes::P806.at(r.range.pointer.clone(), m)));
            }
        }
        if out.is_empty() {
            return errors;
        }
        out.extend(
            errors
                .into_iter()
                .filter(|e| e.diagnostic.code != codes::P804.code),
        );
        out
    }
}

/// Picks the highest locked version satisfying the ranges, at its locked path.
pub struct LockChooser<'l> {
    lock: &'l Lock,
}

impl Chooser for LockChooser<'_> {
    fn choose(
        &self,
        name: &str,
        _path: &PackPath,
        ok: &dyn Fn(&Candidate) -> bool,
    ) -> Option<Candidate> {
        let mut locked: Vec<&LockedPack> =
            self.lock.packs.iter().filter(|p| p.name == name).collect();
        locked.sort_by(|a, b| b.version.cmp(&a.version));
        locked
            .into_iter()
            .map(|p| Candidate {
                name: p.name.clone(),
                version: p.version.clone(),
                dir: self.lock.dir.join(&p.path),
                roots: Vec::new(),
            })
            .find(|c| ok(c) && c.dir.join(MANIFEST).exists())
    }

    fn known(&self) -> usize {
        self.lock.packs.len()
    }
}

/// Where `primgraph.lock` goes: beside the `primgraph.toml` found from `start` upwards, else in
/// `start`.
pub fn location(config_dir: Option<&Path>, start: &Path) -> PathBuf {
    config_dir.unwrap_or(start).join(FILE_NAME)
}

/// A path relative to `base` (both made absolute first), `/` separators; `path` as given when
/// it is not under `base`.
pub fn relative_to(path: &Path, base: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (p, b) = (abs(path), abs(base));
    let rel = pathdiff(&p, &b).unwrap_or(p);
    let s = rel.to_string_lossy().replace('\\', "/");
    if s.is_empty() { ".".to_string() } else { s }
}

fn pathdiff(path: &Path, base: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut ita = path.components();
    let mut itb = base.components();
    let mut comps: Vec<Component> = vec![];
    loop {
        match (ita.next(), itb.next()) {
            (None, None) => break,
            (Some(a), None) => {
                comps.push(a);
                comps.extend(ita.by_ref());
                break;
            }
            (None, _) => comps.push(Component::ParentDir),
            (Some(a), Some(b)) if comps.is_empty() && a == b => (),
            (Some(a), Some(_)) => {
                comps.push(Component::ParentDir);
                for _ in itb.by_ref() {
                    comps.push(Component::ParentDir);
                }
                comps.push(a);
                comps.extend(ita.by_ref());
                break;
            }
        }
    }
    Some(comps.iter().map(|c| c.as_os_str()).collect())
}

/// Accumulates resolutions into a lock document.
#[derive(Debug, Default)]
pub struct LockBuilder {
    entries: BTreeMap<(String, Version), LockedPack>,
}

impl LockBuilder {
    /// Add one graph's resolution; `lock_dir` is where the lock will be written.
    pub fn add(&mut self, resolution: &Resolution, lock_dir: &Path) {
        for pack in &resolution.packs {
            let entry = self
                .entries
                .entry((pack.name.clone(), pack.version.clone()))
                .or_insert_with(|| LockedPack {
                    name: pack.name.clone(),
                    version: pack.version.clone(),
                    path: relative_to(&pack.dir, lock_dir),
                    digest: pack.digest().to_string(),
                    requested: BTreeMap::new(),
                });
            for r in &resolution.requests {
                if r.name != pack.name {
                    continue;
                }
                let key = match &r.asker {
                    Asker::Graph { file } => relative_to(Path::new(file), lock_dir),
                    Asker::Pack { label, .. } => label.clone(),
                };
                entry.requested.insert(key, r.range.text.clone());
            }
        }
    }

    /// The lock document, packs sorted by name and version.
    pub fn to_json(&self) -> Value {
        let packs: Vec<Value> = self
            .entries
            .values()
            .map(|p| {
                serde_json::json!({
                    "name": p.name,
                    "version": p.version.to_string(),
                    "path": p.path,
                    "digest": p.digest,
                    "requested": p.requested,
                })
            })
            .collect();
        serde_json::json!({"lock": 1, "packs": packs})
    }

    /// The file's text (pretty JSON and a newline).
    pub fn to_text(&self) -> String {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&self.to_json()).unwrap_or_default()
        )
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
