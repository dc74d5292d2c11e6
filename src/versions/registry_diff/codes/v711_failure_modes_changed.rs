//! V711 (severity by direction): `failure_modes`: one removed (error) / one added (info)
//!
//! ## What it checks
//!
//! The error classes a primitive may end in. One removed is an error; one added is
//! an info (a minor change).
//!
//! ## Why it matters
//!
//! Graphs with an `on_error` entry for a removed mode fail S208, and runs that
//! ended in it fail D609. A new mode is routed by `*` handlers or ends the run as before.
//!
//! ## Example
//!
//! OLD's `"failure_modes": ["timeout", "path_not_found"]` loses `timeout` in NEW.
//!
//! Fixture `tests/fixtures/registry-diff/v711-failure-mode-removed/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v711-failure-mode-removed/new.json`) reports V711 at line 160:
//!
//! ```json
//! "failure_modes": [],
//! ```
//!
//! Does not fire: A mode added (info).
//!
//! ## Fix
//!
//! Keep declaring the old mode.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
