//! `primgraph graph dot|mermaid FILE [--diagnostics] [--registry FILE] [--pack DIR]…` draws a
//! graph, expanded when it uses fragments, each use a labelled cluster (see
//! `primgraph::graph::render` for what the picture shows), and `primgraph graph generate --nodes N
//! --seed S` writes a synthetic graph that validates clean (`primgraph::graph::generate`), and
//! `primgraph graph diff OLD NEW [--runs PATH…] [--pack DIR]… [--old-pack DIR]…` compares two
//! versions, each expanded when it uses fragments (SPEC §6.2, §9.3,
//! `primgraph::versions::graph_diff`; exit 0 no regression, 1 NEW introduces an error or breaks a run
//! faithful under OLD, 2 either graph does not load).
//! `primgraph graph expand FILE [--pack DIR]…` prints the expanded document (SPEC §9.3).
//! Exit 0: the picture (or graph) was printed, whatever the diagnostics say; 1: the document does
//! not load (its diagnostics go to stderr); 2: the command could not run.

use primgraph::diagnostic::{self, Tally};
use primgraph::graph::render::Format;
use primgraph::validate::RenderError;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    #[command(subcommand)]
    pub command: GraphCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum GraphCommand {
    /// Draw a graph as Graphviz DOT.
    Dot(DrawArgs),
    /// Draw a graph as a Mermaid flowchart.
    Mermaid(DrawArgs),
    /// Write a synthetic graph that validates clean against the registry.
    Generate(GenerateArgs),
    /// Compare two versions of a graph: structure, input schema, findings, and recorded runs.
    Diff(DiffArgs),
    /// Print the expanded graph: every fragment use replaced by the fragment's nodes (SPEC §9.3).
    Expand(ExpandArgs),
}

#[derive(Debug, clap::Args)]
pub struct ExpandArgs {
    /// The graph file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// A pack, or a folder whose sub-folders are packs (repeatable): the pack path.
    #[arg(long = "pack", value_name = "DIR")]
    pub packs: Vec<PathBuf>,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// Text for a terminal: each change with its old → new values and both locations.
    Human,
    /// The SPEC §6.2 document (each change also carries `values`: its fields' old and new).
    Json,
    /// Tables for a pull-request comment.
    Markdown,
}

#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The old version of the graph.
    #[arg(value_name = "OLD")]
    pub old: PathBuf,
    /// The new version of the graph.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Trace files and folders (recursively `*.trace.jsonl`) to replay against both versions.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub runs: Vec<PathBuf>,
    /// Replay threads (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: DiffFormat,
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
    /// The pack path OLD is read with, instead of `--pack` (repeatable): compare a fragment's
    /// two versions with the graph unchanged (`--old-pack v1/ --pack v2/`).
    #[arg(long = "old-pack", value_name = "DIR")]
    pub old_pack: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct DrawArgs {
    /// The graph file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Validate first and draw the offending nodes and witness paths in red (errors) or orange
    /// (warnings); the summary goes to stderr.
    #[arg(long)]
    pub diagnostics: bool,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// About how many nodes (at least the smallest realistic shape).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub nodes: usize,
    /// The seed: the same seed and size give the same graph.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,
    /// Write the graph to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
}

pub fn run(args: GraphArgs) -> ExitCode {
    match args.command {
        GraphCommand::Dot(a) => draw(a, Format::Dot),
        GraphCommand::Mermaid(a) => draw(a, Format::Mermaid),
        GraphCommand::Generate(a) => generate(a),
        GraphCommand::Diff(a) => diff(a),
        GraphCommand::Expand(a) => expand(a),
    }
}

/// `graph expand`: exit 0 and the expanded document on stdout; 1 when the graph does not expand
/// (its findings on stderr); 2 when the command could not run.
fn expand(args: ExpandArgs) -> ExitCode {
    use primgraph::pack::compose::{Base, Composer, ComposerOptions};
    use primgraph::pack::path::PackPath;
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let base = match &args.registry {
        None => Base::Builtin,
        Some(path) => match primgraph::registry::Registry::from_path(path) {
            Ok(r) => Base::Loaded(std::sync::Arc::new(r)),
            Err(e) => return super::usage_error(e),
        },
    };
    let bytes =
        match super::io::read_input(&args.file, primgraph::json::Limits::default().max_bytes) {
            Ok(b) => b,
            Err(e) => return super::usage_error(e),
        };
    let options = primgraph::validate::Options {
        packs: Some(std::sync::Arc::new(Composer::new(
            base,
            PackPath::scan(&args.packs),
            ComposerOptions::default(),
        ))),
        ..Default::default()
    };
    let file = args.file.display().to_string();
    match primgraph::validate::expand_source(&file, &bytes, registry, &options) {
        Ok(value) => {
            let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
            super::io::print(&text);
            ExitCode::SUCCESS
        }
        Err(report) => {
            eprint!(
                "{}",
                diagnostic::human::render(&[report], super::io::color_stderr())
            );
            eprintln!("error: {file} does not expand: nothing to print");
            ExitCode::from(1)
        }
    }
}

/// One version read, loaded for replay (refused when it does not load: exit 2), validated, and
/// parsed with spans for the report's line numbers.
struct LoadedVersion {
    file: String,
    graph: primgraph::replay::ReplayGraph,
    parsed: Option<primgraph::json::Parsed>,
    diagnostics: Vec<primgraph::diagnostic::Diagnostic>,
    /// The expansion, when the graph uses fragments (SPEC §9.3): the diff compares expansions.
    expansion: Option<primgraph::pack::fragment_expand::Expansion>,
}

fn load_version(
    path: &std::path::Path,
    registry: &primgraph::registry::Registry,
    options: &primgraph::validate::Options,
) -> Result<LoadedVersion, String> {
    let file = path.display().to_string();
    let bytes = super::io::read_input(path, primgraph::json::Limits::default().max_bytes)?;
    // A version that declares packs is read against their effective registry (SPEC §9.2).
    let graph = primgraph::replay::ReplayGraph::load_with(&file, &bytes, registry, options)
        .map_err(|e| e.located(&file))?;
    let report = primgraph::validate::check_source(&file, &bytes, registry, options);
    let (parsed, expansion) =
        match primgraph::validate::expansion_source(&file, &bytes, registry, options) {
            Ok((parsed, expansion)) => (Some(parsed), expansion),
            Err(_) => (None, None),
        };
    Ok(LoadedVersion {
        file,
        graph,
        parsed,
        diagnostics: report.diagnostics,
        expansion,
    })
}

fn diff(args: DiffArgs) -> ExitCode {
    use primgraph::replay::{ReplayOptions, Replayer};
    use primgraph::versions::graph_diff::{GraphDiff, RunsDiff, Version};
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let options = match args.packs.discover(registry) {
        Ok(packs) => primgraph::validate::Options {
            packs,
            ..Default::default()
        },
        Err(e) => return super::usage_error(e),
    };
    let old_options = if args.old_pack.is_empty() {
        options.clone()
    } else {
        let old_args = super::pack_path::PackArgs {
            pack: args.old_pack.clone(),
            ..args.packs.clone()
        };
        match old_args.discover(registry) {
            Ok(packs) => primgraph::validate::Options {
                packs,
                ..Default::default()
            },
            Err(e) => return super::usage_error(e),
        }
    };
    let (old, new) = match (
        load_version(&args.old, registry, &old_options),
        load_version(&args.new, registry, &options),
    ) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return super::usage_error(e),
    };
    let runs = if args.runs.is_empty() {
        None
    } else {
        let files = match primgraph::replay::corpus::collect_traces(&args.runs) {
            Ok(f) => f,
            Err(e) => return super::usage_error(e),
        };
        let jobs = args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        // Each version replays against its own effective registry.
        let a = Replayer::new(
            old.graph.registry(registry),
            old.graph.clone(),
            ReplayOptions::default(),
        );
        let b = Replayer::new(
            new.graph.registry(registry),
            new.graph.clone(),
            ReplayOptions::default(),
        );
        // Progress on stderr, only on a terminal (never in a pipe or a CI log).
        let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) && files.len() > 1 {
            super::replay::progress_bar(
                files.len() as u64,
                indicatif::ProgressDrawTarget::stderr_with_hz(10),
            )
        } else {
            indicatif::ProgressBar::hidden()
        };
        let pairs = match primgraph::replay::pair::replay_pair_corpus_with_progress(
            &a,
            &b,
            &files,
            jobs,
            &|| bar.inc(1),
        ) {
            Ok(p) => p,
            Err(e) => return super::usage_error(e),
        };
        bar.finish_and_clear();
        let mut runs = RunsDiff::default();
        for (o, n) in &pairs {
            runs.add(o, n);
        }
        Some(runs)
    };
    fn version(v: &LoadedVersion) -> Version<'_> {
        Version {
            file: &v.file,
            doc: &v.graph.doc,
            digest: &v.graph.digest,
            parsed: v.parsed.as_ref(),
            diagnostics: &v.diagnostics,
            expansion: v.expansion.as_ref(),
        }
    }
    // Contracts are read as NEW's effective registry has them (the base one without packs).
    let report = GraphDiff::new(
        new.graph.registry(registry),
        &version(&old),
        &version(&new),
        runs,
    );
    let text = match args.format {
        DiffFormat::Human => report.render_human(),
        DiffFormat::Markdown => report.render_markdown(),
        DiffFormat::Json => {
            serde_json::to_string_pretty(&report.to_json()).unwrap_or_default() + "\n"
        }
    };
    print!("{text}");
    if report.is_regression() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn draw(args: DrawArgs, format: Format) -> ExitCode {
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let bytes =
        match super::io::read_input(&args.file, primgraph::json::Limits::default().max_bytes) {
            Ok(b) => b,
            Err(e) => return super::usage_error(e),
        };
    let options = match args.packs.discover(registry) {
        Ok(packs) => primgraph::validate::Options {
            packs,
            ..Default::default()
        },
        Err(e) => return super::usage_error(e),
    };
    let file = args.file.display().to_string();
    let color = super::io::color_stderr();
    match primgraph::validate::render_source_with(
        &file,
        &bytes,
        registry,
        &options,
        format,
        args.diagnostics,
    ) {
        Ok(drawing) => {
            super::io::print(&drawing.text);
            if let Some(report) = drawing.report {
                let reports = [report];
                if !reports[0].diagnostics.is_empty() {
                    eprint!("{}", diagnostic::human::render(&reports, color));
                } else {
                    eprintln!("{}", Tally::of(&reports));
                }
            }
            ExitCode::SUCCESS
        }
        Err(RenderError::NotLoadable { report }) => {
            eprint!("{}", diagnostic::human::render(&[report], color));
            eprintln!("error: {file} does not load as a graph: nothing to draw");
            ExitCode::from(1)
        }
    }
}

fn generate(args: GenerateArgs) -> ExitCode {
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let value = match primgraph::graph::generate::generate(args.nodes, args.seed, registry) {
        Ok(v) => v,
        Err(e) => return super::usage_error(e),
    };
    let text = match serde_json::to_string_pretty(&value) {
        Ok(t) => t + "\n",
        Err(e) => return super::usage_error(e),
    };
    match args.out {
        Some(path) => match std::fs::write(&path, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => super::usage_error(format!("cannot write {}: {e}", path.display())),
        },
        None => {
            super::io::print(&text);
            ExitCode::SUCCESS
        }
    }
}
