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
use crate::settings::{Env, PlanSettings};

/// Some test is run by no job.
pub(crate) const UNRUN: u8 = 1;

/// The start of the verdict of an item a run without paths does not reach.
const OUTSIDE_BARE_RUN: &str = "outside a run without paths: pytest's testpaths do not reach it";

/// The example or notebook folder beyond pytest's walk that holds `item`.
fn beyond_walk<'c>(
    collection: &'c proctor_python::Collection,
    item: &proctor_python::Item,
) -> Option<&'c str> {
    let file = proctor_python::collected_file(&item.nodeid);
    collection
        .beyond_walk
        .iter()
        .map(String::as_str)
        .find(|dir| file.starts_with(dir) && file[dir.len()..].starts_with('/'))
}

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
    /// Known items only; dynamic ones are counted in `dynamic`.
    runs: usize,
    deselected: usize,
    skipped: BTreeMap<String, usize>,
    dynamic: DynamicCounts,
    /// Items beyond a run without paths (example and notebook folders
    /// that pytest's testpaths do not reach).
    outside: usize,
}

/// Dynamic items (test functions whose parameter count pytest only knows
/// at run time) by verdict: each is one function, not one test.
#[derive(Serialize, Default)]
struct DynamicCounts {
    runs: usize,
    skipped: usize,
    deselected: usize,
    /// Items of the example and notebook folders beyond pytest's walk, which
    /// a run without paths does not reach (counted nowhere else).
    #[serde(skip)]
    outside: usize,
}

/// The verdicts of known items in a run without paths, the counts of
/// dynamic ones, and how many items are beyond that run.
fn split_dynamic<'v>(
    collection: &proctor_python::Collection,
    here: &'v [Verdict],
) -> (Vec<&'v Verdict>, DynamicCounts) {
    let mut known = Vec::with_capacity(here.len());
    let mut dynamic = DynamicCounts::default();
    for (item, verdict) in collection.items.iter().zip(here) {
        if beyond_walk(collection, item).is_some() {
            dynamic.outside += 1;
            continue;
        }
        match (item.dynamic.is_some(), verdict) {
            (false, _) => known.push(verdict),
            (true, Verdict::Run) => dynamic.runs += 1,
            (true, Verdict::Skipped { .. }) => dynamic.skipped += 1,
            (true, Verdict::Deselected { .. }) => dynamic.deselected += 1,
        }
    }
    (known, dynamic)
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
    let mut suite = Suite::load(&args.suite, &Env::process())?;
    let settings = PlanSettings::resolve(args, &suite.config.proctor)?;
    suite.use_interpreter(args.machine.probe.python.as_deref());
    let selecting = Selecting::resolved(&suite, &settings.selection, &[])?;
    let options = &suite.config.proctor;
    let plan = &options.plan;
    let jobs = machine::job_setups(&suite, settings.job.as_deref())?;
    let here: Facts = machine::facts(&suite, &args.machine)?;
    let collection = suite.collect_whole();
    let mut out = Printer::stdout();
    for error in &collection.errors {
        writeln!(out.err(), "error: {}: {}", error.file, error.message)?;
    }
    let effectives: Vec<Effective> = collection
        .items
        .iter()
        .map(|item| selecting.taxonomy.effective(item))
        .collect();
    let planned = plan_jobs(
        &collection.items,
        &effectives,
        &jobs,
        plan,
        &options.taxonomy,
    )?;
    let here_verdicts: Vec<Verdict> = collection
        .items
        .iter()
        .zip(&effectives)
        .map(|(item, effective)| match beyond_walk(&collection, item) {
            // The same rule as `run`: a command without paths covers
            // pytest's walk; the example and notebook folders beyond it
            // are planned for the jobs that name them, not for a bare run.
            Some(dir) => Ok(Verdict::Deselected {
                by: format!("{OUTSIDE_BARE_RUN} (`proctor run {dir}` runs it)"),
            }),
            None => proctor_plan::decide(item, effective, &selecting.selection, plan, &here),
        })
        .collect::<Result<_, _>>()?;
    // The audit is over every job: one job alone leaves most tests to the
    // others.
    let audit = !jobs.is_empty() && settings.job.is_none();
    let unrun: Vec<usize> = if audit {
        (0..planned.items.len())
            .filter(|&i| !planned.items[i].run_by_some_job())
            .collect()
    } else {
        Vec::new()
    };
    if settings.json {
        write_json(
            &mut out,
            &planned,
            &unrun,
            &collection,
            &here_verdicts,
            &selecting,
        )?;
    } else {
        write_human(
            &mut out,
            &planned,
            &unrun,
            &collection,
            &here_verdicts,
            &selecting,
            !audit,
        )?;
    }
    out.flush()?;
    if !collection.errors.is_empty() {
        return Ok(exit::INTERRUPTED);
    }
    Ok(if unrun.is_empty() { exit::OK } else { UNRUN })
}

fn write_json(
    out: &mut Printer,
    planned: &Planned,
    unrun: &[usize],
    collection: &proctor_python::Collection,
    here: &[Verdict],
    selecting: &Selecting,
) -> Result<()> {
    let (known, dynamic) = split_dynamic(collection, here);
    let outside = dynamic.outside;
    let doc = JsonPlan {
        version: 1,
        jobs: &planned.jobs,
        unrun: unrun
            .iter()
            .map(|&i| JsonUnrun {
                nodeid: &planned.items[i].nodeid,
                why: planned.items[i].why_unrun(&planned.jobs),
            })
            .collect(),
        machine: JsonMachine {
            selection: selecting.describe(),
            runs: known.iter().filter(|v| v.runs()).count(),
            deselected: known
                .iter()
                .filter(|v| matches!(v, Verdict::Deselected { .. }))
                .count(),
            skipped: machine_skips(collection, &known),
            dynamic,
            outside,
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
                    .map(|(job, (verdict, phase))| {
                        (
                            job.name.as_str(),
                            JsonJobVerdict {
                                verdict,
                                phase: phase.as_deref(),
                            },
                        )
                    })
                    .collect(),
            })
            .collect(),
    };
    serde_json::to_writer(&mut *out, &doc)?;
    writeln!(out)?;
    Ok(())
}

fn write_human(
    out: &mut Printer,
    planned: &Planned,
    unrun: &[usize],
    collection: &proctor_python::Collection,
    here: &[Verdict],
    selecting: &Selecting,
    details: bool,
) -> Result<()> {
    if !planned.jobs.is_empty() {
        let width = planned
            .jobs
            .iter()
            .map(|j| j.name.len())
            .max()
            .unwrap_or(3)
            .max(3);
        // Dynamic items are functions, not tests: a column of their own,
        // shown when there are any.
        let dynamic = planned.jobs.iter().any(|j| j.dynamic_runs > 0);
        write!(
            out,
            "{:width$}  {:8}  {:8}  {:>8}  {:>7}  {:>6}",
            "job", "trigger", "kind", "selected", "skipped", "runs"
        )?;
        writeln!(out, "{}", if dynamic { "  +dynamic" } else { "" })?;
        for job in &planned.jobs {
            let trigger = serde_json::to_value(job.trigger)?
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let kind = if job.required { "required" } else { "advisory" };
            write!(
                out,
                "{:width$}  {trigger:8}  {kind:8}  {:>8}  {:>7}  {:>6}",
                job.name, job.selected, job.skipped, job.runs
            )?;
            if dynamic {
                write!(out, "  {:>8}", job.dynamic_runs)?;
            }
            writeln!(out)?;
            if !job.phases.is_empty() {
                let phases: Vec<String> = job
                    .phases
                    .iter()
                    .filter(|(_, n)| *n > 0)
                    .map(|(name, n)| format!("{name} {n}"))
                    .collect();
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
                writeln!(
                    out,
                    "{} test{} run by no job:",
                    unrun.len(),
                    if unrun.len() == 1 { " is" } else { "s are" }
                )?;
                for &i in unrun {
                    let item = &planned.items[i];
                    writeln!(out, "  {}", item.nodeid)?;
                    writeln!(out, "    {}", item.why_unrun(&planned.jobs))?;
                }
            }
            writeln!(out)?;
        }
    }
    let (known, dynamic) = split_dynamic(collection, here);
    let runs = known.iter().filter(|v| v.runs()).count();
    let deselected = known
        .iter()
        .filter(|v| matches!(v, Verdict::Deselected { .. }))
        .count();
    let reasons = machine_skips(collection, &known);
    let skipped: usize = reasons.values().sum();
    write!(
        out,
        "On this machine ({}): {runs} run, {skipped} skipped, {deselected} deselected",
        selecting.describe()
    )?;
    if dynamic.runs > 0 {
        let (s, whose) = if dynamic.runs == 1 {
            ("", "whose")
        } else {
            ("s", "whose")
        };
        write!(out, "; plus {} dynamic item{s} that run{} (a test function or file {whose} tests pytest knows only at run time)", dynamic.runs, if dynamic.runs == 1 { "s" } else { "" })?;
    }
    writeln!(out, ".")?;
    if dynamic.outside > 0 {
        let folders: Vec<&str> = collection.beyond_walk.iter().map(String::as_str).collect();
        writeln!(
            out,
            "Not in a run without paths: {} item{} of {} (pytest's testpaths do not reach {}; `proctor run {}` runs {}).",
            dynamic.outside,
            if dynamic.outside == 1 { "" } else { "s" },
            folders.join(", "),
            if folders.len() == 1 { "it" } else { "them" },
            folders.join(" "),
            if dynamic.outside == 1 { "it" } else { "them" },
        )?;
    }
    write_reasons(out, "skipped here", &reasons)?;
    Ok(())
}

/// Skip reasons on this machine: the items', and one per test module
/// pytest skips while importing it (as pytest counts them).
fn machine_skips(
    collection: &proctor_python::Collection,
    known: &[&Verdict],
) -> BTreeMap<String, usize> {
    let mut reasons = skip_reasons(known.iter().copied());
    for skip in &collection.skipped {
        *reasons.entry(skip.message.clone()).or_insert(0) += 1;
    }
    reasons
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
