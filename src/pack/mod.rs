//! Packs (SPEC §9.1, §9.2): a directory with `pack.json` that extends the frozen registry in its
//! own namespace. This module owns the pack's data model ([`Pack`]), its strict loader
//! ([`manifest::load`]: P801–P809 and the registry lint L501–L510 located in `pack.json`), its
//! digest and signature ([`digest`], [`signature`]), the pack path ([`path::PackPath`]),
//! resolution of a graph's `packs` ranges ([`resolve`]: P804, P805), the effective registry of
//! a composition ([`compose::Composition`], one perfect hash per composition, cached by
//! [`compose::Composer`]) and the lock file ([`lock`]: P806).
//!
//! What later work plugs into: every loaded [`Pack`] keeps its `rules`, `fixtures`,
//! `fragments` and `plugins` members as raw JSON ([`RawSection`]: the value and its pointer in
//! `pack.json`), with the pack's directory ([`Pack::dir`]) and the parsed, spanned `pack.json`
//! ([`Pack::source`]) to locate anything inside them. See `docs/packs.md`.

pub mod codes;
pub mod compose;
pub mod digest;
// Fragments (SPEC §9.3): loading, expansion before every check, diagnostics mapped back.
pub mod fragment;
pub mod fragment_expand;
pub mod fragment_map;
pub mod lock;
pub mod manifest;
pub mod packs;
pub mod path;
pub mod resolve;
pub mod signature;

use crate::diagnostic::{Diagnostic, FileReport};
use crate::registry::{Effect, Family, Primitive};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

pub use semver::{Version, VersionReq};

/// The manifest's file name.
pub const MANIFEST: &str = "pack.json";
/// The signature's file name (left out of the digest).
pub const SIGNATURE: &str = "pack.sig";
/// The largest `pack.json` read (a 50 MB one is refused from its metadata, unread).
pub const MAX_MANIFEST_BYTES: usize = 8 * 1024 * 1024;
/// The largest schema or other file of a pack that is read.
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;
/// The most files under one pack directory (the digest reads them all).
pub const MAX_FILES: usize = 10_000;
/// The JSON limits of `pack.json` and of a pack's schema files.
pub const LIMITS: crate::json::Limits = crate::json::Limits {
    max_bytes: MAX_MANIFEST_BYTES,
    max_depth: 64,
};

/// A semver range as written, with where it is written.
#[derive(Debug, Clone)]
pub struct Range {
    /// The text as written (`^1.2`, `>=1.0, <2`).
    pub text: String,
    pub req: VersionReq,
    /// JSON pointer of the range in its file (`/requires/pyrepo`, `/packs/pyrepo`).
    pub pointer: String,
}

/// One entry of `requires`: another pack this one uses.
#[derive(Debug, Clone)]
pub struct Requirement {
    pub name: String,
    pub range: Range,
}

/// One primitive of a pack: the §1.2 contract as every registry holds it (its `outcomes`
/// expanded from a decision set, its schema files bundled into `$defs`), plus what only packs
/// have.
#[derive(Debug, Clone)]
pub struct PackPrimitive {
    pub contract: Primitive,
    /// The names of the pack commands it may run.
    pub commands: Vec<String>,
    /// The decision set its `outcomes` came from, when `{"decision_set": NAME}`.
    pub decision_set: Option<String>,
    /// Its pointer in `pack.json` (`/primitives/3`).
    pub pointer: String,
}

/// One entry of `commands`.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub argv: Vec<String>,
    pub effects: Vec<Effect>,
}

/// One entry of `context_rules`: what context the primitives its selector matches may read.
#[derive(Debug, Clone)]
pub struct ContextRule {
    /// An ID, an alias or `prefix.*`.
    pub primitive: String,
    pub read: Vec<String>,
    pub deny: Vec<String>,
    pub pointer: String,
    deny_set: globset::GlobSet,
    read_set: globset::GlobSet,
}

impl ContextRule {
    /// Whether the rule applies to a primitive (by its ID and alias).
    pub fn selects(&self, id: &str, alias: &str) -> bool {
        selector_matches(&self.primitive, id, alias)
    }

    /// Whether `path` (workspace-relative, `/` separators) matches a `deny` glob.
    pub fn denies(&self, path: &str) -> bool {
        self.deny_set.is_match(path.trim_start_matches("./"))
    }

    /// Whether `path` matches a `read` glob.
    pub fn reads(&self, path: &str) -> bool {
        self.read_set.is_match(path.trim_start_matches("./"))
    }
}

/// Whether a selector (an ID, an alias or `prefix.*`, or `*`) matches a primitive.
pub fn selector_matches(selector: &str, id: &str, alias: &str) -> bool {
    if selector == "*" {
        return true;
    }
    if let Some(prefix) = selector.strip_suffix(".*") {
        return id
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.'));
    }
    selector == id || selector == alias
}

/// `environment`: what a runtime must provide.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Environment {
    pub requires: Vec<String>,
    /// `None` when not said.
    pub network: Option<bool>,
}

/// A member of `pack.json` kept as written for the work that interprets it (`rules` §9.4,
/// `fixtures` §9.5, `fragments` §9.3, `plugins` §9.7): the raw value and its pointer; locate
/// anything inside it with [`Pack::source`] and resolve file names against [`Pack::dir`].
#[derive(Debug, Clone)]
pub struct RawSection {
    /// `/rules`, `/fixtures`, `/fragments`, `/plugins`.
    pub pointer: String,
    pub value: Value,
}

/// A pack's signature, as read from `pack.sig` and checked (a present signature always
/// verifies, else the pack does not load: P807).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackSignature {
    /// `ed25519:` + 64 hex digits.
    pub signer: String,
    /// `ed25519:` + 128 hex digits.
    pub sig: String,
}

/// A loaded pack: everything `pack.json` says, checked (SPEC §9.1).
#[derive(Debug, Clone)]
pub struct Pack {
    pub name: String,
    pub version: Version,
    pub summary: Option<String>,
    /// `kernel_abi`, checked against the base registry's `abi` at composition.
    pub kernel_abi: Range,
    pub requires: Vec<Requirement>,
    pub roots: Vec<String>,
    pub families: Vec<Family>,
    pub primitives: Vec<PackPrimitive>,
    pub decision_sets: BTreeMap<String, Vec<String>>,
    pub error_classes: Vec<String>,
    /// NAME → path relative to the pack root, as declared.
    pub schemas: BTreeMap<String, String>,
    pub commands: BTreeMap<String, Command>,
    pub context_rules: Vec<ContextRule>,
    pub environment: Option<Environment>,
    /// `fragments` as written (the globs).
    pub fragments: Option<RawSection>,
    /// The files the `fragments` globs matched, relative to [`Pack::dir`], sorted.
    pub fragment_files: Vec<String>,
    pub rules: Option<RawSection>,
    pub fixtures: Option<RawSection>,
    pub plugins: Option<RawSection>,
    /// `plugins` as checked: primitive ID → path relative to [`Pack::dir`] (a regular file).
    pub plugin_files: BTreeMap<String, String>,
    /// The pack directory (as found on the pack path).
    pub dir: PathBuf,
    /// `dir/pack.json`, as reported in diagnostics.
    pub manifest: String,
    /// `pack.json`'s text and span table, to locate anything in it. Its `value` is `Null`: the
    /// loader moves the tree into the typed members above (uncopied), and
    /// [`Pack::written_primitive`] reads an entry as written again from the text.
    pub source: Arc<crate::json::Parsed>,
    /// What the digest covers (SPEC §9.2), hashed as far as the load needed; see
    /// [`Pack::digest`].
    pub(crate) digest_files: digest::DigestFiles,
    pub(crate) digest_value: std::sync::OnceLock<String>,
    pub signature: Option<PackSignature>,
}

impl Pack {
    /// The pack's digest, `sha256:` + hex (SPEC §9.2), of the files as they were when it
    /// loaded; `pack.json`'s bytes are hashed here, on first use, from the text the pack keeps.
    pub fn digest(&self) -> &str {
        self.digest_value
            .get_or_init(|| self.digest_files.digest(self.source.source().as_bytes()))
    }

    /// `name@version`, as a lock's `requested` names a pack that asked.
    pub fn label(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// The pack's capability requirements (SPEC §9.1: derived, not declared): the primitives
    /// its fragments run. Each matched fragment file's `nodes[].primitive` is read leniently (a
    /// file that does not read adds nothing), and so are the fragments they use of other packs
    /// (`PACK/NAME`), when those packs are among `others` (the packs it requires, as composed):
    /// a nested fragment's primitives run when the fragment runs.
    pub fn capability_requirements_in(&self, others: &[std::sync::Arc<Pack>]) -> Vec<String> {
        let mut out = std::collections::BTreeSet::new();
        let mut files: Vec<std::path::PathBuf> = self
            .fragment_files
            .iter()
            .map(|f| self.dir.join(f))
            .collect();
        let mut seen: std::collections::HashSet<std::path::PathBuf> =
            files.iter().cloned().collect();
        while let Some(file) = files.pop() {
            let Ok(bytes) = crate::input::read_capped(&file, MAX_FILE_BYTES) else {
                continue;
            };
            let Ok(parsed) = crate::json::parse(&bytes, &LIMITS) else {
                continue;
            };
            let nodes = parsed.value.get("nodes").and_then(Value::as_array);
            for node in nodes.into_iter().flatten() {
                if let Some(p) = node.get("primitive").and_then(Value::as_str) {
                    out.insert(p.to_string());
                }
                let used = node.get("fragment").and_then(Value::as_str);
                let Some((pack, name)) = used.and_then(|u| u.split_once('/')) else {
                    continue;
                };
                let Some(owner) = others
                    .iter()
                    .find(|o| o.name == pack && o.name != self.name)
                else {
                    continue;
                };
                let wanted = format!("{name}.fragment.json");
                let found = owner.fragment_files.iter().find(|f| {
                    std::path::Path::new(f).file_name().and_then(|n| n.to_str())
                        == Some(wanted.as_str())
                });
                if let Some(rel) = found {
                    let path = owner.dir.join(rel);
                    if seen.insert(path.clone()) {
                        files.push(path);
                    }
                }
            }
        }
        out.into_iter().collect()
    }

    /// [`Pack::capability_requirements_in`] with no other pack: the primitives its own
    /// fragment files run.
    pub fn capability_requirements(&self) -> Vec<String> {
        self.capability_requirements_in(&[])
    }

    /// The entry of `primitives` with this ID as written in `pack.json` (before its decision
    /// set is expanded and its schema files bundled), parsed again from the text: what a
    /// plugin embeds (SPEC §9.7). A cold path, so the loaded pack does not keep the tree.
    pub fn written_primitive(&self, id: &str) -> Option<Value> {
        let parsed = crate::json::parse(self.source.source().as_bytes(), &LIMITS).ok()?;
        let Value::Object(mut top) = parsed.value else {
            return None;
        };
        let Some(Value::Array(items)) = top.remove("primitives") else {
            return None;
        };
        items
            .into_iter()
            .find(|p| p.get("id").and_then(Value::as_str) == Some(id))
    }

    /// The primitive with this ID or alias.
    pub fn primitive(&self, key: &str) -> Option<&PackPrimitive> {
        self.primitives
            .iter()
            .find(|p| p.contract.id == key || p.contract.alias == key)
    }
}

/// A pack that could not be loaded: its findings, one report per file they are in (`pack.json`
/// first), every diagnostic located (line and column resolved).
#[derive(Debug, Clone, PartialEq)]
pub struct PackErrors {
    pub reports: Vec<FileReport>,
}

impl PackErrors {
    /// Every diagnostic with its file.
    pub fn diagnostics(&self) -> impl Iterator<Item = (&str, &Diagnostic)> {
        self.reports
            .iter()
            .flat_map(|r| r.diagnostics.iter().map(move |d| (r.file.as_str(), d)))
    }

    /// One error, located at the start of a file (a file that could not be read at all).
    pub fn whole_file(file: &str, diagnostic: Diagnostic) -> PackErrors {
        let mut d = diagnostic;
        d.line = 1;
        d.column = 1;
        PackErrors {
            reports: vec![FileReport {
                file: file.to_string(),
                graph: None,
                diagnostics: vec![d],
                source: Arc::from(""),
            }],
        }
    }

    pub fn is_empty(&self) -> bool {
        self.reports.iter().all(|r| r.diagnostics.is_empty())
    }

    pub fn extend(&mut self, other: PackErrors) {
        for report in other.reports {
            match self.reports.iter_mut().find(|r| r.file == report.file) {
                Some(r) => r.diagnostics.extend(report.diagnostics),
                None => self.reports.push(report),
            }
        }
    }
}

impl std::fmt::Display for PackErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (file, d) in self.diagnostics() {
            if !first {
                writeln!(f)?;
            }
            first = false;
            write!(
                f,
                "{file}:{}:{}: {} {}",
                d.line, d.column, d.code, d.message
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for PackErrors {}

/// Whether `name` is a pack name (`^[a-z][a-z0-9-]*$`).
pub fn is_pack_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A strict `MAJOR.MINOR.PATCH` (no pre-release or build: a pack version is a release).
pub fn parse_version(text: &str) -> Option<Version> {
    let v = Version::parse(text).ok()?;
    (v.pre.is_empty() && v.build.is_empty()).then_some(v)
}

/// A semver range: `^1.2`, `~1.2.3`, `>=1.0, <2` (comma is AND), `=1.2.3`, `*`, and a bare
/// `1.2.3`, which is that version exactly.
pub fn parse_range(text: &str) -> Option<VersionReq> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    // A bare version means that version exactly, and a bare partial one every version it
    // prefixes (`1.2` is `1.2.x`), as npm reads them; Cargo would read `^`.
    let bare = trimmed
        .split('.')
        .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    if bare {
        return VersionReq::parse(&format!("={trimmed}")).ok();
    }
    VersionReq::parse(trimmed).ok()
}
