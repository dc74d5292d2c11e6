//! P862 (warning): `pack diff`: a rule added or made stricter.
//!
//! ## What it checks
//!
//! Every rule of NEW (SPEC §9.4) against the rule of the same `id` in OLD: a rule added, a
//! severity raised (`warning` → `error`), a `bounded` limit lowered, or a kind or selector
//! changed (it may match nodes it did not) is P862 at the rule in NEW's `pack.json`. It
//! requires at least a minor bump. A rule removed or relaxed is no finding.
//!
//! ## Why it matters
//!
//! Every graph that declares the pack is checked by its rules: a new or stricter rule can
//! fail a graph that passed with OLD. Run `pack diff --graphs PATH…` to name them (V719).
//!
//! ## Example
//!
//! NEW adds the rule `bounded-tests`.
//!
//! Fixture `tests/fixtures/pack-wire/diff/new/pyship/pack.json` (pack diff of `tests/fixtures/pack-wire/diff/old/pyship` and `tests/fixtures/pack-wire/diff/new/pyship`) reports P862 at line 43:
//!
//! ```json
//! {"id": "bounded-tests", "severity": "warning", "kind": "bounded",
//! ```
//!
//! ## Fix
//!
//! Check the graphs that use the pack (`--graphs`), fix those that now fail, and raise NEW's
//! `version` by at least a minor.
//!
//! Does not fire: rules whose definitions are unchanged, or only relaxed.
//!
//! ## Implements
//!
//! SPEC §9.6 (pack versions compared); the code is listed in §9's table.
