//! P872 (error): a plugin whose embedded contract differs from the pack's.
//!
//! ## What it checks
//!
//! A plugin carries its contract in a custom section named `primgraph:contract`: the SPEC §1.2
//! JSON of its primitive, as the primitive's entry in `pack.json`'s `primitives` is written
//! (schema `$ref`s and `{"decision_set": …}` as written, not resolved). The two are compared
//! as JSON values: member order, white space and number spelling (`1` and `1.0`) do not
//! matter; anything else does, and the message lists each difference by JSON pointer
//! (`/effects: the pack has […], the plugin has […]`).
//!
//! The section is looked for at every depth of the component (a toolchain that puts custom
//! sections in the core module, as Rust's `#[link_section]` does, nests it one level down).
//! Also a P872: no such section; several with different contents; one over 1 MiB; one that is
//! not strict JSON (duplicate keys included).
//!
//! ## Why it matters
//!
//! The contract is what a plugin was written and reviewed against; a pack that edits the
//! contract (a new effect, another failure mode, a wider output) without rebuilding the plugin
//! ships code checked against something else. The embedded copy makes the pairing checkable.
//!
//! ## Example
//!
//! The plugin embeds the contract with `"effects": ["reads_workspace", "network"]`; the pack
//! declares `["reads_workspace"]`.
//!
//! Fixture `tests/fixtures/packs/plugins/p872/pack.json` (linted with `primgraph pack lint`) reports P872 at line 15:
//!
//! ```json
//!     "pfp.read": "read.wasm"
//! ```
//!
//! ## Fix
//!
//! Rebuild the plugin with the pack's contract embedded (the primitive's entry, copied from
//! `pack.json`), or put the plugin's contract back in `pack.json`. See `docs/plugins.md`.
//!
//! ## Implements
//!
//! SPEC §9.7 (the primitive plugin ABI) and §1.2 (the contract); the code is listed in §9's
//! table.

use super::super::component::ComponentRead;
use super::super::{CONTRACT_SECTION, MAX_CONTRACT_BYTES, PluginFinding};
use crate::codes::P872;
use crate::json::pointer;
use serde_json::Value;

/// The most differences listed in one message.
const MAX_LISTED: usize = 8;
/// The longest value shown in a difference, in chars.
const MAX_SHOWN: usize = 120;

pub fn check(read: &ComponentRead, contract: &Value) -> Vec<PluginFinding> {
    let finding = |message: String| PluginFinding::new(&P872, message);
    let Some(first) = read.contracts.first() else {
        return vec![finding(format!(
            "carries no `{CONTRACT_SECTION}` custom section: embed the primitive's contract \
             (its entry in `pack.json`) in the component"
        ))];
    };
    let distinct: Vec<u64> = read
        .contracts
        .iter()
        .filter(|s| s.data != first.data)
        .map(|s| s.offset)
        .collect();
    if !distinct.is_empty() {
        return vec![
            finding(format!(
                "carries {} `{CONTRACT_SECTION}` sections with different contents (at byte \
                 offsets {} and {}): embed one contract",
                distinct.len() + 1,
                first.offset,
                distinct
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .at(first.offset),
        ];
    }
    if first.data.len() > MAX_CONTRACT_BYTES {
        return vec![
            finding(format!(
                "the embedded contract is {} bytes, over the limit of {MAX_CONTRACT_BYTES}",
                first.data.len(),
            ))
            .at(first.offset),
        ];
    }
    let limits = crate::json::Limits {
        max_bytes: MAX_CONTRACT_BYTES,
        max_depth: 64,
    };
    let embedded = match crate::json::parse(first.data, &limits) {
        Ok(parsed) => parsed.value,
        Err(e) => {
            return vec![
                finding(format!("the embedded contract is not valid JSON: {e}")).at(first.offset),
            ];
        }
    };
    let mut differences = Vec::new();
    diff(contract, &embedded, "", &mut differences);
    if differences.is_empty() {
        return Vec::new();
    }
    let total = differences.len();
    differences.truncate(MAX_LISTED);
    let mut message = format!(
        "the embedded contract differs from the pack's: {}",
        differences.join("; ")
    );
    if total > MAX_LISTED {
        message.push_str(&format!("; and {} more", total - MAX_LISTED));
    }
    vec![finding(message).at(first.offset)]
}

/// Whether two JSON values are the same contract value: objects by members (any order),
/// numbers by value.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The differences between the pack's value and the plugin's, one line each, in the pack's
/// member order (members only the plugin has after).
fn diff(pack: &Value, plugin: &Value, at: &str, out: &mut Vec<String>) {
    if same(pack, plugin) {
        return;
    }
    match (pack, plugin) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let here = pointer::push(at, key);
                match b.get(key) {
                    Some(other) => diff(value, other, &here, out),
                    None => out.push(format!("{here}: only the pack has it ({})", shown(value))),
                }
            }
            for (key, value) in b {
                if !a.contains_key(key) {
                    let here = pointer::push(at, key);
                    out.push(format!("{here}: only the plugin has it ({})", shown(value)));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (k, (x, y)) in a.iter().zip(b).enumerate() {
                diff(x, y, &pointer::push(at, &k.to_string()), out);
            }
        }
        _ => out.push(format!(
            "{}: the pack has {}, the plugin has {}",
            if at.is_empty() {
                "the whole contract"
            } else {
                at
            },
            shown(pack),
            shown(plugin)
        )),
    }
}

/// A value as compact JSON, cut at [`MAX_SHOWN`] chars.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= MAX_SHOWN {
        return text;
    }
    let cut: String = text.chars().take(MAX_SHOWN).collect();
    format!("{cut}…")
}
