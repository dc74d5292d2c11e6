//! The documentation of the pack codes (SPEC §9): one file per code, whose `//!` header is what
//! `primgraph explain` prints; the rows are in `crate::codes`. The checks themselves live where
//! the pack is read (`manifest`, `digest`, `signature`), resolved (`resolve`, `lock`) and
//! composed (`compose`), and P811 in `crate::validate`'s pack step.

pub mod p801_malformed_pack;
pub mod p802_outside_roots;
pub mod p803_id_collision;
pub mod p804_unsatisfied_range;
pub mod p805_require_cycle;
pub mod p806_lock_mismatch;
pub mod p807_signature;
pub mod p808_dangling_reference;
pub mod p809_command_effects;
pub mod p811_undeclared_pack;
// Fragments (SPEC §9.3).
pub mod p821_unknown_fragment;
pub mod p822_with_fails_params;
pub mod p823_input_port_binding;
pub mod p824_port_schema_mismatch;
pub mod p825_port_compat_undecided;
pub mod p826_exit_wiring;
pub mod p827_output_port_missing;
pub mod p828_fragment_cycle_or_depth;
