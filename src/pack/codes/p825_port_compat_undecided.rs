//! P825 (warning): a port binding's compatibility is undecided.
//!
//! ## What it checks
//!
//! The §3.2 checker could not decide whether the port binding's source schema is within the port's
//! (a `pattern` with a look-ahead, a keyword combination outside the decided subset), or found a
//! witness that did not check out against both validators. The binding is not known to be wrong,
//! and not known to be right; the reason is in the message.
//!
//! ## Why it matters
//!
//! The checker never answers yes for an incompatible pair, so an undecided binding is reported
//! rather than passed silently.
//!
//! ## Example
//!
//! A use whose source pattern has a look-ahead, which the checker does not decide.
//!
//! Fixture `tests/fixtures/fragments/p825.graph.json` (validated with `--pack tests/fixtures/fragments/path`) reports P825 at line 11:
//!
//! ```json
//! "inputs": {"label": {"from": "$input", "at": "/label"}}}
//! ```
//!
//! ## Fix
//!
//! Simplify the schemas so the checker can decide (a regular `pattern`), or check the binding by hand and turn the warning off for that file in `primgraph.toml`.
//!
//! ## Implements
//!
//! SPEC §9.3 (fragments: checks at the boundary); the code is listed in §9's table.
