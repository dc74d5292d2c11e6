//! Validation rules (SPEC §3, §5): one file per rule, one table from codes to rules.
//!
//! SKELETON: filled in by the validation work.
