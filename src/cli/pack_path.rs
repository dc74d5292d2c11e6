//! The pack path on every command that meets a registry (SPEC §9.2): `--pack DIR`
//! (repeatable), `--locked` and `--trust-pack KEY.pub` (repeatable), merged with `packs` and
//! `trust_pack` of `primgraph.toml`, and the lock `primgraph.lock` beside the configuration
//! (or in the working directory). [`PackArgs::composer`] builds the one
//! [`Composer`](primgraph::pack::compose::Composer) a run shares (validate, replay, simulate,
//! `graph diff`, `registry diff`, `compare`, `registry show|list`, `explain`).
//!
//! Choices where the spec is silent: `--pack` entries come before the configuration's `packs`
//! on the path (the first entry wins for the same name and version); a `--pack` that is not a
//! folder is exit 2 (a mistyped CI path must not pass silently); an unreadable lock is exit 2
//! with its located error; with neither a pack path, a lock, `--locked` nor a trusted key
//! there is no composer, and a graph that declares packs is P804 ("no pack path is given").

use primgraph::config::Config;
use primgraph::pack::compose::{Base, Composer, ComposerOptions};
use primgraph::pack::lock::{self, Lock};
use primgraph::pack::path::PackPath;
use primgraph::registry::Registry;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct PackArgs {
    /// A pack folder, or a folder whose sub-folders are packs, on the pack path (repeatable;
    /// before `packs` of primgraph.toml).
    #[arg(long = "pack", value_name = "DIR")]
    pub pack: Vec<PathBuf>,
    /// Require `primgraph.lock`: a graph that declares packs without one is P806.
    #[arg(long)]
    pub locked: bool,
    /// Require every loaded pack to be signed by this key (`KEY.pub` from `primgraph
    /// keygen`; repeatable, with `trust_pack` of primgraph.toml); otherwise P807.
    #[arg(long = "trust-pack", value_name = "KEY.pub")]
    pub trust_pack: Vec<PathBuf>,
}

impl PackArgs {
    /// The pack path entries: `--pack`, then the configuration's `packs`.
    pub fn entries(&self, config: Option<&Config>) -> Vec<PathBuf> {
        let mut out = self.pack.clone();
        if let Some(c) = config {
            out.extend(
                c.packs
                    .iter()
                    .map(|p| primgraph::config::relative_to_cwd(p)),
            );
        }
        out
    }

    /// The composer of a run over `registry`, or `None` when nothing about packs is set.
    pub fn composer(
        &self,
        config: Option<&Config>,
        registry: &'static Registry,
    ) -> Result<Option<Arc<Composer>>, String> {
        for dir in &self.pack {
            if !dir.is_dir() {
                return Err(format!(
                    "--pack {}: not a folder (a pack, or a folder of packs)",
                    dir.display()
                ));
            }
        }
        let entries = self.entries(config);
        let mut trusted = Vec::new();
        let keys = self.trust_pack.iter().cloned().chain(
            config
                .into_iter()
                .flat_map(|c| c.trust_pack.iter().cloned()),
        );
        for key in keys {
            let key = primgraph::replay::TrustedKey::read(&key)
                .map_err(|e| format!("--trust-pack {}: {e}", key.display()))?;
            trusted.push(key.signer());
        }
        let lock = read_lock(config)?;
        if entries.is_empty() && lock.is_none() && !self.locked && trusted.is_empty() {
            return Ok(None);
        }
        let base = if std::ptr::eq(registry, Registry::builtin()) {
            Base::Builtin
        } else {
            Base::Static(registry)
        };
        let options = ComposerOptions {
            trusted,
            lock,
            locked: self.locked,
        };
        Ok(Some(Arc::new(Composer::new(
            base,
            PackPath::scan(&entries),
            options,
        ))))
    }
}

/// The lock beside the configuration (or in the working directory), when there is one.
pub fn read_lock(config: Option<&Config>) -> Result<Option<Lock>, String> {
    let cwd = Path::new(".");
    let path = match config {
        Some(c) => {
            let file = PathBuf::from(&c.file);
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            lock::location(Some(&dir), cwd)
        }
        None => lock::location(None, cwd),
    };
    let path = path
        .strip_prefix("./")
        .map(Path::to_path_buf)
        .unwrap_or(path);
    if !path.exists() {
        return Ok(None);
    }
    Lock::read(&path).map(Some).map_err(|e| e.to_string())
}

impl PackArgs {
    /// [`PackArgs::composer`] with the configuration found from the working directory (the
    /// commands without `--config`: replay, simulate, compare, the diffs, `registry`).
    pub fn discover(&self, registry: &'static Registry) -> Result<Option<Arc<Composer>>, String> {
        let config = Config::discover_from_cwd().map_err(|e| e.to_string())?;
        self.composer(config.as_ref(), registry)
    }
}

/// A note on stderr for each `PACK/RULE` setting of the configuration that no pack on the pack
/// path defines (a typo would otherwise change nothing, silently).
pub fn warn_unknown_pack_rules(config: &Config, composer: &Composer) {
    let settings = config.pack_rule_settings();
    if settings.is_empty() {
        return;
    }
    let mut defined: Vec<String> = Vec::new();
    for candidate in composer.path().candidates() {
        if let Ok(pack) = composer.load(candidate) {
            let (rules, _) = primgraph::pack_rules::effective::rules_of(&pack);
            defined.extend(rules.into_iter().map(|r| r.code.as_str().to_string()));
        }
    }
    for (code, setting, line, column) in settings {
        if !defined.iter().any(|d| d == code) {
            eprintln!(
                "warning: {}:{line}:{column}: `{setting}` names the pack rule `{code}`, which no \
                 pack on the pack path defines",
                config.file
            );
        }
    }
}

/// The SARIF `tool.driver.rules` entries of the pack rules (`PACK/RULE`) that `reports` use,
/// from the packs the run loaded (the highest loaded version of a pack that defines the rule)
/// and the configuration's global severity for each code.
pub fn pack_rule_entries(
    reports: &[primgraph::diagnostic::FileReport],
    composer: Option<&Composer>,
    config: Option<&Config>,
) -> Vec<primgraph::diagnostic::sarif::RuleEntry> {
    let Some(composer) = composer else {
        return Vec::new();
    };
    let loaded = composer.loaded();
    rule_entries(reports, config, &|name| {
        loaded.iter().filter(|p| p.name == name).cloned().collect()
    })
}

/// The entries of the pack rules `reports` use, each from the first pack `packs_named` gives
/// for its pack name that defines it.
pub fn rule_entries(
    reports: &[primgraph::diagnostic::FileReport],
    config: Option<&Config>,
    packs_named: &dyn Fn(&str) -> Vec<Arc<primgraph::pack::Pack>>,
) -> Vec<primgraph::diagnostic::sarif::RuleEntry> {
    let mut used: Vec<&str> = reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .map(|d| d.code.as_str())
        .filter(|c| primgraph::config::is_pack_rule_code(c))
        .collect();
    used.sort_unstable();
    used.dedup();
    let mut entries = Vec::new();
    for code in used {
        let Some((name, _)) = code.split_once('/') else {
            continue;
        };
        let found = packs_named(name).into_iter().find_map(|pack| {
            let (rules, _) = primgraph::pack_rules::effective::rules_of(&pack);
            let rule = rules.into_iter().find(|r| r.code.as_str() == code)?;
            Some((rule, pack))
        });
        if let Some((rule, pack)) = found {
            let setting = config.and_then(|c| c.global_level(code));
            entries.push(rule.rule_entry(&pack, setting));
        }
    }
    entries
}
