//! `proctor run`: the suite through real pytest. Static collection decides
//! which files pytest must import at all (a module whose every test is
//! deselected or gated is not imported; its gated tests are reported
//! skipped with their reason); the bridge then hands pytest's real items
//! to the same taxonomy and plan code, and results stream back.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use proctor_plan::{Facts, Verdict};
use proctor_python::{Item, Marker, MarkerSource};
use proctor_run::{CollectedItem, Decisions, Event, Outcome, PhaseOptions, RunSummary, TestResult};
use proctor_taxonomy::{Selection, Taxonomy};

use crate::args::RunArgs;
use crate::commands::machine;
use crate::commands::selection::Selecting;
use crate::commands::suite::Suite;
use crate::printer::Printer;

/// What the run applies to every item, static or collected.
struct Rules<'s> {
    taxonomy: Taxonomy,
    selection: Selection,
    facts: Facts,
    plan: &'s proctor_config::PlanOptions,
}

impl Rules<'_> {
    fn verdict(&self, item: &Item) -> Result<Verdict> {
        let effective = self.taxonomy.effective(item);
        Ok(proctor_plan::decide(item, &effective, &self.selection, self.plan, &self.facts)?)
    }
}

pub(crate) fn run(args: &RunArgs) -> Result<u8> {
    let started = Instant::now();
    let started_at = utc_now();
    let suite = Suite::load(&args.suite)?;
    let selecting = Selecting::new(&suite, &args.selection)?;
    let mut facts = machine::facts(&suite, &args.machine)?;
    let mut env: Vec<(String, String)> = Vec::new();
    let selection = match &args.job {
        Some(name) => {
            let job = machine::job_setups(&suite, Some(name))?.remove(0);
            // This machine, with the job's environment and flags.
            for (key, value) in &job.options.env {
                facts.env.insert(key.clone(), value.clone());
                env.push((key.clone(), value.clone()));
            }
            facts.flags.extend(job.options.flags.iter().cloned());
            job.selection
        }
        None => selecting.selection,
    };
    let rules = Rules { taxonomy: selecting.taxonomy, selection, facts, plan: &suite.config.proctor.plan };
    let python = machine::detect_options(&suite.config, &args.machine)
        .python
        .ok_or_else(|| anyhow!("no Python interpreter found: pass --python, set `python` in proctor's configuration, or create .venv"))?;

    // Static pass: which files pytest must import.
    let collection = suite.collect();
    let mut static_results: Vec<TestResult> = Vec::new();
    let mut static_deselected = 0;
    let mut needed: Vec<String> = Vec::new();
    let mut needed_set: HashSet<String> = HashSet::new();
    let mut verdicts: Vec<(usize, Verdict)> = Vec::with_capacity(collection.items.len());
    for (index, item) in collection.items.iter().enumerate() {
        let verdict = rules.verdict(item)?;
        let file = collected_file(&item.nodeid).to_owned();
        if (verdict.runs() || item.dynamic.is_some()) && needed_set.insert(file.clone()) {
            needed.push(file);
        }
        verdicts.push((index, verdict));
    }
    for error in &collection.errors {
        // pytest must see the files that fail to collect, to report them.
        if needed_set.insert(error.file.clone()) {
            needed.push(error.file.clone());
        }
    }
    for (index, verdict) in &verdicts {
        let item = &collection.items[*index];
        if needed_set.contains(collected_file(&item.nodeid)) {
            continue;
        }
        match verdict {
            Verdict::Deselected { .. } => static_deselected += 1,
            Verdict::Skipped { reason } => static_results.push(skipped(item, reason)),
            Verdict::Run => {}
        }
    }
    let static_by_id: HashMap<&str, &Item> = collection.items.iter().map(|i| (i.nodeid.as_str(), i)).collect();

    let mut out = Printer::stdout();
    writeln!(out, "proctor run: {} ({} of {} files to import)", describe_selection(&rules.selection), needed.len(), count_files(&collection))?;
    out.flush()?;
    let mut results = static_results;
    let mut deselected = static_deselected;
    let mut drift: Vec<String> = Vec::new();
    let mut failed_to_start = None;
    let mut pytest_status = None;
    if !needed.is_empty() {
        let options = PhaseOptions {
            python,
            cwd: suite.config.pytest.rootdir.clone(),
            args: needed.clone(),
            extra_args: args.pytest_args.clone(),
            env,
            timeout: args.timeout.map(Duration::from_secs_f64),
            phase: None,
            work_dir: suite.config.pytest.rootdir.join(".proctor").join("run"),
        };
        let mut decide = |items: &[CollectedItem]| decide(items, &rules, &static_by_id);
        let mut progress = Progress::new(args.verbose);
        let outcome = proctor_run::run_phase(&options, &mut decide, &mut |event: &Event| progress.event(event)).context("cannot run pytest")?;
        progress.finish();
        deselected += outcome.deselected.len();
        let collected: HashSet<&str> = outcome.collected.iter().map(|i| i.nodeid.as_str()).collect();
        for item in &outcome.collected {
            if !static_by_id.contains_key(item.nodeid.as_str()) && !static_dynamic_covers(&collection.items, &item.nodeid) {
                drift.push(format!("pytest collected {} that static collection did not foresee", item.nodeid));
            }
        }
        for item in &collection.items {
            if item.dynamic.is_none() && needed_set.contains(collected_file(&item.nodeid)) && !collected.contains(item.nodeid.as_str()) && !outcome.collected.is_empty() {
                drift.push(format!("static collection has {} but pytest did not collect it", item.nodeid));
            }
        }
        results.extend(outcome.results);
        failed_to_start = outcome.failed_to_start;
        pytest_status = outcome.pytest_status;
    }
    let interrupted = failed_to_start.is_some() || matches!(pytest_status, Some(2));
    let summary = RunSummary::of(&results, deselected, started.elapsed().as_secs_f64(), interrupted);
    print_summary(&mut out, &results, &summary, &drift, failed_to_start.as_deref())?;
    write_reports(args, &results, &summary, &started_at, &describe_selection(&rules.selection))?;
    out.flush()?;
    let code = match pytest_status {
        Some(status @ (3 | 4)) => status,
        _ if failed_to_start.is_some() => 2,
        _ => summary.exit_code,
    };
    Ok(u8::try_from(code).unwrap_or(1))
}

/// proctor's answer to pytest's collection.
fn decide(items: &[CollectedItem], rules: &Rules<'_>, static_by_id: &HashMap<&str, &Item>) -> Decisions {
    let mut decisions = Decisions::default();
    for collected in items {
        let item = runtime_item(collected, static_by_id);
        match rules.verdict(&item) {
            Ok(Verdict::Run) => {}
            // `Err`: a `-k` identifier called with arguments, pytest's error;
            // the item is deselected, as a failing expression selects nothing.
            Ok(Verdict::Deselected { .. }) | Err(_) => decisions.deselect.push(collected.nodeid.clone()),
            Ok(Verdict::Skipped { reason }) => {
                decisions.skip.insert(collected.nodeid.clone(), reason);
            }
        }
    }
    decisions
}

/// An item as pytest has it, with the helper calls the static model saw
/// on the same test (they are needs, and pytest does not keep them).
fn runtime_item(collected: &CollectedItem, static_by_id: &HashMap<&str, &Item>) -> Item {
    let markers = collected
        .markers
        .iter()
        .map(|m| Arc::new(Marker { name: m.name.clone(), args: m.args.clone(), kwargs: m.kwargs.clone(), source: MarkerSource::Function, location: None }))
        .collect();
    let function = collected.nodeid.split_once('[').map_or(collected.nodeid.as_str(), |(base, _)| base);
    let decorators = static_by_id
        .get(collected.nodeid.as_str())
        .or_else(|| static_by_id.get(function))
        .map(|item| item.decorators.clone())
        .unwrap_or_default();
    Item { nodeid: collected.nodeid.clone(), file: collected.file.clone(), line: collected.line, markers, dynamic: None, decorators }
}

fn skipped(item: &Item, reason: &str) -> TestResult {
    TestResult {
        nodeid: item.nodeid.clone(),
        outcome: Outcome::Skipped,
        duration: 0.0,
        phase: None,
        reason: Some(reason.to_owned()),
        message: None,
        output: String::new(),
        attempts: 0,
        flaky: false,
        markers: Vec::new(),
    }
}

/// A dynamic static item stands for every pytest item of its function.
fn static_dynamic_covers(items: &[Item], nodeid: &str) -> bool {
    let function = nodeid.split_once('[').map_or(nodeid, |(base, _)| base);
    items.iter().any(|i| i.dynamic.is_some() && i.nodeid.split_once('[').map_or(i.nodeid.as_str(), |(b, _)| b) == function)
}

fn collected_file(nodeid: &str) -> &str {
    nodeid.split_once("::").map_or(nodeid, |(file, _)| file)
}

fn count_files(collection: &proctor_python::Collection) -> usize {
    collection.items.iter().map(|i| collected_file(&i.nodeid)).collect::<HashSet<_>>().len()
}

fn describe_selection(selection: &Selection) -> String {
    let mut parts = Vec::new();
    if let Some(markers) = selection.markers_text() {
        parts.push(format!("-m {markers:?}"));
    }
    if let Some(keywords) = selection.keywords_text() {
        parts.push(format!("-k {keywords:?}"));
    }
    if parts.is_empty() {
        "every item".to_owned()
    } else {
        parts.join(" ")
    }
}

/// The live part of the output: a character per test like pytest's
/// progress, or a line per test with `--verbose`.
struct Progress {
    verbose: bool,
    printed: usize,
}

impl Progress {
    fn new(verbose: bool) -> Self {
        Progress { verbose, printed: 0 }
    }

    fn event(&mut self, event: &Event) {
        let mut out = std::io::stdout().lock();
        match event {
            Event::TestFinished(result) if self.verbose => {
                let _ = writeln!(out, "{} {}", result.nodeid, result.outcome.word().to_uppercase());
            }
            Event::TestFinished(result) => {
                let c = match result.outcome {
                    Outcome::Passed => '.',
                    Outcome::Failed => 'F',
                    Outcome::Error => 'E',
                    Outcome::Skipped => 's',
                    Outcome::Xfailed => 'x',
                    Outcome::Xpassed => 'X',
                    Outcome::Crashed => 'C',
                    Outcome::TimedOut => 'T',
                };
                let _ = write!(out, "{c}");
                self.printed += 1;
                if self.printed.is_multiple_of(80) {
                    let _ = writeln!(out);
                }
            }
            Event::Note { message } => {
                if !self.printed.is_multiple_of(80) {
                    let _ = writeln!(out);
                    self.printed = 0;
                }
                let _ = writeln!(out, "note: {message}");
            }
            _ => {}
        }
        let _ = out.flush();
    }

    fn finish(&mut self) {
        if !self.verbose && !self.printed.is_multiple_of(80) {
            let _ = writeln!(std::io::stdout().lock());
        }
    }
}

fn print_summary(out: &mut Printer, results: &[TestResult], summary: &RunSummary, drift: &[String], failed_to_start: Option<&str>) -> Result<()> {
    if let Some(tail) = failed_to_start {
        writeln!(out, "pytest stopped before running any test:{tail}")?;
    }
    for note in drift {
        writeln!(out, "DRIFT {note}")?;
    }
    let options = proctor_report::SummaryOptions { color: std::io::IsTerminal::is_terminal(&std::io::stdout()), ..proctor_report::SummaryOptions::default() };
    write!(out, "{}", proctor_report::summary(results, summary, &options))?;
    Ok(())
}

fn write_reports(args: &RunArgs, results: &[TestResult], summary: &RunSummary, started_at: &str, selection: &str) -> Result<()> {
    if let Some(path) = &args.json {
        let meta = proctor_report::ReportMeta {
            proctor_version: env!("CARGO_PKG_VERSION").to_owned(),
            started_at: started_at.to_owned(),
            command: std::env::args().collect(),
            selection: Some(selection.to_owned()),
            seed: None,
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

/// Now, as ISO-8601 in UTC (`2026-11-30T01:50:19Z`).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
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
