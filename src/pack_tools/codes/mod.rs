//! The documentation of the codes `pack test` reports itself (SPEC §9.5): one file per code,
//! whose `//!` header is what `primgraph explain` prints; the rows are in `crate::codes`.

pub mod p850_fixture_mismatch;
