//! `docs/plugins.md` cannot drift from the world or the checker: its ```` ```wit ```` block is
//! parsed with `wit-parser` together with `wit/primitive.wit` and built (with a WAT core module
//! and the page's ```` ```json ```` contract) into a component that `check_plugin` accepts; its
//! ```` ```rust ```` blocks are parsed with `syn`, and the host's `link_effect` must link, for
//! each effect, the interface `src/plugin/world.rs` maps it to — only interfaces of the world,
//! and nowhere else; its effect table is the world's.

use crate::plugin_build;

use plugin_build::*;
use primgraph::plugin::{EFFECT_INTERFACES, component};
use serde_json::Value;
use std::collections::BTreeMap;

fn page() -> String {
    std::fs::read_to_string(root().join("docs/plugins.md")).expect("docs/plugins.md")
}

/// The fenced blocks of `text` whose info string is exactly `lang`, in order.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        match &mut current {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    current = Some((info.trim().to_string(), String::new()));
                }
            }
            Some((info, body)) => {
                if line.trim_end() == "```" {
                    if info == lang {
                        out.push(std::mem::take(body));
                    }
                    current = None;
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    assert!(
        current.is_none(),
        "an unclosed ``` block in docs/plugins.md"
    );
    out
}

/// The page's one ```wit block and the name of its one world.
fn doc_world() -> (String, String) {
    let wit = blocks(&page(), "wit");
    assert_eq!(wit.len(), 1, "docs/plugins.md has one ```wit block");
    let mut resolve = wit_parser::Resolve::default();
    resolve
        .push_str("primitive.wit", primgraph::plugin::WORLD_WIT)
        .unwrap();
    let package = resolve
        .push_str("docs/plugins.md", &wit[0])
        .unwrap_or_else(|e| panic!("the page's WIT parses with the world: {e:?}"));
    let worlds: Vec<String> = resolve.packages[package].worlds.keys().cloned().collect();
    assert_eq!(worlds.len(), 1, "one world in the page's WIT: {worlds:?}");
    (wit[0].clone(), worlds[0].clone())
}

/// The interfaces `world` of the resolve imports, by name, and its exported functions.
fn imports_and_exports(
    resolve: &wit_parser::Resolve,
    world: wit_parser::WorldId,
) -> (Vec<String>, Vec<String>) {
    let world = &resolve.worlds[world];
    let imports = world
        .imports
        .iter()
        .filter_map(|(key, item)| match (key, item) {
            (wit_parser::WorldKey::Interface(id), wit_parser::WorldItem::Interface { .. }) => {
                resolve.interfaces[*id].name.clone()
            }
            _ => None,
        })
        .collect();
    let exports = world
        .exports
        .iter()
        .filter_map(|(_, item)| match item {
            wit_parser::WorldItem::Function(f) => Some(f.name.clone()),
            _ => None,
        })
        .collect();
    (imports, exports)
}

fn world_interface_names() -> Vec<String> {
    let mut resolve = wit_parser::Resolve::default();
    let package = resolve
        .push_str("primitive.wit", primgraph::plugin::WORLD_WIT)
        .unwrap();
    let world = resolve.select_world(&[package], Some("primitive")).unwrap();
    imports_and_exports(&resolve, world).0
}

#[test]
fn the_pages_wit_includes_the_world_and_has_its_imports_and_export() {
    let (wit, name) = doc_world();
    let mut resolve = wit_parser::Resolve::default();
    let base = resolve
        .push_str("primitive.wit", primgraph::plugin::WORLD_WIT)
        .unwrap();
    let package = resolve.push_str("docs/plugins.md", &wit).unwrap();
    let world = resolve.select_world(&[package], Some(&name)).unwrap();
    let theirs = resolve.select_world(&[base], Some("primitive")).unwrap();
    assert_eq!(
        imports_and_exports(&resolve, world),
        imports_and_exports(&resolve, theirs),
        "the page's world is the primitive world (it includes it)"
    );
    assert_eq!(
        imports_and_exports(&resolve, world).1,
        vec!["invoke".to_string()]
    );
}

/// The page's contract, which is the clean fixture's.
fn doc_contract() -> Value {
    let json = blocks(&page(), "json");
    assert_eq!(json.len(), 1, "docs/plugins.md has one ```json block");
    let contract: Value = serde_json::from_str(&json[0]).expect("the page's contract is JSON");
    assert_eq!(
        contract,
        clean_contract(),
        "the page's contract is tests/fixtures/packs/plugins/clean's"
    );
    contract
}

/// The page's recipe, done without a Rust toolchain for wasm: a core module that calls
/// `read-file` and carries the contract in its own custom section (as `#[link_section]` puts
/// it), the page's world embedded, `wit-component` encoding. The component imports
/// `workspace-read` alone, nests the contract one level down, and lints clean.
#[test]
fn the_pages_worked_example_builds_into_a_plugin_that_lints_clean() {
    let (wit, name) = doc_world();
    let contract = doc_contract();
    let mut module = core_module(&read_import("1.0.0"));
    append_custom(
        &mut module,
        primgraph::plugin::CONTRACT_SECTION,
        &serde_json::to_vec_pretty(&contract).unwrap(),
    );
    let bytes = component_of(
        &module,
        &[
            ("primitive.wit", primgraph::plugin::WORLD_WIT),
            ("docs/plugins.md", &wit),
        ],
        &name,
    );
    let read = component::read(&bytes);
    assert_eq!(read.failure, None);
    let instances: Vec<&str> = read
        .imports
        .iter()
        .filter(|i| i.is_instance)
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(
        instances,
        ["primgraph:primitive/workspace-read@1.0.0"],
        "only the interface the code calls is imported"
    );
    assert_eq!(
        read.contracts.iter().map(|c| c.depth).collect::<Vec<_>>(),
        [1],
        "the contract of a core module's custom section is one level down"
    );
    assert_eq!(
        primgraph::plugin::check_plugin(&bytes, &contract),
        Vec::new()
    );
    // The same component without `reads_workspace` in the pack's contract: P871 and P872.
    let mut narrower = contract.clone();
    narrower["effects"] = serde_json::json!([]);
    assert_eq!(
        codes(&primgraph::plugin::check_plugin(&bytes, &narrower)),
        ["P871", "P872"]
    );
}

#[test]
fn every_rust_block_parses() {
    let rust = blocks(&page(), "rust");
    assert_eq!(rust.len(), 2, "a guest sketch and a host sketch");
    for (k, block) in rust.iter().enumerate() {
        if let Err(e) = syn::parse_file(block) {
            panic!("```rust block {k} of docs/plugins.md does not parse: {e}");
        }
    }
}

/// The host block: the one that defines `link_effect`.
fn host_block() -> (String, syn::File) {
    let rust = blocks(&page(), "rust");
    let block = rust
        .into_iter()
        .find(|b| b.contains("fn link_effect"))
        .expect("a ```rust block defining `link_effect`");
    let file = syn::parse_file(&block).expect("the host block parses");
    (block, file)
}

fn ident_to_interface(ident: &str) -> String {
    ident.replace('_', "-")
}

/// `link_effect`'s match: effect string → the module whose `add_to_linker` its arm calls, and
/// whether a fallback arm links anything.
fn link_arms(file: &syn::File) -> (BTreeMap<String, String>, usize) {
    let function = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Fn(f) if f.sig.ident == "link_effect" => Some(f),
            _ => None,
        })
        .expect("fn link_effect");
    let matched = function
        .block
        .stmts
        .iter()
        .find_map(|stmt| match stmt {
            syn::Stmt::Expr(syn::Expr::Match(m), _) => Some(m),
            _ => None,
        })
        .expect("link_effect is a match on the effect");
    let mut arms = BTreeMap::new();
    let mut fallbacks = 0;
    for arm in &matched.arms {
        let effect = match &arm.pat {
            syn::Pat::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => s.value(),
            _ => {
                fallbacks += 1;
                assert!(
                    !matches!(&*arm.body, syn::Expr::Call(_)),
                    "the fallback arm links nothing"
                );
                continue;
            }
        };
        let syn::Expr::Call(call) = &*arm.body else {
            panic!("the arm for `{effect}` calls `<interface>::add_to_linker`");
        };
        let syn::Expr::Path(path) = &*call.func else {
            panic!("the arm for `{effect}` calls a path");
        };
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        assert_eq!(
            segments.len(),
            2,
            "`<interface>::add_to_linker` in the arm for `{effect}`: {segments:?}"
        );
        assert_eq!(segments[1], "add_to_linker", "the arm for `{effect}`");
        let old = arms.insert(effect.clone(), ident_to_interface(&segments[0]));
        assert!(old.is_none(), "`{effect}` has one arm");
    }
    (arms, fallbacks)
}

#[test]
fn the_hosts_link_effect_links_each_effects_interface_as_the_checker_maps_it() {
    let (_, file) = host_block();
    let (arms, fallbacks) = link_arms(&file);
    let checker: BTreeMap<String, String> = EFFECT_INTERFACES
        .iter()
        .map(|i| (i.effect.as_str().to_string(), i.name.to_string()))
        .collect();
    assert_eq!(
        arms, checker,
        "docs/plugins.md's link_effect and src/plugin/world.rs"
    );
    assert_eq!(fallbacks, 1, "an unknown effect is refused, not linked");
    let world = world_interface_names();
    for interface in arms.values() {
        assert!(
            world.contains(interface),
            "`{interface}` is an interface of the world ({world:?})"
        );
    }
}

#[test]
fn the_host_links_only_through_link_effect_and_only_the_worlds_interfaces() {
    let (block, file) = host_block();
    // Every `add_to_linker` call is one of link_effect's arms: nothing links all the world.
    assert_eq!(
        block.matches("add_to_linker").count(),
        EFFECT_INTERFACES.len(),
        "`add_to_linker` appears only in link_effect's arms"
    );
    for forbidden in ["define_unknown_imports_as_traps", "wasmtime_wasi"] {
        assert!(
            !block.contains(forbidden),
            "the host block uses {forbidden}"
        );
    }
    // The modules it takes from the bindings are the world's interfaces.
    let world = world_interface_names();
    let mut used = Vec::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            collect_use(&u.tree, Vec::new(), &mut used);
        }
    }
    let interfaces: Vec<&(Vec<String>, String)> = used
        .iter()
        .filter(|(prefix, _)| prefix.first().is_some_and(|p| p == "bindings") && prefix.len() > 1)
        .collect();
    assert_eq!(
        interfaces.len(),
        world.len(),
        "one `use` per interface: {used:?}"
    );
    for (prefix, name) in interfaces {
        assert_eq!(prefix, &["bindings", "primgraph", "primitive"]);
        assert!(world.contains(&ident_to_interface(name)), "{name}");
    }
    // The bindings are generated from the world.
    let bindgen = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Mod(m) if m.ident == "bindings" => m.content.as_ref(),
            _ => None,
        })
        .and_then(|(_, items)| {
            items.iter().find_map(|i| match i {
                syn::Item::Macro(m) => Some(m.mac.tokens.to_string()),
                _ => None,
            })
        })
        .expect("mod bindings { bindgen!(…) }");
    assert!(bindgen.contains("\"wit/primitive.wit\""), "{bindgen}");
    assert!(bindgen.contains("\"primitive\""), "{bindgen}");
    // `load` links from the contract's effects through link_effect.
    assert!(block.contains("link_effect(&mut linker, effect)?"));
}

/// Paths named by a use tree: (the path before the last name, the last name), `self` and
/// groups expanded.
fn collect_use(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut prefix = prefix;
            prefix.push(p.ident.to_string());
            collect_use(&p.tree, prefix, out);
        }
        syn::UseTree::Name(n) => {
            if n.ident == "self" {
                if let Some((last, rest)) = prefix.split_last() {
                    out.push((rest.to_vec(), last.clone()));
                }
            } else {
                out.push((prefix, n.ident.to_string()));
            }
        }
        syn::UseTree::Rename(r) => out.push((prefix, r.ident.to_string())),
        syn::UseTree::Glob(_) => out.push((prefix, "*".into())),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                collect_use(tree, prefix.clone(), out);
            }
        }
    }
}

/// The page's effect table: each row effect → interface → functions, as the world's.
#[test]
fn the_pages_effect_table_is_the_worlds() {
    let page = page();
    let mut rows = BTreeMap::new();
    for line in page.lines() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if cells.len() != 3 || !cells[0].starts_with('`') {
            continue;
        }
        let unquote = |s: &str| s.trim_matches('`').to_string();
        let functions: Vec<String> = cells[2].split(',').map(|f| unquote(f.trim())).collect();
        rows.insert(unquote(cells[0]), (unquote(cells[1]), functions));
    }
    let world: BTreeMap<String, (String, Vec<String>)> = EFFECT_INTERFACES
        .iter()
        .map(|i| {
            (
                i.effect.as_str().to_string(),
                (
                    i.name.to_string(),
                    i.functions.iter().map(|f| f.to_string()).collect(),
                ),
            )
        })
        .collect();
    assert_eq!(rows, world);
}

/// The limits the page states are the checker's.
#[test]
fn the_pages_limits_are_the_checkers() {
    let page = page();
    let mib = |bytes: usize| format!("{} MiB", bytes / (1024 * 1024));
    assert_eq!(primgraph::plugin::MAX_PLUGIN_BYTES % (1024 * 1024), 0);
    for stated in [
        mib(primgraph::plugin::MAX_PLUGIN_BYTES),
        mib(primgraph::plugin::MAX_CONTRACT_BYTES),
        mib(primgraph::pack::MAX_FILE_BYTES),
        format!("{} levels", primgraph::plugin::MAX_NESTING),
    ] {
        assert!(page.contains(&stated), "docs/plugins.md states {stated}");
    }
}
