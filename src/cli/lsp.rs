//! `primgraph lsp [--config FILE] [--debounce-ms N]`: the Language Server Protocol server on
//! stdin/stdout (see `primgraph::lsp`). Exit 0 after `shutdown` then `exit`; 1 when the client
//! exits without `shutdown` or closes the stream; 2 when the server cannot start.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct LspArgs {
    /// One configuration file for every document (default: the nearest `primgraph.toml` from
    /// each document's folder upwards).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Milliseconds to wait after the last change before validating.
    #[arg(long, default_value_t = 150, value_name = "N")]
    pub debounce_ms: u64,
    /// Accepted for editors that pass it (the only transport is stdio).
    #[arg(long, hide = true)]
    pub stdio: bool,
}

pub fn run(args: LspArgs) -> ExitCode {
    let options = primgraph::lsp::ServerOptions {
        config: args.config,
        debounce: Duration::from_millis(args.debounce_ms),
        ..primgraph::lsp::ServerOptions::default()
    };
    match primgraph::lsp::serve_io(std::io::stdin(), std::io::stdout(), options) {
        Ok(primgraph::lsp::Exit::Clean) => ExitCode::SUCCESS,
        Ok(primgraph::lsp::Exit::Abrupt) => ExitCode::from(1),
        Err(e) => super::usage_error(e),
    }
}
