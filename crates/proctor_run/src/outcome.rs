//! One test's reports (setup, call, teardown) folded into its
//! [`TestResult`], the way pytest's terminal summary counts them.

use crate::protocol::Report;
use proctor_outcome::{Outcome, Subtest, TestResult};

/// The result of a test from its reports, in the order pytest sent them,
/// with its subtests' reports.
pub(crate) fn fold(nodeid: &str, reports: &[Report], subtests: &[Report]) -> TestResult {
    let mut result = TestResult {
        duration: reports.iter().map(|r| r.duration).sum(),
        ..TestResult::new(nodeid, Outcome::Passed)
    };
    let mut outcome: Option<Outcome> = None;
    for report in reports {
        let failed = report.outcome == "failed";
        let skipped = report.outcome == "skipped";
        match report.when.as_str() {
            // A failing teardown is an error pytest counts next to the
            // test's outcome (`1 passed, 1 error`).
            "teardown" if failed => {
                result.teardown_error = Some(report.longrepr.clone().unwrap_or_default());
                continue;
            }
            "setup" if failed => outcome = Some(Outcome::Error),
            "setup" | "call" if skipped && report.wasxfail.is_some() => {
                outcome = Some(Outcome::Xfailed);
                result.reason.clone_from(&report.wasxfail);
            }
            "setup" | "call" if skipped => {
                outcome = Some(Outcome::Skipped);
                result.reason.clone_from(&report.reason);
                result.location = skip_location(report);
            }
            "call" if failed => outcome = Some(Outcome::Failed),
            "call" if report.wasxfail.is_some() => {
                outcome = Some(Outcome::Xpassed);
                result.reason.clone_from(&report.wasxfail);
            }
            "call" => outcome = outcome.or(Some(Outcome::Passed)),
            _ => {}
        }
        if failed && result.message.is_none() {
            result.message.clone_from(&report.longrepr);
            result.output = report
                .sections
                .iter()
                .map(|(name, content)| format!("----- {name} -----\n{content}"))
                .collect::<Vec<_>>()
                .join("\n");
        }
    }
    result.outcome = outcome.unwrap_or(Outcome::Passed);
    result.subtests = subtests.iter().map(subtest).collect();
    result
}

/// A subtest from its report (a `call` report, as pytest makes it).
fn subtest(report: &Report) -> Subtest {
    let outcome = match (report.outcome.as_str(), report.wasxfail.is_some()) {
        ("failed", _) => Outcome::Failed,
        ("skipped", true) => Outcome::Xfailed,
        ("skipped", false) => Outcome::Skipped,
        _ => Outcome::Passed,
    };
    Subtest {
        description: report.description.clone().unwrap_or_default(),
        outcome,
        counted_as: report.category.clone().unwrap_or_default(),
        duration: report.duration,
        reason: report.wasxfail.clone().or_else(|| report.reason.clone()),
        message: report.longrepr.clone(),
        location: skip_location(report),
    }
}

/// A skip's place as `-rs` shows it: `path:line`, or the path alone.
fn skip_location(report: &Report) -> Option<String> {
    report.location.as_ref().map(|(path, line)| match line {
        Some(line) => format!("{path}:{line}"),
        None => path.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(when: &str, outcome: &str) -> Report {
        Report {
            when: when.into(),
            outcome: outcome.into(),
            duration: 0.5,
            longrepr: (outcome == "failed").then(|| "assert 1 == 2".into()),
            reason: (outcome == "skipped").then(|| "no GPU".into()),
            wasxfail: None,
            sections: Vec::new(),
            location: None,
            description: None,
            category: None,
        }
    }

    #[test]
    fn reports_fold_as_pytest_counts_them() {
        let passed = fold(
            "t",
            &[
                report("setup", "passed"),
                report("call", "passed"),
                report("teardown", "passed"),
            ],
            &[],
        );
        assert_eq!((passed.outcome, passed.duration), (Outcome::Passed, 1.5));
        let failed = fold(
            "t",
            &[
                report("setup", "passed"),
                report("call", "failed"),
                report("teardown", "passed"),
            ],
            &[],
        );
        assert_eq!(
            (failed.outcome, failed.message.as_deref()),
            (Outcome::Failed, Some("assert 1 == 2"))
        );
        let error = fold(
            "t",
            &[report("setup", "failed"), report("teardown", "passed")],
            &[],
        );
        assert_eq!(error.outcome, Outcome::Error);
        let skipped = fold(
            "t",
            &[report("setup", "skipped"), report("teardown", "passed")],
            &[],
        );
        assert_eq!(
            (skipped.outcome, skipped.reason.as_deref()),
            (Outcome::Skipped, Some("no GPU"))
        );
        let teardown = fold(
            "t",
            &[
                report("setup", "passed"),
                report("call", "passed"),
                report("teardown", "failed"),
            ],
            &[],
        );
        assert_eq!(
            (teardown.outcome, teardown.teardown_error.is_some()),
            (Outcome::Passed, true)
        );
        let mut xfail = report("call", "skipped");
        xfail.wasxfail = Some("bug 12".into());
        assert_eq!(
            fold("t", &[report("setup", "passed"), xfail], &[]).outcome,
            Outcome::Xfailed
        );
        let mut xpass = report("call", "passed");
        xpass.wasxfail = Some(String::new());
        assert_eq!(
            fold("t", &[report("setup", "passed"), xpass], &[]).outcome,
            Outcome::Xpassed
        );
    }
}
