//! One test's [`TestResult`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::Outcome;

/// A test's marker names: one list shared by every result with the same
/// names (a parametrized function's 10,000 calls hold one), since a run
/// keeps every result until its reports are written.
pub type MarkerNames = Arc<[String]>;

/// One test's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// The node id, as pytest prints it.
    pub nodeid: String,
    /// How it ended (after reruns: the last attempt's outcome, except that
    /// a test that passes on a rerun is `passed` and `flaky`).
    pub outcome: Outcome,
    /// Wall time of setup, call and teardown, in seconds (all attempts).
    pub duration: f64,
    /// The phase it ran in, when the run has phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The skip reason, or the xfail reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The failure's text (pytest's `longrepr`), the crash's or the
    /// timeout's explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The teardown's failure (pytest's `longrepr`) of a test whose own
    /// outcome is another: pytest counts it as an error besides that
    /// outcome (`1 passed, 1 error`) and lists it in `ERRORS` (`ERROR at
    /// teardown of test_x`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teardown_error: Option<String>,
    /// Captured output of the failing phase (stdout, stderr, log).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// Attempts made (1 without reruns).
    pub attempts: u32,
    /// Failed at first, passed on a rerun.
    #[serde(default)]
    pub flaky: bool,
    /// The item's markers (names), for reports grouped by tier.
    #[serde(default, skip_serializing_if = "no_names")]
    pub markers: MarkerNames,
    /// Its subtests (pytest's `subtests` fixture), in the order they ran:
    /// each one pytest reports besides the test.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subtests: Vec<Subtest>,
    /// Where a skip happened, as pytest's `-rs` summary shows it
    /// (`tests/test_x.py:12`, or just the file for a skip marker, which
    /// pytest folds per file); for the terminal only, not in the reports.
    #[serde(skip)]
    pub location: Option<String>,
}

/// One subtest of a test (`with subtests.test("msg", i=1):`), as pytest
/// reports it besides the test itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subtest {
    /// How pytest describes it: `[msg] (i=1)`, `(<subtest>)` without
    /// either.
    pub description: String,
    /// How it ended: passed, failed, skipped or xfailed.
    pub outcome: Outcome,
    /// What pytest's terminal counts it as (`failed`, `subtests passed`,
    /// `skipped`): empty for one it does not count (a passed or skipped
    /// subtest while subtests are quiet, pytest's default).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub counted_as: String,
    /// Its duration, in seconds.
    pub duration: f64,
    /// The skip or xfail reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The failure's text (pytest's `longrepr`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Where a skip happened, as `-rs` shows it; for the terminal only.
    #[serde(skip)]
    pub location: Option<String>,
}

impl TestResult {
    /// Whether this is a collector pytest skipped whole while importing it
    /// (a module-level `pytest.importorskip`): its node id names a file,
    /// and pytest counts it a skip but not a collected test.
    #[must_use]
    pub fn is_collector_skip(&self) -> bool {
        self.outcome == Outcome::Skipped && !self.nodeid.contains("::")
    }

    /// A result of one attempt, with no duration, reason, message, output
    /// or marker yet.
    #[must_use]
    pub fn new(nodeid: impl Into<String>, outcome: Outcome) -> TestResult {
        TestResult {
            nodeid: nodeid.into(),
            outcome,
            duration: 0.0,
            phase: None,
            reason: None,
            message: None,
            teardown_error: None,
            output: String::new(),
            attempts: 1,
            flaky: false,
            markers: MarkerNames::default(),
            subtests: Vec::new(),
            location: None,
        }
    }

    /// Folds a rerun's `attempt` into this result: one more attempt, its
    /// time added; a pass makes the test `passed` and flaky, anything
    /// else becomes the test's outcome, with its message and output.
    pub fn absorb_rerun(&mut self, attempt: &TestResult) {
        self.attempts += 1;
        self.duration += attempt.duration;
        self.teardown_error.clone_from(&attempt.teardown_error);
        if attempt.outcome == Outcome::Passed {
            self.outcome = Outcome::Passed;
            self.flaky = true;
        } else {
            self.outcome = attempt.outcome;
            self.message.clone_from(&attempt.message);
            self.output.clone_from(&attempt.output);
        }
    }
}

fn no_names(names: &MarkerNames) -> bool {
    names.is_empty()
}
