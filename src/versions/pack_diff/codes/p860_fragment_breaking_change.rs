//! P860 (error): `pack diff`: a breaking fragment interface change.
//!
//! ## What it checks
//!
//! `primgraph pack diff OLD NEW` compares each fragment of OLD with the fragment of the same
//! name in NEW, by its interface: `params` (every `with` OLD accepts must pass NEW's schema,
//! else the finding carries a witness), the `inputs` ports (a port removed, added, or narrowed:
//! a value OLD's port accepts and NEW's rejects), the `exits` (one added or removed), the
//! `outputs` ports (one removed, or widened: a value NEW's may produce that OLD's schema
//! rejects), and a fragment removed. Each is P860, in the fragment file (NEW's, or OLD's for
//! what is gone), and requires a major bump.
//!
//! ## Why it matters
//!
//! A graph uses a fragment through its interface: it binds every input port, passes `with`,
//! wires every exit and reads output ports. Any of these changes breaks a graph that used the
//! fragment as OLD defined it (P822, P823, P824, P826 at its use site).
//!
//! ## Example
//!
//! NEW's `verify-and-land` adds the exit `skipped`.
//!
//! Fixture `tests/fixtures/pack-wire/diff/new/pyship/fragments/verify-and-land.fragment.json` (pack diff of `tests/fixtures/pack-wire/diff/old/pyship` and `tests/fixtures/pack-wire/diff/new/pyship`) reports P860 at line 8:
//!
//! ```json
//! "exits": ["landed", "failed", "skipped"],
//! ```
//!
//! ## Fix
//!
//! Keep the interface, or release the change in a new major (`version` 2.0.0) and update the
//! graphs that use the fragment.
//!
//! Does not fire: a fragment whose ports, parameters and exits are unchanged (its nodes may
//! change freely).
//!
//! ## Implements
//!
//! SPEC §9.6 (pack versions compared); the code is listed in §9's table.
