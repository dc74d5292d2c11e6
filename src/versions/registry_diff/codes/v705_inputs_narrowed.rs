//! V705 (error): inputs narrowed: a value OLD's `inputs` admits and NEW's rejects (witness)
//!
//! ## What it checks
//!
//! NEW's `inputs` schema admits every value OLD's admits (OLD ⊆ NEW), with the
//! §3.2 checker. A `no` comes with a witness value that OLD admits and NEW rejects, confirmed
//! against both registries' compiled schemas. When the checker cannot decide, V705 is a warning
//! saying `unknown` and why — never a silent pass.
//!
//! ## Why it matters
//!
//! Every binding and constant valid under OLD must stay valid under NEW, and every
//! recorded input must still satisfy the schema (T305, T307, D606).
//!
//! ## Example
//!
//! ```json
//! {"inputs": {"type": "object", "properties": {"path": {"type": "string"}, "depth": {"type": "integer"}},
//!             "required": ["path", "depth"], "additionalProperties": false}}
//! ```
//!
//! where OLD required only `path`: witness `{"path": ""}`.
//!
//! Fixture `tests/fixtures/registry-diff/v705-input-narrowed/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v705-input-narrowed/new.json`) reports V705 at line 55:
//!
//! ```json
//! "inputs": {
//! ```
//!
//! Does not fire: An optional input added, an enum widened, a bound relaxed (those are V720).
//!
//! ## Fix
//!
//! Make the new input optional, or keep accepting the old values; or make the change in a
//! major.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
