//! The replay codes D601–D617 (SPEC §5): one file per code, whose `//!` header is the code's
//! documentation and whose body is the check; each code's row (severity, title, help) is in
//! `crate::codes`, and each check reports through it.

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
