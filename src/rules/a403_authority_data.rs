//! A403: authority input bound from a non-policy source.
//!
//! ## What it checks
//!
//! An input property marked `"x-authority": true` (a grant token) is bound only
//! with `{"from": X, "at": P}` where X is a node of a `policy` primitive and the output at P is
//! itself marked `x-authority` — never a constant, `$input`, or any other node.
//!
//! ## Why it matters
//!
//! The grant a mutation presents must be the one a policy gate minted. A constant
//! token, one from the run's input, or one copied out of model output lets an injected tool call
//! approve itself.
//!
//! ## Example
//!
//! ```text
//! "inputs": {"grant": {"const": {"token": "0000000000000000", "scope": "repo"}}}
//! ```
//!
//! Fixture `tests/fixtures/rules/a403_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports A403 at line 15:
//!
//! ```json
//! {"id": "apply", "primitive": "mut.apply_patch", "inputs": {"patch": {"from": "draft", "at": "/patch"}, "grant": {"const": {"token": "0000000000000000", "scope": "repo"}}}, "next": "test", "on_error": {"patch_conflict": "test"}},
//! ```
//!
//! ## Fix
//!
//! Bind it from the grant output of the policy gate that authorizes this node, e.g. {"from": "gate", "at": "/grant"}.
//!
//! Does not fire:
//!
//! ```text
//! "inputs": {"grant": {"from": "gate", "at": "/grant"}}   (gate is ctl.authorize_patch)
//! ```
//!
//! ## Implements
//!
//! SPEC §3.4 (Authority data); the code is listed in §5.

use super::{Context, Origin};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::registry::Class;
pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for b in cx.binding_infos() {
        // An input that may carry authority (on its own schema, what its `$ref`s name, its
        // `allOf` parts or any alternative) takes it from a policy node's authority output.
        if !b.target_annotations.may_be_authority {
            continue;
        }
        let from = b.from;
        let problem = match b.origin {
            Origin::Const => Some("a constant".to_string()),
            Origin::Input => Some("the run's `$input`".to_string()),
            Origin::Node(source) => match cx.prim(source) {
                None => None, // R101
                Some(prim) if prim.class != Class::Policy => Some(format!(
                    "`{from}`, a `{}` node (`{}`), not a policy node",
                    prim.class, prim.id
                )),
                Some(prim) => match cx.selection(b) {
                    Some(Ok(selected)) if selected.annotations().authority => None,
                    Some(Ok(_)) => Some(format!(
                        "`{from}` at `{}`, which is not an `x-authority` output of `{}`",
                        b.at, prim.id
                    )),
                    _ => None, // T304
                },
            },
            Origin::Unknown => None, // T303
        };
        if let Some(problem) = problem {
            let consumer = cx.prim(b.node).map_or("?", |p| p.id.as_str());
            out.push(codes::A403.at(
                b.pointer(),
                format!(
                    "authority input `{}` of `{consumer}` is bound from {problem}",
                    b.property
                ),
            ));
        }
    }
}
