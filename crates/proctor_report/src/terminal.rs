//! The end-of-run text of `proctor run`, laid out as pytest's terminal
//! summary (failures, short test summary info, the closing stats rule), and
//! the one-line live progress status.

use std::collections::BTreeMap;

use proctor_outcome::{Outcome, RunSummary, TestResult};

use crate::ansi::{paint, rule, Style};
use crate::message::crash_line;
use crate::skips::skip_groups;

/// What the terminal summary shows, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryOptions {
    /// Width of the `=` rules, in characters (pytest's terminal width).
    pub width: usize,
    /// Show `SKIPPED [N] reason` and `XFAIL` lines (pytest's `-rsx`).
    pub show_skips: bool,
    /// Show a `PASSES` section with the captured output of passed tests
    /// (pytest's `-rP`).
    pub show_passed_output: bool,
    /// Color words and rules with ANSI escapes as pytest does.
    pub color: bool,
    /// Attempts allowed per test (reruns + 1), shown in `FLAKY` lines.
    pub max_attempts: Option<u32>,
    /// pytest's resolved `-r` characters (`fE`, `sxXEf` for `-ra`): the
    /// short summary lists these kinds in this order, skips folded by
    /// place and reason as pytest folds them. `None`: skips (when
    /// `show_skips`), xfails, xpasses, then every failing outcome.
    pub chars: Option<String>,
}

impl Default for SummaryOptions {
    fn default() -> Self {
        SummaryOptions {
            width: 80,
            show_skips: true,
            show_passed_output: false,
            color: false,
            max_attempts: None,
            chars: None,
        }
    }
}

/// The summary pytest would print at the end of the run: a `FAILURES`
/// section, a `PASSES` section when asked, the short test summary info and
/// the closing `==== 1 failed, 3 passed in 1.20s ====` rule. Every line,
/// the last included, ends with a newline.
#[must_use]
pub fn summary(results: &[TestResult], summary: &RunSummary, options: &SummaryOptions) -> String {
    let mut out = String::new();
    errors_section(&mut out, results, options);
    failures_section(&mut out, results, options);
    if options.show_passed_output {
        passes_section(&mut out, results, options);
    }
    let lines = short_summary_lines(results, options);
    if !lines.is_empty() {
        let header = rule('=', "short test summary info", options.width);
        push_line(
            &mut out,
            &paint(&header, &[Style::Cyan, Style::Bold], options.color),
        );
        for line in lines {
            push_line(&mut out, &line);
        }
    }
    let stats = rule('=', &summary.line(), options.width);
    push_line(
        &mut out,
        &paint(&stats, &[main_style(summary), Style::Bold], options.color),
    );
    out
}

/// A live status line: `[ 42/120] 40 passed, 1 failed, 1 skipped`, counts
/// in [`Outcome`] order, outcomes with no test left out.
#[must_use]
pub fn progress_line(done: usize, total: usize, counts: &BTreeMap<Outcome, usize>) -> String {
    let digits = total.to_string().len();
    let mut line = format!("[{done:>digits$}/{total}]");
    let parts: Vec<String> = counts
        .iter()
        .filter(|(_, &n)| n > 0)
        .map(|(&outcome, &n)| count_text(outcome, n))
        .collect();
    if !parts.is_empty() {
        line.push(' ');
        line.push_str(&parts.join(", "));
    }
    line
}

/// `3 passed`, `1 error`, `2 errors`, as pytest counts.
fn count_text(outcome: Outcome, n: usize) -> String {
    match (outcome, n) {
        (Outcome::Error, 1) => "1 error".to_owned(),
        (Outcome::Error, _) => format!("{n} errors"),
        (other, _) => format!("{n} {}", other.word()),
    }
}

/// The color of the closing rule: red when the run failed, green when
/// something passed and nothing needs a look, yellow otherwise (pytest's
/// main color; flaky tests count as pytest's warnings).
fn main_style(summary: &RunSummary) -> Style {
    let has = |outcome: Outcome| summary.counts.get(&outcome).is_some_and(|&n| n > 0);
    if [
        Outcome::Failed,
        Outcome::Error,
        Outcome::Crashed,
        Outcome::TimedOut,
    ]
    .into_iter()
    .any(has)
    {
        Style::Red
    } else if has(Outcome::Xpassed) || summary.flaky > 0 || !has(Outcome::Passed) {
        Style::Yellow
    } else {
        Style::Green
    }
}

/// Whether a result is a collector's error (a module that does not
/// import): its node id names a file or directory, not a test.
fn is_collect_error(result: &TestResult) -> bool {
    result.outcome == Outcome::Error && !result.nodeid.contains("::")
}

/// The test's name as pytest titles its sections (`report.head_line`):
/// the node id after its file, `::` read as `.` (`TestX.test_y[1]`).
fn head_line(nodeid: &str) -> String {
    nodeid
        .split_once("::")
        .map_or(nodeid, |(_, name)| name)
        .replace("::", ".")
}

/// The errors of the run in pytest's order and words: `ERROR collecting
/// PATH` (a collector), `ERROR at setup of NAME`, `ERROR at teardown of
/// NAME` (a test that also has its own outcome), each with its report.
fn errors(results: &[TestResult]) -> Vec<(String, &TestResult, Option<&str>)> {
    let mut errors = Vec::new();
    for result in results {
        if result.outcome == Outcome::Error {
            let title = if is_collect_error(result) {
                format!("ERROR collecting {}", result.nodeid)
            } else {
                format!("ERROR at setup of {}", head_line(&result.nodeid))
            };
            let message = result.message.as_deref().filter(|m| !m.trim().is_empty());
            errors.push((title, result, message));
        }
        if let Some(teardown) = &result.teardown_error {
            let title = format!("ERROR at teardown of {}", head_line(&result.nodeid));
            errors.push((title, result, Some(teardown.as_str())));
        }
    }
    errors
}

/// pytest's `ERRORS` section: each error's title in a `_` rule, then
/// pytest's report (the traceback) and the captured output.
fn errors_section(out: &mut String, results: &[TestResult], options: &SummaryOptions) {
    let errors = errors(results);
    if errors.is_empty() {
        return;
    }
    push_line(out, &rule('=', "ERRORS", options.width));
    for (title, result, message) in errors {
        let title = rule('_', &title, options.width);
        push_line(
            out,
            &paint(&title, &[Style::Red, Style::Bold], options.color),
        );
        let fallback = if is_collect_error(result) {
            "the collector failed"
        } else {
            default_message(Outcome::Error)
        };
        push_block(out, message.unwrap_or(fallback));
        if result.outcome == Outcome::Error {
            push_output(out, &result.output, options);
        }
    }
}

/// `ERROR nodeid - first line of the report` for each error, in the order
/// of [`errors`]; an error without a report is its node id alone.
fn error_lines(results: &[TestResult], color: bool) -> Vec<String> {
    errors(results)
        .into_iter()
        .map(|(_, result, message)| {
            let mut line = format!(
                "{} {}",
                paint("ERROR", &[Style::Red], color),
                node_id(&result.nodeid, color)
            );
            let first = message.map(crash_line).unwrap_or_default();
            if !first.is_empty() {
                line.push_str(" - ");
                line.push_str(first);
            }
            line
        })
        .collect()
}

/// One entry per test that fails the run: its node id in a `_` rule, its
/// message, and its captured output under a `-` rule.
fn failures_section(out: &mut String, results: &[TestResult], options: &SummaryOptions) {
    let failed: Vec<&TestResult> = results
        .iter()
        .filter(|r| {
            (r.outcome.is_failure() && r.outcome != Outcome::Error)
                || r.subtests.iter().any(|s| s.outcome == Outcome::Failed)
        })
        .collect();
    if failed.is_empty() {
        return;
    }
    push_line(out, &rule('=', "FAILURES", options.width));
    for result in failed {
        // Its failed subtests first, as pytest reported them before it.
        for subtest in result
            .subtests
            .iter()
            .filter(|s| s.outcome == Outcome::Failed)
        {
            let title = format!("{} {}", head_line(&result.nodeid), subtest.description);
            push_line(
                out,
                &paint(
                    &rule('_', &title, options.width),
                    &[Style::Red, Style::Bold],
                    options.color,
                ),
            );
            push_block(
                out,
                subtest
                    .message
                    .as_deref()
                    .unwrap_or(default_message(Outcome::Failed)),
            );
        }
        if !result.outcome.is_failure() || result.outcome == Outcome::Error {
            continue;
        }
        let title = rule('_', &head_line(&result.nodeid), options.width);
        push_line(
            out,
            &paint(&title, &[Style::Red, Style::Bold], options.color),
        );
        let message = match result.message.as_deref() {
            Some(message) if !message.trim().is_empty() => message,
            _ => default_message(result.outcome),
        };
        push_block(out, message);
        push_output(out, &result.output, options);
    }
}

/// The captured output of passed tests that have some (pytest's `-rP`).
fn passes_section(out: &mut String, results: &[TestResult], options: &SummaryOptions) {
    let passed: Vec<&TestResult> = results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Passed | Outcome::Xpassed) && !r.output.is_empty())
        .collect();
    if passed.is_empty() {
        return;
    }
    push_line(out, &rule('=', "PASSES", options.width));
    for result in passed {
        let title = rule('_', &head_line(&result.nodeid), options.width);
        push_line(
            out,
            &paint(&title, &[Style::Green, Style::Bold], options.color),
        );
        push_output(out, &result.output, options);
    }
}

/// What a failure entry says when the runner gave no message.
pub(crate) fn default_message(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Crashed => "the pytest process died while this test was running",
        Outcome::TimedOut => "the test ran past its timeout and its process was killed",
        Outcome::Error => "error in setup or teardown",
        _ => "the test failed",
    }
}

/// The lines under `short test summary info`, in the order of pytest's
/// `-ra` (skips, xfails, xpasses, errors, failures), with proctor's
/// crashes and timeouts after the errors and flaky tests last.
fn short_summary_lines(results: &[TestResult], options: &SummaryOptions) -> Vec<String> {
    let color = options.color;
    let mut lines = Vec::new();
    if let Some(chars) = &options.chars {
        for char in chars.chars() {
            match char {
                's' => lines.extend(folded_skip_lines(results, color)),
                'x' => lines.extend(reason_lines(results, Outcome::Xfailed, "XFAIL", color)),
                'X' => lines.extend(reason_lines(results, Outcome::Xpassed, "XPASS", color)),
                'E' => lines.extend(error_lines(results, color)),
                // Crashes and timeouts are proctor's failures.
                'f' => lines.extend(failure_lines(
                    results,
                    &[
                        (Outcome::Failed, "FAILED"),
                        (Outcome::Crashed, "CRASHED"),
                        (Outcome::TimedOut, "TIMEOUT"),
                    ],
                    color,
                )),
                // `P` is the `PASSES` section (pytest's `-rP`), not a line.
                'p' => {
                    let word = paint("PASSED", &[Style::Green], color);
                    lines.extend(
                        results
                            .iter()
                            .filter(|r| r.outcome == Outcome::Passed)
                            .map(|r| format!("{word} {}", node_id(&r.nodeid, color))),
                    );
                }
                _ => {}
            }
        }
        lines.extend(flaky_lines(results, options));
        return lines;
    }
    if options.show_skips {
        for group in skip_groups(results) {
            let word = paint("SKIPPED", &[Style::Yellow], color);
            lines.push(format!("{word} [{}] {}", group.nodeids.len(), group.reason));
        }
        lines.extend(reason_lines(results, Outcome::Xfailed, "XFAIL", color));
    }
    lines.extend(reason_lines(results, Outcome::Xpassed, "XPASS", color));
    lines.extend(error_lines(results, color));
    lines.extend(failure_lines(
        results,
        &[
            (Outcome::Crashed, "CRASHED"),
            (Outcome::TimedOut, "TIMEOUT"),
            (Outcome::Failed, "FAILED"),
        ],
        color,
    ));
    lines.extend(flaky_lines(results, options));
    lines
}

/// `WORD nodeid - first line of the crash`, as pytest's short summary
/// writes a failure (the dash and the message only when there is one).
fn failure_line(word: &str, nodeid: &str, message: Option<&str>, color: bool) -> String {
    let mut line = format!(
        "{} {}",
        paint(word, &[Style::Red], color),
        node_id(nodeid, color)
    );
    let first = message.map(crash_line).unwrap_or_default();
    if !first.is_empty() {
        line.push_str(" - ");
        line.push_str(first);
    }
    line
}

/// `WORD nodeid - first line of the message` for each test with one of
/// the outcomes, outcome by outcome.
fn failure_lines(results: &[TestResult], kinds: &[(Outcome, &str)], color: bool) -> Vec<String> {
    let mut lines = Vec::new();
    for &(outcome, word) in kinds {
        for result in results {
            // A failed subtest is `SUBFAILED[msg] (i=1) nodeid - ...`,
            // before its test's own line.
            if outcome == Outcome::Failed {
                for subtest in result
                    .subtests
                    .iter()
                    .filter(|s| s.outcome == Outcome::Failed)
                {
                    let word = format!("SUBFAILED{}", subtest.description);
                    lines.push(failure_line(
                        &word,
                        &result.nodeid,
                        subtest.message.as_deref(),
                        color,
                    ));
                }
            }
            if result.outcome != outcome {
                continue;
            }
            lines.push(failure_line(
                word,
                &result.nodeid,
                result.message.as_deref(),
                color,
            ));
        }
    }
    lines
}

/// `FLAKY nodeid (passed on attempt N of M)`: proctor's, always shown.
fn flaky_lines(results: &[TestResult], options: &SummaryOptions) -> Vec<String> {
    let word = paint("FLAKY", &[Style::Yellow], options.color);
    let of = options
        .max_attempts
        .map(|max| format!(" of {max}"))
        .unwrap_or_default();
    results
        .iter()
        .filter(|r| r.flaky)
        .map(|result| {
            format!(
                "{word} {} (passed on attempt {}{of})",
                result.nodeid, result.attempts
            )
        })
        .collect()
}

/// pytest's `-rs` lines: skips folded by place and reason, in the order
/// each first happened (`SKIPPED [2] tests/test_x.py:12: no GPU`, or
/// `SKIPPED [1] tests/test_x.py: reason` for a skip marker's skips).
fn folded_skip_lines(results: &[TestResult], color: bool) -> Vec<String> {
    // Each group with the word of its first skip (`SUBSKIPPED[msg]` for
    // a subtest pytest counts, as its `-rs` shows it).
    type Groups<'r> = Vec<((Option<&'r str>, &'r str), String, usize)>;
    fn add<'r>(
        groups: &mut Groups<'r>,
        key: (Option<&'r str>, &'r str),
        word: &dyn Fn() -> String,
    ) {
        match groups.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, _, count)) => *count += 1,
            None => groups.push((key, word(), 1)),
        }
    }
    let mut groups: Groups<'_> = Vec::new();
    for result in results {
        for subtest in result
            .subtests
            .iter()
            .filter(|s| s.outcome == Outcome::Skipped && s.counted_as == "skipped")
        {
            let key = (
                subtest.location.as_deref(),
                subtest.reason.as_deref().unwrap_or_default(),
            );
            add(&mut groups, key, &|| {
                format!("SUBSKIPPED{}", subtest.description)
            });
        }
        if result.outcome == Outcome::Skipped {
            let key = (
                result.location.as_deref(),
                crate::skips::skip_reason(result),
            );
            add(&mut groups, key, &|| "SKIPPED".to_owned());
        }
    }
    groups
        .into_iter()
        .map(|((location, reason), word, count)| {
            let word = paint(&word, &[Style::Yellow], color);
            match location {
                Some(location) => format!("{word} [{count}] {location}: {reason}"),
                None => format!("{word} [{count}] {reason}"),
            }
        })
        .collect()
}

/// `WORD nodeid - reason` for each test with `outcome`.
fn reason_lines(results: &[TestResult], outcome: Outcome, word: &str, color: bool) -> Vec<String> {
    results
        .iter()
        .filter(|r| r.outcome == outcome)
        .map(|result| {
            let mut line = format!(
                "{} {}",
                paint(word, &[Style::Yellow], color),
                node_id(&result.nodeid, color)
            );
            if let Some(reason) = result.reason.as_deref().filter(|r| !r.is_empty()) {
                line.push_str(" - ");
                line.push_str(reason);
            }
            line
        })
        .collect()
}

/// A node id in a summary line: what follows the file in bold, as
/// pytest's `_get_node_id_with_markup` writes it.
fn node_id(nodeid: &str, color: bool) -> String {
    match nodeid.split_once("::") {
        Some((path, rest)) if color => format!("{path}::{}", paint(rest, &[Style::Bold], true)),
        _ => nodeid.to_owned(),
    }
}

/// Captured output under pytest's `-` rule, when there is any.
fn push_output(out: &mut String, output: &str, options: &SummaryOptions) {
    if output.trim().is_empty() {
        return;
    }
    push_line(out, &rule('-', "Captured output", options.width));
    push_block(out, output);
}

/// A multi-line text without its trailing newlines, then one newline.
fn push_block(out: &mut String, text: &str) {
    push_line(out, text.trim_end_matches(['\n', '\r']));
}

fn push_line(out: &mut String, line: &str) {
    out.push_str(line);
    out.push('\n');
}
