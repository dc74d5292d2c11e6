//! P803 (error): an ID or alias that collides with the registry or another loaded pack.
//!
//! ## What it checks
//!
//! IDs and aliases are unique across the whole composition: the base registry and every
//! loaded pack.
//!
//! ## Why it matters
//!
//! A lookup by alias must name one primitive; a pack alias equal to a kernel alias would
//! change what an existing graph's node runs.
//!
//! ## Example
//!
//! A pack primitive whose alias `LIST_FILES` is the kernel's `obs.list_files`.
//!
//! Fixture `tests/fixtures/packs/p803/pack.json` (linted with `primgraph pack lint`) reports P803 at line 9:
//!
//! ```json
//! {"id": "pfc.list", "alias": "LIST_FILES", "family": "pfc-fam", "class": "deterministic",
//! ```
//!
//! ## Fix
//!
//! Rename the alias, for instance with the pack's root as its prefix (`PYREPO_LIST_FILES`).
//!
//! ## Implements
//!
//! SPEC §9.1 and §9.2 (the pack, composition); the code is listed in §9's table.
