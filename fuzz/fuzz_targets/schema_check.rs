//! Fuzz the schema checker over pairs of arbitrary schemas: the input is split at the first
//! newline into a source and a target document. Whatever they are, `check` never panics, and a
//! `No` is sound: its witness is admitted by the source and rejected by the target, as compiled
//! `jsonschema` validators decide. A `Yes` for a finite source (`const`/`enum` at its root) is
//! checked exactly: every one of its values the source admits, the target admits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use primgraph::schema::structural::finite_root_values;
use primgraph::schema::{Checker, Decision};
use serde_json::Value;

fn validator(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(false)
        .build(schema)
        .ok()
}

fuzz_target!(|data: &[u8]| {
    let Some(split) = data.iter().position(|&b| b == b'\n') else {
        return;
    };
    let (Ok(source), Ok(target)) = (
        serde_json::from_slice::<Value>(&data[..split]),
        serde_json::from_slice::<Value>(&data[split + 1..]),
    ) else {
        return;
    };
    let Ok(decision) = Checker::new().check(&source, &target) else {
        return;
    };
    if let Decision::Yes { .. } = decision
        && let Some(values) = finite_root_values(&source)
        && let (Some(source_validator), Some(target_validator)) =
            (validator(&source), validator(&target))
    {
        for value in values.iter().filter(|v| source_validator.is_valid(v)) {
            assert!(
                target_validator.is_valid(value),
                "yes, but {value} is admitted by the source {source} and not by the target {target}"
            );
        }
    }
    if let Decision::No { witness, .. } = decision {
        let (Some(source_validator), Some(target_validator)) =
            (validator(&source), validator(&target))
        else {
            panic!("a No without compilable schemas: {source} / {target}");
        };
        assert!(
            source_validator.is_valid(&witness),
            "witness {witness} not admitted by the source {source}"
        );
        assert!(
            !target_validator.is_valid(&witness),
            "witness {witness} admitted by the target {target}"
        );
    }
});
