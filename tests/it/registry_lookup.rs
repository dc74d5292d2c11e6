//! Lookup by dotted ID and alias: on a registry loaded at run time (the fixture) and on the
//! perfect-hash table itself (property tests over random key sets), plus the validator cache
//! and the filters.

use primgraph::registry::{Class, Filter, Registry, phash};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;

fn fixture() -> Registry {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry/valid.json");
    Registry::from_path(&path).expect("the fixture loads")
}

#[test]
fn every_id_and_alias_of_a_loaded_registry_resolves_to_its_primitive() {
    let r = fixture();
    assert_eq!(r.len(), 8);
    assert!(!r.is_builtin());
    for (i, p) in r.primitives().iter().enumerate() {
        assert_eq!(p.index as usize, i);
        assert_eq!(r.lookup(&p.id).map(|q| q.index), Some(p.index), "{}", p.id);
        assert_eq!(
            r.lookup(&p.alias).map(|q| q.index),
            Some(p.index),
            "{}",
            p.alias
        );
        assert_eq!(r.get(p.index).id, p.id);
    }
}

#[test]
fn near_misses_and_other_strings_do_not_resolve() {
    let r = fixture();
    for key in [
        "",
        "obs",
        "obs.",
        "obs.list_file",
        "obs.list_filez",
        "OBS.LIST_FILES",
        "list_files",
        "LIST_FILEs",
        "LIST_FILES ",
        "ctl.*",
    ] {
        assert!(r.lookup(key).is_none(), "{key:?}");
    }
}

#[test]
fn filters_select_by_family_class_and_effect() {
    let r = fixture();
    let ids = |f: Filter<'_>| r.filter(&f).map(|p| p.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(Filter {
            family: Some("observation"),
            ..Filter::default()
        }),
        ["obs.list_files", "obs.read_file"]
    );
    assert_eq!(
        ids(Filter {
            class: Some(Class::Policy),
            ..Filter::default()
        }),
        ["ctl.authorize_patch"]
    );
    assert_eq!(
        ids(Filter {
            effect: Some(primgraph::registry::Effect::WritesWorkspace),
            ..Filter::default()
        }),
        ["mut.write_file"]
    );
    assert_eq!(r.by_family("completion").count(), 1);
    assert_eq!(r.by_class(Class::S1Decision).count(), 1);
    assert_eq!(r.filter(&Filter::default()).count(), r.len());
}

#[test]
fn validators_compile_once_and_validate() {
    let r = fixture();
    let idx = r.lookup("obs.read_file").expect("known").index;
    let v = r.input_validator(idx).expect("compiles");
    assert!(
        std::ptr::eq(v, r.input_validator(idx).expect("compiles")),
        "cached"
    );
    assert!(v.is_valid(&serde_json::json!({"path": "src/lib.rs"})));
    assert!(!v.is_valid(&serde_json::json!({"path": ""})));
    let out = r.output_validator(idx).expect("compiles");
    assert!(out.is_valid(&serde_json::json!({"text": "hi"})));
    assert!(r.input_validator(999).is_none());
}

#[test]
fn a_registry_with_a_non_compiling_schema_loads_but_has_no_validator() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/registry/l505_schema_compile.json");
    let r = Registry::from_path(&path).expect("loads: L505 is lint's business");
    let idx = r.lookup("READ_FILE").expect("known").index;
    assert!(r.input_validator(idx).is_none());
    assert!(r.output_validator(idx).is_some());
}

#[test]
fn loading_rejects_duplicate_keys_and_ambiguous_ids() {
    for name in [
        "l501_duplicate_json_key.json",
        "l501_duplicate_id.json",
        "l501_duplicate_alias.json",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/registry")
            .join(name);
        assert!(Registry::from_path(&path).is_err(), "{name}");
    }
    assert!(Registry::from_slice(b"", "empty").is_err());
    assert!(Registry::from_slice(b"{\"abi\": \"1.0.0\"}", "shape").is_err());
}

fn keys() -> impl Strategy<Value = BTreeSet<String>> {
    prop::collection::btree_set("[a-zA-Z0-9._]{0,72}", 0..300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn the_perfect_hash_places_every_key_in_its_own_slot(keys in keys()) {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let table = phash::build(&keys, |i| i as u16).expect("builds");
        let mut seen = BTreeSet::new();
        for (i, k) in keys.iter().enumerate() {
            let got = table.view().probe(k.as_bytes(), |i| keys[i] == *k);
            prop_assert_eq!(got, Some(i as u16));
            prop_assert!(seen.insert(got));
        }
        prop_assert!(table.slots.len().is_power_of_two());
        prop_assert_eq!(table.slots.iter().filter(|m| !m.is_vacant()).count(), keys.len());
    }

    #[test]
    fn a_probe_for_any_string_is_in_range(keys in keys(), probe in "\\PC{0,40}") {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let table = phash::build(&keys, |i| i as u16).expect("builds");
        if let Some(i) = table.view().probe(probe.as_bytes(), |i| keys[i] == probe.as_str()) {
            prop_assert!((i as usize) < keys.len());
        }
    }
}

/// Every key, and near misses of it: a byte changed (at the middle and at random places), the
/// last byte dropped, a byte appended.
fn probes_near(keys: &[&str], edits: &[(prop::sample::Index, u8)]) -> Vec<Vec<u8>> {
    let mut probes = Vec::new();
    for key in keys {
        let bytes = key.as_bytes();
        probes.push(bytes.to_vec());
        probes.push(bytes[..bytes.len().saturating_sub(1)].to_vec());
        let mut longer = bytes.to_vec();
        longer.push(b'x');
        probes.push(longer);
        if bytes.is_empty() {
            continue;
        }
        let mut middle = bytes.to_vec();
        middle[bytes.len() / 2] ^= 1;
        probes.push(middle);
        for (at, flip) in edits {
            let mut changed = bytes.to_vec();
            changed[at.index(bytes.len())] ^= flip | 1;
            probes.push(changed);
        }
    }
    probes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// No false positive: a probe answers a key's index exactly when the probe is that key.
    /// Up to `MIDDLE_MAX` bytes the packed and middle words alone decide (`confirm` is never
    /// asked); a longer probe is confirmed against the key its words matched.
    #[test]
    fn a_probe_answers_exactly_its_key_and_no_near_miss(
        keys in keys(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let table = phash::build(&keys, |i| i as u16).expect("builds");
        for probe in probes_near(&keys, &edits) {
            let expected = keys.iter().position(|k| k.as_bytes() == probe.as_slice());
            let mut confirmed_short = false;
            let got = table.view().probe(&probe, |i| {
                confirmed_short |= probe.len() <= phash::MIDDLE_MAX;
                keys[i].as_bytes() == probe.as_slice()
            });
            prop_assert!(!confirmed_short, "confirm asked for a {}-byte probe", probe.len());
            prop_assert_eq!(got.map(usize::from), expected, "{:?}", String::from_utf8_lossy(&probe));
        }
    }
}

#[test]
fn long_keys_that_differ_only_between_the_packed_words_are_told_apart() {
    // 40 bytes: the packed words cover bytes 0..16 and 24..40, not the byte at 20.
    let a = format!("{}a{}", "x".repeat(20), "y".repeat(19));
    let b = format!("{}b{}", "x".repeat(20), "y".repeat(19));
    let keys = [a.as_str(), b.as_str()];
    let table = phash::build(&keys, |i| i as u16).expect("builds");
    for (i, k) in keys.iter().enumerate() {
        let got = table.view().probe(k.as_bytes(), |j| keys[j] == *k);
        assert_eq!(got, Some(i as u16));
    }
    let c = format!("{}c{}", "x".repeat(20), "y".repeat(19));
    let miss = table.view().probe(c.as_bytes(), |j| keys[j] == c);
    assert_eq!(miss, None);
}

#[test]
fn the_table_refuses_duplicate_keys() {
    assert_eq!(
        phash::build(&["a", "b", "a"], |i| i as u16),
        Err(phash::BuildError::DuplicateKey("a".into()))
    );
    assert!(phash::build(&[], |i| i as u16).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Keys given twice are refused, naming the least of them; distinct keys build. The oracle
    /// counts the keys in a sorted map.
    #[test]
    fn the_least_key_given_twice_is_named(keys in proptest::collection::vec("[a-c]{1,3}", 0..40)) {
        let mut counts = std::collections::BTreeMap::new();
        for k in &keys {
            *counts.entry(k.as_str()).or_insert(0) += 1;
        }
        let least_twice = counts.iter().find(|(_, n)| **n > 1).map(|(k, _)| k.to_string());
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        match (phash::build(&refs, |i| i as u16), least_twice) {
            (Err(phash::BuildError::DuplicateKey(named)), Some(least)) => prop_assert_eq!(named, least),
            (Ok(_), None) => {}
            (got, want) => prop_assert!(false, "{:?} for duplicate {:?}", got.map(|_| ()), want),
        }
    }
}

#[test]
fn keys_that_differ_in_any_single_byte_get_a_table() {
    // Every byte position of every length from the short path through the exact one to the
    // long one: keys that differ only there (IDs such as `policy1.…` and `policy2.…`) must
    // still hash apart under some seed.
    for len in 1..=40 {
        for at in 0..len {
            let keys: Vec<String> = (b'a'..=b'z')
                .map(|c| {
                    let mut k = vec![b'k'; len];
                    k[at] = c;
                    String::from_utf8(k).expect("ascii")
                })
                .collect();
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            assert!(
                phash::build(&keys, |i| i as u16).is_ok(),
                "length {len}, byte {at}"
            );
        }
    }
}

#[test]
fn a_probe_of_an_empty_table_misses() {
    let empty = phash::TableRef {
        seed: 1,
        slots: &[],
        middles: &[],
    };
    for key in ["", "short", "sixteen-byte-key", &"x".repeat(40)] {
        assert_eq!(empty.probe(key.as_bytes(), |_| true), None, "{key}");
    }
}

#[test]
fn keys_sharing_their_ends_get_a_table_and_are_told_apart() {
    // Same length, same first and last 8 bytes, as a pack's IDs often are: the middle words of
    // the hash tell them apart.
    let shared: Vec<String> = (0..100)
        .map(|i| format!("policy.a{i:03}_x.verify_all"))
        .collect();
    let shared: Vec<&str> = shared.iter().map(String::as_str).collect();
    let table = phash::build(&shared, |i| i as u16).expect("builds");
    for (i, k) in shared.iter().enumerate() {
        assert_eq!(
            table.view().probe(k.as_bytes(), |j| shared[j] == *k),
            Some(i as u16)
        );
    }
    assert_eq!(
        table.view().probe(b"policy.a100_x.verify_all", |_| true),
        None
    );
}
