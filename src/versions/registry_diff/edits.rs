//! Seeded edits of a registry document, for the `registry_diff` benchmark and the property
//! tests: each [`Edit`] changes one primitive in one way `registry diff` must report (or, for
//! the compatible ones, report without an error), and [`scattered`] applies `n` of them to
//! distinct primitives spread over the file.

use serde_json::{Value, json};

/// One change to the primitive at an index of `primitives`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// V701.
    Remove,
    /// V702.
    RenameAlias,
    /// V717.
    RewordSummary,
    /// V710 (added).
    AddEvidence,
    /// V711 (added).
    AddFailureMode,
    /// V715 (set) or V715 (cleared).
    FlipTerminal,
    /// V705 (a new required input).
    RequireNewInput,
    /// V720 (an optional input added).
    AddOptionalInput,
    /// V707 (an output property removed) — or nothing when it has none.
    DropOutputProperty,
    /// V716 (`x-trust: untrusted` on every top-level output property).
    MarkOutputsUntrusted,
}

impl Edit {
    pub const ALL: [Edit; 10] = [
        Edit::Remove,
        Edit::RenameAlias,
        Edit::RewordSummary,
        Edit::AddEvidence,
        Edit::AddFailureMode,
        Edit::FlipTerminal,
        Edit::RequireNewInput,
        Edit::AddOptionalInput,
        Edit::DropOutputProperty,
        Edit::MarkOutputsUntrusted,
    ];
}

/// Apply `edit` to primitive `index` of a registry document (nothing when out of range).
/// `Remove` shifts later indices: apply removals last, or from the end.
pub fn apply(root: &mut Value, index: usize, edit: Edit) {
    let Some(primitives) = root.get_mut("primitives").and_then(Value::as_array_mut) else {
        return;
    };
    if index >= primitives.len() {
        return;
    }
    if edit == Edit::Remove {
        primitives.remove(index);
        return;
    }
    let p = &mut primitives[index];
    match edit {
        Edit::Remove => {}
        Edit::RenameAlias => {
            let alias = p["alias"].as_str().unwrap_or("X").to_string();
            p["alias"] = Value::from(format!("{alias}_V2"));
        }
        Edit::RewordSummary => {
            let summary = p["summary"].as_str().unwrap_or("").to_string();
            p["summary"] = Value::from(format!("{summary} (reworded)"));
        }
        Edit::AddEvidence => push(&mut p["evidence"], "edited_evidence"),
        Edit::AddFailureMode => push(&mut p["failure_modes"], "edited_failure"),
        Edit::FlipTerminal => {
            let terminal = p["terminal"].as_bool().unwrap_or(false);
            p["terminal"] = Value::from(!terminal);
        }
        Edit::RequireNewInput | Edit::AddOptionalInput => {
            let inputs = &mut p["inputs"];
            if let Some(props) = inputs.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert("edited_input".into(), json!({"type": "string"}));
            }
            if edit == Edit::RequireNewInput {
                push(&mut inputs["required"], "edited_input");
            }
        }
        Edit::DropOutputProperty => {
            let outputs = &mut p["outputs"];
            let first = outputs
                .get("properties")
                .and_then(Value::as_object)
                .and_then(|props| props.keys().next().cloned());
            if let Some(name) = first {
                if let Some(props) = outputs["properties"].as_object_mut() {
                    props.shift_remove(&name);
                }
                if let Some(required) = outputs.get_mut("required").and_then(Value::as_array_mut) {
                    required.retain(|r| r.as_str() != Some(&name));
                }
            }
        }
        Edit::MarkOutputsUntrusted => {
            if let Some(props) = p["outputs"]
                .get_mut("properties")
                .and_then(Value::as_object_mut)
            {
                for schema in props.values_mut() {
                    if let Some(schema) = schema.as_object_mut() {
                        schema.insert("x-trust".into(), Value::from("untrusted"));
                    }
                }
            }
        }
    }
}

fn push(list: &mut Value, member: &str) {
    match list {
        Value::Array(items) => items.push(Value::from(member)),
        other => *other = json!([member]),
    }
}

/// `n` edits on distinct primitives spread evenly over the file, cycling through
/// [`Edit::ALL`] from `seed`; removals are applied last so the indices stay meaningful.
/// Returns the edited document and the (original index, edit) pairs.
pub fn scattered(root: &Value, n: usize, seed: u64) -> (Value, Vec<(usize, Edit)>) {
    let mut out = root.clone();
    let len = root["primitives"].as_array().map_or(0, Vec::len);
    if len == 0 || n == 0 {
        return (out, Vec::new());
    }
    let n = n.min(len);
    let stride = len / n;
    let offset = (seed as usize) % stride.max(1);
    let edits: Vec<(usize, Edit)> = (0..n)
        .map(|k| {
            let edit = Edit::ALL[(seed as usize + k) % Edit::ALL.len()];
            (k * stride + offset, edit)
        })
        .collect();
    for &(index, edit) in edits.iter().filter(|(_, e)| *e != Edit::Remove) {
        apply(&mut out, index, edit);
    }
    let mut removals: Vec<usize> = edits
        .iter()
        .filter(|(_, e)| *e == Edit::Remove)
        .map(|(i, _)| *i)
        .collect();
    removals.sort_unstable_by(|a, b| b.cmp(a));
    for index in removals {
        apply(&mut out, index, Edit::Remove);
    }
    (out, edits)
}
