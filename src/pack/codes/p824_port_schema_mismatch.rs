//! P824 (error): a port binding's source schema is not within the port's (witness).
//!
//! ## What it checks
//!
//! For each port binding `{"from": X, "at": P}` the source schema (X's output schema at `P`, or the
//! graph's `input` at `P` for `$input`; through output ports when X is another fragment use) must
//! be within the port's schema by the §3.2 checker (source ⊆ port). When it is not, the diagnostic
//! carries a witness: a value the source admits and the port rejects, confirmed by both compiled
//! validators, as T305. A constant bound to a port is validated against the port's schema.
//!
//! ## Why it matters
//!
//! A port is the fragment's typed boundary: its nodes are written against the port's schema, and
//! expansion then checks them as written. A binding that does not fit the port would only be
//! found, if at all, inside the fragment, far from the mistake.
//!
//! ## Example
//!
//! A use that binds the `patch` port (a non-empty string) from the issue's `summary`, which may be empty.
//!
//! Fixture `tests/fixtures/fragments/p824.graph.json` (validated with `--pack tests/fixtures/fragments/path`) reports P824 at line 13:
//!
//! ```json
//! "inputs": {"patch": {"from": "intake", "at": "/summary"}, "tests": {"from": "intake", "at": "/test_ids"}},
//! ```
//!
//! ## Fix
//!
//! Bind the port from a value its schema admits (here the drafted patch), or narrow the source.
//!
//! ## Implements
//!
//! SPEC §9.3 (fragments: checks at the boundary); the code is listed in §9's table.
