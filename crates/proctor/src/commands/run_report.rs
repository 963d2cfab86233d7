//! What `proctor run` prints and writes after the tests: the summary (with
//! drift between static and real collection), the JSON and `JUnit`
//! reports, and the history's findings (flaky across runs, slow tests).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::time::SystemTime;

use anyhow::{Context, Result};
use proctor_run::{RunSummary, TestResult};

use crate::args::RunArgs;
use crate::printer::Printer;

/// Runs in the history the flaky and slow findings look at.
const FINDINGS_WINDOW: usize = 20;

/// What the history says about this run's tests: flaky across runs, and
/// (with `[run] slow-threshold`) slow tests without the slow marker and
/// marked ones that are fast.
pub(crate) fn history_findings(out: &mut Printer, history: &proctor_history::History, results: &[TestResult], options: &proctor_config::ProctorOptions) -> Result<()> {
    let ran: HashSet<&str> = results.iter().map(|r| r.nodeid.as_str()).collect();
    if let Ok(flaky) = history.flaky(FINDINGS_WINDOW) {
        for test in flaky.iter().filter(|t| ran.contains(t.nodeid.as_str())) {
            writeln!(
                out,
                "FLAKY {} — went wrong in {} of its last {} runs ({} passed only on a rerun)",
                test.nodeid,
                test.failures + test.passes_after_rerun,
                test.runs,
                test.passes_after_rerun
            )?;
        }
    }
    let Some(threshold) = options.run.slow_threshold else {
        return Ok(());
    };
    let marker = options.run.slow_marker.as_deref().unwrap_or("slow");
    let marked_slow: HashSet<String> = results.iter().filter(|r| r.markers.iter().any(|m| m == marker)).map(|r| r.nodeid.clone()).collect();
    let durations: HashMap<String, f64> = history.durations(FINDINGS_WINDOW).unwrap_or_default().into_iter().filter(|(n, _)| ran.contains(n.as_str())).collect();
    for finding in proctor_history::slow_findings(&durations, &marked_slow, threshold) {
        match finding {
            proctor_history::SlowFinding::Unmarked { nodeid, median } => writeln!(out, "SLOW {nodeid} — {median:.1}s median, over {threshold}s, but not marked `{marker}`")?,
            proctor_history::SlowFinding::NotSlow { nodeid, median } => writeln!(out, "NOT SLOW {nodeid} — marked `{marker}` but {median:.2}s median")?,
        }
    }
    Ok(())
}

pub(crate) fn print_summary(out: &mut Printer, results: &[TestResult], summary: &RunSummary, drift: &[String], failed_to_start: Option<&str>) -> Result<()> {
    if let Some(tail) = failed_to_start {
        writeln!(out, "pytest stopped before running any test:{tail}")?;
        if tail.contains("No module named pytest") {
            writeln!(out, "hint: this interpreter has no pytest: pass --python, set `python` in proctor's configuration, or install pytest into it")?;
        }
    }
    for note in drift {
        writeln!(out, "DRIFT {note}")?;
    }
    let options = proctor_report::SummaryOptions { color: std::io::IsTerminal::is_terminal(&std::io::stdout()), ..proctor_report::SummaryOptions::default() };
    write!(out, "{}", proctor_report::summary(results, summary, &options))?;
    Ok(())
}

pub(crate) fn write_reports(args: &RunArgs, results: &[TestResult], summary: &RunSummary, started_at: &str, selection: &str) -> Result<()> {
    if let Some(path) = &args.json {
        let meta = proctor_report::ReportMeta {
            proctor_version: env!("CARGO_PKG_VERSION").to_owned(),
            started_at: started_at.to_owned(),
            command: std::env::args().collect(),
            selection: Some(selection.to_owned()),
            seed: match args.order.as_str() {
                "random" => args.seed,
                _ => None,
            },
        };
        let doc = proctor_report::json_report(results, summary, &meta);
        std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n").with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.junit_xml {
        let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").map_or_else(|_| "localhost".to_owned(), |h| h.trim().to_owned());
        let xml = proctor_report::junit_xml(results, summary, "proctor", started_at, &hostname);
        std::fs::write(path, xml).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// `time` as ISO-8601 in UTC (`2026-11-30T01:50:19Z`).
pub(crate) fn utc(time: SystemTime) -> String {
    let secs = time.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rest = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3_600, rest % 3_600 / 60, rest % 60)
}
