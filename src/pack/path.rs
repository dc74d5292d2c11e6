//! The pack path (SPEC §9.2): `--pack DIR` (repeatable) and `packs = [...]` in
//! `primgraph.toml`, each a pack (a folder with `pack.json`) or a folder whose sub-folders are
//! packs. Scanning reads only each `pack.json`'s `pack`, `version` and `roots` (through
//! `read_capped`, so a huge or special file costs nothing); the full load happens only for the
//! versions resolution picks. The same (name, version) found twice: the first on the path wins.

use super::{MANIFEST, MAX_MANIFEST_BYTES, Version, parse_version};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A pack found on the path, not loaded yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub version: Version,
    pub dir: PathBuf,
    /// Its `roots`, as read (for "did you mean to declare this pack", P811).
    pub roots: Vec<String>,
}

/// A folder on the path whose `pack.json` could not be read for its name and version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub dir: PathBuf,
    /// Its `pack` member, when that much could be read.
    pub name: Option<String>,
    pub reason: String,
}

/// The packs on the pack path, by name, highest version first.
#[derive(Debug, Clone, Default)]
pub struct PackPath {
    entries: Vec<PathBuf>,
    by_name: BTreeMap<String, Vec<Candidate>>,
    unreadable: Vec<Unreadable>,
}

impl PackPath {
    /// An empty pack path (only the base registry).
    pub fn empty() -> PackPath {
        PackPath::default()
    }

    /// Scan the given entries, in order.
    pub fn scan(entries: &[PathBuf]) -> PackPath {
        let mut path = PackPath {
            entries: entries.to_vec(),
            ..PackPath::default()
        };
        for entry in entries {
            if entry.join(MANIFEST).exists() || is_symlink(&entry.join(MANIFEST)) {
                path.add(entry);
                continue;
            }
            let Ok(read) = std::fs::read_dir(entry) else {
                path.unreadable.push(Unreadable {
                    dir: entry.clone(),
                    name: None,
                    reason: "not a pack (no pack.json) and not a readable folder of packs".into(),
                });
                continue;
            };
            let mut dirs: Vec<PathBuf> = read
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .filter(|p| p.join(MANIFEST).exists() || is_symlink(&p.join(MANIFEST)))
                .collect();
            dirs.sort();
            // Every `pack.json` is read and scanned whole: on both cores, added in path order.
            use rayon::prelude::*;
            let heads: Vec<Result<Candidate, Unreadable>> =
                dirs.par_iter().map(|dir| read_head(dir)).collect();
            for head in heads {
                path.push(head);
            }
        }
        for list in path.by_name.values_mut() {
            // Highest first; the first found of equal versions stays first (stable sort).
            list.sort_by(|a, b| b.version.cmp(&a.version));
            let mut seen: Vec<Version> = Vec::new();
            list.retain(|c| {
                if seen.contains(&c.version) {
                    false
                } else {
                    seen.push(c.version.clone());
                    true
                }
            });
        }
        path
    }

    fn add(&mut self, dir: &Path) {
        let head = read_head(dir);
        self.push(head);
    }

    fn push(&mut self, head: Result<Candidate, Unreadable>) {
        match head {
            Ok(candidate) => self
                .by_name
                .entry(candidate.name.clone())
                .or_default()
                .push(candidate),
            Err(unreadable) => self.unreadable.push(unreadable),
        }
    }

    /// The versions of `name` on the path, highest first.
    pub fn versions(&self, name: &str) -> &[Candidate] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Every pack name on the path.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }

    /// Every candidate, by name then highest version first.
    pub fn candidates(&self) -> impl Iterator<Item = &Candidate> {
        self.by_name.values().flatten()
    }

    /// The folders whose `pack.json` could not be read for a name and version.
    pub fn unreadable(&self) -> &[Unreadable] {
        &self.unreadable
    }

    /// The path's entries as given.
    pub fn entries(&self) -> &[PathBuf] {
        &self.entries
    }

    /// The packs on the path that own the root of a dotted ID (for P811's help).
    pub fn owners_of_root(&self, root: &str) -> Vec<&Candidate> {
        self.by_name
            .values()
            .filter_map(|list| list.first())
            .filter(|c| c.roots.iter().any(|r| r == root))
            .collect()
    }
}

/// The name, version and roots `dir/pack.json` declares, read leniently (the pack's load
/// checks the rest), or why they cannot be read.
fn read_head(dir: &Path) -> Result<Candidate, Unreadable> {
    /// The fields of `pack.json` the scan reads; the others are skipped unread.
    #[derive(serde::Deserialize)]
    struct Head {
        pack: Option<serde_json::Value>,
        version: Option<serde_json::Value>,
        roots: Option<serde_json::Value>,
    }
    let manifest = dir.join(MANIFEST);
    let unreadable = |name: Option<String>, reason: String| Unreadable {
        dir: dir.to_path_buf(),
        name,
        reason,
    };
    if is_symlink(&manifest) {
        return Err(unreadable(None, "pack.json is a symbolic link".into()));
    }
    let bytes = match crate::input::read_capped(&manifest, MAX_MANIFEST_BYTES) {
        Ok(b) => b,
        Err(e) => return Err(unreadable(None, e.to_string())),
    };
    // Only three fields are read here, and every pack on the path is scanned whether or
    // not a graph asks for it: a plain parse that skips the rest is enough. Strictness
    // (duplicate keys, depth) is the load's business, which reports it located (P801);
    // a document the plain parse refuses goes through the strict parser for its message.
    let head = match serde_json::from_slice::<Head>(&bytes) {
        Ok(head) => head,
        Err(_) => match crate::json::parse(&bytes, &super::LIMITS) {
            Ok(parsed) => Head {
                pack: parsed.value.get("pack").cloned(),
                version: parsed.value.get("version").cloned(),
                roots: parsed.value.get("roots").cloned(),
            },
            Err(e) => return Err(unreadable(None, e.to_string())),
        },
    };
    let name = head.pack.as_ref().and_then(|v| v.as_str());
    let version = head
        .version
        .as_ref()
        .and_then(|v| v.as_str())
        .and_then(parse_version);
    let roots = head
        .roots
        .as_ref()
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|r| r.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    match (name, version) {
        (Some(name), Some(version)) if super::is_pack_name(name) => Ok(Candidate {
            name: name.to_string(),
            version,
            dir: dir.to_path_buf(),
            roots,
        }),
        (name, _) => Err(unreadable(
            name.map(str::to_string),
            "pack.json has no valid `pack` name and `version`".into(),
        )),
    }
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}
