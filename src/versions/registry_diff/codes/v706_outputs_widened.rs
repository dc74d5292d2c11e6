//! V706 (error): outputs widened: a value NEW's `outputs` admits and OLD's rejects (witness)
//!
//! ## What it checks
//!
//! NEW's `outputs` schema admits no value that OLD's rejects (NEW ⊆ OLD), with the
//! §3.2 checker; the witness is a value NEW may produce that OLD never did. Undecided: a warning
//! with `unknown` and the reason.
//!
//! ## Why it matters
//!
//! Consumers were checked (T305) against OLD's outputs; a value outside them can
//! reach an input that rejects it, and a recorded output may fail D607 the other way round.
//!
//! ## Example
//!
//! OLD's output `"status": {"enum": ["pass", "fail"]}` becomes
//! `{"enum": ["pass", "fail", "flaky"]}` in NEW: witness `{"status": "flaky", ...}`.
//!
//! Fixture `tests/fixtures/registry-diff/v706-output-widened/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v706-output-widened/new.json`) reports V706 at line 201:
//!
//! ```json
//! "decision": {
//! ```
//!
//! Does not fire: An output bound tightened (`maximum` lowered): V720.
//!
//! ## Fix
//!
//! Keep the outputs within OLD's; add the new value in a major.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
