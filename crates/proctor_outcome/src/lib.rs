//! What a run produces, and what every consumer of a run reads: one
//! [`TestResult`] per test, its [`Outcome`], and the run's [`RunSummary`].
//! A leaf crate, so that the history and the reporters depend on these
//! types and not on the runner.

mod outcome;
mod result;
mod summary;

pub use outcome::Outcome;
pub use result::{MarkerNames, Subtest, TestResult};
pub use summary::RunSummary;
