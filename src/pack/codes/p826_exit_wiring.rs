//! P826 (error): an exit unwired, unknown, or targeted inside the fragment but not declared.
//!
//! ## What it checks
//!
//! Every exit the fragment declares in `exits` is wired in the use site's `exits` (to a node of
//! the graph, or inside a fragment to a node or to `{"exit": NAME}` of the enclosing fragment), and
//! only declared exits are wired (did you mean). Inside the fragment, a successor
//! `{"exit": NAME}` (in `next`, `branches`, `on_error` or a nested use's `exits`) must name a
//! declared exit (P826 in the fragment file).
//!
//! ## Why it matters
//!
//! An unwired exit is a path out of the fragment that goes nowhere: the expanded node would have
//! no successor for that outcome.
//!
//! ## Example
//!
//! A use that wires `landed` but not `failed`.
//!
//! Fixture `tests/fixtures/fragments/p826.graph.json` (validated with `--pack tests/fixtures/fragments/path`) reports P826 at line 14:
//!
//! ```json
//! "exits": {"landed": "done"}},
//! ```
//!
//! ## Fix
//!
//! Wire every declared exit: `"exits": {"landed": "done", "failed": "give_up"}`.
//!
//! ## Implements
//!
//! SPEC §9.3 (fragments: checks at the boundary); the code is listed in §9's table.
