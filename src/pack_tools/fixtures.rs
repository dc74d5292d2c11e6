//! `pack test DIR` (SPEC §9.5): what a pack's CI runs. It lints the pack ([`super::lint`]),
//! then for each entry of `fixtures` — `{"graph", "runs", "expect"}`, paths relative to the pack
//! root — validates the graph with the pack's folder first on the pack path, replays every
//! `*.trace.jsonl` under `runs` against the graph's effective registry, and compares each run
//! with its expectation in `expect.json` (`{"RUN": {"verdict", "first_code"?, "seq"?}}`, keyed
//! by the trace header's `run`). Each run whose outcome differs, each run without an
//! expectation and each expectation without a run is one P850, and so is each fragment of the
//! pack that no fixture graph uses (directly or through another fragment).
//!
//! A malformed `fixtures` entry or `expect.json` is P801; a fixture file that does not exist is
//! P808 (a reference in a pack to nothing), both located where they are written.

use super::lint::{LintOptions, lint};
use super::{Findings, ToolError};
use crate::codes;
use crate::json::{Parsed, pointer};
use crate::pack::Pack;
use crate::pack::compose::{Base, Composer, ComposerOptions};
use crate::pack::manifest::normalize_relative;
use crate::pack::path::PackPath;
use crate::replay::{ReplayGraph, ReplayOptions, Replayer, RunReport, Verdict};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What `pack test` runs with.
#[derive(Debug, Clone, Default)]
pub struct TestOptions {
    /// More pack-path entries (for required packs); the pack's own folder is searched first.
    pub pack_path: Vec<PathBuf>,
    /// Trusted pack signers (`ed25519:` + hex).
    pub trusted: Vec<String>,
}

/// One recorded run, replayed and compared.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// The fixture's index in `fixtures`.
    pub fixture: usize,
    pub trace: String,
    /// The header's `run` (the trace's file name when the header did not read).
    pub run: String,
    pub verdict: Verdict,
    pub first_code: Option<String>,
    pub seq: Option<u64>,
    /// Whether it matched its expectation.
    pub ok: bool,
}

impl RunOutcome {
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "fixture": self.fixture,
            "trace": self.trace,
            "run": self.run,
            "verdict": self.verdict.as_str(),
            "first_code": self.first_code,
            "seq": self.seq,
            "ok": self.ok,
        })
    }
}

/// The outcome of `pack test`.
#[derive(Debug)]
pub struct Tested {
    pub findings: Findings,
    pub runs: Vec<RunOutcome>,
    /// The fixture graphs validated.
    pub graphs: usize,
}

/// One run's expectation.
#[derive(Debug, Clone)]
struct Expectation {
    verdict: Verdict,
    first_code: Option<String>,
    seq: Option<u64>,
}

/// Test the pack in `dir`.
pub fn test(dir: &Path, base: Base, options: &TestOptions) -> Result<Tested, ToolError> {
    let linted = lint(
        dir,
        base.clone(),
        &LintOptions {
            pack_path: options.pack_path.clone(),
            trusted: options.trusted.clone(),
        },
    )?;
    let mut out = Tested {
        findings: linted.findings,
        runs: Vec::new(),
        graphs: 0,
    };
    let Some(pack) = linted.pack else {
        return Ok(out);
    };
    if linted.fixtures.is_empty() {
        return Ok(out);
    }
    let mut path = vec![pack.dir.clone()];
    path.extend(options.pack_path.iter().cloned());
    let composer = Arc::new(Composer::new(
        base.clone(),
        PackPath::scan(&path),
        ComposerOptions {
            trusted: options.trusted.clone(),
            lock: None,
            locked: false,
        },
    ));
    for fixture in &linted.fixtures {
        run_fixture(&pack, fixture, &base, &composer, &mut out);
    }
    untested_fragments(&pack, &linted.fixtures, &mut out.findings);
    Ok(out)
}

/// P850 in each fragment file of the pack that no fixture graph uses, directly or through
/// another fragment: `pack test` validates every fragment through a fixture graph (SPEC
/// §9.5), so one no fixture reaches is checked by nothing but lint — as a fixture without runs
/// tests nothing. A fragment that does not load is lint's finding already.
fn untested_fragments(pack: &Pack, fixtures: &[Fixture], findings: &mut Findings) {
    let all = crate::pack::fragment::fragments_of(pack);
    if all.by_name.is_empty() {
        return;
    }
    let own = |text: &str| -> Option<String> {
        let (owner, name) = text.split_once('/')?;
        (owner == pack.name).then(|| name.to_string())
    };
    let mut pending: Vec<String> = Vec::new();
    for fixture in fixtures {
        let Ok(bytes) = crate::input::read_capped(&fixture.graph, crate::pack::MAX_FILE_BYTES)
        else {
            continue;
        };
        let Ok(graph) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        let nodes = graph.get("nodes").and_then(Value::as_array);
        pending.extend(
            nodes
                .into_iter()
                .flatten()
                .filter_map(|n| own(n.get("fragment")?.as_str()?)),
        );
    }
    let mut used = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !used.insert(name.clone()) {
            continue;
        }
        if let Some(Ok(f)) = all.by_name.get(&name) {
            pending.extend(
                crate::pack::fragment::uses(f)
                    .into_iter()
                    .filter_map(|(_, text)| own(&text)),
            );
        }
    }
    for (name, loaded) in &all.by_name {
        let Ok(f) = loaded else { continue };
        if used.contains(name) {
            continue;
        }
        let key = f.key();
        let mut d = codes::P850
            .at(
                "/fragment",
                format!(
                    "fragment `{key}` is used by no fixture graph, so `pack test` checks it \
                     through none (SPEC §9.5: every fragment is validated through a fixture graph)"
                ),
            )
            .with_help(format!(
                "use it in a fixture graph (a node `{{\"fragment\": \"{key}\", …}}`) with \
                 recorded runs, or remove it"
            ));
        crate::diagnostic::resolve(std::slice::from_mut(&mut d), &f.parsed);
        d.file = Some(f.file.clone());
        findings.push(&f.file, Some(f.parsed.source_arc()), d);
    }
}

/// Each entry of a pack's `fixtures`, checked (P801 for a malformed entry, P808 for a file that
/// does not exist, located in `pack.json`): the well-formed ones. `pack lint` reports the
/// findings; `pack test` runs what it returns.
pub fn entries(pack: &Pack, findings: &mut Findings) -> Vec<Fixture> {
    let Some(raw) = &pack.fixtures else {
        return Vec::new();
    };
    let Some(items) = raw.value.as_array() else {
        findings.push_in_pack(
            pack,
            codes::P801.at(raw.pointer.clone(), "`fixtures` must be an array"),
        );
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            read_fixture(pack, i, item, &format!("{}/{i}", raw.pointer), findings)
        })
        .collect()
}

/// A fixture entry with its files (each exists).
#[derive(Debug, Clone)]
pub struct Fixture {
    /// Its index in `fixtures`.
    pub index: usize,
    /// Its pointer in `pack.json` (`/fixtures/0`).
    pub pointer: String,
    pub graph: PathBuf,
    pub runs: PathBuf,
    pub expect: PathBuf,
}

fn read_fixture(
    pack: &Pack,
    index: usize,
    item: &Value,
    at: &str,
    findings: &mut Findings,
) -> Option<Fixture> {
    let Some(o) = item.as_object() else {
        findings.push_in_pack(
            pack,
            codes::P801.at(
                at,
                "a fixture is an object {\"graph\", \"runs\", \"expect\"}",
            ),
        );
        return None;
    };
    let mut ok = true;
    for k in o.keys() {
        if !["graph", "runs", "expect"].contains(&k.as_str()) {
            findings.push_in_pack(
                pack,
                codes::P801.at(
                    pointer::push(at, k),
                    format!("unknown field `{k}` in a fixture (it has `graph`, `runs`, `expect`)"),
                ),
            );
            ok = false;
        }
    }
    let mut file = |key: &str, want_dir: bool| -> Option<PathBuf> {
        let here = format!("{at}/{key}");
        let Some(text) = o.get(key).and_then(Value::as_str) else {
            findings.push_in_pack(
                pack,
                codes::P801.at(
                    if o.contains_key(key) {
                        here
                    } else {
                        at.to_string()
                    },
                    format!("a fixture needs `{key}`, a path relative to the pack root"),
                ),
            );
            return None;
        };
        let Some(rel) = normalize_relative(text) else {
            findings.push_in_pack(
                pack,
                codes::P801.at(
                    here,
                    format!("{text:?} must be a path relative to the pack root, inside it"),
                ),
            );
            return None;
        };
        let full = pack.dir.join(&rel);
        match std::fs::symlink_metadata(&full) {
            Ok(m) if want_dir && m.is_dir() => Some(full),
            Ok(m) if !want_dir && m.is_file() => Some(full),
            Ok(_) => {
                let what = if want_dir {
                    "a folder"
                } else {
                    "a regular file"
                };
                findings.push_in_pack(pack, codes::P801.at(here, format!("`{rel}` is not {what}")));
                None
            }
            Err(_) => {
                findings.push_in_pack(
                    pack,
                    codes::P808.at(
                        here,
                        format!("fixture `{key}` `{rel}` does not exist in the pack"),
                    ),
                );
                None
            }
        }
    };
    let graph = file("graph", false);
    let runs = file("runs", true);
    let expect = file("expect", false);
    match (graph, runs, expect, ok) {
        (Some(graph), Some(runs), Some(expect), true) => {
            // `expect.json` is one of the pack's files (SPEC §9.1: duplicate keys anywhere in
            // them are an error), so `pack lint` reads it as strictly as `pack test` does.
            if let Err(refusal) = read_expectations(&expect) {
                let (file, source, d) = *refusal;
                findings.push(&file, Some(source), d);
                return None;
            }
            Some(Fixture {
                index,
                pointer: at.to_string(),
                graph,
                runs,
                expect,
            })
        }
        _ => None,
    }
}

fn run_fixture(
    pack: &Pack,
    fixture: &Fixture,
    base: &Base,
    composer: &Arc<Composer>,
    out: &mut Tested,
) {
    let (index, at) = (fixture.index, fixture.pointer.as_str());
    // Validate the graph as `validate --pack DIR` would.
    let options = crate::validate::Options {
        packs: Some(composer.clone()),
        ..crate::validate::Options::default()
    };
    out.graphs += 1;
    let report = match crate::validate::check_file(&fixture.graph, base.registry(), &options) {
        Ok(r) => r,
        Err(e) => {
            out.findings.push_in_pack(
                pack,
                codes::P808.at(
                    format!("{at}/graph"),
                    format!("the fixture graph cannot be read: {e}"),
                ),
            );
            return;
        }
    };
    out.findings.push_report(report);
    let expectations = match read_expectations(&fixture.expect) {
        Ok(e) => e,
        Err(refusal) => {
            let (file, source, d) = *refusal;
            out.findings.push(&file, Some(source), d);
            return;
        }
    };
    let (expect_file, expect_parsed, mut expected) = expectations;
    let expect_source = expect_parsed.source_arc();
    out.findings
        .touch(&expect_file, Some(expect_source.clone()));
    let p850 = |out: &mut Tested, pointer: String, message: String| {
        let mut d = codes::P850.at(pointer, message);
        crate::diagnostic::resolve(std::slice::from_mut(&mut d), &expect_parsed);
        out.findings
            .push(&expect_file, Some(expect_source.clone()), d);
    };
    // Replay as `replay --pack DIR` would: the expanded graph (SPEC §9.3) against its
    // effective registry.
    let loaded = crate::input::read_capped(&fixture.graph, options.limits.max_bytes)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            let file = fixture.graph.display().to_string();
            ReplayGraph::load_with(&file, &bytes, base.registry(), &options)
                .map_err(|e| e.to_string())
        });
    let graph = match loaded {
        Ok(graph) => graph,
        Err(reason) => {
            out.findings.push_in_pack(
                pack,
                codes::P850.at(
                    format!("{at}/graph"),
                    format!("the fixture's runs cannot be replayed: {reason}"),
                ),
            );
            return;
        }
    };
    let composition = graph.composition.clone();
    let registry = composition
        .as_ref()
        .map_or(base.registry(), |c| &c.registry);
    let replayer = Replayer::new(registry, graph, ReplayOptions::default());
    let traces = match crate::replay::corpus::collect_traces(std::slice::from_ref(&fixture.runs)) {
        Ok(t) => t,
        Err(e) => {
            out.findings.push_in_pack(
                pack,
                codes::P808.at(
                    format!("{at}/runs"),
                    format!("the fixture's runs cannot be read: {e}"),
                ),
            );
            return;
        }
    };
    if traces.is_empty() {
        out.findings.push_in_pack(
            pack,
            codes::P850.at(
                format!("{at}/runs"),
                format!(
                    "no recorded run (`*.trace.jsonl`) under {}: a fixture without runs tests nothing",
                    fixture.runs.display()
                ),
            ),
        );
    }
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    // Runs replay in parallel (the report is a pure function of graph, registry and trace);
    // they are compared in file order, so the findings are the same whatever the threads.
    let reports: Vec<RunReport> = {
        use rayon::prelude::*;
        traces
            .par_iter()
            .map(|trace| crate::replay::corpus::replay_file(&replayer, trace))
            .collect()
    };
    for (trace, report) in traces.iter().zip(reports) {
        let run = report.run.clone().unwrap_or_else(|| {
            trace
                .file_name()
                .map(|n| {
                    n.to_string_lossy()
                        .trim_end_matches(".trace.jsonl")
                        .to_string()
                })
                .unwrap_or_default()
        });
        let outcome_first = report.first_divergence.as_ref().map(|f| f.code.to_string());
        let outcome_seq = report.first_divergence.as_ref().map(|f| f.seq);
        let mut outcome = RunOutcome {
            fixture: index,
            trace: report.trace.clone(),
            run: run.clone(),
            verdict: report.verdict,
            first_code: outcome_first,
            seq: outcome_seq,
            ok: false,
        };
        if let Some(other) = seen.insert(run.clone(), report.trace.clone()) {
            p850(
                out,
                pointer::push("", &run),
                format!(
                    "run `{run}` is recorded twice, in {other} and in {}",
                    report.trace
                ),
            );
            out.runs.push(outcome);
            continue;
        }
        match expected.remove(&run) {
            None => {
                let mut d = codes::P850.at(
                    format!("{at}/expect"),
                    format!(
                        "run `{run}` ({}) has no expectation in {}; it replays as {}",
                        report.trace,
                        expect_file,
                        describe(&report)
                    ),
                );
                d = d.with_help(format!(
                    "add `\"{run}\": {}` to {expect_file} once the outcome is the intended one",
                    expectation_json(&report)
                ));
                out.findings.push_in_pack(pack, d);
            }
            Some(want) => {
                let differences = compare(&want, &report);
                if differences.is_empty() {
                    outcome.ok = true;
                } else {
                    p850(
                        out,
                        pointer::push("", &run),
                        format!("run `{run}` ({}): {}", report.trace, differences.join("; ")),
                    );
                }
            }
        }
        out.runs.push(outcome);
    }
    for run in expected.keys() {
        p850(
            out,
            pointer::push("", run),
            format!(
                "no recorded run `{run}` under {}: the expectation tests nothing",
                fixture.runs.display()
            ),
        );
    }
}

/// The verdict, first code and seq of a replayed run, in words.
fn describe(report: &RunReport) -> String {
    match &report.first_divergence {
        None => report.verdict.as_str().to_string(),
        Some(f) => format!(
            "{} (first {} at seq {})",
            report.verdict.as_str(),
            f.code,
            f.seq
        ),
    }
}

/// The expectation a run's outcome would be written as.
fn expectation_json(report: &RunReport) -> String {
    let mut o = serde_json::Map::new();
    o.insert("verdict".into(), report.verdict.as_str().into());
    if let Some(f) = &report.first_divergence {
        o.insert("first_code".into(), f.code.to_string().into());
        o.insert("seq".into(), f.seq.into());
    }
    Value::Object(o).to_string()
}

/// What differs between an expectation and the run (only the fields the expectation states).
fn compare(want: &Expectation, report: &RunReport) -> Vec<String> {
    let mut out = Vec::new();
    if want.verdict != report.verdict {
        out.push(format!(
            "expected verdict `{}`, replay says `{}`",
            want.verdict.as_str(),
            describe(report)
        ));
    }
    let first = report.first_divergence.as_ref();
    if let Some(code) = &want.first_code {
        let actual = first.map(|f| f.code.to_string());
        if actual.as_deref() != Some(code.as_str()) {
            out.push(format!(
                "expected first code {code}, replay's first is {}",
                actual.as_deref().unwrap_or("none")
            ));
        }
    }
    if let Some(seq) = want.seq {
        let actual = first.map(|f| f.seq);
        if actual != Some(seq) {
            out.push(format!(
                "expected the first divergence at seq {seq}, replay's is {}",
                actual.map_or("none".to_string(), |s| format!("at seq {s}"))
            ));
        }
    }
    out
}

type Expectations = (String, Parsed, BTreeMap<String, Expectation>);
type Refusal = Box<(String, Arc<str>, crate::diagnostic::Diagnostic)>;

/// The help of a P801 in `expect.json` (the row's is about `pack.json`).
const EXPECT_HELP: &str = "expect.json is {\"RUN\": {\"verdict\": \"faithful\"|\"violated\"|\"diverged\"|\"malformed\", \"first_code\"?: \"D6xx\", \"seq\"?: N}}, keyed by the trace header's `run` (SPEC §9.5)";

/// Read `expect.json` strictly (P801 located in it).
fn read_expectations(path: &Path) -> Result<Expectations, Refusal> {
    let file = path.display().to_string();
    let bytes = crate::input::read_capped(path, crate::pack::MAX_FILE_BYTES).map_err(|e| {
        let mut d = codes::P801.at("", format!("cannot read the expectations: {e}"));
        d.line = 1;
        d.column = 1;
        Box::new((file.clone(), Arc::from(""), d))
    })?;
    let parsed = crate::json::parse(&bytes, &crate::pack::LIMITS).map_err(|e| {
        let mut d = crate::pack::manifest::json_error(&e).with_help(EXPECT_HELP);
        d.line = e.span.line;
        d.column = e.span.column;
        Box::new((
            file.clone(),
            Arc::from(String::from_utf8_lossy(&bytes).as_ref()),
            d,
        ))
    })?;
    let fail = |pointer: String, message: String| {
        let mut d = codes::P801.at(pointer, message).with_help(EXPECT_HELP);
        crate::diagnostic::resolve(std::slice::from_mut(&mut d), &parsed);
        Box::new((file.clone(), parsed.source_arc(), d))
    };
    let Some(o) = parsed.value.as_object() else {
        return Err(fail(
            String::new(),
            "the expectations are an object {\"RUN\": {\"verdict\", \"first_code\"?, \"seq\"?}}"
                .into(),
        ));
    };
    let mut out = BTreeMap::new();
    for (run, e) in o {
        let at = pointer::push("", run);
        let Some(e) = e.as_object() else {
            return Err(fail(
                at,
                format!("the expectation of `{run}` must be an object"),
            ));
        };
        if let Some(k) = e
            .keys()
            .find(|k| !["verdict", "first_code", "seq"].contains(&k.as_str()))
        {
            return Err(fail(
                pointer::push(&at, k),
                format!("unknown field `{k}` (an expectation has `verdict`, `first_code`, `seq`)"),
            ));
        }
        let verdict = match e.get("verdict").and_then(Value::as_str) {
            Some("faithful") => Verdict::Faithful,
            Some("violated") => Verdict::Violated,
            Some("diverged") => Verdict::Diverged,
            Some("malformed") => Verdict::Malformed,
            _ => {
                return Err(fail(
                    if e.contains_key("verdict") {
                        format!("{at}/verdict")
                    } else {
                        at
                    },
                    "`verdict` is one of \"faithful\", \"violated\", \"diverged\", \"malformed\""
                        .into(),
                ));
            }
        };
        let first_code = match e.get("first_code") {
            None => None,
            Some(Value::String(c)) => Some(c.clone()),
            Some(_) => {
                return Err(fail(
                    format!("{at}/first_code"),
                    "`first_code` is a code (\"D605\")".into(),
                ));
            }
        };
        let seq = match e.get("seq") {
            None => None,
            Some(v) => match v.as_u64() {
                Some(s) => Some(s),
                None => {
                    return Err(fail(
                        format!("{at}/seq"),
                        "`seq` is a non-negative integer".into(),
                    ));
                }
            },
        };
        out.insert(
            run.clone(),
            Expectation {
                verdict,
                first_code,
                seq,
            },
        );
    }
    Ok((file, parsed, out))
}
