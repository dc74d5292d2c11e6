//! Registry lookup on the hot path: every iteration looks up all 382 keys of the built-in
//! registry (191 IDs + 191 aliases) in a fixed shuffled order. `by_id`/`by_alias` use
//! `Registry::lookup` (the build-time perfect hash) and keep the `&Primitive` it yields;
//! `by_id_read_field` also reads a field of each primitive found (one more cache line per
//! lookup, outside the lookup); `isa_from_key` uses the `Isa` enum's own table, `miss` 382
//! near-miss strings (one letter changed); the baselines `hashmap_string` and `btreemap_string`
//! map the same 382 `String` keys to `u16` in the same run.
//!
//! Run: `cargo bench --bench registry_lookup -- --warm-up-time 1 --measurement-time 3`.

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::registry::{Isa, Primitive, Registry};
use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;

/// A fixed pseudo-random permutation (xorshift, fixed seed): the same order every run.
fn shuffled<T: Clone>(items: &[T]) -> Vec<T> {
    let mut v = items.to_vec();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for i in (1..v.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        v.swap(i, (state % (i as u64 + 1)) as usize);
    }
    v
}

/// `key` with one letter changed (the middle one, to the next letter of its case), so that it
/// is not a key of the registry.
fn near_miss(key: &str, registry: &Registry) -> String {
    let mut bytes = key.as_bytes().to_vec();
    let mut at = bytes.len() / 2;
    loop {
        if let Some(b) = bytes.get_mut(at)
            && b.is_ascii_alphabetic()
        {
            *b = match *b {
                b'z' => b'a',
                b'Z' => b'A',
                other => other + 1,
            };
            let candidate = String::from_utf8(bytes.clone()).unwrap_or_default();
            if registry.lookup(&candidate).is_none() {
                return candidate;
            }
        }
        at = (at + 1) % bytes.len().max(1);
    }
}

/// The address of a looked-up primitive: its identity, without reading it.
fn address(p: &Primitive) -> usize {
    std::ptr::from_ref(p) as usize
}

fn registry_lookup(c: &mut Criterion) {
    let registry = Registry::builtin();
    let ids: Vec<&str> = shuffled(
        &registry
            .primitives()
            .iter()
            .map(|p| p.id.as_str())
            .collect::<Vec<_>>(),
    );
    let aliases: Vec<&str> = shuffled(
        &registry
            .primitives()
            .iter()
            .map(|p| p.alias.as_str())
            .collect::<Vec<_>>(),
    );
    let all: Vec<&str> = shuffled(
        &ids.iter()
            .chain(aliases.iter())
            .copied()
            .collect::<Vec<_>>(),
    );
    let misses: Vec<String> = all.iter().map(|k| near_miss(k, registry)).collect();
    assert_eq!(all.len(), 2 * registry.len());

    let hashmap: HashMap<String, u16> = registry
        .primitives()
        .iter()
        .flat_map(|p| [(p.id.clone(), p.index), (p.alias.clone(), p.index)])
        .collect();
    let btreemap: BTreeMap<String, u16> = hashmap.iter().map(|(k, v)| (k.clone(), *v)).collect();

    let mut group = c.benchmark_group("registry_lookup");
    // Each iteration: 382 lookups — `by_id` and `by_alias` look their shuffled half up twice,
    // the baselines all 382 keys once in one shuffled order. What a lookup yields is a handle on
    // the primitive (`&Primitive`), as the baseline yields its `u16`; the sum of the handles'
    // addresses keeps every lookup live without reading the 440-byte record behind each one,
    // which the baseline has no counterpart for. `by_id_read_field` measures that read too.
    let handles = |keys: &[&str]| {
        let mut sum = 0usize;
        for _ in 0..2 {
            for k in keys {
                sum = sum.wrapping_add(registry.lookup(black_box(*k)).map_or(0, address));
            }
        }
        sum
    };
    group.bench_function("by_id", |b| b.iter(|| handles(&ids)));
    group.bench_function("by_alias", |b| b.iter(|| handles(&aliases)));
    group.bench_function("by_id_read_field", |b| {
        b.iter(|| {
            let mut sum = 0u32;
            for _ in 0..2 {
                for k in &ids {
                    sum += registry.lookup(black_box(*k)).map_or(0, |p| p.index as u32);
                }
            }
            sum
        })
    });
    group.bench_function("isa_from_key", |b| {
        b.iter(|| {
            all.iter()
                .map(|k| Isa::from_key(black_box(*k)).map_or(0, |i| i.index() as u32))
                .sum::<u32>()
        })
    });
    group.bench_function("miss", |b| {
        b.iter(|| {
            misses
                .iter()
                .filter(|k| registry.lookup(black_box(k.as_str())).is_some())
                .count()
        })
    });
    group.bench_function("hashmap_string", |b| {
        b.iter(|| {
            all.iter()
                .map(|k| hashmap.get(black_box(*k)).map_or(0, |&i| i as u32))
                .sum::<u32>()
        })
    });
    group.bench_function("hashmap_string_miss", |b| {
        b.iter(|| {
            misses
                .iter()
                .filter(|k| hashmap.contains_key(black_box(k.as_str())))
                .count()
        })
    });
    group.bench_function("btreemap_string", |b| {
        b.iter(|| {
            all.iter()
                .map(|k| btreemap.get(black_box(*k)).map_or(0, |&i| i as u32))
                .sum::<u32>()
        })
    });
    group.finish();
}

criterion_group!(benches, registry_lookup);
criterion_main!(benches);
