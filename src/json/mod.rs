//! Spanned JSON: a strict parser that yields a `serde_json::Value` plus the source location of
//! every value and key, rejecting duplicate keys, a BOM, invalid UTF-8, excessive nesting and
//! oversized input with located errors.
//!
//! SKELETON: replaced by the JSON issue work; the API below keeps its shape.
//! This module depends only on `std` and `serde_json` so that `build.rs` may include it by path.

use serde_json::Value;

/// A location in the source: byte offsets and 1-based line and column (column counts chars).
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

/// A parse failure, located at `span` (for a duplicate key: the second occurrence).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    pub kind: JsonErrorKind,
    pub span: Span,
}

/// A parsed document: the value and an index from JSON pointers to spans.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub value: Value,
}

impl Parsed {
    /// The span of the value at `pointer` (RFC 6901), if it exists.
    pub fn locate(&self, _pointer: &str) -> Option<Span> {
        None
    }

    /// The span of the key of the member at `pointer` (its last segment), if it is an object member.
    pub fn locate_key(&self, _pointer: &str) -> Option<Span> {
        None
    }
}

pub fn parse(bytes: &[u8], _limits: &Limits) -> Result<Parsed, JsonError> {
    serde_json::from_slice(bytes)
        .map(|value| Parsed { value })
        .map_err(|e| JsonError {
            kind: JsonErrorKind::Syntax {
                message: e.to_string(),
            },
            span: Span {
                line: e.line() as u32,
                column: e.column() as u32,
                ..Span::default()
            },
        })
}
