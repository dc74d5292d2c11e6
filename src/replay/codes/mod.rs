//! The replay codes D601–D620 (SPEC §5): one file per code, whose `//!` header is the code's
//! documentation and whose body is the check; each code's row (severity, title, help) is in
//! `crate::codes`, and each check reports through it. A code the simulator can seed
//! (`simulate --faults`) also has its injector there, `inject`, which writes that code's defect
//! into a faithful run with the toolkit of `replay/fault.rs`; `src/simulate/faults.rs` keys them by
//! their code rows and verifies what they write.

pub mod d601_invalid_header;
pub mod d602_graph_digest_differs;
pub mod d603_divergence;
pub mod d604_primitive_differs;
pub mod d605_input_differs;
pub mod d606_input_schema;
pub mod d607_output_schema;
pub mod d608_evidence_missing;
pub mod d609_undeclared_failure_mode;
pub mod d610_undeclared_outcome;
pub mod d611_max_visits_exceeded;
pub mod d612_budget_exceeded;
pub mod d613_missing_grant;
pub mod d614_bad_end;
pub mod d615_chain_broken;
pub mod d616_malformed_line;
pub mod d617_seq_out_of_order;
pub mod d618_seal;
pub mod d619_pack_digest_differs;
pub mod d620_denied_path;
