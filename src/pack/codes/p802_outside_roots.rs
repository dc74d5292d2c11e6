//! P802 (error): a primitive outside the pack's `roots`, a root that is a registry family prefix, or a root two packs claim.
//!
//! ## What it checks
//!
//! Every primitive ID's first segment and every family `prefix` of a pack is one of its
//! `roots`; no root equals a family prefix of the base registry (the embedded Kernel ABI or
//! `--registry`); and no two packs loaded together claim the same root.
//!
//! ## Why it matters
//!
//! The kernel is frozen: a pack extends it in its own namespace and can never add to or
//! shadow `obs.*` or `mut.*`. Two packs with one root would make `prefix.*` capabilities and
//! selectors ambiguous.
//!
//! ## Example
//!
//! A pack claiming the kernel prefix `obs` among its roots.
//!
//! Fixture `tests/fixtures/packs/p802/pack.json` (linted with `primgraph pack lint`) reports P802 at line 6:
//!
//! ```json
//! "roots": ["pfb", "obs"],
//! ```
//!
//! ## Fix
//!
//! Name a root of your own (`pyrepo`), and give your primitives IDs under it.
//!
//! ## Implements
//!
//! SPEC §9.1 and §9.2 (the pack, composition); the code is listed in §9's table.
