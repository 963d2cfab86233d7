//! Why a report could not be read, or an area could not be compiled.

use std::path::PathBuf;

/// A coverage report that cannot be used; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The file does not exist.
    #[error("coverage report `{}` does not exist (create it with `coverage json` or `coverage xml`)", path.display())]
    Missing {
        /// The report's path.
        path: PathBuf,
    },
    /// The file exists but cannot be read.
    #[error("cannot read coverage report `{}`: {source}", path.display())]
    Read {
        /// The report's path.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not well-formed JSON or XML.
    #[error("malformed {format} in coverage report `{path}{location}`: {message}", path = path.display(), location = location(*line, *column))]
    Malformed {
        /// The report's path.
        path: PathBuf,
        /// `JSON` or `XML`.
        format: &'static str,
        /// The 1-based line of the error, when the parser gives one.
        line: Option<usize>,
        /// The 1-based column of the error, when the parser gives one.
        column: Option<usize>,
        /// The parser's message.
        message: String,
    },
    /// Well-formed, but not what coverage.py writes.
    #[error("coverage report `{}` is not a {expected} report: {reason}", path.display())]
    Shape {
        /// The report's path.
        path: PathBuf,
        /// What kind of report was expected.
        expected: &'static str,
        /// What is missing or wrong, in lowercase.
        reason: String,
    },
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(":{line}:{column}"),
        (Some(line), None) => format!(":{line}"),
        _ => String::new(),
    }
}

/// An area that cannot be matched against a report.
#[derive(Debug, thiserror::Error)]
pub enum AreaError {
    /// One of its globs is invalid.
    #[error("area `{area}`: invalid glob `{glob}`: {message}")]
    Glob {
        /// The area's name.
        area: String,
        /// The glob as written.
        glob: String,
        /// What globset said.
        message: String,
    },
}
