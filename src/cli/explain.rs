//! `primgraph explain CODE`: prints the documentation of a diagnostic code — the `//!` header of
//! the file its row of `primgraph::codes` names. Exit 2 with the list of known codes when the code is unknown.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// A diagnostic code, e.g. A402.
    pub code: String,
}

pub fn run(args: ExplainArgs) -> ExitCode {
    match primgraph::codes::find(&args.code) {
        Some(row) => {
            // Where to read or change it: the file that implements the code.
            super::io::print(&format!(
                "{}\n\nImplemented in `{}`.\n",
                row.doc().trim_end(),
                row.file
            ));
            ExitCode::SUCCESS
        }
        None => {
            let known: Vec<&str> = primgraph::codes::ALL.iter().map(|row| row.code).collect();
            super::usage_error(format!(
                "unknown code `{}`; known codes: {}",
                args.code,
                known.join(", ")
            ))
        }
    }
}
