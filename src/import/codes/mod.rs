//! The import codes I901–I904 (SPEC §10): one file per code, whose `//!` header is the code's
//! documentation (`primgraph explain I901`). The rows are in `src/codes.rs`; the checks are in
//! the format readers (`inspect`, `otel`, `agents`) and the mapping (`convert`).

pub mod i901_source_not_of_format;
pub mod i902_unmapped_name;
pub mod i903_uncaptured_payload;
pub mod i904_ambiguous_order;
