//! Fault injection's driver: one defect of a seeded D code written into a faithful run (an
//! edited line, a broken link, a run that loops past its bounds, …), re-sealed so that it is
//! the run's only defect, and kept only when replay names exactly that code at exactly that
//! `seq` first. It owns the table of injectors, keyed by the code table's rows (a row → the
//! `inject` of the row's file, `replay/codes/d6xx_*.rs`, beside its check, written with the
//! toolkit of `replay/fault.rs`), the order codes and attempts are tried in, and the resealing.

use super::InjectedFault;
use crate::codes::{self, Code};
use crate::replay::codes::{
    d601_invalid_header, d603_divergence, d604_primitive_differs, d605_input_differs,
    d606_input_schema, d607_output_schema, d608_evidence_missing, d609_undeclared_failure_mode,
    d610_undeclared_outcome, d611_max_visits_exceeded, d612_budget_exceeded, d614_bad_end,
    d615_chain_broken, d616_malformed_line, d617_seq_out_of_order,
};
use crate::replay::engine::Replayer;
use crate::replay::fault::{FaultSite, Injector};
use crate::replay::seal::SealKey;
use crate::replay::writer::Plan;
use crate::rng::Rng;
use serde_json::Value;

/// Each fault kind's injector, keyed by the row of the code replay must report first (its
/// code, and the file that holds both the check and the injector). The table is part of the
/// seed: the driver draws its first code as an index into it, so reordering, adding or removing
/// a row changes the corpus every seed gives.
static INJECTORS: [(&Code, Injector); 15] = [
    (&codes::D601, d601_invalid_header::inject),
    (&codes::D603, d603_divergence::inject),
    (&codes::D604, d604_primitive_differs::inject),
    (&codes::D605, d605_input_differs::inject),
    (&codes::D606, d606_input_schema::inject),
    (&codes::D607, d607_output_schema::inject),
    (&codes::D608, d608_evidence_missing::inject),
    (&codes::D609, d609_undeclared_failure_mode::inject),
    (&codes::D610, d610_undeclared_outcome::inject),
    (&codes::D611, d611_max_visits_exceeded::inject),
    (&codes::D612, d612_budget_exceeded::inject),
    (&codes::D614, d614_bad_end::inject),
    (&codes::D615, d615_chain_broken::inject),
    (&codes::D616, d616_malformed_line::inject),
    (&codes::D617, d617_seq_out_of_order::inject),
];

/// The fault kinds `--faults` can inject, each named by the code replay reports first (the
/// codes of the injector table's rows, in its order).
pub const FAULT_CODES: &[&str] = &codes_of(&INJECTORS);

/// The codes of an injector table's rows, computed at compile time so the public list cannot
/// drift from the table.
const fn codes_of<const N: usize>(table: &[(&Code, Injector); N]) -> [&'static str; N] {
    let mut codes = [""; N];
    let mut i = 0;
    while i < N {
        codes[i] = table[i].0.code;
        i += 1;
    }
    codes
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
    let start = rng.below(INJECTORS.len() as u64) as usize;
    for k in 0..INJECTORS.len() {
        let (row, injector) = INJECTORS[(start + k) % INJECTORS.len()];
        for attempt in 0..6u64 {
            let Some(mut site) = FaultSite::new(
                replayer.graph(),
                replayer.registry(),
                plan,
                rng,
                attempt,
                looping_walk,
            ) else {
                continue;
            };
            let Some((bytes, seq)) = injector(&mut site) else {
                continue;
            };
            let bytes = match seal {
                Some(key) => reseal(bytes, &plan.header.run, key),
                None => bytes,
            };
            let report = replayer.replay_slice("<fault>", &bytes);
            if let Some(f) = &report.first_divergence
                && f.code == row.code
                && f.seq == seq
                && report
                    .diagnostics
                    .iter()
                    .all(|d| d.diagnostic.code != "D618")
            {
                return Some((
                    bytes,
                    InjectedFault {
                        code: row.code,
                        seq,
                    },
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::INJECTORS;
    use crate::codes;

    /// The table and the code files agree: a row is in the table exactly when its file (the
    /// row's `file`, beside its check) defines `inject`.
    #[test]
    fn every_code_file_with_an_injector_has_its_row_in_the_table() {
        for row in codes::ALL.iter().filter(|r| r.code.starts_with('D')) {
            let has_injector = row.source.contains("pub(crate) fn inject(");
            assert_eq!(
                INJECTORS.iter().any(|(r, _)| r.code == row.code),
                has_injector,
                "{} ({}): the injector table and the file disagree",
                row.code,
                row.file
            );
        }
        assert!(
            INJECTORS
                .iter()
                .all(|(r, _)| r.file.contains("replay/codes/"))
        );
    }

    /// The table is part of every seed (see `INJECTORS`): changing its codes or their order
    /// changes every corpus, so it takes changing this list too.
    #[test]
    fn the_fault_codes_keep_their_order() {
        assert_eq!(
            super::FAULT_CODES,
            [
                "D601", "D603", "D604", "D605", "D606", "D607", "D608", "D609", "D610", "D611",
                "D612", "D614", "D615", "D616", "D617",
            ]
        );
    }
}
