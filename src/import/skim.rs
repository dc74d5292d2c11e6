//! The fast path of reading an Inspect sample entry: a byte scanner walks the sample object
//! and its `events` array, hands each field the importer reads (`id`, `input`, a tool event's
//! `arguments`, …) to serde_json as a slice of its own, and skips everything else — the model
//! events' message histories, most of an entry's bytes — with `memchr` over strings instead of
//! serde_json's byte-by-byte skipping.
//!
//! Skipping still validates: structure, string escapes, control characters in strings, numbers
//! and literals as serde_json's own skipping does. The scanner never reports an error itself:
//! anything it does not accept (malformed JSON, a key written with escapes, a field repeated, a
//! sample that is not an object, nesting deep enough to near serde_json's recursion limit)
//! makes it give up, and the caller parses the entry with serde_json as before — so a
//! malformed sample's finding, its message, line, column and pointer, are serde_json's, and a
//! well-formed sample reads exactly as serde_json reads it.

use serde::Deserialize;

/// The fields of one object the importer reads, in the order the object has them, each as its
/// bytes in the entry.
pub(crate) type Fields<'a> = Vec<(&'static str, &'a [u8])>;

/// The fields of a sample the importer reads, and those of each of its events.
pub(crate) struct Skimmed<'a> {
    pub(crate) fields: Fields<'a>,
    pub(crate) events: Option<Vec<Fields<'a>>>,
}

/// Past this nesting (the sample's own levels included) the scanner leaves the sample to
/// serde_json, whose recursion limit (128) decides.
const DEEPEST: usize = 100;

/// Walk a sample entry: `Some` with the fields named by `sample_fields` and, in each element
/// of `events`, by `event_fields`; `None` when serde_json must read the entry (see the module
/// doc). Known fields are found by their exact key bytes.
pub(crate) fn skim<'a>(
    bytes: &'a [u8],
    sample_fields: &[&'static str],
    event_fields: &[&'static str],
) -> Option<Skimmed<'a>> {
    let mut s = Scanner { bytes, at: 0 };
    let mut skimmed = Skimmed {
        fields: Vec::new(),
        events: None,
    };
    let mut seen_events = false;
    s.object(|s, key| {
        if key == b"events" {
            if seen_events {
                return None;
            }
            seen_events = true;
            s.ws();
            if s.peek()? == b'n' {
                let start = s.at;
                s.literal(b"null")?;
                skimmed.fields.push(("events", &s.bytes[start..s.at]));
                return Some(());
            }
            let mut events = Vec::new();
            s.array(|s| {
                s.ws();
                let mut fields: Fields<'a> = Vec::new();
                s.object(|s, key| s.field(key, event_fields, 3, &mut fields))?;
                events.push(fields);
                Some(())
            })?;
            skimmed.events = Some(events);
            return Some(());
        }
        s.field(key, sample_fields, 1, &mut skimmed.fields)
    })?;
    s.ws();
    (s.at == bytes.len()).then_some(skimmed)
}

/// One field of `fields`, parsed from its bytes as serde_json parses it in place (`None`, the
/// field absent, when it is not there; an error sends the sample to serde_json).
pub(crate) fn parse<'a, T: Deserialize<'a>>(
    fields: &[(&'static str, &'a [u8])],
    name: &str,
) -> Option<Option<T>> {
    match fields.iter().find(|(n, _)| *n == name) {
        None => Some(None),
        Some((_, bytes)) => serde_json::from_slice::<Option<T>>(bytes).ok(),
    }
}

/// Where the first byte that ends a string's plain run is: a quote, a backslash or a control
/// character. Sixteen bytes at a time, written so that the compiler makes one vector compare
/// and mask of each block (the strings skipped are most of an entry's bytes).
fn special(bytes: &[u8]) -> Option<usize> {
    fn is_special(b: u8) -> bool {
        (b == b'"') | (b == b'\\') | (b < 0x20)
    }
    let mut blocks = bytes.chunks_exact(16);
    let mut base = 0;
    for block in &mut blocks {
        let block: &[u8; 16] = block.try_into().unwrap_or(&[0; 16]);
        if block
            .iter()
            .fold(0u8, |any, &b| any | u8::from(is_special(b)))
            != 0
        {
            return block.iter().position(|&b| is_special(b)).map(|i| base + i);
        }
        base += 16;
    }
    let tail = blocks.remainder();
    tail.iter().position(|&b| is_special(b)).map(|i| base + i)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.ws();
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// A known field's value (kept, once) or an unknown one's (skipped).
    fn field(
        &mut self,
        key: &[u8],
        known: &[&'static str],
        depth: usize,
        fields: &mut Fields<'a>,
    ) -> Option<()> {
        let Some(name) = known.iter().find(|k| k.as_bytes() == key) else {
            self.value()?;
            return Some(());
        };
        if fields.iter().any(|(n, _)| n == name) {
            return None;
        }
        self.ws();
        let start = self.at;
        if self.value()? + depth > DEEPEST {
            return None;
        }
        fields.push((name, &self.bytes[start..self.at]));
        Some(())
    }

    /// An object at the cursor: `member` is called with each key (without escapes: a key with
    /// one gives up) and the cursor before its value.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &[u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.ws();
            if self.peek()? != b'"' {
                return None;
            }
            let (key, escaped) = self.string()?;
            // serde_json reads a struct's keys as text: an unknown key must be UTF-8 too.
            if escaped || std::str::from_utf8(key).is_err() {
                return None;
            }
            self.eat(b':')?;
            member(self, key)?;
            self.ws();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array at the cursor: `element` is called with the cursor before each element.
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        self.ws();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        loop {
            element(self)?;
            self.ws();
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string at its opening quote: its bytes between the quotes, and whether it has an
    /// escape. Control characters are refused and escapes checked, as serde_json does; UTF-8 is
    /// not checked (serde_json does not check a string it skips either: a field read is
    /// checked when serde_json parses it).
    fn string(&mut self) -> Option<(&'a [u8], bool)> {
        self.at += 1;
        let start = self.at;
        let mut escaped = false;
        loop {
            self.at += special(&self.bytes[self.at..])?;
            match self.bytes[self.at] {
                b'"' => {
                    let text = &self.bytes[start..self.at];
                    self.at += 1;
                    return Some((text, escaped));
                }
                b'\\' => {}
                _ => return None,
            }
            escaped = true;
            self.at += 1;
            match self.peek()? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                b'u' => {
                    let hex = self.bytes.get(self.at + 1..self.at + 5)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    self.at += 5;
                }
                _ => return None,
            }
        }
    }

    /// A number at the cursor, as JSON writes one.
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        Some(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    /// Skip one value (after whitespace), checked; how deeply it nests (0 for a scalar).
    /// Iterative: an attacker's nesting costs no stack.
    fn value(&mut self) -> Option<usize> {
        // The open containers: `true` for an object.
        let mut open: Vec<bool> = Vec::new();
        let mut deepest = 0;
        loop {
            // A value.
            self.ws();
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'n' => self.literal(b"null")?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'-' | b'0'..=b'9' => self.number()?,
                b'[' | b'{' => {
                    let object = self.peek()? == b'{';
                    self.at += 1;
                    open.push(object);
                    deepest = deepest.max(open.len());
                    self.ws();
                    let close = if object { b'}' } else { b']' };
                    if self.peek()? == close {
                        self.at += 1;
                        open.pop();
                    } else {
                        if object {
                            self.key()?;
                        }
                        continue;
                    }
                }
                _ => return None,
            }
            // After a value: the next member or element, or the ends of containers.
            loop {
                let Some(&object) = open.last() else {
                    return Some(deepest);
                };
                self.ws();
                match self.peek()? {
                    b',' => {
                        self.at += 1;
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    b'}' if object => {
                        self.at += 1;
                        open.pop();
                    }
                    b']' if !object => {
                        self.at += 1;
                        open.pop();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// An object's key and its colon.
    fn key(&mut self) -> Option<()> {
        self.ws();
        if self.peek()? != b'"' {
            return None;
        }
        self.string()?;
        self.eat(b':')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SAMPLE: &[&str] = &["id", "input", "events"];
    const EVENT: &[&str] = &["event", "function"];

    fn accepted(text: &str) -> bool {
        skim(text.as_bytes(), SAMPLE, EVENT).is_some()
    }

    #[test]
    fn fields_are_found_and_the_rest_skipped() {
        let text = r#" {"id": 7, "messages": [{"role": "user", "content": "a \"q\" \u00e9"}],
            "events": [{"event": "model", "input": [1, -2.5e+3, true, null, {}]},
                       {"event": "tool", "function": "grep", "x": {"y": []}}], "input": "hi"} "#;
        let s = skim(text.as_bytes(), SAMPLE, EVENT).expect("skimmed");
        assert_eq!(s.fields, vec![("id", &b"7"[..]), ("input", &b"\"hi\""[..])]);
        let events = s.events.expect("events");
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[1],
            vec![("event", &b"\"tool\""[..]), ("function", &b"\"grep\""[..])]
        );
        assert_eq!(
            parse::<String>(&events[1], "function"),
            Some(Some("grep".into()))
        );
        assert_eq!(parse::<String>(&events[1], "arguments"), Some(None));
    }

    #[test]
    fn malformed_or_unusual_samples_are_left_to_serde_json() {
        for bad in [
            r#"{"id": 1,}"#,
            r#"{"id": 1 "input": 2}"#,
            r#"{"id": 1, "x": [1, 2,]}"#,
            r#"{"id": 1, "x": "tab	inside"}"#,
            r#"{"id": 1, "x": "\q"}"#,
            r#"{"id": 1, "x": "\u12g4"}"#,
            r#"{"id": 1, "x": 01}"#,
            r#"{"id": 1, "x": 1.}"#,
            r#"{"id": 1, "x": -}"#,
            r#"{"id": 1, "x": nul}"#,
            r#"{"id": 1, "x": {"a" 1}}"#,
            r#"{"id": 1, "x": {1: 1}}"#,
            r#"{"id": 1, "x": [}"#,
            r#"{"id": 1, "x": "open}"#,
            r#"{"id": 1, "id": 2}"#,
            r#"{"\u0069d": 1}"#,
            r#"{"id": 1} x"#,
            r#"[1, 2]"#,
            r#"{"events": [["model"]]}"#,
            r#"{"events": [{"event": "tool", "event": "model"}]}"#,
        ] {
            assert!(!accepted(bad), "{bad}");
        }
        let deep = format!("{{\"input\": {}{}}}", "[".repeat(100), "]".repeat(100));
        assert!(!accepted(&deep));
        let skipped_deep = format!("{{\"x\": {}{}}}", "[".repeat(5000), "]".repeat(5000));
        assert!(accepted(&skipped_deep));
    }

    proptest! {
        /// Whatever the scanner accepts, serde_json accepts too, with the same fields.
        #[test]
        fn what_is_skimmed_parses(value in json_value(4)) {
            let text = serde_json::json!({"id": 1, "x": value, "input": value}).to_string();
            let skimmed = skim(text.as_bytes(), SAMPLE, EVENT).expect("valid JSON is skimmed");
            let input = parse::<serde_json::Value>(&skimmed.fields, "input").flatten();
            let whole: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
            prop_assert_eq!(input, Some(whole["input"].clone()).filter(|v| !v.is_null()));
        }

        /// Any text the scanner accepts, serde_json accepts (nothing malformed gets through).
        #[test]
        fn nothing_malformed_is_skimmed(text in "[{}\\[\\]\",:a-z0-9 .eE+\\\\-]{0,40}") {
            let sample = format!("{{\"x\": {text}}}");
            if skim(sample.as_bytes(), SAMPLE, EVENT).is_some() {
                prop_assert!(serde_json::from_str::<serde::de::IgnoredAny>(&sample).is_ok(), "{}", sample);
            }
        }
    }

    fn json_value(depth: u32) -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(serde_json::Value::from),
            ".{0,12}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(depth, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map("[a-z\"\\\\]{0,4}", inner, 0..4)
                    .prop_map(|m| { serde_json::Value::Object(m.into_iter().collect()) }),
            ]
        })
    }
}
