//! L510: `grants` not within `outcomes`, or `grants` on a non-authorize primitive.
//!
//! ## What it checks
//!
//! A non-empty `grants` appears only on a primitive with
//! `authority: authorize`, and every entry of `grants` is one of the primitive's `outcomes`.
//!
//! ## Why it matters
//!
//! A grant edge is a `branches` edge of an authorize node labelled with one of
//! its grants. A grant that is not an outcome can never be taken (the gate grants nothing), and
//! grants on a non-authorize primitive would make a proposal look like an approval.
//!
//! ## Example
//!
//! ```json
//! {"id": "ctl.authorize_patch", "authority": "authorize",
//!  "outcomes": ["allow", "deny"], "grants": ["approve"], ...}
//! {"id": "synth.draft_patch", "authority": "propose", "grants": ["done"], ...}
//! ```
//!
//! Fixture `tests/fixtures/registry/l510_grant_not_outcome.json` (with `primgraph registry lint`) reports L510 at line 327:
//!
//! ```json
//! "grants": [
//!   "approve"
//! ],
//! ```
//!
//! ## Fix
//!
//! Grants are outcomes of an authorize primitive.
//!
//! Does not fire:
//!
//! ```json
//! {"id": "ctl.authorize_patch", "authority": "authorize",
//!  "outcomes": ["allow", "deny", "escalate"], "grants": ["allow"], ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};

/// This file\'s row of the code table.
const CODE: &Code = &codes::L510;

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    for p in &view.primitives {
        if p.grants.is_empty() {
            continue;
        }
        if p.authority != "authorize" {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("grants"),
                    format!(
                        "`{}` has `grants` but authority `{}` (only `authorize` grants)",
                        p.label(),
                        p.authority
                    ),
                )
                .of(p),
            );
            continue;
        }
        let outcomes = p.outcomes.as_deref().unwrap_or(&[]);
        for (j, grant) in p.grants.iter().enumerate() {
            if !outcomes.contains(grant) {
                out.push(
                    Finding::new(
                        CODE,
                        p.pointer(&format!("grants/{j}")),
                        format!("grant `{grant}` is not one of the outcomes"),
                    )
                    .of(p)
                    .with_related(p.pointer("outcomes"), "the outcomes"),
                );
            }
        }
    }
}
