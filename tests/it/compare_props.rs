//! `compare` (SPEC §6.3) as properties over random summaries: compare(S, S) reports no change
//! anywhere; swapping the sides negates every difference and swaps regression and improvement;
//! a summary split any way and merged again compares the same; no NaN reaches the JSON; a side
//! with zero runs has null estimates and no interval; an all-success side a proper interval.

use primgraph::compare::{Change, compare};
use primgraph::replay::Summary;
use primgraph::replay::summary::TaskCounts;
use proptest::prelude::*;
use serde_json::Value;

/// One synthetic run's figures.
#[derive(Debug, Clone)]
struct Run {
    task: u8,
    success: bool,
    faithful: bool,
    steps: u64,
    spend_nanos: u64,
    /// (primitive, steps of it, error steps of it)
    prims: Vec<(u8, u64, u64)>,
    node_visits: Vec<(u8, u64)>,
}

fn run() -> impl Strategy<Value = Run> {
    (
        0u8..12,
        any::<bool>(),
        prop::bool::weighted(0.8),
        1u64..40,
        0u64..5_000_000_000,
        prop::collection::vec((0u8..4, 1u64..5, 0u64..3), 0..3),
        prop::collection::vec((0u8..5, 1u64..4), 0..3),
    )
        .prop_map(
            |(task, success, faithful, steps, spend_nanos, prims, node_visits)| Run {
                task,
                success,
                faithful,
                steps,
                spend_nanos,
                prims: prims
                    .into_iter()
                    .map(|(p, n, e)| (p, n, e.min(n)))
                    .collect(),
                node_visits,
            },
        )
}

/// The summary of runs, built field by field as `Summary::add` would from run reports.
fn summarize(runs: &[Run]) -> Summary {
    let mut total = Summary::default();
    for r in runs {
        let mut s = Summary {
            runs: 1,
            steps_sum: r.steps,
            steps_sq_sum: u128::from(r.steps).pow(2),
            spend_nanos_sum: u128::from(r.spend_nanos),
            spend_nanos_sq_sum: u128::from(r.spend_nanos).pow(2),
            ..Summary::default()
        };
        let verdict = if r.faithful { "faithful" } else { "violated" };
        s.by_verdict.insert(verdict.into(), 1);
        let end = if r.success { "success" } else { "failure" };
        s.by_end.insert(end.into(), 1);
        s.tasks.insert(
            format!("task-{:02}", r.task),
            TaskCounts {
                runs: 1,
                successes: u64::from(r.success),
            },
        );
        for &(p, n, e) in &r.prims {
            let name = format!("prim.p{p}");
            *s.primitive_steps.entry(name.clone()).or_insert(0) += n;
            if e > 0 {
                *s.failure_modes
                    .entry(name)
                    .or_default()
                    .entry("timeout".into())
                    .or_insert(0) += e;
            }
        }
        for &(node, v) in &r.node_visits {
            *s.visits.entry(format!("n{node}")).or_insert(0) += v;
        }
        total.merge(&s).unwrap();
    }
    total
}

fn numbers_are_finite(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(f64::is_finite),
        Value::Array(a) => a.iter().all(numbers_are_finite),
        Value::Object(m) => m.values().all(numbers_are_finite),
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_summary_compared_with_itself_shows_no_change(runs in prop::collection::vec(run(), 0..40)) {
        let s = summarize(&runs);
        let c = compare(&s, &s, 0.95);
        for m in &c.metrics {
            prop_assert_eq!(m.change, Change::None, "{} {:?}", m.metric, m.key);
            if let Some(d) = m.difference.estimate {
                prop_assert_eq!(d, 0.0, "{} {:?}", m.metric, m.key);
            }
            if let Some(i) = m.difference.interval {
                prop_assert!(i.low <= 0.0 && i.high >= 0.0, "{} {:?} {:?}", m.metric, m.key, i);
            }
        }
        if let Some(p) = c.metrics.iter().find(|m| m.metric == "paired_success").and_then(|m| m.tasks) {
            prop_assert_eq!(p.improved + p.worsened, 0);
            prop_assert_eq!(p.unchanged as usize, s.tasks.len());
        }
        prop_assert!(numbers_are_finite(&c.to_json()));
    }

    #[test]
    fn swapping_the_sides_negates_every_difference(
        a in prop::collection::vec(run(), 0..40),
        b in prop::collection::vec(run(), 0..40),
    ) {
        let (sa, sb) = (summarize(&a), summarize(&b));
        let ab = compare(&sa, &sb, 0.9);
        let ba = compare(&sb, &sa, 0.9);
        prop_assert_eq!(ab.metrics.len(), ba.metrics.len());
        for (x, y) in ab.metrics.iter().zip(&ba.metrics) {
            prop_assert_eq!((x.metric, &x.key), (y.metric, &y.key));
            prop_assert_eq!(&x.baseline, &y.candidate);
            prop_assert_eq!(&x.candidate, &y.baseline);
            prop_assert_eq!(x.difference.estimate.map(|d| -d), y.difference.estimate);
            prop_assert_eq!(x.difference.interval.map(|i| i.negated()), y.difference.interval);
            prop_assert_eq!(x.change.swapped(), y.change, "{} {:?}", x.metric, x.key);
            if let (Some(t), Some(u)) = (x.tasks, y.tasks) {
                prop_assert_eq!((t.improved, t.worsened, t.unchanged), (u.worsened, u.improved, u.unchanged));
            }
        }
        prop_assert!(numbers_are_finite(&ab.to_json()));
    }

    #[test]
    fn a_summary_split_and_merged_compares_the_same(
        a in prop::collection::vec(run(), 1..40),
        b in prop::collection::vec(run(), 1..40),
        assign in prop::collection::vec(0usize..3, 40),
    ) {
        let mut parts = [Vec::new(), Vec::new(), Vec::new()];
        for (r, &k) in a.iter().zip(&assign) {
            parts[k].push(r.clone());
        }
        let mut merged = Summary::default();
        for p in parts.iter().rev() {
            merged.merge(&summarize(p)).unwrap();
        }
        let whole = summarize(&a);
        prop_assert_eq!(
            compare(&merged, &summarize(&b), 0.95).to_json(),
            compare(&whole, &summarize(&b), 0.95).to_json()
        );
    }
}

#[test]
fn a_side_with_zero_runs_has_null_estimates_and_no_interval() {
    let some = summarize(&[Run {
        task: 1,
        success: true,
        faithful: true,
        steps: 4,
        spend_nanos: 10,
        prims: vec![(0, 2, 1)],
        node_visits: vec![(0, 1)],
    }]);
    let c = compare(&Summary::default(), &some, 0.95);
    let j = c.to_json();
    assert!(numbers_are_finite(&j));
    for m in j["metrics"].as_array().unwrap() {
        assert_eq!(m["baseline"]["estimate"], Value::Null, "{m}");
        assert!(m["baseline"].get("low").is_none(), "{m}");
        assert_eq!(m["baseline"]["n"], 0, "{m}");
        assert_eq!(m["difference"]["estimate"], Value::Null, "{m}");
        assert!(m["difference"].get("low").is_none(), "{m}");
        assert_eq!(m["change"], "none", "{m}");
    }
    assert_eq!(j["baseline"]["runs"], 0);
}

#[test]
fn an_all_success_side_has_a_proper_wilson_interval() {
    let runs: Vec<Run> = (0..20)
        .map(|i| Run {
            task: i,
            success: true,
            faithful: true,
            steps: 5,
            spend_nanos: 1,
            prims: vec![],
            node_visits: vec![],
        })
        .collect();
    let s = summarize(&runs);
    let half: Vec<Run> = runs
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, mut r)| {
            r.success = i % 2 == 0;
            r
        })
        .collect();
    let c = compare(&summarize(&half), &s, 0.95);
    let rate = c
        .metrics
        .iter()
        .find(|m| m.metric == "success_rate")
        .unwrap();
    let i = rate.candidate.interval.unwrap();
    assert_eq!(i.high, 1.0);
    // Wilson for 20/20 at 95%: 1 − 0.1611 (Newcombe 1998a, 0/20's upper bound mirrored).
    assert!((i.low - 0.8389).abs() < 5e-5, "{i:?}");
    assert_eq!(rate.change, Change::Improvement);
    // Zero variance on both sides of mean_steps: the point difference, no NaN.
    let steps = c.metrics.iter().find(|m| m.metric == "mean_steps").unwrap();
    assert_eq!(steps.difference.estimate, Some(0.0));
    assert!(numbers_are_finite(&c.to_json()));
}

#[test]
fn the_json_document_has_the_spec_shape_sorted_by_metric_then_key() {
    let a = summarize(
        &(0..30)
            .map(|i| Run {
                task: i % 5,
                success: i % 3 == 0,
                faithful: true,
                steps: 3 + u64::from(i % 4),
                spend_nanos: 1_000_000 * u64::from(i),
                prims: vec![(u8::from(i % 2 == 0), 2, u64::from(i % 2))],
                node_visits: vec![(i % 3, 1)],
            })
            .collect::<Vec<_>>(),
    );
    let j = compare(&a, &a, 0.95).to_json();
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["confidence", "baseline", "candidate", "metrics"]);
    let ms = j["metrics"].as_array().unwrap();
    let order: Vec<(String, String)> = ms
        .iter()
        .map(|m| {
            (
                m["metric"].as_str().unwrap().to_string(),
                m["key"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    for m in ms {
        let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
        assert_eq!(
            &keys[..6],
            [
                "metric",
                "key",
                "baseline",
                "candidate",
                "difference",
                "change"
            ]
        );
    }
    let names: std::collections::BTreeSet<&str> =
        ms.iter().map(|m| m["metric"].as_str().unwrap()).collect();
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        primgraph::compare::METRICS
    );
}
