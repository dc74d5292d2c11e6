//! Primitive plugins (SPEC §9.7), checked without running them. A plugin is a WebAssembly
//! component of the world `primgraph:primitive/primitive@1.0.0` (its text is
//! `wit/primitive.wit`, kept as [`WORLD_WIT`]); this module owns what that world is to the
//! checker ([`world`]: the interfaces, the effect each one needs, the shape of `invoke`), the
//! one streaming pass over a component's bytes ([`component`], `wasmparser`'s validator: no
//! engine, nothing executed), and the three checks, one file each under [`codes`]: P870 (not a
//! component of the world), P871 (an import its contract's `effects` do not allow), P872 (an
//! embedded contract that differs from the pack's).
//!
//! The checks return typed [`PluginFinding`]s (the code's row, a message, the import concerned);
//! the pack lint locates them in `pack.json` at the plugin's entry (`/plugins/<id>`). How a
//! runtime hosts a plugin, and every choice made where the spec is silent: `docs/plugins.md`.

pub mod codes;
pub mod component;
pub mod world;

use crate::codes::Code;
use serde_json::Value;
use std::path::Path;

pub use world::{EFFECT_INTERFACES, Interface, WORLD, WORLD_WIT};

/// The largest plugin file read: a bigger one is refused from its metadata, unread (a P870).
pub const MAX_PLUGIN_BYTES: usize = 64 * 1024 * 1024;
/// The largest embedded contract parsed (a `primgraph:contract` section over it is a P872).
pub const MAX_CONTRACT_BYTES: usize = 1024 * 1024;
/// The deepest nesting of modules and components inside a plugin that is read.
pub const MAX_NESTING: usize = 32;
/// The custom section that carries a plugin's contract (the SPEC §1.2 JSON).
pub const CONTRACT_SECTION: &str = "primgraph:contract";

/// One problem with a plugin, before it is located: the pack lint reports it at the plugin's
/// entry in `pack.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginFinding {
    /// The row of the code table: P870, P871 or P872.
    pub code: &'static Code,
    pub message: String,
    /// The import concerned (its full name, `primgraph:primitive/network@1.0.0`), for a finding
    /// about one import.
    pub import: Option<String>,
    /// Where in the plugin's bytes, when the finding is about one place (a malformed binary, an
    /// import, a custom section).
    pub offset: Option<u64>,
}

impl PluginFinding {
    pub(crate) fn new(code: &'static Code, message: String) -> PluginFinding {
        PluginFinding {
            code,
            message,
            import: None,
            offset: None,
        }
    }

    pub(crate) fn at(mut self, offset: u64) -> PluginFinding {
        self.offset = Some(offset);
        self
    }

    pub(crate) fn for_import(mut self, import: &str) -> PluginFinding {
        self.import = Some(import.to_string());
        self
    }
}

/// Check a plugin's bytes against its contract as the pack declares it (the primitive's
/// `pack.json` entry, SPEC §1.2 JSON): P870, P871, P872, in the order of the bytes, without
/// running anything. An empty list: the plugin is a component of the world, imports only what
/// its contract's `effects` allow, and carries that contract.
///
/// A binary that is not a valid component stops the check at its first error (one P870 with
/// the byte offset); the bytes are read once, in place.
pub fn check_plugin(bytes: &[u8], contract: &Value) -> Vec<PluginFinding> {
    let read = component::read(bytes);
    let mut findings = codes::p870_not_a_component::check(&read);
    // Bytes that are not a component at all (a core module, not WebAssembly) are one P870:
    // their imports and custom sections are not the world's to judge.
    if read.failure.is_some() || read.kind != component::BinaryKind::Component {
        return findings;
    }
    findings.extend(codes::p871_import_not_allowed::check(&read, contract));
    findings.extend(codes::p872_contract_differs::check(&read, contract));
    findings
}

/// [`check_plugin`] for a plugin file: read through [`crate::input::read_capped`] (a regular
/// file of at most [`MAX_PLUGIN_BYTES`]); a file that cannot be read is one P870 saying why
/// (a plugin that cannot be read is not accepted as a component of the world).
pub fn check_plugin_file(path: &Path, contract: &Value) -> Vec<PluginFinding> {
    match crate::input::read_capped(path, MAX_PLUGIN_BYTES) {
        Ok(bytes) => check_plugin(&bytes, contract),
        Err(e) => vec![PluginFinding::new(
            &crate::codes::P870,
            format!("the plugin cannot be checked: {e}"),
        )],
    }
}
