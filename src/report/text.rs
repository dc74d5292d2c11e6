//! Escaping for the report page: text and attribute values in HTML and SVG, JSON inside a
//! `<script>` element, numbers in a fixed short form. Everything the page shows that comes from
//! a graph, a registry or a trace passes through here, so a corpus from an untrusted source
//! cannot inject markup or script.

/// Text content: `&`, `<`, `>` and both quotes escaped (safe in text and in quoted attributes).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A double-quoted attribute value (the same escaping as text).
pub fn attr(text: &str) -> String {
    esc(text)
}

/// JSON to embed in `<script type="application/json">`: the only sequences that could end the
/// element or open a comment inside it are `</` and `<!--`; both are written with a JSON escape
/// (`<\/`, `<\u0021--`), which parses back to the same string. U+2028 and U+2029 are escaped too
/// (harmless in JSON, but not in every script context a reader might paste it into).
pub fn script_json(value: &serde_json::Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text.as_str();
    while let Some(i) = rest.find(['<', '\u{2028}', '\u{2029}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("</") {
            out.push_str("<\\/");
            rest = after;
        } else if let Some(after) = tail.strip_prefix("<!--") {
            out.push_str("<\\u0021--");
            rest = after;
        } else if tail.starts_with('\u{2028}') {
            out.push_str("\\u2028");
            rest = &tail['\u{2028}'.len_utf8()..];
        } else if tail.starts_with('\u{2029}') {
            out.push_str("\\u2029");
            rest = &tail['\u{2029}'.len_utf8()..];
        } else {
            out.push('<');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// A coordinate or figure with at most one decimal, without a trailing `.0` (`-0` is `0`).
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    let rounded = (x * 10.0).round() / 10.0;
    if rounded == 0.0 {
        return "0".into();
    }
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.1}")
    }
}

/// A rate as a percentage with one decimal.
pub fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            esc(r#"<script>alert("x" + 'y')</script> & co"#),
            "&lt;script&gt;alert(&quot;x&quot; + &#39;y&#39;)&lt;/script&gt; &amp; co"
        );
    }

    #[test]
    fn script_json_cannot_close_its_element_and_reads_back_the_same() {
        let v = json!({"id": "</script><script>alert(1)</script>", "c": "<!-- x", "s": "a\u{2028}b", "lt": "a<b"});
        let text = script_json(&v);
        assert!(!text.contains("</"), "{text}");
        assert!(!text.contains("<!--"), "{text}");
        assert!(text.contains(r"<\/script>"), "{text}");
        assert!(!text.contains('\u{2028}'));
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(3.04), "3");
        assert_eq!(number(3.06), "3.1");
        assert_eq!(number(-0.01), "0");
        assert_eq!(number(f64::NAN), "0");
        assert_eq!(percent(0.1234), "12.3%");
    }
}
