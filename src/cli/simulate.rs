//! `primgraph simulate` (SKELETON: filled in by the issue that owns it).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// Arguments (skeleton).
    pub rest: Vec<String>,
}

pub fn run(_args: SimulateArgs) -> ExitCode {
    super::usage_error("`primgraph simulate` is not built yet")
}
