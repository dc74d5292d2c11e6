//! The strict JSON grammar (RFC 8259) as a hand-written, non-recursive parser that builds the
//! `serde_json::Value` and, alongside it, a flat pre-order table of the spans of every value and
//! member key. An explicit stack bounds memory by `Limits::max_depth`, not by the call stack.

use super::line_index::span_in;
use super::{JsonError, JsonErrorKind, Limits, Span};
use serde_json::{Map, Number, Value};

/// `key_start` of a node that is not an object member.
pub(crate) const NO_KEY: u32 = u32::MAX;

/// One value of the document, in pre-order: its byte range, the byte range of its member key
/// (when it is an object member) and how many nodes follow it inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Node {
    pub start: u32,
    pub end: u32,
    pub key_start: u32,
    pub key_end: u32,
    pub descendants: u32,
}

enum Frame {
    Array {
        node: usize,
        items: Vec<Value>,
    },
    Object {
        node: usize,
        members: Members,
        key: String,
        key_start: u32,
        key_end: u32,
    },
}

/// The members of an object being parsed. A small object collects them in a vector (a duplicate
/// is found by a scan) and becomes a map of exactly its size when it closes: a map grown entry
/// by entry keeps up to twice the room it needs, and a graph is mostly small objects. Past
/// [`FEW_MEMBERS`] members the object switches to a map, so a huge object stays linear.
enum Members {
    Few(Vec<(String, Value)>),
    Many(Map<String, Value>),
}

const FEW_MEMBERS: usize = 16;

impl Members {
    /// Add a member; the key back when the object already has it.
    fn insert(&mut self, key: String, value: Value) -> Result<(), String> {
        match self {
            Members::Few(entries) => {
                if entries.iter().any(|(k, _)| *k == key) {
                    return Err(key);
                }
                if entries.len() < FEW_MEMBERS {
                    entries.push((key, value));
                    return Ok(());
                }
                let mut map = Map::with_capacity(entries.len() * 2);
                map.extend(entries.drain(..));
                map.insert(key, value);
                *self = Members::Many(map);
                Ok(())
            }
            Members::Many(map) => match map.entry(key) {
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(value);
                    Ok(())
                }
                serde_json::map::Entry::Occupied(slot) => Err(slot.key().clone()),
            },
        }
    }

    /// The position of `key` among the members, in document order.
    fn position(&self, key: &str) -> Option<usize> {
        match self {
            Members::Few(entries) => entries.iter().position(|(k, _)| k == key),
            Members::Many(map) => map.keys().position(|k| k == key),
        }
    }

    fn into_map(self) -> Map<String, Value> {
        match self {
            Members::Few(entries) => {
                let mut map = Map::with_capacity(entries.len());
                map.extend(entries);
                map
            }
            Members::Many(map) => map,
        }
    }
}

/// Bytes that end the fast scan of a string: the quote, the backslash and control characters.
static STRING_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = true;
        i += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

pub(crate) struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    max_depth: usize,
    pub nodes: Vec<Node>,
}

impl<'a> Parser<'a> {
    /// `src.len()` must fit in a `u32` (checked by the caller).
    pub fn new(src: &'a str, limits: &Limits) -> Parser<'a> {
        Parser {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            max_depth: limits.max_depth,
            nodes: Vec::with_capacity(src.len() / 12 + 1),
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        span_in(self.src, start, end)
    }

    fn syntax(&self, start: usize, end: usize, message: impl Into<String>) -> JsonError {
        JsonError {
            kind: JsonErrorKind::Syntax {
                message: message.into(),
            },
            span: self.span(start, end),
        }
    }

    /// The span end of the char at `at` (`at` itself at end of input).
    fn char_end(&self, at: usize) -> usize {
        self.src
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .map_or(at, |c| at + c.len_utf8())
    }

    fn ceil_boundary(&self, mut at: usize) -> usize {
        while at < self.src.len() && !self.src.is_char_boundary(at) {
            at += 1;
        }
        at.min(self.src.len())
    }

    /// A syntax error at the char at the current position.
    fn unexpected(&self, message: &str) -> JsonError {
        self.syntax(self.pos, self.char_end(self.pos), message)
    }

    fn found(&self, at: usize) -> String {
        match self.src.get(at..).and_then(|rest| rest.chars().next()) {
            None => "end of input".to_string(),
            Some(c) if c.is_control() => format!("{:?}", c),
            Some(c) => format!("'{c}'"),
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    #[inline]
    fn push_node(&mut self, start: usize, key: (u32, u32)) -> usize {
        self.nodes.push(Node {
            start: start as u32,
            end: start as u32,
            key_start: key.0,
            key_end: key.1,
            descendants: 0,
        });
        self.nodes.len() - 1
    }

    #[inline]
    fn close_node(&mut self, node: usize) {
        let len = self.nodes.len();
        let end = self.pos as u32;
        if let Some(n) = self.nodes.get_mut(node) {
            n.end = end;
            n.descendants = (len - node - 1) as u32;
        }
    }

    fn check_depth(&self, depth: usize) -> Result<(), JsonError> {
        if depth > self.max_depth {
            Err(JsonError {
                kind: JsonErrorKind::TooDeep {
                    limit: self.max_depth,
                },
                span: self.span(self.pos, self.pos + 1),
            })
        } else {
            Ok(())
        }
    }

    /// Parse a member key at the current position (a `"`), then the `:` after it.
    fn parse_key(&mut self) -> Result<(String, u32, u32), JsonError> {
        let start = self.pos;
        let key = self.parse_string()?;
        let end = self.pos;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected("expected ':' after object key"));
        }
        self.pos += 1;
        Ok((key, start as u32, end as u32))
    }

    pub fn parse_document(&mut self) -> Result<Value, JsonError> {
        self.skip_ws();
        if self.pos >= self.bytes.len() {
            return Err(JsonError {
                kind: JsonErrorKind::Empty,
                span: self.span(0, self.bytes.len()),
            });
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut key = (NO_KEY, NO_KEY);
        'value: loop {
            self.skip_ws();
            let start = self.pos;
            let mut value = match self.peek() {
                Some(b'{') => {
                    self.check_depth(stack.len() + 1)?;
                    let node = self.push_node(start, key);
                    self.pos += 1;
                    self.skip_ws();
                    match self.peek() {
                        Some(b'}') => {
                            self.pos += 1;
                            self.close_node(node);
                            Value::Object(Map::new())
                        }
                        Some(b'"') => {
                            let (name, key_start, key_end) = self.parse_key()?;
                            stack.push(Frame::Object {
                                node,
                                members: Members::Few(Vec::with_capacity(4)),
                                key: name,
                                key_start,
                                key_end,
                            });
                            key = (key_start, key_end);
                            continue 'value;
                        }
                        _ => return Err(self.unexpected("expected a string key or '}'")),
                    }
                }
                Some(b'[') => {
                    self.check_depth(stack.len() + 1)?;
                    let node = self.push_node(start, key);
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        self.close_node(node);
                        Value::Array(Vec::new())
                    } else {
                        stack.push(Frame::Array {
                            node,
                            items: Vec::new(),
                        });
                        key = (NO_KEY, NO_KEY);
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    let node = self.push_node(start, key);
                    let s = self.parse_string()?;
                    self.close_node(node);
                    Value::String(s)
                }
                Some(b'-' | b'0'..=b'9') => {
                    let node = self.push_node(start, key);
                    let n = self.parse_number()?;
                    self.close_node(node);
                    Value::Number(n)
                }
                Some(b't') => self.parse_literal(b"true", Value::Bool(true), key)?,
                Some(b'f') => self.parse_literal(b"false", Value::Bool(false), key)?,
                Some(b'n') => self.parse_literal(b"null", Value::Null, key)?,
                _ => {
                    let message = match stack.last() {
                        Some(Frame::Array { items, .. }) if items.is_empty() => {
                            "expected a JSON value or ']'"
                        }
                        _ => "expected a JSON value",
                    };
                    let message = format!("{message}, found {}", self.found(start));
                    return Err(self.syntax(start, self.char_end(start), message));
                }
            };
            // The value is complete: hand it to the enclosing container, closing as many
            // containers as end here.
            loop {
                match stack.last_mut() {
                    None => {
                        self.skip_ws();
                        if self.pos < self.bytes.len() {
                            return Err(self.syntax(
                                self.pos,
                                self.bytes.len(),
                                "trailing characters after the JSON value",
                            ));
                        }
                        return Ok(value);
                    }
                    Some(Frame::Array { node, items }) => {
                        items.push(value);
                        self.skip_ws();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                key = (NO_KEY, NO_KEY);
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                let node = *node;
                                let mut items = std::mem::take(items);
                                // Grown by doubling; the document keeps only what it holds.
                                items.shrink_to_fit();
                                value = Value::Array(items);
                                stack.pop();
                                self.close_node(node);
                            }
                            _ => {
                                return Err(
                                    self.unexpected("expected ',' or ']' after array element")
                                );
                            }
                        }
                    }
                    Some(Frame::Object {
                        node,
                        members,
                        key: name,
                        key_start,
                        key_end,
                    }) => {
                        let object_node = *node;
                        let duplicate = members
                            .insert(std::mem::take(name), value)
                            .err()
                            .map(|dup| (dup, *key_start, *key_end));
                        if let Some((dup, start, end)) = duplicate {
                            return Err(self.duplicate_key(&stack, object_node, dup, start, end));
                        }
                        self.skip_ws();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                if self.peek() != Some(b'"') {
                                    let message = if self.peek() == Some(b'}') {
                                        "expected a string key after ',' (trailing commas are not allowed)"
                                    } else {
                                        "expected a string key after ','"
                                    };
                                    return Err(self.unexpected(message));
                                }
                                let (next, next_start, next_end) = self.parse_key()?;
                                if let Some(Frame::Object {
                                    key: name,
                                    key_start,
                                    key_end,
                                    ..
                                }) = stack.last_mut()
                                {
                                    *name = next;
                                    *key_start = next_start;
                                    *key_end = next_end;
                                }
                                key = (next_start, next_end);
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                let members = std::mem::replace(members, Members::Few(Vec::new()));
                                value = Value::Object(members.into_map());
                                stack.pop();
                                self.close_node(object_node);
                            }
                            _ => {
                                return Err(
                                    self.unexpected("expected ',' or '}' after object member")
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    fn duplicate_key(
        &self,
        stack: &[Frame],
        object_node: usize,
        key: String,
        start: u32,
        end: u32,
    ) -> JsonError {
        let mut pointer = String::new();
        let ancestors = stack.len().saturating_sub(1);
        for frame in stack.iter().take(ancestors) {
            match frame {
                Frame::Array { items, .. } => {
                    pointer.push('/');
                    pointer.push_str(&items.len().to_string());
                }
                Frame::Object { key, .. } => {
                    pointer = super::pointer::push(&pointer, key);
                }
            }
        }
        let pointer = super::pointer::push(&pointer, &key);
        let first = match stack.last() {
            Some(Frame::Object { members, .. }) => members
                .position(&key)
                .and_then(|index| self.child(object_node, index)),
            _ => None,
        }
        .map(|child| self.span(child.key_start as usize, child.key_end as usize))
        .unwrap_or_default();
        JsonError {
            kind: JsonErrorKind::DuplicateKey {
                key,
                pointer,
                first,
            },
            span: self.span(start as usize, end as usize),
        }
    }

    fn child(&self, parent: usize, index: usize) -> Option<Node> {
        let mut at = parent + 1;
        for _ in 0..index {
            at += 1 + self.nodes.get(at)?.descendants as usize;
        }
        self.nodes.get(at).copied()
    }

    fn parse_literal(
        &mut self,
        word: &'static [u8],
        value: Value,
        key: (u32, u32),
    ) -> Result<Value, JsonError> {
        let start = self.pos;
        for (i, &expected) in word.iter().enumerate() {
            if self.bytes.get(start + i) != Some(&expected) {
                self.pos = start + i;
                let word = String::from_utf8_lossy(word);
                return Err(self.unexpected(&format!(
                    "invalid literal: expected '{word}', found {}",
                    self.found(self.pos)
                )));
            }
        }
        let node = self.push_node(start, key);
        self.pos = start + word.len();
        self.close_node(node);
        Ok(value)
    }

    /// A string at the current position (a `"`); leaves the position after the closing quote.
    fn parse_string(&mut self) -> Result<String, JsonError> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            if STRING_STOP[b as usize] {
                break;
            }
            self.pos += 1;
        }
        match self.peek() {
            Some(b'"') => {
                let s = self.src.get(start..self.pos).unwrap_or_default().to_owned();
                self.pos += 1;
                Ok(s)
            }
            Some(b'\\') => {
                let mut out = String::with_capacity(self.pos - start + 16);
                out.push_str(self.src.get(start..self.pos).unwrap_or_default());
                self.parse_string_escaped(open, out)
            }
            Some(_) => Err(self.control_character()),
            None => Err(self.unterminated(open)),
        }
    }

    fn unterminated(&self, open: usize) -> JsonError {
        self.syntax(open, open + 1, "unterminated string")
    }

    fn control_character(&self) -> JsonError {
        let b = self.peek().unwrap_or(0);
        let hint = match b {
            b'\n' => " (escape it as \\n)",
            b'\t' => " (escape it as \\t)",
            b'\r' => " (escape it as \\r)",
            _ => "",
        };
        self.syntax(
            self.pos,
            self.pos + 1,
            format!("control character U+{b:04X} in string{hint}"),
        )
    }

    fn parse_string_escaped(&mut self, open: usize, mut out: String) -> Result<String, JsonError> {
        loop {
            let segment = self.pos;
            while let Some(&b) = self.bytes.get(self.pos) {
                if STRING_STOP[b as usize] {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(self.src.get(segment..self.pos).unwrap_or_default());
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let escape = self.pos;
                    let c = match self.bytes.get(escape + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let c = self.parse_unicode_escape(escape)?;
                            out.push(c);
                            continue;
                        }
                        None => return Err(self.unterminated(open)),
                        Some(_) => {
                            let end = self.char_end(escape + 1);
                            let found = self.src.get(escape..end).unwrap_or_default();
                            return Err(self.syntax(
                                escape,
                                end,
                                format!(
                                    "invalid escape '{found}' (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"
                                ),
                            ));
                        }
                    };
                    out.push(c);
                    self.pos = escape + 2;
                }
                Some(_) => return Err(self.control_character()),
                None => return Err(self.unterminated(open)),
            }
        }
    }

    /// Four hex digits at `at`.
    fn hex4(&self, at: usize) -> Option<u16> {
        let digits = self.bytes.get(at..at + 4)?;
        let mut n: u16 = 0;
        for &d in digits {
            n = n * 16 + (d as char).to_digit(16)? as u16;
        }
        Some(n)
    }

    /// A `\uXXXX` escape (or a surrogate pair of them) at `escape`; leaves the position after it.
    fn parse_unicode_escape(&mut self, escape: usize) -> Result<char, JsonError> {
        let bad_hex = |p: &Self| {
            let end = (escape + 6).min(p.bytes.len());
            let end = p.ceil_boundary(end);
            p.syntax(escape, end, "invalid \\u escape: expected 4 hex digits")
        };
        let unit = self.hex4(escape + 2).ok_or_else(|| bad_hex(self))?;
        let lone = |p: &Self, unit: u16| {
            p.syntax(
                escape,
                escape + 6,
                format!("lone surrogate \\u{unit:04X} in string"),
            )
        };
        match unit {
            0xD800..=0xDBFF => {
                let low_at = escape + 6;
                if self.bytes.get(low_at..low_at + 2) != Some(b"\\u") {
                    return Err(lone(self, unit));
                }
                let Some(low) = self.hex4(low_at + 2) else {
                    let end = (low_at + 6).min(self.bytes.len());
                    let end = self.ceil_boundary(end);
                    return Err(self.syntax(
                        low_at,
                        end,
                        "invalid \\u escape: expected 4 hex digits",
                    ));
                };
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(lone(self, unit));
                }
                let code = 0x10000 + (((unit as u32) - 0xD800) << 10) + ((low as u32) - 0xDC00);
                self.pos = low_at + 6;
                char::from_u32(code).ok_or_else(|| lone(self, unit))
            }
            0xDC00..=0xDFFF => Err(lone(self, unit)),
            _ => {
                self.pos = escape + 6;
                char::from_u32(unit as u32).ok_or_else(|| lone(self, unit))
            }
        }
    }

    /// A number at the current position, by the JSON grammar exactly.
    fn parse_number(&mut self) -> Result<Number, JsonError> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let mut significand: u64 = 0;
        let mut overflow = false;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.unexpected("leading zeros are not allowed in numbers"));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    match significand
                        .checked_mul(10)
                        .and_then(|s| s.checked_add((d - b'0') as u64))
                    {
                        Some(s) => significand = s,
                        None => overflow = true,
                    }
                    self.pos += 1;
                }
            }
            _ => {
                return Err(self.unexpected(&format!(
                    "expected a digit after '-', found {}",
                    self.found(self.pos)
                )));
            }
        }
        let mut is_float = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.unexpected(&format!(
                    "expected a digit after the decimal point, found {}",
                    self.found(self.pos)
                )));
            }
            while let Some(b'0'..=b'9') = self.peek() {
                self.pos += 1;
            }
            is_float = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.unexpected(&format!(
                    "expected a digit in the exponent, found {}",
                    self.found(self.pos)
                )));
            }
            while let Some(b'0'..=b'9') = self.peek() {
                self.pos += 1;
            }
            is_float = true;
        }
        if !is_float && !overflow {
            if !negative {
                return Ok(Number::from(significand));
            }
            // As serde_json: `-0` is a float, as is anything below i64::MIN.
            if significand != 0 && significand <= 1 << 63 {
                return Ok(Number::from((significand as i64).wrapping_neg()));
            }
        }
        let lexeme = self.src.get(start..self.pos).unwrap_or_default();
        lexeme
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .ok_or_else(|| self.syntax(start, self.pos, "number out of range"))
    }
}
