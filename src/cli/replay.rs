//! `primgraph replay` (SKELETON: filled in by the issue that owns it).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// Arguments (skeleton).
    pub rest: Vec<String>,
}

pub fn run(_args: ReplayArgs) -> ExitCode {
    super::usage_error("`primgraph replay` is not built yet")
}
