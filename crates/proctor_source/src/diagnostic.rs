//! The one diagnostic type every check produces, with the fixes it may
//! carry. Locations are 1-based lines and columns, as users see them; the
//! renderers in [`crate::render`] turn a list of diagnostics into text.

use serde::Serialize;

use crate::LineColumn;

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
