//! P811 (error): a graph uses a primitive or fragment of a pack it does not declare (help: the `packs` entry to add).
//!
//! ## What it checks
//!
//! A graph uses only the primitives of the packs it declares in `packs`. A node naming a
//! primitive of a pack that is only required by another pack, or of a pack on the pack path that
//! the graph does not declare at all, is P811 (instead of R101), and the help names the `packs`
//! entry to add. A node a fragment puts in the graph is served by the fragment's own pack and
//! that pack's `requires` (and by the graph's `packs`): it is P811 only when none of those has
//! its primitive's pack, located in the fragment file, the help naming the `requires` entry to
//! add to the fragment's pack.
//!
//! ## Why it matters
//!
//! A pack's own requirements serve its fragments; a graph that silently relied on them would
//! break when that pack drops a requirement, and the graph would not say which pack version
//! its nodes need.
//!
//! ## Example
//!
//! A graph running `pyfix.run_pytest` without declaring `pyfix` (the pack path is `tests/fixtures/packs/path`).
//!
//! Fixture `tests/fixtures/packs/p811.graph.json` (validated with `--pack tests/fixtures/packs/path`) reports P811 at line 8:
//!
//! ```json
//! {"id": "test", "primitive": "pyfix.run_pytest", "inputs": {"target": {"const": "tests/test_x.py"}},
//! ```
//!
//! ## Fix
//!
//! Add the pack to the graph's `packs`, e.g. `"packs": {"pyfix": "^1.2"}`.
//!
//! ## Implements
//!
//! SPEC §9.2 (composition, resolution and the lock); the code is listed in §9's table.
