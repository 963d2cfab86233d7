//! A run's totals: [`RunSummary`], and the line pytest ends its output
//! with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Outcome, TestResult};

/// A run's totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Tests by outcome.
    pub counts: BTreeMap<Outcome, usize>,
    /// Tests deselected by the selection.
    pub deselected: usize,
    /// Tests that passed on a rerun.
    pub flaky: usize,
    /// Subtests pytest counts under a category of their own (`subtests
    /// passed`); those it counts as `failed` or `skipped` are in `counts`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub subtests: BTreeMap<String, usize>,
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
        let mut subtests = BTreeMap::new();
        for result in results {
            *counts.entry(result.outcome).or_insert(0) += 1;
            // A failed teardown is an error of its own, as pytest counts it.
            if result.teardown_error.is_some() {
                *counts.entry(Outcome::Error).or_insert(0) += 1;
            }
            // Each subtest in the category pytest's terminal gives it.
            for subtest in &result.subtests {
                match Outcome::ALL
                    .into_iter()
                    .find(|o| o.word() == subtest.counted_as)
                {
                    Some(outcome) => *counts.entry(outcome).or_insert(0) += 1,
                    None if subtest.counted_as.is_empty() => {}
                    None => *subtests.entry(subtest.counted_as.clone()).or_insert(0) += 1,
                }
            }
        }
        let flaky = results.iter().filter(|r| r.flaky).count();
        let exit_code = if interrupted {
            2
        } else if results
            .iter()
            .any(|r| r.outcome.is_failure() || r.teardown_error.is_some())
        {
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
            subtests,
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
        // pytest's categories of its own come after those it knows.
        for (category, n) in &self.subtests {
            parts.push(format!("{n} {category}"));
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

    #[test]
    fn subtests_count_as_pytest_counts_them() {
        let subtest = |outcome, counted_as: &str| crate::Subtest {
            description: "[x]".to_owned(),
            outcome,
            counted_as: counted_as.to_owned(),
            duration: 0.0,
            reason: None,
            message: None,
            location: None,
        };
        let mut mixed = result("t.py::mixed", Outcome::Failed);
        mixed.subtests = vec![
            subtest(Outcome::Passed, "subtests passed"),
            subtest(Outcome::Failed, "failed"),
            subtest(Outcome::Passed, "subtests passed"),
            subtest(Outcome::Skipped, ""),
        ];
        let summary = RunSummary::of(&[mixed, result("t.py::b", Outcome::Passed)], 0, 0.5, false);
        assert_eq!(
            summary.line(),
            "2 failed, 1 passed, 2 subtests passed in 0.50s"
        );
        assert_eq!(summary.exit_code, 1);
    }
}
