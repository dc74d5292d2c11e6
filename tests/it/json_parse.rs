//! The spanned JSON parser: values, spans of values and keys, and every error kind with its
//! exact position.

use primgraph::json::{JsonErrorKind, Limits, Span, parse, pointer};
use serde_json::{Value, json};

fn ok(src: &str) -> primgraph::json::Parsed {
    match parse(src.as_bytes(), &Limits::default()) {
        Ok(p) => p,
        Err(e) => panic!("{src:?} should parse: {e}"),
    }
}

/// The error for `src`, as (kind, line, column, span).
fn err(src: &[u8]) -> (JsonErrorKind, u32, u32, Span) {
    match parse(src, &Limits::default()) {
        Ok(p) => panic!(
            "{:?} should fail, got {}",
            String::from_utf8_lossy(src),
            p.value
        ),
        Err(e) => (e.kind, e.span.line, e.span.column, e.span),
    }
}

fn syntax(src: &str) -> (String, u32, u32) {
    match err(src.as_bytes()) {
        (JsonErrorKind::Syntax { message }, line, column, _) => (message, line, column),
        (other, ..) => panic!("{src:?}: expected a syntax error, got {other:?}"),
    }
}

fn text(src: &str, span: Span) -> &str {
    &src[span.start..span.end]
}

#[test]
fn values_match_serde_json() {
    for src in [
        "null",
        "true",
        " false ",
        "0",
        "-1",
        "123456789",
        "18446744073709551615",
        "-9223372036854775808",
        "1.5",
        "-0.0",
        "1e10",
        "2.5E-3",
        "\"a\\nb\\u00e9\\ud83d\\ude00\"",
        "[1, [2, [3, {}]], []]",
        r#"{"b": 1, "a": {"z": [true, null], "y": "s"}}"#,
    ] {
        let parsed = ok(src);
        let expected: Value = serde_json::from_str(src).unwrap();
        assert_eq!(parsed.value, expected, "{src}");
        assert_eq!(parsed.value.to_string(), expected.to_string(), "{src}");
    }
}

#[test]
fn numbers_follow_serde_json_representation() {
    let v =
        ok("[0, -0, 18446744073709551615, 18446744073709551616, -9223372036854775809, 1.0]").value;
    assert!(v[0].is_u64());
    assert!(v[1].is_f64(), "-0 is a float as in serde_json");
    assert_eq!(v[2].as_u64(), Some(u64::MAX));
    assert!(v[3].is_f64());
    assert!(v[4].is_f64());
    assert!(v[5].is_f64());
    assert_eq!(ok("-5").value.as_i64(), Some(-5));
    // Correctly rounded: the std parser on the exact lexeme.
    assert_eq!(ok("0.1").value.as_f64(), Some(0.1));
    assert_eq!(
        ok("2.2250738585072011e-308").value.as_f64(),
        Some(2.225_073_858_507_201e-308)
    );
    assert_eq!(ok("1e-400").value.as_f64(), Some(0.0));
}

#[test]
fn key_order_is_preserved() {
    let p = ok(r#"{"z": 1, "a": 2, "m": 3}"#);
    let keys: Vec<_> = p.value.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["z", "a", "m"]);
}

#[test]
fn locate_values_and_keys_in_nested_documents() {
    let src = "{\n  \"nodes\": [\n    {\"id\": \"a\", \"inputs\": {\"x\": [1, 2]}},\n    {\"id\": \"b\"}\n  ],\n  \"entry\": \"a\"\n}";
    let p = ok(src);
    let root = p.locate("").unwrap();
    assert_eq!((root.start, root.end), (0, src.len()));
    assert_eq!(
        (root.line, root.column, root.end_line, root.end_column),
        (1, 1, 7, 2)
    );

    let nodes = p.locate("/nodes").unwrap();
    assert_eq!((nodes.line, nodes.column), (2, 12));
    assert!(text(src, nodes).starts_with('[') && text(src, nodes).ends_with(']'));
    let key = p.locate_key("/nodes").unwrap();
    assert_eq!(text(src, key), "\"nodes\"");
    assert_eq!(
        (key.line, key.column, key.end_line, key.end_column),
        (2, 3, 2, 10)
    );

    let n0 = p.locate("/nodes/0").unwrap();
    assert_eq!((n0.line, n0.column), (3, 5));
    assert_eq!(
        text(src, n0),
        "{\"id\": \"a\", \"inputs\": {\"x\": [1, 2]}}"
    );
    let x1 = p.locate("/nodes/0/inputs/x/1").unwrap();
    assert_eq!(text(src, x1), "2");
    assert_eq!((x1.line, x1.column, x1.end_column), (3, 37, 38));
    assert_eq!(
        text(src, p.locate_key("/nodes/0/inputs/x").unwrap()),
        "\"x\""
    );
    assert_eq!(text(src, p.locate("/nodes/1/id").unwrap()), "\"b\"");
    let entry = p.locate("/entry").unwrap();
    assert_eq!((entry.line, entry.column), (6, 12));
    assert_eq!(text(src, entry), "\"a\"");

    // Array elements and the root have no key.
    assert_eq!(p.locate_key("/nodes/0"), None);
    assert_eq!(p.locate_key(""), None);
    // Missing or malformed pointers.
    for missing in [
        "/nodes/2",
        "/nodes/01",
        "/nodes/-",
        "/nope",
        "nodes",
        "/entry/0",
        "/a~2",
    ] {
        assert_eq!(p.locate(missing), None, "{missing}");
    }
}

#[test]
fn locate_nearest_falls_back_to_ancestors() {
    let src = r#"{"a": {"b": [10, 20]}}"#;
    let p = ok(src);
    assert_eq!(text(src, p.locate_nearest("/a/b/1")), "20");
    assert_eq!(text(src, p.locate_nearest("/a/b/7/c")), "[10, 20]");
    assert_eq!(text(src, p.locate_nearest("/a/zz")), r#"{"b": [10, 20]}"#);
    assert_eq!(text(src, p.locate_nearest("garbage")), src);
    let nearest = p.nearest("/a/b/9");
    assert!(!nearest.exact);
    assert_eq!(text(src, nearest.value), "[10, 20]");
    assert_eq!(nearest.key.map(|k| text(src, k)), Some("\"b\""));
    let exact = p.nearest("/a");
    assert!(exact.exact);
    assert_eq!(exact.key.map(|k| text(src, k)), Some("\"a\""));
    assert_eq!(p.nearest("").key, None);
    assert!(p.contains("/a/b/0"));
    assert!(!p.contains("/a/b/2"));
}

#[test]
fn columns_count_chars_not_bytes() {
    let src = "{\"é\": \"ü😀\", \"k\": 1}";
    let p = ok(src);
    let k = p.locate_key("/k").unwrap();
    assert_eq!((k.line, k.column), (1, 13));
    assert_eq!(text(src, k), "\"k\"");
    let v = p.locate("/é").unwrap();
    assert_eq!((v.column, v.end_column), (7, 11));
    assert_eq!(text(src, v), "\"ü😀\"");
}

#[test]
fn escaped_keys_in_pointers() {
    let src = r#"{"a/b": 1, "m~n": {"~1": 2}, "": 3, "q\"": 4, "\u00e9": 5}"#;
    let p = ok(src);
    assert_eq!(text(src, p.locate("/a~1b").unwrap()), "1");
    assert_eq!(text(src, p.locate_key("/m~0n").unwrap()), "\"m~n\"");
    assert_eq!(text(src, p.locate("/m~0n/~01").unwrap()), "2");
    assert_eq!(text(src, p.locate("/").unwrap()), "3");
    assert_eq!(text(src, p.locate("/q\"").unwrap()), "4");
    assert_eq!(text(src, p.locate_key("/é").unwrap()), "\"\\u00e9\"");
    assert_eq!(p.locate("/a/b"), None);
    assert_eq!(pointer::escape_token("a/~b"), "a~1~0b");
    assert_eq!(pointer::unescape_token("a~1~0b").unwrap(), "a/~b");
    assert_eq!(pointer::unescape_token("a~"), None);
    assert_eq!(pointer::unescape_token("a~2"), None);
    assert_eq!(pointer::join(["a/b", "~", "0"]), "/a~1b/~0/0");
    assert_eq!(pointer::split("/a~1b/~0/0").unwrap(), ["a/b", "~", "0"]);
    assert_eq!(pointer::split("").unwrap(), Vec::<String>::new());
    assert_eq!(pointer::split("x"), None);
    assert_eq!(pointer::push("/a", "b/c"), "/a/b~1c");
    assert_eq!(pointer::parent("/a/b"), Some("/a"));
    assert_eq!(pointer::parent("/a"), Some(""));
    assert_eq!(pointer::parent(""), None);
}

#[test]
fn crlf_line_endings() {
    let src = "{\r\n  \"a\": 1\r\n}";
    let p = ok(src);
    let a = p.locate("/a").unwrap();
    assert_eq!((a.line, a.column), (2, 8));
}

#[test]
fn empty_input() {
    for src in ["", "   ", "\n\t\r\n "] {
        let (kind, line, column, _) = err(src.as_bytes());
        assert_eq!(kind, JsonErrorKind::Empty, "{src:?}");
        assert_eq!((line, column), (1, 1));
    }
}

#[test]
fn byte_order_mark() {
    let (kind, line, column, span) = err(b"\xEF\xBB\xBF{}");
    assert_eq!(kind, JsonErrorKind::Bom);
    assert_eq!((line, column, span.start, span.end), (1, 1, 0, 3));
}

#[test]
fn invalid_utf8_at_the_offending_byte() {
    let (kind, line, column, span) = err(b"{\"a\":\n  \"x\xFFy\"}");
    assert_eq!(kind, JsonErrorKind::InvalidUtf8);
    assert_eq!((line, column), (2, 5));
    assert_eq!((span.start, span.end), (10, 11));
    // A truncated multi-byte sequence at the end.
    let bytes = "\"é".as_bytes();
    let (kind, line, column, span) = err(&bytes[..bytes.len() - 1]);
    assert_eq!(kind, JsonErrorKind::InvalidUtf8);
    assert_eq!((line, column, span.start), (1, 2, 1));
}

#[test]
fn too_large_is_checked_first() {
    let limits = Limits {
        max_bytes: 4,
        max_depth: 8,
    };
    let e = parse(b"[1, 2]", &limits).unwrap_err();
    assert_eq!(e.kind, JsonErrorKind::TooLarge { size: 6, limit: 4 });
    assert_eq!((e.span.line, e.span.column), (1, 1));
    assert!(parse(b"[12]", &limits).is_ok());
    // Even a BOM'd or broken input reports its size first.
    assert!(matches!(
        parse(b"\xEF\xBB\xBF{}}}", &limits).unwrap_err().kind,
        JsonErrorKind::TooLarge { .. }
    ));
}

#[test]
fn too_deep() {
    let limits = Limits {
        max_bytes: 1 << 20,
        max_depth: 3,
    };
    assert!(parse(b"[[[1]]]", &limits).is_ok());
    assert!(parse(br#"{"a": [{}]}"#, &limits).is_ok());
    let e = parse(b"[[\n [[1]]]]", &limits).unwrap_err();
    assert_eq!(e.kind, JsonErrorKind::TooDeep { limit: 3 });
    assert_eq!((e.span.line, e.span.column, e.span.start), (2, 3, 5));
    // Deep input never overflows the stack: the parser is iterative.
    let deep = "[".repeat(200_000);
    let e = parse(deep.as_bytes(), &Limits::default()).unwrap_err();
    assert_eq!(e.kind, JsonErrorKind::TooDeep { limit: 128 });
    assert_eq!(e.span.column, 129);
    let unlimited = Limits {
        max_bytes: 1 << 24,
        max_depth: usize::MAX,
    };
    let e = parse(deep.as_bytes(), &unlimited).unwrap_err();
    assert!(matches!(e.kind, JsonErrorKind::Syntax { .. }));
}

/// Each malformed document with the message and the (line, column) it is reported at.
#[rustfmt::skip]
const SYNTAX_ERRORS: &[(&str, &str, u32, u32)] = &[
    ("{\"a\": 1 \"b\": 2}", "expected ',' or '}' after object member", 1, 9),
    ("{\"a\": 1,}", "expected a string key after ',' (trailing commas are not allowed)", 1, 9),
    ("{\"a\": 1, 2}", "expected a string key after ','", 1, 10),
    ("{\"a\" 1}", "expected ':' after object key", 1, 6),
    ("{1: 2}", "expected a string key or '}'", 1, 2),
    ("[1 2]", "expected ',' or ']' after array element", 1, 4),
    ("[1,]", "expected a JSON value, found ']'", 1, 4),
    ("[", "expected a JSON value or ']', found end of input", 1, 2),
    ("[1,\n", "expected a JSON value, found end of input", 2, 1),
    ("{\"a\":", "expected a JSON value, found end of input", 1, 6),
    ("{", "expected a string key or '}'", 1, 2),
    ("1 2", "trailing characters after the JSON value", 1, 3),
    ("{} x", "trailing characters after the JSON value", 1, 4),
    ("\n  \"abc", "unterminated string", 2, 3),
    ("[\"ab\\", "unterminated string", 1, 2),
    ("\"a\nb\"", "control character U+000A in string (escape it as \\n)", 1, 3),
    ("\"a\u{1}\"", "control character U+0001 in string", 1, 3),
    ("\"a\\x\"", "invalid escape '\\x' (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", 1, 3),
    ("\"\\u12g4\"", "invalid \\u escape: expected 4 hex digits", 1, 2),
    ("\"\\ud800\"", "lone surrogate \\uD800 in string", 1, 2),
    ("\"x\\udc00\"", "lone surrogate \\uDC00 in string", 1, 3),
    ("\"\\ud800\\u0041\"", "lone surrogate \\uD800 in string", 1, 2),
    ("\"\\ud800\\uzzzz\"", "invalid \\u escape: expected 4 hex digits", 1, 8),
    ("01", "leading zeros are not allowed in numbers", 1, 2),
    ("-01", "leading zeros are not allowed in numbers", 1, 3),
    ("-", "expected a digit after '-', found end of input", 1, 2),
    ("-a", "expected a digit after '-', found 'a'", 1, 2),
    ("1.", "expected a digit after the decimal point, found end of input", 1, 3),
    ("1.e5", "expected a digit after the decimal point, found 'e'", 1, 3),
    ("1e", "expected a digit in the exponent, found end of input", 1, 3),
    ("1e+", "expected a digit in the exponent, found end of input", 1, 4),
    (".5", "expected a JSON value, found '.'", 1, 1),
    ("+1", "expected a JSON value, found '+'", 1, 1),
    ("1e400", "number out of range", 1, 1),
    ("[-1e999]", "number out of range", 1, 2),
    ("tru", "invalid literal: expected 'true', found end of input", 1, 4),
    ("[nul1]", "invalid literal: expected 'null', found '1'", 1, 5),
    ("falsy", "invalid literal: expected 'false', found 'y'", 1, 5),
    ("NaN", "expected a JSON value, found 'N'", 1, 1),
    ("[é]", "expected a JSON value or ']', found 'é'", 1, 2),
    ("'a'", "expected a JSON value, found '''", 1, 1),
    ("{\"a\":1}\u{0}", "trailing characters after the JSON value", 1, 8),
    ("/* c */ 1", "expected a JSON value, found '/'", 1, 1),
];

#[test]
fn syntax_errors_with_positions() {
    for &(src, message, line, column) in SYNTAX_ERRORS {
        let got = syntax(src);
        assert_eq!(got, (message.to_string(), line, column), "{src:?}");
    }
}

#[test]
fn error_spans_cover_the_offending_text() {
    let src = "[\"\\ud800\"]";
    let e = parse(src.as_bytes(), &Limits::default()).unwrap_err();
    assert_eq!(text(src, e.span), "\\ud800");
    let src = "[1e400]";
    let e = parse(src.as_bytes(), &Limits::default()).unwrap_err();
    assert_eq!(text(src, e.span), "1e400");
    let src = "[é]";
    let e = parse(src.as_bytes(), &Limits::default()).unwrap_err();
    assert_eq!(text(src, e.span), "é");
    assert_eq!(e.span.end_column, 3);
}

/// The duplicate key `src` is refused for: (key, pointer, where it repeats, where it first was).
fn duplicate_key(src: &str) -> (String, String, Span, Span) {
    match err(src.as_bytes()) {
        (
            JsonErrorKind::DuplicateKey {
                key,
                pointer,
                first,
            },
            _,
            _,
            span,
        ) => (key, pointer, span, first),
        (other, ..) => panic!("{src:?}: expected a duplicate key, got {other:?}"),
    }
}

#[test]
fn duplicate_keys_anywhere() {
    let src = "{\n  \"nodes\": [\n    {\"id\": \"a\",\n     \"id\": \"b\"}\n  ]\n}";
    let (key, pointer, span, first) = duplicate_key(src);
    assert_eq!(key, "id");
    assert_eq!(pointer, "/nodes/0/id");
    assert_eq!((span.line, span.column), (4, 6));
    assert_eq!(text(src, span), "\"id\"");
    assert_eq!((first.line, first.column), (3, 6));
    assert_eq!(text(src, first), "\"id\"");

    // Escapes that spell the same key are the same key; the pointer escapes it.
    let src = r#"{"x": {"a/b": 1, "q": {}, "a\/b": 2}}"#;
    let (key, pointer, _, first) = duplicate_key(src);
    assert_eq!(key, "a/b");
    assert_eq!(pointer, "/x/a~1b");
    assert_eq!(text(src, first), "\"a/b\"");

    // At the top level, after a nested member.
    let (_, pointer, span, first) = duplicate_key(r#"{"k": {"k": 1}, "k": 2}"#);
    assert_eq!(pointer, "/k");
    assert_eq!(span.column, 17);
    assert_eq!(first.column, 2);
}

#[test]
fn errors_display_with_position() {
    let e = parse(b"[1 2]", &Limits::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected ',' or ']' after array element at line 1, column 4"
    );
    let e = parse(br#"{"a":1,"a":2}"#, &Limits::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "duplicate key \"a\" (first at line 1, column 2) at line 1, column 8"
    );
}

#[test]
fn big_document_locates_deep_members() {
    let doc = json!({"nodes": (0..500).map(|i| json!({"id": format!("n{i}"), "inputs": {"x": {"from": i}}})).collect::<Vec<_>>()});
    let src = serde_json::to_string_pretty(&doc).unwrap();
    let p = ok(&src);
    assert_eq!(p.value, doc);
    assert_eq!(
        text(&src, p.locate("/nodes/499/inputs/x/from").unwrap()),
        "499"
    );
    assert_eq!(text(&src, p.locate("/nodes/250/id").unwrap()), "\"n250\"");
}

#[test]
fn line_index_positions_and_lines() {
    use primgraph::json::LineIndex;
    let src = "ab\r\nçd\n\nlast";
    let lines = LineIndex::new(src);
    assert_eq!(lines.line_count(), 4);
    assert_eq!(lines.line_column(src, 0), (1, 1));
    assert_eq!(lines.line_column(src, 4), (2, 1));
    assert_eq!(lines.line_column(src, 6), (2, 2)); // after the two-byte 'ç'
    assert_eq!(lines.line_column(src, 5), (2, 1)); // inside 'ç': snaps back
    assert_eq!(lines.line_column(src, 999), (4, 5)); // clamps to the end
    assert_eq!(lines.line_text(src, 1), Some("ab"));
    assert_eq!(lines.line_text(src, 2), Some("çd"));
    assert_eq!(lines.line_text(src, 3), Some(""));
    assert_eq!(lines.line_text(src, 4), Some("last"));
    assert_eq!(lines.line_text(src, 5), None);
    assert_eq!(lines.line_text(src, 0), None);
    assert_eq!(lines.offset(src, 2, 2), Some(6));
    assert_eq!(lines.offset(src, 2, 99), Some(7)); // clamped to the line's end
    assert_eq!(lines.offset(src, 4, 1), Some(9));
    assert_eq!(lines.offset(src, 9, 1), None);
    let span = lines.span(src, 4, 7);
    assert_eq!(
        (span.line, span.column, span.end_line, span.end_column),
        (2, 1, 2, 3)
    );
}
