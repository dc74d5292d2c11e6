//! S207: `next` on a decision primitive, or `branches` on one without outcomes.
//!
//! ## What it checks
//!
//! A node whose primitive declares `outcomes` continues through `branches`, never
//! `next`; a node whose primitive has no `outcomes` continues through `next`, never `branches`.
//!
//! ## Why it matters
//!
//! A decision's closed outcome set exists so that every outcome is routed on
//! purpose; `next` on a decision ignores the decision (a `deny` would proceed like an `allow`).
//! `branches` on a non-deciding primitive can never be taken.
//!
//! ## Example
//!
//! ```text
//! {"id": "gate", "primitive": "ctl.authorize_patch", "next": "apply"}
//! ```
//!
//! Fixture `tests/fixtures/rules/s207_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S207 at line 14:
//!
//! ```json
//! {"id": "gate", "primitive": "ctl.authorize_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}}, "next": "apply"},
//! ```
//!
//! ## Fix
//!
//! Replace `next` with `branches` over the outcomes.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "gate", "primitive": "ctl.authorize_patch", "branches": {"allow": "apply", "deny": "stop"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`next` for a primitive without `outcomes`, `branches` for one with); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let Some(prim) = cx.model.prim(i) else {
            continue;
        };
        match (&prim.outcomes, node.next.is_some(), node.branches.is_some()) {
            (Some(outcomes), true, _) => out.push(codes::S207.at(
                format!("/nodes/{i}/next"),
                format!(
                    "`{}` decides among {}: node `{}` must use `branches`, not `next`",
                    prim.id,
                    outcomes.join(", "),
                    node.id
                ),
            )),
            (None, _, true) => out.push(
                codes::S207
                    .at(
                        format!("/nodes/{i}/branches"),
                        format!(
                            "`{}` declares no outcomes: node `{}` must use `next`, not `branches`",
                            prim.id, node.id
                        ),
                    )
                    .with_help("replace `branches` with one `next`"),
            ),
            _ => {}
        }
    }
}
