//! V704 (error): `class` or `authority` changed
//!
//! ## What it checks
//!
//! A primitive's `class` and `authority` are the same in OLD and NEW.
//!
//! ## Why it matters
//!
//! The class decides how graphs use a node (decision primitives branch, verifiers
//! satisfy A407, policy nodes grant and sanitize) and the authority what it may do (A401–A403).
//!
//! ## Example
//!
//! ```json
//! {"id": "ver.run_target_tests", "class": "deterministic", "authority": "propose"}
//! ```
//!
//! where OLD had `"class": "verification", "authority": "verify"`.
//!
//! Fixture `tests/fixtures/registry-diff/v704-class-changed/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v704-class-changed/new.json`) reports V704 at line 449:
//!
//! ```json
//! "class": "deterministic",
//! ```
//!
//! Does not fire: A change of `summary` only (that is V717).
//!
//! ## Fix
//!
//! Give the new contract a new ID and keep the old one; or make the change in a major.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
