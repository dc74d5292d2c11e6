//! `wit/primitive.wit` and the checker's tables in `src/plugin/world.rs` cannot drift apart: the
//! WIT is parsed with `wit-parser` (the Bytecode Alliance's own parser, not ours) and every
//! table the checker reads — the package, the world, one interface per effect with its
//! functions, the world's types and its one export — is compared with what the parser found.

use primgraph::plugin::world;
use wit_parser::{Resolve, WorldItem, WorldKey};

fn parsed() -> (Resolve, wit_parser::PackageId) {
    let mut resolve = Resolve::default();
    let package = resolve
        .push_str("wit/primitive.wit", world::WORLD_WIT)
        .unwrap_or_else(|e| panic!("wit/primitive.wit parses: {e:?}"));
    (resolve, package)
}

#[test]
fn the_package_and_world_are_the_ones_the_checker_names() {
    let (resolve, package) = parsed();
    let name = &resolve.packages[package].name;
    assert_eq!(name.namespace, world::NAMESPACE);
    assert_eq!(name.name, world::PACKAGE);
    let version = name.version.as_ref().expect("the package is versioned");
    assert_eq!(version.major, world::MAJOR);
    assert_eq!(
        world::WORLD,
        format!("{}:{}/primitive@{version}", name.namespace, name.name),
        "WORLD names the package's world with its version"
    );
    assert!(resolve.packages[package].worlds.contains_key("primitive"));
}

#[test]
fn every_effect_interface_has_exactly_the_functions_the_checker_lists() {
    let (resolve, package) = parsed();
    let in_wit: Vec<&String> = resolve.packages[package].interfaces.keys().collect();
    let in_table: Vec<&str> = world::EFFECT_INTERFACES.iter().map(|i| i.name).collect();
    let mut sorted_wit: Vec<&str> = in_wit.iter().map(|s| s.as_str()).collect();
    let mut sorted_table = in_table.clone();
    sorted_wit.sort_unstable();
    sorted_table.sort_unstable();
    assert_eq!(
        sorted_wit, sorted_table,
        "one interface per effect, no other"
    );
    for interface in &world::EFFECT_INTERFACES {
        let id = resolve.packages[package].interfaces[interface.name];
        let mut functions: Vec<&str> = resolve.interfaces[id]
            .functions
            .keys()
            .map(String::as_str)
            .collect();
        let mut listed = interface.functions.to_vec();
        functions.sort_unstable();
        listed.sort_unstable();
        assert_eq!(functions, listed, "the functions of `{}`", interface.name);
        assert_eq!(
            world::interface(interface.name).map(|i| i.effect),
            Some(interface.effect),
            "`interface` finds `{}` by name",
            interface.name
        );
    }
    assert!(world::interface("no-such-interface").is_none());
}

#[test]
fn the_world_imports_every_effect_interface_and_exports_invoke_only() {
    let (resolve, package) = parsed();
    let id = resolve
        .select_world(&[package], Some("primitive"))
        .expect("the world `primitive`");
    let the_world = &resolve.worlds[id];
    let mut imported: Vec<String> = the_world
        .imports
        .iter()
        .filter_map(|(key, item)| match (key, item) {
            (WorldKey::Interface(id), WorldItem::Interface { .. }) => {
                resolve.interfaces[*id].name.clone()
            }
            _ => None,
        })
        .collect();
    imported.sort_unstable();
    let mut table: Vec<String> = world::EFFECT_INTERFACES
        .iter()
        .map(|i| i.name.to_string())
        .collect();
    table.sort_unstable();
    assert_eq!(
        imported, table,
        "the world imports one interface per effect"
    );
    let types: Vec<String> = the_world
        .imports
        .iter()
        .filter_map(|(key, item)| match (key, item) {
            (WorldKey::Name(name), WorldItem::Type { .. }) => Some(name.clone()),
            _ => None,
        })
        .collect();
    for expected in world::WORLD_TYPES {
        assert!(
            types.iter().any(|t| t == expected),
            "the world defines `{expected}` (found {types:?})"
        );
    }
    let exports: Vec<String> = the_world
        .exports
        .values()
        .filter_map(|item| match item {
            WorldItem::Function(f) => Some(f.name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(exports, vec![world::INVOKE.to_string()]);
}
