//! P870 (error): a plugin that is not a component of the world.
//!
//! ## What it checks
//!
//! A plugin named in `pack.json`'s `plugins` is a valid WebAssembly component of the world
//! `primgraph:primitive/primitive@1.0.0` (`wit/primitive.wit`). A component is of the world
//! when, read without running it (the whole binary is validated):
//!
//! - every import is an instance named `primgraph:primitive/<interface>@1.x.y` whose functions
//!   are among the interface's (`workspace-read`, `workspace-write`, `exec`, `network`,
//!   `mint-permission`, `spend`, `cross-workspace`; the component model names an imported
//!   interface exactly so, whatever toolchain built it) — or one of the world's own types
//!   (`evidence`, `cost`, `step`, `failure`) imported as a type, as the standard encoding of a
//!   world (`wit-component`, `cargo component`) imports the records `invoke` uses;
//! - it exports a function `invoke` of type `func(input: string) -> result<step, failure>` with
//!   `step` and `failure` the world's records, and no other function, instance, module or
//!   component (type exports are fine).
//!
//! So it fires for bytes that are not WebAssembly, a core module, a malformed or truncated
//! binary (with the byte offset), nesting deeper than 32 levels, an import of another package
//! (`wasi:filesystem/…`) or of major version ≠ 1 (`primgraph:primitive/network@2.0.0`), an
//! unversioned import, and a missing or mistyped `invoke`. A plugin file that cannot be read
//! (over 64 MiB, not a regular file) is a P870 too: it cannot be shown to be of the world. In a
//! pack, the loader's cap of 16 MiB per file comes first (P801, located in the plugin file).
//!
//! ## Why it matters
//!
//! A host links a plugin against the world's interfaces and calls `invoke`; a binary of any
//! other shape fails at load time on some machine, long after review. The major version is
//! the world's compatibility: a `@2.0.0` import asks for an ABI this host does not have.
//!
//! ## Example
//!
//! The plugin `core.wasm` is a core module, not a component.
//!
//! Fixture `tests/fixtures/packs/plugins/p870/pack.json` (linted with `primgraph pack lint`) reports P870 at line 15:
//!
//! ```json
//!     "pfp.read": "core.wasm"
//! ```
//!
//! ## Fix
//!
//! Build a component of the world: with `cargo component` or `wit-bindgen` against
//! `wit/primitive.wit`, or wrap a core module with `wasm-tools component new`. Import only
//! `primgraph:primitive/…@1.x.y` interfaces and export `invoke`. See `docs/plugins.md`.
//!
//! ## Implements
//!
//! SPEC §9.7 (the primitive plugin ABI); the code is listed in §9's table.

use super::super::PluginFinding;
use super::super::component::{BinaryKind, ComponentRead};
use super::super::world::{self, MAJOR, NAMESPACE, PACKAGE, WORLD};
use crate::codes::P870;
use wasmparser::ComponentExternalKind;

/// An import name read as `namespace:package/interface@version`.
pub(crate) struct InterfaceImport {
    pub namespace: String,
    pub package: String,
    pub interface: String,
    /// `None`: unversioned (or a version that does not parse).
    pub major: Option<u64>,
}

/// The import `name` as an interface name, if it is one.
pub(crate) fn interface_import(name: &str) -> Option<InterfaceImport> {
    let parsed = wasmparser::names::ComponentName::new(name, 0).ok()?;
    let wasmparser::names::ComponentNameKind::Interface(interface) = parsed.kind() else {
        return None;
    };
    Some(InterfaceImport {
        namespace: interface.namespace().as_str().to_string(),
        package: interface.package().as_str().to_string(),
        interface: interface.interface().as_str().to_string(),
        major: interface.version(None).ok().flatten().map(|v| v.major),
    })
}

/// Whether an import is of the world's package, at any version.
pub(crate) fn of_the_package(import: &InterfaceImport) -> bool {
    import.namespace == NAMESPACE && import.package == PACKAGE
}

pub fn check(read: &ComponentRead) -> Vec<PluginFinding> {
    let finding = |message: String| PluginFinding::new(&P870, message);
    match read.kind {
        BinaryKind::CoreModule => {
            return vec![finding(format!(
                "the plugin is a core WebAssembly module, not a component of the world `{WORLD}`"
            ))];
        }
        BinaryKind::NotWasm => {
            let message = read
                .failure
                .as_ref()
                .map_or("not WebAssembly", |f| &f.message);
            return vec![finding(format!("the plugin is {message}")).at(0)];
        }
        BinaryKind::Component => {}
    }
    if let Some(failure) = &read.failure {
        let what = if failure.message.contains("nested deeper") {
            format!("the plugin has {}", failure.message)
        } else {
            format!("the plugin is not a valid component: {}", failure.message)
        };
        // The offset is the finding's (`pack lint` states it once, after the message).
        return vec![finding(what).at(failure.offset)];
    }
    let mut findings = Vec::new();
    for import in &read.imports {
        let report = |message: String| finding(message).for_import(&import.name).at(import.offset);
        // The world's own types, imported as types: part of the world's encoding, no effect.
        if import.is_type && world::WORLD_TYPES.contains(&import.name.as_str()) {
            continue;
        }
        let Some(parsed) = interface_import(&import.name).filter(of_the_package) else {
            findings.push(report(format!(
                "imports `{}`, which is not an interface of the world `{WORLD}` (a component \
                 of another world)",
                import.name
            )));
            continue;
        };
        match parsed.major {
            None => findings.push(report(format!(
                "imports `{}` without a version: the world's interfaces are imported as \
                 `{NAMESPACE}:{PACKAGE}/<interface>@{MAJOR}.x.y`",
                import.name
            ))),
            Some(major) if major != MAJOR => findings.push(report(format!(
                "imports `{}`, of the world's major version {major}: this ABI is `{WORLD}` \
                 (major {MAJOR}), and a major version is a different world",
                import.name
            ))),
            Some(_) => {}
        }
        if !import.is_instance {
            findings.push(report(format!(
                "imports `{}` as something other than an instance of the interface",
                import.name
            )));
            continue;
        }
        // An interface the world does not have is P871's (no effect allows it).
        if let Some(interface) = world::interface(&parsed.interface) {
            for function in &import.functions {
                if !interface.functions.contains(&function.as_str()) {
                    findings.push(report(format!(
                        "imports the function `{function}` from `{}`, which the interface \
                         `{}` does not declare (it has: {})",
                        import.name,
                        interface.name,
                        interface.functions.join(", ")
                    )));
                }
            }
        }
    }
    let invoke = read.exports.iter().find(|e| e.name == world::INVOKE);
    match invoke {
        None => {
            let names: Vec<String> = read
                .exports
                .iter()
                .filter(|e| e.kind != ComponentExternalKind::Type)
                .map(|e| format!("`{}`", e.name))
                .collect();
            let exported = if names.is_empty() {
                "nothing".to_string()
            } else {
                names.join(", ")
            };
            findings.push(finding(format!(
                "exports no function `invoke` (it exports {exported}): the world `{WORLD}` \
                 exports `invoke: func(input: string) -> result<step, failure>`"
            )));
        }
        Some(export) if export.kind != ComponentExternalKind::Func => {
            findings.push(
                finding(format!(
                    "exports `invoke` as a {}, not as a function",
                    kind_name(export.kind)
                ))
                .at(export.offset),
            );
        }
        Some(export) => {
            if let Some(found) = &read.invoke_mismatch {
                findings.push(
                    finding(format!(
                        "exports `invoke` of type `{found}`; the world's is `func(input: \
                         string) -> result<step, failure>` with step = `{}` and failure = `{}`",
                        world::STEP,
                        world::FAILURE
                    ))
                    .at(export.offset),
                );
            }
        }
    }
    for export in &read.exports {
        if export.name != world::INVOKE && export.kind != ComponentExternalKind::Type {
            findings.push(
                finding(format!(
                    "exports the {} `{}`, which the world does not (its one export is `invoke`)",
                    kind_name(export.kind),
                    export.name
                ))
                .at(export.offset),
            );
        }
    }
    findings
}

fn kind_name(kind: ComponentExternalKind) -> &'static str {
    match kind {
        ComponentExternalKind::Module => "module",
        ComponentExternalKind::Func => "function",
        ComponentExternalKind::Value => "value",
        ComponentExternalKind::Type => "type",
        ComponentExternalKind::Instance => "instance",
        ComponentExternalKind::Component => "component",
    }
}
