//! V703 (info): a primitive was added
//!
//! ## What it checks
//!
//! The IDs of NEW that OLD does not have.
//!
//! ## Why it matters
//!
//! An addition breaks nothing (graphs valid under OLD stay valid), but graphs that
//! use it need NEW: it requires a higher minor, so that G005 tells old registries apart.
//!
//! ## Example
//!
//! NEW adds `obs.list_symbols`.
//!
//! Fixture `tests/fixtures/registry-diff/v703-primitive-added/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v703-primitive-added/new.json`) reports V703 at line 175:
//!
//! ```json
//! {
//! "id": "obs.stat_path",
//! ```
//!
//! Does not fire: NEW has exactly OLD's IDs.
//!
//! ## Fix
//!
//! None needed; raise the minor (`1.0.0` → `1.1.0`).
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
