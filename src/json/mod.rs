//! Spanned JSON: a strict parser that yields a `serde_json::Value` plus the source location of
//! every value and key, rejecting duplicate keys, a BOM, invalid UTF-8, excessive nesting and
//! oversized input with located errors.
//!
//! The locations live in a flat pre-order table (one entry per value, with its member key's
//! range and its subtree size) built while parsing; `Parsed::locate` walks the table, comparing
//! member keys with the source text, so parsing costs one push per value, no map of pointers is
//! ever built, and locating needs no `Value` at all: validation gives the value tree to the
//! loader ([`parse_owned`] then `graph::load_owned`) and a large graph is held about once.
//! Lines and columns are computed on demand from a lazily built `LineIndex`.
//!
//! This module depends only on `std` and `serde_json` so that `build.rs` may include it by path.

mod line_index;
mod parser;
pub mod pointer;

pub use line_index::LineIndex;

use parser::{NO_KEY, Node, Parser};
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A location in the source: byte offsets and 1-based line and column (column counts chars).
/// `end_line`/`end_column` are the position just after the last char (exclusive, as in SARIF).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_bytes: usize,
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 64 * 1024 * 1024,
            max_depth: 128,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum JsonErrorKind {
    Empty,
    Bom,
    InvalidUtf8,
    TooLarge {
        size: usize,
        limit: usize,
    },
    TooDeep {
        limit: usize,
    },
    Syntax {
        message: String,
    },
    DuplicateKey {
        key: String,
        pointer: String,
        first: Span,
    },
}

impl fmt::Display for JsonErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonErrorKind::Empty => f.write_str("the document is empty"),
            JsonErrorKind::Bom => {
                f.write_str("the document starts with a byte order mark (BOM), which JSON forbids")
            }
            JsonErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            JsonErrorKind::TooLarge { size, limit } => {
                write!(f, "the document is {size} bytes, over the limit of {limit}")
            }
            JsonErrorKind::TooDeep { limit } => {
                write!(f, "nesting deeper than {limit} levels")
            }
            JsonErrorKind::Syntax { message } => f.write_str(message),
            JsonErrorKind::DuplicateKey { key, first, .. } => write!(
                f,
                "duplicate key {key:?} (first at line {}, column {})",
                first.line, first.column
            ),
        }
    }
}

/// A parse failure, located at `span` (for a duplicate key: the second occurrence).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    pub kind: JsonErrorKind,
    pub span: Span,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {}, column {}",
            self.kind, self.span.line, self.span.column
        )
    }
}

impl std::error::Error for JsonError {}

/// What `Parsed::nearest` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nearest {
    pub value: Span,
    pub key: Option<Span>,
    /// Whether the pointer named this value (else it is the nearest existing ancestor).
    pub exact: bool,
}

/// A parsed document: the value and an index from JSON pointers to spans.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub value: Value,
    /// Every value in pre-order, index 0 being the root.
    nodes: Vec<Node>,
    source: Arc<str>,
    lines: OnceLock<LineIndex>,
    /// The children of every node, built on first lookup so that locating `/nodes/N` costs
    /// O(depth), not O(N) sibling skips (many diagnostics on a large graph stay linear).
    children: OnceLock<ChildIndex>,
}

/// For node `i`, its children's table indices are `list[first[i]..first[i + 1]]`.
#[derive(Debug, Clone, Default)]
struct ChildIndex {
    first: Vec<u32>,
    list: Vec<u32>,
}

impl ChildIndex {
    fn build(nodes: &[Node]) -> ChildIndex {
        let mut first = Vec::with_capacity(nodes.len() + 1);
        let mut list = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            first.push(list.len() as u32);
            let last = i + node.descendants as usize;
            let mut at = i + 1;
            while at <= last && at < nodes.len() {
                list.push(at as u32);
                at += 1 + nodes[at].descendants as usize;
            }
        }
        first.push(list.len() as u32);
        ChildIndex { first, list }
    }
}

impl Parsed {
    /// The source text the document was parsed from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The source text, shared.
    pub fn source_arc(&self) -> Arc<str> {
        Arc::clone(&self.source)
    }

    /// The line table of the source (built on first use).
    pub fn line_index(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.source))
    }

    /// The span of bytes `start..end` of the source.
    pub fn span_of(&self, start: usize, end: usize) -> Span {
        self.line_index().span(&self.source, start, end)
    }

    /// The span of the value at `pointer` (RFC 6901), if it exists.
    pub fn locate(&self, pointer: &str) -> Option<Span> {
        match self.walk(pointer) {
            (node, true) => Some(self.value_span(node)),
            _ => None,
        }
    }

    /// The span of the key of the member at `pointer` (its last segment), if it is an object member.
    pub fn locate_key(&self, pointer: &str) -> Option<Span> {
        match self.walk(pointer) {
            (node, true) if node.key_start != NO_KEY => {
                Some(self.span_of(node.key_start as usize, node.key_end as usize))
            }
            _ => None,
        }
    }

    /// The span of the value at `pointer`, or of its nearest existing ancestor (at worst the
    /// root) when the pointer names nothing or is malformed.
    pub fn locate_nearest(&self, pointer: &str) -> Span {
        self.value_span(self.walk(pointer).0)
    }

    /// The nearest existing value along `pointer` (the value itself when it exists): its span,
    /// its member key's span when it is an object member, and whether it is the exact target.
    pub fn nearest(&self, pointer: &str) -> Nearest {
        let (node, exact) = self.walk(pointer);
        Nearest {
            value: self.value_span(node),
            key: (node.key_start != NO_KEY)
                .then(|| self.span_of(node.key_start as usize, node.key_end as usize)),
            exact,
        }
    }

    /// The key and value spans of the first member of the object at `pointer` (or at its
    /// nearest existing ancestor), if that is an object with members.
    pub fn first_member(&self, pointer: &str) -> Option<(Span, Span)> {
        let (index, node) = self.walk_index(pointer).0;
        if self.source.as_bytes().get(node.start as usize) != Some(&b'{') {
            return None;
        }
        let first = *self.nodes.get(*self.children(index).first()? as usize)?;
        (first.key_start != NO_KEY).then(|| {
            (
                self.span_of(first.key_start as usize, first.key_end as usize),
                self.value_span(first),
            )
        })
    }

    /// Whether `pointer` names a value of the document.
    pub fn contains(&self, pointer: &str) -> bool {
        self.walk(pointer).1
    }

    fn value_span(&self, node: Node) -> Span {
        self.span_of(node.start as usize, node.end as usize)
    }

    /// The deepest node along `pointer`, and whether it is the one the whole pointer names.
    /// The walk reads only the span table and the source (a member's key is compared with the
    /// key as written), never `value`: a caller may take the value tree away (`validate` does,
    /// to load a large graph without holding two copies of it) and still locate pointers.
    fn walk(&self, pointer: &str) -> (Node, bool) {
        let ((_, node), exact) = self.walk_index(pointer);
        (node, exact)
    }

    /// [`Parsed::walk`], with the node's index in the table.
    fn walk_index(&self, pointer: &str) -> ((usize, Node), bool) {
        let Some(root) = self.nodes.first().copied() else {
            return ((0, Node::default_root()), false);
        };
        let Some(tokens) = pointer::tokens(pointer) else {
            return ((0, root), false);
        };
        let mut index = 0usize;
        let mut node = root;
        for token in tokens {
            let Some(token) = token else {
                return ((index, node), false);
            };
            let children = self.children(index);
            let found = match self.source.as_bytes().get(node.start as usize) {
                Some(b'{') => children
                    .iter()
                    .map(|&at| at as usize)
                    .find(|&at| self.nodes.get(at).is_some_and(|n| self.key_is(n, &token))),
                Some(b'[') => pointer::array_index(&token)
                    .and_then(|i| children.get(i))
                    .map(|&at| at as usize),
                _ => None,
            };
            let Some(child) = found.and_then(|at| self.nodes.get(at).map(|n| (at, *n))) else {
                return ((index, node), false);
            };
            (index, node) = child;
        }
        ((index, node), true)
    }

    /// Whether the member `node` has the key `token` (its source text, unescaped).
    fn key_is(&self, node: &Node, token: &str) -> bool {
        if node.key_start == NO_KEY {
            return false;
        }
        let Some(quoted) = self
            .source
            .get(node.key_start as usize..node.key_end as usize)
        else {
            return false;
        };
        let raw = quoted
            .strip_prefix('"')
            .and_then(|q| q.strip_suffix('"'))
            .unwrap_or(quoted);
        if raw.contains('\\') {
            serde_json::from_str::<String>(quoted).is_ok_and(|key| key == token)
        } else {
            raw == token
        }
    }

    /// The table indices of the children of the node at `parent`, in document order.
    fn children(&self, parent: usize) -> &[u32] {
        let index = self.children.get_or_init(|| ChildIndex::build(&self.nodes));
        let begin = index.first.get(parent).copied().unwrap_or(0) as usize;
        let end = index.first.get(parent + 1).copied().unwrap_or(0) as usize;
        index.list.get(begin..end).unwrap_or_default()
    }
}

impl Node {
    fn default_root() -> Node {
        Node {
            start: 0,
            end: 0,
            key_start: NO_KEY,
            key_end: NO_KEY,
            descendants: 0,
        }
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Parse `bytes` as one strict JSON document (RFC 8259, no duplicate keys, no BOM), within
/// `limits`.
pub fn parse(bytes: &[u8], limits: &Limits) -> Result<Parsed, JsonError> {
    // Spans are stored as u32 offsets.
    let hard_limit = limits.max_bytes.min(u32::MAX as usize - 1);
    if bytes.len() > hard_limit {
        return Err(JsonError {
            kind: JsonErrorKind::TooLarge {
                size: bytes.len(),
                limit: hard_limit,
            },
            span: Span {
                start: 0,
                end: 0,
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 1,
            },
        });
    }
    if bytes.starts_with(BOM) {
        return Err(JsonError {
            kind: JsonErrorKind::Bom,
            span: Span {
                start: 0,
                end: BOM.len(),
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 2,
            },
        });
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.valid_up_to();
            let len = e.error_len().unwrap_or(bytes.len() - at);
            let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
            let mut span = line_index::span_in(valid, at, at);
            span.end = at + len;
            span.end_column = span.column + 1;
            return Err(JsonError {
                kind: JsonErrorKind::InvalidUtf8,
                span,
            });
        }
    };
    parse_text(Arc::from(text), limits)
}

/// [`parse`], taking the bytes: the source is held once (as the [`Parsed`]'s shared text), not
/// once by the caller and once by the document, for as long as the document lives. On error,
/// the source as text (invalid UTF-8 replaced) comes back with it, for the report to show.
pub fn parse_owned(bytes: Vec<u8>, limits: &Limits) -> Result<Parsed, Box<(JsonError, Arc<str>)>> {
    let lossy = |bytes: &[u8]| Arc::from(String::from_utf8_lossy(bytes).as_ref());
    match String::from_utf8(bytes) {
        Ok(text)
            if text.len() <= limits.max_bytes.min(u32::MAX as usize - 1)
                && !text.as_bytes().starts_with(BOM) =>
        {
            let source: Arc<str> = Arc::from(text);
            parse_text(Arc::clone(&source), limits).map_err(|error| Box::new((error, source)))
        }
        // Too large, a BOM or not UTF-8: the borrowed path reports it.
        Err(e) => {
            parse(e.as_bytes(), limits).map_err(|error| Box::new((error, lossy(e.as_bytes()))))
        }
        Ok(text) => parse(text.as_bytes(), limits)
            .map_err(|error| Box::new((error, lossy(text.as_bytes())))),
    }
}

fn parse_text(source: Arc<str>, limits: &Limits) -> Result<Parsed, JsonError> {
    let mut parser = Parser::new(&source, limits);
    let value = parser.parse_document()?;
    let mut nodes = parser.nodes;
    // The table was sized for the densest document; a typical one uses half of it.
    nodes.shrink_to_fit();
    Ok(Parsed {
        value,
        nodes,
        source,
        lines: OnceLock::new(),
        children: OnceLock::new(),
    })
}
