//! `primgraph import FORMAT SOURCE… --graph G [--map MAP.toml] --out DIR [--sign KEY]
//! [--format human|json|github]` (SPEC §10): runs recorded by Inspect AI, OpenTelemetry or the
//! OpenAI Agents SDK written as traces, one per run, with the I901–I904 findings located by file,
//! zip entry, sample and pointer, and a summary. Exit 0 when every source was read (warnings
//! allowed), 1 when an I901 error was found, 2 when the command could not run.

use primgraph::diagnostic::{github, visible};
use primgraph::import::{
    DEFAULT_MAX_ENTRY_BYTES, Format, ImportOptions, ImportReport, Mapping, collect_sources,
    import_paths,
};
use primgraph::replay::SealKey;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SourceFormat {
    /// Inspect AI logs: `.eval` (zip) or `.json`.
    Inspect,
    /// OTLP/JSON span files (GenAI semantic conventions).
    Otel,
    /// OpenAI Agents SDK exported traces.
    OpenaiAgents,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// One line per finding and the import's summary, for a terminal.
    Human,
    /// One JSON document: the findings with their locations and the summary.
    Json,
    /// GitHub Actions workflow commands: one annotation per finding, at its source file.
    Github,
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The source format.
    #[arg(value_enum)]
    pub source_format: SourceFormat,
    /// Source files, or folders (searched recursively for `.eval`/`.json` logs, `.json`/`.jsonl`
    /// span files).
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// The graph the runs are mapped onto.
    #[arg(long)]
    pub graph: PathBuf,
    /// The mapping file (TOML: `[tools]`, `[outcomes]`, `[errors]`, `[evidence]`, `[final]`,
    /// `[end]`).
    #[arg(long, value_name = "MAP.toml")]
    pub map: Option<PathBuf>,
    /// The folder the traces are written to (created when missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Seal every trace with this private key (proves only that it was not edited after import).
    #[arg(long, value_name = "KEY")]
    pub sign: Option<PathBuf>,
    /// How findings and the summary are printed.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// The largest inflated size of one `.eval` entry, or of one JSON source file.
    #[arg(long, default_value_t = DEFAULT_MAX_ENTRY_BYTES, value_name = "BYTES")]
    pub max_entry_bytes: u64,
}

pub fn run(args: ImportArgs) -> ExitCode {
    let format = match args.source_format {
        SourceFormat::Inspect => Format::Inspect,
        SourceFormat::Otel => Format::Otel,
        SourceFormat::OpenaiAgents => Format::OpenaiAgents,
    };
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let graph = match super::replay::load_graph(&args.graph, registry) {
        Ok(g) => g,
        Err(e) => return super::usage_error(e),
    };
    let mapping = match &args.map {
        None => Mapping::default(),
        Some(path) => {
            let text = match super::io::read_input(path, 16 << 20) {
                Ok(b) => b,
                Err(e) => return super::usage_error(e),
            };
            let text = match String::from_utf8(text) {
                Ok(t) => t,
                Err(e) => {
                    return super::usage_error(format!(
                        "{}: not UTF-8 (byte {})",
                        path.display(),
                        e.utf8_error().valid_up_to()
                    ));
                }
            };
            match Mapping::parse(&path.display().to_string(), &text, &graph) {
                Ok(m) => m,
                Err(e) => return super::usage_error(e),
            }
        }
    };
    let seal = match &args.sign {
        Some(path) => match SealKey::read(path) {
            Ok(k) => Some(k),
            Err(e) => return super::usage_error(e),
        },
        None => None,
    };
    let sources = match collect_sources(format, &args.sources) {
        Ok(s) => s,
        Err(e) => return super::usage_error(e),
    };
    let options = ImportOptions {
        registry,
        graph: &graph,
        mapping,
        out: args.out.clone(),
        seal,
        max_entry_bytes: args.max_entry_bytes,
    };
    let report = match import_paths(format, &sources, options) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let text = match args.format {
        OutputFormat::Json => {
            let mut t = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
            t.push('\n');
            t
        }
        OutputFormat::Github => render_github(&report),
        OutputFormat::Human => render_human(&report, &args.out),
    };
    super::io::print(&text);
    if report.summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn render_github(report: &ImportReport) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let mut diag = d.diagnostic.clone();
        diag.message = format!("{}: {}", d.location.describe(), diag.message);
        out.push_str(&github::annotation(&d.location.file, &diag));
        out.push('\n');
    }
    if !report.summary.unlisted.is_empty() {
        out.push_str(&format!(
            "::notice title=primgraph import::{}\n",
            github::escape_data(&unlisted_line(report))
        ));
    }
    out.push_str(&format!(
        "::notice title=primgraph import::{}\n",
        github::escape_data(&summary_line(report))
    ));
    out
}

/// The findings counted but not listed (past `DIAGNOSTICS_LISTED_PER_CODE` of one code).
fn unlisted_line(report: &ImportReport) -> String {
    let codes: Vec<String> = report
        .summary
        .unlisted
        .iter()
        .map(|(code, n)| format!("{n} {code}"))
        .collect();
    let total: u64 = report.summary.unlisted.values().sum();
    format!(
        "... and {total} more finding(s) not listed ({}): the first {} of each code are; the counts below include them all",
        codes.join(", "),
        primgraph::import::DIAGNOSTICS_LISTED_PER_CODE
    )
}

fn summary_line(report: &ImportReport) -> String {
    let s = &report.summary;
    format!(
        "imported {} run(s), {} step(s) ({} partial) from {} source(s); {} error(s), {} warning(s)",
        s.runs, s.steps, s.partial_steps, s.sources, s.errors, s.warnings
    )
}

fn render_human(report: &ImportReport, out_dir: &Path) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let diag = &d.diagnostic;
        out.push_str(&format!(
            "{}[{}]: {}\n  --> {}\n",
            diag.severity.as_str(),
            diag.code,
            visible(&diag.message),
            visible(&d.location.describe())
        ));
        if let Some(help) = &diag.help {
            out.push_str(&format!("  = help: {}\n", visible(help)));
        }
        out.push('\n');
    }
    let s = &report.summary;
    if !s.unlisted.is_empty() {
        out.push_str(&format!("{}\n\n", unlisted_line(report)));
    }
    out.push_str(&format!(
        "{} into {}\n",
        summary_line(report),
        visible(&out_dir.display().to_string())
    ));
    if !s.unmapped.is_empty() {
        let names: Vec<String> = s
            .unmapped
            .iter()
            .map(|(n, c)| format!("{} ({c})", visible(n)))
            .collect();
        out.push_str(&format!("unmapped: {}\n", names.join(", ")));
    }
    out
}
