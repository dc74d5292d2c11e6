//! The library `TraceWriter` writes nothing replay would refuse (issue 21 item 5): a `cost.usd`
//! with no integer nano-USD value, a step that takes the run's spend past what replay sums, and
//! a line replay's parser refuses (nesting past its limit) are refused with a typed error and
//! leave the chain as it was — and, as a property, every trace written from any mix of accepted
//! and refused steps replays as something other than `malformed`.

use primgraph::registry::Registry;
use primgraph::replay::trace::{Cost, EndStatus};
use primgraph::replay::{
    ReplayGraph, ReplayOptions, Replayer, Step, StepResult, TraceWriter, Verdict, WriteError,
};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::OnceLock;

fn replayer() -> &'static Replayer<'static> {
    static R: OnceLock<Replayer<'static>> = OnceLock::new();
    R.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/graphs/runs/fix-failing-test.graph.json"
        );
        let bytes = std::fs::read(path).unwrap();
        let graph = ReplayGraph::load(path, &bytes, Registry::builtin()).unwrap();
        Replayer::new(Registry::builtin(), graph, ReplayOptions::default())
    })
}

fn writer() -> TraceWriter<Vec<u8>> {
    TraceWriter::for_graph(Vec::new(), "r", &replayer().graph().document, json!({})).unwrap()
}

fn nested(depth: usize) -> Value {
    let mut v = json!({});
    for _ in 0..depth {
        v = json!({ "d": v });
    }
    v
}

fn step(usd: f64, depth: usize) -> Step {
    Step {
        node: "read_task".into(),
        primitive: "intake.parse_issue".into(),
        input: json!({}),
        result: StepResult::Output {
            output: nested(depth),
            outcome: None,
        },
        evidence: Vec::new(),
        cost: Some(Cost { usd, tokens: 1 }),
    }
}

fn replayed(w: TraceWriter<Vec<u8>>) -> Verdict {
    let bytes = w.finish().unwrap();
    replayer().replay_slice("t", &bytes).verdict
}

#[test]
fn a_cost_replay_cannot_sum_is_refused_and_the_chain_holds() {
    let mut w = writer();
    assert!(matches!(w.step(&step(1e300, 0)), Err(WriteError::BadCost(u)) if u == 1e300));
    assert!(matches!(
        w.step(&step(1.9e10, 0)),
        Err(WriteError::BadCost(_))
    ));
    assert_eq!(w.step(&step(1e10, 0)).unwrap(), 1);
    // Each alone is fine; together they pass u64::MAX nano-USD.
    let e = w.step(&step(9e9, 0)).unwrap_err();
    assert!(matches!(e, WriteError::SpendOverflow(_)), "{e}");
    assert!(e.to_string().contains("`cost.usd`"), "{e}");
    assert_eq!(w.step(&step(0.5, 0)).unwrap(), 2);
    w.end(EndStatus::Failure).unwrap();
    assert_ne!(replayed(w), Verdict::Malformed);
}

#[test]
fn a_line_replays_parser_refuses_is_not_written() {
    let mut w = writer();
    let e = w.step(&step(0.0, 200)).unwrap_err();
    assert!(
        matches!(&e, WriteError::Unreadable { message, .. } if message.contains("recursion")),
        "{e}"
    );
    assert_eq!(w.step(&step(0.0, 100)).unwrap(), 1);
    w.end(EndStatus::Failure).unwrap();
    assert_ne!(replayed(w), Verdict::Malformed);
    // The header too: an input nested past the parser's limit is refused before anything.
    let e = TraceWriter::for_graph(
        Vec::new(),
        "r",
        &replayer().graph().document,
        json!({"x": nested(200)}),
    );
    assert!(matches!(e, Err(WriteError::Unreadable { .. })));
}

fn usd() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        (0.0f64..1.0),
        (-12i32..25, 1.0f64..10.0).prop_map(|(e, m)| m * 10f64.powi(e)),
        Just(1e300),
        Just(18_446_744_073.709_553),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the steps asked, what the writer wrote replays (never `malformed`), and it
    /// refused a step only for a reason replay would have refused it for.
    #[test]
    fn what_the_writer_writes_replay_reads(
        steps in prop::collection::vec((usd(), prop_oneof![0usize..10, 120usize..140]), 1..6)
    ) {
        let mut w = writer();
        let mut spent: u128 = 0;
        for (usd, depth) in steps {
            match w.step(&step(usd, depth)) {
                Ok(_) => spent += (usd * 1e9).round() as u128,
                Err(WriteError::BadCost(_)) => prop_assert!((usd * 1e9).round() >= 2f64.powi(64)),
                Err(WriteError::SpendOverflow(_)) => {
                    prop_assert!(spent + (usd * 1e9).round() as u128 > u128::from(u64::MAX));
                }
                Err(WriteError::Unreadable { .. }) => prop_assert!(depth >= 120),
                Err(e) => prop_assert!(false, "{e}"),
            }
        }
        w.end(EndStatus::Failure).unwrap();
        prop_assert_ne!(replayed(w), Verdict::Malformed);
    }
}
