//! What `proctor run` prints and writes after the tests: the summary (with
//! drift between static and real collection), the JSON, `JUnit` and HTML
//! reports with what they show beyond the results (tier axis, jobs × tiers,
//! history), and the history's findings (flaky across runs, slow tests):
//! [`Finish`], a consumer of the run's events.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use proctor_config::{Cardinality, TaxonomyOptions};
use proctor_plan::{plan_jobs, Verdict};
use proctor_python::{function_nodeid, Collection};
use proctor_report::{HistoryExtract, JobTiers, ReportExtras, TierAxis, NO_TIER};
use proctor_run::{RunEnd, RunEvent, RunReporter, RunSummary, TestResult};
use proctor_taxonomy::Effective;

use crate::args::RunArgs;
use crate::commands::machine;
use crate::commands::suite::Suite;
use crate::printer::Printer;

/// Runs in the history the flaky and slow findings look at.
const FINDINGS_WINDOW: usize = 20;

/// What the history says about this run's tests, for the findings and the
/// reports: flaky tests and (with `medians`) median durations over
/// [`FINDINGS_WINDOW`] runs. `None` when the history cannot be read.
pub(crate) fn history_extract(
    history: &proctor_history::History,
    results: &[TestResult],
    medians: bool,
) -> Option<HistoryExtract> {
    let ran: HashSet<&str> = results.iter().map(|r| r.nodeid.as_str()).collect();
    let flaky = history
        .flaky(FINDINGS_WINDOW)
        .ok()?
        .into_iter()
        .filter(|t| ran.contains(t.nodeid.as_str()))
        .collect();
    let durations = if medians {
        history
            .durations_of(ran.iter().copied(), FINDINGS_WINDOW)
            .ok()?
            .into_iter()
            .collect()
    } else {
        std::collections::BTreeMap::default()
    };
    Some(HistoryExtract {
        window: FINDINGS_WINDOW,
        runs: history.run_count().ok()?,
        flaky,
        durations,
    })
}

/// What the history says about this run's tests: flaky across runs, and
/// (with `[run] slow-threshold`) slow tests without the slow marker and
/// marked ones that are fast.
pub(crate) fn history_findings(
    out: &mut Printer,
    history: &HistoryExtract,
    results: &[TestResult],
    options: &proctor_config::ProctorOptions,
) -> Result<()> {
    for test in &history.flaky {
        writeln!(
            out,
            "FLAKY {} — went wrong in {} of its last {} runs ({} passed only on a rerun)",
            test.nodeid,
            test.failures + test.passes_after_rerun,
            test.runs,
            test.passes_after_rerun
        )?;
    }
    let Some(threshold) = options.run.slow_threshold.map(proctor_config::Seconds::get) else {
        return Ok(());
    };
    let marker = options.run.slow_marker.as_deref().unwrap_or("slow");
    let marked_slow: HashSet<String> = results
        .iter()
        .filter(|r| r.markers.iter().any(|m| m == marker))
        .map(|r| r.nodeid.clone())
        .collect();
    let durations: HashMap<String, f64> = history
        .durations
        .iter()
        .map(|(n, d)| (n.clone(), *d))
        .collect();
    for finding in proctor_history::slow_findings(&durations, &marked_slow, threshold) {
        match finding {
            proctor_history::SlowFinding::Unmarked { nodeid, median } => writeln!(
                out,
                "SLOW {nodeid} — {median:.1}s median, over {threshold}s, but not marked `{marker}`"
            )?,
            proctor_history::SlowFinding::NotSlow { nodeid, median } => writeln!(
                out,
                "NOT SLOW {nodeid} — marked `{marker}` but {median:.2}s median"
            )?,
        }
    }
    Ok(())
}

/// How the summary looks: pytest's `-r` characters and `-q`.
pub(crate) struct SummaryLook {
    /// The resolved `-r` characters (`fE` by default).
    pub(crate) chars: String,
    /// `-q`: the closing line without its `=` rules, as `pytest -q`.
    pub(crate) quiet: bool,
}

pub(crate) fn print_summary(
    out: &mut Printer,
    results: &[TestResult],
    summary: &RunSummary,
    drift: &[String],
    failed_to_start: Option<&str>,
    look: &SummaryLook,
) -> Result<()> {
    if let Some(tail) = failed_to_start {
        writeln!(out, "pytest stopped before running any test:{tail}")?;
        if tail.contains("No module named pytest") {
            writeln!(out, "hint: this interpreter has no pytest: pass --python, set `python` in proctor's configuration, or install pytest into it")?;
        }
    }
    for note in drift {
        writeln!(out, "DRIFT {note}")?;
    }
    // `--color`, `NO_COLOR` and `FORCE_COLOR` as every command reads them
    // (a terminal by default); `-q`'s bare summary line stays plain.
    let color = out.colored() && !look.quiet;
    let options = proctor_report::SummaryOptions {
        color,
        chars: Some(look.chars.clone()),
        show_passed_output: look.chars.contains('P'),
        ..proctor_report::SummaryOptions::default()
    };
    let text = proctor_report::summary(results, summary, &options);
    if look.quiet {
        // The closing rule is the last line: pytest -q prints it bare.
        let body = text
            .trim_end_matches('\n')
            .rsplit_once('\n')
            .map_or("", |(body, _)| body);
        if !body.is_empty() {
            writeln!(out, "{body}")?;
        }
        writeln!(out, "{}", summary.line())?;
    } else {
        write!(out, "{text}")?;
    }
    Ok(())
}

pub(crate) fn write_reports(
    args: &RunArgs,
    results: &[TestResult],
    summary: &RunSummary,
    started_at: &str,
    selection: &str,
    extras: &ReportExtras,
) -> Result<()> {
    let meta = proctor_report::ReportMeta {
        proctor_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_at: started_at.to_owned(),
        command: std::env::args().collect(),
        selection: Some(selection.to_owned()),
        seed: match args.order.as_deref() {
            Some("random") | None => args.seed,
            _ => None,
        },
    };
    if let Some(path) = &args.json {
        let doc = proctor_report::json_report(results, summary, &meta, extras);
        write_file(path, &(serde_json::to_string_pretty(&doc)? + "\n"))?;
    }
    if let Some(path) = &args.junit_xml {
        let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map_or_else(|_| "localhost".to_owned(), |h| h.trim().to_owned());
        write_file(
            path,
            &proctor_report::junit_xml(results, summary, "proctor", started_at, &hostname),
        )?;
    }
    if let Some(path) = &args.html {
        write_file(
            path,
            &proctor_report::html_report(results, summary, &meta, extras),
        )?;
    }
    Ok(())
}

/// Writes a report, saying which file could not be written.
pub(crate) fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// What the JSON and HTML reports show beyond the results: the tier axis,
/// the run's tests per tier that each configured job selects (planned with
/// `proctor plan`'s code over the run's static items), and `history`.
pub(crate) fn report_extras(
    suite: &Suite,
    collection: &Collection,
    effectives: &[Effective],
    results: &[TestResult],
    history: Option<HistoryExtract>,
) -> Result<ReportExtras> {
    let tier_axis = tier_axis(&suite.config.proctor.taxonomy);
    let jobs_by_tier = jobs_by_tier(suite, collection, effectives, results, tier_axis.as_ref())?;
    Ok(ReportExtras {
        tier_axis,
        jobs_by_tier,
        history,
    })
}

/// The axis named `tier`, else the first `exactly-one` axis.
fn tier_axis(taxonomy: &TaxonomyOptions) -> Option<TierAxis> {
    let axes = &taxonomy.axes;
    axes.iter()
        .find(|(name, _)| name == "tier")
        .or_else(|| {
            axes.iter()
                .find(|(_, axis)| axis.cardinality == Cardinality::ExactlyOne)
        })
        .map(|(name, axis)| TierAxis {
            name: name.clone(),
            markers: axis.markers.clone(),
        })
}

/// For each `[jobs.<name>]`: how many of the run's tests it selects (runs
/// or skips), per tier. A result counts through its static item (a
/// dynamic item stands for every test of its function); results static
/// collection does not know are left out.
fn jobs_by_tier(
    suite: &Suite,
    collection: &Collection,
    effectives: &[Effective],
    results: &[TestResult],
    axis: Option<&TierAxis>,
) -> Result<Vec<JobTiers>> {
    let jobs = machine::job_setups(suite, None)?;
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let options = &suite.config.proctor;
    let planned = plan_jobs(
        &collection.items,
        effectives,
        &jobs,
        &options.plan,
        &options.taxonomy,
    )?;
    let by_id: HashMap<&str, usize> = collection
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| (item.nodeid.as_str(), i))
        .collect();
    let dynamic: HashMap<&str, usize> = collection
        .items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.dynamic.is_some())
        .map(|(i, item)| (function_nodeid(&item.nodeid), i))
        .collect();
    let columns = axis.map_or_else(|| vec![NO_TIER], TierAxis::columns);
    let mut rows: Vec<JobTiers> = jobs
        .iter()
        .map(|job| JobTiers {
            name: job.name.clone(),
            selected: 0,
            tiers: columns.iter().map(|c| ((*c).to_owned(), 0)).collect(),
        })
        .collect();
    for result in results {
        let Some(&at) = by_id
            .get(result.nodeid.as_str())
            .or_else(|| dynamic.get(function_nodeid(&result.nodeid)))
        else {
            continue;
        };
        let tier = axis.map_or(NO_TIER, |axis| axis.tier_of(result));
        for (row, verdict) in rows.iter_mut().zip(&planned.items[at].verdicts) {
            if matches!(verdict, Verdict::Deselected { .. }) {
                continue;
            }
            row.selected += 1;
            if let Some(entry) = row.tiers.iter_mut().find(|(name, _)| name == tier) {
                entry.1 += 1;
            }
        }
    }
    for row in &mut rows {
        row.tiers.retain(|(_, n)| *n > 0);
    }
    Ok(rows)
}

/// `time` as ISO-8601 in UTC, to the second (`2026-11-30T01:50:19Z`); a
/// time outside jiff's range (years -9999 to 9999) as the Unix epoch.
pub(crate) fn utc(time: SystemTime) -> String {
    let second = jiff::Timestamp::try_from(time).map_or(0, jiff::Timestamp::as_second);
    jiff::Timestamp::from_second(second)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_string()
}

/// What `proctor run` does once the tests are done, as a consumer of the
/// run's events: at [`RunEvent::RunFinished`], with the results the event
/// hands over ([`RunEnd::results`]), it prints the summary, records the run in the
/// history, writes the JSON, `JUnit` and HTML reports and prints the
/// history's findings.
pub(crate) struct Finish<'a> {
    pub(crate) out: Printer,
    pub(crate) args: &'a RunArgs,
    pub(crate) suite: &'a Suite,
    pub(crate) collection: &'a Collection,
    pub(crate) effectives: &'a [Effective],
    /// The run's selection, as the header says it.
    pub(crate) selection: String,
    pub(crate) started_at: SystemTime,
    pub(crate) shard: Option<proctor_history::ShardSpec>,
    pub(crate) history_path: std::path::PathBuf,
    /// A report that could not be written.
    pub(crate) error: Option<anyhow::Error>,
}

impl RunReporter for Finish<'_> {
    fn event(&mut self, _: Duration, event: &RunEvent<'_>) {
        if let RunEvent::RunFinished(end) = event {
            if let Err(err) = self.finished(end) {
                self.error = Some(err);
            }
        }
    }
}

impl Finish<'_> {
    fn finished(&mut self, end: &RunEnd) -> Result<()> {
        let results = &end.results.results;
        let args = self.args;
        let options = &self.suite.config.proctor;
        let out = &mut self.out;
        // The terminal may be gone (a closed terminal sends `SIGHUP`, and
        // writes to it then fail; a closed pipe): the history and the reports
        // are still written, and the run's status stands.
        let mut printed = (|| -> Result<()> {
            if end.interrupted {
                let by = end
                    .signal
                    .and_then(proctor_run::signal_name)
                    .map(|name| format!(" by {name}"))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "interrupted{by}: the report holds the {} test(s) that finished",
                    results.len()
                )?;
            }
            for problem in &end.problems {
                writeln!(out, "error: {problem}")?;
            }
            if let Some((why, not_run)) = &end.not_run {
                let why = why
                    .as_deref()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "pytest ended its session{why} before running {} selected test(s):",
                    not_run.len()
                )?;
                for nodeid in not_run {
                    writeln!(out, "NOT RUN {nodeid}")?;
                }
            }
            let look = SummaryLook {
                chars: crate::commands::run_flags::report_chars(
                    &self.suite.config.pytest.addopts,
                    args,
                ),
                quiet: args.quiet > 0,
            };
            print_summary(
                out,
                results,
                &end.summary,
                &end.results.drift,
                end.failed_to_start.as_deref(),
                &look,
            )
        })();
        // The run is recorded first, so that the reports' history includes it.
        let mut history = None;
        if !args.no_history && !results.is_empty() {
            let record = proctor_history::RunRecord {
                started_at: self.started_at,
                finished_at: SystemTime::now(),
                command: std::env::args().collect(),
                selection: Some(self.selection.clone()),
                exit_code: end.exit_code,
                shard: self.shard.take(),
            };
            match proctor_history::History::open(&self.history_path)
                .and_then(|mut history| history.record_run(&record, results).map(|_| history))
            {
                Ok(mut recorded) => {
                    if let Err(err) = recorded.prune(options.run.history_runs()) {
                        let _ = writeln!(
                            out.err(),
                            "warning: older runs were not dropped from the history: {err}"
                        );
                    }
                    // Medians cost an index lookup per test of the run: only
                    // for the reports and the slow findings.
                    let medians = args.json.is_some()
                        || args.html.is_some()
                        || options.run.slow_threshold.is_some();
                    history = history_extract(&recorded, results, medians);
                }
                Err(err) => {
                    let _ = writeln!(
                        out.err(),
                        "warning: the run was not recorded in the history: {err}"
                    );
                }
            }
        }
        let mut extras = ReportExtras::default();
        if args.json.is_some() || args.html.is_some() {
            match report_extras(
                self.suite,
                self.collection,
                self.effectives,
                results,
                history.clone(),
            ) {
                Ok(computed) => extras = computed,
                Err(err) => {
                    let _ = writeln!(
                        out.err(),
                        "warning: the reports have no jobs × tiers matrix: {err:#}"
                    );
                    extras.history.clone_from(&history);
                }
            }
        }
        // The reports record the run's exit status (pytest's internal error,
        // `pytest.exit(returncode=...)`), not only the one its counts give.
        let summary = RunSummary {
            exit_code: end.exit_code,
            ..end.summary.clone()
        };
        write_reports(
            args,
            results,
            &summary,
            &utc(self.started_at),
            &self.selection,
            &extras,
        )?;
        if let Some(history) = &history {
            printed = printed.and_then(|()| history_findings(out, history, results, options));
        }
        if let Err(err) = printed.and_then(|()| Ok(out.flush()?)) {
            let _ = writeln!(
                out.err(),
                "warning: the output was not written whole: {err:#}"
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::utc;

    #[test]
    fn utc_writes_whole_seconds_in_iso_8601() {
        let at = |seconds: u64, nanos: u32| SystemTime::UNIX_EPOCH + Duration::new(seconds, nanos);
        assert_eq!(utc(at(0, 0)), "1970-01-01T00:00:00Z");
        assert_eq!(utc(at(1_796_003_419, 999_999_999)), "2026-11-30T01:50:19Z");
        assert_eq!(utc(at(1_709_251_199, 0)), "2024-02-29T23:59:59Z");
        assert_eq!(utc(at(951_868_800, 0)), "2000-03-01T00:00:00Z");
        assert_eq!(
            utc(SystemTime::UNIX_EPOCH - Duration::from_secs(1)),
            "1969-12-31T23:59:59Z"
        );
    }
}
