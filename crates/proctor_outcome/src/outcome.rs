//! How one test ended: [`Outcome`], with the word pytest prints for it and
//! the code the history stores it as.

use serde::{Deserialize, Serialize};

/// How one test ended, as pytest's terminal summary names it, plus the two
/// ends proctor adds when the pytest process does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The test passed.
    Passed,
    /// The test's call failed.
    Failed,
    /// Setup or teardown failed (pytest's `error`).
    Error,
    /// Skipped, by pytest or by proctor (a gate, an unmet need).
    Skipped,
    /// Expected to fail, and failed.
    Xfailed,
    /// Expected to fail, and passed.
    Xpassed,
    /// The pytest process died while the test was running (segfault,
    /// `os._exit`, OOM kill).
    Crashed,
    /// The test ran longer than `--timeout` and its process was killed.
    TimedOut,
}

impl Outcome {
    /// Every outcome, in declaration order.
    pub const ALL: [Outcome; 8] = [
        Outcome::Passed,
        Outcome::Failed,
        Outcome::Error,
        Outcome::Skipped,
        Outcome::Xfailed,
        Outcome::Xpassed,
        Outcome::Crashed,
        Outcome::TimedOut,
    ];

    /// Whether the outcome fails the run (pytest's exit code 1).
    #[must_use]
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Outcome::Failed | Outcome::Error | Outcome::Crashed | Outcome::TimedOut
        )
    }

    /// The word pytest prints for it (`passed`, `failed`, ...).
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Error => "error",
            Outcome::Skipped => "skipped",
            Outcome::Xfailed => "xfailed",
            Outcome::Xpassed => "xpassed",
            Outcome::Crashed => "crashed",
            Outcome::TimedOut => "timed out",
        }
    }

    /// The text the history stores it as. The codes are part of the
    /// on-disk format: they never change, whatever the enum's names
    /// become.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Error => "error",
            Outcome::Skipped => "skipped",
            Outcome::Xfailed => "xfailed",
            Outcome::Xpassed => "xpassed",
            Outcome::Crashed => "crashed",
            Outcome::TimedOut => "timed-out",
        }
    }

    /// The outcome stored as `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Outcome> {
        Outcome::ALL
            .into_iter()
            .find(|outcome| outcome.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_distinct() {
        for outcome in Outcome::ALL {
            assert_eq!(Outcome::from_code(outcome.code()), Some(outcome));
        }
        let mut codes: Vec<_> = Outcome::ALL.into_iter().map(Outcome::code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), Outcome::ALL.len());
        assert_eq!(Outcome::from_code("timed out"), None);
    }
}
