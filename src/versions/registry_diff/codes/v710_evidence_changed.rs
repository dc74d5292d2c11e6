//! V710 (severity by direction): `evidence`: a kind added (error) / removed (info)
//!
//! ## What it checks
//!
//! The evidence kinds a recorded step must carry. A kind added is an error; a kind
//! removed is an info (a minor change).
//!
//! ## Why it matters
//!
//! Runs recorded under OLD lack the new kind and stop replaying faithful (D608).
//! Requiring less breaks no run.
//!
//! ## Example
//!
//! `"evidence": ["file_listing", "ignore_rules"]` in NEW, `["file_listing"]` in OLD.
//!
//! Fixture `tests/fixtures/registry-diff/v710-evidence-added/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v710-evidence-added/new.json`) reports V710 at line 109:
//!
//! ```json
//! "ignore_rules"
//! ```
//!
//! Does not fire: The same kinds in another order.
//!
//! ## Fix
//!
//! Require the new evidence only in a major, or record it as optional elsewhere.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
