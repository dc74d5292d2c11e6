//! `primgraph.toml` (SPEC §8): the project's settings for `validate` and `lsp` — the registry
//! file, paths to exclude, and per-code severity overrides, globally and per path glob. This
//! module owns finding the file (from a directory upwards), parsing it strictly (an unknown key,
//! an unknown code or a bad level is an error at its file, line and column, from the `toml`
//! crate's spans) and applying it to diagnostics, recording on each changed diagnostic which
//! setting changed it (`Diagnostic::overridden_by`), so no override is ever silent.
//!
//! ```toml
//! registry = "registry/kernel-abi-1.0.0.json"   # relative to this file
//! exclude = ["graphs/generated/**"]               # globs, relative to this file
//! packs = ["registry/packs"]                      # the pack path, after any --pack
//! trust_pack = ["keys/team.pub"]                  # trusted pack signers, with --trust-pack
//!
//! [severity]                                      # every file
//! R102 = "off"
//!
//! [[overrides]]                                   # files matching `paths`, later wins
//! paths = ["graphs/legacy/**"]
//! severity = { S203 = "off", A402 = "warning" }
//! ```
//!
//! Paths and globs are relative to the directory holding the file; `*` stays within one path
//! segment and `**` crosses segments; a glob that names a folder covers everything under it.

use crate::diagnostic::{Diagnostic, FileReport, Level, Override};
use globset::{GlobSet, GlobSetBuilder};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use toml::Spanned;

/// The file name searched for.
pub const FILE_NAME: &str = "primgraph.toml";

/// The largest `primgraph.toml` read: a configuration is a few hundred bytes; a named FIFO or
/// `/dev/zero` must not block or fill memory.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

/// Why a configuration file could not be used, with where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.located())]
pub struct ConfigError {
    pub file: String,
    /// 1-based; 0 when the error has no place in the file (it could not be read).
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl ConfigError {
    /// `file:line:column: message`, or `file: message` when there is no place (never a made-up
    /// `:0:0:`).
    fn located(&self) -> String {
        if self.line == 0 {
            format!("{}: {}", self.file, self.message)
        } else {
            format!(
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    registry: Option<Spanned<String>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    #[serde(default)]
    severity: BTreeMap<Spanned<String>, Spanned<RawLevel>>,
    #[serde(default)]
    overrides: Vec<RawOverride>,
    /// The pack path (SPEC §9.2), after any `--pack`.
    #[serde(default)]
    packs: Vec<Spanned<String>>,
    /// Trusted pack signers' `KEY.pub` files (SPEC §9.2), with any `--trust-pack`.
    #[serde(default)]
    trust_pack: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOverride {
    paths: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    severity: BTreeMap<Spanned<String>, Spanned<RawLevel>>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RawLevel {
    Off,
    Info,
    Warning,
    Error,
}

impl From<RawLevel> for Level {
    fn from(level: RawLevel) -> Level {
        match level {
            RawLevel::Off => Level::Off,
            RawLevel::Info => Level::Info,
            RawLevel::Warning => Level::Warning,
            RawLevel::Error => Level::Error,
        }
    }
}

/// One `CODE = "level"` setting, with its key path and place for reporting.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Setting {
    code: String,
    level: Level,
    setting: String,
    line: u32,
    column: u32,
}

#[derive(Debug, Clone)]
struct PathOverride {
    globs: GlobSet,
    settings: Vec<Setting>,
}

/// A loaded `primgraph.toml`.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file, as it is reported in `overridden_by` and errors.
    pub file: String,
    /// The directory paths and globs are relative to (absolute).
    pub root: PathBuf,
    /// The registry file the graphs are checked against (absolute), if set.
    pub registry: Option<PathBuf>,
    /// `packs = [...]`: pack path entries (absolute), searched after `--pack` (SPEC §9.2).
    pub packs: Vec<PathBuf>,
    /// `trust_pack = [...]`: trusted pack keys' `KEY.pub` files (absolute).
    pub trust_pack: Vec<PathBuf>,
    exclude: GlobSet,
    global: Vec<Setting>,
    overrides: Vec<PathOverride>,
}

/// The nearest `primgraph.toml` in `start` or one of its ancestors.
pub fn find(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// An absolute `path` as seen from the working directory (`../../primgraph.toml`); unchanged
/// when the two share no root (another drive) or the working directory is unknown.
pub fn relative_to_cwd(path: &Path) -> PathBuf {
    let cwd = absolute(Path::new("."));
    let common = cwd
        .components()
        .zip(path.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 || !path.is_absolute() {
        return path.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in cwd.components().skip(common) {
        out.push("..");
    }
    for component in path.components().skip(common) {
        out.push(component);
    }
    out
}

/// `path` made absolute against the working directory, with `.` and `..` folded away.
pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl Config {
    /// The configuration for a run started in `dir`: the nearest `primgraph.toml` upwards, or
    /// `None` when there is none.
    pub fn discover(dir: &Path) -> Result<Option<Config>, ConfigError> {
        match find(&absolute(dir)) {
            Some(path) => Config::load(&path).map(Some),
            None => Ok(None),
        }
    }

    /// As [`Config::discover`], naming the file relative to the working directory
    /// (`../primgraph.toml`), as the command line and its outputs (JSON `overridden_by.config`,
    /// SARIF, the human note) show it: an absolute path in a CI artefact names the runner's
    /// checkout, which means nothing anywhere else.
    pub fn discover_from_cwd() -> Result<Option<Config>, ConfigError> {
        let Some(path) = find(&absolute(Path::new("."))) else {
            return Ok(None);
        };
        Config::load(&relative_to_cwd(&path)).map(Some)
    }

    /// Read and parse one configuration file (a regular file of at most
    /// [`MAX_CONFIG_BYTES`]).
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let bytes = crate::input::read_capped(path, MAX_CONFIG_BYTES).map_err(|e| ConfigError {
            file: file.clone(),
            line: 0,
            column: 0,
            message: match e {
                crate::input::InputError::Io { source, .. }
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    "no such file (it is missing)".into()
                }
                crate::input::InputError::Io { source, .. } => format!("cannot read: {source}"),
                crate::input::InputError::NotRegular { kind, .. } => {
                    format!("not a regular file (it is {kind})")
                }
                crate::input::InputError::TooLarge { size, limit, .. } => {
                    format!("the file is {size} bytes, over the limit of {limit} bytes")
                }
            },
        })?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                // Located at the first byte that is not UTF-8, not at 0:0.
                let valid = e.utf8_error().valid_up_to();
                let bytes = e.as_bytes();
                let before = String::from_utf8_lossy(&bytes[..valid]);
                let (line, column) = line_column(&before, before.len());
                return Err(ConfigError {
                    file,
                    line,
                    column,
                    message: format!(
                        "not UTF-8: byte 0x{:02x} at offset {valid} (TOML files are UTF-8)",
                        bytes[valid]
                    ),
                });
            }
        };
        let root = absolute(path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Config::parse(&text, &file, &root)
    }

    /// Parse the text of a configuration file named `file` whose paths are relative to `root`.
    pub fn parse(text: &str, file: &str, root: &Path) -> Result<Config, ConfigError> {
        let at = |span: std::ops::Range<usize>, message: String| {
            let (line, column) = line_column(text, span.start);
            ConfigError {
                file: file.to_string(),
                line,
                column,
                message,
            }
        };
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let message = e.message().trim().to_string();
            at(e.span().unwrap_or(0..0), message)
        })?;
        let settings = |table: &BTreeMap<Spanned<String>, Spanned<RawLevel>>,
                        prefix: &str|
         -> Result<Vec<Setting>, ConfigError> {
            // In file order, so that a report names settings as the reader sees them.
            let mut entries: Vec<_> = table.iter().collect();
            entries.sort_by_key(|(code, _)| code.span().start);
            // Codes match case-insensitively, as `explain` does (`r102` is R102), and are
            // applied by their canonical spelling; one code set twice is refused.
            let mut seen: Vec<(String, &Spanned<String>)> = Vec::new();
            entries
                .into_iter()
                .map(|(code, level)| {
                    let name = code.get_ref();
                    // A table code by its canonical spelling; a pack rule's `PACK/RULE` as
                    // written (pack names and rule ids are lower case by their grammar).
                    let canonical = match crate::codes::find(name) {
                        Some(row) => row.code.to_string(),
                        None if is_pack_rule_code(name) => name.clone(),
                        None => return Err(at(code.span(), unknown_code(name))),
                    };
                    if let Some((_, first)) = seen.iter().find(|(c, _)| *c == canonical) {
                        let (line, column) = line_column(text, first.span().start);
                        return Err(at(
                            code.span(),
                            format!(
                                "`{name}` sets {canonical} again (first set as `{}` at line {line}, column {column}); codes match case-insensitively",
                                first.get_ref()
                            ),
                        ));
                    }
                    seen.push((canonical.clone(), code));
                    let (line, column) = line_column(text, code.span().start);
                    Ok(Setting {
                        code: canonical,
                        level: Level::from(*level.get_ref()),
                        setting: format!("{prefix}.{name}"),
                        line,
                        column,
                    })
                })
                .collect()
        };
        let globs = |patterns: &[Spanned<String>]| -> Result<GlobSet, ConfigError> {
            let mut builder = GlobSetBuilder::new();
            for pattern in patterns {
                let glob = globset::GlobBuilder::new(pattern.get_ref().trim_end_matches('/'))
                    .literal_separator(true)
                    .build()
                    .map_err(|e| at(pattern.span(), format!("bad glob: {}", e.kind())))?;
                builder.add(glob);
            }
            builder
                .build()
                .map_err(|e| at(0..0, format!("bad globs: {e}")))
        };
        let global = settings(&raw.severity, "severity")?;
        let mut overrides = Vec::with_capacity(raw.overrides.len());
        for (i, o) in raw.overrides.iter().enumerate() {
            if o.paths.get_ref().is_empty() {
                return Err(at(
                    o.paths.span(),
                    "`paths` is empty: an override needs at least one glob".into(),
                ));
            }
            overrides.push(PathOverride {
                globs: globs(o.paths.get_ref())?,
                settings: settings(&o.severity, &format!("overrides[{i}].severity"))?,
            });
        }
        let registry = raw.registry.map(|r| root.join(r.get_ref()));
        let paths = |entries: &[Spanned<String>], key: &str| -> Result<Vec<PathBuf>, ConfigError> {
            entries
                .iter()
                .map(|e| {
                    if e.get_ref().trim().is_empty() {
                        Err(at(e.span(), format!("an empty path in `{key}`")))
                    } else {
                        Ok(root.join(e.get_ref()))
                    }
                })
                .collect()
        };
        let packs = paths(&raw.packs, "packs")?;
        let trust_pack = paths(&raw.trust_pack, "trust_pack")?;
        Ok(Config {
            file: file.to_string(),
            root: root.to_path_buf(),
            registry,
            packs,
            trust_pack,
            exclude: globs(&raw.exclude)?,
            global,
            overrides,
        })
    }

    /// `path` relative to the configuration's root, with `/` separators (the path as given
    /// when it lies outside the root).
    fn relative(&self, path: &Path) -> String {
        let absolute = absolute(path);
        let relative = absolute.strip_prefix(&self.root).unwrap_or(path);
        relative
            .components()
            .filter_map(|c| match c {
                Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Whether `set` matches `relative` or one of its parent folders.
    fn matches(set: &GlobSet, relative: &str) -> bool {
        if set.is_empty() {
            return false;
        }
        let mut prefix = relative;
        loop {
            if set.is_match(prefix) {
                return true;
            }
            match prefix.rfind('/') {
                Some(cut) => prefix = &prefix[..cut],
                None => return false,
            }
        }
    }

    /// Whether `path` is excluded from checking.
    pub fn is_excluded(&self, path: &Path) -> bool {
        Config::matches(&self.exclude, &self.relative(path))
    }

    /// The level each overridden code has for `path`, with the setting that decided it: the
    /// global settings first, then every matching `[[overrides]]` entry in file order (later
    /// wins).
    fn settings_for(&self, path: &Path) -> BTreeMap<&str, &Setting> {
        let relative = self.relative(path);
        let mut decided = BTreeMap::new();
        for setting in &self.global {
            decided.insert(setting.code.as_str(), setting);
        }
        for o in &self.overrides {
            if Config::matches(&o.globs, &relative) {
                for setting in &o.settings {
                    decided.insert(setting.code.as_str(), setting);
                }
            }
        }
        decided
    }

    /// Apply the severity overrides for `path` to `diagnostics`: each one a setting changes
    /// gets its new severity (or is marked off) and an `overridden_by` naming the setting.
    pub fn apply(&self, path: &Path, diagnostics: &mut [Diagnostic]) {
        let decided = self.settings_for(path);
        if decided.is_empty() {
            return;
        }
        for diag in diagnostics.iter_mut() {
            let Some(setting) = decided.get(diag.code.as_str()) else {
                continue;
            };
            if setting.level.severity() == Some(diag.severity) {
                continue; // the setting agrees with the rule: nothing changed
            }
            let from = diag.severity;
            if let Some(severity) = setting.level.severity() {
                diag.severity = severity;
            }
            diag.overridden_by = Some(Box::new(Override {
                config: self.file.clone(),
                setting: setting.setting.clone(),
                line: setting.line,
                column: setting.column,
                from,
                to: setting.level,
            }));
        }
    }

    /// Every `PACK/RULE = "level"` setting, globally and in `[[overrides]]`, as (code, setting
    /// key path, line, column): a caller that has loaded the packs warns about those whose rule
    /// no loaded pack defines (a typo would otherwise silently change nothing).
    pub fn pack_rule_settings(&self) -> Vec<(&str, &str, u32, u32)> {
        self.global
            .iter()
            .chain(self.overrides.iter().flat_map(|o| &o.settings))
            .filter(|s| crate::codes::find(&s.code).is_none())
            .map(|s| (s.code.as_str(), s.setting.as_str(), s.line, s.column))
            .collect()
    }

    /// The level the configuration's global `[severity]` sets for `code` (the last setting of
    /// it), if any: what a code's default is for every file no `[[overrides]]` entry matches.
    pub fn global_level(&self, code: &str) -> Option<Level> {
        self.global
            .iter()
            .rev()
            .find(|s| s.code == code)
            .map(|s| s.level)
    }

    /// [`Config::apply`] to a report, whose `file` is the path it was read from.
    pub fn apply_report(&self, report: &mut FileReport) {
        let path = PathBuf::from(&report.file);
        self.apply(&path, &mut report.diagnostics);
    }
}

/// Whether `name` is written as a pack rule's code, `PACK/RULE` (SPEC §9.4): a pack name and a
/// rule id. Whether a loaded pack defines that rule is only known once the packs are resolved,
/// per graph: [`Config::pack_rule_settings`] lists these settings so that the caller can warn
/// about the ones no loaded pack defines.
pub fn is_pack_rule_code(name: &str) -> bool {
    match name.split_once('/') {
        Some((pack, rule)) => {
            crate::pack_rules::is_pack_name(pack) && crate::pack_rules::is_rule_id(rule)
        }
        None => false,
    }
}

fn unknown_code(name: &str) -> String {
    let known: Vec<&str> = crate::codes::ALL.iter().map(|c| c.code).collect();
    let near = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name))
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    format!(
        "unknown diagnostic code `{name}`{near}; codes are {} or a pack rule's `PACK/RULE`",
        known.join(", ")
    )
}

/// The 1-based line and column (in chars) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let index = crate::json::LineIndex::new(text);
    index.line_column(text, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, "primgraph.toml", Path::new("/project"))
    }

    #[test]
    fn a_typo_in_a_code_is_located() {
        let error = parse("[severity]\nR102 = \"off\"\nA4O2 = \"warning\"\n").unwrap_err();
        assert_eq!((error.line, error.column), (3, 1), "{error}");
        assert!(error.message.contains("`A4O2`"), "{error}");
    }

    #[test]
    fn an_unknown_key_is_located() {
        let error = parse("registry = \"r.json\"\nexlude = []\n").unwrap_err();
        assert_eq!((error.line, error.column), (2, 1), "{error}");
        assert!(error.message.contains("exlude"), "{error}");
    }

    #[test]
    fn a_bad_level_is_located() {
        let error = parse("[severity]\nR102 = \"quiet\"\n").unwrap_err();
        assert_eq!((error.line, error.column), (2, 8), "{error}");
    }

    #[test]
    fn later_overrides_win_and_folders_match_their_contents() {
        let config = parse(
            "exclude = [\"gen\"]\n[severity]\nS203 = \"error\"\n\
             [[overrides]]\npaths = [\"legacy/**\"]\nseverity = { S203 = \"off\" }\n",
        )
        .unwrap();
        assert!(config.is_excluded(Path::new("/project/gen/a/b.graph.json")));
        assert!(!config.is_excluded(Path::new("/project/general.graph.json")));
        let mut diags = vec![crate::codes::S203.at("/nodes/1", "unreachable")];
        config.apply(Path::new("/project/legacy/x.graph.json"), &mut diags);
        let by = diags[0].overridden_by.as_ref().unwrap();
        assert_eq!(by.setting, "overrides[0].severity.S203");
        assert!(diags[0].is_suppressed());
        let mut diags = vec![crate::codes::S203.at("/nodes/1", "unreachable")];
        config.apply(Path::new("/project/x.graph.json"), &mut diags);
        assert_eq!(diags[0].severity, crate::diagnostic::Severity::Error);
        assert_eq!(
            diags[0].overridden_by.as_ref().unwrap().setting,
            "severity.S203"
        );
    }

    /// Issue 21 item 7: `r102 = "off"` was accepted and never applied (codes were found
    /// case-insensitively but applied by exact spelling).
    #[test]
    fn a_code_in_lower_case_is_applied_and_a_code_set_twice_is_refused() {
        let config = parse("[severity]\nr102 = \"off\"\n").unwrap();
        let mut diags = vec![crate::codes::R102.at("/nodes/0/primitive", "alias")];
        config.apply(Path::new("/project/x.graph.json"), &mut diags);
        assert!(diags[0].is_suppressed(), "{diags:?}");
        assert_eq!(
            diags[0].overridden_by.as_ref().unwrap().setting,
            "severity.r102"
        );
        let error = parse("[severity]\nR102 = \"off\"\nr102 = \"error\"\n").unwrap_err();
        assert_eq!((error.line, error.column), (3, 1), "{error}");
        assert!(error.message.contains("line 2, column 1"), "{error}");
    }

    #[test]
    fn a_config_that_is_not_utf8_is_located_at_its_first_bad_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("primgraph.toml");
        std::fs::write(&path, b"[severity]\nR102 = \"o\xffff\"\n").unwrap();
        let error = Config::load(&path).unwrap_err();
        assert_eq!((error.line, error.column), (2, 10), "{error}");
        assert!(error.message.contains("not UTF-8"), "{error}");
    }
}
