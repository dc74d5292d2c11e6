//! Fault injection: one defect of a seeded D code written into a faithful run (an edited
//! line, a broken link, a run that loops past its bounds, …), re-chained and re-sealed so that
//! it is the run's only defect, and kept only when replay names exactly that code at exactly
//! that `seq` first.

use super::{FAULT_CODES, InjectedFault, Plan};
use crate::replay::engine::Replayer;
use crate::replay::fault::{
    FaultSite, chain, join_lines, keep_prev_last, line_object, mutate_value, unsealed_trace,
};
use crate::replay::seal::SealKey;
use crate::replay::writer::StepResult;
use crate::rng::Rng;
use serde_json::Value;

/// Seal (again) the first end event of `bytes` with `key`, as a recorder holding the key would
/// have sealed the run it recorded; a trace without a readable end event is left as it is.
fn reseal(bytes: Vec<u8>, run: &str, key: &SealKey) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 200);
    let mut done = false;
    for piece in bytes.split_inclusive(|&b| b == b'\n') {
        let (line, newline) = match piece.strip_suffix(b"\n") {
            Some(l) => (l, true),
            None => (piece, false),
        };
        let resealed = if done {
            None
        } else {
            serde_json::from_slice::<Value>(line)
                .ok()
                .and_then(|mut v| {
                    let m = v.as_object_mut()?;
                    let end = m.get("end")?.as_str()?.to_string();
                    let seq = m.get("seq")?.as_u64()?;
                    let prev = m.get("prev")?.as_str()?.to_string();
                    m.insert("signer".into(), Value::from(key.signer()));
                    m.insert(
                        "sig".into(),
                        Value::from(key.sign_end(run, seq, &end, &prev)),
                    );
                    Some(v.to_string())
                })
        };
        match resealed {
            Some(text) => {
                done = true;
                out.extend_from_slice(text.as_bytes());
            }
            None => out.extend_from_slice(line),
        }
        if newline {
            out.push(b'\n');
        }
    }
    out
}

/// Try to give the run one defect of a seeded kind (falling back to other kinds); the result is
/// kept only when replay names exactly that code at exactly that `seq` first.
pub(super) fn inject(
    replayer: &Replayer<'_>,
    plan: &Plan,
    rng: &mut Rng,
    seal: Option<&SealKey>,
    looping_walk: &mut dyn FnMut(u64) -> Option<Plan>,
) -> Option<(Vec<u8>, InjectedFault)> {
    let start = rng.below(FAULT_CODES.len() as u64) as usize;
    for k in 0..FAULT_CODES.len() {
        let code = FAULT_CODES[(start + k) % FAULT_CODES.len()];
        for attempt in 0..6u64 {
            let Some(mut site) = FaultSite::new(replayer, plan, rng, attempt, looping_walk) else {
                continue;
            };
            let Some((bytes, seq)) = candidate(&mut site, code) else {
                continue;
            };
            let bytes = match seal {
                Some(key) => reseal(bytes, &plan.header.run, key),
                None => bytes,
            };
            let report = replayer.replay_slice("<fault>", &bytes);
            if let Some(f) = &report.first_divergence
                && f.code == code
                && f.seq == seq
                && report
                    .diagnostics
                    .iter()
                    .all(|d| d.diagnostic.code != "D618")
            {
                return Some((bytes, InjectedFault { code, seq }));
            }
        }
    }
    None
}

/// One candidate trace with a defect of `code`, and the `seq` it should be reported at.
fn candidate(site: &mut FaultSite<'_>, code: &str) -> Option<(Vec<u8>, u64)> {
    let registry = site.registry();
    let g = site.graph();
    let plan = site.plan;
    let attempt = site.attempt;
    match code {
        "D601" => {
            let h = line_object(&mut site.lines, 0)?;
            h.insert("graph".into(), Value::from(format!("{}-other", g.name)));
            Some((chain(&mut site.lines), 0))
        }
        "D603" => {
            let i = site.pick_step(|_| true)?;
            let current = plan.steps.get(i)?.node.clone();
            let others: Vec<&str> = g
                .nodes
                .iter()
                .map(|n| n.id.as_str())
                .filter(|id| *id != current)
                .collect();
            let other = site.rng.pick(&others)?.to_string();
            line_object(&mut site.lines, i + 1)?.insert("node".into(), Value::from(other));
            Some((chain(&mut site.lines), i as u64 + 1))
        }
        "D604" => {
            let i = site.pick_step(|_| true)?;
            let current = plan.steps.get(i)?.primitive.clone();
            let all = registry.primitives();
            let other = all.get(site.rng.below(all.len() as u64) as usize)?;
            if other.id == current {
                return None;
            }
            line_object(&mut site.lines, i + 1)?
                .insert("primitive".into(), Value::from(other.id.clone()));
            Some((chain(&mut site.lines), i as u64 + 1))
        }
        "D605" => {
            let i = site.pick_step(|s| s.input.as_object().is_some_and(|m| !m.is_empty()))?;
            let line = line_object(&mut site.lines, i + 1)?;
            let input = line.get_mut("input")?.as_object_mut()?;
            let keys: Vec<String> = input.keys().cloned().collect();
            let key = site.rng.pick(&keys)?.clone();
            let new = mutate_value(input.get(&key)?, site.rng);
            input.insert(key, new);
            Some((chain(&mut site.lines), i as u64 + 1))
        }
        "D606" | "D607" => {
            let field = if code == "D606" { "input" } else { "output" };
            let i = site
                .pick_step(|s| code == "D606" || matches!(s.result, StepResult::Output { .. }))?;
            let line = line_object(&mut site.lines, i + 1)?;
            let target = line.get_mut(field)?.as_object_mut()?;
            if attempt.is_multiple_of(2) || target.is_empty() {
                target.insert("unexpected_field".into(), Value::from(true));
            } else {
                let keys: Vec<String> = target.keys().cloned().collect();
                let key = site.rng.pick(&keys)?.clone();
                target.insert(key, Value::Null);
            }
            Some((chain(&mut site.lines), i as u64 + 1))
        }
        "D608" => {
            let i = site.pick_step(|s| !s.evidence.is_empty())?;
            line_object(&mut site.lines, i + 1)?
                .insert("evidence".into(), Value::Array(Vec::new()));
            Some((chain(&mut site.lines), i as u64 + 1))
        }
        "D609" => {
            let i = site.pick_step(|_| true)?;
            let line = line_object(&mut site.lines, i + 1)?;
            line.remove("output");
            line.remove("outcome");
            line.insert(
                "error".into(),
                serde_json::json!({"mode": "undeclared_failure", "message": "injected"}),
            );
            keep_prev_last(line);
            Some((chain(&mut site.lines), i as u64 + 1))
        }
        "D610" => {
            let i = site.pick_step(|s| matches!(s.result, StepResult::Output { .. }))?;
            let line = line_object(&mut site.lines, i + 1)?;
            line.insert("outcome".into(), Value::from("undeclared_outcome"));
            keep_prev_last(line);
            Some((chain(&mut site.lines), i as u64 + 1))
        }
        "D611" => {
            if !g.nodes.iter().any(|n| n.max_visits.is_some()) {
                return None;
            }
            let looping = (site.looping_walk)(attempt)?;
            let mut counts = vec![0u32; g.nodes.len()];
            for (i, s) in looping.steps.iter().enumerate() {
                let n = *g.index.get(&s.node)?;
                counts[n] += 1;
                if g.nodes.get(n)?.max_visits.is_some_and(|m| counts[n] > m) {
                    return Some((unsealed_trace(&looping)?, i as u64 + 1));
                }
            }
            None
        }
        "D612" => {
            let max = g.max_spend_usd?;
            let i = site.pick_step(|_| true)?;
            let line = line_object(&mut site.lines, i + 1)?;
            let cost = line.get_mut("cost")?.as_object_mut()?;
            cost.insert("usd".into(), Value::from(max + 1.0));
            Some((chain(&mut site.lines), i as u64 + 1))
        }
        "D614" => {
            if attempt.is_multiple_of(2) {
                // events after the end
                let seq = site.lines.len() as u64;
                let end = site.lines.last()?.clone();
                let mut extra = end;
                extra
                    .as_object_mut()?
                    .insert("seq".into(), Value::from(seq));
                site.lines.push(extra);
                Some((chain(&mut site.lines), seq))
            } else {
                // end right after a step at a non-terminal node
                let i = site.pick_step(|s| {
                    g.index
                        .get(&s.node)
                        .and_then(|&n| g.node(n))
                        .is_some_and(|n| !n.is_terminal())
                })?;
                let mut end = site.lines.last()?.clone();
                end.as_object_mut()?
                    .insert("seq".into(), Value::from(i as u64 + 2));
                end.as_object_mut()?
                    .insert("end".into(), Value::from("success"));
                site.lines.truncate(i + 2);
                site.lines.push(end);
                Some((chain(&mut site.lines), i as u64 + 2))
            }
        }
        "D615" => {
            let i = site.pick_step(|_| true)?;
            let mut bytes_lines = site.lines.clone();
            let line = line_object(&mut bytes_lines, i + 1)?;
            let cost = line.get_mut("cost")?.as_object_mut()?;
            let tokens = cost.get("tokens").and_then(Value::as_u64).unwrap_or(0);
            cost.insert("tokens".into(), Value::from(tokens + 1));
            let _ = chain(&mut site.lines);
            // the original chain, with one line edited after it was chained
            let mut edited = site.lines.clone();
            if let Some(l) = edited.get_mut(i + 1) {
                *l = bytes_lines.get(i + 1)?.clone();
                if let (Some(m), Some(p)) = (
                    l.as_object_mut(),
                    site.lines.get(i + 1).and_then(|o| o.get("prev")).cloned(),
                ) {
                    m.insert("prev".into(), p);
                }
            }
            Some((join_lines(&edited), i as u64 + 2))
        }
        "D616" => {
            let i = site.pick_step(|_| true)?;
            let mut bytes = Vec::new();
            let chained = chain(&mut site.lines);
            let all: Vec<&[u8]> = chained
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .collect();
            for (k, l) in all.iter().enumerate() {
                if k == i + 1 {
                    let cut = l.len() / 2;
                    bytes.extend_from_slice(l.get(..cut)?);
                    if attempt % 2 == 1 {
                        // invalid JSON mid-file; the rest follows
                        bytes.push(b'\n');
                        continue;
                    }
                    // a truncated last line
                    return Some((bytes, i as u64 + 1));
                }
                bytes.extend_from_slice(l);
                bytes.push(b'\n');
            }
            Some((bytes, i as u64 + 1))
        }
        "D617" => {
            let i = site.pick_step(|_| true)?;
            let gap = 1 + site.rng.below(3);
            for l in site.lines.iter_mut().skip(i + 1) {
                let m = l.as_object_mut()?;
                let seq = m.get("seq").and_then(Value::as_u64)?;
                m.insert("seq".into(), Value::from(seq + gap));
            }
            Some((chain(&mut site.lines), i as u64 + 1 + gap))
        }
        _ => None,
    }
}
