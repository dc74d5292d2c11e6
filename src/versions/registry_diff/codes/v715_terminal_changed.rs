//! V715 (severity by direction): `terminal`: cleared (error) / set (info)
//!
//! ## What it checks
//!
//! Whether a node of the primitive may end a graph. Cleared: error; set: info (a
//! minor change).
//!
//! ## Why it matters
//!
//! Graphs that end at a node of it fail S204 once it is not terminal, and runs that
//! ended there fail D614.
//!
//! ## Example
//!
//! `"terminal": false` in NEW, `true` in OLD.
//!
//! Fixture `tests/fixtures/registry-diff/v715-terminal-cleared/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v715-terminal-cleared/new.json`) reports V715 at line 541:
//!
//! ```json
//! "terminal": false
//! ```
//!
//! Does not fire: Set in NEW (info).
//!
//! ## Fix
//!
//! Keep it terminal, or clear it in a major.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
