//! Invariants of `registry diff` over the built-in registry and seeded edits of it
//! (`versions::registry_diff::edits`): a registry diffed with itself has no difference and needs no
//! bump; removing any one primitive gives exactly one V701, for it, located in OLD; and the
//! required bump of edits to distinct primitives is the largest of their bumps (so adding a
//! change never lowers it).

use primgraph::registry::BUILTIN_JSON;
use primgraph::versions::registry_diff::{self, Bump, DiffSide, Place, edits};
use proptest::prelude::*;
use serde_json::Value;

fn builtin_value() -> Value {
    serde_json::from_str(BUILTIN_JSON).unwrap()
}

fn side(name: &str, doc: &Value) -> DiffSide {
    let bytes = serde_json::to_vec_pretty(doc).unwrap();
    DiffSide::load_unlinted(name, &bytes).unwrap()
}

fn bump_of(old: &DiffSide, doc: &Value) -> Bump {
    registry_diff::diff(old, &side("new.json", doc)).required_bump
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn a_registry_diffed_with_itself_has_no_difference(n in 0usize..25, seed in 0u64..1000) {
        let (doc, _) = edits::scattered(&builtin_value(), n, seed);
        let (a, b) = (side("a.json", &doc), side("b.json", &doc));
        let report = registry_diff::diff(&a, &b);
        prop_assert!(report.findings.is_empty(), "{:?}", report.findings.first());
        prop_assert_eq!(report.required_bump, Bump::None);
    }

    #[test]
    fn removing_any_primitive_gives_exactly_one_v701_for_it(index in 0usize..191) {
        let root = builtin_value();
        let id = root["primitives"][index]["id"].as_str().unwrap().to_string();
        let mut doc = root.clone();
        edits::apply(&mut doc, index, edits::Edit::Remove);
        let old = DiffSide::builtin();
        let report = registry_diff::diff(&old, &side("new.json", &doc));
        let removed: Vec<_> = report.of_code("V701").collect();
        prop_assert_eq!(removed.len(), 1);
        prop_assert_eq!(removed[0].primitive.as_deref(), Some(id.as_str()));
        prop_assert_eq!(&removed[0].place, &Place::Old);
        prop_assert_eq!(removed[0].diagnostic.pointer.clone(), format!("/primitives/{index}"));
        prop_assert!(removed[0].diagnostic.line > 1);
        prop_assert_eq!(report.required_bump, Bump::Major);
        // Nothing else is reported about the other primitives (V718: the abi stayed 1.0.0).
        prop_assert!(report.findings.iter().all(|f| f.diagnostic.code == "V701" || f.diagnostic.code == "V718"));
    }

    #[test]
    fn the_bump_of_edits_on_distinct_primitives_is_the_largest_of_theirs(
        i in 0usize..95, j in 95usize..191, a in 1usize..10, b in 1usize..10,
    ) {
        // `Remove` (index 0 of ALL) is left out: it shifts the indices of the other edit.
        let (ea, eb) = (edits::Edit::ALL[a], edits::Edit::ALL[b]);
        let root = builtin_value();
        let old = DiffSide::builtin();
        let mut only_a = root.clone();
        edits::apply(&mut only_a, i, ea);
        let mut only_b = root.clone();
        edits::apply(&mut only_b, j, eb);
        let mut both = only_a.clone();
        edits::apply(&mut both, j, eb);
        let (ba, bb, bboth) = (bump_of(&old, &only_a), bump_of(&old, &only_b), bump_of(&old, &both));
        prop_assert_eq!(bboth, ba.max(bb), "{:?}@{} {:?}@{}", ea, i, eb, j);
        prop_assert!(bboth >= ba && bboth >= bb);
    }
}
