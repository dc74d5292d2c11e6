//! `primgraph explain CODE`: prints the documentation of a diagnostic code — the `//!` header of
//! the file that implements it. Exit 2 with the list of known codes when the code is unknown.

use primgraph::diagnostic::CodeDoc;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// A diagnostic code, e.g. A402.
    pub code: String,
}

/// Every documented code: validation (G, R, S, T, A), registry lint (L), replay (D) and
/// registry diff (V).
pub fn all_docs() -> Vec<&'static CodeDoc> {
    let mut docs: Vec<&'static CodeDoc> = primgraph::rules::code_docs().iter().collect();
    docs.extend(primgraph::registry::CODE_DOCS.iter());
    docs.extend(primgraph::replay::CODE_DOCS.iter());
    docs.extend(primgraph::registry::diff::CODE_DOCS.iter());
    docs
}

pub fn run(args: ExplainArgs) -> ExitCode {
    let docs = all_docs();
    match docs
        .iter()
        .find(|d| d.code.eq_ignore_ascii_case(&args.code))
    {
        Some(doc) => {
            print!("{}", doc.doc);
            ExitCode::SUCCESS
        }
        None => {
            let known: Vec<&str> = docs.iter().map(|d| d.code).collect();
            super::usage_error(format!(
                "unknown code `{}`; known codes: {}",
                args.code,
                known.join(", ")
            ))
        }
    }
}
