//! P841 (warning): a rule selector that matches no primitive
//!
//! ## What it checks
//!
//! Every selector of every valid rule of a loaded pack (`target`, `through`, `from`, `to`,
//! `unless_through`) against the effective registry of the composition (the base registry and
//! every loaded pack): at least one primitive satisfies all of its fields (for `outcome`, the
//! primitive declares that outcome). The finding points at the selector in `pack.json`.
//!
//! ## Why it matters
//!
//! A selector that matches nothing makes its rule vacuous or absolute: a `target` that matches
//! no primitive never fires, and a `through` that matches none fires at every target. Both are
//! usually a typo in an ID, a family name or a class.
//!
//! ## Example
//!
//! No primitive has the ID `pfs.run_tets` (the pack's is `pfs.run_tests`).
//!
//! Fixture `tests/fixtures/packs/p841/pack.json` (linted with `primgraph pack lint`) reports P841 at line 20:
//!
//! ```json
//! "target": {"primitive": "pfs.land"}, "through": {"primitive": "pfs.run_tets"}}
//! ```
//!
//! ## Fix
//!
//! Name a primitive, family, class, authority, effect or pack that exists in the composition.
//!
//! ## Implements
//!
//! SPEC §9.4 (rules: validators and policy hooks); the code is listed in §9.7's table.
