//! The frozen Kernel ABI 1.0.0: its bytes are pinned (SHA-256), it has 191 primitives in
//! non-empty families, it lints clean, it matches `registry.schema.json`, and every one of its
//! 382 keys (191 IDs + 191 aliases) resolves — through `Registry::lookup` and `Isa::from_key` —
//! to the same ISA variant.

use primgraph::registry::{self, Isa, Registry};
use sha2::{Digest, Sha256};

/// SHA-256 of `registry/kernel-abi-1.0.0.json`. A frozen ABI never changes: a change goes into
/// a new file (`kernel-abi-1.1.0.json`).
const FROZEN_SHA256: &str = "bfc102b61b25797435c33d9ccd2b5957f368abf84b2973883fa0c994f8f73d83";

#[test]
fn the_frozen_file_is_pinned() {
    let digest = Sha256::digest(registry::BUILTIN_JSON.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex, FROZEN_SHA256,
        "kernel-abi-1.0.0.json changed: a frozen ABI is never edited"
    );
}

#[test]
fn it_has_191_primitives_in_non_empty_families() {
    let r = Registry::builtin();
    assert!(r.is_builtin());
    assert_eq!(r.abi(), "1.0.0");
    assert_eq!(r.len(), 191);
    assert_eq!(Isa::COUNT, 191);
    assert_eq!(Isa::ALL.len(), 191);
    for f in r.families() {
        assert!(
            r.by_family(&f.name).count() > 0,
            "family {} is empty",
            f.name
        );
    }
    assert_eq!(
        r.families()
            .iter()
            .map(|f| r.by_family(&f.name).count())
            .sum::<usize>(),
        191
    );
}

#[test]
fn it_lints_clean() {
    assert_eq!(
        registry::lint_source(registry::BUILTIN_JSON.as_bytes()),
        Ok(vec![])
    );
}

#[test]
fn it_matches_the_registry_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../registry/registry.schema.json")).expect("json");
    let v = jsonschema::validator_for(&schema).expect("compiles");
    let file: serde_json::Value = serde_json::from_str(registry::BUILTIN_JSON).expect("json");
    let errors: Vec<String> = v
        .iter_errors(&file)
        .take(10)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn every_id_and_alias_resolves_to_the_same_isa_variant() {
    let r = Registry::builtin();
    let mut keys = 0;
    for (i, isa) in Isa::ALL.iter().copied().enumerate() {
        let p = r.get(isa.index());
        assert_eq!(isa.index() as usize, i);
        assert_eq!(Isa::from_index(i as u16), Some(isa));
        assert_eq!(
            (isa.id(), isa.alias(), isa.family()),
            (p.id.as_str(), p.alias.as_str(), p.family.as_str())
        );
        assert_eq!((isa.class(), isa.authority()), (p.class, p.authority));
        for key in [isa.id(), isa.alias()] {
            keys += 1;
            assert_eq!(Isa::from_key(key), Some(isa), "{key}");
            assert_eq!(r.lookup(key).map(|q| q.index), Some(isa.index()), "{key}");
            assert_eq!(r.lookup(key).and_then(|q| q.isa()), Some(isa), "{key}");
        }
        assert_eq!(Isa::from_id(isa.id()), Some(isa));
        assert_eq!(Isa::from_alias(isa.alias()), Some(isa));
        assert_eq!(Isa::from_id(isa.alias()), None);
        assert_eq!(r.get_isa(isa).map(|q| q.id.as_str()), Some(isa.id()));
        assert!(std::ptr::eq(isa.contract(), p));
    }
    assert_eq!(keys, 382);
}

#[test]
fn a_runtime_loaded_copy_resolves_like_the_builtin() {
    let copy = Registry::from_slice(registry::BUILTIN_JSON.as_bytes(), "copy").expect("loads");
    assert!(!copy.is_builtin());
    for isa in Isa::ALL.iter().copied() {
        assert_eq!(copy.lookup(isa.id()).map(|p| p.index), Some(isa.index()));
        assert_eq!(copy.lookup(isa.alias()).map(|p| p.index), Some(isa.index()));
        assert_eq!(copy.get_isa(isa).map(|p| p.index), Some(isa.index()));
    }
}

#[test]
fn one_letter_changed_never_resolves() {
    let r = Registry::builtin();
    for isa in Isa::ALL.iter().copied() {
        for key in [isa.id(), isa.alias()] {
            for at in 0..key.len() {
                let mut bytes = key.as_bytes().to_vec();
                bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
                let miss = String::from_utf8(bytes).expect("ascii");
                let is_key = r
                    .primitives()
                    .iter()
                    .any(|p| p.id == miss || p.alias == miss);
                if !is_key {
                    assert!(r.lookup(&miss).is_none(), "{miss}");
                    assert_eq!(Isa::from_key(&miss), None, "{miss}");
                }
            }
        }
    }
}

#[test]
fn every_schema_has_a_cached_validator() {
    let r = Registry::builtin();
    for p in r.primitives() {
        assert!(r.input_validator(p.index).is_some(), "{}", p.id);
        assert!(r.output_validator(p.index).is_some(), "{}", p.id);
    }
}
