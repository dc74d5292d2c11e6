//! Offsets to positions: a table of line starts that turns a byte offset into a 1-based line and
//! a 1-based column counted in chars, as every span and diagnostic reports them.

use super::Span;

/// The byte offset where each line starts. Only `\n` ends a line (a `\r` before it is a char of
/// the previous line, which keeps columns right on CRLF files too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { line_starts }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 1-based line and column of `offset` in `text` (the text this index was built from).
    /// Offsets past the end clamp to the end; offsets inside a char snap back to its start.
    pub fn line_column(&self, text: &str, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let line_start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        let column = text
            .get(line_start..offset)
            .map_or(0, |s| s.chars().count())
            + 1;
        (to_u32(line), to_u32(column))
    }

    /// The span of bytes `start..end` of `text`.
    pub fn span(&self, text: &str, start: usize, end: usize) -> Span {
        let (line, column) = self.line_column(text, start);
        let (end_line, end_column) = self.line_column(text, end.max(start));
        Span {
            start,
            end: end.max(start),
            line,
            column,
            end_line,
            end_column,
        }
    }

    /// The text of 1-based `line`, without its line terminator.
    pub fn line_text<'t>(&self, text: &'t str, line: u32) -> Option<&'t str> {
        let index = (line as usize).checked_sub(1)?;
        let start = *self.line_starts.get(index)?;
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(text.len(), |&next| next - 1);
        let line = text.get(start..end)?;
        Some(line.strip_suffix('\r').unwrap_or(line))
    }

    /// The byte offset of 1-based `line`, 1-based `column` (chars), clamped to the line's end.
    pub fn offset(&self, text: &str, line: u32, column: u32) -> Option<usize> {
        let start = *self.line_starts.get((line as usize).checked_sub(1)?)?;
        let rest = text.get(start..)?;
        let skip = (column as usize).saturating_sub(1);
        let within = rest
            .char_indices()
            .take_while(|&(_, c)| c != '\n')
            .nth(skip)
            .map_or_else(|| rest.find('\n').unwrap_or(rest.len()), |(i, _)| i);
        Some(start + within)
    }

    /// The byte offset just past the character at `start` of `text` (`start` itself at a line
    /// end or the end of the text): a one-character range to underline.
    pub fn char_end(text: &str, start: usize) -> usize {
        text.get(start..)
            .and_then(|rest| rest.chars().next())
            .filter(|&c| c != '\n' && c != '\r')
            .map_or(start, |c| start + c.len_utf8())
    }
}

/// The span of `start..end` of `text` without building an index (for one-off error positions).
pub fn span_in(text: &str, start: usize, end: usize) -> Span {
    LineIndex::new(text.get(..start.min(text.len())).unwrap_or(text)).span(text, start, end)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
