//! `proctor run` before anything runs: the arguments and the suite's
//! configuration resolved into the run's settings ([`Setup`], with the
//! [`Rules`] every item is decided by), then the [`RunPlan`]: the static
//! pass over the collection that gives each item its verdict, the shard,
//! the phases with their files and services, the tests skipped without
//! pytest. Static collection decides which files pytest must import at
//! all (a module whose every test is deselected, gated or in another shard
//! is not imported; its gated tests are reported skipped with their
//! reason).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::time::SystemTime;

use anyhow::{anyhow, bail, Context, Result};
use proctor_plan::{Facts, Verdict};
use proctor_python::{collected_file, Collection, Item};
use proctor_run::{Dist, ItemPlan, Outcome, PhaseOptions, RunPlan, Started, TestResult};
use proctor_taxonomy::{Effective, Selection, Taxonomy};

use crate::args::{DistArg, RunArgs};
use crate::commands::machine;
use crate::commands::run_flags::{self, LastFailed, Xdist};
use crate::commands::run_order::{self, Order};
use crate::commands::run_rules::{skipped_at_import, Rules, StaticVerdict};
use crate::commands::selection::{self, Selecting};
use crate::commands::suite::Suite;
use crate::printer::Printer;
use crate::settings::{Env, OrderKind, RunSettings};

/// Durations from this many of each test's last results balance shards.
const HISTORY_WINDOW: usize = 10;

/// The run's settings, and what was read or started to get them.
pub(crate) struct Setup {
    pub(crate) suite: Suite,
    /// pytest-xdist workers that `addopts` ask for, turned off.
    pub(crate) xdist: Option<Xdist>,
    /// The options every pytest process starts from.
    pub(crate) base: PhaseOptions,
    /// `.proctor/run/`: the plugin and the services' logs.
    pub(crate) runs_dir: PathBuf,
    /// This run's own directory, removed when the run ends.
    pub(crate) own_dir: RunDir,
    pub(crate) history_path: PathBuf,
    /// pytest, started before the suite is read (one phase, no service).
    pub(crate) early: Option<Started>,
    pub(crate) collection: Collection,
    /// Effective markers of the static items, once for every use.
    pub(crate) effectives: Vec<Effective>,
}

/// What [`Rules`] are made of, apart from the configuration they borrow.
pub(crate) struct RuleParts {
    taxonomy: Taxonomy,
    selection: Selection,
    facts: Facts,
    order: Order,
    phases: Vec<String>,
    started_services: Vec<String>,
}

impl RuleParts {
    pub(crate) fn into_rules(self, suite: &Suite) -> Rules<'_> {
        let options = &suite.config.proctor;
        Rules {
            taxonomy: self.taxonomy,
            selection: self.selection,
            facts: self.facts,
            plan: &options.plan,
            no_network: &options.run.no_network,
            order: self.order,
            shard: None,
            phases: self.phases,
            started_services: self.started_services,
            last_failed: None,
        }
    }
}

impl Setup {
    /// Resolves the arguments and the configuration; starts pytest early
    /// when it can; collects the suite.
    pub(crate) fn load(args: &RunArgs) -> Result<(Setup, RuleParts)> {
        let mut suite = Suite::load_overriding(&args.suite, &args.override_ini, &Env::process())?;
        let settings = RunSettings::resolve(args, &suite.config.proctor)?;
        suite.use_interpreter(args.machine.probe.python.as_deref());
        // pytest-xdist workers after `--` are refused before anything starts;
        // those `addopts` ask for are turned off (`-n 0`), and said once.
        let xdist = run_flags::xdist(&suite.config.pytest.addopts, &args.pytest_args)?;
        // What pytest is handed: the paths on the command line, else the job's
        // `paths` (what its CI step runs), else nothing (pytest's `testpaths`).
        let paths = run_paths(args, &mut suite);
        let selecting = Selecting::with_pytest_args(&suite, &args.selection, &args.pytest_args)?;
        let job = match &args.job {
            Some(name) => Some(machine::job_setups(&suite, Some(name))?.remove(0)),
            None => None,
        };
        // The job's environment, for pytest and for the facts of this machine.
        let env: Vec<(String, String)> = job
            .as_ref()
            .map(|job| {
                job.options
                    .env
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let job_phases = job.as_ref().and_then(|job| job.options.phases.clone());
        let options = &suite.config.proctor;
        let started_services: Vec<String> = options
            .plan
            .services
            .iter()
            .filter(|(_, s)| s.start.is_some())
            .map(|(n, _)| n.clone())
            .collect();
        let phase_names = job_phases.as_ref().map_or_else(Vec::new, |p| {
            proctor_plan::phase_names(p, &options.taxonomy)
        });
        let python = machine::detect_options(&suite.config, &args.machine.probe)
            .python
            .ok_or_else(|| anyhow!("no Python interpreter found: pass --python, set `python` in proctor's configuration, or create .venv"))?;
        let rootdir = suite.config.pytest.rootdir.clone();
        // The plugin and services' logs stay in `.proctor/run/`; pytest's
        // output goes to a directory of this run's own, removed when it ends,
        // so that runs at once in one project never read each other's files.
        let runs_dir = rootdir.join(".proctor").join("run");
        let own_dir = RunDir::create(&runs_dir)?;
        let interrupt = proctor_run::interrupt::install_handler();
        let base = PhaseOptions {
            python,
            cwd: suite.cwd.clone(),
            args: paths,
            extra_args: run_flags::pytest_args(args, xdist.as_ref()),
            env: env.clone(),
            timeout: settings.timeout,
            phase: None,
            work_dir: own_dir.path.clone(),
            plugin_dir: runs_dir.clone(),
            only: None,
            interrupt: Some(interrupt),
            module_sync: false,
            ignore: Vec::new(),
            opt_in: None,
            starts: crate::commands::run_progress::live(args.verbose, args.quiet),
            keep_results: false,
            steal: None,
            known_ids: None,
        };
        // One phase and no service to start first: pytest starts now, and
        // Python's start-up (a tenth of a second or more) overlaps proctor's
        // reading of the suite, on the other cores. The modules it need not
        // import reach it when its session starts.
        let early = if phase_names.is_empty() && started_services.is_empty() && !args.collect_only {
            let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
            if suite.collect.threads == 0 {
                suite.collect.threads = cores.saturating_sub(1).max(1);
            }
            Some(proctor_run::start(&base).context("cannot run pytest")?)
        } else {
            None
        };
        // Collect first: the interpreter is asked for its packages and version
        // only when some test needs them.
        let collection = suite.collect();
        let effectives: Vec<Effective> = collection
            .items
            .iter()
            .map(|item| selecting.taxonomy.effective(item))
            .collect();
        let options = &suite.config.proctor;
        let ask_python = collection
            .items
            .iter()
            .zip(&effectives)
            .any(|(item, effective)| {
                proctor_plan::needs(item, effective, &options.plan)
                    .iter()
                    .any(|need| {
                        matches!(
                            need.requirement,
                            proctor_plan::Requirement::Package { .. }
                                | proctor_plan::Requirement::Module { .. }
                                | proctor_plan::Requirement::Python { .. }
                        )
                    })
            });
        // Services are probed where the job's env points the tests.
        let mut facts = machine::facts_with_env(&suite, &args.machine, ask_python, &env)?;
        let mut phases_axis = None;
        let selection = match job {
            Some(job) => {
                // This machine, with the job's environment and flags.
                facts.env.extend(env.iter().cloned());
                facts.flags.extend(job.options.flags.iter().cloned());
                phases_axis = job
                    .options
                    .phases
                    .as_ref()
                    .map(|p| (p.by.clone(), p.order.clone()));
                job.selection
            }
            None => selecting.selection,
        };
        let order = resolve_order(args, &settings, &suite, phases_axis)?;
        // Services proctor starts count as up: a test that needs one is not
        // skipped for it; if it fails to start, the tests that need it are errors.
        for name in &started_services {
            if let Some(service) = options.plan.service(name) {
                let address = service
                    .address_env
                    .as_deref()
                    .and_then(|var| proctor_run::env_var(&env, var))
                    .unwrap_or_else(|| service.default_address.clone());
                facts.services.insert(
                    name.clone(),
                    proctor_plan::ServiceFact { up: true, address },
                );
            }
        }
        let parts = RuleParts {
            taxonomy: selecting.taxonomy,
            selection,
            facts,
            order,
            phases: phase_names,
            started_services,
        };
        let history_path = proctor_history::History::default_path(&rootdir);
        let setup = Setup {
            suite,
            xdist,
            base,
            runs_dir,
            own_dir,
            history_path,
            early,
            collection,
            effectives,
        };
        Ok((setup, parts))
    }
}

/// The plan, and what the static pass knew to make it.
pub(crate) struct Planned {
    pub(crate) plan: RunPlan,
    statics: Vec<StaticVerdict>,
    /// The static items some phase runs.
    in_phases: HashSet<String>,
    pub(crate) shard: Option<proctor_history::ShardSpec>,
    /// What `--lf`/`--ff` do to this run.
    last_failed_note: Option<String>,
}

impl Planned {
    /// The recorded durations of the static items the run expects to run
    /// (none without a history).
    pub(crate) fn expected_durations(
        &self,
        collection: &proctor_python::Collection,
        history_path: &std::path::Path,
    ) -> HashMap<String, f64> {
        let running: Vec<String> = collection
            .items
            .iter()
            .zip(&self.statics)
            .filter(|(_, v)| v.verdict.runs())
            .map(|(i, _)| i.nodeid.clone())
            .collect();
        read_durations(history_path, &running)
    }

    /// Drops what only the header and `--co` read (a verdict and a node id
    /// per static item), before pytest runs.
    pub(crate) fn forget_statics(&mut self) {
        self.statics = Vec::new();
        self.in_phases = HashSet::new();
    }
}

/// The static pass: verdicts, the shard, phases, and the files pytest must
/// import in each phase. Fills in the shard and `--lf` of `rules`.
pub(crate) fn plan(args: &RunArgs, setup: &Setup, rules: &mut Rules<'_>) -> Result<Planned> {
    let collection = &setup.collection;
    let mut statics: Vec<StaticVerdict> = Vec::with_capacity(collection.items.len());
    for (item, effective) in collection.items.iter().zip(&setup.effectives) {
        statics.push(rules.static_verdict(item, effective)?);
    }
    let shard_spec = args
        .shard
        .as_deref()
        .map(str::parse::<proctor_history::ShardSpec>)
        .transpose()
        .map_err(|e| anyhow!("--shard: {e}"))?;
    if let Some(spec) = &shard_spec {
        let running: Vec<String> = collection
            .items
            .iter()
            .zip(&statics)
            .filter(|(_, v)| v.verdict.runs())
            .map(|(i, _)| i.nodeid.clone())
            .collect();
        let durations = if args.no_history {
            HashMap::new()
        } else {
            read_durations(&setup.history_path, &running)
        };
        let members = proctor_history::shard(&running, &durations, spec.index, spec.count)
            .map_err(|e| anyhow!("--shard: {e}"))?;
        rules.shard = Some((members.into_iter().collect(), spec.index, spec.count));
    }
    let last_failed_note = if args.last_failed || args.failed_first {
        last_failed(args, &setup.history_path, collection, &statics, rules)?
    } else {
        None
    };
    let mut in_phases = HashSet::new();
    let items: Vec<ItemPlan> = collection
        .items
        .iter()
        .zip(&statics)
        .map(|(item, info)| {
            let runs = (info.verdict.runs()
                && rules.in_shard(&item.nodeid, true)
                && rules.last_failed_keeps(&item.nodeid))
                || (item.dynamic.is_some()
                    && rules
                        .last_failed
                        .as_ref()
                        .is_none_or(|f| !f.only || f.may_contain_function(&item.nodeid)));
            if runs {
                in_phases.insert(item.nodeid.clone());
            }
            let skip = match &info.verdict {
                Verdict::Skipped { reason }
                    if rules.shard.is_none() && rules.last_failed_keeps(&item.nodeid) =>
                {
                    Some(skipped(item, reason, &info.names))
                }
                _ => None,
            };
            ItemPlan {
                nodeid: item.nodeid.clone(),
                dynamic: item.dynamic.is_some(),
                runs,
                phase: rules.phase_of(&info.names),
                services: info.services.clone(),
                skip,
            }
        })
        .collect();
    // pytest must see the files that fail to collect, to report them, and
    // those it skips as a whole while importing them, to count their one
    // skip with its reason (it collects none of their tests).
    let at_import = collection
        .items
        .iter()
        .filter(|item| skipped_at_import(item, &rules.facts))
        .map(|item| collected_file(&item.nodeid));
    let whole_files: Vec<String> = collection
        .errors
        .iter()
        .chain(&collection.skipped)
        .map(|e| e.file.clone())
        .chain(at_import.map(str::to_owned))
        .collect();
    let workers = workers(args.workers.as_deref())?;
    let file_durations = if workers > 1 && !args.no_history {
        let running: Vec<String> = in_phases.iter().cloned().collect();
        let mut per_file: HashMap<String, f64> = HashMap::new();
        for (nodeid, seconds) in read_durations(&setup.history_path, &running) {
            *per_file
                .entry(collected_file(&nodeid).to_owned())
                .or_default() += seconds;
        }
        per_file
    } else {
        HashMap::new()
    };
    let dist = match args.dist {
        None | Some(DistArg::Load) => Dist::Load,
        Some(DistArg::LoadFile) => Dist::LoadFile,
        Some(DistArg::LoadScope) => Dist::LoadScope,
        Some(DistArg::LoadGroup) => Dist::LoadGroup,
    };
    let file_groups = if dist == Dist::LoadGroup {
        xdist_groups(collection)
    } else {
        HashMap::new()
    };
    let plan = RunPlan {
        workers,
        file_durations,
        dist,
        collect_errors: collection.errors.len(),
        file_groups,
        files_in_suite: count_files(collection),
        shard: shard_spec.as_ref().map(ToString::to_string),
        seed: match rules.order {
            Order::Random(seed) => Some(seed),
            _ => None,
        },
        ..RunPlan::new(&rules.phases, items, whole_files)
    };
    Ok(Planned {
        plan,
        statics,
        in_phases,
        shard: shard_spec,
        last_failed_note,
    })
}

/// The `xdist_group` names of each file's items (`xdist_group("name")`
/// or `xdist_group(name="name")`, as pytest-xdist reads them), for
/// `--dist loadgroup`; a name that is not a literal string is its source
/// text, so that the same expression still groups.
fn xdist_groups(collection: &Collection) -> HashMap<String, Vec<String>> {
    let mut groups: HashMap<String, Vec<String>> = HashMap::new();
    for item in &collection.items {
        for marker in item.markers.iter().filter(|m| m.name == "xdist_group") {
            let Some(name) = marker.args.first().or_else(|| marker.kwargs.get("name")) else {
                continue;
            };
            let name = name
                .as_str()
                .map_or_else(|| name.to_string(), str::to_owned);
            let names = groups
                .entry(collected_file(&item.nodeid).to_owned())
                .or_default();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    groups
}

/// `-n N` / `-n auto` (the CPUs this process may use): how many pytest
/// processes run a phase at once; 1 without `-n`.
fn workers(value: Option<&str>) -> Result<usize> {
    match value {
        None => Ok(1),
        Some("auto") => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
        Some(count) => count
            .parse::<usize>()
            .map(|n| n.max(1))
            .map_err(|_| anyhow!("-n: expected a number of workers or `auto`, got `{count}`")),
    }
}

/// The line that opens the run, and the notes on what it leaves out.
pub(crate) fn print_header(
    out: &mut Printer,
    args: &RunArgs,
    setup: &Setup,
    rules: &Rules<'_>,
    planned: &Planned,
) -> Result<()> {
    let plan = &planned.plan;
    let mut header = format!(
        "proctor run: {} ({} of {} files to import)",
        describe_selection(&rules.selection),
        plan.files_to_import,
        plan.files_in_suite
    );
    if let Some(shard) = &plan.shard {
        let _ = write!(header, ", shard {shard}");
    }
    if plan.workers > 1 {
        let _ = write!(header, ", {} workers", plan.workers);
        if plan.dist == Dist::LoadGroup {
            header.push_str(" (--dist loadgroup)");
        }
        if plan.collect_errors > 0
            && !args
                .pytest_args
                .iter()
                .any(|a| a == "--continue-on-collection-errors")
        {
            // The runner's rule: pytest runs no test after a collection
            // error, and one process finds them all before any test runs.
            header.push_str(" (one process: collection errors stop pytest's session)");
        }
    }
    if let Some(seed) = plan.seed {
        let _ = write!(header, ", random order (--seed {seed})");
    }
    if plan.phases.len() > 1 {
        let _ = write!(header, ", phases {}", plan.phase_names().join(" → "));
    }
    if args.quiet == 0 {
        writeln!(out, "{header}")?;
    }
    for note in setup
        .xdist
        .as_ref()
        .map(run_flags::Xdist::note)
        .into_iter()
        .chain(planned.last_failed_note.clone())
        .chain(beyond_walk_note(&setup.suite))
        .chain(selection::empty_default_hint(
            &rules.selection,
            &setup.collection.items,
            &setup.effectives,
            args.job.as_deref(),
        ))
    {
        writeln!(out, "{note}")?;
    }
    out.flush()?;
    Ok(())
}

/// `--co`: the node ids the run would hand pytest, from static collection,
/// in pytest's order; dynamic items with their reason. Exit status as
/// `pytest --co`'s: 0, or 5 when nothing is selected.
pub(crate) fn collect_only(
    out: &mut Printer,
    setup: &Setup,
    rules: &Rules<'_>,
    planned: &Planned,
) -> Result<u8> {
    let collection = &setup.collection;
    // What pytest would collect and keep: skipped items too.
    let selected: Vec<&Item> = collection
        .items
        .iter()
        .zip(&planned.statics)
        .filter(|(item, info)| {
            let selected = !matches!(info.verdict, Verdict::Deselected { .. })
                && rules.in_shard(&item.nodeid, true)
                && rules.last_failed_keeps(&item.nodeid);
            selected || planned.in_phases.contains(&item.nodeid)
        })
        .map(|(item, _)| item)
        .collect();
    for item in &selected {
        match &item.dynamic {
            None => writeln!(out, "{}", item.nodeid)?,
            Some(reason) => writeln!(out, "{}  (dynamic: {reason})", item.nodeid)?,
        }
    }
    for error in &collection.errors {
        writeln!(out, "ERROR {}: {}", error.file, error.message)?;
    }
    let n = selected.len();
    writeln!(out)?;
    writeln!(
        out,
        "{n} test{} selected, from static collection (nothing imported or run; `proctor run -- --co` asks pytest)",
        if n == 1 { "" } else { "s" }
    )?;
    out.flush()?;
    Ok(if !collection.errors.is_empty() {
        crate::exit::INTERRUPTED
    } else if n == 0 {
        crate::exit::NO_TESTS
    } else {
        crate::exit::OK
    })
}

/// This run's own directory under `.proctor/run/` (pytest's logs, the
/// opt-in manifest), removed with what it holds when the run ends.
pub(crate) struct RunDir {
    pub(crate) path: std::path::PathBuf,
}

impl RunDir {
    fn create(parent: &std::path::Path) -> Result<RunDir> {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        let stamp = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut attempt = 0;
        loop {
            let path = parent.join(format!("{}-{stamp}-{attempt}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(RunDir { path }),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(err) => {
                    return Err(err).with_context(|| format!("cannot create {}", path.display()))
                }
            }
        }
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The paths pytest gets: the command line's, else the `--job`'s `paths`
/// (relative to the rootdir, as a CI step runs them), which static
/// collection then starts from too.
fn run_paths(args: &RunArgs, suite: &mut Suite) -> Vec<String> {
    if !args.suite.paths.is_empty() {
        return args.suite.paths.clone();
    }
    let job = args.job.as_deref().and_then(|name| {
        suite
            .config
            .proctor
            .plan
            .jobs
            .iter()
            .find(|(n, _)| n == name)
    });
    let Some((_, job)) = job else {
        return Vec::new();
    };
    let rootdir = &suite.config.pytest.rootdir;
    let paths: Vec<String> = job
        .paths
        .iter()
        .map(|p| rootdir.join(p).to_string_lossy().into_owned())
        .collect();
    suite.args.extend(paths.iter().cloned());
    paths
}

/// The resolved order with `--seed` and `--group-by` (the job's phase axis
/// by default).
fn resolve_order(
    args: &RunArgs,
    settings: &RunSettings,
    suite: &Suite,
    phases: Option<(String, Vec<String>)>,
) -> Result<Order> {
    match settings.order {
        OrderKind::Random => Ok(Order::Random(
            args.seed.unwrap_or_else(run_order::fresh_seed),
        )),
        OrderKind::ByGroup => {
            let configured = &suite.config.proctor.taxonomy.axes;
            let (wanted, mut groups) = match (&args.group_by, phases) {
                (Some(given), _) => (given.clone(), Vec::new()),
                (None, Some((by, phase_order))) => (by, phase_order),
                (None, None) => {
                    bail!("--order by-group needs --group-by AXIS (or a job with phases)")
                }
            };
            let Some((_, options)) = configured.iter().find(|(name, _)| *name == wanted) else {
                let known: Vec<&str> = configured.iter().map(|(n, _)| n.as_str()).collect();
                bail!(
                    "--group-by: unknown axis `{wanted}` (configured: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                );
            };
            for marker in &options.markers {
                if !groups.contains(marker) {
                    groups.push(marker.clone());
                }
            }
            Ok(Order::ByGroup(groups))
        }
        OrderKind::Pytest => Ok(Order::Pytest),
    }
}

/// A test proctor skips without pytest, with its effective markers. Its
/// place in `-rs` is the one pytest gives the skip marker the bridge adds
/// (`_folded_skips`): the file, folded with the file's other skips of the
/// same reason, unless the function carries marks of its own (a
/// `pytestmark` attribute), which keep its line.
fn skipped(item: &Item, reason: &str, markers: &[String]) -> TestResult {
    let file = collected_file(&item.nodeid);
    let decorated = item
        .markers
        .iter()
        .any(|m| m.source == proctor_python::MarkerSource::Function);
    TestResult {
        reason: Some(reason.to_owned()),
        attempts: 0,
        markers: markers.into(),
        location: Some(if decorated && item.line > 0 {
            format!("{file}:{}", item.line)
        } else {
            file.to_owned()
        }),
        ..TestResult::new(item.nodeid.clone(), Outcome::Skipped)
    }
}

/// `--lf` / `--ff`: the history's failures into `rules`, and the line that
/// says what they do to this run (as pytest's `run-last-failure: ...`).
/// `--lf` with none of them selected runs every selected test, as pytest
/// does.
fn last_failed(
    args: &RunArgs,
    history: &std::path::Path,
    collection: &Collection,
    statics: &[StaticVerdict],
    rules: &mut Rules<'_>,
) -> Result<Option<String>> {
    let failed = LastFailed::read(history, args.last_failed)
        .context("--lf/--ff: cannot read the run history")?;
    let selected = collection
        .items
        .iter()
        .zip(statics)
        .filter(|(item, info)| {
            if item.dynamic.is_some() {
                failed.may_contain_function(&item.nodeid)
            } else {
                info.verdict.runs() && failed.contains(&item.nodeid)
            }
        })
        .count();
    let flag = if args.last_failed { "--lf" } else { "--ff" };
    if selected == 0 {
        let recorded = match failed.len() {
            0 => "no previously failed tests".to_owned(),
            n => format!("{n} known failure(s) not in the selected tests"),
        };
        let what = if args.last_failed {
            "not deselecting items"
        } else {
            "nothing to run first"
        };
        return Ok(Some(format!(
            "run-last-failure ({flag}): {recorded} in the history, {what}."
        )));
    }
    let plural = if selected == 1 { "" } else { "s" };
    let first = if args.last_failed { "" } else { " first" };
    rules.last_failed = Some(failed);
    Ok(Some(format!("run-last-failure ({flag}): rerun previous {selected} failure{plural}{first} (from the history)")))
}

fn count_files(collection: &Collection) -> usize {
    let whole = collection
        .errors
        .iter()
        .chain(&collection.skipped)
        .map(|e| e.file.as_str());
    collection
        .items
        .iter()
        .map(|i| collected_file(&i.nodeid))
        .chain(whole)
        .collect::<HashSet<_>>()
        .len()
}

/// A run's selection as its header says it: `-m "..." -k "..."`, or
/// `every item`.
pub(crate) fn describe_selection(selection: &Selection) -> String {
    let described = selection::describe_selection(selection);
    if described.is_empty() {
        "every item".to_owned()
    } else {
        described
    }
}

/// The recorded durations of these tests (none without a history).
fn read_durations(path: &std::path::Path, nodeids: &[String]) -> HashMap<String, f64> {
    if !path.is_file() {
        return HashMap::new();
    }
    proctor_history::History::open(path)
        .and_then(|history| {
            history.durations_of(nodeids.iter().map(String::as_str), HISTORY_WINDOW)
        })
        .unwrap_or_default()
}

/// The example and notebook folders a run without paths leaves out, said
/// once (pytest's testpaths do not reach them): the same rule as `plan`'s.
fn beyond_walk_note(suite: &Suite) -> Option<String> {
    let folders = proctor_python::folders_beyond_walk(
        &suite.collect,
        &suite.args,
        &suite.cwd,
        &suite.config.pytest.testpaths,
    );
    if folders.is_empty() {
        return None;
    }
    let them = if folders.len() == 1 { "it" } else { "them" };
    Some(format!("note: not in a run without paths: {} (pytest's testpaths do not reach {them}; `proctor run {}` runs {them})", folders.join(", "), folders.join(" ")))
}
