//! V718 (error): NEW's `abi` does not rise as the differences require
//!
//! ## What it checks
//!
//! The required bump — any error: a higher major; otherwise any warning, an added
//! primitive (V703) or a minor-level info (V710 removed, V711 added, V715 set, V720): a higher
//! minor (or major); otherwise metadata (V717): a higher patch; no difference: none — against
//! NEW's `abi` (semver: a higher major satisfies everything, a higher minor with the same major
//! satisfies minor and patch). An `abi` lower than OLD's never satisfies. With `--graphs`, a V719
//! counts as an error.
//!
//! ## Why it matters
//!
//! Graphs target an ABI (G005: same major, minor at least theirs); a breaking
//! registry that keeps its major lets old graphs run against contracts they were not checked
//! against.
//!
//! ## Example
//!
//! A primitive removed (V701) and NEW's `"abi": "1.1.0"` over OLD's `"1.0.0"`.
//!
//! Fixture `tests/fixtures/registry-diff/v718-abi-not-raised/new.json` (OLD `tests/fixtures/registry-diff/base.json`, NEW `tests/fixtures/registry-diff/v718-abi-not-raised/new.json`) reports V718 at line 2:
//!
//! ```json
//! "abi": "1.1.0",
//! ```
//!
//! Does not fire: The same with `"abi": "2.0.0"`.
//!
//! ## Fix
//!
//! Set NEW's `abi` to at least the version named in the help.
//!
//! ## Implements
//!
//! SPEC §6.1 (registry versions compared); the code is listed in §5.
