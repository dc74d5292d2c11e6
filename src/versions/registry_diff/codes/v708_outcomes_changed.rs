//! V708 (error): `outcomes` changed: one added or removed
//!
//! ## What it checks
//!
//! A primitive's closed decision set `outcomes` is the same set in OLD and NEW (and
//! declared in both or in neither).
//!
//! ## Why it matters
//!
//! A node of it must branch on every outcome (S206); an added outcome leaves
//! existing `branches` incomplete, a removed one makes them name an undeclared outcome and makes
//! recorded runs that took it D610.
//!
//! ## Example
//!
//! `"outcomes": ["allow", "deny", "escalate"]` in NEW, `["allow", "deny"]` in OLD.
//!
//! Fixture `tests/fixtures/registry-diff/v708-outcome-added/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v708-outcome-added/new.json`) reports V708 at line 221:
//!
//! ```json
//! "none"
//! ```
//!
//! Does not fire: The same outcomes in another order.
//!
//! ## Fix
//!
//! Keep the decision set; a new set is a new primitive (or a major).
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
