//! P821 (error): an unknown fragment (did you mean).
//!
//! ## What it checks
//!
//! A use site's `fragment` must name a fragment of a pack the graph declares, as `PACK/NAME`:
//! the pack is one of the graph's `packs` (a fragment of a pack the graph does not declare is
//! P811), and the pack has a fragment file `NAME.fragment.json` listed by its `fragments` globs.
//! Inside a fragment, a nested use names a fragment of the same pack or of a pack it `requires`.
//! The help suggests the nearest fragment name of that pack.
//!
//! ## Why it matters
//!
//! Expansion replaces the use by the fragment's nodes before any other check; a use that names
//! nothing cannot be expanded, so nothing about the graph around it could be trusted either.
//!
//! ## Example
//!
//! A use that misspells the fragment `land` of the `shipkit` pack.
//!
//! Fixture `tests/fixtures/fragments/p821.graph.json` (validated with `--pack tests/fixtures/fragments/path`) reports P821 at line 12:
//!
//! ```json
//! {"id": "ship", "fragment": "shipkit/lnad", "with": {"attempts": 3},
//! ```
//!
//! ## Fix
//!
//! Name an existing fragment (`shipkit/land`), or declare the pack that has it in the graph's `packs`.
//!
//! ## Implements
//!
//! SPEC §9.3 (fragments: checks at the boundary); the code is listed in §9's table.
