//! The one diagnostic type every check produces (lint findings, config
//! errors, collection errors), with the fixes it may carry. A diagnostic
//! keeps the byte range of its file it is about, when the file's text is
//! known, and the 1-based lines and columns users see; the renderers in
//! [`crate::render`] turn a list of diagnostics into text.

use serde::Serialize;

use crate::{LineColumn, SourceFile};

/// A half-open range of bytes in one file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ByteRange {
    /// The first byte.
    pub start: u32,
    /// The byte after the last one.
    pub end: u32,
}

impl ByteRange {
    /// The number of bytes.
    #[must_use]
    pub fn len(self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    /// Whether the range is empty.
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

/// The code of diagnostics that report a configuration proctor or pytest
/// refuses (they are not lint rules: they cannot be selected or ignored).
pub const CONFIG_ERROR: &str = "config-error";
/// The code of diagnostics that report a configuration that works but
/// probably not as meant.
pub const CONFIG_WARNING: &str = "config-warning";
/// The code of diagnostics that report a file static collection could not
/// read or parse.
pub const COLLECT_ERROR: &str = "collect-error";

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something the suite must change.
    Error,
    /// Something the suite should change.
    Warning,
    /// Something worth knowing that needs no change.
    Info,
}

impl Severity {
    /// The lowercase name (`error`, `warning`, `info`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One finding: a code, a message and the range of source it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The stable code of the rule (`PRC004`).
    pub code: &'static str,
    /// What is wrong, as one sentence without a final period.
    pub message: String,
    /// The file, relative to the rootdir, `/`-separated.
    pub file: String,
    /// Where the range starts.
    pub start: LineColumn,
    /// Where the range ends (exclusive column).
    pub end: LineColumn,
    /// The same range in bytes of the file's text, when the text is known.
    pub range: Option<ByteRange>,
    /// How serious it is.
    pub severity: Severity,
    /// What to do about it, when there is more to say than the message.
    pub help: Option<String>,
    /// An automatic fix, when one is safe.
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// A diagnostic without help or fix.
    #[must_use]
    pub fn new(
        code: &'static str,
        severity: Severity,
        message: String,
        file: String,
        start: LineColumn,
        end: LineColumn,
    ) -> Self {
        Diagnostic {
            code,
            message,
            file,
            start,
            end,
            range: None,
            severity,
            help: None,
            fix: None,
        }
    }

    /// The same diagnostic with `help`.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// A diagnostic at the byte range `start..end` of `source` (the text
    /// of `file`), with lines and columns computed from it.
    #[must_use]
    pub fn at_range(
        code: &'static str,
        severity: Severity,
        message: String,
        file: String,
        source: &SourceFile,
        range: ByteRange,
    ) -> Self {
        let start = source.index.line_column(&source.text, range.start);
        let end = source.index.line_column(&source.text, range.end);
        let mut diagnostic = Diagnostic::new(code, severity, message, file, start, end);
        diagnostic.range = Some(range);
        diagnostic
    }

    /// Fills in [`Diagnostic::range`] from the lines and columns, given the
    /// text of the diagnostic's file.
    pub fn locate(&mut self, source: &SourceFile) {
        let offset = |position| {
            u32::try_from(source.index.offset(&source.text, position)).unwrap_or(u32::MAX)
        };
        let start = offset(self.start);
        self.range = Some(ByteRange {
            start,
            end: offset(self.end).max(start),
        });
    }

    /// The key diagnostics are sorted by: file, position, code.
    #[must_use]
    pub fn sort_key(&self) -> (&str, LineColumn, &str) {
        (&self.file, self.start, self.code)
    }
}

/// A set of edits that together resolve a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// What the fix does, in the imperative (`Remove the marker`).
    pub description: String,
    /// The edits, in any order; they never overlap.
    pub edits: Vec<Edit>,
}

/// Replaces a range of one file with new text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// The file, relative to the rootdir.
    pub file: String,
    /// Where the replaced range starts.
    pub start: LineColumn,
    /// Where it ends (exclusive).
    pub end: LineColumn,
    /// The new text (empty to delete).
    pub replacement: String,
}
