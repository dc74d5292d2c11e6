//! R102: primitive referenced by alias (info).
//!
//! ## What it checks
//!
//! A node names its primitive by alias (`AUTHORIZE_PATCH`) rather than by dotted
//! ID (`ctl.authorize_patch`). This is allowed; the note says which ID the alias stands for.
//!
//! ## Why it matters
//!
//! Aliases are convenient, but the dotted ID names the family and is what traces,
//! reports and diffs show; reviewers may prefer one spelling throughout.
//!
//! ## Example
//!
//! ```text
//! {"id": "gate", "primitive": "AUTHORIZE_PATCH", "branches": {...}}
//! ```
//!
//! Fixture `tests/fixtures/rules/r102_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports R102 at line 14:
//!
//! ```json
//! {"id": "gate", "primitive": "AUTHORIZE_PATCH", "inputs": {"patch": {"from": "draft", "at": "/patch"}}, "branches": {"allow": "apply", "deny": "give_up", "escalate": "give_up"}},
//! ```
//!
//! ## Fix
//!
//! Name the primitive by its dotted ID.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "gate", "primitive": "ctl.authorize_patch", "branches": {...}}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.4 and §2 (`nodes[].primitive`: dotted ID or alias); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        if let Some(prim) = cx.model.prim(i)
            && node.primitive != prim.id
        {
            out.push(
                codes::R102
                    .at(
                        format!("/nodes/{i}/primitive"),
                        format!("`{}` is the alias of `{}`", node.primitive, prim.id),
                    )
                    .with_help(format!(
                        "write `\"primitive\": \"{}\"` to name it by ID",
                        prim.id
                    )),
            );
        }
    }
}
