//! `proctor plan`: what every CI job runs, the tests that no job runs (a
//! finding, exit 1), and what would run on this (or an assumed) machine,
//! with skips grouped by reason like pytest's `-rs`.

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;
use proctor_plan::{plan_jobs, skip_reasons, Facts, Planned, Verdict};
use proctor_taxonomy::Effective;
use serde::Serialize;

use crate::args::PlanArgs;
use crate::commands::machine;
use crate::commands::selection::Selecting;
use crate::commands::suite::Suite;
use crate::exit;
use crate::printer::Printer;

/// Some test is run by no job.
pub(crate) const UNRUN: u8 = 1;

#[derive(Serialize)]
struct JsonPlan<'a> {
    version: u32,
    jobs: &'a [proctor_plan::JobReport],
    unrun: Vec<JsonUnrun<'a>>,
    machine: JsonMachine,
    items: Vec<JsonItem<'a>>,
}

#[derive(Serialize)]
struct JsonUnrun<'a> {
    nodeid: &'a str,
    why: String,
}

#[derive(Serialize)]
struct JsonMachine {
    selection: String,
    runs: usize,
    deselected: usize,
    skipped: BTreeMap<String, usize>,
}

#[derive(Serialize)]
struct JsonItem<'a> {
    nodeid: &'a str,
    here: &'a Verdict,
    jobs: BTreeMap<&'a str, JsonJobVerdict<'a>>,
}

#[derive(Serialize)]
struct JsonJobVerdict<'a> {
    #[serde(flatten)]
    verdict: &'a Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    phase: Option<&'a str>,
}

pub(crate) fn run(args: &PlanArgs) -> Result<u8> {
    let suite = Suite::load(&args.suite)?;
    let selecting = Selecting::new(&suite, &args.selection)?;
    let options = &suite.config.proctor;
    let plan = &options.plan;
    let jobs = machine::job_setups(&suite, args.job.as_deref())?;
    let here: Facts = machine::facts(&suite, &args.machine)?;
    let collection = suite.collect_whole();
    let mut out = Printer::stdout();
    for error in &collection.errors {
        writeln!(out.err(), "error: {}: {}", error.file, error.message)?;
    }
    let effectives: Vec<Effective> = collection.items.iter().map(|item| selecting.taxonomy.effective(item)).collect();
    let planned = plan_jobs(&collection.items, &effectives, &jobs, plan, &options.taxonomy)?;
    let here_verdicts: Vec<Verdict> = collection
        .items
        .iter()
        .zip(&effectives)
        .map(|(item, effective)| proctor_plan::decide(item, effective, &selecting.selection, plan, &here))
        .collect::<Result<_, _>>()?;
    // The audit is over every job: one job alone leaves most tests to the
    // others.
    let audit = !jobs.is_empty() && args.job.is_none();
    let unrun: Vec<usize> = if audit { (0..planned.items.len()).filter(|&i| !planned.items[i].run_by_some_job()).collect() } else { Vec::new() };
    if args.json {
        write_json(&mut out, &planned, &unrun, &here_verdicts, &selecting)?;
    } else {
        write_human(&mut out, &planned, &unrun, &here_verdicts, &selecting, !audit)?;
    }
    out.flush()?;
    if !collection.errors.is_empty() {
        return Ok(exit::INTERRUPTED);
    }
    Ok(if unrun.is_empty() { exit::OK } else { UNRUN })
}

fn write_json(out: &mut Printer, planned: &Planned, unrun: &[usize], here: &[Verdict], selecting: &Selecting) -> Result<()> {
    let doc = JsonPlan {
        version: 1,
        jobs: &planned.jobs,
        unrun: unrun.iter().map(|&i| JsonUnrun { nodeid: &planned.items[i].nodeid, why: planned.items[i].why_unrun(&planned.jobs) }).collect(),
        machine: JsonMachine {
            selection: selecting.describe(),
            runs: here.iter().filter(|v| v.runs()).count(),
            deselected: here.iter().filter(|v| matches!(v, Verdict::Deselected { .. })).count(),
            skipped: skip_reasons(here.iter()),
        },
        items: planned
            .items
            .iter()
            .zip(here)
            .map(|(item, here)| JsonItem {
                nodeid: &item.nodeid,
                here,
                jobs: planned
                    .jobs
                    .iter()
                    .zip(item.verdicts.iter().zip(&item.phases))
                    .map(|(job, (verdict, phase))| (job.name.as_str(), JsonJobVerdict { verdict, phase: phase.as_deref() }))
                    .collect(),
            })
            .collect(),
    };
    serde_json::to_writer(&mut *out, &doc)?;
    writeln!(out)?;
    Ok(())
}

fn write_human(out: &mut Printer, planned: &Planned, unrun: &[usize], here: &[Verdict], selecting: &Selecting, details: bool) -> Result<()> {
    if !planned.jobs.is_empty() {
        let width = planned.jobs.iter().map(|j| j.name.len()).max().unwrap_or(3).max(3);
        writeln!(out, "{:width$}  {:8}  {:8}  {:>8}  {:>7}  {:>6}", "job", "trigger", "kind", "selected", "skipped", "runs")?;
        for job in &planned.jobs {
            let trigger = serde_json::to_value(job.trigger)?.as_str().unwrap_or_default().to_owned();
            let kind = if job.required { "required" } else { "advisory" };
            writeln!(out, "{:width$}  {trigger:8}  {kind:8}  {:>8}  {:>7}  {:>6}", job.name, job.selected, job.skipped, job.runs)?;
            if !job.phases.is_empty() {
                let phases: Vec<String> = job.phases.iter().filter(|(_, n)| *n > 0).map(|(name, n)| format!("{name} {n}")).collect();
                writeln!(out, "{:width$}  phases: {}", "", phases.join(" → "))?;
            }
        }
        if details {
            for (index, job) in planned.jobs.iter().enumerate() {
                let reasons = skip_reasons(planned.items.iter().map(|item| &item.verdicts[index]));
                write_reasons(out, &format!("skipped in job `{}`", job.name), &reasons)?;
            }
        }
        writeln!(out)?;
        // One job alone leaves most tests to the others: no audit then.
        if !details {
            if unrun.is_empty() {
                writeln!(out, "Every test is run by at least one job.")?;
            } else {
                writeln!(out, "{} test{} run by no job:", unrun.len(), if unrun.len() == 1 { " is" } else { "s are" })?;
                for &i in unrun {
                    let item = &planned.items[i];
                    writeln!(out, "  {}", item.nodeid)?;
                    writeln!(out, "    {}", item.why_unrun(&planned.jobs))?;
                }
            }
            writeln!(out)?;
        }
    }
    let runs = here.iter().filter(|v| v.runs()).count();
    let deselected = here.iter().filter(|v| matches!(v, Verdict::Deselected { .. })).count();
    let reasons = skip_reasons(here.iter());
    let skipped: usize = reasons.values().sum();
    writeln!(out, "On this machine ({}): {runs} run, {skipped} skipped, {deselected} deselected.", selecting.describe())?;
    write_reasons(out, "skipped here", &reasons)?;
    Ok(())
}

/// `SKIPPED [n] reason` lines, like pytest's `-rs` summary.
fn write_reasons(out: &mut Printer, title: &str, reasons: &BTreeMap<String, usize>) -> Result<()> {
    if reasons.is_empty() {
        return Ok(());
    }
    writeln!(out, "{title}:")?;
    let mut sorted: Vec<(&String, &usize)> = reasons.iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (reason, count) in sorted {
        writeln!(out, "  SKIPPED [{count}] {reason}")?;
    }
    Ok(())
}
