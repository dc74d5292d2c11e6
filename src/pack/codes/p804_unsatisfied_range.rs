//! P804 (error): a range no pack on the pack path satisfies (`kernel_abi`, `requires`, a graph's `packs`), naming who asked.
//!
//! ## What it checks
//!
//! For each pack name asked for — by the graph's `packs` (`"packs": {"pyrepo": "^1.2"}`) or
//! by a selected pack's `requires` — resolution picks the highest version on the pack path that
//! satisfies every range asking for it. When none does, P804 names every asker and its range
//! and the versions found, located at the range that cannot be met (the graph's `packs` entry,
//! or the `requires` entry in `pack.json`). A selected pack whose `kernel_abi` the base
//! registry's `abi` does not satisfy is P804 at its `kernel_abi`.
//!
//! ## Why it matters
//!
//! Resolution is offline and deterministic: the same pack path gives the same packs on every
//! machine, and a graph that asks for a version nobody has fails where the request is written,
//! not later with an unknown primitive.
//!
//! ## Example
//!
//! A graph asking for `pyfix` `^9.0` when the pack path (`tests/fixtures/packs/path`) has only 1.2.0.
//!
//! Fixture `tests/fixtures/packs/p804.graph.json` (validated with `--pack tests/fixtures/packs/path`) reports P804 at line 5:
//!
//! ```json
//! "packs": {"pyfix": "^9.0"},
//! ```
//!
//! ## Fix
//!
//! Put a satisfying version on the pack path (`--pack DIR`, `packs = [...]` in
//! `primgraph.toml`), or widen the range.
//!
//! ## Implements
//!
//! SPEC §9.2 (composition, resolution and the lock); the code is listed in §9's table.
