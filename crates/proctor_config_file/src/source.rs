//! Reading configuration files the way Python's `open(…, encoding="utf-8")` does,
//! and turning byte offsets into lines and columns.

use std::path::{Path, PathBuf};

use proctor_source::SourceFile;

use crate::error::{ConfigError, ConfigLocation};

/// One configuration file: its path and its text (after universal-newline
/// translation) with `proctor_source`'s line index, shared with the lint
/// renderers, so that locating each of many problems is a search.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The file, as it was named.
    pub path: PathBuf,
    /// Its text and line index.
    pub source: SourceFile,
}

impl ConfigFile {
    /// Reads `path` as strict UTF-8 and translates `\r\n` and `\r` to `\n`, as
    /// Python's text mode does before pytest's parsers see the text.
    pub fn read(path: &Path) -> Result<ConfigFile, ConfigError> {
        let bytes = std::fs::read(path)
            .map_err(|err| ConfigError::whole(path, format!("cannot read the file: {err}")))?;
        match String::from_utf8(bytes) {
            Ok(text) => Ok(ConfigFile::new(path, &text)),
            Err(err) => {
                let valid = err.utf8_error().valid_up_to();
                let prefix = String::from_utf8_lossy(&err.as_bytes()[..valid]).into_owned();
                let partial = ConfigFile::new(path, &prefix);
                Err(partial.error_at(
                    partial.text().len(),
                    "the file is not valid UTF-8, which pytest requires",
                ))
            }
        }
    }

    /// A file from its text (for tests and pseudo-files).
    #[must_use]
    pub fn new(path: &Path, text: &str) -> ConfigFile {
        ConfigFile {
            path: path.to_path_buf(),
            source: SourceFile::new(translate_newlines(text)),
        }
    }

    /// The text, after newline translation.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.source.text
    }

    /// The 1-based line and column of a byte offset.
    #[must_use]
    pub fn location(&self, offset: usize) -> ConfigLocation {
        let text = self.text();
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let at = self
            .source
            .index
            .line_column(text, u32::try_from(offset).unwrap_or(u32::MAX));
        ConfigLocation {
            line: at.line,
            column: at.column,
        }
    }

    /// The text of a 1-based line, without its line ending.
    #[must_use]
    pub fn line_text(&self, line: usize) -> Option<&str> {
        if line == 0 || line > self.source.line_count() {
            return None;
        }
        Some(self.source.line(line))
    }

    /// An error at a byte offset, with the source line as excerpt.
    #[must_use]
    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> ConfigError {
        self.error_at_location(self.location(offset), message)
    }

    /// An error at a line and column, with the source line as excerpt.
    #[must_use]
    pub fn error_at_location(
        &self,
        location: ConfigLocation,
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
        let source = ConfigFile::new(Path::new("f"), "ab\r\nçd = 1\n");
        assert_eq!(source.location(0), ConfigLocation { line: 1, column: 1 });
        // After translation the text is "ab\nçd = 1\n"; 'd' is at byte 5.
        assert_eq!(source.location(5), ConfigLocation { line: 2, column: 2 });
        assert_eq!(source.line_text(2), Some("çd = 1"));
    }

    #[test]
    fn invalid_utf8_points_at_the_first_bad_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tox.ini");
        std::fs::write(&path, b"[pytest]\nx = \xff\n").unwrap();
        let error = ConfigFile::read(&path).unwrap_err();
        assert_eq!((error.line, error.column), (2, 5));
        assert!(error.message.contains("not valid UTF-8"));
    }
}
