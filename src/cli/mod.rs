//! Command-line surface: one module per subcommand, each with its clap `Args` and a `run`.
//! Exit codes: 0 clean, 1 findings, 2 the command could not run, 3 `schema check` unknown.

pub mod compare;
pub mod explain;
pub mod graph;
pub mod import;
pub mod io;
pub mod keygen;
pub mod lsp;
pub mod pack;
pub mod pack_diff;
pub mod pack_path;
pub mod registry;
pub mod replay;
pub mod report;
pub mod schema;
pub mod simulate;
pub mod validate;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "primgraph",
    version,
    about = "Validate and replay agent graphs against the Kernel ABI primitive registry"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect and lint primitive registries.
    Registry(registry::RegistryArgs),
    /// Schema compatibility.
    Schema(schema::SchemaArgs),
    /// Validate graph files and folders (recursively `*.graph.json`).
    Validate(validate::ValidateArgs),
    /// Print the documentation of a diagnostic code.
    Explain(explain::ExplainArgs),
    /// Draw a graph (dot, mermaid).
    Graph(graph::GraphArgs),
    /// Replay recorded runs against a graph.
    Replay(replay::ReplayArgs),
    /// Write one self-contained HTML report of an evaluation (optionally against a baseline).
    Report(report::ReportArgs),
    /// Write synthetic traces of a graph.
    Simulate(simulate::SimulateArgs),
    /// Write an Ed25519 key pair for sealing traces.
    Keygen(keygen::KeygenArgs),
    /// Compare two evaluations (summary files, or runs replayed first).
    Compare(compare::CompareArgs),
    /// Serve the Language Server Protocol on stdin/stdout, for editors.
    Lsp(lsp::LspArgs),
    /// Import runs recorded by Inspect AI, OpenTelemetry or the OpenAI Agents SDK as traces.
    Import(import::ImportArgs),
    /// Packs (SPEC §9): lock, sign, show, lint, test and diff.
    Pack(pack::PackArgs),
}

pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Registry(a) => registry::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Graph(a) => graph::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Report(a) => report::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Keygen(a) => keygen::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Lsp(a) => lsp::run(a),
        Command::Import(a) => import::run(a),
        Command::Pack(a) => pack::run(a),
    }
}

/// Exit code 2: the command itself could not run.
pub fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// The registry a command runs on: the embedded Kernel ABI 1.0.0, or the file given with
/// `--registry` (kept for the rest of the process, which is short-lived).
pub fn load_registry(
    path: &Option<std::path::PathBuf>,
) -> Result<&'static primgraph::registry::Registry, String> {
    use primgraph::registry::Registry;
    match path {
        None => Ok(Registry::builtin()),
        Some(p) => Registry::from_path(p)
            .map(|r| &*Box::leak(Box::new(r)))
            .map_err(|e| e.to_string()),
    }
}
