//! The [`Runner`]: carries out a [`RunPlan`] one phase at a time. For each
//! phase it starts the services its tests need, runs pytest on the
//! phase's files (restarting it after a crash or a timeout), runs again
//! the failures a rerun rule covers, notes the drift between static
//! collection and pytest, and stops the services; everything it does is
//! a [`RunEvent`] to the reporter. What the tests are decided from is the
//! caller's [`Decider`].

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use proctor_config::{PlanOptions, RerunRule};
use proctor_outcome::{MarkerNames, Outcome, RunSummary, TestResult};
use proctor_python::function_nodeid;

use crate::events::{Results, RunEnd, RunEvent, RunReporter};
use crate::model::Event;
use crate::plan::{PhasePlan, RunPlan};
use crate::protocol::{CollectedItem, Decisions};
use crate::services::{RunningService, ServiceError};
use crate::session::{run_phase, Exiting, LateExit, PhaseOptions, RunError, Started};
use crate::workers::{run_workers, schedule, worker_options, StealQueue};

/// What the run decides for the items pytest collects.
pub trait Decider {
    /// The answer to pytest's collection in `phase`.
    fn decide(&self, items: &[CollectedItem], phase: Option<&str>) -> Decisions;
    /// The services proctor starts that a collected item needs.
    fn started_services_of(&self, item: &CollectedItem) -> Vec<String>;
    /// The effective marker names of a test pytest collected (shared by
    /// the tests that have the same names).
    fn markers_of(&self, nodeid: &str) -> Option<MarkerNames>;
}

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// pytest could not be run.
    #[error("cannot run pytest")]
    Run(#[source] RunError),
    /// pytest could not be run again for the reruns.
    #[error("cannot rerun pytest")]
    Rerun(#[source] RunError),
    /// The services' log directory could not be created.
    #[error("cannot create {path}")]
    LogDir {
        /// The directory.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Carries out a run's plan.
pub struct Runner<'a> {
    /// The options every pytest process of the run starts from.
    pub base: PhaseOptions,
    /// A pytest process started before the plan was made, for the first
    /// phase.
    pub early: Option<Started>,
    /// The services (and how to start them).
    pub plan_options: &'a PlanOptions,
    /// `[[run.reruns]]`.
    pub reruns: &'a [RerunRule],
    /// The rootdir, where services start.
    pub rootdir: &'a Path,
    /// Where services' logs go.
    pub log_dir: &'a Path,
    /// The opt-in manifest handed the bridge.
    pub opt_in: Option<std::path::PathBuf>,
    /// When the run started: events carry the time since.
    pub started: Instant,
}

/// A run whose results are in: its exit status, and the last pytest
/// process while it shuts down ([`Finished::wait`]).
pub struct Finished {
    exit_code: i32,
    shutdown: Shutdown,
    started: Instant,
}

impl Finished {
    /// Waits for the last pytest process; a crash after its session ended
    /// fails the run, as it fails bare pytest's caller. Returns the run's
    /// exit status.
    pub fn wait(mut self, reporter: &mut dyn RunReporter) -> i32 {
        self.shutdown.wait(self.started, reporter);
        match self.shutdown.late {
            Some(late) if self.exit_code == 0 => late.exit_code(),
            _ => self.exit_code,
        }
    }
}

/// What one pass over the phases gathered, beyond the results.
#[derive(Default)]
struct Gathered {
    deselected_ids: HashSet<String>,
    failed_to_start: Option<String>,
    pytest_status: Option<i32>,
    interrupted: bool,
    not_run: Vec<String>,
    stopped: Option<(Option<String>, Option<i32>)>,
    problems: Vec<String>,
}

/// The events of a run, to the reporter and to the runner's own results.
struct Emitter<'r> {
    started: Instant,
    reporter: &'r mut dyn RunReporter,
    results: Results,
}

impl Emitter<'_> {
    fn emit(&mut self, event: &RunEvent<'_>) {
        let elapsed = self.started.elapsed();
        self.results.event(elapsed, event);
        self.reporter.event(elapsed, event);
    }
}

impl Runner<'_> {
    /// Runs the plan's phases, one at a time, each event to `reporter`;
    /// ends with [`RunEvent::RunFinished`].
    pub fn run(
        mut self,
        plan: &RunPlan,
        decider: &dyn Decider,
        reporter: &mut dyn RunReporter,
    ) -> Result<Finished, RunnerError> {
        let mut out = Emitter {
            started: self.started,
            reporter,
            results: Results::default(),
        };
        out.emit(&RunEvent::RunStarted { plan });
        let mut gathered = Gathered::default();
        // The last pytest process, shutting down after its last hook: waited
        // for before another starts or a service stops, and at the end, after
        // the reporters' own work (summary, history, reports) is done.
        let mut shutdown = Shutdown::default();
        let interrupt = self.base.interrupt.clone();
        let interrupted_now = || {
            interrupt
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
        };
        for phase in &plan.phases {
            shutdown.wait(self.started, out.reporter);
            gathered.interrupted |= interrupted_now();
            if phase.files.is_empty() || gathered.interrupted {
                drop(self.early.take());
                continue;
            }
            self.run_one_phase(plan, phase, decider, &mut out, &mut gathered, &mut shutdown)?;
            out.emit(&RunEvent::PhaseFinished {
                name: phase.name.as_deref(),
            });
        }
        // A signal after the last phase still interrupted the run.
        let signal = crate::interrupt::signal();
        let interrupted = gathered.interrupted || signal.is_some();
        // The results become the reporters' `TestResult`s once the last
        // pytest process has exited: expanded while it shuts down, they
        // would add to its peak what the compact store saved.
        shutdown.wait(self.started, out.reporter);
        out.results.expand();
        let results = &out.results.results;
        let deselected = plan.deselected
            + if gathered.deselected_ids.is_empty() {
                0
            } else {
                let seen: HashSet<&str> = results.iter().map(|r| r.nodeid.as_str()).collect();
                gathered
                    .deselected_ids
                    .iter()
                    .filter(|n| !seen.contains(n.as_str()))
                    .count()
            };
        let interrupted_run = interrupted
            || gathered.failed_to_start.is_some()
            || matches!(gathered.pytest_status, Some(2));
        let summary = RunSummary::of(
            results,
            deselected,
            self.started.elapsed().as_secs_f64(),
            interrupted_run,
        );
        let stopped = gathered.stopped.as_ref();
        let code = match gathered.pytest_status {
            Some(status @ (3 | 4)) if !interrupted => status,
            // pytest's own status when its process exited with one (a
            // conftest it could not load), 2 when it died or said success.
            _ if gathered.failed_to_start.is_some() => match gathered.pytest_status {
                Some(status) if status != 0 && !interrupted => status,
                _ => 2,
            },
            // pytest chose to stop (`pytest.exit(returncode=...)`, `-x`): its
            // status is the run's, as bare pytest's caller sees it.
            _ if !interrupted && stopped.is_some_and(|(_, status)| status.is_some()) => {
                stopped.and_then(|(_, status)| *status).unwrap_or(1)
            }
            _ if !gathered.problems.is_empty() && summary.exit_code == 0 => 1,
            _ => summary.exit_code,
        };
        // `SIGTERM` and `SIGHUP` exit as a process they killed would report
        // (128 + the signal), after cleaning up; Ctrl-C is pytest's 2.
        let code = signal.map_or(code, crate::interrupt::exit_code);
        let end = RunEnd {
            summary,
            exit_code: code,
            interrupted,
            signal,
            failed_to_start: gathered.failed_to_start,
            problems: gathered.problems,
            not_run: gathered
                .stopped
                .map(|(why, _)| (why, std::mem::take(&mut gathered.not_run))),
            results: std::mem::take(&mut out.results),
        };
        out.emit(&RunEvent::RunFinished(&end));
        Ok(Finished {
            exit_code: code,
            shutdown,
            started: self.started,
        })
    }

    fn run_one_phase(
        &mut self,
        plan: &RunPlan,
        phase_plan: &PhasePlan,
        decider: &dyn Decider,
        out: &mut Emitter<'_>,
        gathered: &mut Gathered,
        shutdown: &mut Shutdown,
    ) -> Result<(), RunnerError> {
        out.emit(&RunEvent::PhaseStarted {
            name: phase_plan.name.as_deref(),
            tests: phase_plan.items.len(),
            files: phase_plan.files.len(),
        });
        // Services this phase's tests need and proctor starts.
        std::fs::create_dir_all(self.log_dir).map_err(|source| RunnerError::LogDir {
            path: self.log_dir.to_owned(),
            source,
        })?;
        let mut running = Vec::new();
        let mut service_env = self.base.env.clone();
        // Services that did not become ready, with the error their tests
        // carry: those tests become errors, the phase's others still run.
        let mut down: Vec<(String, String)> = Vec::new();
        for name in &phase_plan.services {
            let Some(service) = self
                .plan_options
                .service(name)
                .filter(|s| s.start.is_some())
            else {
                continue;
            };
            match RunningService::start_watching(
                name,
                service,
                self.rootdir,
                self.log_dir,
                |var| env_var(&self.base.env, var),
                self.base.interrupt.as_deref(),
            ) {
                Ok(started) => {
                    out.emit(&RunEvent::ServiceReady {
                        name,
                        address: started.address(),
                        unstoppable: started.daemonized() && service.stop.is_none(),
                    });
                    service_env.extend(started.env());
                    running.push(started);
                }
                Err(ServiceError::Interrupted { .. }) => {
                    gathered.interrupted = true;
                    break;
                }
                Err(err) => {
                    let message = err.to_string();
                    out.emit(&RunEvent::ServiceFailed {
                        name,
                        message: &message,
                    });
                    let tail = match &err {
                        ServiceError::NotReady { log_tail, .. } if !log_tail.is_empty() => {
                            format!("\nthe service's last output:\n{log_tail}")
                        }
                        _ => String::new(),
                    };
                    down.push((name.clone(), format!("{message}{tail}")));
                }
            }
        }
        if gathered.interrupted {
            stop_services(running, out);
            drop(self.early.take());
            return Ok(());
        }
        // pytest gets the same arguments as bare pytest would; the modules
        // it need not import in this phase are ignored as with `--ignore`
        // (many file arguments make pytest's collection slower than its
        // own walk).
        let options = PhaseOptions {
            env: service_env,
            phase: phase_plan.name.clone(),
            module_sync: running.iter().any(|s| {
                self.plan_options
                    .service(s.name())
                    .is_some_and(|o| o.hook_between_modules.is_some())
            }),
            ignore: plan
                .all_files
                .iter()
                .filter(|f| !phase_plan.files.iter().any(|p| p == *f))
                .map(|file| self.rootdir.join(file))
                .collect(),
            opt_in: self.opt_in.clone(),
            // The runner keeps the results it hears of (`out.results`).
            keep_results: false,
            known_ids: Some(Arc::clone(&plan.static_ids)),
            ..self.base.clone()
        };
        // Tests that need a service that is down are not run: pytest still
        // reports the phase's others, and the skips of those gated off.
        let withheld: std::cell::RefCell<Vec<(String, usize)>> =
            std::cell::RefCell::new(Vec::new());
        let name = phase_plan.name.as_deref();
        let mut decide = |items: &[CollectedItem]| {
            let mut decisions = decider.decide(items, name);
            if !down.is_empty() {
                withhold(
                    &mut decisions,
                    items,
                    decider,
                    &down,
                    &mut withheld.borrow_mut(),
                );
            }
            decisions
        };
        let first = out.results.stored_len();
        // `-n`: a first share of the files per worker, all at once, and
        // the rest for the workers to take as they finish. Hooks between
        // modules need the one process's order: such a phase runs in one.
        // So does a suite with a collection error, which stops pytest's
        // session before its first test (a worker could not know whether
        // another's files fail to collect before it ran its own tests).
        let collection_stops = plan.collect_errors > 0
            && !options
                .extra_args
                .iter()
                .any(|a| a == "--continue-on-collection-errors");
        let (shares, queue) = if plan.workers > 1 && !options.module_sync && !collection_stops {
            schedule(
                &phase_plan.files,
                &plan.file_durations,
                self.rootdir,
                plan.workers,
                plan.dist,
                &plan.file_groups,
            )
        } else {
            (Vec::new(), StealQueue::default())
        };
        let queue = Arc::new(queue);
        let mut outcome = if shares.len() > 1 {
            let workers = worker_options(&options, self.rootdir, &shares, &queue);
            let (outcome, late_exits) = run_workers(
                &workers,
                self.early.take(),
                &mut decide,
                &mut |event: &Event| forward(event, decider, false, out),
            )
            .map_err(RunnerError::Run)?;
            for late in late_exits {
                shutdown.late_exit(late, self.started, out.reporter);
            }
            outcome
        } else {
            run_phase(
                &options,
                self.early.take(),
                &mut decide,
                &mut |event: &Event| {
                    if let Event::ModuleStarting { module } = event {
                        between_modules(&running, module, out);
                    }
                    forward(event, decider, false, out);
                },
            )
            .map_err(RunnerError::Run)?
        };
        shutdown.exiting.extend(outcome.exiting.take());
        gathered
            .deselected_ids
            .extend(outcome.deselected.iter().cloned());
        // A file pytest failed to collect or skipped whole has none of its
        // static items: pytest's report says why.
        let whole: HashSet<&str> = out
            .results
            .stored_from(first)
            .filter(|r| !r.nodeid.contains("::"))
            .map(|r| r.nodeid)
            .collect();
        // Files no worker took, once one's session stopped early (`-x`):
        // not run, as in one process, and not drift.
        let withdrawn: HashSet<String> = queue.withdrawn().into_iter().collect();
        if !withdrawn.is_empty() {
            outcome.not_run.extend(
                phase_plan
                    .items
                    .iter()
                    .filter(|i| !i.dynamic && withdrawn.contains(&*i.file))
                    .map(|i| i.nodeid.to_string()),
            );
        }
        let files: HashSet<&str> = phase_plan
            .files
            .iter()
            .map(String::as_str)
            .filter(|f| !whole.contains(f) && !withdrawn.contains(*f))
            .collect();
        for message in drift_between(plan, phase_plan, &files, &outcome.collected) {
            out.emit(&RunEvent::Drift { message: &message });
        }
        if outcome.failed_to_start.is_some() {
            gathered.failed_to_start = outcome.failed_to_start;
        }
        gathered.pytest_status = gathered.pytest_status.max(outcome.pytest_status);
        gathered.interrupted = outcome.interrupted;
        if !outcome.not_run.is_empty() {
            gathered.not_run.extend(outcome.not_run);
            gathered
                .stopped
                .get_or_insert((outcome.stopped, outcome.pytest_status));
        }
        gathered.problems.extend(outcome.problems);
        if !gathered.interrupted {
            self.rerun(&options, first, decider, &mut decide, out, shutdown)?;
            gathered.interrupted = options
                .interrupt
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed));
        }
        // After the reruns: these did not run, there is nothing to rerun.
        // (Without a service down, no set of the phase's ids is made: it
        // would be megabytes on 100,000 tests while pytest exits.)
        let mut withheld = withheld.take();
        if !withheld.is_empty() {
            let reported: HashSet<&str> =
                out.results.stored_from(first).map(|r| r.nodeid).collect();
            withheld.retain(|(nodeid, _)| !reported.contains(nodeid.as_str()));
        }
        for (nodeid, service) in withheld {
            let mut result = TestResult {
                phase: phase_plan.name.clone(),
                message: Some(down[service].1.clone()),
                ..TestResult::new(nodeid, Outcome::Error)
            };
            if let Some(names) = decider.markers_of(&result.nodeid) {
                result.markers = names;
            }
            out.emit(&RunEvent::TestFinished {
                result: &result,
                rerun: false,
            });
        }
        if !running.is_empty() {
            shutdown.wait(self.started, out.reporter);
        }
        stop_services(running, out);
        Ok(())
    }

    /// Runs again the failures (among the results from `first`) that a
    /// rerun rule covers, each rule's `times` at most, `delay` seconds
    /// apart; a test that passes on a rerun is `passed` and flaky.
    fn rerun(
        &self,
        phase: &PhaseOptions,
        first: usize,
        decider: &dyn Decider,
        decide: &mut dyn FnMut(&[CollectedItem]) -> Decisions,
        out: &mut Emitter<'_>,
        shutdown: &mut Shutdown,
    ) -> Result<(), RunnerError> {
        let rules = self.reruns;
        for round in 1..=rules.iter().map(|r| r.times.get()).max().unwrap_or(0) {
            let mut wanted: Vec<(String, f64)> = Vec::new();
            for result in out.results.stored_from(first) {
                if !result.outcome.is_failure()
                    || phase
                        .interrupt
                        .as_ref()
                        .is_some_and(|f| f.load(Ordering::Relaxed))
                {
                    continue;
                }
                let markers = decider.markers_of(result.nodeid).unwrap_or_default();
                let text = result.message.unwrap_or_default();
                if let Some(rule) = rules.iter().find(|r| r.applies(&markers, text)) {
                    if round <= rule.times.get() {
                        wanted.push((result.nodeid.to_owned(), rule.delay));
                    }
                }
            }
            if wanted.is_empty() {
                return Ok(());
            }
            let delay = wanted.iter().map(|(_, d)| *d).fold(0.0, f64::max);
            out.emit(&RunEvent::Rerun {
                round,
                tests: wanted.len(),
                delay,
            });
            if delay > 0.0 {
                std::thread::sleep(Duration::from_secs_f64(delay));
            }
            // One pytest process at a time: the phase's own ends first.
            shutdown.wait(self.started, out.reporter);
            // The node ids reach pytest through the bridge, whatever they hold.
            let again = PhaseOptions {
                only: Some(wanted.iter().map(|(nodeid, _)| nodeid.clone()).collect()),
                ..phase.clone()
            };
            let outcome = run_phase(&again, None, decide, &mut |event: &Event| {
                forward(event, decider, true, out);
            })
            .map_err(RunnerError::Rerun)?;
            shutdown.exiting.extend(outcome.exiting);
        }
        Ok(())
    }
}

/// A session's event as the run's; in a rerun, each test that finishes is
/// an attempt of one that failed before.
fn forward(event: &Event, decider: &dyn Decider, rerun: bool, out: &mut Emitter<'_>) {
    match event {
        Event::ProcessStarted { phase, command } => out.emit(&RunEvent::ProcessStarted {
            phase: phase.as_deref(),
            command,
        }),
        Event::ProcessExited { status, signal } => out.emit(&RunEvent::ProcessExited {
            status: *status,
            signal: *signal,
        }),
        Event::Collected {
            collected,
            deselected,
            skipped,
        } => out.emit(&RunEvent::Collected {
            collected: *collected,
            deselected: *deselected,
            skipped: *skipped,
        }),
        Event::ModuleStarting { .. } => {}
        Event::TestStarted { nodeid } => out.emit(&RunEvent::TestStarted { nodeid }),
        Event::TestFinished(result) => {
            let mut result = result.clone();
            if let Some(names) = decider.markers_of(&result.nodeid) {
                result.markers = names;
            }
            out.emit(&RunEvent::TestFinished {
                result: &result,
                rerun,
            });
        }
        Event::Note { message } => out.emit(&RunEvent::Note { message }),
    }
}

/// A variable as the tests see it: the job's `env` first, then proctor's
/// own environment.
#[must_use]
pub fn env_var(env: &[(String, String)], name: &str) -> Option<String> {
    env.iter()
        .rev()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var(name).ok())
}

/// The services' hooks between modules (`hook-between-modules`), before
/// the first test of `module`; a failing hook is noted, the run goes on.
fn between_modules(running: &[RunningService], module: &str, out: &mut Emitter<'_>) {
    for service in running {
        if let Err(err) = service.hook() {
            out.emit(&RunEvent::ServiceHookFailed {
                module,
                message: &err.to_string(),
            });
        }
    }
}

/// Stops the services a phase started, noting any that would not stop.
fn stop_services(running: Vec<RunningService>, out: &mut Emitter<'_>) {
    for service in running.into_iter().rev() {
        let name = service.name().to_owned();
        if let Err(err) = service.stop() {
            out.emit(&RunEvent::ServiceStopFailed {
                name: &name,
                message: &err.to_string(),
            });
        }
    }
}

/// Items static collection and pytest disagree on, in the imported files.
fn drift_between(
    plan: &RunPlan,
    phase: &PhasePlan,
    needed: &HashSet<&str>,
    collected: &[CollectedItem],
) -> Vec<String> {
    let mut drift = Vec::new();
    if collected.is_empty() {
        return drift;
    }
    let real: HashSet<&str> = collected.iter().map(|i| &*i.nodeid).collect();
    for item in collected {
        if !plan.static_ids.contains(&*item.nodeid)
            && !plan
                .dynamic_functions
                .contains(function_nodeid(&item.nodeid))
        {
            drift.push(format!(
                "pytest collected {} that static collection did not foresee",
                item.nodeid
            ));
        }
    }
    for item in &phase.items {
        if !item.dynamic && needed.contains(&*item.file) && !real.contains(&*item.nodeid) {
            drift.push(format!(
                "static collection has {} but pytest did not collect it",
                item.nodeid
            ));
        }
    }
    drift
}

/// Tests of a phase that need a service that is down: deselected from
/// pytest, and noted with the first such service, to be reported as
/// errors. Tests proctor skips for another reason keep their skip.
fn withhold(
    decisions: &mut Decisions,
    items: &[CollectedItem],
    decider: &dyn Decider,
    down: &[(String, String)],
    withheld: &mut Vec<(String, usize)>,
) {
    let deselected: HashSet<&str> = decisions.deselect.iter().map(String::as_str).collect();
    let mut held = Vec::new();
    for collected in items {
        let nodeid = &*collected.nodeid;
        if deselected.contains(nodeid) || decisions.skip.contains_key(nodeid) {
            continue;
        }
        let needs = decider.started_services_of(collected);
        if let Some(service) = down.iter().position(|(name, _)| needs.contains(name)) {
            held.push((collected.nodeid.to_string(), service));
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

/// The last pytest processes while their interpreters shut down, and the
/// first process that exited otherwise than its session ended.
#[derive(Default)]
struct Shutdown {
    exiting: Vec<Exiting>,
    late: Option<LateExit>,
}

impl Shutdown {
    /// Waits for the processes still shutting down, if any; reports each
    /// late exit.
    fn wait(&mut self, started: Instant, reporter: &mut dyn RunReporter) {
        for exiting in std::mem::take(&mut self.exiting) {
            if let Some(late) = exiting.wait() {
                self.late_exit(late, started, reporter);
            }
        }
    }

    /// Reports a process that exited otherwise than its session ended.
    fn late_exit(&mut self, late: LateExit, started: Instant, reporter: &mut dyn RunReporter) {
        reporter.event(started.elapsed(), &RunEvent::LateExit(&late));
        self.late.get_or_insert(late);
    }
}
