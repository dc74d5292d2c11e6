//! Byte offsets ↔ LSP positions. LSP counts a line's characters in UTF-16 code units (the
//! protocol's default `positionEncoding`), primgraph's spans count bytes and chars: a line with
//! `é` or an emoji before an error puts the two apart, so every range sent or received goes
//! through this table.

use lsp_types::{Position, Range};

/// The byte offset where each line of a text starts (only `\n` ends a line).
#[derive(Debug, Clone, Default)]
pub struct LineMap {
    starts: Vec<usize>,
}

impl LineMap {
    pub fn new(text: &str) -> LineMap {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineMap { starts }
    }

    /// The position of byte `offset` (clamped to the text, snapped back to a char boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = self.starts[line];
        let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(
            self.position(text, start),
            self.position(text, end.max(start)),
        )
    }

    /// The byte offset of `position`; a character past the line's end clamps to the end, a
    /// line past the text's end to the text's end, and a position inside a surrogate pair to
    /// the char's start.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return text.len();
        };
        let mut units = 0u32;
        for (i, c) in text[start..].char_indices() {
            if c == '\n' || c == '\r' && text[start + i..].starts_with("\r\n") {
                return start + i;
            }
            let width = c.len_utf16() as u32;
            if units + width > position.character {
                return start + i;
            }
            units += width;
        }
        text.len()
    }

    /// The byte offset of 1-based `line`, 1-based `column` counted in chars (primgraph's
    /// diagnostic coordinates), clamped to the line.
    pub fn offset_of_line_column(&self, text: &str, line: u32, column: u32) -> usize {
        let Some(&start) = self.starts.get((line.max(1) - 1) as usize) else {
            return text.len();
        };
        let skip = column.max(1) as usize - 1;
        text[start..]
            .char_indices()
            .take_while(|&(_, c)| c != '\n')
            .nth(skip)
            .map_or_else(
                || start + text[start..].find('\n').unwrap_or(text.len() - start),
                |(i, _)| start + i,
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs_twice() {
        let text = "ab\n\u{e9}\u{1F600}x\n";
        let map = LineMap::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(map.position(text, x), Position::new(1, 3));
        assert_eq!(map.offset(text, Position::new(1, 3)), x);
        assert_eq!(map.offset_of_line_column(text, 2, 3), x);
        assert_eq!(map.offset(text, Position::new(0, 99)), 2);
    }
}
