//! A404: S1 branch targets a privileged node.
//!
//! ## What it checks
//!
//! No `branches` edge of an `s1_decision` node targets a node whose primitive has
//! the effect `mints_permission`, `raises_spend` or `crosses_workspace`, unless that target is a
//! `policy` node.
//!
//! ## Why it matters
//!
//! S1 decisions are fast model judgements; they may choose what to do next but may
//! not by themselves open a privilege. Routing the decision to a policy gate is how privilege is
//! asked for.
//!
//! ## Example
//!
//! (`route.delegate` crosses workspaces.)
//!
//! ```text
//! {"id": "triage", "primitive": "triage.classify_issue", "branches": {"bug": "delegate", ...}}
//! ```
//!
//! Fixture `tests/fixtures/rules/a404_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports A404 at line 17:
//!
//! ```json
//! {"id": "decide", "primitive": "stop.finish_or_retry", "inputs": {"log": {"from": "test", "at": "/log"}}, "branches": {"finish": "done", "retry": "delegate", "give_up": "give_up"}},
//! ```
//!
//! ## Fix
//!
//! Branch to a policy gate that authorizes the privileged step.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "triage", "primitive": "triage.classify_issue", "branches": {"bug": "gate", ...}}
//! ```
//!
//! (where `gate` is a policy node that then grants `delegate`).
//!
//! ## Implements
//!
//! SPEC §3.4 (S1 limits); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::{Diagnostic, escape_pointer_token};
use crate::registry::{Class, Effect};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        if cx.model.class(i) != Some(Class::S1Decision) {
            continue;
        }
        for (outcome, target) in node.branches.iter().flatten() {
            let Some(&t) = cx.model.ids.get(target.as_str()) else {
                continue;
            };
            let Some(prim) = cx.prim(t) else { continue };
            if prim.class == Class::Policy {
                continue;
            }
            let privileged: Vec<&str> = [
                (Effect::MintsPermission, "mints_permission"),
                (Effect::RaisesSpend, "raises_spend"),
                (Effect::CrossesWorkspace, "crosses_workspace"),
            ]
            .into_iter()
            .filter(|(e, _)| prim.has_effect(*e))
            .map(|(_, name)| name)
            .collect();
            if privileged.is_empty() {
                continue;
            }
            out.push(
                codes::A404.at(format!("/nodes/{i}/branches/{}", escape_pointer_token(outcome)),
                    format!(
                        "S1 decision `{}` branches on `{outcome}` straight to `{target}` (`{}`, {})",
                        node.id,
                        prim.id,
                        privileged.join(", ")
                    ),
                )
                .with_related(format!("/nodes/{t}"), "the privileged node"),
            );
        }
    }
}
