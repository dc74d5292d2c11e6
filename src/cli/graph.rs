//! `primgraph graph` (SKELETON: filled in by the issue that owns it).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    /// Arguments (skeleton).
    pub rest: Vec<String>,
}

pub fn run(_args: GraphArgs) -> ExitCode {
    super::usage_error("`primgraph graph` is not built yet")
}
