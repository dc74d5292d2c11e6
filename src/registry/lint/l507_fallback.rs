//! L507: a fallback that names no primitive, or fallbacks forming a cycle.
//!
//! ## What it checks
//!
//! Every non-null `fallback` is the ID of a primitive of the same file, and
//! following fallbacks from any primitive never comes back to a primitive already visited (a
//! primitive falling back to itself is a cycle of one). A cycle is reported once, at the member
//! that comes first in the file, with the cycle spelled out.
//!
//! ## Why it matters
//!
//! Replay follows a fallback when a step errs with no handler; a dangling
//! fallback is a contract nobody can honour, and a cycle lets a failing run bounce between
//! primitives forever.
//!
//! ## Example
//!
//! ```json
//! {"id": "tool.search_web", "fallback": "tool.search_cache", ...},
//! {"id": "tool.search_cache", "fallback": "tool.search_web", ...}
//! ```
//!
//! And `{"id": "tool.search_web", "fallback": "tool.nowhere", ...}`.
//!
//! Fixture `tests/fixtures/registry/l507_dangling_fallback.json` (with `primgraph registry lint`) reports L507 at line 253:
//!
//! ```json
//! ],
//! "fallback": "synth.nowhere",
//! "evaluation": {
//! ```
//!
//! ## Fix
//!
//! Point the fallback at an existing primitive, and break the cycle.
//!
//! Does not fire:
//!
//! ```json
//! {"id": "tool.search_web", "fallback": "tool.search_cache", ...},
//! {"id": "tool.search_cache", "fallback": null, ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};

/// This file\'s row of the code table.
const CODE: &Code = &codes::L507;

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    let n = view.primitives.len();
    let mut next: Vec<Option<usize>> = vec![None; n];
    for p in &view.primitives {
        let Some(target) = p.fallback else { continue };
        match view.primitive_by_id(target) {
            Some(t) => next[p.index] = Some(t),
            None => out.push(
                Finding::new(
                    CODE,
                    p.pointer("fallback"),
                    format!("fallback `{target}` names no primitive of this registry"),
                )
                .of(p),
            ),
        }
    }
    // 0 unvisited, 1 on the current chain, 2 done.
    let mut state = vec![0u8; n];
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut chain = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                0 => {
                    state[i] = 1;
                    chain.push(i);
                    at = next[i];
                }
                1 => {
                    let from = chain.iter().position(|&c| c == i).unwrap_or(0);
                    let cycle = &chain[from..];
                    let first = cycle.iter().copied().min().unwrap_or(i);
                    let p = &view.primitives[first];
                    let rotate = cycle.iter().position(|&c| c == first).unwrap_or(0);
                    let names: Vec<&str> = cycle[rotate..]
                        .iter()
                        .chain(cycle[..rotate].iter())
                        .chain(std::iter::once(&first))
                        .map(|&c| view.primitives[c].label())
                        .collect();
                    out.push(
                        Finding::new(
                            CODE,
                            p.pointer("fallback"),
                            format!("fallbacks form a cycle: {}", names.join(" → ")),
                        )
                        .of(p),
                    );
                    break;
                }
                _ => break,
            }
        }
        for c in chain {
            state[c] = 2;
        }
    }
}
