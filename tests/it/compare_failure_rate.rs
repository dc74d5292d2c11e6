//! Issue 21 item 12: a primitive's failure rate with runs as the unit. Steps of one run are
//! correlated (a run that loops on a failing patch contributes many failures), so an interval
//! that treats every step as an independent trial is too narrow. A simulation whose truth is
//! known: each run draws a propensity (5% for most runs, 65% for a quarter: a true rate of 20%),
//! then its steps fail independently at that propensity. The run-level interval `compare` gives
//! covers the truth about as often as its confidence says; the step-level Wilson interval on the
//! same data covers it far less often — which is what the fix is for.

use primgraph::compare::compare;
use primgraph::compare::stats::{self, z_quantile};
use primgraph::{RunReport, RunStats, SealStatus, Summary, Verdict};

/// SplitMix64: a small seeded generator, so the simulation is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const TRUE_RATE: f64 = 0.2;
const PRIMITIVE: &str = "synth.patch";

/// One run: its steps of the primitive and how many failed.
fn run(rng: &mut Rng) -> (u64, u64) {
    let propensity = if rng.uniform() < 0.25 { 0.65 } else { 0.05 };
    let steps = 1 + rng.next() % 16;
    let errors = (0..steps).filter(|_| rng.uniform() < propensity).count() as u64;
    (steps, errors)
}

fn report(steps: u64, errors: u64) -> RunReport {
    let mut stats = RunStats::default();
    stats.primitive_steps.insert(PRIMITIVE.into(), steps);
    if errors > 0 {
        stats
            .failure_modes
            .entry(PRIMITIVE.into())
            .or_default()
            .insert("patch_failed".into(), errors);
    }
    RunReport {
        run: None,
        trace: "sim".into(),
        verdict: Verdict::Faithful,
        end: None,
        steps,
        first_divergence: None,
        diagnostics: Vec::new(),
        stats,
        seal: SealStatus::Absent,
        signer: None,
        imported: false,
    }
}

#[test]
fn the_run_level_interval_covers_a_known_rate_where_the_step_level_one_does_not() {
    let mut rng = Rng(21);
    let (datasets, runs) = (600, 40);
    let (mut run_level, mut step_level) = (0, 0);
    let z = z_quantile(0.95).unwrap();
    for _ in 0..datasets {
        let mut summary = Summary::default();
        let (mut errors, mut steps) = (0, 0);
        for _ in 0..runs {
            let (s, e) = run(&mut rng);
            summary.add(&report(s, e)).unwrap();
            steps += s;
            errors += e;
        }
        let comparison = compare(&summary, &summary, 0.95);
        let metric = comparison
            .metrics
            .iter()
            .find(|m| m.metric == "failure_rate" && m.key.as_deref() == Some(PRIMITIVE))
            .expect("a failure_rate row");
        let interval = metric.candidate.interval.expect("an interval");
        if interval.low <= TRUE_RATE && TRUE_RATE <= interval.high {
            run_level += 1;
        }
        let naive = stats::wilson(errors, steps, z).unwrap();
        if naive.low <= TRUE_RATE && TRUE_RATE <= naive.high {
            step_level += 1;
        }
    }
    let coverage = |k: usize| k as f64 / datasets as f64;
    let (run_level, step_level) = (coverage(run_level), coverage(step_level));
    println!("coverage at 95%: run-level {run_level:.3}, step-level {step_level:.3}");
    assert!(run_level >= 0.92, "run-level coverage {run_level}");
    assert!(
        step_level < 0.85,
        "step-level coverage {step_level}: the simulation must be correlated enough to tell them apart"
    );
}

#[test]
fn a_rate_of_zero_counts_each_run_once() {
    let r = stats::ClusteredRate::new(0, 1000, 100, 0, 10_000, 0).unwrap();
    assert_eq!(r.effective_n, 100.0);
    let i = r.interval(1.96).unwrap();
    // Wilson's upper bound at 0/100, not at 0/1000.
    assert!((i.high - 0.037).abs() < 0.001, "{i:?}");
    // Independent steps (each run one step): the effective size is the steps.
    let r = stats::ClusteredRate::new(30, 100, 100, 30, 100, 30).unwrap();
    assert_eq!(r.effective_n, 100.0);
}
