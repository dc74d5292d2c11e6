//! P823 (error): an input port unbound, bound twice, or unknown.
//!
//! ## What it checks
//!
//! Every input port the fragment declares in `inputs` is bound exactly once in the use site's
//! `inputs`, and no other name is bound there (did you mean). (A port bound twice in one object is
//! a duplicate key, refused when the file is read.) In the fragment itself, a `{"from": "$in",
//! "at": P}` binding whose first token of `P` names no declared port is P823 in the fragment
//! file.
//!
//! ## Why it matters
//!
//! An unbound port leaves the fragment's nodes reading nothing; an unknown one is usually a typo
//! of a port that is then unbound.
//!
//! ## Example
//!
//! A use that binds `test` where the port is `tests`.
//!
//! Fixture `tests/fixtures/fragments/p823.graph.json` (validated with `--pack tests/fixtures/fragments/path`) reports P823 at line 13:
//!
//! ```json
//! "inputs": {"patch": {"from": "draft", "at": "/patch"}, "test": {"from": "intake", "at": "/test_ids"}},
//! ```
//!
//! ## Fix
//!
//! Bind each declared port once, by its declared name.
//!
//! ## Implements
//!
//! SPEC §9.3 (fragments: checks at the boundary); the code is listed in §9's table.
