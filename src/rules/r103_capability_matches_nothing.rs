//! R103: capability pattern matches no primitive (warning).
//!
//! ## What it checks
//!
//! Every entry of `capabilities` — an exact dotted ID, an alias, or a `prefix.*`
//! pattern — matches at least one primitive of the registry.
//!
//! ## Why it matters
//!
//! A pattern that matches nothing is a typo or a stale entry; the author meant to
//! allow something and the boundary does not say what.
//!
//! ## Example
//!
//! ```text
//! "capabilities": ["obs.*", "mut.aply_patch"]
//! ```
//!
//! Fixture `tests/fixtures/rules/r103_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports R103 at line 6:
//!
//! ```json
//! "capabilities": ["intake.*", "loc.localize_failure", "synth.patch", "ctl.authorize_patch", "mut.apply_patch", "ver.*", "stop.finish_or_retry", "done.*", "net.*"],
//! ```
//!
//! ## Fix
//!
//! Use an exact ID, an alias, or `prefix.*` with a family prefix.
//!
//! Does not fire:
//!
//! ```text
//! "capabilities": ["obs.*", "mut.apply_patch"]
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`capabilities`: exact IDs, aliases, or `prefix.*`); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::registry::{Primitive, Registry};

/// Whether capability `pattern` admits primitive `prim`.
pub fn admits(registry: &Registry, pattern: &str, prim: &Primitive) -> bool {
    if let Some(prefix) = pattern.strip_suffix(".*") {
        return prim
            .id
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.'));
    }
    pattern == prim.id
        || pattern == prim.alias
        || registry.lookup(pattern).is_some_and(|p| p.id == prim.id)
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, pattern) in cx.doc.capabilities.iter().enumerate() {
        let matches = cx
            .registry
            .primitives()
            .iter()
            .any(|p| admits(cx.registry, pattern, p));
        if !matches {
            out.push(codes::R103.at(
                format!("/capabilities/{i}"),
                format!("capability `{pattern}` matches no primitive"),
            ));
        }
    }
}
