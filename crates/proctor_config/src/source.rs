//! Reading configuration files the way Python's `open(…, encoding="utf-8")` does,
//! and turning byte offsets into lines and columns.

use std::path::{Path, PathBuf};

use crate::error::{ConfigError, Location};

/// The text of one configuration file, after universal-newline translation.
#[derive(Debug, Clone)]
pub(crate) struct SourceFile {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    /// The line index (`proctor_source`'s, shared with the lint renderers),
    /// built on the first [`SourceFile::location`]: locating each of many
    /// problems stays a search, not a count from the start of the file.
    line_starts: std::sync::OnceLock<proctor_source::LineIndex>,
}

impl SourceFile {
    /// Reads `path` as strict UTF-8 and translates `\r\n` and `\r` to `\n`, as
    /// Python's text mode does before pytest's parsers see the text.
    pub(crate) fn read(path: &Path) -> Result<SourceFile, ConfigError> {
        let bytes = std::fs::read(path)
            .map_err(|err| ConfigError::whole(path, format!("cannot read the file: {err}")))?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(err) => {
                let valid = err.utf8_error().valid_up_to();
                let prefix = String::from_utf8_lossy(&err.as_bytes()[..valid]).into_owned();
                let partial = SourceFile {
                    path: path.to_path_buf(),
                    text: translate_newlines(&prefix),
                    line_starts: std::sync::OnceLock::new(),
                };
                return Err(partial.error_at(
                    partial.text.len(),
                    "the file is not valid UTF-8, which pytest requires",
                ));
            }
        };
        Ok(SourceFile {
            path: path.to_path_buf(),
            text: translate_newlines(&text),
            line_starts: std::sync::OnceLock::new(),
        })
    }

    /// A source from a string, for tests and for pseudo-files.
    #[cfg(test)]
    pub(crate) fn from_text(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: PathBuf::from(path),
            text: translate_newlines(text),
            line_starts: std::sync::OnceLock::new(),
        }
    }

    /// The 1-based line and column of a byte offset.
    pub(crate) fn location(&self, offset: usize) -> Location {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let index = self
            .line_starts
            .get_or_init(|| proctor_source::LineIndex::new(&self.text));
        let at = index.line_column(&self.text, u32::try_from(offset).unwrap_or(u32::MAX));
        Location {
            line: at.line,
            column: at.column,
        }
    }

    /// The text of a 1-based line, without its line ending.
    pub(crate) fn line_text(&self, line: usize) -> Option<&str> {
        self.text.split('\n').nth(line.checked_sub(1)?)
    }

    /// An error at a byte offset, with the source line as excerpt.
    pub(crate) fn error_at(&self, offset: usize, message: impl Into<String>) -> ConfigError {
        self.error_at_location(self.location(offset), message)
    }

    /// An error at a line and column, with the source line as excerpt.
    pub(crate) fn error_at_location(
        &self,
        location: Location,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError::at(&self.path, location, message, self.line_text(location.line))
    }
}

/// Python's universal newlines: `\r\n` and lone `\r` become `\n`.
fn translate_newlines(text: &str) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_owned()
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_one_based_and_count_characters() {
        let source = SourceFile::from_text("f", "ab\r\nçd = 1\n");
        assert_eq!(source.location(0), Location { line: 1, column: 1 });
        // After translation the text is "ab\nçd = 1\n"; 'd' is at byte 5.
        assert_eq!(source.location(5), Location { line: 2, column: 2 });
        assert_eq!(source.line_text(2), Some("çd = 1"));
    }

    #[test]
    fn invalid_utf8_points_at_the_first_bad_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tox.ini");
        std::fs::write(&path, b"[pytest]\nx = \xff\n").unwrap();
        let error = SourceFile::read(&path).unwrap_err();
        assert_eq!((error.line, error.column), (2, 5));
        assert!(error.message.contains("not valid UTF-8"));
    }
}
