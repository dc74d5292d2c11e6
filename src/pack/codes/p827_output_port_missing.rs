//! P827 (error): an output port naming a missing node or an undeclared pointer.
//!
//! ## What it checks
//!
//! Each of the fragment's `outputs` ports is `{"from": NODE, "at": POINTER}`: `NODE` names a node
//! of the fragment and `POINTER` is a pointer its primitive's output schema declares (through
//! `properties` and `items`), or, when `NODE` uses a fragment, a pointer that starts with one of
//! that fragment's output ports. Reported in the fragment file, once per validation, when a graph
//! uses the fragment. Declared means named: every step is a property some part of the schema
//! lists (through `$ref`, `allOf`, `anyOf`, `oneOf`) or an index its `items`/`prefixItems`
//! cover. An open object schema admits other properties without declaring them, so a port at
//! one is P827 — a binding's T304, by contrast, fires only where the schema rules the value out.
//!
//! ## Why it matters
//!
//! Downstream bindings read a use through its output ports (`{"from": "ship", "at":
//! "/result/sha"}`); a port that reads nothing would make every such binding point nowhere.
//!
//! ## Example
//!
//! A fragment whose `sha` port reads `/commit`, which `ver.run_target_tests` does not output.
//!
//! Fixture `tests/fixtures/fragments/p827.graph.json` (validated with `--pack tests/fixtures/fragments/path`) reports P827 at line 7 of `tests/fixtures/fragments/path/shipkit/fragments/badport.fragment.json`:
//!
//! ```json
//! "sha": {"from": "test", "at": "/commit"}
//! ```
//!
//! ## Fix
//!
//! Point the port at a node of the fragment and a pointer its output schema declares.
//!
//! ## Implements
//!
//! SPEC §9.3 (fragments: checks at the boundary); the code is listed in §9's table.
