//! `primgraph registry`: `list` (a table or a stable JSON array, filtered by family and class),
//! `show ID|ALIAS` (a primitive's whole contract), `lint [FILE]` (the §1.3 invariants, L501–L510),
//! `diff OLD NEW` (two registry versions compared, SPEC §6.1: V701–V720, the required bump, and
//! with `--graphs` the graph-aware gate).
//! Exit codes: 0 clean, 1 findings (lint, diff) or an unknown primitive (show), 2 unusable input.

use primgraph::diagnostic::{self, FileReport};
use primgraph::pack::compose::Composition;
use primgraph::registry::{self, Class, Filter, LintError, Primitive, Registry};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Debug, clap::Args)]
pub struct RegistryArgs {
    #[command(subcommand)]
    pub command: RegistryCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum RegistryCommand {
    /// List the primitives: id, alias, family, class, authority.
    List(ListArgs),
    /// Show one primitive's whole contract, by dotted ID or alias.
    Show(ShowArgs),
    /// Check a registry file against the invariants of SPEC §1.3 (L501–L510).
    Lint(LintArgs),
    /// Compare two registry versions (SPEC §6.1): every difference V701–V720, the semver bump
    /// it requires, and with `--graphs` the graphs it breaks.
    Diff(DiffArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// rustc-style findings in both files, then the required bump.
    Human,
    /// The SPEC §6.1 document.
    Json,
    /// SARIF 2.1.0 with NEW's file as the artifact (code scanning).
    Sarif,
    /// A table for a pull-request comment.
    Markdown,
    /// GitHub Actions workflow commands, one per finding.
    Github,
}

#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The old registry file, or `builtin` for the embedded Kernel ABI 1.0.0.
    pub old: String,
    /// The new registry file, or `builtin`.
    pub new: String,
    /// Graph files or folders (recursively `*.graph.json`) to validate under OLD and NEW (V719).
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub graphs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: DiffFormat,
    /// Treat warnings as errors for the exit code.
    #[arg(long)]
    pub deny_warnings: bool,
    /// The pack path of the graphs `--graphs` checks: each side's composer is built over that
    /// side's registry (SPEC §9.2).
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// One primitive a line: ID, alias, family, class, authority.
    Table,
    /// A JSON array of one object per primitive: `id`, `alias`, `family`, `class`, `authority`
    /// (and `pack` for a pack's primitive); `registry show KEY --format json` prints a whole
    /// contract.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Readable text.
    Human,
    /// JSON (a contract, or SPEC §3.1 diagnostics).
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Only this family (by name, e.g. `observation`).
    #[arg(long)]
    pub family: Option<String>,
    /// Only this class (e.g. `s1_decision`).
    #[arg(long)]
    pub class: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ListFormat,
    /// Another registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Also the primitives of the packs on the pack path (SPEC §9.2; each pack's highest
    /// version, or the locked one).
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Dotted ID (`obs.list_files`) or alias (`LIST_FILES`).
    pub key: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: OutputFormat,
    /// Another registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Also the primitives of the packs on the pack path (SPEC §9.2; each pack's highest
    /// version, or the locked one).
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// The registry file (default: the embedded Kernel ABI 1.0.0).
    pub file: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: OutputFormat,
}

pub fn run(args: RegistryArgs) -> ExitCode {
    match args.command {
        RegistryCommand::List(a) => list(a),
        RegistryCommand::Show(a) => show(a),
        RegistryCommand::Lint(a) => lint(a),
        RegistryCommand::Diff(a) => diff(a),
    }
}

enum Loaded {
    Builtin(&'static Registry),
    /// The base registry and every pack on the pack path.
    Composed(Arc<Composition>),
}

impl Loaded {
    fn get(&self) -> &Registry {
        match self {
            Loaded::Builtin(r) => r,
            Loaded::Composed(c) => &c.registry,
        }
    }

    /// The pack a primitive comes from, when it comes from one.
    fn pack_of(&self, p: &Primitive) -> Option<&primgraph::pack::Pack> {
        match self {
            Loaded::Composed(c) => c.pack_of(p.index).map(|p| &**p),
            _ => None,
        }
    }
}

/// The registry with every pack on the pack path (each name's highest version, or the locked
/// one), when a pack path is given.
fn load_with_packs(
    path: &Option<PathBuf>,
    packs: &super::pack_path::PackArgs,
) -> Result<Loaded, ExitCode> {
    let base = super::load_registry(path).map_err(super::usage_error)?;
    let Some(composer) = packs.discover(base).map_err(super::usage_error)? else {
        return Ok(Loaded::Builtin(base));
    };
    let mut names: Vec<String> = composer.path().names().map(str::to_string).collect();
    if let Some(lock) = composer.lock() {
        names.extend(lock.packs.iter().map(|p| p.name.clone()));
    }
    names.sort();
    names.dedup();
    let requests: Vec<(String, primgraph::pack::Range)> = names
        .into_iter()
        .map(|name| {
            let pointer = format!("/packs/{name}");
            (
                name,
                primgraph::pack::Range {
                    text: "*".into(),
                    req: primgraph::pack::VersionReq::STAR,
                    pointer,
                },
            )
        })
        .collect();
    composer
        .compose("(the pack path)", &requests)
        .map(Loaded::Composed)
        .map_err(|errors| {
            let lines: Vec<String> = errors
                .iter()
                .map(|l| {
                    format!(
                        "{}:{}:{}: {} {}",
                        l.file.as_deref().unwrap_or("(the pack path)"),
                        l.diagnostic.line,
                        l.diagnostic.column,
                        l.diagnostic.code,
                        l.diagnostic.message
                    )
                })
                .collect();
            super::usage_error(format!(
                "the packs on the pack path do not compose:\n{}",
                lines.join("\n")
            ))
        })
}

fn list(args: ListArgs) -> ExitCode {
    let loaded = match load_with_packs(&args.registry, &args.packs) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let registry = loaded.get();
    let class = match args.class.as_deref().map(|c| (c, Class::parse(c))) {
        Some((name, None)) => {
            let known: Vec<&str> = Class::ALL.iter().map(|c| c.as_str()).collect();
            return super::usage_error(format!(
                "unknown class `{name}` (one of {})",
                known.join(", ")
            ));
        }
        Some((_, class)) => class,
        None => None,
    };
    if let Some(family) = &args.family
        && registry.family(family).is_none()
    {
        let known: Vec<&str> = registry
            .families()
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        return super::usage_error(format!(
            "unknown family `{family}` (one of {})",
            known.join(", ")
        ));
    }
    let filter = Filter {
        family: args.family.as_deref(),
        class,
        ..Filter::default()
    };
    let rows: Vec<&Primitive> = registry.filter(&filter).collect();
    match args.format {
        ListFormat::Json => {
            let array: Vec<Value> = rows
                .iter()
                .map(|p| {
                    let mut row = json!({"id": p.id, "alias": p.alias, "family": p.family,
                           "class": p.class.as_str(), "authority": p.authority.as_str()});
                    if let Some(pack) = loaded.pack_of(p) {
                        row["pack"] = json!(pack.label());
                    }
                    row
                })
                .collect();
            super::io::println(&serde_json::to_string_pretty(&array).unwrap_or_default());
        }
        ListFormat::Table => super::io::print(&table(&rows)),
    }
    ExitCode::SUCCESS
}

fn table(rows: &[&Primitive]) -> String {
    let header = ["ID", "ALIAS", "FAMILY", "CLASS", "AUTHORITY"];
    let cells: Vec<[&str; 5]> = rows
        .iter()
        .map(|p| {
            [
                p.id.as_str(),
                p.alias.as_str(),
                p.family.as_str(),
                p.class.as_str(),
                p.authority.as_str(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(cells.iter()) {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn show(args: ShowArgs) -> ExitCode {
    let loaded = match load_with_packs(&args.registry, &args.packs) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let registry = loaded.get();
    let Some(p) = registry.lookup(&args.key) else {
        eprintln!(
            "error: no primitive `{}` in registry ABI {}",
            args.key,
            registry.abi()
        );
        // The same nearest-match suggestion as validate's R101.
        let candidates = registry
            .primitives()
            .iter()
            .flat_map(|p| [p.id.as_str(), p.alias.as_str()]);
        if let Some(hint) = primgraph::diagnostic::suggest::did_you_mean(
            &primgraph::rules::nearest(&args.key, candidates, 3),
        ) {
            eprintln!("help: {hint}");
        }
        return ExitCode::from(1);
    };
    match args.format {
        OutputFormat::Json => {
            super::io::println(&serde_json::to_string_pretty(p).unwrap_or_default());
        }
        OutputFormat::Human => {
            let mut text = describe(p);
            if let Some(pack) = loaded.pack_of(p) {
                let pointer = pack
                    .primitive(&p.id)
                    .map(|q| q.pointer.clone())
                    .unwrap_or_default();
                let span = pack.source.locate_nearest(&pointer);
                text.push_str(&format!(
                    "pack: {} ({}:{}:{}, {pointer})\n",
                    pack.label(),
                    pack.manifest,
                    span.line,
                    span.column
                ));
            }
            super::io::print(&text)
        }
    }
    ExitCode::SUCCESS
}

fn list_or(items: &[String], none: &str) -> String {
    if items.is_empty() {
        none.to_string()
    } else {
        items.join(", ")
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

fn describe(p: &Primitive) -> String {
    let effects: Vec<String> = p.effects.iter().map(|e| e.as_str().to_string()).collect();
    let mut s = String::new();
    s.push_str(&format!("{} ({})\n", p.id, p.alias));
    s.push_str(&format!("  {}\n\n", p.summary));
    let rows = [
        ("family", p.family.clone()),
        ("class", p.class.as_str().to_string()),
        ("authority", p.authority.as_str().to_string()),
        (
            "outcomes",
            p.outcomes
                .as_deref()
                .map_or_else(|| "none".to_string(), |o| list_or(o, "none")),
        ),
        ("grants", list_or(&p.grants, "none")),
        ("effects", list_or(&effects, "none")),
        ("evidence", list_or(&p.evidence, "none")),
        ("failure modes", list_or(&p.failure_modes, "none")),
        (
            "fallback",
            p.fallback.clone().unwrap_or_else(|| "none".to_string()),
        ),
        (
            "evaluation",
            format!("{} (metric: {})", p.evaluation.method, p.evaluation.metric),
        ),
        (
            "requires authorization",
            p.requires_authorization.to_string(),
        ),
        ("requires verifier", p.requires_verifier.to_string()),
        ("terminal", p.terminal.to_string()),
    ];
    for (name, value) in rows {
        s.push_str(&format!("{:<24}{value}\n", format!("{name}:")));
    }
    for (name, schema) in [("inputs", &*p.inputs), ("outputs", &*p.outputs)] {
        s.push_str(&format!("\n{name}:\n"));
        s.push_str(&indent(
            &serde_json::to_string_pretty(schema).unwrap_or_default(),
        ));
    }
    s
}

fn lint(args: LintArgs) -> ExitCode {
    let (file, bytes) = match &args.file {
        None => (
            "<builtin kernel-abi-1.0.0.json>".to_string(),
            registry::BUILTIN_JSON.as_bytes().to_vec(),
        ),
        Some(path) => {
            let file = path.display().to_string();
            // Only a regular file, refused by its size before it is read.
            match super::io::read_input(path, registry::LIMITS.max_bytes) {
                Ok(bytes) => (file, bytes),
                Err(e) => return super::usage_error(e),
            }
        }
    };
    let diagnostics = match registry::lint_source(&bytes) {
        Ok(d) => d,
        Err(e) => {
            let (line, column) = e.location();
            // The location is given once, in front; the reason follows without it.
            let what = match &e {
                LintError::Json(json) => format!("not a JSON document: {}", json.kind),
                _ => format!("not a registry: {e}"),
            };
            return super::usage_error(format!("{file}:{line}:{column}: {what}"));
        }
    };
    let clean = diagnostics.is_empty();
    let report = FileReport {
        file,
        graph: None,
        diagnostics,
        source: Arc::from(String::from_utf8_lossy(&bytes).as_ref()),
    };
    let reports = [report];
    match args.format {
        OutputFormat::Json => super::io::println(&diagnostic::json::render(&reports)),
        OutputFormat::Human => {
            let color = super::io::color_stdout();
            super::io::print(&diagnostic::human::render(&reports, color));
        }
    }
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn diff(args: DiffArgs) -> ExitCode {
    use primgraph::versions::registry_diff::{self, DiffSide, SideError};
    let open = |path: &str, role: &str| {
        DiffSide::open(path).map_err(|error| {
            if let SideError::Lint(report) = &error {
                // The findings themselves, in the requested shape, then why nothing was diffed.
                let reports = std::slice::from_ref(report);
                match args.format {
                    DiffFormat::Json => print!("{}", diagnostic::json::render(reports)),
                    _ => print!("{}", diagnostic::human::render(reports, false)),
                }
                super::usage_error(format!(
                    "{role} {error}: a diff of a broken registry means nothing"
                ))
            } else {
                super::usage_error(format!("{role}: {error}"))
            }
        })
    };
    let old = match open(&args.old, "OLD") {
        Ok(side) => side,
        Err(code) => return code,
    };
    let new = match open(&args.new, "NEW") {
        Ok(side) => side,
        Err(code) => return code,
    };
    let report = if args.graphs.is_empty() {
        registry_diff::diff(&old, &new)
    } else {
        let options = match gate_options(&args) {
            Ok(o) => o,
            Err(e) => return super::usage_error(e),
        };
        match registry_diff::diff_with_graphs_on(&old, &new, &args.graphs, (&options.0, &options.1))
        {
            Ok(report) => report,
            Err(e) => return super::usage_error(e),
        }
    };
    print_diff(&report, args.format, args.deny_warnings)
}

/// The validation options of OLD's and NEW's side of `--graphs`: with a pack path (or a lock),
/// a composer over each side's registry; else none.
fn gate_options(
    args: &DiffArgs,
) -> Result<(primgraph::validate::Options, primgraph::validate::Options), String> {
    let side = |path: &str| -> Result<primgraph::validate::Options, String> {
        let registry: &'static Registry = if path == "builtin" {
            Registry::builtin()
        } else {
            super::load_registry(&Some(PathBuf::from(path)))?
        };
        Ok(primgraph::validate::Options {
            packs: args.packs.discover(registry)?,
            ..Default::default()
        })
    };
    Ok((side(&args.old)?, side(&args.new)?))
}

/// Print a registry or pack diff in `format`; exit 1 when it fails (errors, or warnings with
/// `--deny-warnings`).
pub fn print_diff(
    report: &primgraph::versions::registry_diff::RegistryDiff,
    format: DiffFormat,
    deny_warnings: bool,
) -> ExitCode {
    let output = match format {
        DiffFormat::Human => report.render_human(anstream::stdout().is_terminal()),
        DiffFormat::Json => report.render_json(),
        DiffFormat::Sarif => report.render_sarif(),
        DiffFormat::Markdown => report.render_markdown(),
        DiffFormat::Github => report.render_github(),
    };
    print!("{output}");
    if report.fails(deny_warnings) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
