//! V713 (severity by direction): `effects`: one added (error) / one removed (warning)
//!
//! ## What it checks
//!
//! A primitive's declared effects. One added is an error; one removed a warning.
//!
//! ## Why it matters
//!
//! Effects drive the policy checks: a new `mints_permission`, `raises_spend` or
//! `crosses_workspace` makes S1 branches to it illegal (A404) and a new write needs authorization.
//! A removed effect breaks no graph but weakens those checks: a reviewer must see it.
//!
//! ## Example
//!
//! `"effects": ["reads_workspace", "network"]` in NEW, `["reads_workspace"]` in OLD.
//!
//! Fixture `tests/fixtures/registry-diff/v713-effect-added/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v713-effect-added/new.json`) reports V713 at line 170:
//!
//! ```json
//! "network"
//! ```
//!
//! Does not fire: The same effects in another order.
//!
//! ## Fix
//!
//! Added: make the change in a major; removed: confirm the primitive really lost it.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
