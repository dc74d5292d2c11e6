//! Properties of the spanned JSON parser: it never panics, its error positions lie within the
//! input, it round-trips serde_json's output, every pointer locates the exact text of its value
//! and key, and it accepts exactly what serde_json accepts (apart from duplicate keys).

use primgraph::json::{JsonErrorKind, Limits, parse, pointer};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[a-z~/\"\\\\ é😀\u{0}-\u{1f}]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z~/\"é]{0,4}|\\PC{0,4}", inner), 0..6).prop_map(|members| {
                Value::Object(members.into_iter().collect::<Map<String, Value>>())
            }),
        ]
    })
}

/// Every (pointer, value) in `value`, in document order.
fn all_pointers<'v>(value: &'v Value, at: String, out: &mut Vec<(String, &'v Value)>) {
    out.push((at.clone(), value));
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                all_pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                all_pointers(v, pointer::push(&at, k), out);
            }
        }
        _ => {}
    }
}

fn check_roundtrip(value: &Value, src: &str) -> Result<(), TestCaseError> {
    let parsed = parse(src.as_bytes(), &Limits::default())
        .map_err(|e| TestCaseError::fail(format!("{e} in {src}")))?;
    prop_assert_eq!(&parsed.value, value);
    // Locating reads the span table and the source, not the value tree: validation takes the
    // tree away to load large graphs, and every location must stay the same without it.
    let mut bare = parsed.clone();
    bare.value = Value::Null;
    let mut pointers = Vec::new();
    all_pointers(value, String::new(), &mut pointers);
    for (ptr, _) in &pointers {
        prop_assert_eq!(bare.locate(ptr), parsed.locate(ptr), "value of {}", ptr);
        prop_assert_eq!(
            bare.locate_key(ptr),
            parsed.locate_key(ptr),
            "key of {}",
            ptr
        );
        let missing = format!("{ptr}/absent~1key");
        prop_assert_eq!(bare.nearest(&missing), parsed.nearest(&missing));
    }
    for (ptr, expected) in pointers {
        let span = parsed.locate(&ptr);
        prop_assert!(span.is_some(), "pointer {} not located", ptr);
        let span = span.unwrap_or_default();
        let text = &src[span.start..span.end];
        let reparsed: Value = serde_json::from_str(text)
            .map_err(|e| TestCaseError::fail(format!("{ptr}: {text:?}: {e}")))?;
        // serde_json's own float parsing may differ in the last bit; compare through ours.
        let ours = parse(text.as_bytes(), &Limits::default())
            .map_err(|e| TestCaseError::fail(format!("{ptr}: {e}")))?;
        prop_assert_eq!(&ours.value, expected);
        prop_assert_eq!(reparsed.is_number(), expected.is_number());
        prop_assert_eq!(
            parsed.line_index().line_column(src, span.start),
            (span.line, span.column)
        );
        if let Some(key) = pointer::split(&ptr).and_then(|t| t.last().cloned()) {
            let parent = pointer::parent(&ptr).unwrap_or("");
            if parsed.value.pointer(parent).is_some_and(Value::is_object) {
                let key_span = parsed.locate_key(&ptr);
                prop_assert!(key_span.is_some(), "key of {} not located", ptr);
                let key_span = key_span.unwrap_or_default();
                let key_text: String = serde_json::from_str(&src[key_span.start..key_span.end])
                    .map_err(|e| TestCaseError::fail(format!("key of {ptr}: {e}")))?;
                prop_assert_eq!(key_text, key);
            } else {
                prop_assert_eq!(parsed.locate_key(&ptr), None);
            }
        }
    }
    Ok(())
}

fn check_error_within(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Err(e) = parse(bytes, &Limits::default()) {
        prop_assert!(e.span.start <= e.span.end, "{:?}", e);
        prop_assert!(e.span.end <= bytes.len(), "{:?}", e);
        prop_assert!(e.span.line >= 1 && e.span.column >= 1, "{:?}", e);
        prop_assert!(
            (e.span.line, e.span.column) <= (e.span.end_line, e.span.end_column),
            "{:?}",
            e
        );
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
        prop_assert!(e.span.end_line as usize <= lines, "{:?}", e);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        check_error_within(&bytes)?;
    }

    #[test]
    fn json_like_text_agrees_with_serde_json(src in "[\\[\\]{}\",:0-9a-z.eE+\\- \\\\\n\u{e9}]{0,24}") {
        check_error_within(src.as_bytes())?;
        let ours = parse(src.as_bytes(), &Limits::default());
        let theirs = serde_json::from_str::<Value>(&src);
        match (&ours, &theirs) {
            (Ok(_), Err(e)) => prop_assert!(false, "we accept {:?}, serde_json rejects: {}", src, e),
            (Err(e), Ok(_)) => prop_assert!(
                matches!(e.kind, JsonErrorKind::DuplicateKey { .. }),
                "we reject {:?} ({}), serde_json accepts", src, e
            ),
            _ => {}
        }
    }

    #[test]
    fn pretty_output_roundtrips_and_locates(value in arb_value()) {
        let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
        check_roundtrip(&value, &pretty)?;
    }

    #[test]
    fn compact_output_roundtrips_and_locates(value in arb_value()) {
        let compact = serde_json::to_string(&value).unwrap_or_default();
        check_roundtrip(&value, &compact)?;
    }

    #[test]
    fn mutated_documents_never_panic(value in arb_value(), at in any::<prop::sample::Index>(), byte in any::<u8>(), delete in any::<bool>()) {
        let mut bytes = serde_json::to_vec_pretty(&value).unwrap_or_default();
        let i = at.index(bytes.len() + 1);
        if delete && i < bytes.len() {
            bytes.remove(i);
        } else {
            bytes.insert(i, byte);
        }
        check_error_within(&bytes)?;
    }
}
