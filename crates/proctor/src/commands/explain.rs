//! `proctor explain NODEID`: an item's effective markers with where each
//! comes from, which selections pick it, what it needs from the machine,
//! which gates apply, and what each CI job does with it.

use std::io::Write;

use anyhow::{bail, Result};
use proctor_taxonomy::{describe_provenance, Decision, Note, Selection};

use crate::args::{ExplainArgs, SelectionArgs, SuiteArgs};
use crate::commands::selection::Selecting;
use crate::commands::suite::Suite;
use crate::exit;
use crate::printer::Printer;
use crate::settings::Env;

pub(crate) fn run(args: &ExplainArgs) -> Result<u8> {
    // Collect only the files the node ids name.
    let mut paths: Vec<String> = args
        .nodeids
        .iter()
        .map(|n| proctor_python::collected_file(n).to_owned())
        .collect();
    paths.dedup();
    let suite_args = SuiteArgs {
        no_cache: args.no_cache,
        ..SuiteArgs::with(&args.config, paths)
    };
    let suite = Suite::load(&suite_args, &Env::process())?;
    let selecting = Selecting::new(&suite, &args.selection)?;
    let collection = suite.collect();
    // The verdict of every other profile, with the same -m / -k.
    let mut alternatives = Vec::new();
    for (name, profile) in &suite.config.proctor.profiles {
        if args.selection.profile.as_deref() == Some(name.as_str()) {
            continue;
        }
        let alternative = SelectionArgs {
            markers: args.selection.markers.clone(),
            keywords: args.selection.keywords.clone(),
            profile: Some(name.clone()),
            no_default_select: args.selection.no_default_select,
        };
        let label = profile.description.as_deref().map_or_else(
            || format!("profile {name}"),
            |d| format!("profile {name} ({d})"),
        );
        alternatives.push((label, Selecting::new(&suite, &alternative)?));
    }
    let jobs = crate::commands::machine::job_setups(&suite, None)?;
    let mut out = Printer::stdout();
    for error in &collection.errors {
        writeln!(out.err(), "error: {}: {}", error.file, error.message)?;
    }
    let mut found = 0;
    for wanted in &args.nodeids {
        let wanted = relative_nodeid(&suite, wanted);
        let items: Vec<_> = collection
            .items
            .iter()
            .filter(|i| proctor_python::nodeid_matches(&i.nodeid, &wanted))
            .collect();
        if items.is_empty() {
            // With one node id, the error below says it; with several, say
            // which ones match nothing.
            if args.nodeids.len() > 1 {
                writeln!(out.err(), "proctor: no item matches {wanted}")?;
            }
            continue;
        }
        for item in items {
            found += 1;
            let effective = selecting.taxonomy.effective(item);
            writeln!(out, "{}", item.nodeid)?;
            if item.line == 0 {
                // A whole file: an example, a notebook, a doctest file.
                writeln!(out, "  defined at {}", item.file)?;
            } else {
                writeln!(out, "  defined at {}:{}", item.file, item.line)?;
            }
            if let Some(reason) = &item.dynamic {
                writeln!(out, "  dynamic: {reason}")?;
            }
            if let Some(run) = collection.recorded_in(&item.nodeid) {
                writeln!(out, "  recorded in the run of {run}")?;
            }
            writeln!(out, "  markers:")?;
            if effective.markers.is_empty() {
                writeln!(out, "    (none)")?;
            }
            let width = effective
                .markers
                .iter()
                .map(|m| m.name.len())
                .max()
                .unwrap_or(0);
            for marker in &effective.markers {
                let at = marker
                    .location()
                    .map(|l| format!(" ({}:{})", l.file, l.line))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "    {:width$}  {}{at}",
                    marker.name,
                    describe_provenance(&marker.provenance)
                )?;
            }
            for note in &effective.notes {
                writeln!(out, "  note: {}", describe_note(note))?;
            }
            writeln!(out, "  selection:")?;
            writeln!(
                out,
                "    {}: {}",
                selecting.describe(),
                verdict(&selecting.selection, item, &effective)?
            )?;
            for (label, other) in &alternatives {
                writeln!(
                    out,
                    "    {label}, {}: {}",
                    other.describe(),
                    verdict(&other.selection, item, &effective)?
                )?;
            }
            let plan = &suite.config.proctor.plan;
            let needs = proctor_plan::needs(item, &effective, plan);
            if !needs.is_empty() {
                writeln!(out, "  needs:")?;
                for need in &needs {
                    writeln!(out, "    {}  (from {})", need.requirement, need.origin)?;
                }
            }
            let gates: Vec<&String> = plan
                .gates
                .iter()
                .map(|(marker, _)| marker)
                .filter(|marker| effective.has(marker))
                .collect();
            if !gates.is_empty() {
                let names: Vec<String> = gates.iter().map(|m| format!("`{m}`")).collect();
                writeln!(out, "  gates: {}", names.join(", "))?;
            }
            if !jobs.is_empty() {
                writeln!(out, "  jobs:")?;
                for job in &jobs {
                    let verdict = proctor_plan::job_verdict(item, &effective, job, plan)?;
                    let text = match verdict {
                        proctor_plan::Verdict::Run => "runs".to_owned(),
                        proctor_plan::Verdict::Deselected { by } => format!("deselected by {by}"),
                        proctor_plan::Verdict::Skipped { reason } => format!("skipped: {reason}"),
                    };
                    writeln!(out, "    {}: {text}", job.name)?;
                }
            }
        }
    }
    out.flush()?;
    if found == 0 {
        bail!("no item matches {}", args.nodeids.join(", "));
    }
    Ok(exit::OK)
}

fn verdict(
    selection: &Selection,
    item: &proctor_python::Item,
    effective: &proctor_taxonomy::Effective,
) -> Result<&'static str> {
    Ok(match selection.decide(item, effective)? {
        Decision::Selected => "selected",
        Decision::DeselectedByKeyword => "deselected by -k",
        Decision::DeselectedByMarker => "deselected by -m",
    })
}

fn describe_note(note: &Note) -> String {
    match note {
        Note::Alias {
            written, target, ..
        } => format!("`{written}` is an alias of `{target}`"),
        Note::Deprecated { name, .. } => format!("`{name}` is deprecated"),
        Note::Removed { name, message, .. } => format!("`{name}` was removed: {message}"),
    }
}

/// A node id as given on the command line, relative to the rootdir (the
/// way node ids are written) when it was given relative to the current
/// directory.
fn relative_nodeid(suite: &Suite, wanted: &str) -> String {
    let (path, rest) = wanted
        .split_once("::")
        .map_or((wanted, None), |(p, r)| (p, Some(r)));
    let absolute = proctor_python::normalize(&suite.cwd.join(path));
    let relative = suite.collect.relative(&absolute);
    match rest {
        Some(rest) => format!("{relative}::{rest}"),
        None => relative,
    }
}
