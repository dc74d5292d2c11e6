//! A tolerant JSON scanner for the editor: it walks a document that may be half-typed (an open
//! string, a missing comma, no closing brace) and reports every key and value with its JSON path
//! and byte range, never failing. The strict parser (`crate::json`) decides validity; this one only
//! answers "what is at this offset?" and "where are the nodes?", which completion, hover and go
//! to definition need while the text does not parse.

use std::ops::Range;

/// One step of a path: an object member's key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// What a scanned token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An object member's key; the path is the object's.
    Key,
    /// A scalar value; the path is the value's.
    Value,
}

/// One event of the scan.
pub enum Event<'t> {
    /// A key or a scalar value. `string` is the decoded text of a string token.
    Token {
        path: &'t [Seg],
        role: Role,
        range: Range<usize>,
        string: Option<&'t str>,
        /// A string token without its closing quote (the user is typing it).
        open: bool,
    },
    /// An object or array starts (`path` is its path).
    Open { path: &'t [Seg], start: usize },
    /// An object or array ends at byte `end` (exclusive, after the bracket).
    Close { path: &'t [Seg], end: usize },
}

#[derive(Debug)]
enum Frame {
    Object {
        key: Option<String>,
        expect_key: bool,
    },
    Array {
        index: usize,
    },
}

/// Walk `text`, calling `visit` for every event in order; `visit` returns `false` to stop.
pub fn scan(text: &str, mut visit: impl FnMut(Event<'_>) -> bool) {
    let bytes = text.as_bytes();
    let mut path: Vec<Seg> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut decoded = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'{' | b'[' => {
                push_value_path(&mut frames, &mut path);
                if !visit(Event::Open {
                    path: &path,
                    start: i,
                }) {
                    return;
                }
                frames.push(if b == b'{' {
                    Frame::Object {
                        key: None,
                        expect_key: true,
                    }
                } else {
                    Frame::Array { index: 0 }
                });
                i += 1;
            }
            b'}' | b']' => {
                if frames.pop().is_some() {
                    if !visit(Event::Close {
                        path: &path,
                        end: i + 1,
                    }) {
                        return;
                    }
                    pop_value_path(&frames, &mut path);
                    after_value(&mut frames);
                }
                i += 1;
            }
            b':' => {
                if let Some(Frame::Object { expect_key, .. }) = frames.last_mut() {
                    *expect_key = false;
                }
                i += 1;
            }
            b',' => {
                // In an array the index already advanced when the element ended.
                if let Some(Frame::Object { key, expect_key }) = frames.last_mut() {
                    *key = None;
                    *expect_key = true;
                }
                i += 1;
            }
            b'"' => {
                let start = i;
                let (end, open) = string_end(bytes, i);
                decoded.clear();
                decode(
                    &text[start + 1..if open { end } else { end - 1 }],
                    &mut decoded,
                );
                let is_key = matches!(
                    frames.last(),
                    Some(Frame::Object {
                        expect_key: true,
                        ..
                    })
                );
                if is_key {
                    if !visit(Event::Token {
                        path: &path,
                        role: Role::Key,
                        range: start..end,
                        string: Some(&decoded),
                        open,
                    }) {
                        return;
                    }
                    if let Some(Frame::Object { key, expect_key }) = frames.last_mut() {
                        *key = Some(std::mem::take(&mut decoded));
                        *expect_key = false;
                    }
                } else {
                    push_value_path(&mut frames, &mut path);
                    let go_on = visit(Event::Token {
                        path: &path,
                        role: Role::Value,
                        range: start..end,
                        string: Some(&decoded),
                        open,
                    });
                    if !go_on {
                        return;
                    }
                    pop_value_path(&frames, &mut path);
                    after_value(&mut frames);
                }
                i = end;
            }
            _ => {
                // A number, `true`, `false`, `null`, or garbage: up to the next delimiter.
                let start = i;
                while i < bytes.len()
                    && !matches!(
                        bytes[i],
                        b' ' | b'\t'
                            | b'\r'
                            | b'\n'
                            | b'{'
                            | b'}'
                            | b'['
                            | b']'
                            | b','
                            | b':'
                            | b'"'
                    )
                {
                    i += 1;
                }
                push_value_path(&mut frames, &mut path);
                let go_on = visit(Event::Token {
                    path: &path,
                    role: Role::Value,
                    range: start..i,
                    string: None,
                    open: false,
                });
                if !go_on {
                    return;
                }
                pop_value_path(&frames, &mut path);
                after_value(&mut frames);
            }
        }
    }
}

/// The path of the value about to start in the innermost container. The member's key moves into
/// the path (no copy per value): nothing reads it from the frame again, since the value's end
/// clears it (`after_value`).
fn push_value_path(frames: &mut [Frame], path: &mut Vec<Seg>) {
    match frames.last_mut() {
        Some(Frame::Object { key, .. }) => path.push(Seg::Key(key.take().unwrap_or_default())),
        Some(Frame::Array { index }) => path.push(Seg::Index(*index)),
        None => {}
    }
}

fn pop_value_path(frames: &[Frame], path: &mut Vec<Seg>) {
    if !frames.is_empty() {
        path.pop();
    }
}

fn after_value(frames: &mut [Frame]) {
    match frames.last_mut() {
        Some(Frame::Array { index }) => *index += 1,
        Some(Frame::Object { key, expect_key }) => {
            *key = None;
            *expect_key = false;
        }
        None => {}
    }
}

/// The end of the string starting at the quote `bytes[start]` (after its closing quote), and
/// whether it is open (ended by a line end or the end of the text instead).
fn string_end(bytes: &[u8], start: usize) -> (usize, bool) {
    let mut i = start + 1;
    while let Some(at) = bytes
        .get(i..)
        .and_then(|rest| memchr::memchr3(b'\\', b'"', b'\n', rest))
    {
        i += at;
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return (i + 1, false),
            _ => return (i, true),
        }
    }
    (bytes.len(), true)
}

/// The text of a string's contents with the common escapes decoded (enough for IDs and keys).
fn decode(raw: &str, out: &mut String) {
    // Most strings have no escape: one copy, not a char at a time.
    if memchr::memchr(b'\\', raw.as_bytes()).is_none() {
        out.push_str(raw);
        return;
    }
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(c);
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
}

/// What the cursor is on or in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// For a key: the object's path; for a value: the value's path.
    pub path: Vec<Seg>,
    pub role: Role,
    /// The token under the cursor (a string's range includes its quotes), if any.
    pub token: Option<Range<usize>>,
    /// The decoded string under the cursor, if the token is a string.
    pub string: Option<String>,
    /// The token is a string still missing its closing quote.
    pub open: bool,
}

/// The token at byte `offset`, or, between tokens, the position the parser expects there.
pub fn cursor_at(text: &str, offset: usize) -> Cursor {
    let mut found: Option<Cursor> = None;
    // The expectation at the last point before `offset`.
    let mut between = Cursor {
        path: Vec::new(),
        role: Role::Value,
        token: None,
        string: None,
        open: false,
    };
    let mut last_end = 0usize;
    scan(text, |event| {
        match event {
            Event::Token {
                path,
                role,
                range,
                string,
                open,
            } => {
                if range.start >= offset && !(range.start == offset && string.is_none()) {
                    return false;
                }
                let inside = if string.is_some() {
                    range.start < offset && (offset < range.end || (open && offset <= range.end))
                } else {
                    offset <= range.end
                };
                if inside {
                    found = Some(Cursor {
                        path: path.to_vec(),
                        role,
                        token: Some(range),
                        string: string.map(str::to_string),
                        open,
                    });
                    return false;
                }
                last_end = range.end;
                // After a key, a value of that key is expected; after a value, a key (in an
                // object) or another element: refined from the text in between below.
                between = match role {
                    Role::Key => {
                        let mut p = path.to_vec();
                        p.push(Seg::Key(string.unwrap_or_default().to_string()));
                        Cursor {
                            path: p,
                            role: Role::Value,
                            token: None,
                            string: None,
                            open: false,
                        }
                    }
                    Role::Value => {
                        let mut p = path.to_vec();
                        p.pop();
                        Cursor {
                            path: p,
                            role: Role::Key,
                            token: None,
                            string: None,
                            open: false,
                        }
                    }
                };
            }
            Event::Open { path, start } => {
                if start >= offset {
                    return false;
                }
                last_end = start + 1;
                between = Cursor {
                    path: path.to_vec(),
                    role: Role::Key,
                    token: None,
                    string: None,
                    open: false,
                };
                // `[`: an element is expected.
                if text.as_bytes().get(start) == Some(&b'[') {
                    between.role = Role::Value;
                }
            }
            Event::Close { path, end } => {
                if end > offset {
                    return false;
                }
                last_end = end;
                let mut p = path.to_vec();
                p.pop();
                between = Cursor {
                    path: p,
                    role: Role::Key,
                    token: None,
                    string: None,
                    open: false,
                };
            }
        }
        true
    });
    if let Some(found) = found {
        return found;
    }
    // Between tokens: a `,` after a value in an object means a key comes next; a `:` after a
    // key means its value; what was set above already says which.
    let gap = text.get(last_end..offset.min(text.len())).unwrap_or("");
    if between.role == Role::Key && gap.contains(':') {
        between.role = Role::Value;
    }
    between
}

/// Where a node is in the document, and what the editor features need of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeEntry {
    pub index: usize,
    /// The node object's byte range.
    pub range: Range<usize>,
    pub id: Option<(String, Range<usize>)>,
    pub primitive: Option<(String, Range<usize>)>,
    /// `branches` keys with their ranges, and the object's range.
    pub branches: Vec<(String, Range<usize>)>,
    pub branches_range: Option<Range<usize>>,
    /// The ranges of the values of `branches` members, for placing new members after them.
    pub branch_value_ends: Vec<usize>,
    pub on_error: Vec<String>,
    pub inputs: Vec<String>,
    /// A fragment use's `fragment` value (SPEC §9.3), and its `exits` and `with` keys.
    pub fragment: Option<(String, Range<usize>)>,
    pub exits: Vec<String>,
    pub with: Vec<String>,
    /// `inputs.NAME.from`, per input.
    pub bindings: Vec<(String, String)>,
}

/// The nodes of a document and where its top-level `input` schema is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outline {
    pub nodes: Vec<NodeEntry>,
    pub input_range: Option<Range<usize>>,
    pub entry: Option<(String, Range<usize>)>,
}

impl Outline {
    pub fn of(text: &str) -> Outline {
        let mut outline = Outline::default();
        let mut input_start: Option<usize> = None;
        scan(text, |event| {
            match event {
                Event::Open { path, start } => match path {
                    [Seg::Key(k), Seg::Index(i)] if k == "nodes" => {
                        outline.nodes.push(NodeEntry {
                            index: *i,
                            range: start..start,
                            ..NodeEntry::default()
                        });
                    }
                    [Seg::Key(k), Seg::Index(_), Seg::Key(b)]
                        if k == "nodes" && b == "branches" =>
                    {
                        if let Some(node) = outline.nodes.last_mut() {
                            node.branches_range = Some(start..start);
                        }
                    }
                    [Seg::Key(k)] if k == "input" => input_start = Some(start),
                    _ => {}
                },
                Event::Close { path, end } => match path {
                    [Seg::Key(k), Seg::Index(_)] if k == "nodes" => {
                        if let Some(node) = outline.nodes.last_mut() {
                            node.range.end = end;
                        }
                    }
                    [Seg::Key(k), Seg::Index(_), Seg::Key(b)]
                        if k == "nodes" && b == "branches" =>
                    {
                        if let Some(range) = outline
                            .nodes
                            .last_mut()
                            .and_then(|n| n.branches_range.as_mut())
                        {
                            range.end = end;
                        }
                    }
                    [Seg::Key(k)] if k == "input" => {
                        outline.input_range = input_start.map(|s| s..end);
                    }
                    _ => {}
                },
                Event::Token {
                    path,
                    role,
                    range,
                    string,
                    ..
                } => {
                    let node = outline.nodes.last_mut();
                    match (path, role, node) {
                        ([Seg::Key(k)], Role::Value, _) if k == "entry" => {
                            if let Some(s) = string {
                                outline.entry = Some((s.to_string(), range));
                            }
                        }
                        ([Seg::Key(k)], Role::Value, _) if k == "input" => {
                            outline.input_range = Some(range);
                        }
                        ([Seg::Key(k), Seg::Index(_), Seg::Key(f)], Role::Value, Some(node))
                            if k == "nodes" =>
                        {
                            if let Some(s) = string {
                                match f.as_str() {
                                    "id" => node.id = Some((s.to_string(), range)),
                                    "primitive" => node.primitive = Some((s.to_string(), range)),
                                    "fragment" => node.fragment = Some((s.to_string(), range)),
                                    _ => {}
                                }
                            }
                        }
                        ([Seg::Key(k), Seg::Index(_), Seg::Key(f)], Role::Key, Some(node))
                            if k == "nodes" =>
                        {
                            let s = string.unwrap_or_default().to_string();
                            match f.as_str() {
                                "branches" => node.branches.push((s, range)),
                                "on_error" => node.on_error.push(s),
                                "inputs" => node.inputs.push(s),
                                "exits" => node.exits.push(s),
                                "with" => node.with.push(s),
                                _ => {}
                            }
                        }
                        (
                            [Seg::Key(k), Seg::Index(_), Seg::Key(b), Seg::Key(_)],
                            Role::Value,
                            Some(node),
                        ) if k == "nodes" && b == "branches" => {
                            node.branch_value_ends.push(range.end);
                        }
                        (
                            [
                                Seg::Key(k),
                                Seg::Index(_),
                                Seg::Key(inp),
                                Seg::Key(name),
                                Seg::Key(from),
                            ],
                            Role::Value,
                            Some(node),
                        ) if k == "nodes" && inp == "inputs" && from == "from" => {
                            if let Some(s) = string {
                                node.bindings.push((name.clone(), s.to_string()));
                            }
                        }
                        _ => {}
                    }
                }
            }
            true
        });
        outline
    }

    /// The first node with ID `id`.
    pub fn node(&self, id: &str) -> Option<&NodeEntry> {
        self.nodes
            .iter()
            .find(|n| n.id.as_ref().is_some_and(|(i, _)| i == id))
    }

    /// The node at index `index` of `/nodes`.
    pub fn at(&self, index: usize) -> Option<&NodeEntry> {
        self.nodes.iter().find(|n| n.index == index)
    }
}

/// Whether a value at `path` names a node: `entry`, `next`, a `branches` or `on_error` target,
/// or a binding's `from`.
pub fn is_node_reference(path: &[Seg]) -> bool {
    match path {
        [Seg::Key(k)] => k == "entry",
        [Seg::Key(n), Seg::Index(_), Seg::Key(f)] => n == "nodes" && f == "next",
        [Seg::Key(n), Seg::Index(_), Seg::Key(f), Seg::Key(_)] => {
            n == "nodes" && (f == "branches" || f == "on_error")
        }
        [
            Seg::Key(n),
            Seg::Index(_),
            Seg::Key(i),
            Seg::Key(_),
            Seg::Key(f),
        ] => n == "nodes" && i == "inputs" && f == "from",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_half_typed_value_is_found_with_its_path() {
        let text = "{\"nodes\": [{\"id\": \"a\", \"next\": \"b";
        let cursor = cursor_at(text, text.len());
        assert_eq!(
            cursor.path,
            vec![
                Seg::Key("nodes".into()),
                Seg::Index(0),
                Seg::Key("next".into())
            ]
        );
        assert_eq!(cursor.role, Role::Value);
        assert!(cursor.open);
        assert_eq!(cursor.string.as_deref(), Some("b"));
    }

    #[test]
    fn between_tokens_the_expected_role_is_known() {
        let text = "{\"nodes\": [{\"id\": \"a\", \"branches\": {\"pass\": \"x\",  }}]}";
        let at = text.find(",  }").unwrap() + 2;
        let cursor = cursor_at(text, at);
        assert_eq!(cursor.role, Role::Key);
        assert_eq!(cursor.path.last(), Some(&Seg::Key("branches".into())));
        let text = "{\"entry\":  }";
        let cursor = cursor_at(text, 10);
        assert_eq!(cursor.role, Role::Value);
        assert_eq!(cursor.path, vec![Seg::Key("entry".into())]);
    }

    #[test]
    fn the_outline_lists_nodes_in_a_broken_document() {
        let text =
            "{\"entry\": \"a\", \"nodes\": [{\"id\": \"a\", \"primitive\": \"X\"}, {\"id\": \"b\",";
        let outline = Outline::of(text);
        assert_eq!(outline.nodes.len(), 2);
        assert_eq!(outline.node("b").map(|n| n.index), Some(1));
        assert_eq!(outline.entry.as_ref().map(|e| e.0.as_str()), Some("a"));
    }
}
