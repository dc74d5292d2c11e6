//! The plugin checks of `pack lint` (SPEC §9.7), one file per code: each file's `//!` header is
//! the code's documentation (`primgraph explain P870`) and its `check` the check. The rows are
//! in `src/codes.rs`.

pub mod p870_not_a_component;
pub mod p871_import_not_allowed;
pub mod p872_contract_differs;
