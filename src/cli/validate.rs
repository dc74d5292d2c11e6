//! `primgraph validate PATH… [--format human|json|sarif] [--deny-warnings] [--registry FILE]
//! [--jobs N]`: expands the paths, checks every graph file (in parallel) and prints the reports.
//! Exit 0: no errors (warnings allowed unless `--deny-warnings`); 1: errors; 2: the command could
//! not run (usage, unreadable path, unreadable registry).

use primgraph::diagnostic::{FileReport, Severity};
use primgraph::registry::Registry;
use primgraph::validate::{Options, collect_paths, try_check_paths};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Sarif,
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
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub jobs: usize,
}

#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
struct Summary {
    files: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
}

fn summarize(reports: &[FileReport]) -> Summary {
    let mut summary = Summary {
        files: reports.len(),
        ..Summary::default()
    };
    for d in reports.iter().flat_map(|r| &r.diagnostics) {
        match d.severity {
            Severity::Error => summary.errors += 1,
            Severity::Warning => summary.warnings += 1,
            Severity::Info => summary.infos += 1,
        }
    }
    summary
}

// TODO(merge main): replace with `primgraph::diagnostic::{human, json, sarif}` once the
// diagnostics renderers land; until then every format prints the JSON document of SPEC §3.1.
fn render(reports: &[FileReport], summary: Summary, _format: Format, _color: bool) -> String {
    let document = serde_json::json!({"files": reports, "summary": summary});
    serde_json::to_string_pretty(&document).unwrap_or_default()
}

pub fn run(args: ValidateArgs) -> ExitCode {
    let owned;
    let registry: &Registry = match &args.registry {
        Some(path) => match Registry::from_path(path) {
            Ok(r) => {
                owned = r;
                &owned
            }
            Err(e) => return super::usage_error(e),
        },
        None => Registry::builtin(),
    };
    let files = match collect_paths(&args.paths) {
        Ok(files) => files,
        Err(e) => return super::usage_error(e),
    };
    let reports = match try_check_paths(&files, registry, &Options::default(), args.jobs) {
        Ok(reports) => reports,
        Err(e) => return super::usage_error(e),
    };
    let summary = summarize(&reports);
    let color = args.format == Format::Human && std::io::stdout().is_terminal();
    println!("{}", render(&reports, summary, args.format, color));
    if summary.errors > 0 || (args.deny_warnings && summary.warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
