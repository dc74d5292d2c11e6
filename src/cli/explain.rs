//! `primgraph explain CODE`: prints the documentation of a diagnostic code — the `//!` header of
//! the file its row of `primgraph::codes` names. A pack rule's code `PACK/RULE` (SPEC §9.4)
//! prints the rule — its severity, summary, help and definition as written in `pack.json` —
//! when the pack is on the pack path (`--pack DIR`, `packs` of primgraph.toml; the highest
//! version there, or the locked one when `primgraph.lock` exists). Exit 2 with the list of known
//! codes when the code is unknown, or with what is on the pack path when the rule is not found.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// A diagnostic code, e.g. A402, or a pack rule's `PACK/RULE`.
    pub code: String,
    /// The configuration file (default: the nearest `primgraph.toml` upwards), for its `packs`.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

pub fn run(args: ExplainArgs) -> ExitCode {
    if let Some(row) = primgraph::codes::find(&args.code) {
        // Where to read or change it: the file that implements the code.
        super::io::print(&format!(
            "{}\n\nImplemented in `{}`.\n",
            row.doc().trim_end(),
            row.file
        ));
        return ExitCode::SUCCESS;
    }
    if let Some((pack, _)) = args.code.split_once('/') {
        return match pack_rule(&args, pack) {
            Ok(text) => {
                super::io::print(&text);
                ExitCode::SUCCESS
            }
            Err(e) => super::usage_error(e),
        };
    }
    let known: Vec<&str> = primgraph::codes::ALL.iter().map(|row| row.code).collect();
    super::usage_error(format!(
        "unknown code `{}`; known codes: {}, or a pack rule's `PACK/RULE`",
        args.code,
        known.join(", ")
    ))
}

/// The text of a pack rule's explanation, found on the pack path.
fn pack_rule(args: &ExplainArgs, pack: &str) -> Result<String, String> {
    let config = super::validate::load_config(&args.config)?;
    let registry = super::load_registry(&config.as_ref().and_then(|c| c.registry.clone()))?;
    let composer = args
        .packs
        .composer(config.as_ref(), registry)?
        .ok_or_else(|| {
            format!(
                "`{}` is a pack rule's code, and no pack path is given (pass --pack DIR, or set \
                 `packs` in primgraph.toml)",
                args.code
            )
        })?;
    let pack_name = pack.to_ascii_lowercase();
    let candidate = match composer.lock() {
        Some(lock) => lock
            .packs
            .iter()
            .filter(|p| p.name == pack_name)
            .max_by(|a, b| a.version.cmp(&b.version))
            .map(|p| primgraph::pack::path::Candidate {
                name: p.name.clone(),
                version: p.version.clone(),
                dir: lock.dir.join(&p.path),
                roots: Vec::new(),
            }),
        None => composer.path().versions(&pack_name).first().cloned(),
    }
    .ok_or_else(|| {
        let names: Vec<&str> = composer.path().names().collect();
        format!(
            "pack `{pack_name}` is not on the pack path (packs there: {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )
    })?;
    let loaded = composer.load(&candidate).map_err(|errors| {
        let lines: Vec<String> = errors
            .iter()
            .map(|l| {
                format!(
                    "{}:{}:{}: {} {}",
                    l.file.as_deref().unwrap_or("?"),
                    l.diagnostic.line,
                    l.diagnostic.column,
                    l.diagnostic.code,
                    l.diagnostic.message
                )
            })
            .collect();
        format!(
            "pack {}@{} does not load:\n{}",
            candidate.name,
            candidate.version,
            lines.join("\n")
        )
    })?;
    let (rules, _) = primgraph::pack_rules::effective::rules_of(&loaded);
    match rules
        .iter()
        .find(|r| r.code.as_str().eq_ignore_ascii_case(&args.code))
    {
        Some(rule) => Ok(rule.describe(&loaded)),
        None => {
            let ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
            Err(format!(
                "pack {} has no valid rule `{}` (its rules: {})",
                loaded.label(),
                args.code.split_once('/').map_or("", |(_, r)| r),
                if ids.is_empty() {
                    "none".to_string()
                } else {
                    ids.join(", ")
                }
            ))
        }
    }
}
