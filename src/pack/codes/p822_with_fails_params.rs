//! P822 (error): `with` fails the fragment's `params` schema.
//!
//! ## What it checks
//!
//! The use site's `with` object, with the defaults of `params` filled in, is validated against
//! the fragment's `params` schema; each failure is reported at the failing value (the pointer of
//! the member of `with`, or `with` itself), with the checked parameters as the witness. A member
//! of `with` the fragment does not declare in `params.properties` is P822 too (did you mean), even
//! when `params` does not forbid extra members: a misspelled parameter would silently be ignored.
//! A parameter a fragment node reads (`{"param": NAME}`) with no value and no `default` is P822 at
//! the use site; a `{"param": NAME}` naming no parameter of the fragment is P822 in the fragment
//! file.
//!
//! ## Why it matters
//!
//! A parameter becomes a constant input or a `max_visits` bound of the expanded nodes; a value
//! outside its schema (a bound of 0, a string where a number goes) would change what the graph
//! does without any check saying so — the failure mode of argo's `templateRef` parameters.
//!
//! ## Example
//!
//! A use that asks for 0 attempts where the fragment's `params` says at least 1.
//!
//! Fixture `tests/fixtures/fragments/p822.graph.json` (validated with `--pack tests/fixtures/fragments/path`) reports P822 at line 12:
//!
//! ```json
//! {"id": "ship", "fragment": "shipkit/land", "with": {"attempts": 0},
//! ```
//!
//! ## Fix
//!
//! Pass values the `params` schema admits, or leave the parameter out to take its `default`.
//!
//! ## Implements
//!
//! SPEC §9.3 (fragments: checks at the boundary); the code is listed in §9's table.
