//! The pack path (SPEC §9.2): `--pack DIR` (repeatable) and `packs = [...]` in
//! `primgraph.toml`, each a pack (a folder with `pack.json`) or a folder whose sub-folders are
//! packs. Scanning reads only each `pack.json`'s `pack`, `version` and `roots`, and stops
//! reading once it has them (through `open_capped`, so a huge or special file costs nothing);
//! the full load happens only for the versions resolution picks. The same (name, version)
//! found twice: the first on the path wins.

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

/// How much of `pack.json` the scan reads first: a head written first (as
/// `registry/packs/pyrepo/pack.json` writes it) is found in it without reading the primitives.
/// A head not found in it is looked for in a prefix [`HEAD_GROWTH`] times longer, and so on:
/// a head written last costs the whole file and the skims of a few prefixes, each a sixteenth
/// of the next.
const HEAD_PREFIX: u64 = 4 * 1024;
const HEAD_GROWTH: u64 = 16;

/// The top-level members of `pack.json` the scan reads; the others are skipped unread.
#[derive(Default)]
struct Head {
    pack: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
    roots: Option<serde_json::Value>,
}

impl Head {
    fn complete(&self) -> bool {
        self.pack.is_some() && self.version.is_some() && self.roots.is_some()
    }
}

/// Reads a document's top-level members into a [`Head`], and stops at the first point where
/// it has all three: nothing after them is looked at (not the primitives, which are most of a
/// pack's bytes). A later error or a duplicate is the load's business (P801, located).
struct Skim<'h>(&'h mut Head);

impl<'de> serde::de::Visitor<'de> for Skim<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let slot = match key.as_ref() {
                "pack" => &mut self.0.pack,
                "version" => &mut self.0.version,
                "roots" => &mut self.0.roots,
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
            if self.0.complete() {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The head of `bytes` (a whole document or its first bytes), as far as it reads.
fn skim(bytes: &[u8]) -> (Head, Result<(), serde_json::Error>) {
    use serde::Deserializer as _;
    let mut head = Head::default();
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let read = reader.deserialize_map(Skim(&mut head));
    (head, read)
}

/// The name, version and roots `dir/pack.json` declares, read leniently (the pack's load
/// checks the rest), or why they cannot be read.
fn read_head(dir: &Path) -> Result<Candidate, Unreadable> {
    use std::io::Read;
    let manifest = dir.join(MANIFEST);
    let unreadable = |name: Option<String>, reason: String| Unreadable {
        dir: dir.to_path_buf(),
        name,
        reason,
    };
    if is_symlink(&manifest) {
        return Err(unreadable(None, "pack.json is a symbolic link".into()));
    }
    let mut file = match crate::input::open_capped(&manifest, MAX_MANIFEST_BYTES as u64) {
        Ok(file) => file,
        Err(e) => return Err(unreadable(None, e.to_string())),
    };
    let read_error =
        |e: std::io::Error| unreadable(None, format!("cannot read {}: {e}", manifest.display()));
    // Every pack on the path is scanned whether or not a graph asks for it, for three
    // members: the scan stops as soon as it has them, first in a short prefix, else in longer
    // ones, at worst in the whole file. Strictness (duplicate keys, depth, the rest of the
    // document) is the load's business, which reports it located (P801); a document that does
    // not read as far as the head goes through the strict parser for its message.
    let mut limit = HEAD_PREFIX;
    let mut bytes = Vec::with_capacity(limit as usize);
    let (mut head, read) = loop {
        (&mut file)
            .take(limit - bytes.len() as u64)
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
        let at_end = (bytes.len() as u64) < limit;
        let skimmed = skim(&bytes);
        // An error before the end is not taken as the document's: a prefix may end inside a
        // number (`1.`), which reads as a syntax error, not as the end of the input.
        if skimmed.0.complete() || at_end {
            break skimmed;
        }
        limit = limit.saturating_mul(HEAD_GROWTH);
    };
    if !head.complete() && read.is_err() {
        match crate::json::parse(&bytes, &super::LIMITS) {
            Ok(parsed) => {
                head = Head {
                    pack: parsed.value.get("pack").cloned(),
                    version: parsed.value.get("version").cloned(),
                    roots: parsed.value.get("roots").cloned(),
                }
            }
            Err(e) => return Err(unreadable(None, e.to_string())),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn pack_dir(text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST), text).unwrap();
        dir
    }

    #[test]
    fn a_head_written_first_is_read_without_the_rest() {
        // The rest is not JSON at all: the scan never gets to it; the load reports it (P801).
        let dir =
            pack_dir(r#"{"pack": "py", "version": "1.2.0", "roots": ["py"], "primitives": [oops"#);
        let head = read_head(dir.path()).unwrap();
        assert_eq!(head.name, "py");
        assert_eq!(head.version.to_string(), "1.2.0");
        assert_eq!(head.roots, vec!["py".to_string()]);
    }

    #[test]
    fn a_head_after_a_long_member_is_found_past_the_prefix() {
        // Past the first prefix and the next one: found in the third.
        let long = "x".repeat((2 * HEAD_PREFIX * HEAD_GROWTH) as usize);
        let text = json!({"summary": long, "version": "2.0.0", "pack": "late", "roots": ["late"]});
        let dir = pack_dir(&text.to_string());
        let head = read_head(dir.path()).unwrap();
        assert_eq!((head.name.as_str(), head.roots.len()), ("late", 1));
    }

    #[test]
    fn a_prefix_ending_inside_a_character_reads_on() {
        // `{"summary": "` is 13 bytes, then two-byte characters: the first prefix ends in one.
        let text = format!(
            r#"{{"summary": "{}", "pack": "wide", "version": "1.0.0", "roots": ["wide"]}}"#,
            "é".repeat(HEAD_PREFIX as usize)
        );
        assert_eq!(text.as_bytes()[HEAD_PREFIX as usize - 1] & 0xC0, 0xC0);
        let head = read_head(pack_dir(&text).path()).unwrap();
        assert_eq!(head.name, "wide");
    }

    #[test]
    fn a_prefix_ending_inside_a_number_reads_on() {
        // `{"f": "` is 7 bytes and `", "n": 1` 9: the first prefix ends with `1.`, which a
        // parser reads as a bad number, not as a cut.
        let filler = "x".repeat(HEAD_PREFIX as usize - 7 - 9 - 1);
        let text = format!(
            r#"{{"f": "{filler}", "n": 1.5, "pack": "late", "version": "1.0.0", "roots": ["late"]}}"#
        );
        assert_eq!(text.as_bytes()[HEAD_PREFIX as usize - 1], b'.');
        let head = read_head(pack_dir(&text).path()).unwrap();
        assert_eq!(head.name, "late");
    }

    #[test]
    fn a_document_broken_before_its_head_is_unreadable_with_the_strict_message() {
        let dir = pack_dir(r#"{"pack": "py", "version": }"#);
        let unreadable = read_head(dir.path()).unwrap_err();
        assert!(
            unreadable.reason.contains("line 1, column"),
            "{}",
            unreadable.reason
        );
    }

    #[test]
    fn a_head_without_roots_is_read_to_the_end() {
        let dir = pack_dir(r#"{"pack": "py", "version": "1.0.0", "summary": "s"}"#);
        let head = read_head(dir.path()).unwrap();
        assert!(head.roots.is_empty());
    }

    fn member() -> impl Strategy<Value = (String, Value)> {
        let value = prop_oneof![
            Just(Value::Null),
            any::<i32>().prop_map(Value::from),
            "[a-z\"\\\\ ]{0,12}".prop_map(Value::from),
            prop::collection::vec("[a-z]{0,5}", 0..4).prop_map(Value::from),
        ];
        ("(pack|version|roots|summary|primitives|[a-z]{1,6})", value)
    }

    proptest! {
        /// The skim reads each head member exactly as a whole parse of the document does,
        /// wherever it is written, whatever comes before or after it.
        #[test]
        fn the_skim_agrees_with_a_whole_parse(members in prop::collection::vec(member(), 0..12)) {
            let mut object = serde_json::Map::new();
            for (key, value) in members {
                object.entry(key).or_insert(value);
            }
            let text = Value::Object(object.clone()).to_string();
            let (head, _) = skim(text.as_bytes());
            let expected = |key: &str| object.get(key).cloned();
            prop_assert_eq!(head.pack, expected("pack"));
            prop_assert_eq!(head.version, expected("version"));
            prop_assert_eq!(head.roots, expected("roots"));
        }

        /// Wherever a prefix ends (inside a number, a string, a character), the scan of a file
        /// finds the head that a whole parse finds after it.
        #[test]
        fn the_scan_reads_on_past_any_prefix_end(
            filler in prop::collection::vec(prop_oneof![
                (-1.0e6f64..1.0e6).prop_map(Value::from),
                "[a-zé€ ]{0,40}".prop_map(Value::from),
            ], 0..1200),
            shift in 0usize..8,
        ) {
            let text = format!(
                r#"{{"pad": "{}", "filler": {}, "pack": "late", "version": "1.2.3", "roots": ["late"]}}"#,
                "x".repeat(shift),
                Value::from(filler),
            );
            let head = read_head(pack_dir(&text).path()).unwrap();
            prop_assert_eq!(head.name, "late");
            prop_assert_eq!(head.version.to_string(), "1.2.3");
        }
    }
}
