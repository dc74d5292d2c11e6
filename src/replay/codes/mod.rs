//! The replay codes D601–D620 (SPEC §5): one file per code, whose `//!` header is the code's
//! documentation and whose body is the check; each code's row (severity, title, help) is in
//! `crate::codes`, and each check reports through it. A code the simulator can seed
//! (`simulate --faults`) also has its injector there, `inject`, which writes that code's defect
//! into a faithful run with the toolkit of `replay/fault.rs`; `src/simulate/faults.rs` keys them by
//! their code rows and verifies what they write.

pub mod d601;
pub mod d602;
pub mod d603;
pub mod d604;
pub mod d605;
pub mod d606;
pub mod d607;
pub mod d608;
pub mod d609;
pub mod d610;
pub mod d611;
pub mod d612;
pub mod d613;
pub mod d614;
pub mod d615;
pub mod d616;
pub mod d617;
pub mod d618;
pub mod d619;
pub mod d620;
