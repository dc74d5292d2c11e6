//! V707 (error): an output location OLD declares is gone from NEW
//!
//! ## What it checks
//!
//! Every output location of OLD — a path through `properties`, `prefixItems` and
//! `items` (any element, shown as `*`), through `allOf`/`anyOf`/`oneOf` and local `$ref`s — is
//! still declared in NEW. The outermost missing location is reported, in OLD.
//!
//! ## Why it matters
//!
//! A binding `{"from": "ls", "at": "/paths"}` selects a location of the source's
//! outputs; when NEW no longer declares it, the binding is T304 (even when the object stays open
//! and the schema check alone would not see it).
//!
//! ## Example
//!
//! OLD's outputs declare `properties.truncated`; NEW's do not.
//!
//! Fixture `tests/fixtures/registry-diff/base.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v707-output-location-gone/new.json`) reports V707 at line 89:
//!
//! ```json
//! "truncated": {
//! ```
//!
//! Does not fire: A location added, or the same locations with tighter schemas.
//!
//! ## Fix
//!
//! Keep declaring the location (it may keep its schema, or be narrowed).
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
