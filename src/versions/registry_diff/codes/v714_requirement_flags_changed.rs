//! V714 (severity by direction): `requires_authorization` or `requires_verifier`: set (error) / cleared (warning)
//!
//! ## What it checks
//!
//! The two safety flags of a primitive. Set in NEW where OLD had it clear: error;
//! cleared: warning.
//!
//! ## Why it matters
//!
//! Graphs that reach the primitive without a grant now fail A402, or that end
//! without verification fail A407. Clearing breaks nothing but lets a step run with less
//! authorization or no verifier.
//!
//! ## Example
//!
//! `"requires_verifier": true` in NEW, `false` in OLD (error).
//!
//! Fixture `tests/fixtures/registry-diff/v714-flag-set/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v714-flag-set/new.json`) reports V714 at line 282:
//!
//! ```json
//! "requires_verifier": true,
//! ```
//!
//! Does not fire: The same flags.
//!
//! ## Fix
//!
//! Set: in a major, with the graphs fixed; cleared: confirm it is safe.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
