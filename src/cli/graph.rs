//! `primgraph graph dot|mermaid FILE [--diagnostics] [--registry FILE]` draws a graph (see
//! `primgraph::graph::render` for what the picture shows), and `primgraph graph generate --nodes N
//! --seed S` writes a synthetic graph that validates clean (`primgraph::graph::generate`).
//! Exit 0: the picture (or graph) was printed, whatever the diagnostics say; 1: the document does
//! not load (its diagnostics go to stderr); 2: the command could not run.

use primgraph::diagnostic::{self, Summary};
use primgraph::graph::render::{self, Format, RenderError};
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
    let file = args.file.display().to_string();
    let color = super::io::color_stderr();
    match render::render_source(&file, &bytes, registry, format, args.diagnostics) {
        Ok(drawing) => {
            super::io::print(&drawing.text);
            if let Some(report) = drawing.report {
                let reports = [report];
                if !reports[0].diagnostics.is_empty() {
                    eprint!("{}", diagnostic::human::render(&reports, color));
                } else {
                    eprintln!("{}", Summary::of(&reports));
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
