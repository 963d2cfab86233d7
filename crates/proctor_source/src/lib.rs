//! Byte offsets to line and column conversion, shared by every stage that
//! reports a location to users.
//!
//! Everything inside proctor carries byte offsets; lines and columns are only
//! computed when a location is rendered, through a [`LineIndex`]. Findings
//! are [`Diagnostic`]s, rendered by [`render`] in one of the [`Format`]s.

mod diagnostic;
mod diff;
mod fix;
mod render;
mod sources;

pub use diagnostic::{
    ByteRange, Diagnostic, Edit, Fix, Severity, COLLECT_ERROR, CONFIG_ERROR, CONFIG_WARNING,
};
pub use diff::unified_diff;
pub use fix::{apply_fixes, verify_fixes, FixedFile, RejectedFix};
pub use render::{render, render_styled, Format, RenderOptions, SarifRule};
pub use sources::{SourceFile, Sources};

/// Maps byte offsets of one source text to 1-based lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset at which each line starts; the first entry is always 0.
    line_starts: Vec<u32>,
}

/// A 1-based line and column, where the column counts Unicode scalar values
/// from the start of the line (as editors and pytest show them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct LineColumn {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column number.
    pub column: usize,
}

impl LineIndex {
    /// Builds the index of `text`. Lines end at `\n`, `\r\n` or a lone `\r`,
    /// like Python's tokenizer.
    #[must_use]
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        // Most files have no `\r`: then a search for `\n` alone (`memchr`'s,
        // many bytes at a time) finds every line.
        if memchr::memchr(b'\r', bytes).is_none() {
            let mut line_starts = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
            line_starts.push(0);
            line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| offset(i + 1)));
            return Self { line_starts };
        }
        let mut line_starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => line_starts.push(offset(i + 1)),
                b'\r' => {
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    line_starts.push(offset(i + 1));
                }
                _ => {}
            }
            i += 1;
        }
        Self { line_starts }
    }

    /// The 1-based line containing byte `offset`.
    #[must_use]
    pub fn line(&self, offset: u32) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line + 1,
            Err(next) => next,
        }
    }

    /// The 1-based line and column of byte `offset` in `text` (the text this
    /// index was built from).
    #[must_use]
    pub fn line_column(&self, text: &str, offset: u32) -> LineColumn {
        let line = self.line(offset);
        let start = self.line_starts[line - 1] as usize;
        let end = (offset as usize).min(text.len());
        let column = text
            .get(start..end)
            .map_or(end.saturating_sub(start), |s| s.chars().count())
            + 1;
        LineColumn { line, column }
    }

    /// The byte offset of `position` in `text` (the text this index was
    /// built from), clamped to the end of its line (and of the text).
    #[must_use]
    pub fn offset(&self, text: &str, position: LineColumn) -> usize {
        let Some(&start) = self.line_starts.get(position.line.wrapping_sub(1)) else {
            return text.len();
        };
        let line = self.line_text(text, position.line);
        let within = line
            .char_indices()
            .nth(position.column.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i);
        start as usize + within
    }

    /// The text of 1-based `line`, without its line ending.
    #[must_use]
    pub fn line_text<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line)
            .map_or(text.len(), |&e| e as usize);
        text.get(start as usize..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

fn offset(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        let text = "ab\ncdé\r\nx\ry";
        let index = LineIndex::new(text);
        assert_eq!(index.line(0), 1);
        assert_eq!(index.line(3), 2);
        assert_eq!(
            index.line_column(text, 5),
            LineColumn { line: 2, column: 3 }
        );
        assert_eq!(index.line(9), 3);
        assert_eq!(index.line(11), 4);
        assert_eq!(index.line_text(text, 2), "cdé");
        assert_eq!(index.line_text(text, 9), "");
        assert_eq!(index.offset(text, LineColumn { line: 2, column: 3 }), 5);
        assert_eq!(index.offset(text, LineColumn { line: 2, column: 9 }), 7);
        assert_eq!(index.offset(text, LineColumn { line: 4, column: 1 }), 11);
    }

    #[test]
    fn newline_only_text_has_the_same_lines() {
        let text = "ab\n\ncdé\nx\n";
        let index = LineIndex::new(text);
        assert_eq!(index.line_starts, [0, 3, 4, 9, 11]);
        assert_eq!(index.line_text(text, 3), "cdé");
        assert_eq!(LineIndex::new("").line_starts, [0]);
    }
}
