//! What a run produces: one [`TestResult`] per test, the [`Event`]s that
//! lead to them, and the [`RunSummary`]. Reporters (terminal, JSON, `JUnit`,
//! HTML) and the history store read only these types.

use std::collections::BTreeMap;

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
}

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
    /// Captured output of the failing phase (stdout, stderr, log).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// Attempts made (1 without reruns).
    pub attempts: u32,
    /// Failed at first, passed on a rerun.
    #[serde(default)]
    pub flaky: bool,
    /// The item's markers (names), for reports grouped by tier.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<String>,
    /// Where a skip happened, as pytest's `-rs` summary shows it
    /// (`tests/test_x.py:12`, or just the file for a skip marker, which
    /// pytest folds per file); for the terminal only, not in the reports.
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
            output: String::new(),
            attempts: 1,
            flaky: false,
            markers: Vec::new(),
            location: None,
        }
    }
}

/// What the runner reports as it goes, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A pytest process starts (one per phase, and again after a crash).
    ProcessStarted {
        /// The phase, when the run has phases.
        phase: Option<String>,
        /// The command line, for `--verbose`.
        command: Vec<String>,
    },
    /// pytest collected, proctor decided: how many run, skip, deselect.
    Collected {
        /// Items pytest collected in this process.
        collected: usize,
        /// Items proctor deselected.
        deselected: usize,
        /// Items proctor marked skipped (gates, needs).
        skipped: usize,
    },
    /// pytest is about to run the first test of another module (sent only
    /// with `PhaseOptions::module_sync`; pytest waits until the handler
    /// returns, so hooks between modules run in between).
    ModuleStarting {
        /// The module's path, as in node ids.
        module: String,
    },
    /// A test starts.
    TestStarted {
        /// Its node id.
        nodeid: String,
    },
    /// A test ended (after any reruns).
    TestFinished(TestResult),
    /// Something the user should know (drift between the static model and
    /// pytest, a rerun, a restarted process).
    Note {
        /// The message.
        message: String,
    },
}

/// A run's totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Tests by outcome.
    pub counts: BTreeMap<Outcome, usize>,
    /// Tests deselected by the selection.
    pub deselected: usize,
    /// Tests that passed on a rerun.
    pub flaky: usize,
    /// Wall time of the whole run, in seconds.
    pub duration: f64,
    /// pytest's exit code for the run: 0 all passed, 1 some failed, 2
    /// interrupted, 3 internal error, 4 usage error, 5 no tests.
    pub exit_code: i32,
}

impl RunSummary {
    /// Totals of `results`, with pytest's exit code.
    #[must_use]
    pub fn of(
        results: &[TestResult],
        deselected: usize,
        duration: f64,
        interrupted: bool,
    ) -> RunSummary {
        let mut counts = BTreeMap::new();
        for result in results {
            *counts.entry(result.outcome).or_insert(0) += 1;
        }
        let flaky = results.iter().filter(|r| r.flaky).count();
        let exit_code = if interrupted {
            2
        } else if results.iter().any(|r| r.outcome.is_failure()) {
            1
        } else if results.iter().all(TestResult::is_collector_skip) {
            // A module skipped whole is not a test pytest collected.
            5
        } else {
            0
        };
        RunSummary {
            counts,
            deselected,
            flaky,
            duration,
            exit_code,
        }
    }

    /// `3 passed, 1 failed, 2 skipped, 1 deselected in 1.20s`, as pytest
    /// writes it.
    #[must_use]
    pub fn line(&self) -> String {
        let order = [
            Outcome::Failed,
            Outcome::Passed,
            Outcome::Skipped,
            Outcome::Xfailed,
            Outcome::Xpassed,
            Outcome::Error,
            Outcome::Crashed,
            Outcome::TimedOut,
        ];
        let mut parts: Vec<String> = Vec::new();
        for outcome in order {
            if let Some(&n) = self.counts.get(&outcome).filter(|&&n| n > 0) {
                let word = match (outcome, n) {
                    (Outcome::Error, 1) => "error".to_owned(),
                    (Outcome::Error, _) => "errors".to_owned(),
                    (other, _) => other.word().to_owned(),
                };
                parts.push(format!("{n} {word}"));
            }
        }
        if self.flaky > 0 {
            parts.push(format!("{} flaky", self.flaky));
        }
        if self.deselected > 0 {
            parts.push(format!("{} deselected", self.deselected));
        }
        if parts.is_empty() {
            parts.push("no tests ran".to_owned());
        }
        format!("{} in {:.2}s", parts.join(", "), self.duration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(nodeid: &str, outcome: Outcome) -> TestResult {
        TestResult::new(nodeid, outcome)
    }

    #[test]
    fn summary_reads_like_pytest() {
        let results = [
            result("a", Outcome::Passed),
            result("b", Outcome::Failed),
            result("c", Outcome::Skipped),
            result("d", Outcome::Error),
        ];
        let summary = RunSummary::of(&results, 2, 1.234, false);
        assert_eq!(
            summary.line(),
            "1 failed, 1 passed, 1 skipped, 1 error, 2 deselected in 1.23s"
        );
        assert_eq!(summary.exit_code, 1);
        assert_eq!(RunSummary::of(&[], 3, 0.0, false).exit_code, 5);
        assert_eq!(
            RunSummary::of(&[result("test_gpu.py", Outcome::Skipped)], 3, 0.0, false).exit_code,
            5
        );
        assert_eq!(
            RunSummary::of(&[result("a", Outcome::Crashed)], 0, 0.0, false).exit_code,
            1
        );
        assert_eq!(
            RunSummary::of(&[result("a", Outcome::Passed)], 0, 0.0, true).exit_code,
            2
        );
    }
}
