//! The `primgraph` binary: parses arguments and hands each subcommand to its module in `cli/`.
//! All logic lives in the library; exit codes are decided here and in `cli/`.

#![forbid(unsafe_code)]

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::run(args)
}
