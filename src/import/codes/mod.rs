//! The import codes I901–I904 (SPEC §10): one file per code, whose `//!` header is the code's
//! documentation (`primgraph explain I901`). The rows are in `src/codes.rs`; the checks are in
//! the format readers (`inspect`, `otel`, `agents`) and the mapping (`convert`).

pub mod i901;
pub mod i902;
pub mod i903;
pub mod i904;
