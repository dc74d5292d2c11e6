//! I902 (warning): a tool or span name with no mapping.
//!
//! ## What it checks
//!
//! Each tool call of an imported run maps to a node of the graph: through the mapping file's
//! `[tools]`, or because the tool's name is a node ID, or a primitive's ID or alias (also in
//! lower case: `search_text` for `SEARCH_TEXT`) that occurs at exactly one node. A tool that
//! maps to no node is reported once per run, with the first step that has it.
//!
//! ## Why it matters
//!
//! The step is not dropped: it is written as it was recorded, with `"node": null` and its
//! `"source_name"`, and replay reports it as a divergence (D603) — a run that called a tool the
//! graph has no node for did not follow the graph. The import summary counts the unmapped names.
//!
//! ## Example
//!
//! A run that called `grep`, which no node of the graph runs.
//!
//! Fixture `tests/fixtures/import/i902.otel.jsonl` (imported as `otel` against `tests/fixtures/import/lookup.graph.json`) reports I902 at line 2:
//!
//! ```json
//! {"resourceSpans":[…"gen_ai.tool.name","value":{"stringValue":"grep"}}…
//! ```
//!
//! ## Fix
//!
//! Name the tool in the mapping file, `[tools] grep = "search"`, or accept the divergence: the
//! graph does not have the step.
//!
//! Does not fire: a tool named `search_text` against a graph with one `obs.search_text` node.
//!
//! ## Implements
//!
//! SPEC §10 (an unmapped step is kept as written and reported, never silently dropped).
