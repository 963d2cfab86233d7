//! The HTML report of a run: one self-contained page (inline CSS and
//! JavaScript, no external URL) with the summary per phase and per tier,
//! the jobs × tiers matrix, failures with their tracebacks, skips by
//! reason, the slowest tests, the history's flaky tests and a search box.
//!
//! Everything the page shows is computed here into one JSON document (the
//! page's "view"), embedded in a `<script type="application/json">` with
//! `<`, `>`, `&`, U+2028 and U+2029 written as `\u003c`-style escapes, so
//! that no text from a test can end the script element. The page's script
//! builds the DOM from it with `textContent` only: test data never becomes
//! markup.

use std::collections::BTreeMap;

use proctor_outcome::{Outcome, RunSummary, TestResult};
use serde::Serialize;

use crate::extras::{ReportExtras, TierAxis, NO_TIER};
use crate::json::ReportMeta;
use crate::message::crash_line;
use crate::skips::skip_groups;
use crate::terminal::default_message;
use crate::xml::escape_text;

/// The page's style sheet.
const CSS: &str = include_str!("html/report.css");
/// The page's script: reads the view and builds the page.
const JS: &str = include_str!("html/report.js");

/// The slowest tests shown per phase in the duration chart.
const SLOWEST: usize = 15;

/// The group of tests of a run without phases, in the duration chart.
const ALL_TESTS: &str = "all tests";

/// The group of tests that ran in no phase, in a run with phases (tests
/// that proctor skipped before any phase started).
const NO_PHASE: &str = "(no phase)";

/// The id of the element that holds the view; the script reads it.
pub const HTML_DATA_ID: &str = "proctor-data";

/// The HTML report: a whole document, from `<!DOCTYPE html>` to
/// `</html>`. The same arguments always give the same text, so a report
/// rendered again from the saved JSON report equals the first.
#[must_use]
pub fn html_report(
    results: &[TestResult],
    summary: &RunSummary,
    meta: &ReportMeta,
    extras: &ReportExtras,
) -> String {
    let meta = &meta.redacted();
    let view = view(results, summary, meta, extras);
    let data = script_json(&serde_json::to_string(&view).unwrap_or_else(|_| "null".to_owned()));
    let title = format!("proctor report: {} ({})", summary.line(), meta.started_at);
    let mut page = String::with_capacity(CSS.len() + JS.len() + data.len() + 1024);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    // Nothing may be loaded from anywhere: the page is complete offline.
    page.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
    );
    page.push_str("<title>");
    page.push_str(&escape_text(&title));
    page.push_str("</title>\n<style>\n");
    page.push_str(CSS);
    page.push_str("</style>\n</head>\n<body>\n");
    page.push_str("<noscript><p class=\"noscript\">This report is drawn by its script; enable JavaScript to read it.</p></noscript>\n");
    page.push_str("<div id=\"app\"></div>\n");
    page.push_str("<script type=\"application/json\" id=\"");
    page.push_str(HTML_DATA_ID);
    page.push_str("\">");
    page.push_str(&data);
    page.push_str("</script>\n<script>\n");
    page.push_str(JS);
    page.push_str("</script>\n</body>\n</html>\n");
    page
}

/// JSON text made safe inside a `<script>` element: the characters that
/// could close the element or start markup (`<`, `>`, `&`) and the line
/// separators old JavaScript parsers reject (U+2028, U+2029) become
/// `\uXXXX` escapes. In JSON they only occur inside strings, where the
/// escape means the same character.
pub(crate) fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Everything the page shows.
#[derive(Serialize)]
struct View<'a> {
    meta: &'a ReportMeta,
    line: String,
    duration: f64,
    exit_code: i32,
    deselected: usize,
    /// The outcome columns of the count tables: passed, failed, skipped,
    /// and every other outcome the run has.
    outcomes: Vec<OutcomeColumn>,
    totals: Counts,
    /// Per phase, in run order; empty when the run has no phases.
    phases: Vec<Group>,
    /// The tier axis's name, when the suite has one.
    tier_axis: Option<&'a str>,
    /// Per tier, in the axis's order; empty without a tier axis.
    tiers: Vec<Group>,
    /// The jobs × tiers matrix; absent without jobs.
    jobs: Option<Matrix>,
    skips: Vec<Skip<'a>>,
    failures: Vec<Failure<'a>>,
    /// The slowest tests of each phase (of the run, without phases).
    slowest: Vec<Slowest<'a>>,
    history: Option<HistoryView<'a>>,
    /// This run's tests that passed only on a rerun.
    flaky_now: Vec<FlakyNow<'a>>,
    tests: Vec<Row<'a>>,
}

#[derive(Serialize)]
struct OutcomeColumn {
    /// As in the JSON report (`timed-out`).
    key: Outcome,
    /// As pytest prints it (`timed out`).
    label: &'static str,
}

#[derive(Default, Serialize)]
struct Counts {
    total: usize,
    flaky: usize,
    outcomes: BTreeMap<Outcome, usize>,
}

impl Counts {
    fn add(&mut self, result: &TestResult) {
        self.total += 1;
        self.flaky += usize::from(result.flaky);
        *self.outcomes.entry(result.outcome).or_insert(0) += 1;
    }
}

#[derive(Serialize)]
struct Group {
    name: String,
    counts: Counts,
}

#[derive(Serialize)]
struct Matrix {
    /// The tiers, then [`NO_TIER`].
    columns: Vec<String>,
    rows: Vec<MatrixRow>,
    /// This run's tests per column, for comparison.
    run: Vec<usize>,
}

#[derive(Serialize)]
struct MatrixRow {
    name: String,
    selected: usize,
    counts: Vec<usize>,
}

#[derive(Serialize)]
struct Skip<'a> {
    reason: &'a str,
    tests: Vec<&'a str>,
}

#[derive(Serialize)]
struct Failure<'a> {
    nodeid: &'a str,
    outcome: Outcome,
    label: &'static str,
    /// The line that says what went wrong.
    headline: &'a str,
    /// The whole failure text (pytest's traceback).
    message: &'a str,
    output: &'a str,
    phase: Option<&'a str>,
    attempts: u32,
}

#[derive(Serialize)]
struct Slowest<'a> {
    phase: &'a str,
    tests: Vec<Timed<'a>>,
}

#[derive(Serialize)]
struct Timed<'a> {
    nodeid: &'a str,
    outcome: Outcome,
    duration: f64,
    /// The median over the history's window, when known.
    median: Option<f64>,
}

#[derive(Serialize)]
struct HistoryView<'a> {
    window: usize,
    runs: usize,
    flaky: &'a [proctor_history::FlakyTest],
}

#[derive(Serialize)]
struct FlakyNow<'a> {
    nodeid: &'a str,
    attempts: u32,
}

#[derive(Serialize)]
struct Row<'a> {
    nodeid: &'a str,
    outcome: Outcome,
    duration: f64,
    median: Option<f64>,
    phase: Option<&'a str>,
    tier: Option<&'a str>,
    markers: &'a [String],
    attempts: u32,
    flaky: bool,
    reason: Option<&'a str>,
}

fn view<'a>(
    results: &'a [TestResult],
    summary: &RunSummary,
    meta: &'a ReportMeta,
    extras: &'a ReportExtras,
) -> View<'a> {
    let tier_axis = extras.tier_axis.as_ref();
    let median = |nodeid: &str| {
        extras
            .history
            .as_ref()
            .and_then(|h| h.durations.get(nodeid).copied())
    };
    let tests = results
        .iter()
        .map(|r| Row {
            nodeid: &r.nodeid,
            outcome: r.outcome,
            duration: r.duration,
            median: median(&r.nodeid),
            phase: r.phase.as_deref(),
            tier: tier_axis.map(|axis| axis.tier_of(r)),
            markers: &r.markers[..],
            attempts: r.attempts,
            flaky: r.flaky,
            reason: r.reason.as_deref().filter(|reason| !reason.is_empty()),
        })
        .collect();
    View {
        meta,
        line: summary.line(),
        duration: summary.duration,
        exit_code: summary.exit_code,
        deselected: summary.deselected,
        outcomes: outcome_columns(summary),
        totals: Counts {
            total: summary.counts.values().sum(),
            flaky: summary.flaky,
            outcomes: summary.counts.clone(),
        },
        phases: phase_groups(results),
        tier_axis: tier_axis.map(|axis| axis.name.as_str()),
        tiers: tier_axis
            .map(|axis| tier_groups(results, axis))
            .unwrap_or_default(),
        jobs: matrix(results, extras),
        skips: skip_groups(results)
            .into_iter()
            .map(|group| Skip {
                reason: group.reason,
                tests: group.nodeids,
            })
            .collect(),
        failures: results
            .iter()
            .filter(|r| r.outcome.is_failure())
            .map(failure)
            .collect(),
        slowest: slowest(results, &median),
        history: extras.history.as_ref().map(|h| HistoryView {
            window: h.window,
            runs: h.runs,
            flaky: &h.flaky,
        }),
        flaky_now: results
            .iter()
            .filter(|r| r.flaky)
            .map(|r| FlakyNow {
                nodeid: &r.nodeid,
                attempts: r.attempts,
            })
            .collect(),
        tests,
    }
}

/// Passed, failed and skipped always; other outcomes when some test has
/// them; in [`Outcome`] order.
fn outcome_columns(summary: &RunSummary) -> Vec<OutcomeColumn> {
    let present = summary
        .counts
        .iter()
        .filter(|(_, &n)| n > 0)
        .map(|(&outcome, _)| outcome);
    let mut keys: Vec<Outcome> = present
        .chain([Outcome::Passed, Outcome::Failed, Outcome::Skipped])
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|key| OutcomeColumn {
            key,
            label: key.word(),
        })
        .collect()
}

/// Counts per phase, phases in the order they first ran; none when no
/// test has a phase.
fn phase_groups(results: &[TestResult]) -> Vec<Group> {
    if results.iter().all(|r| r.phase.is_none()) {
        return Vec::new();
    }
    let mut groups: Vec<Group> = Vec::new();
    for result in results {
        let name = result.phase.as_deref().unwrap_or(NO_PHASE);
        group_of(&mut groups, name).add(result);
    }
    groups
}

/// Counts per tier, in the axis's order, then tests with no tier; tiers
/// without tests left out.
fn tier_groups(results: &[TestResult], axis: &TierAxis) -> Vec<Group> {
    let mut groups: Vec<Group> = axis
        .columns()
        .into_iter()
        .map(|name| Group {
            name: name.to_owned(),
            counts: Counts::default(),
        })
        .collect();
    for result in results {
        group_of(&mut groups, axis.tier_of(result)).add(result);
    }
    groups.retain(|g| g.counts.total > 0);
    groups
}

fn group_of<'g>(groups: &'g mut Vec<Group>, name: &str) -> &'g mut Counts {
    let at = groups
        .iter()
        .position(|g| g.name == name)
        .unwrap_or_else(|| {
            groups.push(Group {
                name: name.to_owned(),
                counts: Counts::default(),
            });
            groups.len() - 1
        });
    &mut groups[at].counts
}

/// The jobs × tiers matrix: a row per job, a column per tier (the tier
/// axis's markers, then tests with none), and this run's tests per tier.
fn matrix(results: &[TestResult], extras: &ReportExtras) -> Option<Matrix> {
    if extras.jobs_by_tier.is_empty() {
        return None;
    }
    let columns: Vec<String> = match &extras.tier_axis {
        Some(axis) => axis.columns().into_iter().map(str::to_owned).collect(),
        None => vec![NO_TIER.to_owned()],
    };
    let run = columns
        .iter()
        .map(|column| match &extras.tier_axis {
            Some(axis) => results.iter().filter(|r| axis.tier_of(r) == column).count(),
            None => results.len(),
        })
        .collect();
    let rows = extras
        .jobs_by_tier
        .iter()
        .map(|job| MatrixRow {
            name: job.name.clone(),
            selected: job.selected,
            counts: columns
                .iter()
                .map(|c| {
                    job.tiers
                        .iter()
                        .find(|(t, _)| t == c)
                        .map_or(0, |(_, n)| *n)
                })
                .collect(),
        })
        .collect();
    Some(Matrix { columns, rows, run })
}

fn failure(result: &TestResult) -> Failure<'_> {
    let message = match result.message.as_deref() {
        Some(message) if !message.trim().is_empty() => message,
        _ => default_message(result.outcome),
    };
    Failure {
        nodeid: &result.nodeid,
        outcome: result.outcome,
        label: result.outcome.word(),
        headline: crash_line(message),
        message,
        output: &result.output,
        phase: result.phase.as_deref(),
        attempts: result.attempts,
    }
}

/// The [`SLOWEST`] longest tests of each phase, longest first (ties in
/// run order); skipped tests and tests that took no time are left out.
fn slowest<'a>(
    results: &'a [TestResult],
    median: &dyn Fn(&str) -> Option<f64>,
) -> Vec<Slowest<'a>> {
    let unphased = if results.iter().any(|r| r.phase.is_some()) {
        NO_PHASE
    } else {
        ALL_TESTS
    };
    let phase_of = |result: &'a TestResult| result.phase.as_deref().unwrap_or(unphased);
    let mut phases: Vec<&str> = Vec::new();
    for result in results {
        if !phases.contains(&phase_of(result)) {
            phases.push(phase_of(result));
        }
    }
    phases
        .into_iter()
        .filter_map(|phase| {
            let mut timed: Vec<&TestResult> = results
                .iter()
                .filter(|r| {
                    phase_of(r) == phase && r.outcome != Outcome::Skipped && r.duration > 0.0
                })
                .collect();
            timed.sort_by(|a, b| b.duration.total_cmp(&a.duration));
            timed.truncate(SLOWEST);
            let tests: Vec<Timed<'_>> = timed
                .into_iter()
                .map(|r| Timed {
                    nodeid: &r.nodeid,
                    outcome: r.outcome,
                    duration: r.duration,
                    median: median(&r.nodeid),
                })
                .collect();
            (!tests.is_empty()).then_some(Slowest { phase, tests })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::script_json;

    #[test]
    fn script_json_escapes_what_could_end_the_script() {
        assert_eq!(
            script_json(r#"{"a":"</script><img src=x onerror=alert(1)>&amp;\u2028"}"#),
            r#"{"a":"\u003c/script\u003e\u003cimg src=x onerror=alert(1)\u003e\u0026amp;\u2028"}"#
        );
        assert_eq!(script_json("\u{2028}\u{2029}"), "\\u2028\\u2029");
        let text = "x</script><!--\u{2028}é";
        let escaped = script_json(&serde_json::to_string(text).unwrap());
        assert!(!escaped.contains('<') && !escaped.contains('>') && !escaped.contains('&'));
        assert_eq!(serde_json::from_str::<String>(&escaped).unwrap(), text);
    }
}
