//! `primgraph validate` (SKELETON: filled in by the issue that owns it).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Arguments (skeleton).
    pub rest: Vec<String>,
}

pub fn run(_args: ValidateArgs) -> ExitCode {
    super::usage_error("`primgraph validate` is not built yet")
}
