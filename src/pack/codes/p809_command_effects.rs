//! P809 (error): a command's effects outside its primitive's, or `environment` contradicting an effect.
//!
//! ## What it checks
//!
//! A command a primitive may run has effects within the primitive's `effects`; and an
//! `environment` with `"network": false` has no primitive or command with the effect
//! `network`.
//!
//! ## Why it matters
//!
//! The primitive's `effects` are what validation trusts (A-rules, authorization); a command
//! that writes while its primitive only reads would do unchecked what the contract hides.
//!
//! ## Example
//!
//! Primitive `pff.lint` (effects: `reads_workspace`) running the command `ruff`, whose effects include `writes_workspace`.
//!
//! Fixture `tests/fixtures/packs/p809/pack.json` (linted with `primgraph pack lint`) reports P809 at line 15:
//!
//! ```json
//! "commands": ["ruff"]}
//! ```
//!
//! ## Fix
//!
//! Declare the effect on the primitive (and, for `writes_workspace`,
//! `requires_authorization`), or run a command without it.
//!
//! ## Implements
//!
//! SPEC §9.1 and §9.2 (the pack, composition); the code is listed in §9's table.
