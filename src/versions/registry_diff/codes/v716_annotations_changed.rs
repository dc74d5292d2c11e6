//! V716 (severity by direction): annotations: `x-trust`/`x-sink` added or `x-authority` changed (error); `x-trust`/`x-sink` removed (warning)
//!
//! ## What it checks
//!
//! The safety annotations location by location (see V707 for locations):
//! `x-trust: untrusted` on outputs (inherited by everything inside, reported where it starts or
//! stops), `x-sink` on inputs, `x-authority` on both. `x-trust` added on an output location,
//! `x-sink` added on an input, `x-authority` added or removed: error. `x-trust` or `x-sink`
//! removed: warning.
//!
//! ## Why it matters
//!
//! Graphs valid under OLD may route that output to a sink (A405) or bind an
//! authority input from another source (A403). Removing a mark breaks nothing but tracks less
//! taint: a reviewer must see it.
//!
//! ## Example
//!
//! ```json
//! {"outputs": {"properties": {"text": {"type": "string", "x-trust": "untrusted"}}}}
//! ```
//!
//! in NEW where OLD had `{"type": "string"}`.
//!
//! Fixture `tests/fixtures/registry-diff/v716-trust-added/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v716-trust-added/new.json`) reports V716 at line 88:
//!
//! ```json
//! "x-trust": "untrusted"
//! ```
//!
//! Does not fire: A `description` change beside the annotation.
//!
//! ## Fix
//!
//! Added marks belong in a major; removed ones need a reviewer's confirmation.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
