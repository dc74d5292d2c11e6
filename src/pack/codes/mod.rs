//! The documentation of the pack codes (SPEC §9): one file per code, whose `//!` header is what
//! `primgraph explain` prints; the rows are in `crate::codes`. The checks themselves live where
//! the pack is read (`manifest`, `digest`, `signature`), resolved (`resolve`, `lock`) and
//! composed (`compose`), and P811 in `crate::validate`'s pack step.

pub mod p801;
pub mod p802;
pub mod p803;
pub mod p804;
pub mod p805;
pub mod p806;
pub mod p807;
pub mod p808;
pub mod p809;
pub mod p811;
// Fragments (SPEC §9.3).
pub mod p821;
pub mod p822;
pub mod p823;
pub mod p824;
pub mod p825;
pub mod p826;
pub mod p827;
pub mod p828;
