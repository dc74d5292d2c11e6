//! Schema compatibility (SPEC §3.2): does every value the source schema admits satisfy the target?
//!
//! SKELETON: filled in by the schema-compatibility work; the API keeps its shape.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Yes,
    No { witness: Value, reason: String },
    Unknown { reason: String },
}

/// Decide source ⊆ target.
pub fn check(_source: &Value, _target: &Value) -> Verdict {
    Verdict::Unknown {
        reason: "not implemented".into(),
    }
}
