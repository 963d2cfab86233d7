//! `proctor run`: the suite through real pytest. Static collection decides
//! which files pytest must import at all (a module whose every test is
//! deselected, gated or in another shard is not imported; its gated tests
//! are reported skipped with their reason); the bridge then hands pytest's
//! real items to the same taxonomy and plan code, and results stream back.
//! Failures that a rerun rule covers run again; every run is recorded in
//! the history, whose durations balance `--shard`.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{anyhow, bail, Context, Result};
use proctor_plan::Verdict;
use proctor_python::{collected_file, function_nodeid, Item};
use proctor_report::ReportExtras;
use proctor_run::{CollectedItem, Event, Outcome, PhaseOptions, RunSummary, TestResult};
use proctor_taxonomy::{Effective, Selection};

use crate::args::RunArgs;
use crate::commands::machine;
use crate::commands::run_flags::{self, LastFailed};
use crate::commands::run_order::{self, Order};
use crate::commands::run_progress::Progress;
use crate::commands::run_report::{
    history_extract, history_findings, print_summary, report_extras, utc, write_reports,
    SummaryLook,
};
use crate::commands::run_reruns::rerun;
use crate::commands::run_rules::{decide, skipped_at_import, Rules, StaticVerdict};
use crate::commands::selection::{self, Selecting};
use crate::commands::suite::Suite;
use crate::printer::Printer;

/// Durations from this many of each test's last results balance shards.
const HISTORY_WINDOW: usize = 10;

/// One phase: its files, the static items it runs, and the services to
/// start for it.
struct PhasePlan {
    name: Option<String>,
    files: Vec<String>,
    services: Vec<String>,
    items: Vec<usize>,
}

pub(crate) fn run(args: &RunArgs) -> Result<u8> {
    let started = Instant::now();
    let started_at = SystemTime::now();
    // Refused before anything starts (`[run] timeout` is checked where the
    // configuration is read).
    let timeout = args
        .timeout
        .map(|seconds| proctor_config::limit_seconds(seconds).map_err(|e| anyhow!("--timeout {e}")))
        .transpose()?;
    let mut suite = Suite::load_overriding(&args.suite, &args.override_ini)?;
    suite.use_interpreter(args.machine.python.as_deref());
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
    let python = machine::detect_options(&suite.config, &args.machine)
        .python
        .ok_or_else(|| anyhow!("no Python interpreter found: pass --python, set `python` in proctor's configuration, or create .venv"))?;
    let rootdir = suite.config.pytest.rootdir.clone();
    // The plugin and services' logs stay in `.proctor/run/`; pytest's
    // output goes to a directory of this run's own, removed when it ends,
    // so that runs at once in one project never read each other's files.
    let runs_dir = rootdir.join(".proctor").join("run");
    let own_dir = RunDir::create(&runs_dir)?;
    let work_dir = own_dir.path.clone();
    let interrupt = install_interrupt_handler();
    let base = PhaseOptions {
        python,
        cwd: suite.cwd.clone(),
        args: paths.clone(),
        extra_args: run_flags::pytest_args(args, xdist.as_ref()),
        env: env.clone(),
        timeout: timeout.or(options.run.timeout.map(Duration::from_secs_f64)),
        phase: None,
        work_dir: work_dir.clone(),
        plugin_dir: runs_dir.clone(),
        only: None,
        interrupt: Some(Arc::clone(&interrupt)),
        module_sync: false,
        ignore: Vec::new(),
        opt_in: None,
    };
    // One phase and no service to start first: pytest starts now, and
    // Python's start-up (a tenth of a second or more) overlaps proctor's
    // reading of the suite, on the other cores. The modules it need not
    // import reach it when its session starts.
    let mut early = if phase_names.is_empty() && started_services.is_empty() && !args.collect_only {
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
    // Effective markers of the static items, once for every use below.
    let effectives: Vec<Effective> = collection
        .items
        .iter()
        .map(|item| selecting.taxonomy.effective(item))
        .collect();
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
    let order = resolve_order(args, &suite, phases_axis)?;
    // Services proctor starts count as up: a test that needs one is not
    // skipped for it; if it fails to start, the tests that need it are errors.
    for name in &started_services {
        if let Some(service) = options.plan.service(name) {
            let address = service
                .address_env
                .as_deref()
                .and_then(|var| job_env_var(&env, var))
                .unwrap_or_else(|| service.default_address.clone());
            facts.services.insert(
                name.clone(),
                proctor_plan::ServiceFact { up: true, address },
            );
        }
    }
    let mut rules = Rules {
        taxonomy: selecting.taxonomy,
        selection,
        facts,
        plan: &options.plan,
        no_network: &options.run.no_network,
        order,
        shard: None,
        phases: phase_names,
        started_services,
        last_failed: None,
    };
    let history_path = proctor_history::History::default_path(&rootdir);

    // Static pass: verdicts, the shard, phases, and the files pytest must
    // import in each phase.
    let mut statics: Vec<StaticVerdict> = Vec::with_capacity(collection.items.len());
    for (item, effective) in collection.items.iter().zip(&effectives) {
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
            read_durations(&history_path, &running)
        };
        let members = proctor_history::shard(&running, &durations, spec.index, spec.count)
            .map_err(|e| anyhow!("--shard: {e}"))?;
        rules.shard = Some((members.into_iter().collect(), spec.index, spec.count));
    }
    let last_failed_note = if args.last_failed || args.failed_first {
        last_failed(args, &history_path, &collection, &statics, &mut rules)?
    } else {
        None
    };
    let phase_order: Vec<Option<String>> = if rules.phases.is_empty() {
        vec![None]
    } else {
        rules.phases.iter().cloned().map(Some).collect()
    };
    let mut phases: Vec<PhasePlan> = phase_order
        .iter()
        .map(|name| PhasePlan {
            name: name.clone(),
            files: Vec::new(),
            services: Vec::new(),
            items: Vec::new(),
        })
        .collect();
    let mut needed_set: HashSet<String> = HashSet::new();
    for (index, (item, info)) in collection.items.iter().zip(&statics).enumerate() {
        let runs_here = (info.verdict.runs()
            && rules.in_shard(&item.nodeid, true)
            && rules.last_failed_keeps(&item.nodeid))
            || (item.dynamic.is_some()
                && rules
                    .last_failed
                    .as_ref()
                    .is_none_or(|f| !f.only || f.may_contain_function(&item.nodeid)));
        if !runs_here {
            continue;
        }
        let at = phase_order
            .iter()
            .position(|p| *p == rules.phase_of(&info.names))
            .unwrap_or(0);
        let plan = &mut phases[at];
        let file = collected_file(&item.nodeid).to_owned();
        if !plan.files.contains(&file) {
            plan.files.push(file.clone());
        }
        plan.items.push(index);
        for service in &info.services {
            if !plan.services.contains(service) {
                plan.services.push(service.clone());
            }
        }
        needed_set.insert(file);
    }
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
    for file in whole_files {
        if needed_set.insert(file.clone()) {
            phases[0].files.push(file);
        }
    }
    let mut results: Vec<TestResult> = Vec::new();
    let mut deselected = 0;
    for (item, info) in collection.items.iter().zip(&statics) {
        if needed_set.contains(collected_file(&item.nodeid)) {
            continue;
        }
        match &info.verdict {
            Verdict::Skipped { reason }
                if rules.shard.is_none() && rules.last_failed_keeps(&item.nodeid) =>
            {
                results.push(skipped(item, reason, &info.names));
            }
            _ => deselected += 1,
        }
    }
    let static_by_id: HashMap<&str, &Item> = collection
        .items
        .iter()
        .map(|i| (i.nodeid.as_str(), i))
        .collect();

    let mut out = Printer::stdout();
    if args.collect_only {
        drop(early);
        // What pytest would collect and keep: skipped items too.
        let kept: Vec<usize> = (0..collection.items.len())
            .filter(|&i| {
                let item = &collection.items[i];
                let selected = !matches!(statics[i].verdict, Verdict::Deselected { .. })
                    && rules.in_shard(&item.nodeid, true)
                    && rules.last_failed_keeps(&item.nodeid);
                selected || phases.iter().any(|p| p.items.contains(&i))
            })
            .collect();
        return run_flags_collect_only(&mut out, &collection, &kept);
    }
    let mut header = format!(
        "proctor run: {} ({} of {} files to import)",
        describe_selection(&rules.selection),
        needed_set.len(),
        count_files(&collection)
    );
    if let Some(spec) = &shard_spec {
        let _ = write!(header, ", shard {spec}");
    }
    if let Order::Random(seed) = rules.order {
        let _ = write!(header, ", random order (--seed {seed})");
    }
    if phases.len() > 1 {
        let names: Vec<String> = phases
            .iter()
            .filter(|p| !p.files.is_empty())
            .filter_map(|p| p.name.clone())
            .collect();
        let _ = write!(header, ", phases {}", names.join(" → "));
    }
    if args.quiet == 0 {
        writeln!(out, "{header}")?;
    }
    for note in xdist
        .as_ref()
        .map(run_flags::Xdist::note)
        .into_iter()
        .chain(last_failed_note)
        .chain(beyond_walk_note(&suite))
        .chain(selection::empty_default_hint(
            &rules.selection,
            &collection.items,
            &effectives,
            args.job.as_deref(),
        ))
    {
        writeln!(out, "{note}")?;
    }
    out.flush()?;

    let markers_of: RefCell<HashMap<String, Vec<String>>> = RefCell::new(HashMap::new());
    let mut drift: Vec<String> = Vec::new();
    let mut failed_to_start = None;
    let mut pytest_status = None;
    let mut interrupted = false;
    // Tests a session ended without running, why, and pytest's status then.
    let mut not_run: Vec<String> = Vec::new();
    let mut stopped: Option<(Option<String>, Option<i32>)> = None;
    let mut problems: Vec<String> = Vec::new();
    let mut progress = Progress::new(args.verbose, args.quiet);
    // Deselected in some phase: items of other phases are deselected in
    // each phase but their own, so only those reported nowhere count.
    let mut deselected_ids: HashSet<String> = HashSet::new();
    let opt_in =
        crate::commands::run_opt_in::write_manifest(&work_dir, &rootdir, &collection, options)?;
    let all_files: Vec<&str> = {
        let mut files: Vec<&str> = collection
            .items
            .iter()
            .map(|i| collected_file(&i.nodeid))
            .collect();
        files.sort_unstable();
        files.dedup();
        files
    };
    // The last pytest process, shutting down after its last hook: waited
    // for before another starts or a service stops, and at the end, after
    // proctor's own work (summary, history, reports) is done.
    let mut shutdown = Shutdown::default();
    for plan in &phases {
        shutdown.wait(&mut progress);
        interrupted |= interrupt.load(Ordering::Relaxed);
        if plan.files.is_empty() || interrupted {
            drop(early.take());
            continue;
        }
        if let Some(name) = &plan.name {
            progress.event(&Event::Note {
                message: format!(
                    "phase {name}: {} test(s) in {} file(s)",
                    plan.items.len(),
                    plan.files.len()
                ),
            });
        }
        // Services this phase's tests need and proctor starts.
        std::fs::create_dir_all(&runs_dir)
            .with_context(|| format!("cannot create {}", runs_dir.display()))?;
        let mut running = Vec::new();
        let mut service_env = base.env.clone();
        // Services that did not become ready, with the error their tests
        // carry: those tests become errors, the phase's others still run.
        let mut down: Vec<(String, String)> = Vec::new();
        for name in &plan.services {
            let Some(service) = options.plan.service(name).filter(|s| s.start.is_some()) else {
                continue;
            };
            match proctor_run::RunningService::start_watching(
                name,
                service,
                &rootdir,
                &runs_dir,
                |var| job_env_var(&env, var),
                Some(&interrupt),
            ) {
                Ok(started) => {
                    progress.event(&Event::Note {
                        message: format!("service {name} ready at {}", started.address()),
                    });
                    if started.daemonized() && service.stop.is_none() {
                        progress.event(&Event::Note {
                            message: format!("service {name}: its start command exited and left a daemon that proctor cannot stop (add `stop = \"<command>\"` to [services.{name}])"),
                        });
                    }
                    service_env.extend(started.env());
                    running.push(started);
                }
                Err(proctor_run::ServiceError::Interrupted { .. }) => {
                    interrupted = true;
                    break;
                }
                Err(err) => {
                    progress.event(&Event::Note {
                        message: err.to_string(),
                    });
                    let tail = match &err {
                        proctor_run::ServiceError::NotReady { log_tail, .. }
                            if !log_tail.is_empty() =>
                        {
                            format!("\nthe service's last output:\n{log_tail}")
                        }
                        _ => String::new(),
                    };
                    down.push((name.clone(), format!("{err}{tail}")));
                }
            }
        }
        if interrupted {
            stop_services(running, &mut progress);
            drop(early.take());
            continue;
        }
        // pytest gets the same arguments as bare pytest would; the modules
        // it need not import in this phase are ignored as with `--ignore`
        // (many file arguments make pytest's collection slower than its
        // own walk).
        let phase = PhaseOptions {
            env: service_env,
            phase: plan.name.clone(),
            module_sync: running.iter().any(|s| {
                options
                    .plan
                    .service(s.name())
                    .is_some_and(|o| o.hook_between_modules.is_some())
            }),
            ignore: all_files
                .iter()
                .filter(|f| !plan.files.iter().any(|p| p == *f))
                .map(|file| rootdir.join(file))
                .collect(),
            opt_in: opt_in.clone(),
            ..base.clone()
        };
        // Tests that need a service that is down are not run: pytest still
        // reports the phase's others, and the skips of those gated off.
        let withheld: RefCell<Vec<(String, usize)>> = RefCell::new(Vec::new());
        let mut decide = |items: &[CollectedItem]| {
            let mut decisions = decide(
                items,
                &rules,
                &static_by_id,
                &markers_of,
                plan.name.as_ref(),
            );
            if !down.is_empty() {
                withhold(
                    &mut decisions,
                    items,
                    &rules,
                    &static_by_id,
                    &down,
                    &mut withheld.borrow_mut(),
                );
            }
            decisions
        };
        let outcome =
            proctor_run::run_phase(&phase, early.take(), &mut decide, &mut |event: &Event| {
                if let Event::ModuleStarting { module } = event {
                    between_modules(&running, module, &mut progress);
                }
                progress.event(event);
            })
            .context("cannot run pytest")?;
        deselected_ids.extend(outcome.deselected.iter().cloned());
        // A file pytest failed to collect or skipped whole has none of its
        // static items: pytest's report says why.
        let whole: HashSet<&str> = outcome
            .results
            .iter()
            .filter(|r| !r.nodeid.contains("::"))
            .map(|r| r.nodeid.as_str())
            .collect();
        let files: HashSet<String> = plan
            .files
            .iter()
            .filter(|f| !whole.contains(f.as_str()))
            .cloned()
            .collect();
        drift.extend(drift_between(
            &collection,
            &files,
            &outcome.collected,
            &plan.items,
        ));
        let first = results.len();
        results.extend(outcome.results);
        if outcome.failed_to_start.is_some() {
            failed_to_start = outcome.failed_to_start;
        }
        pytest_status = pytest_status.max(outcome.pytest_status);
        interrupted = outcome.interrupted;
        if !outcome.not_run.is_empty() {
            not_run.extend(outcome.not_run);
            stopped.get_or_insert((outcome.stopped, outcome.pytest_status));
        }
        problems.extend(outcome.problems);
        shutdown.exiting = outcome.exiting;
        if !interrupted {
            rerun(
                &options.run.reruns,
                &phase,
                &mut results[first..],
                &markers_of,
                &mut decide,
                &mut progress,
                &mut shutdown,
            )?;
            interrupted = interrupt.load(Ordering::Relaxed);
        }
        // After the reruns: these did not run, there is nothing to rerun.
        let reported: HashSet<String> = results[first..].iter().map(|r| r.nodeid.clone()).collect();
        for (nodeid, service) in withheld.take() {
            if reported.contains(&nodeid) {
                continue;
            }
            let result = TestResult {
                phase: plan.name.clone(),
                message: Some(down[service].1.clone()),
                ..TestResult::new(nodeid, Outcome::Error)
            };
            progress.event(&Event::TestFinished(result.clone()));
            results.push(result);
        }
        if !running.is_empty() {
            shutdown.wait(&mut progress);
        }
        stop_services(running, &mut progress);
    }
    progress.finish();
    // A signal after the last phase still interrupted the run.
    let signal = interrupting_signal();
    interrupted |= signal.is_some();
    let reported: HashSet<&str> = results.iter().map(|r| r.nodeid.as_str()).collect();
    deselected += deselected_ids
        .iter()
        .filter(|n| !reported.contains(n.as_str()))
        .count();
    let markers_of = markers_of.into_inner();
    for result in &mut results {
        if let Some(names) = markers_of.get(&result.nodeid) {
            result.markers.clone_from(names);
        }
    }
    let interrupted_run =
        interrupted || failed_to_start.is_some() || matches!(pytest_status, Some(2));
    let summary = RunSummary::of(
        &results,
        deselected,
        started.elapsed().as_secs_f64(),
        interrupted_run,
    );
    // The terminal may be gone (a closed terminal sends `SIGHUP`, and
    // writes to it then fail; a closed pipe): the history and the reports
    // are still written, and the run's status stands.
    let mut printed = (|| -> Result<()> {
        if interrupted {
            let by = signal
                .and_then(proctor_run::signal_name)
                .map(|name| format!(" by {name}"))
                .unwrap_or_default();
            writeln!(
                out,
                "interrupted{by}: the report holds the {} test(s) that finished",
                results.len()
            )?;
        }
        for problem in &problems {
            writeln!(out, "error: {problem}")?;
        }
        if let Some((why, _)) = &stopped {
            let why = why
                .as_deref()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            writeln!(
                out,
                "pytest ended its session{why} before running {} selected test(s):",
                not_run.len()
            )?;
            for nodeid in &not_run {
                writeln!(out, "NOT RUN {nodeid}")?;
            }
        }
        let look = SummaryLook {
            chars: run_flags::report_chars(&suite.config.pytest.addopts, args),
            quiet: args.quiet > 0,
        };
        print_summary(
            &mut out,
            &results,
            &summary,
            &drift,
            failed_to_start.as_deref(),
            &look,
        )
    })();
    let selection_text = describe_selection(&rules.selection);
    let code = match pytest_status {
        Some(status @ (3 | 4)) if !interrupted => status,
        _ if failed_to_start.is_some() => 2,
        // pytest chose to stop (`pytest.exit(returncode=...)`, `-x`): its
        // status is the run's, as bare pytest's caller sees it.
        _ if !interrupted && stopped.as_ref().is_some_and(|(_, status)| status.is_some()) => {
            stopped
                .as_ref()
                .and_then(|(_, status)| *status)
                .unwrap_or(1)
        }
        _ if !problems.is_empty() && summary.exit_code == 0 => 1,
        _ => summary.exit_code,
    };
    // `SIGTERM` and `SIGHUP` exit as a process they killed would report
    // (128 + the signal), after cleaning up; Ctrl-C is pytest's 2.
    let code = signal.map_or(code, interrupted_exit_code);
    // The run is recorded first, so that the reports' history includes it.
    let mut history = None;
    if !args.no_history && !results.is_empty() {
        let record = proctor_history::RunRecord {
            started_at,
            finished_at: SystemTime::now(),
            command: std::env::args().collect(),
            selection: Some(selection_text.clone()),
            exit_code: code,
            shard: shard_spec,
        };
        match proctor_history::History::open(&history_path)
            .and_then(|mut history| history.record_run(&record, &results).map(|_| history))
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
                history = history_extract(&recorded, &results, medians);
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
        match report_extras(&suite, &collection, &effectives, &results, history.clone()) {
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
        exit_code: code,
        ..summary
    };
    write_reports(
        args,
        &results,
        &summary,
        &utc(started_at),
        &selection_text,
        &extras,
    )?;
    if let Some(history) = &history {
        printed = printed.and_then(|()| history_findings(&mut out, history, &results, options));
    }
    if let Err(err) = printed.and_then(|()| Ok(out.flush()?)) {
        let _ = writeln!(
            out.err(),
            "warning: the output was not written whole: {err:#}"
        );
    }
    shutdown.wait(&mut progress);
    // A crash after the session ended fails the run, as it fails bare
    // pytest's caller.
    let code = match shutdown.late {
        Some(late) if code == 0 => late.exit_code(),
        _ => code,
    };
    Ok(u8::try_from(code).unwrap_or(1))
}

/// A variable as the tests see it: the job's `env` first, then proctor's
/// own environment.
fn job_env_var(env: &[(String, String)], name: &str) -> Option<String> {
    env.iter()
        .rev()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var(name).ok())
}

/// This run's own directory under `.proctor/run/` (pytest's logs, the
/// opt-in manifest), removed with what it holds when the run ends.
struct RunDir {
    path: std::path::PathBuf,
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

/// The last pytest process while its interpreter shuts down, and the
/// first process that exited otherwise than its session ended.
#[derive(Default)]
pub(crate) struct Shutdown {
    pub(crate) exiting: Option<proctor_run::Exiting>,
    late: Option<proctor_run::LateExit>,
}

impl Shutdown {
    /// Waits for the process still shutting down, if any; notes a late
    /// exit.
    pub(crate) fn wait(&mut self, progress: &mut Progress) {
        if let Some(late) = self.exiting.take().and_then(proctor_run::Exiting::wait) {
            progress.event(&Event::Note {
                message: late.to_string(),
            });
            self.late.get_or_insert(late);
        }
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

/// `--order`, `--seed` and `--group-by` (the job's phase axis by default).
fn resolve_order(
    args: &RunArgs,
    suite: &Suite,
    phases: Option<(String, Vec<String>)>,
) -> Result<Order> {
    let options = &suite.config.proctor;
    let job_order = args
        .job
        .as_ref()
        .and_then(|name| options.plan.jobs.iter().find(|(n, _)| n == name))
        .and_then(|(_, job)| job.order);
    let configured = job_order
        .or(options.run.order)
        .map(proctor_config::RunOrder::as_str);
    match args.order.as_deref().or(configured).unwrap_or("pytest") {
        "random" => Ok(Order::Random(
            args.seed.unwrap_or_else(run_order::fresh_seed),
        )),
        "by-group" => {
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
        _ => Ok(Order::Pytest),
    }
}

/// The services' hooks between modules (`hook-between-modules`), before
/// the first test of `module`; a failing hook is noted, the run goes on.
fn between_modules(running: &[proctor_run::RunningService], module: &str, progress: &mut Progress) {
    for service in running {
        if let Err(err) = service.hook() {
            progress.event(&Event::Note {
                message: format!("before {module}: {err}"),
            });
        }
    }
}

/// Stops the services a phase started, noting any that would not stop.
fn stop_services(running: Vec<proctor_run::RunningService>, progress: &mut Progress) {
    for service in running.into_iter().rev() {
        let name = service.name().to_owned();
        if let Err(err) = service.stop() {
            progress.event(&Event::Note {
                message: format!("service {name}: {err}"),
            });
        }
    }
}

/// Items static collection and pytest disagree on, in the imported files.
fn drift_between(
    collection: &proctor_python::Collection,
    needed: &HashSet<String>,
    collected: &[CollectedItem],
    phase_items: &[usize],
) -> Vec<String> {
    let mut drift = Vec::new();
    if collected.is_empty() {
        return drift;
    }
    let statics: HashSet<&str> = collection.items.iter().map(|i| i.nodeid.as_str()).collect();
    // The functions whose items only pytest knows, each once (not a walk
    // of every static item per pytest item).
    let dynamic: HashSet<&str> = collection
        .items
        .iter()
        .filter(|i| i.dynamic.is_some())
        .map(|i| function_nodeid(&i.nodeid))
        .collect();
    let real: HashSet<&str> = collected.iter().map(|i| i.nodeid.as_str()).collect();
    for item in collected {
        if !statics.contains(item.nodeid.as_str())
            && !dynamic.contains(function_nodeid(&item.nodeid))
        {
            drift.push(format!(
                "pytest collected {} that static collection did not foresee",
                item.nodeid
            ));
        }
    }
    for item in phase_items.iter().map(|&i| &collection.items[i]) {
        if item.dynamic.is_none()
            && needed.contains(collected_file(&item.nodeid))
            && !real.contains(item.nodeid.as_str())
        {
            drift.push(format!(
                "static collection has {} but pytest did not collect it",
                item.nodeid
            ));
        }
    }
    drift
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
        markers: markers.to_vec(),
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
    collection: &proctor_python::Collection,
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

/// `--co`: the node ids the run would hand pytest, from static collection,
/// in pytest's order; dynamic items with their reason. Exit status as
/// `pytest --co`'s: 0, or 5 when nothing is selected.
fn run_flags_collect_only(
    out: &mut Printer,
    collection: &proctor_python::Collection,
    selected: &[usize],
) -> Result<u8> {
    for &index in selected {
        let item = &collection.items[index];
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

fn count_files(collection: &proctor_python::Collection) -> usize {
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

/// Tests of a phase that need a service that is down: deselected from
/// pytest, and noted with the first such service, to be reported as
/// errors. Tests proctor skips for another reason keep their skip.
fn withhold(
    decisions: &mut proctor_run::Decisions,
    items: &[CollectedItem],
    rules: &Rules<'_>,
    static_by_id: &HashMap<&str, &Item>,
    down: &[(String, String)],
    withheld: &mut Vec<(String, usize)>,
) {
    let deselected: HashSet<&str> = decisions.deselect.iter().map(String::as_str).collect();
    let mut held = Vec::new();
    for collected in items {
        let nodeid = collected.nodeid.as_str();
        if deselected.contains(nodeid) || decisions.skip.contains_key(nodeid) {
            continue;
        }
        let needs = rules.started_services_of(collected, static_by_id);
        if let Some(service) = down.iter().position(|(name, _)| needs.contains(name)) {
            held.push((collected.nodeid.clone(), service));
        }
    }
    if held.is_empty() {
        return;
    }
    let ids: HashSet<&str> = held.iter().map(|(nodeid, _)| nodeid.as_str()).collect();
    decisions
        .order
        .retain(|nodeid| !ids.contains(nodeid.as_str()));
    decisions
        .deselect
        .extend(held.iter().map(|(nodeid, _)| nodeid.clone()));
    for entry in held {
        if !withheld.iter().any(|(nodeid, _)| *nodeid == entry.0) {
            withheld.push(entry);
        }
    }
}

/// The first signal that interrupted the run (`SIGINT`, `SIGTERM`,
/// `SIGHUP`); 0 while none has.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The signal that interrupted the run, if one did.
fn interrupting_signal() -> Option<i32> {
    Some(SIGNAL.load(Ordering::SeqCst)).filter(|&signal| signal != 0)
}

/// The exit status of a run a signal interrupted: pytest's 2 for Ctrl-C,
/// 128 + the signal for the others, as a shell reports a process they
/// killed.
fn interrupted_exit_code(signal: i32) -> i32 {
    if signal == libc::SIGINT {
        2
    } else {
        128 + signal
    }
}

/// Ctrl-C, `SIGTERM` and `SIGHUP` (what `timeout`, `docker stop` and CI
/// cancellation send, and a closed terminal) set the returned flag
/// instead of ending proctor: the runner then stops pytest and the
/// services, and the history and reports of what finished are still
/// written. A second signal while proctor cleans up ends it at once:
/// every process group it started gets `SIGKILL`, and it exits with the
/// first signal's status.
fn install_interrupt_handler() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    let flag = FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)));
    #[cfg(unix)]
    {
        extern "C" fn on_signal(signal: libc::c_int) {
            match SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => {
                    if let Some(flag) = FLAG.get() {
                        flag.store(true, Ordering::SeqCst);
                    }
                }
                Err(first) => {
                    const MESSAGE: &[u8] = b"proctor: a second signal: stopping at once\n";
                    proctor_run::kill_registered_groups();
                    // SAFETY: `write` and `_exit` are async-signal-safe;
                    // the buffer is a static.
                    unsafe {
                        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
                        libc::_exit(interrupted_exit_code(first));
                    }
                }
            }
        }
        // SAFETY: the handler only uses atomics, `killpg`, `write` and
        // `_exit`, which are async-signal-safe; `sigaction` is given a
        // zeroed, valid struct.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&raw mut action.sa_mask);
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::sigaction(signal, &raw const action, std::ptr::null_mut());
            }
        }
    }
    Arc::clone(flag)
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
