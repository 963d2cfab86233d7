//! Errors and warnings that point at a place in a configuration file.
//!
//! Both render as `path:line:column: message`; an error can carry the source line
//! it points at, which is then shown under the message with a caret.

use std::fmt;
use std::path::{Path, PathBuf};

/// A 1-based line and column (counted in characters) in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// The line, starting at 1.
    pub line: usize,
    /// The column in characters, starting at 1.
    pub column: usize,
}

impl Location {
    /// The start of a file, used where an error concerns a whole file.
    pub const START: Location = Location { line: 1, column: 1 };
}

/// The text appended to messages whose position is only nominal (`1:1`).
pub(crate) const NO_POSITION: &str = " (no position in the file: reported at 1:1)";

/// A configuration that pytest or proctor would refuse, with where it is wrong.
///
/// `line` and `column` are 1-based. When an error concerns a whole file (a
/// missing `-c` file, an unreadable file), the position is `1:1` and the message
/// says that the position is nominal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file at fault, or a pseudo-path such as `$PYTEST_ADDOPTS`.
    pub path: PathBuf,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column, in characters.
    pub column: usize,
    /// What is wrong, in lowercase where the message is proctor's own.
    pub message: String,
    /// The source line the position points into, without its line ending.
    pub excerpt: Option<String>,
}

impl ConfigError {
    /// An error at a known position, with the source line as excerpt.
    pub(crate) fn at(
        path: &Path,
        location: Location,
        message: impl Into<String>,
        excerpt: Option<&str>,
    ) -> Self {
        ConfigError {
            path: path.to_path_buf(),
            line: location.line,
            column: location.column,
            message: message.into(),
            excerpt: excerpt.map(str::to_owned),
        }
    }

    /// An error that concerns a whole file or an argument, not a position in it.
    pub(crate) fn whole(path: &Path, message: impl Into<String>) -> Self {
        let mut message = message.into();
        message.push_str(NO_POSITION);
        ConfigError {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message,
            excerpt: None,
        }
    }

    /// The position as a [`Location`].
    #[must_use]
    pub fn location(&self) -> Location {
        Location {
            line: self.line,
            column: self.column,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.message
        )?;
        if let Some(excerpt) = &self.excerpt {
            let number = self.line.to_string();
            let gutter = " ".repeat(number.len());
            // Keep tabs so that the caret lines up under the same character.
            let pad: String = excerpt
                .chars()
                .take(self.column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(f, "\n{gutter} |\n{number} | {excerpt}\n{gutter} | {pad}^")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// A configuration that works but probably not as its author meant, such as a
/// `[tool.pytest.ini_options]` table that pytest ignores because `pytest.ini`
/// wins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The file the warning is about.
    pub path: PathBuf,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column, in characters.
    pub column: usize,
    /// What is suspicious.
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_with_excerpt_puts_caret_under_column() {
        let error = ConfigError::at(
            Path::new("pytest.ini"),
            Location {
                line: 12,
                column: 3,
            },
            "unexpected line: 'x'",
            Some("\tab x"),
        );
        assert_eq!(
            error.to_string(),
            "pytest.ini:12:3: unexpected line: 'x'\n   |\n12 | \tab x\n   | \t ^"
        );
    }

    #[test]
    fn whole_file_errors_say_their_position_is_nominal() {
        let error = ConfigError::whole(Path::new("x.ini"), "config file not found");
        assert_eq!(
            error.to_string(),
            "x.ini:1:1: config file not found (no position in the file: reported at 1:1)"
        );
    }
}
