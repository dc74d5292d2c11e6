//! P840 (error): an invalid rule (kind, selector field, bound)
//!
//! ## What it checks
//!
//! Every entry of a pack's `rules` array (SPEC §9.4): an object with an `id`
//! (`^[a-z][a-z0-9_-]*$`, unique in the pack), a `kind` among `requires_before`,
//! `requires_after`, `forbids_path` and `bounded`, exactly the members that kind uses (`target`
//! and `through`; `from`, `to` and optionally `unless_through`; `target` and `max_visits`), a
//! `severity` of `error` (the default), `warning` or `info`, and string `summary` and `help`.
//! Every selector is a non-empty object of the fields `primitive` (an ID, an alias or
//! `prefix.*`), `family`, `class`, `authority`, `effect` and `pack`, with known class,
//! authority and effect names; `outcome` is allowed only where a path passes a node (`through`,
//! `unless_through`). `max_visits` is a positive integer. The finding points at the offending
//! member in `pack.json`.
//!
//! ## Why it matters
//!
//! A rule that cannot be read checks nothing: a misspelt selector field or kind would otherwise
//! pass every graph silently. An invalid rule is left out (the rest of the pack still loads)
//! and reported, so the pack's CI (`primgraph pack test`, `pack lint`) fails on it.
//!
//! ## Example
//!
//! `thru` is not a member of a `requires_before` rule (and `through` is missing).
//!
//! Fixture `tests/fixtures/packs/p840/pack.json` (linted with `primgraph pack lint`) reports P840 at line 20:
//!
//! ```json
//! "target": {"primitive": "pfr.land"}, "thru": {"primitive": "pfr.run_tests"}}
//! ```
//!
//! ## Fix
//!
//! Write the rule as SPEC §9.4 shows: the kind's members, selector fields from the list, a
//! positive bound. `primgraph explain P840` lists them.
//!
//! ## Implements
//!
//! SPEC §9.4 (rules: validators and policy hooks); the code is listed in §9.7's table.
