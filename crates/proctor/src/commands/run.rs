//! `proctor run`: the suite through real pytest, as wiring. The arguments
//! and the configuration become the run's settings and rules
//! (`run_plan::Setup`), static collection becomes the [`RunPlan`]
//! (`run_plan::plan`), `proctor_run`'s [`Runner`] carries it out (phases,
//! services, pytest processes, reruns, drift) and reports typed events;
//! the live progress and everything written after the tests (summary,
//! history, JSON, `JUnit` and HTML reports) consume them.
//!
//! [`RunPlan`]: proctor_run::RunPlan

use std::time::{Instant, SystemTime};

use anyhow::Result;
use proctor_run::{Reporters, Runner};

use crate::args::RunArgs;
use crate::commands::run_plan::{self, describe_selection, Setup};
use crate::commands::run_progress::{self, Progress};
use crate::commands::run_report::Finish;
use crate::commands::run_rules::RunDecider;
use crate::printer::Printer;

pub(crate) fn run(args: &RunArgs) -> Result<u8> {
    let started = Instant::now();
    let started_at = SystemTime::now();
    let (mut setup, parts) = Setup::load(args)?;
    let early = setup.early.take();
    let Setup {
        ref suite,
        ref base,
        ref runs_dir,
        ref own_dir,
        ref history_path,
        ..
    } = setup;
    let mut rules = parts.into_rules(suite);
    let mut planned = run_plan::plan(args, &setup, &mut rules)?;
    let collection = &setup.collection;
    let mut out = Printer::stdout();
    if args.collect_only {
        drop(early);
        return run_plan::collect_only(&mut out, &setup, &rules, &planned);
    }
    run_plan::print_header(&mut out, args, &setup, &rules, &planned)?;
    // On screen before the live status line, which is drawn through a
    // descriptor of its own.
    std::io::Write::flush(&mut out)?;
    // The recorded durations of the tests to run, for the ETA of the live
    // status line (read only when there is one).
    let expected = if run_progress::live(args.verbose, args.quiet) && !args.no_history {
        planned.expected_durations(collection, history_path)
    } else {
        std::collections::HashMap::new()
    };
    // Each static item's effective markers are read after the tests only
    // for the JSON and HTML reports' jobs × tiers matrix, which a suite
    // without `[jobs]` has none of: else not held while pytest runs (a few
    // hundred bytes an item, tens of MB on 100,000 tests).
    planned.forget_statics();
    let jobs_matrix =
        (args.json.is_some() || args.html.is_some()) && !suite.config.proctor.plan.jobs.is_empty();
    let effectives = std::mem::take(&mut setup.effectives);
    let effectives = if jobs_matrix {
        effectives
    } else {
        drop(effectives);
        Vec::new()
    };
    let opt_in = crate::commands::run_opt_in::write_manifest(
        &own_dir.path,
        &suite.config.pytest.rootdir,
        collection,
        &suite.config.proctor,
    )?;
    let decider = RunDecider::new(&rules, collection, &planned.plan.static_ids);
    // The decider keeps what it reads of the static items: the run holds
    // them while pytest runs only for what it reads after the tests.
    keep_for_after(&mut setup.collection, jobs_matrix);
    let collection = &setup.collection;
    let runner = Runner {
        base: base.clone(),
        early,
        plan_options: &suite.config.proctor.plan,
        reruns: &suite.config.proctor.run.reruns,
        rootdir: &suite.config.pytest.rootdir,
        log_dir: runs_dir,
        opt_in,
        started,
    };
    let mut progress = Progress::new(args.verbose, args.quiet, expected);
    let mut finish = Finish {
        out,
        args,
        suite,
        collection,
        effectives: &effectives,
        selection: describe_selection(&rules.selection),
        started_at,
        shard: planned.shard.take(),
        history_path: history_path.clone(),
        error: None,
    };
    let finished = runner.run(
        &planned.plan,
        &decider,
        &mut Reporters(vec![&mut progress, &mut finish]),
    )?;
    if let Some(err) = finish.error.take() {
        return Err(err);
    }
    record_expansions(args, suite, collection, &decider, started_at);
    let code = finished.wait(&mut progress);
    Ok(u8::try_from(code).unwrap_or(1))
}

/// Drops the static items nothing reads after the tests, before pytest
/// runs (a few hundred bytes an item): all are kept for the reports' jobs
/// × tiers matrix (`jobs_matrix`), else only the items of the functions
/// whose collected items are recorded, which is all [`record_expansions`]
/// reads of them.
fn keep_for_after(collection: &mut proctor_python::Collection, jobs_matrix: bool) {
    if jobs_matrix {
        return;
    }
    let functions: std::collections::HashSet<String> =
        crate::commands::run_rules::recorded_functions(collection)
            .into_iter()
            .map(str::to_owned)
            .collect();
    collection
        .items
        .retain(|item| functions.contains(proctor_python::function_nodeid(&item.nodeid)));
    collection.items.shrink_to_fit();
}

/// Records in the collection cache the items pytest collected for the
/// functions static collection calls dynamic ([recorded expansions]),
/// unless pytest itself selected among the items (`-k`, `-m`,
/// `--deselect`, its own `--lf` or `--sw`, in the arguments after `--` or
/// in `addopts`): then what the bridge saw is not the whole function.
///
/// [recorded expansions]: proctor_python::record_expansions
fn record_expansions(
    args: &RunArgs,
    suite: &crate::commands::suite::Suite,
    collection: &proctor_python::Collection,
    decider: &RunDecider<'_>,
    started_at: SystemTime,
) {
    const SELECTING: [&str; 7] = [
        "-k",
        "-m",
        "--deselect",
        "--lf",
        "--last-failed",
        "--sw",
        "--stepwise",
    ];
    let selects = |token: &String| {
        SELECTING.iter().any(|option| {
            token == option
                || token.starts_with(&format!("{option}="))
                || (option.len() == 2 && token.starts_with(option))
        })
    };
    if args.pytest_args.iter().any(selects) || suite.config.pytest.addopts.iter().any(selects) {
        return;
    }
    let run = crate::commands::run_report::utc(started_at);
    proctor_python::record_expansions(&suite.collect, collection, &decider.collected_ids(), &run);
}

#[cfg(test)]
mod tests {
    use proctor_python::{Collection, Item};

    use super::keep_for_after;

    fn item(nodeid: &str, dynamic: bool) -> Item {
        Item {
            nodeid: nodeid.to_owned(),
            file: "tests/test_a.py".to_owned(),
            line: 1,
            markers: Vec::new(),
            dynamic: dynamic.then(|| "parametrize values from a call".to_owned()),
            decorators: Vec::new(),
            skip: None,
            markers_uncertain: None,
        }
    }

    fn collection() -> Collection {
        let mut collection = Collection {
            items: vec![
                item("tests/test_a.py::test_plain[0]", false),
                item("tests/test_a.py::test_dynamic", true),
                item("tests/test_a.py::test_recorded[1]", false),
                item("tests/test_a.py::test_recorded[2]", false),
            ],
            ..Collection::default()
        };
        collection.recorded.insert(
            "tests/test_a.py::test_recorded".to_owned(),
            "run".to_owned(),
        );
        collection
    }

    #[test]
    fn only_the_recorded_functions_items_outlive_the_decisions() {
        let mut kept = collection();
        keep_for_after(&mut kept, false);
        let ids: Vec<&str> = kept.items.iter().map(|i| i.nodeid.as_str()).collect();
        assert_eq!(
            ids,
            [
                "tests/test_a.py::test_dynamic",
                "tests/test_a.py::test_recorded[1]",
                "tests/test_a.py::test_recorded[2]"
            ]
        );
        // The reports' jobs × tiers matrix reads every item.
        let mut all = collection();
        keep_for_after(&mut all, true);
        assert_eq!(all.items.len(), 4);
    }
}
