//! The summary's integrity (issue 21, items 2 and 3): counts never wrap — an overflowing `add`,
//! `merge` or file is an error naming the field, and leaves the summary as it was — and a summary
//! that no runs could give (a sum of squares below (Σx)²/n, more successes than runs, per-task
//! counts that do not add up, a duplicate key) is refused with its JSON pointer and line. As
//! properties: every summary folded from real run reports (simulated with faults, plus cut and
//! garbage traces) passes the check and reads back equal; each single corruption of one is
//! refused.

use primgraph::replay::corpus::replay_corpus;
use primgraph::replay::summary::{GraphIdentity, TaskCounts};
use primgraph::replay::summary_file::SummaryFile;
use primgraph::replay::{Replayer, RunReport, Summary};
use primgraph::simulate::{SimOptions, simulate_run};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::OnceLock;

use crate::common;
use common::trusting;

fn replayer() -> Replayer<'static> {
    trusting(Vec::new())
}

/// Real run reports: simulated runs (a third with a seeded fault, four tasks), and some cut short
/// or replaced by garbage, so that runs without an end, without a task and with every verdict
/// are among them.
fn reports() -> &'static Vec<RunReport> {
    static R: OnceLock<Vec<RunReport>> = OnceLock::new();
    R.get_or_init(|| {
        let rp = replayer();
        let options = SimOptions {
            seed: 21,
            fault_rate: 0.35,
            tasks: 4,
            ..SimOptions::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for i in 0..60 {
            let run = simulate_run(&rp, &options, i).unwrap();
            let mut trace = run.trace.clone();
            match i % 10 {
                7 => trace.truncate(trace.len() * 2 / 3),
                8 => trace = b"{\"trace\": \"1\", oops\n".to_vec(),
                _ => {}
            }
            let path = dir.path().join(format!("{i:03}.trace.jsonl"));
            std::fs::write(&path, &trace).unwrap();
            files.push(path);
        }
        let (reports, _) = replay_corpus(&rp, &files, 2, &|| {}).unwrap();
        reports
    })
}

fn fold(runs: &[&RunReport]) -> Summary {
    let mut s = Summary::default();
    for r in runs {
        s.add(r).unwrap();
    }
    s
}

fn file_of(summary: Summary) -> SummaryFile {
    SummaryFile {
        graph: GraphIdentity {
            name: "fix".into(),
            digest: format!("sha256:{}", "0".repeat(64)),
        },
        summary,
    }
}

fn read(value: &Value) -> Result<SummaryFile, primgraph::SummaryError> {
    SummaryFile::from_slice(&serde_json::to_vec_pretty(value).unwrap())
}

#[test]
fn the_reports_cover_what_the_checks_look_at() {
    let s = fold(&reports().iter().collect::<Vec<_>>());
    assert_eq!(s.runs, 60);
    for verdict in ["faithful", "violated", "malformed"] {
        assert!(
            s.by_verdict.get(verdict).is_some_and(|&n| n > 0),
            "{verdict}: {s:?}"
        );
    }
    assert!(s.by_end.get("none").is_some_and(|&n| n > 0));
    assert!(s.tasks.values().map(|t| t.runs).sum::<u64>() < s.runs);
    assert!(!s.failure_modes.is_empty() && !s.first_divergence_sites.is_empty());
    assert!(s.primitive_runs.as_ref().is_some_and(|p| !p.is_empty()));
    s.check().unwrap();
}

/// One corruption of a summary file's JSON, and the pointer prefix its error must name.
#[derive(Debug, Clone, Copy)]
enum Corruption {
    /// Σx² below (Σx)²/n: the variance would be negative (`compare` clamped it to 0).
    StepsSquaresTooSmall,
    SpendSquaresTooSmall,
    /// A task with more successes than runs.
    TaskSuccessesAboveRuns,
    /// A task with no runs.
    TaskWithoutRuns,
    /// More task runs than runs.
    TaskRunsAboveRuns,
    /// One more verdict than runs.
    VerdictCount,
    /// One more run in a histogram bucket.
    HistogramBucket,
    /// A primitive with one more step than the runs have.
    PrimitiveSteps,
    /// A primitive with more error steps than steps.
    ErrorsAboveSteps,
    /// The steps' sum outside what the histogram allows.
    StepsSum,
    /// A per-run cross sum that no runs give.
    PrimitiveRunsCross,
    /// A count near 2^64 that wraps a total back to `runs` (a wrapping sum accepted it).
    WrappingVerdicts,
}

const CORRUPTIONS: [Corruption; 12] = [
    Corruption::StepsSquaresTooSmall,
    Corruption::SpendSquaresTooSmall,
    Corruption::TaskSuccessesAboveRuns,
    Corruption::TaskWithoutRuns,
    Corruption::TaskRunsAboveRuns,
    Corruption::VerdictCount,
    Corruption::HistogramBucket,
    Corruption::PrimitiveSteps,
    Corruption::ErrorsAboveSteps,
    Corruption::StepsSum,
    Corruption::PrimitiveRunsCross,
    Corruption::WrappingVerdicts,
];

fn first_key(v: &Value) -> String {
    v.as_object().unwrap().keys().next().unwrap().clone()
}

fn escape(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

/// Apply `c` to `doc` (a summary file's JSON); the pointer prefix the refusal must name, or
/// `None` when this summary has nothing to corrupt that way.
fn corrupt(doc: &mut Value, c: Corruption) -> Option<String> {
    let s = &mut doc["summary"];
    let runs = s["runs"].as_u64().unwrap();
    match c {
        Corruption::StepsSquaresTooSmall => {
            let sum = u128::from(s["steps"]["sum"].as_u64().unwrap());
            // (Σx)²/n rounded down, minus one: below the bound for any n ≥ 1 with Σx > 0.
            let below = (sum * sum / u128::from(runs)).checked_sub(1)?;
            s["steps"]["sum_squares"] = json!(below.to_string());
            Some("/summary/steps/sum_squares".into())
        }
        Corruption::SpendSquaresTooSmall => {
            let sum: u128 = s["spend_usd"]["sum_nanos"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            let below = (sum * sum / u128::from(runs)).checked_sub(1)?;
            s["spend_usd"]["sum_squares_nanos"] = json!(below.to_string());
            Some("/summary/spend_usd/sum_squares_nanos".into())
        }
        Corruption::TaskSuccessesAboveRuns => {
            let k = first_key(&s["tasks"]);
            let t = &mut s["tasks"][&k];
            t["successes"] = json!(t["runs"].as_u64().unwrap() + 1);
            Some(format!("/summary/tasks/{}", escape(&k)))
        }
        Corruption::TaskWithoutRuns => {
            let k = first_key(&s["tasks"]);
            s["tasks"][&k] = json!({"runs": 0, "successes": 0});
            Some(format!("/summary/tasks/{}", escape(&k)))
        }
        Corruption::TaskRunsAboveRuns => {
            s["tasks"].as_object_mut().unwrap().insert(
                format!("sha256:{}", "f".repeat(64)),
                json!({"runs": runs, "successes": 0}),
            );
            Some("/summary/tasks".into())
        }
        Corruption::VerdictCount => {
            let n = s["by_verdict"]["faithful"].as_u64()?;
            s["by_verdict"]["faithful"] = json!(n + 1);
            Some("/summary/by_verdict".into())
        }
        Corruption::HistogramBucket => {
            let n = s["steps"]["histogram"][12]["runs"].as_u64().unwrap();
            s["steps"]["histogram"][12]["runs"] = json!(n + 1);
            Some("/summary/steps/histogram".into())
        }
        Corruption::PrimitiveSteps => {
            let k = first_key(&s["primitive_steps"]);
            let n = s["primitive_steps"][&k].as_u64().unwrap();
            s["primitive_steps"][&k] = json!(n + 1);
            Some("/summary/primitive_steps".into())
        }
        Corruption::ErrorsAboveSteps => {
            let k = first_key(&s["failure_modes"]);
            let steps = s["primitive_steps"][&k].as_u64().unwrap_or(0);
            s["failure_modes"][&k]["made_up_mode"] = json!(steps + 1);
            Some(format!("/summary/failure_modes/{}", escape(&k)))
        }
        Corruption::StepsSum => {
            // Past every bucket's bound but the last, with nothing in the last bucket.
            if s["steps"]["histogram"][12]["runs"].as_u64() != Some(0) {
                return None;
            }
            s["steps"]["sum"] = json!(10_000 * runs + 1);
            Some("/summary/steps/sum".into())
        }
        Corruption::PrimitiveRunsCross => {
            let k = first_key(&s["primitive_runs"]);
            let r = &mut s["primitive_runs"][&k];
            let steps_sq: u128 = match &r["steps_sum_squares"] {
                Value::String(x) => x.parse().unwrap(),
                x => u128::from(x.as_u64().unwrap()),
            };
            r["errors_steps_sum"] = json!((steps_sq + 1).to_string());
            Some(format!("/summary/primitive_runs/{}", escape(&k)))
        }
        Corruption::WrappingVerdicts => {
            // 2^64 more verdicts in all: a wrapping sum is `runs` again.
            let f = s["by_verdict"]["faithful"].as_u64()?;
            let v = s["by_verdict"]["violated"].as_u64().unwrap_or(0);
            s["by_verdict"]["faithful"] = json!(u64::MAX);
            s["by_verdict"]["violated"] = json!(v + f + 1);
            Some("/summary/by_verdict".into())
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any subset of real runs, folded in any order, gives a summary that passes the check and
    /// reads back from its file exactly.
    #[test]
    fn every_summary_of_real_runs_passes_the_check(
        pick in prop::collection::vec(any::<bool>(), 60),
        order in any::<u64>(),
    ) {
        let mut runs: Vec<&RunReport> =
            reports().iter().zip(&pick).filter(|(_, p)| **p).map(|(r, _)| r).collect();
        // A seeded rotation: the fold order does not matter.
        if !runs.is_empty() {
            let k = (order % runs.len() as u64) as usize;
            runs.rotate_left(k);
        }
        let s = fold(&runs);
        prop_assert!(s.check().is_ok(), "{:?}", s.check());
        let file = file_of(s);
        let back = read(&file.to_json());
        prop_assert_eq!(back.as_ref().ok(), Some(&file), "{:?}", back.as_ref().err());
    }

    /// Each single corruption of a real summary is refused, naming where.
    #[test]
    fn each_single_corruption_is_refused(
        pick in prop::collection::vec(prop::bool::weighted(0.7), 60),
        which in 0..CORRUPTIONS.len(),
    ) {
        let runs: Vec<&RunReport> =
            reports().iter().zip(&pick).filter(|(_, p)| **p).map(|(r, _)| r).collect();
        let s = fold(&runs);
        prop_assume!(s.runs > 0 && !s.tasks.is_empty() && !s.failure_modes.is_empty());
        let mut doc = file_of(s).to_json();
        let Some(want) = corrupt(&mut doc, CORRUPTIONS[which]) else {
            return Ok(());
        };
        let e = read(&doc).expect_err("a corrupted summary must be refused");
        prop_assert!(e.pointer.starts_with(&want), "{:?}: {} (want {})", CORRUPTIONS[which], e, want);
        prop_assert!(e.line.is_some() && e.column.is_some(), "{}", e);
    }
}

#[test]
fn a_duplicate_key_in_a_summary_file_is_refused_at_its_line() {
    let s = fold(&reports().iter().take(10).collect::<Vec<_>>());
    let text = serde_json::to_string_pretty(&file_of(s).to_json()).unwrap();
    // A second `runs` in the summary: a last-wins reader would take 999.
    let doubled = text.replacen("\"runs\": 10,", "\"runs\": 10,\n    \"runs\": 999,", 1);
    assert_ne!(doubled, text);
    let e = SummaryFile::from_slice(doubled.as_bytes()).unwrap_err();
    // At the second `runs`, its own pointer.
    assert_eq!(e.pointer, "/summary/runs");
    assert!(e.message.contains("duplicate key \"runs\""), "{e}");
    let line = doubled.lines().position(|l| l.contains("999")).unwrap() + 1;
    assert_eq!(e.line, Some(line), "{e}");
    // The bare summary's reader (Python's `Summary.from_json`) refuses it too.
    let bare =
        serde_json::to_string(&fold(&reports().iter().take(3).collect::<Vec<_>>()).to_json())
            .unwrap()
            .replacen("{\"runs\":3,", "{\"runs\":3,\"runs\":4,", 1);
    let e = Summary::from_slice(bare.as_bytes()).unwrap_err();
    assert!(e.message.contains("duplicate key"), "{e}");
}

/// A summary holding `n` runs, all faithful successes of one task, and nothing else.
fn bare(n: u64) -> Summary {
    let mut s = Summary {
        runs: n,
        ..Summary::default()
    };
    s.by_verdict.insert("faithful".into(), n);
    s.by_end.insert("success".into(), n);
    s.by_seal.insert("absent".into(), n);
    s.steps_histogram[0] = n;
    s.spend_histogram[0] = n;
    s.tasks.insert(
        format!("sha256:{}", "a".repeat(64)),
        TaskCounts {
            runs: n,
            successes: n,
        },
    );
    s
}

#[test]
fn a_merge_past_2_64_is_an_error_and_changes_nothing() {
    let big = bare(u64::MAX);
    big.check().unwrap();
    let mut merged = big.clone();
    let e = merged.merge(&bare(20)).unwrap_err();
    assert_eq!(e.pointer, "/runs");
    assert!(e.message.contains("2^64"), "{e}");
    assert_eq!(merged, big, "a failed merge leaves the summary as it was");
    // Either way round.
    let mut other = bare(20);
    assert!(other.merge(&big).is_err());
    assert_eq!(other, bare(20));
    // A count inside a map overflows too, with its pointer (the runs themselves fit).
    let mut a = bare(1);
    a.diagnostics_by_code.insert("D603".into(), u64::MAX);
    let mut b = bare(1);
    b.diagnostics_by_code.insert("D603".into(), 1);
    let e = a.merge(&b).unwrap_err();
    assert_eq!(e.pointer, "/diagnostics_by_code/D603");
    // And adding one run to a full summary.
    let mut full = bare(u64::MAX);
    let e = full.add(&reports()[0]).unwrap_err();
    assert_eq!(e.pointer, "/runs");
    assert_eq!(full, bare(u64::MAX));
}

#[test]
fn a_file_whose_counts_do_not_fit_is_refused() {
    // A count past u64 (serde reads it as a float).
    let mut doc = file_of(bare(3)).to_json();
    doc["summary"]["by_verdict"]["faithful"] = json!(18446744073709551616.0);
    let e = read(&doc).unwrap_err();
    assert_eq!(e.pointer, "/summary/by_verdict/faithful");
    // Counts near 2^64 that add up only by wrapping: 2^64 − 1 faithful + 4 violated "= 3".
    let mut doc = file_of(bare(3)).to_json();
    doc["summary"]["by_verdict"] = json!({"faithful": u64::MAX, "violated": 4});
    let e = read(&doc).unwrap_err();
    assert_eq!(e.pointer, "/summary/by_verdict");
}

#[test]
fn a_version_1_file_reads_without_the_per_run_sums() {
    let s = fold(&reports().iter().take(12).collect::<Vec<_>>());
    let mut doc = file_of(s.clone()).to_json();
    doc["version"] = json!(1);
    doc["summary"]
        .as_object_mut()
        .unwrap()
        .remove("primitive_runs");
    let old = read(&doc).unwrap();
    assert_eq!(old.summary.primitive_runs, None);
    assert_eq!(old.summary.primitive_steps, s.primitive_steps);
    // Merged with a new one, the per-run sums are incomplete: gone.
    let mut merged = old.summary.clone();
    merged.merge(&s).unwrap();
    assert_eq!(merged.primitive_runs, None);
    // A version 2 file must have them; a version 1 file must not.
    let mut v2 = file_of(s.clone()).to_json();
    v2["summary"]
        .as_object_mut()
        .unwrap()
        .remove("primitive_runs");
    assert_eq!(read(&v2).unwrap_err().pointer, "/summary/primitive_runs");
    let mut v1 = file_of(s).to_json();
    v1["version"] = json!(1);
    assert_eq!(read(&v1).unwrap_err().pointer, "/summary/primitive_runs");
}
