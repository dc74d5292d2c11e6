//! S206: `branches` does not cover the outcomes, or names an undeclared outcome.
//!
//! ## What it checks
//!
//! On a node whose primitive declares `outcomes`, `branches` has a target for
//! every outcome (or a `"*"` entry covering the rest), and every key other than `"*"` is one of
//! the declared outcomes.
//!
//! ## Why it matters
//!
//! An outcome without a branch leaves the run stuck when the decision comes out
//! that way; a branch on an undeclared outcome is dead and usually a typo of a real one.
//!
//! ## Example
//!
//! (`ver.run_target_tests` has outcomes `pass`, `fail`.)
//!
//! ```text
//! {"id": "test", "primitive": "ver.run_target_tests", "branches": {"pass": "done", "failed": "fix"}}
//! ```
//!
//! Fixture `tests/fixtures/rules/s206_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports S206 at line 16:
//!
//! ```json
//! {"id": "test", "primitive": "ver.run_target_tests", "inputs": {"test_ids": {"from": "read_task", "at": "/test_ids"}}, "branches": {"pass": "decide", "failed": "draft"}},
//! ```
//!
//! ## Fix
//!
//! Add a branch for each missing outcome, or a `"*"` branch.
//!
//! Does not fire:
//!
//! ```text
//! {"id": "test", "primitive": "ver.run_target_tests", "branches": {"pass": "done", "fail": "fix"}}
//! ```
//!
//! ## Implements
//!
//! SPEC §2 (`branches`: outcome → node, `"*"` covers the rest); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::json::pointer::escape_token as escape_pointer_token;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let (Some(prim), Some(branches)) = (cx.model.prim(i), &node.branches) else {
            continue;
        };
        let Some(outcomes) = &prim.outcomes else {
            continue; // S207: branches on a primitive without outcomes.
        };
        for key in branches.keys() {
            if key != "*" && !outcomes.contains(key) {
                let declared = outcomes.join(", ");
                out.push(
                    codes::S206
                        .at(
                            format!("/nodes/{i}/branches/{}", escape_pointer_token(key)),
                            format!(
                                "`{key}` is not an outcome of `{}` (outcomes: {declared})",
                                prim.id
                            ),
                        )
                        .with_help("branch on the primitive's declared outcomes"),
                );
            }
        }
        if !branches.contains_key("*") {
            let missing: Vec<&str> = outcomes
                .iter()
                .filter(|o| !branches.contains_key(o))
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                out.push(codes::S206.at(
                    format!("/nodes/{i}/branches"),
                    format!(
                            "`branches` of node `{}` does not cover outcome(s) {} of `{}`",
                            node.id,
                            missing
                                .iter()
                                .map(|m| format!("`{m}`"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            prim.id
                        ),
                ));
            }
        }
    }
}
