//! Exit codes, following pytest's where the meaning is the same.

/// Everything was collected.
pub(crate) const OK: u8 = 0;
/// Collection errors (pytest's "interrupted").
pub(crate) const INTERRUPTED: u8 = 2;
/// Bad usage or configuration (pytest's `USAGE_ERROR`).
pub(crate) const USAGE: u8 = 4;
/// No tests were collected (pytest's `NO_TESTS_COLLECTED`).
pub(crate) const NO_TESTS: u8 = 5;
