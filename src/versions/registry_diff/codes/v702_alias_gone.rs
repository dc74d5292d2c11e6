//! V702 (error): an alias is gone, or now names another primitive
//!
//! ## What it checks
//!
//! Every alias of OLD still names the same primitive in NEW.
//!
//! ## Why it matters
//!
//! Graphs may reference a primitive by alias (`APPLY_PATCH`). A missing alias
//! makes them R101; a reassigned alias silently runs another contract.
//!
//! ## Example
//!
//! ```json
//! {"id": "mut.apply_patch", "alias": "APPLY_DIFF"}
//! ```
//!
//! in NEW, where OLD said `"alias": "APPLY_PATCH"`.
//!
//! Fixture `tests/fixtures/registry-diff/v702-alias-renamed/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v702-alias-renamed/new.json`) reports V702 at line 127:
//!
//! ```json
//! "alias": "READ_TEXT",
//! ```
//!
//! Does not fire: The alias and ID pair is the same in both.
//!
//! ## Fix
//!
//! An alias keeps its primitive for ever; add a new primitive instead of renaming.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
