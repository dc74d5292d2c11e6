//! `primgraph registry` (SKELETON: filled in by the issue that owns it).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct RegistryArgs {
    /// Arguments (skeleton).
    pub rest: Vec<String>,
}

pub fn run(_args: RegistryArgs) -> ExitCode {
    super::usage_error("`primgraph registry` is not built yet")
}
