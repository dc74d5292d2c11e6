//! `primgraph validate PATH… [--format human|json|sarif|github] [--deny-warnings]
//! [--registry FILE] [--config FILE] [--jobs N] [--pack DIR]… [--locked] [--trust-pack KEY.pub]…`: expands the paths, drops those the
//! configuration excludes, checks every graph file (in parallel), applies the configuration's
//! severity overrides and prints the reports. The configuration is `--config`, else the nearest
//! `primgraph.toml` from the working directory upwards; `--registry` beats its `registry`.
//! Exit 0: no errors (warnings allowed unless `--deny-warnings`); 1: errors; 2: the command could
//! not run (usage, unreadable path, a path that is neither a regular file nor a folder, a folder
//! with no `*.graph.json` unless `--allow-empty`, unreadable registry, unusable configuration).

use primgraph::config::Config;
use primgraph::diagnostic::{self, FileReport, Tally};
use primgraph::validate::{Options, ValidateError, collect_paths, try_check_paths};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style diagnostics with the quoted source line.
    Human,
    /// The SPEC §3.1 document.
    Json,
    /// SARIF 2.1.0 for code scanning (the rules the results use).
    Sarif,
    /// GitHub Actions workflow commands: one annotation per diagnostic.
    Github,
}

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Graph files, or folders searched recursively for `*.graph.json`.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Treat warnings as errors for the exit code.
    #[arg(long)]
    pub deny_warnings: bool,
    /// A registry file to validate against instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// The configuration file (default: the nearest `primgraph.toml` from the working
    /// directory upwards).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Worker threads (0: one per core; at most 256).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub jobs: usize,
    /// Accept a folder that holds no `*.graph.json` (by default that is exit 2: a mistyped CI
    /// path must not pass silently).
    #[arg(long)]
    pub allow_empty: bool,
    /// Apply `primgraph.toml`'s `exclude` to files named on the command line too (by default
    /// only files found in folders are excluded: a file you name is validated). Each file so
    /// excluded is noted on stderr; when nothing is left that is exit 2 unless
    /// `--allow-empty` (the pre-commit hook passes both).
    #[arg(long)]
    pub force_exclude: bool,
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

/// The report in `format`; `pack_rules` describes the pack rules a SARIF log's results use.
fn render(
    reports: &[FileReport],
    format: Format,
    color: bool,
    pack_rules: &[diagnostic::sarif::RuleEntry],
) -> String {
    match format {
        Format::Human => diagnostic::human::render(reports, color),
        Format::Json => diagnostic::json::render(reports),
        Format::Sarif => {
            let rules = diagnostic::sarif::rules_used(reports, primgraph::codes::ALL);
            diagnostic::sarif::render_described(reports, &rules, pack_rules)
        }
        Format::Github => diagnostic::github::render_reports(reports),
    }
}

/// The configuration a run uses: `--config`, else the nearest `primgraph.toml` upwards.
pub(crate) fn load_config(explicit: &Option<PathBuf>) -> Result<Option<Config>, String> {
    match explicit {
        Some(path) => Config::load(path).map(Some).map_err(|e| e.to_string()),
        None => Config::discover_from_cwd().map_err(|e| e.to_string()),
    }
}

pub fn run(args: ValidateArgs) -> ExitCode {
    let config = match load_config(&args.config) {
        Ok(c) => c,
        Err(e) => return super::usage_error(e),
    };
    let registry_path = args
        .registry
        .clone()
        .or_else(|| config.as_ref().and_then(|c| c.registry.clone()));
    let registry = match super::load_registry(&registry_path) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let mut files = Vec::new();
    let mut excluded_named = Vec::new();
    for path in &args.paths {
        let named_file = !std::fs::metadata(path).is_ok_and(|m| m.is_dir());
        match collect_paths(std::slice::from_ref(path)) {
            Ok(found) if found.is_empty() && !args.allow_empty => {
                return super::usage_error(ValidateError::Empty(path.display().to_string()));
            }
            Ok(found) => {
                for file in found {
                    // `exclude` filters what a folder walk finds; a file named on the command
                    // line is validated unless `--force-exclude` (then it is said, never silent).
                    match &config {
                        Some(c) if c.is_excluded(&file) => {
                            if named_file && !args.force_exclude {
                                files.push(file);
                            } else if named_file {
                                excluded_named.push(file);
                            }
                        }
                        _ => files.push(file),
                    }
                }
            }
            Err(e) => return super::usage_error(e),
        }
    }
    files.sort();
    files.dedup();
    if let Some(config) = &config {
        for file in &excluded_named {
            eprintln!(
                "note: {}: excluded by `exclude` in {} (--force-exclude)",
                file.display(),
                config.file
            );
        }
    }
    if files.is_empty() && !excluded_named.is_empty() && !args.allow_empty {
        return super::usage_error(format!(
            "every file named was excluded by the configuration's `exclude` ({} file{}); pass --allow-empty to accept that",
            excluded_named.len(),
            if excluded_named.len() == 1 { "" } else { "s" }
        ));
    }
    let composer = match args.packs.composer(config.as_ref(), registry) {
        Ok(c) => c,
        Err(e) => return super::usage_error(e),
    };
    let options = Options {
        packs: composer,
        ..Options::default()
    };
    let mut reports = match try_check_paths(&files, registry, &options, super::io::jobs(args.jobs))
    {
        Ok(reports) => reports,
        Err(e) => return super::usage_error(e),
    };
    if let Some(config) = &config {
        for report in &mut reports {
            config.apply_report(report);
        }
        if let Some(composer) = &options.packs {
            super::pack_path::warn_unknown_pack_rules(config, composer);
        }
    }
    let summary = Tally::of(&reports);
    let color = args.format == Format::Human && super::io::color_stdout();
    let pack_rules = if args.format == Format::Sarif {
        super::pack_path::pack_rule_entries(&reports, options.packs.as_deref(), config.as_ref())
    } else {
        Vec::new()
    };
    super::io::print(&render(&reports, args.format, color, &pack_rules));
    if summary.errors > 0 || (args.deny_warnings && summary.warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
