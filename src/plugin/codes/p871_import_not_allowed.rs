//! P871 (error): a plugin importing an interface its contract's effects do not allow.
//!
//! ## What it checks
//!
//! Each interface a plugin imports from the world (`primgraph:primitive/<interface>@1.x.y`) is
//! allowed by one effect of SPEC §1.2, and the primitive's contract in `pack.json` declares
//! that effect:
//!
//! | effect | interface |
//! |---|---|
//! | `reads_workspace` | `workspace-read` |
//! | `writes_workspace` | `workspace-write` |
//! | `executes_code` | `exec` |
//! | `network` | `network` |
//! | `mints_permission` | `mint-permission` |
//! | `raises_spend` | `spend` |
//! | `crosses_workspace` | `cross-workspace` |
//!
//! The message names the import and the missing effect. An interface of the package that
//! world 1.0.0 does not have (a later 1.x addition) is allowed by no effect: P871 too. An
//! import of another major version (`@2.0.0`) is a P870 and, when its effect is undeclared,
//! a P871 as well.
//!
//! ## Why it matters
//!
//! The contract's `effects` are what validation and authorization trust (SPEC §3.4). A host
//! links only the interfaces they allow, so a plugin importing more would fail to load — or,
//! on a host that links everything, do what its contract hides.
//!
//! ## Example
//!
//! The primitive `pfp.read` declares `reads_workspace`; its plugin imports
//! `primgraph:primitive/network@1.0.0` too.
//!
//! Fixture `tests/fixtures/packs/plugins/p871/pack.json` (linted with `primgraph pack lint`) reports P871 at line 15:
//!
//! ```json
//!     "pfp.read": "read.wasm"
//! ```
//!
//! ## Fix
//!
//! Declare the effect in the contract (with what it implies, e.g. `requires_authorization`
//! for `writes_workspace`) and embed the new contract, or stop using the interface.
//!
//! ## Implements
//!
//! SPEC §9.7 (the primitive plugin ABI) and §1.2 (`effects`); the code is listed in §9's table.

use super::super::PluginFinding;
use super::super::component::ComponentRead;
use super::super::world::{self, EFFECT_INTERFACES, MAJOR};
use super::p870_not_a_component::{interface_import, of_the_package};
use crate::codes::P871;
use serde_json::Value;

/// The contract's `effects`, as written (strings only; the pack loader checks their shape).
pub(crate) fn declared_effects(contract: &Value) -> Vec<&str> {
    contract
        .get("effects")
        .and_then(Value::as_array)
        .map(|effects| effects.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

pub fn check(read: &ComponentRead, contract: &Value) -> Vec<PluginFinding> {
    let effects = declared_effects(contract);
    let shown = if effects.is_empty() {
        "none".to_string()
    } else {
        effects.join(", ")
    };
    let mut findings = Vec::new();
    for import in &read.imports {
        if import.is_type {
            continue; // a type grants nothing (an unknown one is P870)
        }
        let Some(parsed) = interface_import(&import.name).filter(of_the_package) else {
            continue; // another package: P870
        };
        let finding = |message: String| {
            PluginFinding::new(&P871, message)
                .for_import(&import.name)
                .at(import.offset)
        };
        match world::interface(&parsed.interface) {
            Some(interface) => {
                let effect = interface.effect.as_str();
                if !effects.contains(&effect) {
                    findings.push(finding(format!(
                        "imports `{}`, but the contract's `effects` do not declare `{effect}` \
                         (declared: {shown})",
                        import.name
                    )));
                }
            }
            None if parsed.major.is_none_or(|m| m == MAJOR) => {
                let known: Vec<&str> = EFFECT_INTERFACES.iter().map(|i| i.name).collect();
                findings.push(finding(format!(
                    "imports `{}`, an interface no effect allows (the world's interfaces: {})",
                    import.name,
                    known.join(", ")
                )));
            }
            None => {}
        }
    }
    findings
}
