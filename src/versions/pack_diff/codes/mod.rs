//! The `pack diff` codes P860–P862 (SPEC §9.6): one file per code, whose `//!` header is what
//! `primgraph explain` prints, registered in the one code table (`crate::codes`). The checks
//! live in `versions::pack_diff` (fragment interfaces, rules).

mod p860_fragment_breaking_change;
mod p861_fragment_compatible_change;
mod p862_rule_stricter;
