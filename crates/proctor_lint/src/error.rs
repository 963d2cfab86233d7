//! Errors of the lint engine's inputs.

/// Why a check could not start.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LintError {
    /// A `--select` or `--ignore` value that names no rule.
    #[error("unknown rule selector `{0}`: no rule code starts with it (see `proctor rule --all`)")]
    UnknownSelector(String),
}
