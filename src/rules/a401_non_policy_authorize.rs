//! A401: non-policy primitive with `authorize` authority.
//!
//! ## What it checks
//!
//! Every primitive the graph uses that has `authority: authorize` is of class
//! `policy`. The built-in registry never violates this (lint L504 forbids it), but a registry
//! loaded with `--registry FILE` can.
//!
//! ## Why it matters
//!
//! Grant edges (A402) are the branches of `authorize` nodes. A model-driven or
//! generating primitive with that authority could grant itself permission: the graph's
//! authorization would be only as strong as a prompt.
//!
//! ## Example
//!
//! (A primitive of class `generation` with authority `authorize`, as `synth.approve` is in the test registry.)
//!
//! ```text
//! {"id": "gate", "primitive": "synth.approve", "branches": {"allow": "apply", "deny": "stop"}}
//! ```
//!
//! Fixture `tests/fixtures/rules/a401_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports A401 at line 14:
//!
//! ```json
//! {"id": "gate", "primitive": "synth.approve", "inputs": {"patch": {"from": "draft", "at": "/patch"}}, "branches": {"allow": "apply", "deny": "give_up", "escalate": "give_up"}},
//! ```
//!
//! ## Fix
//!
//! Only policy primitives may authorize; fix the registry or use a policy gate.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "gate", "primitive": "ctl.authorize_patch", "branches": {"allow": "apply", "deny": "stop"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (only policy authorizes) and §3.4 (Grant); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::registry::{Authority, Class};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let Some(prim) = cx.model.prim(i) else {
            continue;
        };
        if prim.authority == Authority::Authorize && prim.class != Class::Policy {
            out.push(
                codes::A401.at(format!("/nodes/{i}/primitive"),
                    format!(
                        "node `{}` uses `{}`, which has `authorize` authority but class `{}`, not `policy`",
                        node.id, prim.id, prim.class
                    ),
                ),
            );
        }
    }
}
