//! L504: class/authority mismatch (only policy authorizes; s1_decision ↔ decide;
//!
//! ## What it checks
//!
//! Verification ↔ verify).
//!
//! , in both directions: a primitive with `authority: authorize` has
//! `class: policy`; a primitive has `class: s1_decision` exactly when it has `authority: decide`;
//! and `class: verification` exactly when `authority: verify`. (A policy primitive may still
//! only `propose`.)
//!
//! ## Why it matters
//!
//! Validation trusts authority: a grant edge is a branch of an `authorize` node,
//! a verifier is a `verify` node. A generation primitive that claims to authorize would let
//! model output approve itself; a decision that does not `decide` hides a branch point.
//!
//! ## Example
//!
//! ```json
//! {"id": "synth.approve", "class": "generation", "authority": "authorize", ...}
//! {"id": "ver.run_tests", "class": "verification", "authority": "propose", ...}
//! ```
//!
//! Fixture `tests/fixtures/registry/l504_generation_authorizes.json` (with `primgraph registry lint`) reports L504 at line 220:
//!
//! ```json
//! "class": "generation",
//! "authority": "authorize",
//! "summary": "Draft a patch.",
//! ```
//!
//! ## Fix
//!
//! Only policy authorizes; s1_decision decides; verification verifies.
//!
//! Does not fire:
//!
//! ```json
//! {"id": "ctl.authorize_patch", "class": "policy", "authority": "authorize", ...}
//! {"id": "ver.run_tests", "class": "verification", "authority": "verify", ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};

/// This file\'s row of the code table.
const CODE: &Code = &codes::L504;

/// Why a class/authority pair is not allowed, or `None` when it is.
pub fn mismatch(class: &str, authority: &str) -> Option<&'static str> {
    if authority == "authorize" && class != "policy" {
        return Some("only policy primitives may have authority `authorize`");
    }
    if (class == "s1_decision") != (authority == "decide") {
        return Some("class `s1_decision` goes with authority `decide`, and only it");
    }
    if (class == "verification") != (authority == "verify") {
        return Some("class `verification` goes with authority `verify`, and only it");
    }
    None
}

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    for p in &view.primitives {
        if let Some(why) = mismatch(p.class, p.authority) {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("authority"),
                    format!(
                        "class `{}` with authority `{}`: {why}",
                        p.class, p.authority
                    ),
                )
                .of(p)
                .with_related(p.pointer("class"), "the class"),
            );
        }
    }
}
