//! Errors of the lint engine's inputs.

/// Why a check could not start.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LintError {
    /// A `--select` or `--ignore` value that names no rule.
    #[error("unknown rule selector `{0}`: no rule code starts with it (see `proctor rule --all`)")]
    UnknownSelector(String),
    /// A `per-file-ignores` pattern that is not a valid glob.
    #[error("invalid `per-file-ignores` pattern `{pattern}`: {reason}")]
    BadPattern {
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A baseline file that cannot be read back.
    #[error("invalid baseline: {0}")]
    BadBaseline(String),
}
