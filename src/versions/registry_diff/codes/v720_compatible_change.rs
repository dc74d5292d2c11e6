//! V720 (info): a compatible contract change: inputs widened, or outputs narrowed
//!
//! ## What it checks
//!
//! A schema change the §3.2 checker proves safe: NEW's inputs admit every value
//! OLD's do, or NEW's outputs only values OLD's do. The witness, where the reverse check finds
//! one, shows the change (a value NEW now accepts, or one it no longer produces).
//!
//! ## Why it matters
//!
//! Nothing valid breaks, but the contract changed: it requires a higher minor.
//!
//! ## Example
//!
//! An input enum widened from `["low", "high"]` to `["low", "medium", "high"]`.
//!
//! Fixture `tests/fixtures/registry-diff/v720-input-widened/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v720-input-widened/new.json`) reports V720 at line 62:
//!
//! ```json
//! "mode": {
//! ```
//!
//! Does not fire: An equivalent rewrite (V717), or a narrowing of inputs (V705).
//!
//! ## Fix
//!
//! None needed; raise the minor.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
