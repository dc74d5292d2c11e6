//! P807 (error): a `pack.sig` that does not verify, or none by a trusted key under `--trust-pack`.
//!
//! ## What it checks
//!
//! Whenever `pack.sig` is present it must verify: `{"signer": "ed25519:" + 64 hex, "sig":
//! "ed25519:" + 128 hex}`, the Ed25519 signature over `"primgraph-pack-v1\n" + name + "\n" +
//! version + "\n" + digest`. With trusted keys (`--trust-pack KEY.pub`, repeatable, or
//! `trust_pack` in `primgraph.toml`), every loaded pack must carry a signature by one of them.
//!
//! ## Why it matters
//!
//! A signature that does not verify means the pack changed after it was signed; ignoring it
//! because no key is trusted would let an edited pack pass as signed (OPA's advisory
//! GHSA-g2pf-6v5v-qcc8 is the lesson).
//!
//! ## Example
//!
//! A `pack.sig` whose signature is not the signer's over this pack.
//!
//! Fixture `tests/fixtures/packs/p807/pack.sig` (linted with `primgraph pack lint`) reports P807 at line 3:
//!
//! ```json
//! "sig": "ed25519:00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
//! ```
//!
//! ## Fix
//!
//! Sign the pack again after the change: `primgraph pack sign DIR --key KEY`; trust its
//! public key with `--trust-pack KEY.pub`.
//!
//! ## Implements
//!
//! SPEC §9.1 and §9.2 (the pack, composition); the code is listed in §9's table.
