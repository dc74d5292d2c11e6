//! Fault injection: one defect of a seeded D code written into a faithful run (an edited
//! line, a broken link, a run that loops past its bounds, …), re-chained and re-sealed so that
//! it is the run's only defect, and kept only when replay names exactly that code at exactly
//! that `seq` first.

use super::{FAULT_CODES, InjectedFault, Plan, write_plan};
use crate::replay::digest::{format_hash, sha256};
use crate::replay::engine::Replayer;
use crate::replay::seal::SealKey;
use crate::replay::writer::{Step, StepResult};
use crate::rng::Rng;
use serde_json::{Map, Value};

/// The trace as JSON values, one a line (header first).
fn plan_lines(plan: &Plan) -> Option<Vec<Value>> {
    let bytes = write_plan(plan, None).ok()?;
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).ok())
        .collect()
}

/// Serialize lines, recomputing `seq`-independent `prev` links (header is the line before seq 1).
fn chain(lines: &mut [Value]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev: Option<[u8; 32]> = None;
    for line in lines.iter_mut() {
        if let (Some(h), Value::Object(m)) = (prev, &mut *line)
            && m.contains_key("prev")
        {
            m.insert("prev".into(), Value::from(format_hash(&h)));
        }
        let text = line.to_string();
        prev = Some(sha256(text.as_bytes()));
        out.extend_from_slice(text.as_bytes());
        out.push(b'\n');
    }
    out
}

fn join_lines(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

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
            let Some((bytes, seq)) = candidate(replayer, plan, code, rng, attempt, looping_walk)
            else {
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

fn obj(lines: &mut [Value], i: usize) -> Option<&mut Map<String, Value>> {
    lines.get_mut(i)?.as_object_mut()
}

fn mutate_value(v: &Value, rng: &mut Rng) -> Value {
    match v {
        Value::String(s) => Value::from(format!(
            "{s}{}",
            ["x", " (edited)", "!"][rng.below(3) as usize]
        )),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Value::from(if i > 0 { i - 1 } else { i + 1 }),
            None => Value::from(
                n.as_f64()
                    .map_or(0.5, |f| if f > 0.5 { f / 2.0 } else { f + 0.25 }),
            ),
        },
        Value::Bool(b) => Value::Bool(!b),
        Value::Array(a) if !a.is_empty() => Value::Array(a[..a.len() - 1].to_vec()),
        Value::Array(_) => Value::Array(vec![Value::from("extra")]),
        Value::Object(m) => {
            let mut m = m.clone();
            m.insert("edited".into(), Value::Bool(true));
            Value::Object(m)
        }
        Value::Null => Value::from(0),
    }
}

/// One candidate trace with a defect of `code`, and the `seq` it should be reported at.
fn candidate(
    replayer: &Replayer<'_>,
    plan: &Plan,
    code: &str,
    rng: &mut Rng,
    attempt: u64,
    looping_walk: &mut dyn FnMut(u64) -> Option<Plan>,
) -> Option<(Vec<u8>, u64)> {
    let registry = replayer.registry();
    let g = replayer.graph();
    let mut lines = plan_lines(plan)?;
    let n_steps = plan.steps.len();
    let pick_step = |rng: &mut Rng, filter: &dyn Fn(&Step) -> bool| -> Option<usize> {
        let idx: Vec<usize> = (0..n_steps)
            .filter(|&i| plan.steps.get(i).is_some_and(filter))
            .collect();
        rng.pick(&idx).copied()
    };
    match code {
        "D601" => {
            let h = obj(&mut lines, 0)?;
            h.insert("graph".into(), Value::from(format!("{}-other", g.name)));
            Some((chain(&mut lines), 0))
        }
        "D603" => {
            let i = pick_step(rng, &|_| true)?;
            let current = plan.steps.get(i)?.node.clone();
            let others: Vec<&str> = g
                .nodes
                .iter()
                .map(|n| n.id.as_str())
                .filter(|id| *id != current)
                .collect();
            let other = rng.pick(&others)?.to_string();
            obj(&mut lines, i + 1)?.insert("node".into(), Value::from(other));
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D604" => {
            let i = pick_step(rng, &|_| true)?;
            let current = plan.steps.get(i)?.primitive.clone();
            let all = registry.primitives();
            let other = all.get(rng.below(all.len() as u64) as usize)?;
            if other.id == current {
                return None;
            }
            obj(&mut lines, i + 1)?.insert("primitive".into(), Value::from(other.id.clone()));
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D605" => {
            let i = pick_step(rng, &|s| s.input.as_object().is_some_and(|m| !m.is_empty()))?;
            let line = obj(&mut lines, i + 1)?;
            let input = line.get_mut("input")?.as_object_mut()?;
            let keys: Vec<String> = input.keys().cloned().collect();
            let key = rng.pick(&keys)?.clone();
            let new = mutate_value(input.get(&key)?, rng);
            input.insert(key, new);
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D606" | "D607" => {
            let field = if code == "D606" { "input" } else { "output" };
            let i = pick_step(rng, &|s| {
                code == "D606" || matches!(s.result, StepResult::Output { .. })
            })?;
            let line = obj(&mut lines, i + 1)?;
            let target = line.get_mut(field)?.as_object_mut()?;
            if attempt.is_multiple_of(2) || target.is_empty() {
                target.insert("unexpected_field".into(), Value::from(true));
            } else {
                let keys: Vec<String> = target.keys().cloned().collect();
                let key = rng.pick(&keys)?.clone();
                target.insert(key, Value::Null);
            }
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D608" => {
            let i = pick_step(rng, &|s| !s.evidence.is_empty())?;
            obj(&mut lines, i + 1)?.insert("evidence".into(), Value::Array(Vec::new()));
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D609" => {
            let i = pick_step(rng, &|_| true)?;
            let line = obj(&mut lines, i + 1)?;
            line.remove("output");
            line.remove("outcome");
            line.insert(
                "error".into(),
                serde_json::json!({"mode": "undeclared_failure", "message": "injected"}),
            );
            // keep `prev` last, as the writer does
            let prev = line.remove("prev");
            if let Some(p) = prev {
                line.insert("prev".into(), p);
            }
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D610" => {
            let i = pick_step(rng, &|s| matches!(s.result, StepResult::Output { .. }))?;
            let line = obj(&mut lines, i + 1)?;
            line.insert("outcome".into(), Value::from("undeclared_outcome"));
            let prev = line.remove("prev");
            if let Some(p) = prev {
                line.insert("prev".into(), p);
            }
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D611" => {
            if !g.nodes.iter().any(|n| n.max_visits.is_some()) {
                return None;
            }
            let looping = looping_walk(attempt)?;
            let mut counts = vec![0u32; g.nodes.len()];
            for (i, s) in looping.steps.iter().enumerate() {
                let n = *g.index.get(&s.node)?;
                counts[n] += 1;
                if g.nodes.get(n)?.max_visits.is_some_and(|m| counts[n] > m) {
                    return Some((write_plan(&looping, None).ok()?, i as u64 + 1));
                }
            }
            None
        }
        "D612" => {
            let max = g.max_spend_usd?;
            let i = pick_step(rng, &|_| true)?;
            let line = obj(&mut lines, i + 1)?;
            let cost = line.get_mut("cost")?.as_object_mut()?;
            cost.insert("usd".into(), Value::from(max + 1.0));
            Some((chain(&mut lines), i as u64 + 1))
        }
        "D614" => {
            if attempt.is_multiple_of(2) {
                // events after the end
                let seq = lines.len() as u64;
                let end = lines.last()?.clone();
                let mut extra = end;
                extra
                    .as_object_mut()?
                    .insert("seq".into(), Value::from(seq));
                lines.push(extra);
                Some((chain(&mut lines), seq))
            } else {
                // end right after a step at a non-terminal node
                let i = pick_step(rng, &|s| {
                    g.index
                        .get(&s.node)
                        .and_then(|&n| g.node(n))
                        .is_some_and(|n| !n.is_terminal())
                })?;
                let mut end = lines.last()?.clone();
                end.as_object_mut()?
                    .insert("seq".into(), Value::from(i as u64 + 2));
                end.as_object_mut()?
                    .insert("end".into(), Value::from("success"));
                lines.truncate(i + 2);
                lines.push(end);
                Some((chain(&mut lines), i as u64 + 2))
            }
        }
        "D615" => {
            let i = pick_step(rng, &|_| true)?;
            let mut bytes_lines = lines.clone();
            let line = obj(&mut bytes_lines, i + 1)?;
            let cost = line.get_mut("cost")?.as_object_mut()?;
            let tokens = cost.get("tokens").and_then(Value::as_u64).unwrap_or(0);
            cost.insert("tokens".into(), Value::from(tokens + 1));
            let _ = chain(&mut lines);
            // the original chain, with one line edited after it was chained
            let mut edited = lines.clone();
            if let Some(l) = edited.get_mut(i + 1) {
                *l = bytes_lines.get(i + 1)?.clone();
                if let (Some(m), Some(p)) = (
                    l.as_object_mut(),
                    lines.get(i + 1).and_then(|o| o.get("prev")).cloned(),
                ) {
                    m.insert("prev".into(), p);
                }
            }
            Some((join_lines(&edited), i as u64 + 2))
        }
        "D616" => {
            let i = pick_step(rng, &|_| true)?;
            let mut bytes = Vec::new();
            let chained = chain(&mut lines);
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
            let i = pick_step(rng, &|_| true)?;
            let gap = 1 + rng.below(3);
            for l in lines.iter_mut().skip(i + 1) {
                let m = l.as_object_mut()?;
                let seq = m.get("seq").and_then(Value::as_u64)?;
                m.insert("seq".into(), Value::from(seq + gap));
            }
            Some((chain(&mut lines), i as u64 + 1 + gap))
        }
        _ => None,
    }
}
