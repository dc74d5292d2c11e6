//! P861 (info): `pack diff`: a compatible fragment change, or a fragment added.
//!
//! ## What it checks
//!
//! The changes of a fragment's interface in the compatible direction: `params` widened (every
//! `with` OLD accepted still passes), an input port widened, an output port narrowed or added,
//! and a fragment added. Each requires a minor bump.
//!
//! ## Why it matters
//!
//! No graph breaks, but the pack offers more than before: a release that adds it is a minor
//! one, so a graph can ask for it with `"^1.3"`.
//!
//! ## Example
//!
//! NEW adds the fragment `lint-and-land`.
//!
//! Fixture `tests/fixtures/pack-wire/diff/new/pyship/fragments/lint-and-land.fragment.json` (pack diff of `tests/fixtures/pack-wire/diff/old/pyship` and `tests/fixtures/pack-wire/diff/new/pyship`) reports P861 at line 2:
//!
//! ```json
//! "fragment": "lint-and-land",
//! ```
//!
//! ## Fix
//!
//! Nothing to fix: raise NEW's `version` by at least a minor.
//!
//! Does not fire: an unchanged fragment.
//!
//! ## Implements
//!
//! SPEC §9.6 (pack versions compared); the code is listed in §9's table.
