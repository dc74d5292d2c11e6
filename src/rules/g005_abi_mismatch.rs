//! G005: `abi` not satisfied by the registry.
//!
//! What it checks: the graph's `abi` is satisfied by the registry it is checked against: same
//! major version and a minor version at least the graph's (a registry `1.2.0` satisfies a graph
//! targeting `1.0.0`; `2.0.0` or `1.0.0` does not satisfy `1.1.0`).
//!
//! Why it matters: minor versions only add primitives, so a newer minor still has every contract
//! the graph was written against; a different major may have changed them.
//!
//! Fires (against Kernel ABI 1.0.0):
//!
//! ```text
//! {"graph": "demo", "abi": "1.1.0", ...}
//! ```
//!
//! Does not fire:
//!
//! ```text
//! {"graph": "demo", "abi": "1.0.0", ...}
//! ```

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
