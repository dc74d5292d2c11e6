//! The replay codes D601–D618 (SPEC §5): one file per code, whose `//!` header is the code's
//! documentation (what it checks, why, an example that fires and one that does not) and whose
//! body is the check. `CODE_DOCS` serves those headers to `primgraph explain`.

pub mod d601;
pub mod d602;
pub mod d603;
pub mod d604;
pub mod d605;
pub mod d606;
pub mod d607;
pub mod d608;
pub mod d609;
pub mod d610;
pub mod d611;
pub mod d612;
pub mod d613;
pub mod d614;
pub mod d615;
pub mod d616;
pub mod d617;
pub mod d618;

use crate::diagnostic::{CodeDoc, Severity};
use std::sync::LazyLock;

const SOURCES: &[(&str, Severity, &str, &str)] = &[
    (
        "D601",
        Severity::Error,
        "trace header invalid or names another graph",
        include_str!("d601.rs"),
    ),
    (
        "D602",
        Severity::Warning,
        "graph digest differs (what-if replay)",
        include_str!("d602.rs"),
    ),
    (
        "D603",
        Severity::Error,
        "divergence: recorded node is not the one the graph selects",
        include_str!("d603.rs"),
    ),
    (
        "D604",
        Severity::Error,
        "recorded primitive differs from the node's",
        include_str!("d604.rs"),
    ),
    (
        "D605",
        Severity::Error,
        "recorded input differs from the recomputed input",
        include_str!("d605.rs"),
    ),
    (
        "D606",
        Severity::Error,
        "recorded input violates the input schema",
        include_str!("d606.rs"),
    ),
    (
        "D607",
        Severity::Error,
        "recorded output violates the output schema",
        include_str!("d607.rs"),
    ),
    (
        "D608",
        Severity::Error,
        "required evidence missing",
        include_str!("d608.rs"),
    ),
    (
        "D609",
        Severity::Error,
        "undeclared failure mode",
        include_str!("d609.rs"),
    ),
    (
        "D610",
        Severity::Error,
        "undeclared outcome",
        include_str!("d610.rs"),
    ),
    (
        "D611",
        Severity::Error,
        "`max_visits` exceeded",
        include_str!("d611.rs"),
    ),
    (
        "D612",
        Severity::Error,
        "budget exceeded",
        include_str!("d612.rs"),
    ),
    (
        "D613",
        Severity::Error,
        "authorization-requiring node entered without a recorded grant",
        include_str!("d613.rs"),
    ),
    (
        "D614",
        Severity::Error,
        "run ended at a non-terminal node, or events after the end",
        include_str!("d614.rs"),
    ),
    (
        "D615",
        Severity::Error,
        "hash chain broken",
        include_str!("d615.rs"),
    ),
    (
        "D616",
        Severity::Error,
        "malformed line",
        include_str!("d616.rs"),
    ),
    (
        "D617",
        Severity::Error,
        "`seq` out of order",
        include_str!("d617.rs"),
    ),
    (
        "D618",
        Severity::Error,
        "seal missing (with `--trust`), invalid, or by a key not trusted",
        include_str!("d618.rs"),
    ),
];
/// The `//!` header of a code file (shared with the lint and rule tables).
pub use crate::registry::lint::module_doc;

/// The help line of a replay code (SPEC §3.1: every diagnostic has one); `None` for an unknown
/// code. Each code's line lives in its own file.
pub(crate) fn help(code: &str) -> Option<&'static str> {
    Some(match code {
        "D601" => d601::HELP,
        "D602" => d602::HELP,
        "D603" => d603::HELP,
        "D604" => d604::HELP,
        "D605" => d605::HELP,
        "D606" => d606::HELP,
        "D607" => d607::HELP,
        "D608" => d608::HELP,
        "D609" => d609::HELP,
        "D610" => d610::HELP,
        "D611" => d611::HELP,
        "D612" => d612::HELP,
        "D613" => d613::HELP,
        "D614" => d614::HELP,
        "D615" => d615::HELP,
        "D616" => d616::HELP,
        "D617" => d617::HELP,
        "D618" => d618::HELP,
        _ => return None,
    })
}

/// The documentation of every replay code, in code order. (A `LazyLock` rather than a `const`:
/// stripping the `//! ` prefixes needs an allocation, which a `const` cannot make.)
pub static CODE_DOCS: LazyLock<Vec<CodeDoc>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .map(|&(code, severity, title, source)| CodeDoc {
            code,
            severity,
            title,
            doc: Box::leak(module_doc(source).into_boxed_str()),
        })
        .collect()
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_documented_with_examples() {
        assert_eq!(CODE_DOCS.len(), 18);
        for (i, d) in CODE_DOCS.iter().enumerate() {
            assert_eq!(d.code, format!("D6{:02}", i + 1));
            assert!(d.doc.starts_with(d.code), "{}", d.doc);
            assert!(d.doc.contains("What it checks"), "{}", d.code);
            assert!(d.doc.contains("Fires"), "{}", d.code);
            assert!(d.doc.contains("Does not fire"), "{}", d.code);
            assert!(!d.doc.contains("//!"), "{}", d.code);
        }
    }
}
