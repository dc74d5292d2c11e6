//! P801 (error): `pack.json`, a fragment or a schema file is malformed (shape, unknown field, bad name or version).
//!
//! ## What it checks
//!
//! `pack.json` is strict: every member of SPEC §9.1's table with its type, `pack` matching
//! `^[a-z][a-z0-9-]*$`, `version` a semver `MAJOR.MINOR.PATCH`, `kernel_abi` and every
//! `requires` value a semver range (`^1.0`, `~1.2.3`, `>=1.0, <2`, `=1.2.3`, or a bare version,
//! which means exactly it), no unknown field at any level (`$schema` at the top is allowed for
//! editors), no duplicate key anywhere. A schema file must be a regular file of valid JSON (and
//! a valid JSON Schema); the pack folder holds regular files only — a symbolic link, a FIFO or a
//! device anywhere under it is P801 at that path — and `pack.json` is read only up to 8 MiB.
//!
//! ## Why it matters
//!
//! A reviewer reads the first of two duplicate keys, a last-wins loader runs the second; a
//! misspelt member (`sumary`, `primitve`) silently means nothing. A symbolic link makes the
//! digest and the signature cover something other than what loads.
//!
//! ## Example
//!
//! A member `sumary`, which `pack.json` does not have.
//!
//! Fixture `tests/fixtures/packs/p801/pack.json` (linted with `primgraph pack lint`) reports P801 at line 8:
//!
//! ```json
//! "sumary": "misspelt",
//! ```
//!
//! ## Fix
//!
//! Spell the member as SPEC §9.1 names it (the message suggests the nearest), remove the
//! duplicate key, or replace the link by the file.
//!
//! ## Implements
//!
//! SPEC §9.1 and §9.2 (the pack, composition); the code is listed in §9's table.
