//! CI jobs: each job's selection and runner, what it runs, its phases, and
//! the audit the seed projects do by hand — every test is run by at least
//! one job, and those that are not are named with the reason.

use std::collections::BTreeMap;

use proctor_config::{JobOptions, JobPhaseOptions, PlanOptions, TaxonomyOptions, Trigger};
use proctor_expr::KeywordCallError;
use proctor_python::{nodeid_matches, Item};
use proctor_taxonomy::{Effective, Origin, Selection, SelectionError};
use serde::Serialize;

use crate::decide::{decide, Verdict};
use crate::facts::{Facts, ServiceFact};

/// A job ready to plan.
#[derive(Debug, Clone)]
pub struct JobSetup {
    /// Its name in `[jobs]`.
    pub name: String,
    /// Its options.
    pub options: JobOptions,
    /// Its selection (default and job expressions).
    pub selection: Selection,
    /// Its runner.
    pub facts: Facts,
    /// Where pytest starts when the job names no `paths`: `testpaths`
    /// (empty: everything collected). Items outside, such as examples
    /// `check` and `plan` collect from their own folders, are not run.
    pub walk: Vec<String>,
}

/// The selection of a job: the default (unless `use-default = false`),
/// then the job's `markers` and `keywords`, all by `and`.
pub fn job_selection(
    name: &str,
    job: &JobOptions,
    default: Option<(&str, Origin)>,
) -> Result<Selection, SelectionError> {
    let mut selection = Selection::default();
    if job.use_default {
        if let Some((text, origin)) = default {
            selection.add_markers(text, origin)?;
        }
    }
    let origin = Origin::Job {
        name: name.to_owned(),
    };
    if let Some(markers) = &job.markers {
        selection.add_markers(markers, origin.clone())?;
    }
    if let Some(keywords) = &job.keywords {
        selection.add_keywords(keywords, origin)?;
    }
    Ok(selection)
}

/// What a job's runner offers before its `assume` entries: the job's
/// environment and flags, the services it starts (up, at their default
/// address), its first Python version and the OS of its runner. GPUs:
/// none; RAM, packages and programs: unknown (not checked).
#[must_use]
pub fn job_facts(job: &JobOptions, plan: &PlanOptions) -> Facts {
    let services = job
        .services
        .iter()
        .map(|name| {
            let address = plan
                .service(name)
                .map_or_else(String::new, |s| s.default_address.clone());
            (name.clone(), ServiceFact { up: true, address })
        })
        .collect();
    let runs_on = job.runs_on.as_deref().unwrap_or("ubuntu-latest");
    let os = if runs_on.contains("macos") {
        "macos"
    } else if runs_on.contains("windows") {
        "windows"
    } else {
        "linux"
    };
    Facts {
        env: job.env.clone(),
        services,
        python: job
            .python
            .first()
            .and_then(|v| proctor_config::parse_version(v)),
        os: os.to_owned(),
        flags: job.flags.clone(),
        ..Facts::default()
    }
}

/// One job's figures.
#[derive(Debug, Clone, Serialize)]
pub struct JobReport {
    /// The job's name.
    pub name: String,
    /// When it runs.
    pub trigger: Trigger,
    /// Whether its failure blocks merging.
    pub required: bool,
    /// Items its selection picks (known items only: a dynamic item is a
    /// function whose tests pytest only knows at run time).
    pub selected: usize,
    /// Selected items skipped by a gate or an unmet need.
    pub skipped: usize,
    /// Items it runs.
    pub runs: usize,
    /// Dynamic items it runs: test functions whose parameter count is
    /// known only at run time, counted apart from `runs`.
    pub dynamic_runs: usize,
    /// Items run per phase, in order (empty without phases).
    pub phases: Vec<(String, usize)>,
}

/// One item across the jobs.
#[derive(Debug, Clone, Serialize)]
pub struct ItemPlan {
    /// Its node id.
    pub nodeid: String,
    /// Its verdict in each job, in the jobs' order.
    pub verdicts: Vec<Verdict>,
    /// Its phase in each job that has phases and runs it.
    pub phases: Vec<Option<String>>,
}

impl ItemPlan {
    /// Whether some job runs it.
    #[must_use]
    pub fn run_by_some_job(&self) -> bool {
        self.verdicts.iter().any(Verdict::runs)
    }

    /// Why no job runs it, one clause per job.
    #[must_use]
    pub fn why_unrun(&self, jobs: &[JobReport]) -> String {
        let clauses: Vec<String> = jobs
            .iter()
            .zip(&self.verdicts)
            .map(|(job, verdict)| match verdict {
                Verdict::Deselected { by } => format!("`{}`: deselected by {by}", job.name),
                Verdict::Skipped { reason } => {
                    format!("`{}`: selected but skipped ({reason})", job.name)
                }
                Verdict::Run => format!("`{}`: runs", job.name),
            })
            .collect();
        clauses.join("; ")
    }
}

/// The whole plan.
#[derive(Debug, Clone, Serialize)]
pub struct Planned {
    /// Per job, in configuration order.
    pub jobs: Vec<JobReport>,
    /// Per item, in collection order.
    pub items: Vec<ItemPlan>,
}

/// Plans every item in every job.
pub fn plan_jobs(
    items: &[Item],
    effectives: &[Effective],
    jobs: &[JobSetup],
    plan: &PlanOptions,
    taxonomy: &TaxonomyOptions,
) -> Result<Planned, KeywordCallError> {
    let mut reports: Vec<JobReport> = jobs
        .iter()
        .map(|job| JobReport {
            name: job.name.clone(),
            trigger: job.options.trigger,
            required: job.options.required,
            selected: 0,
            skipped: 0,
            runs: 0,
            dynamic_runs: 0,
            phases: job.options.phases.as_ref().map_or_else(Vec::new, |p| {
                phase_names(p, taxonomy)
                    .into_iter()
                    .map(|n| (n, 0))
                    .collect()
            }),
        })
        .collect();
    let mut planned = Vec::with_capacity(items.len());
    for (item, effective) in items.iter().zip(effectives) {
        let mut verdicts = Vec::with_capacity(jobs.len());
        let mut phases = Vec::with_capacity(jobs.len());
        for (job, report) in jobs.iter().zip(&mut reports) {
            let verdict = job_verdict(item, effective, job, plan)?;
            match &verdict {
                Verdict::Run if item.dynamic.is_some() => report.dynamic_runs += 1,
                Verdict::Skipped { .. } | Verdict::Deselected { .. } if item.dynamic.is_some() => {}
                Verdict::Run => {
                    report.selected += 1;
                    report.runs += 1;
                }
                Verdict::Skipped { .. } => {
                    report.selected += 1;
                    report.skipped += 1;
                }
                Verdict::Deselected { .. } => {}
            }
            let phase = match (&job.options.phases, verdict.runs()) {
                (Some(options), true) => {
                    let name = phase_of(effective, options, taxonomy);
                    if let Some(entry) = report.phases.iter_mut().find(|(n, _)| *n == name) {
                        entry.1 += 1;
                    }
                    Some(name)
                }
                _ => None,
            };
            verdicts.push(verdict);
            phases.push(phase);
        }
        planned.push(ItemPlan {
            nodeid: item.nodeid.clone(),
            verdicts,
            phases,
        });
    }
    Ok(Planned {
        jobs: reports,
        items: planned,
    })
}

/// What job `job` does with the item: deselects it when it is outside the
/// job's `paths` (else outside what pytest walks for it), else what its
/// selection, gates and facts decide. The one answer to "does job J run
/// item I", for `plan` and `explain` alike.
pub fn job_verdict(
    item: &Item,
    effective: &Effective,
    job: &JobSetup,
    plan: &PlanOptions,
) -> Result<Verdict, KeywordCallError> {
    let (paths, what) = if job.options.paths.is_empty() {
        (&job.walk, "pytest's testpaths")
    } else {
        (&job.options.paths, "the job's paths")
    };
    if in_paths(item, paths) {
        decide(item, effective, &job.selection, plan, &job.facts)
    } else {
        Ok(Verdict::Deselected {
            by: format!("{what} ({})", paths.join(", ")),
        })
    }
}

/// Whether the item is under one of the job's paths (every item when the
/// job has none).
fn in_paths(item: &Item, paths: &[String]) -> bool {
    paths.is_empty()
        || paths.iter().any(|path| {
            let path = path.trim_end_matches('/');
            path == "."
                || nodeid_matches(&item.nodeid, path)
                || item.nodeid.starts_with(&format!("{path}/"))
        })
}

/// The name of the phase for items without a marker of the axis.
pub const NO_PHASE_MARKER: &str = "(none)";

/// The phases of `options` in order: `order`, then the axis's other
/// markers, then the items with none.
#[must_use]
pub fn phase_names(options: &JobPhaseOptions, taxonomy: &TaxonomyOptions) -> Vec<String> {
    let mut names = options.order.clone();
    if let Some((_, axis)) = taxonomy.axes.iter().find(|(n, _)| *n == options.by) {
        for marker in &axis.markers {
            if !names.contains(marker) {
                names.push(marker.clone());
            }
        }
    }
    names.push(NO_PHASE_MARKER.to_owned());
    names
}

/// The first phase (in phase order) whose marker the item has.
fn phase_of(
    effective: &Effective,
    options: &JobPhaseOptions,
    taxonomy: &TaxonomyOptions,
) -> String {
    phase_names(options, taxonomy)
        .into_iter()
        .find(|name| effective.has(name))
        .unwrap_or_else(|| NO_PHASE_MARKER.to_owned())
}

/// Counts by reason, for summaries like pytest's `-rs`.
#[must_use]
pub fn skip_reasons<'a>(verdicts: impl Iterator<Item = &'a Verdict>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for verdict in verdicts {
        if let Verdict::Skipped { reason } = verdict {
            *counts.entry(reason.clone()).or_insert(0) += 1;
        }
    }
    counts
}
