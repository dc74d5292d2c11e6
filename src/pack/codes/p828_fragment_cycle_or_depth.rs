//! P828 (error): fragment uses in a cycle, or nested deeper than 8.
//!
//! ## What it checks
//!
//! Fragment uses are checked before anything is expanded: they form no cycle (a fragment that
//! uses itself, directly or through others), and they nest at most 8 deep (a use in a graph is
//! depth 1, a use inside that fragment depth 2, …). The diagnostic is at the use that closes the
//! cycle (its witness the cycle of fragments) or that passes the depth, in the file it is written
//! in, with the chain of use sites that leads there as related locations. An expansion that would
//! produce more than 200,000 nodes is refused with P828 at the use site too.
//!
//! ## Why it matters
//!
//! A cycle would expand forever (terraform's module that sources itself), and very deep nesting
//! makes findings unreadable and expansion expensive; both are refused before any work is done,
//! with a located error instead of a stack overflow.
//!
//! ## Example
//!
//! `loop-a` uses `loop-b`, which uses `loop-a`.
//!
//! Fixture `tests/fixtures/fragments/p828.graph.json` (validated with `--pack tests/fixtures/fragments/path`) reports P828 at line 7 of `tests/fixtures/fragments/path/shipkit/fragments/loop-b.fragment.json`:
//!
//! ```json
//! {"id": "again", "fragment": "shipkit/loop-a", "exits": {"out": {"exit": "out"}}}
//! ```
//!
//! ## Fix
//!
//! Break the cycle, or flatten the nesting to at most 8 levels.
//!
//! ## Implements
//!
//! SPEC §9.3 (fragments: checks at the boundary); the code is listed in §9's table.
