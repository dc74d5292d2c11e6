//! L509: an effectful primitive without `requires_authorization`.
//!
//! ## What it checks
//!
//! A primitive whose `effects` include `writes_workspace`, `mints_permission`,
//! `raises_spend` or `crosses_workspace` has `"requires_authorization": true` — unless its class
//! is `policy` (a policy gate is what grants the authorization; it cannot require one itself).
//!
//! ## Why it matters
//!
//! Validation (A402) and replay (D613) enforce that a node requiring
//! authorization is reached only through a grant. That guarantee is only as good as the flag: a
//! primitive that writes the workspace without it can be run by any path of any graph.
//!
//! ## Example
//!
//! ```json
//! {"id": "mut.write_file", "class": "mutation", "effects": ["writes_workspace"],
//!  "requires_authorization": false, ...}
//! ```
//!
//! Fixture `tests/fixtures/registry/l509_unauthorized_effect.json` (with `primgraph registry lint`) reports L509 at line 419:
//!
//! ```json
//! ],
//! "requires_authorization": false,
//! "requires_verifier": true,
//! ```
//!
//! ## Fix
//!
//! Set `requires_authorization: true` on a primitive with privileged effects.
//!
//! Does not fire:
//!
//! ```json
//! {"id": "mut.write_file", "class": "mutation", "effects": ["writes_workspace"],
//!  "requires_authorization": true, ...}
//! {"id": "ctl.raise_budget", "class": "policy", "effects": ["raises_spend"], ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};

/// This file\'s row of the code table.
const CODE: &Code = &codes::L509;

/// Effects that require authorization.
pub const PRIVILEGED: &[&str] = &[
    "writes_workspace",
    "mints_permission",
    "raises_spend",
    "crosses_workspace",
];

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    for p in &view.primitives {
        if p.class == "policy" || p.requires_authorization {
            continue;
        }
        let effects: Vec<&str> = p
            .effects
            .iter()
            .copied()
            .filter(|e| PRIVILEGED.contains(e))
            .collect();
        if !effects.is_empty() {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("requires_authorization"),
                    format!(
                        "`{}` has the effect{} {} but not `requires_authorization: true`",
                        p.label(),
                        if effects.len() > 1 { "s" } else { "" },
                        effects
                            .iter()
                            .map(|e| format!("`{e}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .of(p)
                .with_related(p.pointer("effects"), "the effects"),
            );
        }
    }
}
