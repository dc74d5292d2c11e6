//! G001: the file is not valid JSON.
//!
//! ## What it checks
//!
//! The graph file is a UTF-8 JSON document without a byte-order mark, not empty,
//! no deeper than the nesting limit (128 levels) and no larger than the size limit (64 MiB, fixed:
//! a larger file is refused from its size alone, without being read). The diagnostic carries the
//! line and column where parsing stopped.
//!
//! ## Why it matters
//!
//! Nothing else can be checked in a file that does not parse, and a lenient
//! parser that skips a BOM or repairs invalid UTF-8 would check something other than what the
//! runtime reads.
//!
//! ## Example
//!
//! ```text
//! {"graph": "demo", "abi": "1.0.0",
//! ```
//!
//! (the document ends inside an object).
//!
//! Fixture `tests/fixtures/rules/g001_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports G001 at line 9:
//!
//! ```text
//! "budget": {"max_steps": 100, "max_spend_usd": 4.0},
//! "input": {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]},
//! ```
//!
//! ## Fix
//!
//! Fix the syntax at the marked position.
//!
//! Does not fire:
//!
//! ```text
//! {"graph": "demo", "abi": "1.0.0", "capabilities": [], "entry": "a", "nodes": []}
//! ```
//!
//! (well-formed JSON; the shape is G003's business).
//!
//! ## Implements
//!
//! SPEC §2 (a graph is a UTF-8 JSON file) and §3.1; the code is listed in §5.

use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::json::{JsonError, JsonErrorKind};

/// The G001 diagnostic for a parse failure that is not a duplicate key.
pub fn diagnostic(error: &JsonError) -> Diagnostic {
    let (message, help) = match &error.kind {
        JsonErrorKind::Empty => (
            "the file is empty".to_string(),
            "a graph file holds one JSON object",
        ),
        JsonErrorKind::Bom => (
            "the file starts with a UTF-8 byte-order mark".to_string(),
            "save the file as UTF-8 without BOM",
        ),
        JsonErrorKind::InvalidUtf8 => (
            "the file is not valid UTF-8".to_string(),
            "graph files are UTF-8 JSON",
        ),
        JsonErrorKind::TooLarge { size, limit } => (
            format!("the file is {size} bytes, over the limit of {limit} bytes"),
            "a graph file is at most 64 MiB (a fixed limit); split the graph into smaller ones",
        ),
        JsonErrorKind::TooDeep { limit } => (
            format!("the document nests deeper than {limit} levels"),
            "graph documents are shallow; this nesting is likely a generated or hostile file",
        ),
        JsonErrorKind::Syntax { message } => (
            format!("invalid JSON: {message}"),
            "fix the syntax at the marked position",
        ),
        JsonErrorKind::DuplicateKey { key, .. } => (
            format!("duplicate object key `{key}`"),
            "remove one of the two members",
        ),
    };
    let mut d = codes::G001.at("", message).with_help(help);
    d.set_span(error.span);
    d
}
