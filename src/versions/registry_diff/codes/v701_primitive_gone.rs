//! V701 (error): a primitive is gone (its ID no longer resolves)
//!
//! ## What it checks
//!
//! Every primitive ID of OLD is an ID of NEW (primitives are matched by `id`).
//! The finding points into OLD, at the primitive that is gone.
//!
//! ## Why it matters
//!
//! A graph names its primitives by ID or alias; under NEW a node of the removed
//! primitive is R101, and a recorded run of it cannot replay.
//!
//! ## Example
//!
//! OLD has `obs.list_files`; NEW's `primitives` no longer contains it.
//!
//! Fixture `tests/fixtures/registry-diff/base.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v701-primitive-removed/new.json`) reports V701 at line 125:
//!
//! ```json
//! {
//! "id": "obs.read_file",
//! ```
//!
//! Does not fire: NEW keeps every ID of OLD (reordered, or with new primitives besides).
//!
//! ## Fix
//!
//! Keep the primitive (say in its `summary` that it is deprecated) until the next major;
//! remove it only with a major bump, after the graphs that use it have moved.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
