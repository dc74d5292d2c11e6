//! P806 (error): a pack whose digest differs from `primgraph.lock`, or a locked pack missing (or no lock with `--locked`).
//!
//! ## What it checks
//!
//! When a `primgraph.lock` exists, exactly the locked versions load, from their locked
//! paths, and each pack's digest (SPEC §9.2) must equal the locked one. A graph range the locked
//! version no longer satisfies, a pack the lock does not list, a locked pack whose folder is
//! gone, and `--locked` without a lock are P806 too.
//!
//! ## Why it matters
//!
//! A pack edited without relocking changes what every graph using it is checked against;
//! CI must catch it, as `Cargo.lock` catches a changed dependency.
//!
//! ## Example
//!
//! A lock whose recorded digest for `pyfix@1.2.0` is not the pack's (validating `locked.graph.json` beside it).
//!
//! Fixture `tests/fixtures/packs/p806/primgraph.lock` (validating the graph beside it) reports P806 at line 8:
//!
//! ```json
//! "digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
//! ```
//!
//! ## Fix
//!
//! Review the change to the pack, then run `primgraph pack lock` and commit the lock.
//!
//! ## Implements
//!
//! SPEC §9.2 (composition, resolution and the lock); the code is listed in §9's table.
