//! G005: `abi` not satisfied by the registry.
//!
//! ## What it checks
//!
//! The graph's `abi` is satisfied by the registry it is checked against: same
//! major version and a minor version at least the graph's (a registry `1.2.0` satisfies a graph
//! targeting `1.0.0`; `2.0.0` or `1.0.0` does not satisfy `1.1.0`).
//!
//! ## Why it matters
//!
//! Minor versions only add primitives, so a newer minor still has every contract
//! the graph was written against; a different major may have changed them.
//!
//! ## Example
//!
//! (against Kernel ABI 1.0.0.)
//!
//! ```text
//! {"graph": "demo", "abi": "1.1.0", ...}
//! ```
//!
//! Fixture `tests/fixtures/rules/g005_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports G005 at line 4:
//!
//! ```json
//! "abi": "1.1.0",
//! ```
//!
//! ## Fix
//!
//! A registry satisfies a graph with the same major and a minor at least the graph's; pass --registry FILE for another registry.
//!
//! Does not fire:
//!
//! ```text
//! {"graph": "demo", "abi": "1.0.0", ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`abi`: same major, minor at least); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::graph::load::parse_version;

/// Whether a registry of version `registry` satisfies a graph targeting `graph`.
pub fn satisfies(registry: &str, graph: &str) -> bool {
    match (parse_version(registry), parse_version(graph)) {
        (Some((rmaj, rmin, _)), Some((gmaj, gmin, _))) => rmaj == gmaj && rmin >= gmin,
        _ => false,
    }
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let registry = cx.registry.abi();
    if !satisfies(registry, &cx.doc.abi) {
        out.push(codes::G005.at(
            "/abi",
            format!(
                "the graph targets ABI {} but the registry is ABI {registry}",
                cx.doc.abi
            ),
        ));
    }
}
