//! S208: `on_error` names an undeclared failure mode.
//!
//! ## What it checks
//!
//! Every key of a node's `on_error`, other than `"*"`, is one of the
//! `failure_modes` its primitive declares.
//!
//! ## Why it matters
//!
//! A handler for a failure the primitive never reports is dead, and usually a
//! misspelling of the mode the author meant to handle — which then goes unhandled.
//!
//! ## Example
//!
//! (`mut.apply_patch` fails with `patch_conflict`, ....)
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "on_error": {"conflict": "draft"}, ...}
//! ```
//!
//! Fixture `tests/fixtures/rules/s208_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S208 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}}, "next": "test", "on_error": {"conflict": "test"}},
//! ```
//!
//! ## Fix
//!
//! Handle a declared failure mode, or use `"*"`.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "apply", "primitive": "mut.apply_patch", "on_error": {"patch_conflict": "draft"}, ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`on_error`: failure mode → node); the code is listed in §5.

use super::{Context, nearest};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::suggest::did_you_mean;
use crate::json::pointer::escape_token as escape_pointer_token;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let (Some(prim), Some(handlers)) = (cx.model.prim(i), &node.on_error) else {
            continue;
        };
        for mode in handlers.keys() {
            if mode == "*" || prim.failure_modes.contains(mode) {
                continue;
            }
            let suggestions = nearest(mode, prim.failure_modes.iter().map(String::as_str), 3);
            out.push(
                codes::S208
                    .at(
                        format!("/nodes/{i}/on_error/{}", escape_pointer_token(mode)),
                        format!(
                            "`{mode}` is not a failure mode of `{}` (declared: {})",
                            prim.id,
                            if prim.failure_modes.is_empty() {
                                "none".to_string()
                            } else {
                                prim.failure_modes.join(", ")
                            }
                        ),
                    )
                    .with_help(did_you_mean(&suggestions).unwrap_or_else(|| {
                        "handle a declared failure mode, or use `\"*\"`".into()
                    })),
            );
        }
    }
}
