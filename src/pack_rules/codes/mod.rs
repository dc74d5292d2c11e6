//! The documentation of the pack rule codes P840 (an invalid rule) and P841 (a selector that
//! matches nothing), SPEC §9.4: one file per code, whose `//!` header is what `primgraph explain`
//! prints, registered in the one code table (`crate::codes`). The checks live in
//! `pack_rules::parse` (P840) and `pack_rules::lint_selectors` (P841).

mod p840_invalid_rule;
mod p841_selector_matches_nothing;
