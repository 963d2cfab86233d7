//! Errors and warnings that point at a place in a configuration file.
//!
//! Both render as `path:line:column: message`; an error can carry the source line
//! it points at, which is then shown under the message with a caret.

use std::fmt;
use std::path::{Path, PathBuf};

use proctor_source::{Diagnostic, LineColumn, Severity, CONFIG_ERROR, CONFIG_WARNING};

/// A 1-based line and column (counted in characters) in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConfigLocation {
    /// The line, starting at 1.
    pub line: usize,
    /// The column in characters, starting at 1.
    pub column: usize,
}

impl ConfigLocation {
    /// The start of a file, used where an error concerns a whole file.
    pub const START: ConfigLocation = ConfigLocation { line: 1, column: 1 };
}

/// The text appended to messages whose position is only nominal (`1:1`).
pub const NO_POSITION: &str = " (no position in the file: reported at 1:1)";

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
    /// The problems found after this one in the same file, in file order:
    /// a configuration with several mistakes reports them all at once.
    pub more: Vec<ConfigError>,
}

impl ConfigError {
    /// An error at a known position, with the source line as excerpt.
    pub fn at(
        path: &Path,
        location: ConfigLocation,
        message: impl Into<String>,
        excerpt: Option<&str>,
    ) -> Self {
        ConfigError {
            path: path.to_path_buf(),
            line: location.line,
            column: location.column,
            message: message.into(),
            excerpt: excerpt.map(str::to_owned),
            more: Vec::new(),
        }
    }

    /// An error that concerns a whole file or an argument, not a position in it.
    pub fn whole(path: &Path, message: impl Into<String>) -> Self {
        let mut message = message.into();
        message.push_str(NO_POSITION);
        ConfigError {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message,
            excerpt: None,
            more: Vec::new(),
        }
    }

    /// One error for `errors` (at least one): the first in file order,
    /// with the others, without repeats, in [`ConfigError::more`].
    pub fn all(mut errors: Vec<ConfigError>) -> ConfigError {
        errors.sort_by_key(ConfigError::location);
        errors.dedup_by(|a, b| a.location() == b.location() && a.message == b.message);
        let mut rest = errors.into_iter();
        let mut first = rest
            .next()
            .unwrap_or_else(|| ConfigError::whole(Path::new("?"), "an invalid configuration"));
        first.more = rest.collect();
        first
    }

    /// This error and the ones after it ([`ConfigError::more`]).
    pub fn iter(&self) -> impl Iterator<Item = &ConfigError> {
        std::iter::once(self).chain(&self.more)
    }

    /// The position as a [`ConfigLocation`].
    #[must_use]
    pub fn location(&self) -> ConfigLocation {
        ConfigLocation {
            line: self.line,
            column: self.column,
        }
    }
}

impl ConfigError {
    /// The error as a [`Diagnostic`] (code `config-error`), so that it is
    /// rendered in every output format like a lint finding. `file` is how
    /// the path is shown (relative to the working directory, say).
    #[must_use]
    pub fn to_diagnostic(&self, file: String) -> Diagnostic {
        point(
            CONFIG_ERROR,
            Severity::Error,
            &self.message,
            file,
            self.location(),
        )
    }
}

impl ConfigWarning {
    /// The warning as a [`Diagnostic`] (code `config-warning`).
    #[must_use]
    pub fn to_diagnostic(&self, file: String) -> Diagnostic {
        let at = ConfigLocation {
            line: self.line,
            column: self.column,
        };
        point(CONFIG_WARNING, Severity::Warning, &self.message, file, at)
    }
}

/// A diagnostic at one character.
fn point(
    code: &'static str,
    severity: Severity,
    message: &str,
    file: String,
    at: ConfigLocation,
) -> Diagnostic {
    let start = LineColumn {
        line: at.line,
        column: at.column,
    };
    let end = LineColumn {
        line: at.line,
        column: at.column + 1,
    };
    Diagnostic::new(code, severity, message.to_owned(), file, start, end)
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
        for more in &self.more {
            write!(f, "\n{more}")?;
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
            ConfigLocation {
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
    fn errors_render_in_every_format_with_their_position() {
        use proctor_source::{render, Format, Sources};
        let text = "[check]\nselect = 1\n\n[axes.tier]\nmarkers = 2\ncolor = 3\n";
        let mut sources = Sources::default();
        sources.insert("proctor.toml", text.to_owned());
        let at = |line, column, message: &str| {
            ConfigError::at(
                Path::new("proctor.toml"),
                ConfigLocation { line, column },
                message,
                None,
            )
            .to_diagnostic("proctor.toml".to_owned())
        };
        let errors = [
            at(2, 10, "invalid type: integer `1`, expected a sequence"),
            at(5, 11, "invalid type: integer `2`, expected a sequence"),
            at(6, 1, "unknown field `color`"),
        ];
        for format in [
            Format::Full,
            Format::Concise,
            Format::Json,
            Format::Github,
            Format::Sarif,
        ] {
            let out = render(format, &errors, &sources);
            for (line, column) in [(2, 10), (5, 11), (6, 1)] {
                let needle = match format {
                    Format::Full | Format::Concise => {
                        format!("proctor.toml:{line}:{column}: config-error")
                    }
                    Format::Json => format!("\"line\": {line},\n      \"column\": {column}"),
                    Format::Github => format!("file=proctor.toml,line={line},col={column},"),
                    Format::Sarif => format!(
                        "\"startLine\": {line},\n                  \"startColumn\": {column}"
                    ),
                };
                assert!(out.contains(&needle), "{format:?} lacks {needle}:\n{out}");
            }
        }
        let full = render(Format::Full, &errors[2..], &sources);
        assert!(full.contains("6 | color = 3\n  | ^ config-error"), "{full}");
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
