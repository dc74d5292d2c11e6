//! V719 (error): with `--graphs`: a graph with no errors under OLD has errors under NEW
//!
//! ## What it checks
//!
//! Each graph given with `--graphs` (files, or folders searched recursively for
//! `*.graph.json`) is validated under OLD and under NEW — under NEW as if its `abi` targeted NEW,
//! so a major bump alone is not a finding. A graph with no errors under OLD and errors under NEW
//! is one V719, in the graph's file at its first new error; every error under NEW is a related
//! location (file, pointer, line, `CODE: message`).
//!
//! ## Why it matters
//!
//! A schema comparison says what may break; this says what does, on the real edges
//! of your graphs.
//!
//! ## Example
//!
//! OLD → NEW narrows `mut.apply_patch`'s `patch` input, and a graph binds a value NEW rejects
//! (T305).
//!
//! Fixture `tests/fixtures/registry-diff/v719-graph-broken/graphs/list-then-finish.graph.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v719-graph-broken/new.json`, graphs `tests/fixtures/registry-diff/v719-graph-broken/graphs`) reports V719 at line 8:
//!
//! ```json
//! "inputs": {"path": {"const": "src"}}, "next": "done"},
//! ```
//!
//! Does not fire: Graphs already failing under OLD (counted in the summary), or graphs the change
//! does not touch.
//!
//! ## Fix
//!
//! Fix the graph in the same change, or keep the old contract.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
