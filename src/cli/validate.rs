//! `primgraph validate PATH… [--format human|json|sarif] [--deny-warnings] [--registry FILE]
//! [--jobs N]`: expands the paths, checks every graph file (in parallel) and prints the reports.
//! Exit 0: no errors (warnings allowed unless `--deny-warnings`); 1: errors; 2: the command could
//! not run (usage, unreadable path, unreadable registry).

use primgraph::diagnostic::{self, FileReport, Summary};
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

fn render(reports: &[FileReport], format: Format, color: bool) -> String {
    match format {
        Format::Human => diagnostic::human::render(reports, color),
        Format::Json => diagnostic::json::render(reports),
        Format::Sarif => diagnostic::sarif::render(reports, primgraph::codes::ALL),
    }
}

pub fn run(args: ValidateArgs) -> ExitCode {
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let files = match collect_paths(&args.paths) {
        Ok(files) => files,
        Err(e) => return super::usage_error(e),
    };
    let reports = match try_check_paths(&files, registry, &Options::default(), args.jobs) {
        Ok(reports) => reports,
        Err(e) => return super::usage_error(e),
    };
    let summary = Summary::of(&reports);
    let color = args.format == Format::Human && std::io::stdout().is_terminal();
    print!("{}", render(&reports, args.format, color));
    if summary.errors > 0 || (args.deny_warnings && summary.warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
