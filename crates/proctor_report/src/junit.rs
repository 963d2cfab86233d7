//! `JUnit` XML as pytest's `--junit-xml` writes it (family `xunit2`): one
//! `<testsuite>` in `<testsuites>`, one `<testcase>` per test result, with
//! proctor's markers, phase and reruns as `<property>` elements. The XML is
//! written by hand; everything that comes from tests is escaped.
//!
//! Why by hand and not with `quick-junit` (nextest's writer, 0.8): it
//! cannot write what pytest writes. Its `XmlString` strips tabs, carriage
//! returns and ANSI sequences from every string (pytest keeps tabs and
//! writes ESC as visible `#x1B`), it leaves newlines in attributes raw, so
//! a parser reads a multi-line skip reason as one line (pytest writes
//! `&#10;`), and it has one outcome per testcase, where pytest puts a
//! skip's `<skipped>` and its failed teardown's `<error>` in one. The
//! differential tests in `tests/differential.rs` hold each of these
//! against pytest's own `--junit-xml`.

use std::fmt::Write as _;

use proctor_outcome::{Outcome, RunSummary, Subtest, TestResult};

use crate::message::crash_line;
use crate::skips::skip_reason;
use crate::xml::{escape_attr, escape_text};

/// pytest's limit on a `message` attribute, in characters.
const MESSAGE_BUDGET: usize = 500;

/// The `JUnit` document for a run: `suite_name` names the `<testsuite>`
/// (pytest's `junit_suite_name`, `pytest` by default), `timestamp` is when
/// the run started (ISO-8601) and `hostname` the machine it ran on.
///
/// The suite's `errors` count errors, crashes and timeouts, `failures`
/// failed tests, `skipped` skipped and xfailed tests, and `tests` every
/// test, as pytest counts them.
#[must_use]
pub fn junit_xml(
    results: &[TestResult],
    summary: &RunSummary,
    suite_name: &str,
    timestamp: &str,
    hostname: &str,
) -> String {
    let count = |outcomes: &[Outcome]| -> usize {
        outcomes.iter().filter_map(|o| summary.counts.get(o)).sum()
    };
    let errors = count(&[Outcome::Error, Outcome::Crashed, Outcome::TimedOut]);
    let failures = count(&[Outcome::Failed]);
    let skipped = count(&[Outcome::Skipped, Outcome::Xfailed]);
    // pytest (9.2, `cnt_double_fail_tests`) counts a test whose teardown
    // failed after a setup or call that did not fail once less than its two
    // reports, as they share one testcase (pytest #3850); a failed call and
    // a failed teardown are two testcases, and both count.
    let shared = results
        .iter()
        .filter(|r| r.outcome != Outcome::Failed && r.teardown_error.is_some())
        .count();
    // pytest's junitxml counts every subtest report, whether or not its
    // terminal counts it (`subtests passed`, quiet skips).
    let uncounted =
        |subtest: &&Subtest| Outcome::ALL.iter().all(|o| o.word() != subtest.counted_as);
    let subtests = || results.iter().flat_map(|r| &r.subtests).filter(uncounted);
    let skipped = skipped
        + subtests()
            .filter(|s| matches!(s.outcome, Outcome::Skipped | Outcome::Xfailed))
            .count();
    let tests: usize = summary
        .counts
        .values()
        .sum::<usize>()
        .saturating_sub(shared)
        + subtests().count();

    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<testsuites name=\"pytest tests\">\n",
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" errors=\"{errors}\" failures=\"{failures}\" skipped=\"{skipped}\" tests=\"{tests}\" time=\"{:.3}\" timestamp=\"{}\" hostname=\"{}\">",
        escape_attr(suite_name),
        summary.duration,
        escape_attr(timestamp),
        escape_attr(hostname),
    );
    for result in results {
        let outcome = outcome_element(result);
        let teardown = result.teardown_error.as_deref().map(teardown_element);
        // Its subtests' failures and skips go first in its testcase, as
        // pytest reported them before it.
        let subtests = result.subtests.iter().filter_map(subtest_element);
        match (outcome, teardown) {
            // A failed call and a failed teardown: two testcases, as
            // pytest writes them to follow the JUnit schema.
            (Some(failure), Some(error)) if result.outcome == Outcome::Failed => {
                let elements: Vec<String> = subtests.chain([failure]).collect();
                write_testcase(&mut out, result, &elements, true);
                write_testcase(&mut out, result, &[error], false);
            }
            (outcome, teardown) => {
                let elements: Vec<String> = subtests.chain(outcome).chain(teardown).collect();
                write_testcase(&mut out, result, &elements, true);
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// The `classname` and `name` pytest gives a node id in `JUnit` XML: the
/// file path dotted and without `.py`, then the classes, joined by `.`;
/// the function's name with its parameter id, which may itself hold `::`
/// or `/`. `tests/unit/test_a.py::TestX::test_y[1]` gives
/// (`tests.unit.test_a.TestX`, `test_y[1]`).
#[must_use]
pub fn junit_names(nodeid: &str) -> (String, String) {
    let Some((path, tail)) = nodeid.split_once("::") else {
        return (String::new(), dotted_path(nodeid));
    };
    let (names, params) = match tail.split_once('[') {
        Some((names, params)) => (names, Some(params.strip_suffix(']').unwrap_or(params))),
        None => (tail, None),
    };
    let mut parts: Vec<String> = std::iter::once(dotted_path(path))
        .chain(names.split("::").map(str::to_owned))
        .collect();
    let mut name = parts.pop().unwrap_or_default();
    if let Some(params) = params {
        let _ = write!(name, "[{params}]");
    }
    (parts.join("."), name)
}

/// `tests/unit/test_a.py` as `tests.unit.test_a`.
fn dotted_path(path: &str) -> String {
    let dotted = path.replace('/', ".");
    match dotted.strip_suffix(".py") {
        Some(stem) => stem.to_owned(),
        None => dotted,
    }
}

/// One `<testcase>` with its outcome `elements`; `whole` adds the
/// result's properties and captured output (not on the second testcase of
/// a failed teardown).
fn write_testcase(out: &mut String, result: &TestResult, elements: &[String], whole: bool) {
    let (classname, name) = junit_names(&result.nodeid);
    let _ = write!(
        out,
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
        escape_attr(&classname),
        escape_attr(&name),
        result.duration
    );
    let properties = if whole {
        properties(result)
    } else {
        Vec::new()
    };
    let output = if whole { result.output.as_str() } else { "" };
    if properties.is_empty() && elements.is_empty() && output.is_empty() {
        out.push_str("/>\n");
        return;
    }
    out.push_str(">\n");
    if !properties.is_empty() {
        out.push_str("      <properties>\n");
        for (name, value) in properties {
            let _ = writeln!(
                out,
                "        <property name=\"{name}\" value=\"{}\"/>",
                escape_attr(&value)
            );
        }
        out.push_str("      </properties>\n");
    }
    for element in elements {
        out.push_str("      ");
        out.push_str(element);
        out.push('\n');
    }
    if !output.is_empty() {
        let _ = writeln!(
            out,
            "      <system-out>{}</system-out>",
            escape_text(output)
        );
    }
    out.push_str("    </testcase>\n");
}

/// `marker` per marker, then `phase`, `attempts` (after reruns) and
/// `flaky`.
fn properties(result: &TestResult) -> Vec<(&'static str, String)> {
    let mut properties: Vec<(&'static str, String)> = result
        .markers
        .iter()
        .map(|m| ("marker", m.clone()))
        .collect();
    if let Some(phase) = &result.phase {
        properties.push(("phase", phase.clone()));
    }
    if result.attempts > 1 {
        properties.push(("attempts", result.attempts.to_string()));
    }
    if result.flaky {
        properties.push(("flaky", "true".to_owned()));
    }
    properties
}

/// The `<failure>`, `<error>` or `<skipped>` element of a result, if its
/// outcome has one.
fn outcome_element(result: &TestResult) -> Option<String> {
    let text = result.message.as_deref().unwrap_or("");
    let line = crash_line(text);
    let with = |what: &str| {
        if line.is_empty() {
            what.to_owned()
        } else {
            format!("{what}: {line}")
        }
    };
    let (tag, message) = match result.outcome {
        Outcome::Passed | Outcome::Xpassed => return None,
        // A module pytest skipped whole while importing it: pytest's words,
        // the reason as the element's text.
        Outcome::Skipped if result.is_collector_skip() => {
            return Some(format!(
                "<skipped message=\"collection skipped\">{}</skipped>",
                escape_text(skip_reason(result))
            ));
        }
        Outcome::Skipped => return Some(skipped("pytest.skip", skip_reason(result))),
        Outcome::Xfailed => {
            let reason = result.reason.as_deref().unwrap_or("");
            return Some(skipped(
                "pytest.xfail",
                reason.strip_prefix("reason: ").unwrap_or(reason),
            ));
        }
        Outcome::Failed => ("failure", line.to_owned()),
        // pytest's words for a collector that failed (a module that does
        // not import), whose node id names a file.
        Outcome::Error if !result.nodeid.contains("::") => {
            ("error", "collection failure".to_owned())
        }
        Outcome::Error if line.is_empty() => ("error", "failed on setup".to_owned()),
        Outcome::Error => ("error", format!("failed on setup with \"{line}\"")),
        Outcome::Crashed => ("error", with("crashed")),
        Outcome::TimedOut => ("error", with("timed out")),
    };
    Some(format!(
        "<{tag} message=\"{}\">{}</{tag}>",
        escape_attr(&shorten(&message)),
        escape_text(text)
    ))
}

/// pytest's element for a subtest's report: a failure or a skip, nothing
/// for a pass.
fn subtest_element(subtest: &Subtest) -> Option<String> {
    let reason = subtest.reason.as_deref().unwrap_or("");
    match subtest.outcome {
        Outcome::Failed => {
            let text = subtest.message.as_deref().unwrap_or("");
            Some(format!(
                "<failure message=\"{}\">{}</failure>",
                escape_attr(&shorten(crash_line(text))),
                escape_text(text)
            ))
        }
        Outcome::Skipped => Some(skipped("pytest.skip", reason)),
        Outcome::Xfailed => Some(skipped(
            "pytest.xfail",
            reason.strip_prefix("reason: ").unwrap_or(reason),
        )),
        _ => None,
    }
}

/// pytest's `<error>` for a failed teardown.
fn teardown_element(report: &str) -> String {
    let line = crash_line(report);
    let message = if line.is_empty() {
        "failed on teardown".to_owned()
    } else {
        format!("failed on teardown with \"{line}\"")
    };
    format!(
        "<error message=\"{}\">{}</error>",
        escape_attr(&shorten(&message)),
        escape_text(report)
    )
}

fn skipped(kind: &str, reason: &str) -> String {
    format!(
        "<skipped type=\"{kind}\" message=\"{}\"/>",
        escape_attr(reason)
    )
}

/// `message` cut to pytest's budget for attributes; the element's text
/// keeps the whole report.
fn shorten(message: &str) -> String {
    if message.chars().count() <= MESSAGE_BUDGET {
        return message.to_owned();
    }
    let mut cut: String = message.chars().take(MESSAGE_BUDGET).collect();
    cut.push_str("...");
    cut
}
