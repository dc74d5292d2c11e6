//! Criterion group `schema_patterns`: deciding `L(source) ⊆ L(target)` for pairs of different
//! `pattern`s by automata (translate, build both dense DFAs, search the product for a shortest
//! witness), against the yardstick of compiling the same two patterns into `jsonschema`
//! validators (`{"pattern": …}`), measured in the same run. Nothing is cached between iterations
//! (`pattern::build` bypasses the checker's cache). Target: deciding ≤ 20× compiling.
//!
//! Run: `cargo bench --bench schema_patterns -- --warm-up-time 1 --measurement-time 3`.

use criterion::{Criterion, criterion_group, criterion_main};
use primgraph::schema::pattern::{Language, build, search};
use serde_json::json;

const PAIRS: &[(&str, &str)] = &[
    ("^[a-z]+$", "^[a-z0-9]+$"),
    ("^[a-z0-9]+$", "^[a-z]+$"),
    ("^a+$", "^a"),
    ("abc", "b"),
    ("^\\d{3}-\\d{4}$", "^[0-9-]+$"),
    ("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "^\\d{4}-"),
    ("^[A-Z]{2,3}$", "^[A-Z]{2}$"),
    ("^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$", "@"),
    (
        "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$",
        "^[0-9.]+$",
    ),
    ("^[a-z_][a-z0-9_]*$", "^\\w+$"),
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("schema_patterns");
    group.bench_function("decide_pattern_pairs", |b| {
        b.iter(|| {
            for (source, target) in PAIRS {
                let (Ok(s), Ok(t)) = (build(source), build(target)) else {
                    panic!("benchmark patterns compile");
                };
                std::hint::black_box(search(
                    Language::Pattern(&s),
                    Language::Pattern(&t),
                    0,
                    None,
                ));
            }
        })
    });
    group.bench_function("compile_two_regexes", |b| {
        b.iter(|| {
            for (source, target) in PAIRS {
                for pattern in [source, target] {
                    let validator = jsonschema::validator_for(&json!({"pattern": pattern}))
                        .expect("benchmark patterns compile");
                    std::hint::black_box(validator);
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
