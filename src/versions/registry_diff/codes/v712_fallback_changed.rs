//! V712 (error): `fallback` added, removed or changed
//!
//! ## What it checks
//!
//! A primitive's `fallback` is the same in OLD and NEW.
//!
//! ## Why it matters
//!
//! Recorded runs that fell back followed OLD's fallback; under NEW they diverge.
//!
//! ## Example
//!
//! `"fallback": null` in OLD, `"fallback": "obs.search_text"` in NEW.
//!
//! Fixture `tests/fixtures/registry-diff/v712-fallback-added/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v712-fallback-added/new.json`) reports V712 at line 163:
//!
//! ```json
//! "fallback": "obs.list_files",
//! ```
//!
//! Does not fire: The same fallback.
//!
//! ## Fix
//!
//! Keep the fallback, or change it in a major.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
