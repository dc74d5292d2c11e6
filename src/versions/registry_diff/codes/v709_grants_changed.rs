//! V709 (severity by direction): `grants`: one removed (error) / one added (warning)
//!
//! ## What it checks
//!
//! The outcomes of a policy primitive that grant authority. A grant removed is an
//! error; a grant added is a warning.
//!
//! ## Why it matters
//!
//! A removed grant leaves the nodes behind that branch unreachable with authority
//! (A402 in graphs valid under OLD). An added grant breaks nothing but lets more paths run
//! authorized steps: a reviewer must see it.
//!
//! ## Example
//!
//! `"grants": ["allow"]` in OLD, `["allow", "allow_once"]` in NEW (warning).
//!
//! Fixture `tests/fixtures/registry-diff/v709-grant-removed/new.json` (OLD `tests/fixtures/registry-diff/v709-grant-removed/old.json`, NEW `tests/fixtures/registry-diff/v709-grant-removed/new.json`) reports V709 at line 350:
//!
//! ```json
//! "grants": [
//! ```
//!
//! Does not fire: The same grants.
//!
//! ## Fix
//!
//! Removed: keep the grant; added: confirm the new branch should grant.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
