//! `primgraph schema check SOURCE.json TARGET.json [--format human|json]` (SPEC §3.2): reads the
//! two schema files, asks the library's checker whether source ⊆ target, and prints the verdict.
//! Exit 0 yes, 1 no, 3 unknown, 2 unusable input.

use std::process::ExitCode;

use primgraph::schema::{Checker, Decision, Side};

#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    #[command(subcommand)]
    pub command: SchemaCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum SchemaCommand {
    /// Does every value SOURCE admits satisfy TARGET? (yes / no with a witness / unknown)
    Check(CheckArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The verdict in words, with the witness or the reason.
    Human,
    /// The verdict as one JSON document.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The schema of the values that flow (an upstream output).
    pub source: std::path::PathBuf,
    /// The schema they must satisfy (a downstream input).
    pub target: std::path::PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
}

pub fn run(args: SchemaArgs) -> ExitCode {
    match args.command {
        SchemaCommand::Check(args) => check(args),
    }
}

fn read(path: &std::path::Path) -> Result<SchemaFile, String> {
    let shown = path.display().to_string();
    let bytes = super::io::read_input(path, primgraph::json::Limits::default().max_bytes)?;
    SchemaFile::parse(&shown, &bytes).map_err(|e| format!("{e}"))
}

fn check(args: CheckArgs) -> ExitCode {
    let (source, target) = match (read(&args.source), read(&args.target)) {
        (Ok(source), Ok(target)) => (source, target),
        (Err(error), _) | (_, Err(error)) => return super::usage_error(error),
    };
    let decision = match Checker::new().check(&source.parsed.value, &target.parsed.value) {
        Ok(decision) => decision,
        Err(error) => {
            let file = match error.side() {
                Side::Source => &source,
                Side::Target => &target,
            };
            return super::usage_error(format!("{}: {error}", file.locate(error.pointer())));
        }
    };
    for (file, side) in [(&source, "source"), (&target, "target")] {
        let ignored = primgraph::schema::ignored_annotations(&file.parsed.value);
        if !ignored.is_empty() {
            let shown: Vec<String> = ignored
                .iter()
                .take(8)
                .map(|(keyword, pointer)| format!("`{keyword}` at #{pointer}"))
                .collect();
            let more = ignored.len().saturating_sub(shown.len());
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            eprintln!(
                "note: the {side} schema's keywords {}{more} are not Draft 2020-12 keywords; \
                 they are annotations and were ignored, as a validator ignores them",
                shown.join(", ")
            );
        }
    }
    match args.format {
        Format::Json => super::io::println(&decision.to_document().to_string()),
        Format::Human => print_human(&decision),
    }
    match decision {
        Decision::Yes { .. } => ExitCode::SUCCESS,
        Decision::No { .. } => ExitCode::from(1),
        Decision::Unknown { .. } => ExitCode::from(3),
    }
}

fn print_human(decision: &Decision) {
    match decision {
        Decision::Yes { reason } => super::io::println(&format!("compatible: {reason}")),
        Decision::No { witness, reason } => {
            super::io::println(&format!("incompatible: {reason}"));
            let shown =
                serde_json::to_string_pretty(witness).unwrap_or_else(|_| witness.to_string());
            super::io::println("witness (admitted by the source, rejected by the target):");
            for line in shown.lines() {
                super::io::println(&format!("  {line}"));
            }
        }
        Decision::Unknown { reason } => super::io::println(&format!("unknown: {reason}")),
    }
}

/// A schema file that could not be read as JSON, located in the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}:{line}:{column}: {message}")]
pub struct SchemaFileError {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// A schema file parsed with the spanned JSON parser, so that pointers into it can be located.
pub struct SchemaFile {
    pub path: String,
    pub parsed: primgraph::json::Parsed,
}

impl SchemaFile {
    /// Parse `bytes` (the contents of `path`) as a JSON document.
    pub fn parse(path: &str, bytes: &[u8]) -> Result<Self, SchemaFileError> {
        match primgraph::json::parse(bytes, &primgraph::json::Limits::default()) {
            Ok(parsed) => Ok(SchemaFile {
                path: path.to_string(),
                parsed,
            }),
            Err(error) => Err(SchemaFileError {
                path: path.to_string(),
                line: error.span.line,
                column: error.span.column,
                message: match &error.kind {
                    primgraph::json::JsonErrorKind::Syntax { message } => message.clone(),
                    other => other.to_string(),
                },
            }),
        }
    }

    /// `path:line:column` of the value at `pointer` when the parser knows it, else `path`.
    pub fn locate(&self, pointer: &str) -> String {
        match self.parsed.locate(pointer) {
            Some(span) if span.line > 0 => format!("{}:{}:{}", self.path, span.line, span.column),
            _ => self.path.clone(),
        }
    }
}
