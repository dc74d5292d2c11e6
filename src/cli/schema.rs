//! `primgraph schema` (SKELETON: filled in by the issue that owns it).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Arguments (skeleton).
    pub rest: Vec<String>,
}

pub fn run(_args: SchemaArgs) -> ExitCode {
    super::usage_error("`primgraph schema` is not built yet")
}
