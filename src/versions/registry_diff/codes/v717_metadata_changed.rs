//! V717 (info): metadata changed: `summary`, `family`, `evaluation`
//!
//! ## What it checks
//!
//! The descriptive fields of a primitive (`summary`, `family`, `evaluation`), the
//! family table, schema descriptions, and schema rewrites the checker proves equivalent.
//!
//! ## Why it matters
//!
//! Nothing breaks, but the registry says something else: it requires a higher
//! patch, so two files with the same `abi` always say the same.
//!
//! ## Example
//!
//! A reworded `summary`.
//!
//! Fixture `tests/fixtures/registry-diff/v717-metadata/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v717-metadata/new.json`) reports V717 at line 55:
//!
//! ```json
//! "inputs": {
//! ```
//!
//! Does not fire: No change at all.
//!
//! ## Fix
//!
//! Raise the patch (`1.1.0` → `1.1.1`).
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
