//! L506: an s1_decision primitive with a forbidden effect.
//!
//! ## What it checks
//!
//! No primitive of `class: s1_decision` lists `mints_permission`,
//! `raises_spend` or `crosses_workspace` in its `effects`.
//!
//! ## Why it matters
//!
//! An S1 decision is a fast, model-made choice among a closed set of outcomes.
//! Privilege is asked of a policy gate, never taken by a decision: a decision that mints
//! permissions, commits money or crosses workspaces is an unchecked privilege escalation.
//!
//! ## Example
//!
//! ```json
//! {"id": "dec.pick_budget", "class": "s1_decision", "authority": "decide",
//!  "effects": ["raises_spend"], ...}
//! ```
//!
//! Fixture `tests/fixtures/registry/l506_s1_forbidden_effect.json` (with `primgraph registry lint`) reports L506 at line 210:
//!
//! ```json
//!   "reads_workspace",
//!   "raises_spend"
//! ],
//! ```
//!
//! ## Fix
//!
//! Route the decision to a policy gate that holds the privilege.
//!
//! Does not fire:
//!
//! ```json
//! {"id": "dec.pick_file", "class": "s1_decision", "authority": "decide",
//!  "effects": ["reads_workspace"], ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};

/// This file\'s row of the code table.
const CODE: &Code = &codes::L506;

/// Effects an s1_decision primitive may never have.
pub const FORBIDDEN: &[&str] = &["mints_permission", "raises_spend", "crosses_workspace"];

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    for p in view.primitives.iter().filter(|p| p.class == "s1_decision") {
        for (j, effect) in p.effects.iter().enumerate() {
            if FORBIDDEN.contains(effect) {
                out.push(
                    Finding::new(
                        CODE,
                        p.pointer(&format!("effects/{j}")),
                        format!(
                            "s1_decision primitive `{}` has the forbidden effect `{effect}`",
                            p.label()
                        ),
                    )
                    .of(p),
                );
            }
        }
    }
}
