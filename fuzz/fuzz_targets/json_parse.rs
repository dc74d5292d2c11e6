//! Fuzz the spanned JSON parser: any bytes either parse — and then every value's span re-parses
//! to that value — or fail with an error located inside the input. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use primgraph::json::{Limits, parse, pointer};
use serde_json::Value;

fn check_spans(parsed: &primgraph::json::Parsed, value: &Value, at: &str, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let span = parsed
        .locate(at)
        .expect("every pointer of the value is located");
    let text = &parsed.source()[span.start..span.end];
    let reparsed = parse(text.as_bytes(), &Limits::default()).expect("a value's text re-parses");
    assert_eq!(&reparsed.value, value, "span text of {at}");
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_spans(parsed, item, &format!("{at}/{i}"), budget);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let child = pointer::push(at, k);
                let key = parsed
                    .locate_key(&child)
                    .expect("every member key is located");
                let key_text = &parsed.source()[key.start..key.end];
                let decoded: String =
                    serde_json::from_str(key_text).expect("a key's text is a string");
                assert_eq!(&decoded, k);
                check_spans(parsed, v, &child, budget);
            }
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_bytes: 1 << 20,
        max_depth: 64,
    };
    match parse(data, &limits) {
        Ok(parsed) => {
            // Accepting means serde_json accepts too.
            assert!(serde_json::from_slice::<Value>(data).is_ok());
            let value = parsed.value.clone();
            let mut budget = 256;
            check_spans(&parsed, &value, "", &mut budget);
        }
        Err(e) => {
            assert!(
                e.span.start <= e.span.end && e.span.end <= data.len(),
                "{e:?}"
            );
            assert!(e.span.line >= 1 && e.span.column >= 1, "{e:?}");
        }
    }
});
