//! Building plugin binaries for the plugin tests (`tests/it/plugin_docs.rs`,
//! `tests/it/plugin_bad_input.rs`): core modules from WAT text, components of a world through
//! `wit-component` (no wasm toolchain), custom sections appended by hand, and the clean fixture
//! plugin with its contract. The same recipe as `tests/it/pack_cli.rs`'s fixture builder, with the
//! world's WIT text and the place of the contract as parameters.
#![allow(dead_code)] // each test file uses its part

use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// An import of `read-file` from `workspace-read` at `version` (its canonical ABI lowering).
pub fn read_import(version: &str) -> String {
    format!(
        r#"(import "primgraph:primitive/workspace-read@{version}" "read-file" (func (param i32 i32 i32)))"#
    )
}

/// A core module implementing the world's `invoke` (never run: only its shape matters).
pub fn core_module(imports: &str) -> Vec<u8> {
    let text = format!(
        r#"(module
    {imports}
    (memory (export "memory") 1)
    (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) i32.const 1024)
    (func (export "invoke") (param i32 i32) (result i32) i32.const 0))"#
    );
    wat::parse_str(&text).expect("valid WAT")
}

/// A component of `world` (in the package `packages.last()`, after all of `packages` are
/// pushed into one resolve) from `module`.
pub fn component_of(module: &[u8], packages: &[(&str, &str)], world: &str) -> Vec<u8> {
    let mut module = module.to_vec();
    let mut resolve = wit_parser::Resolve::default();
    let mut last = None;
    for (name, text) in packages {
        last = Some(
            resolve
                .push_str(name, text)
                .unwrap_or_else(|e| panic!("{name} parses: {e:?}")),
        );
    }
    let package = last.expect("a package");
    let world = resolve
        .select_world(&[package], Some(world))
        .expect("the world");
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world,
        wit_component::StringEncoding::UTF8,
        false,
    )
    .expect("metadata");
    wit_component::ComponentEncoder::default()
        .module(&module)
        .expect("module")
        .validate(true)
        .encode()
        .expect("a component")
}

/// A component of the world `primgraph:primitive/primitive@1.0.0` importing `imports`, without
/// a contract section.
pub fn world_component(imports: &str) -> Vec<u8> {
    component_of(
        &core_module(imports),
        &[("primitive.wit", primgraph::plugin::WORLD_WIT)],
        "primitive",
    )
}

/// The world's WIT with the package at another version (`1.1.0`, `2.0.0`), and `extra`
/// inserted before the world (a 1.x interface, say).
pub fn world_at(version: &str, extra: &str) -> String {
    let text = primgraph::plugin::WORLD_WIT.replace(
        "package primgraph:primitive@1.0.0;",
        &format!("package primgraph:primitive@{version};"),
    );
    assert_ne!(text, primgraph::plugin::WORLD_WIT, "the package line moved");
    text.replace(
        "/// A primitive's implementation.\nworld primitive {",
        &format!("{extra}\n/// A primitive's implementation.\nworld primitive {{"),
    )
}

/// The unsigned LEB128 of `n`.
pub fn leb128(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

/// The head of a custom section named `name` whose payload is `payload_len` bytes: id 0, the
/// section's size, the name (length-prefixed). The payload follows it.
pub fn custom_section_head(name: &str, payload_len: u64) -> Vec<u8> {
    let mut name_part = leb128(name.len() as u64);
    name_part.extend_from_slice(name.as_bytes());
    let mut head = vec![0u8];
    head.extend(leb128(name_part.len() as u64 + payload_len));
    head.extend(name_part);
    head
}

/// Append a custom section to a module or a component (valid between any two sections).
pub fn append_custom(bytes: &mut Vec<u8>, name: &str, payload: &[u8]) {
    bytes.extend(custom_section_head(name, payload.len() as u64));
    bytes.extend_from_slice(payload);
}

/// `bytes` with the contract appended at the top level, as `tests/it/pack_cli.rs` builds the
/// fixtures.
pub fn with_contract(mut bytes: Vec<u8>, contract: &Value) -> Vec<u8> {
    let payload = serde_json::to_vec(contract).unwrap();
    append_custom(&mut bytes, primgraph::plugin::CONTRACT_SECTION, &payload);
    bytes
}

pub fn clean_dir() -> PathBuf {
    root().join("tests/fixtures/packs/plugins/clean")
}

/// The clean fixture's contract: its primitive's entry in `pack.json`, as written.
pub fn clean_contract() -> Value {
    let text = std::fs::read_to_string(clean_dir().join("pack.json")).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    manifest["primitives"][0].clone()
}

/// The clean fixture plugin's bytes (a component of the world importing `workspace-read`,
/// carrying its contract).
pub fn clean_plugin() -> Vec<u8> {
    std::fs::read(clean_dir().join("read.wasm")).unwrap()
}

/// The codes of findings, in order.
pub fn codes(findings: &[primgraph::plugin::PluginFinding]) -> Vec<&'static str> {
    findings.iter().map(|f| f.code.code).collect()
}
