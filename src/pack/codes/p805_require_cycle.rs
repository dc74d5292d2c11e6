//! P805 (error): packs that require each other in a cycle.
//!
//! ## What it checks
//!
//! The `requires` relation between the packs a resolution selects is acyclic. The search is
//! iterative; the message names the cycle (`cyca@1.0.0 → cycb@1.0.0 → cyca@1.0.0`).
//!
//! ## Why it matters
//!
//! Packs load dependencies first; a cycle has no first one, and usually means two packs
//! should be one.
//!
//! ## Example
//!
//! Pack `cyca` requiring `cycb`, which requires `cyca` (linted with `tests/fixtures/packs/cycle` on the pack path).
//!
//! Fixture `tests/fixtures/packs/cycle/cyca/pack.json` (linted with `primgraph pack lint`) reports P805 at line 8:
//!
//! ```json
//! "requires": {"cycb": "^1.0"},
//! ```
//!
//! ## Fix
//!
//! Merge the two packs, or move what both need into a third that neither requires back.
//!
//! ## Implements
//!
//! SPEC §9.1 and §9.2 (the pack, composition); the code is listed in §9's table.
