//! `primgraph explain` (SKELETON: filled in by the issue that owns it).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// Arguments (skeleton).
    pub rest: Vec<String>,
}

pub fn run(_args: ExplainArgs) -> ExitCode {
    super::usage_error("`primgraph explain` is not built yet")
}
