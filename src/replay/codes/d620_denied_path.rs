//! D620 (error): a step's evidence names a path its primitive's context rules deny.
//!
//! ## What it checks
//!
//! An evidence item of a step may name the workspace path it is of: `{"kind": "test_log",
//! "digest": "sha256:…", "path": "tests/test_x.py"}`. Every loaded pack's `context_rules`
//! (SPEC §9.1) whose `primitive` selector (an ID, an alias, `prefix.*` or `*`) matches the
//! step's primitive apply to it. A path is denied when a `deny` glob of one of those rules
//! matches it, or when those rules list `read` globs and none of them matches it (`read` is
//! what the primitive may read: the rest is outside its context). Globs are matched against
//! the path as recorded, a leading `./` removed; `*` stays within a segment, `**` crosses
//! segments. The finding is at the item's `path`, with the rule's place in `pack.json`.
//!
//! ## Why it matters
//!
//! A pack states what context its primitives may see (no `.env`, no `secrets/**`). A run whose
//! evidence shows a primitive read a denied file broke that promise, whatever it produced:
//! the run is `violated`.
//!
//! ## Example
//!
//! `pyship`'s context rule denies `.env` and `secrets/**` to every `pyship.*` primitive; the
//! recorded `pytest` step names `.env` as evidence.
//!
//! Fixture `tests/fixtures/pack-wire/d620.trace.jsonl` (replayed against `tests/fixtures/pack-wire/land-ok.graph.json` with the pack path `tests/fixtures/pack-wire/path`) reports D620 at line 2:
//!
//! ```json
//! {"seq":1,"node":"test","primitive":"pyship.run_pytest",…
//! ```
//!
//! ## Fix
//!
//! Keep the primitive's context within its pack's rules (the recorder or the agent read a file
//! it must not), or, if the rule is wrong, change the pack's `context_rules`.
//!
//! Does not fire: evidence without `path`; a path a `read` glob matches and no `deny` glob
//! does; a step of a primitive no context rule selects.
//!
//! ## Implements
//!
//! SPEC §9.1 (`context_rules`: replay reports a step whose evidence names a denied path); the
//! code is listed in §9's table.

use super::super::engine::RunState;
use crate::codes;
use crate::registry::PrimIdx;
use serde_json::Value;

impl RunState<'_, '_> {
    pub(crate) fn check_d620(&mut self, prim: PrimIdx, paths: &[(usize, String)]) {
        if paths.is_empty() {
            return;
        }
        let Some(composition) = self.graph().composition.clone() else {
            return;
        };
        let rules = composition.context_rules(prim);
        if rules.is_empty() {
            return;
        }
        let id = composition.registry.get(prim).id.clone();
        let any_read = rules.iter().any(|r| !r.read.is_empty());
        for (i, path) in paths {
            let owner = |rule: &crate::pack::ContextRule| {
                composition
                    .packs
                    .iter()
                    .find(|p| p.context_rules.iter().any(|r| std::ptr::eq(r, rule)))
                    .map(|p| format!("pack {}, {} at {}", p.label(), p.manifest, rule.pointer))
                    .unwrap_or_default()
            };
            let message = if let Some(rule) = rules.iter().find(|r| r.denies(path)) {
                format!(
                    "evidence {i} names `{path}`, which the context rules of `{id}` deny (`deny` of {})",
                    owner(rule)
                )
            } else if any_read && !rules.iter().any(|r| r.reads(path)) {
                let first = rules.iter().find(|r| !r.read.is_empty()).copied();
                format!(
                    "evidence {i} names `{path}`, which no `read` glob of the context rules of `{id}` allows ({})",
                    first.map(owner).unwrap_or_default()
                )
            } else {
                continue;
            };
            self.report(
                &codes::D620,
                format!("/evidence/{i}/path"),
                message,
                None,
                Some(Value::from(path.clone())),
            );
        }
    }
}
