//! One phase of a run: pytest processes with the bridge plugin, proctor's
//! decisions at collection, results as they come, and a new process for
//! the tests still to run when one dies or a test exceeds its timeout.
//! No wait is unbounded: each one also watches the pytest process (not
//! only its socket, which a child it forked may hold open), Ctrl-C, and,
//! with a timeout, the time since pytest's last step (start-up, each file
//! collected, each test).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use proctor_outcome::{Outcome, TestResult};

use crate::model::Event;
use crate::outcome::fold;
use crate::process::{
    describe_exit, group_of, log_tail, own_group_dying_with_proctor, register_group, signal_group,
};
use crate::protocol::{CollectedItem, Decisions, Message, More, Setup, Unreadable};
use crate::workers::StealQueue;

/// The plugin's source, written next to the run's files and imported by
/// pytest as `proctor_bridge`.
const PLUGIN: &str = include_str!("bridge/proctor_bridge.py");

/// How many times a phase starts a new pytest process after a crash or a
/// timeout before it reports the rest as not run.
const MAX_RESTARTS: usize = 50;

/// What a phase runs and how.
#[derive(Debug, Clone)]
pub struct PhaseOptions {
    /// The interpreter that runs pytest.
    pub python: PathBuf,
    /// Where pytest runs (the rootdir).
    pub cwd: PathBuf,
    /// Paths or node ids for the first process (empty: pytest's default).
    pub args: Vec<String>,
    /// Arguments passed through to pytest after proctor's.
    pub extra_args: Vec<String>,
    /// Environment variables for pytest.
    pub env: Vec<(String, String)>,
    /// The longest a test may run before its process is killed.
    pub timeout: Option<Duration>,
    /// The phase's name, when the run has phases.
    pub phase: Option<String>,
    /// A directory of this run's own, for pytest's output (two runs at
    /// once in one project must not share one).
    pub work_dir: PathBuf,
    /// Where the plugin is written and imported from: shared by the runs
    /// of a project, so that Python's cached bytecode of it is reused.
    pub plugin_dir: PathBuf,
    /// Collect only these node ids, as reported (the failures a rerun runs
    /// again); `None`: what `args` name.
    pub only: Option<Vec<String>>,
    /// Set (by a Ctrl-C handler) to stop: pytest is killed, the phase
    /// returns what finished, and nothing is restarted.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// pytest stops before the first test of each module after the first
    /// until `on_event` has handled [`Event::ModuleStarting`].
    pub module_sync: bool,
    /// Modules pytest need not import, as if given `--ignore` (the bridge
    /// hands them over when pytest's session starts, so that a process
    /// started early need not know them yet).
    pub ignore: Vec<PathBuf>,
    /// The manifest of opted-in examples and notebooks, if any.
    pub opt_in: Option<PathBuf>,
    /// Report [`Event::TestStarted`] for each test (one more message per
    /// test: asked only by a progress line on a terminal).
    pub starts: bool,
    /// Keep each result in [`PhaseOutcome::results`] too (`false`: the
    /// caller keeps them from [`Event::TestFinished`], and a run of
    /// 100,000 tests does not hold each twice).
    pub keep_results: bool,
    /// A worker's queue of files to take once it is about to run the last
    /// test it holds (`-n`), collected into the same pytest session.
    pub steal: Option<Arc<StealQueue>>,
    /// The texts of the node ids static collection knows (the plan's
    /// `static_ids`): the session holds those ids as these texts, not as
    /// copies of its own (on 100,000 tests, megabytes while pytest runs).
    pub known_ids: Option<Arc<HashSet<Arc<str>>>>,
}

/// What a phase produced.
#[derive(Debug, Default)]
pub struct PhaseOutcome {
    /// One result per test that ran (or crashed, or timed out), with
    /// [`PhaseOptions::keep_results`].
    pub results: Vec<TestResult>,
    /// Items proctor deselected.
    pub deselected: Vec<String>,
    /// What pytest collected in the first process.
    pub collected: Vec<CollectedItem>,
    /// pytest's exit status of the last process, when it said.
    pub pytest_status: Option<i32>,
    /// pytest never reached collection (a usage error, a crash in a
    /// conftest): the tail of its output.
    pub failed_to_start: Option<String>,
    /// The run was interrupted (Ctrl-C).
    pub interrupted: bool,
    /// The last process, when its session ended and its interpreter is
    /// still shutting down.
    pub exiting: Option<Exiting>,
    /// Why pytest ended its session before its last test, as pytest says
    /// it (`pytest.exit`, a `KeyboardInterrupt` in a test, `-x`).
    pub stopped: Option<String>,
    /// Tests pytest's session ended without running (after `pytest.exit`
    /// or `-x`): not restarted, since pytest chose to stop.
    pub not_run: Vec<String>,
    /// What went wrong with no test to blame (a line proctor cannot read
    /// while no test runs, a session that ran over the timeout after its
    /// last test); each fails the run.
    pub problems: Vec<String>,
}

/// A pytest process that ran its last hook: its results and exit status
/// are in, and its interpreter is shutting down (for a suite of thousands
/// of tests, hundreds of milliseconds in which bare pytest does nothing
/// else either). Whoever holds it goes on meanwhile, and then waits for it
/// with [`Exiting::wait`]; dropping it waits too, so that nothing it
/// started outlives proctor.
#[derive(Debug)]
pub struct Exiting {
    child: Child,
    /// The status pytest's session ended with.
    session_status: i32,
    interrupt: Option<Arc<AtomicBool>>,
    reaped: bool,
}

impl Exiting {
    /// Waits for the process to exit, as long as it takes (a non-daemon
    /// thread keeps bare pytest alive too), or kills it at once on an
    /// interrupt; then kills what it left in its process group.
    /// Returns what went wrong when the process did not exit with its
    /// session's status (a crash in an `atexit` handler or in an
    /// extension's teardown), which bare pytest's caller would have seen.
    #[must_use]
    pub fn wait(mut self) -> Option<LateExit> {
        self.reaped = true;
        let status = reap(&mut self.child, self.interrupt.as_deref(), None);
        let process_status = status.and_then(|status| status.code());
        let signal = status.and_then(|status| status.signal());
        (process_status != Some(self.session_status)).then_some(LateExit {
            session_status: self.session_status,
            process_status,
            signal,
        })
    }
}

/// A pytest process that exited with another status than its session
/// ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LateExit {
    /// The status pytest's session ended with.
    pub session_status: i32,
    /// The process's exit status, `None` when a signal ended it.
    pub process_status: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
}

impl LateExit {
    /// The exit code bare pytest's caller would have seen: the process's,
    /// or 1 when a signal ended it.
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        self.process_status.unwrap_or(1)
    }
}

impl std::fmt::Display for LateExit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match (self.process_status, self.signal) {
            (Some(code), _) => format!("exited with exit status {code}"),
            (None, Some(signal)) => format!("was {}", crate::process::killed_by(signal)),
            (None, None) => "ended without an exit status".to_owned(),
        };
        write!(
            f,
            "pytest's session ended with status {}, but its process then {how}",
            self.session_status
        )
    }
}

impl Drop for Exiting {
    fn drop(&mut self) {
        if !self.reaped {
            reap(&mut self.child, self.interrupt.as_deref(), None);
        }
    }
}

/// Why a phase could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The work directory could not be prepared.
    #[error("cannot prepare {path}: {source}")]
    WorkDir {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// pytest could not be started.
    #[error("cannot start {python} -m pytest: {source}")]
    Spawn {
        /// The interpreter.
        python: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The loopback listener for the bridge could not be opened.
    #[error("cannot open a loopback port for the bridge: {0}")]
    Listen(std::io::Error),
}

/// A pytest process started before its phase runs, so that Python starts
/// while proctor still reads the suite; [`run_phase`] serves it. Dropped
/// unserved (nothing to run after all, or an error), it is killed.
pub struct Started {
    listener: TcpListener,
    address: String,
    process: Option<Spawned>,
}

/// One pytest process and what identifies it.
struct Spawned {
    child: Child,
    token: String,
    log_path: PathBuf,
    command: Vec<String>,
}

impl Drop for Started {
    fn drop(&mut self) {
        if let Some(mut spawned) = self.process.take() {
            kill(&mut spawned.child);
            let _ = spawned.child.wait();
        }
    }
}

/// Starts the first pytest process of a phase now. Of `options`, what
/// the process is started with must be final (interpreter, directory,
/// arguments, environment, work directory, phase name); the rest
/// (`ignore`, `opt_in`, `module_sync`, `timeout`) is read when
/// [`run_phase`] serves it.
pub fn start(options: &PhaseOptions) -> Result<Started, RunError> {
    let (listener, address) = listen_on_loopback(options)?;
    let process = spawn(options, &options.args, &address, 0)?;
    Ok(Started {
        listener,
        address,
        process: Some(process),
    })
}

/// Writes the plugin and opens the loopback listener the plugin connects to.
fn listen_on_loopback(options: &PhaseOptions) -> Result<(TcpListener, String), RunError> {
    for dir in [&options.work_dir, &options.plugin_dir] {
        std::fs::create_dir_all(dir).map_err(|source| RunError::WorkDir {
            path: dir.clone(),
            source,
        })?;
    }
    let plugin = options.plugin_dir.join("proctor_bridge.py");
    // Written only when it changed: an untouched file keeps its mtime, so
    // Python reuses the bytecode it cached instead of compiling it again.
    // Renamed into place, so that a run starting meanwhile never imports
    // half a file. The partial file's name is this writer's own: the
    // workers of `-n` write it from threads of one process at once.
    if std::fs::read(&plugin).ok().as_deref() != Some(PLUGIN.as_bytes()) {
        static WRITERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let writer = WRITERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let partial = options.plugin_dir.join(format!(
            ".proctor_bridge.py.{}.{writer}",
            std::process::id()
        ));
        std::fs::write(&partial, PLUGIN)
            .and_then(|()| std::fs::rename(&partial, &plugin))
            .map_err(|source| RunError::WorkDir {
                path: plugin.clone(),
                source,
            })?;
    }
    let listener = TcpListener::bind("127.0.0.1:0").map_err(RunError::Listen)?;
    listener.set_nonblocking(true).map_err(RunError::Listen)?;
    let address = listener.local_addr().map_err(RunError::Listen)?.to_string();
    Ok((listener, address))
}

fn spawn(
    options: &PhaseOptions,
    args: &[String],
    address: &str,
    attempt: usize,
) -> Result<Spawned, RunError> {
    let token = format!("{}-{attempt}-{}", std::process::id(), nanos());
    let log_path = options.work_dir.join(format!(
        "pytest-{}{attempt}.log",
        options
            .phase
            .as_deref()
            .map(|p| format!("{p}-"))
            .unwrap_or_default()
    ));
    let mut command = pytest_command(options, args, address, &token, &log_path)?;
    let child = command.spawn().map_err(|source| RunError::Spawn {
        python: options.python.clone(),
        source,
    })?;
    register_group(group_of(&child));
    Ok(Spawned {
        child,
        token,
        log_path,
        command: describe(&command),
    })
}

/// Runs one phase, in the process `started` if given (see [`start`]).
/// `decide` answers each collection; `on_event` hears every event as it
/// happens.
pub fn run_phase(
    options: &PhaseOptions,
    started: Option<Started>,
    decide: &mut dyn FnMut(&[CollectedItem]) -> Decisions,
    on_event: &mut dyn FnMut(&Event),
) -> Result<PhaseOutcome, RunError> {
    let (listener, address, mut first) = if let Some(mut started) = started {
        let process = started.process.take();
        let listener = started.listener.try_clone().map_err(RunError::Listen)?;
        (listener, started.address.clone(), process)
    } else {
        let (listener, address) = listen_on_loopback(options)?;
        (listener, address, None)
    };
    let mut setup = Setup {
        ignore: options
            .ignore
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        opt_in: options
            .opt_in
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        module_sync: options.module_sync,
        only: options.only.clone(),
        progress: options.timeout.is_some(),
        starts: options.starts,
        steal: options.steal.is_some(),
    };
    let mut outcome = PhaseOutcome::default();
    let mut finished = Ended {
        known: options.known_ids.clone(),
        ..Ended::default()
    };
    // The items still to run, once the first process has collected.
    let mut expected: Option<Vec<Arc<str>>> = None;
    for attempt in 0..=MAX_RESTARTS {
        // A restart gets the first process's command line (the same
        // rootdir, ini file and initial conftests), and the tests still to
        // run through the setup, where no character of a node id can break
        // an argument.
        let Spawned {
            mut child,
            token,
            log_path,
            command,
        } = match first.take() {
            Some(spawned) => spawned,
            None => spawn(options, &options.args, &address, attempt)?,
        };
        let setup_line = serde_json::to_string(&setup).unwrap_or_else(|_| "{}".to_owned()) + "\n";
        on_event(&Event::ProcessStarted {
            phase: options.phase.clone(),
            command,
        });
        let process = serve(
            &listener,
            &mut child,
            &token,
            &setup_line,
            options,
            decide,
            on_event,
            &mut outcome,
            &mut finished,
            expected.is_none(),
        );
        let status =
            if let (true, Some(session_status)) = (process.unconfigured, process.session_status) {
                // Nothing more can come from it: the caller goes on while its
                // interpreter shuts down.
                outcome.exiting = Some(Exiting {
                    child,
                    session_status,
                    interrupt: options.interrupt.clone(),
                    reaped: false,
                });
                None
            } else {
                reap(&mut child, options.interrupt.as_deref(), Some(EXIT_GRACE))
            };
        if let Some(status) = status {
            on_event(&Event::ProcessExited {
                status: status.code(),
                signal: std::os::unix::process::ExitStatusExt::signal(&status),
            });
        }
        if let Some(kept) = process.kept {
            match &mut expected {
                None => expected = Some(kept),
                // A restart's own items are expected already; the files it
                // took afterwards are not.
                Some(expected) => expected.extend(kept.into_iter().skip(process.first_batch)),
            }
        }
        if !process.taking.is_empty() {
            // The files it took never came back collected: pytest's
            // process ended while it imported them.
            let problem = format!(
                "the pytest process ended while it collected {} ({}){}",
                process.taking.join(", "),
                describe_exit(status),
                pytest_tail(&log_path)
            );
            on_event(&Event::Note {
                message: problem.clone(),
            });
            outcome.problems.push(problem);
        }
        if let Some(code) = process.session_status {
            outcome.pytest_status = Some(code);
        }
        if process.interrupted {
            outcome.interrupted = true;
            return Ok(outcome);
        }
        if let Some((nodeid, started, outcome_kind)) = process.interrupted_test {
            finished.insert(&nodeid);
            let message = match outcome_kind {
                Outcome::TimedOut => format!(
                    "timed out after {:.1}s; its pytest process was killed",
                    started.elapsed().as_secs_f64()
                ),
                _ => format!(
                    "the pytest process died while this test ran ({}){}",
                    describe_exit(status),
                    pytest_tail(&log_path)
                ),
            };
            let result = TestResult {
                duration: started.elapsed().as_secs_f64(),
                phase: options.phase.clone(),
                message: Some(message),
                ..TestResult::new(nodeid, outcome_kind)
            };
            finish(options, on_event, &mut outcome.results, result);
        }
        let Some(kept) = &expected else {
            // pytest stopped before collection was answered.
            let reason = process
                .problems
                .first()
                .map(|p| format!("\n{p}"))
                .unwrap_or_default();
            outcome.failed_to_start = Some(format!("{reason}{}", pytest_tail(&log_path)));
            // No session said its status: the process's is the one bare
            // pytest's caller sees (4 for a conftest that does not import,
            // 1 for a hook pluggy rejects).
            if outcome.pytest_status.is_none() {
                outcome.pytest_status = status.and_then(|s| s.code());
            }
            return Ok(outcome);
        };
        for problem in process.problems {
            on_event(&Event::Note {
                message: problem.clone(),
            });
            outcome.problems.push(problem);
        }
        if process.stopped.is_some() {
            outcome.stopped.clone_from(&process.stopped);
        }
        let remaining: Vec<String> = kept
            .iter()
            .filter(|n| !finished.contains(n))
            .map(ToString::to_string)
            .collect();
        if remaining.is_empty() {
            return Ok(outcome);
        }
        if process.clean_end {
            // pytest chose to stop (`pytest.exit`, `-x`): not restarted,
            // and not lost either.
            let why = process
                .stopped
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            on_event(&Event::Note {
                message: format!(
                    "pytest ended its session{why} with {} selected test(s) not run",
                    remaining.len()
                ),
            });
            outcome.not_run = remaining;
            return Ok(outcome);
        }
        on_event(&Event::Note {
            message: format!(
                "restarting pytest for the {} test(s) not run yet",
                remaining.len()
            ),
        });
        setup.only = Some(remaining);
    }
    Ok(outcome)
}

/// What one process did.
#[derive(Default)]
struct ProcessReport {
    /// The items kept after proctor's decisions, in run order.
    kept: Option<Vec<Arc<str>>>,
    /// pytest's session exit status.
    session_status: Option<i32>,
    /// The test that was running when the process died or was killed.
    interrupted_test: Option<(String, Instant, Outcome)>,
    /// The session finished normally.
    clean_end: bool,
    /// pytest ran its last hook; the process is still shutting down.
    unconfigured: bool,
    /// Stopped by the interrupt flag.
    interrupted: bool,
    /// Why pytest ended its session early, as it says.
    stopped: Option<String>,
    /// What went wrong with no test to blame; before collection was
    /// answered, why the process was stopped.
    problems: Vec<String>,
    /// Where in `kept` the latest collection's items start (after the
    /// first, the files a worker took), and how many the first holds.
    batch: usize,
    first_batch: usize,
    /// Files handed to the worker and not yet collected.
    taking: Vec<String>,
}

/// How long, after pytest exited, proctor waits for the rest of what it
/// sent when the stream does not end (a process forked outside Python holds
/// the socket): a bound on a wait that normally ends at once.
const EXIT_DRAIN: Duration = Duration::from_secs(2);

#[expect(
    clippy::too_many_arguments,
    reason = "one process's state, threaded through once"
)]
fn serve(
    listener: &TcpListener,
    child: &mut Child,
    token: &str,
    setup: &str,
    options: &PhaseOptions,
    decide: &mut dyn FnMut(&[CollectedItem]) -> Decisions,
    on_event: &mut dyn FnMut(&Event),
    outcome: &mut PhaseOutcome,
    finished: &mut Ended,
    first: bool,
) -> ProcessReport {
    let mut report = ProcessReport::default();
    let stream = match accept(listener, child, options) {
        Accepted::Stream(stream) => stream,
        Accepted::Gone => return report,
        Accepted::Interrupted => {
            kill(child);
            report.interrupted = true;
            return report;
        }
        Accepted::TimedOut(limit) => {
            kill(child);
            report.problems.push(format!("pytest did not start within {limit:.1}s (Python or pytest itself hangs when imported?); its process was killed"));
            return report;
        }
    };
    let mut lines = Lines::new(stream);
    // The plugin sends a test's messages when it ends (one write per test),
    // and pytest runs the kept items in order (the final order, when a
    // later hook changed it): the test running now is the first kept one
    // not finished, since the last finish (or collection).
    let mut since = Instant::now();
    let mut trusted = false;
    // The file or directory pytest is collecting (with a timeout only).
    let mut collecting: Option<String> = None;
    // The process exited: what it sent is read, then the socket is not
    // waited for (a child it forked may hold it open).
    let mut exited = false;
    // Since when, after the exit, nothing has arrived.
    let mut quiet_since: Option<Instant> = None;
    let running = |kept: &Option<Vec<Arc<str>>>, finished: &Ended| -> Option<String> {
        kept.as_ref()?
            .iter()
            .find(|n| !finished.contains(n))
            .map(ToString::to_string)
    };
    'process: loop {
        if !report.interrupted
            && options
                .interrupt
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            kill(child);
            report.interrupted = true;
            // What pytest sent before it was killed is still read: a test
            // that finished just before the signal is not lost.
            exited = true;
            continue;
        }
        // Until the plugin says hello (as pytest goes to load the conftests),
        // pytest is loading its entry-point plugins: start-up, not the suite.
        if let Some(limit) = options
            .timeout
            .map(|limit| if trusted { limit } else { limit.max(STARTUP) })
            .filter(|limit| !report.interrupted && since.elapsed() > *limit)
        {
            kill(child);
            let limit = limit.as_secs_f64();
            if !trusted {
                report.problems.push(format!("pytest did not start within {limit:.1}s (a plugin that hangs when imported?); its process was killed"));
                return report;
            }
            match (running(&report.kept, finished), &report.kept, &collecting) {
                (Some(nodeid), _, _) => report.interrupted_test = Some((nodeid, since, Outcome::TimedOut)),
                (None, None, Some(collector)) => report.problems.push(format!("pytest ran over the {limit:.1}s timeout while collecting {collector}; its process was killed")),
                (None, None, None) => report.problems.push(format!("pytest ran over the {limit:.1}s timeout before collecting (a conftest or plugin that hangs when imported?); its process was killed")),
                (None, Some(_), _) => report.problems.push(format!("pytest ran over the {limit:.1}s timeout after its last test, before its session ended; its process was killed")),
            }
            return report;
        }
        // Until its collection is answered, pytest waits for proctor at
        // each step: wait on the socket, to answer at once. While tests
        // run, poll it every [`POLL`] instead: a reader blocked on the socket
        // is woken by every test's line, which costs pytest kernel time
        // (about 20 µs per test on loopback TCP), and proctor a thread
        // switch per test.
        // Once the process exited, a line begun (a failure's megabyte
        // message) is read to its end while its bytes keep coming: it was
        // sent whole before the process died.
        // After the exit, reads wait for the end of the stream: the bridge
        // closes its socket in processes a test forks, so the stream ends
        // as the process does, once everything it sent has arrived (under
        // load, loopback delivery can lag the exit). A fork that kept it
        // open anyway (a fork from C) is waited for at most EXIT_DRAIN
        // without a byte.
        let messages = lines.read(report.kept.is_none() || exited);
        if lines.received {
            quiet_since = None;
        }
        if messages.is_empty() {
            if lines.closed {
                break;
            }
            if exited {
                let quiet = quiet_since.get_or_insert_with(Instant::now);
                if quiet.elapsed() > EXIT_DRAIN {
                    break;
                }
                continue;
            }
            if matches!(child.try_wait(), Ok(Some(_))) {
                // Once more: what it wrote before it exited is in the socket.
                exited = true;
                continue;
            }
            if report.kept.is_some() {
                std::thread::sleep(POLL);
            }
            continue;
        }
        for message in messages {
            let message = match message {
                Ok(message) => message,
                Err(unreadable) => match running(&report.kept, finished) {
                    // Its message was the line: an error, never a pass.
                    Some(nodeid) if trusted => {
                        finished.insert(&nodeid);
                        let result = TestResult {
                            duration: since.elapsed().as_secs_f64(),
                            phase: options.phase.clone(),
                            message: Some(format!("proctor cannot read the bridge's message about this test: {unreadable}")),
                            ..TestResult::new(nodeid, Outcome::Error)
                        };
                        since = Instant::now();
                        finish(options, on_event, &mut outcome.results, result);
                        continue;
                    }
                    // Before collection is answered pytest waits for an
                    // answer that cannot come: it is stopped.
                    _ if !trusted || report.kept.is_none() => {
                        kill(child);
                        report.problems.push(format!("proctor cannot read a message from the bridge ({unreadable}); pytest was stopped"));
                        return report;
                    }
                    _ => {
                        report.problems.push(format!(
                            "proctor cannot read a message from the bridge: {unreadable}"
                        ));
                        continue;
                    }
                },
            };
            match message {
                Message::Hello { token: given } => {
                    trusted = given == token;
                    since = Instant::now();
                    if trusted && lines.answer(setup.as_bytes()).is_err() {
                        break 'process;
                    }
                }
                _ if !trusted => break 'process,
                Message::Collecting { nodeid } => {
                    collecting = Some(nodeid);
                    since = Instant::now();
                }
                Message::CollectError { nodeid, longrepr } => {
                    since = Instant::now();
                    if finished.insert(&nodeid) {
                        let message = (!longrepr.is_empty()).then_some(longrepr);
                        let result = TestResult {
                            phase: options.phase.clone(),
                            message,
                            ..TestResult::new(nodeid, Outcome::Error)
                        };
                        finish(options, on_event, &mut outcome.results, result);
                    }
                }
                Message::CollectSkip { nodeid, reason } => {
                    since = Instant::now();
                    if finished.insert(&nodeid) {
                        let result = TestResult {
                            phase: options.phase.clone(),
                            reason: Some(reason),
                            ..TestResult::new(nodeid, Outcome::Skipped)
                        };
                        finish(options, on_event, &mut outcome.results, result);
                    }
                }
                Message::Order { ids } => {
                    if let Some(kept) = &mut report.kept {
                        kept.truncate(report.batch);
                        kept.extend(ids.iter().map(|id| finished.intern(id)));
                        if report.batch == 0 {
                            report.first_batch = kept.len();
                        }
                    }
                }
                Message::More => {
                    let files = options.steal.as_ref().map(|q| q.take()).unwrap_or_default();
                    let answer = serde_json::to_string(&More {
                        files: files.clone(),
                    })
                    .unwrap_or_else(|_| "{}".to_owned())
                        + "\n";
                    report.taking = files;
                    if lines.answer(answer.as_bytes()).is_err() {
                        break 'process;
                    }
                    since = Instant::now();
                }
                Message::Collected { mut items } => {
                    // Each id's text once, whoever holds it while pytest runs.
                    for item in &mut items {
                        item.nodeid = finished.intern(&item.nodeid);
                    }
                    let decisions = decide(&items);
                    let answer = serde_json::to_string(&decisions)
                        .unwrap_or_else(|_| "{}".to_owned())
                        + "\n";
                    if lines.answer(answer.as_bytes()).is_err() {
                        break 'process;
                    }
                    let deselect: HashSet<&str> =
                        decisions.deselect.iter().map(String::as_str).collect();
                    let mut kept: Vec<Arc<str>> = items
                        .iter()
                        .map(|i| Arc::clone(&i.nodeid))
                        .filter(|n| !deselect.contains(&**n))
                        .collect();
                    if !decisions.order.is_empty() {
                        let position: HashMap<&str, usize> = decisions
                            .order
                            .iter()
                            .enumerate()
                            .map(|(i, n)| (n.as_str(), i))
                            .collect();
                        kept.sort_by_key(|n| position.get(&**n).copied().unwrap_or(usize::MAX));
                    }
                    // A later collection (files a worker took) adds to
                    // what the process holds: the test it has yet to run.
                    let held = report.kept.as_ref().map_or(0, |old| {
                        old.iter().filter(|n| !finished.contains(n)).count()
                    });
                    on_event(&Event::Collected {
                        collected: held + items.len(),
                        deselected: decisions.deselect.len(),
                        skipped: decisions.skip.len(),
                    });
                    if first || report.kept.is_some() {
                        outcome.collected.extend(items);
                        outcome.deselected.extend(decisions.deselect);
                    }
                    report.taking.clear();
                    if let Some(old) = &mut report.kept {
                        report.batch = old.len();
                        old.extend(kept);
                    } else {
                        report.first_batch = kept.len();
                        report.kept = Some(kept);
                    }
                    since = Instant::now();
                }
                Message::Module { module } => {
                    on_event(&Event::ModuleStarting { module });
                    // The test that waited for this answer starts now.
                    since = Instant::now();
                    if lines.answer(b"{}\n").is_err() {
                        break 'process;
                    }
                }
                Message::Started { nodeid } => {
                    on_event(&Event::TestStarted { nodeid });
                }
                ended @ (Message::Passed { .. } | Message::Done { .. }) => {
                    let Some(mut result) = test_result(ended) else {
                        continue;
                    };
                    result.phase.clone_from(&options.phase);
                    finished.insert(&result.nodeid);
                    since = Instant::now();
                    finish(options, on_event, &mut outcome.results, result);
                }
                Message::SessionFinish {
                    exitstatus,
                    stopped,
                } => {
                    report.session_status = Some(exitstatus);
                    report.clean_end = true;
                    if let (Some(queue), Some(_)) = (&options.steal, &stopped) {
                        // pytest chose to stop (`-x`, `pytest.exit`): the
                        // other workers take nothing more either.
                        queue.close();
                    }
                    report.stopped = stopped;
                }
                Message::Unconfigured { exitstatus } => {
                    report.session_status = Some(exitstatus);
                    report.clean_end = true;
                    report.unconfigured = true;
                    break 'process;
                }
            }
        }
    }
    // An interrupted test did not crash: it is not reported.
    if !report.clean_end && !report.interrupted {
        if let Some(nodeid) = running(&report.kept, finished) {
            report.interrupted_test = Some((nodeid, since, Outcome::Crashed));
        }
    }
    report
}

/// The node ids of a phase's tests, each text once (the collected items,
/// the kept lists and the finished tests share it: on 100,000 tests, a copy
/// fewer is megabytes fewer while pytest runs), and whether each has its
/// result yet.
#[derive(Default)]
struct Ended {
    ended: HashMap<Arc<str>, bool>,
    /// The texts to share ([`PhaseOptions::known_ids`]).
    known: Option<Arc<HashSet<Arc<str>>>>,
}

impl Ended {
    /// The shared text of `nodeid` (one without a result yet when new).
    fn intern(&mut self, nodeid: &str) -> Arc<str> {
        if let Some((id, _)) = self.ended.get_key_value(nodeid) {
            return Arc::clone(id);
        }
        let id = self.text(nodeid);
        self.ended.insert(Arc::clone(&id), false);
        id
    }

    /// Notes that `nodeid` has its result: `false` when it had one already.
    fn insert(&mut self, nodeid: &str) -> bool {
        if let Some(ended) = self.ended.get_mut(nodeid) {
            return !std::mem::replace(ended, true);
        }
        let id = self.text(nodeid);
        self.ended.insert(id, true);
        true
    }

    /// The known text of `nodeid`, else a new one.
    fn text(&self, nodeid: &str) -> Arc<str> {
        self.known
            .as_ref()
            .and_then(|known| known.get(nodeid))
            .map_or_else(|| Arc::from(nodeid), Arc::clone)
    }

    /// Whether `nodeid` has its result.
    fn contains(&self, nodeid: &str) -> bool {
        self.ended.get(nodeid).copied().unwrap_or(false)
    }
}

/// A test's result to `on_event`, and into `results` when the options
/// keep them.
fn finish(
    options: &PhaseOptions,
    on_event: &mut dyn FnMut(&Event),
    results: &mut Vec<TestResult>,
    result: TestResult,
) {
    let event = Event::TestFinished(result);
    on_event(&event);
    if let (true, Event::TestFinished(result)) = (options.keep_results, event) {
        results.push(result);
    }
}

/// The result a test's closing message carries (`passed`, `done`).
fn test_result(message: Message) -> Option<TestResult> {
    match message {
        Message::Passed { nodeid, duration } => Some(TestResult {
            duration,
            ..TestResult::new(nodeid, Outcome::Passed)
        }),
        Message::Done {
            nodeid,
            reports,
            subtests,
        } => Some(fold(&nodeid, &reports, &subtests)),
        _ => None,
    }
}

/// How the wait for the plugin to connect ended.
enum Accepted {
    Stream(TcpStream),
    /// The process ended first (or the listener failed).
    Gone,
    /// Ctrl-C.
    Interrupted,
    /// The timeout (in seconds) passed first: a conftest that hangs.
    TimedOut(f64),
}

/// The least time Python and pytest are given to start, with a timeout:
/// the plugin connects as pytest imports it and says hello as pytest goes
/// to load the conftests, so what comes before is the interpreter's and
/// the installed plugins' start-up (nbmake's Jupyter imports take seconds),
/// which a loaded machine slows far beyond a test's timeout. The suite's
/// own steps after it are bounded by the timeout itself.
const STARTUP: Duration = Duration::from_mins(1);

/// Waits for the plugin to connect, or for the process to end, Ctrl-C or
/// the timeout (at least [`STARTUP`]) first.
fn accept(listener: &TcpListener, child: &mut Child, options: &PhaseOptions) -> Accepted {
    let started = Instant::now();
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                return if stream.set_nonblocking(false).is_ok() {
                    Accepted::Stream(stream)
                } else {
                    Accepted::Gone
                };
            }
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                if matches!(child.try_wait(), Ok(Some(_))) {
                    return Accepted::Gone;
                }
                if options
                    .interrupt
                    .as_ref()
                    .is_some_and(|flag| flag.load(Ordering::Relaxed))
                {
                    return Accepted::Interrupted;
                }
                if let Some(limit) = options
                    .timeout
                    .map(|limit| limit.max(STARTUP))
                    .filter(|limit| started.elapsed() > *limit)
                {
                    return Accepted::TimedOut(limit.as_secs_f64());
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(_) => return Accepted::Gone,
        }
    }
}

/// How often the socket is read while tests run: each read costs a
/// system call and a sleep, and pytest never waits for it (only a pause
/// between modules, with `hook-between-modules`, waits up to this long).
const POLL: Duration = Duration::from_millis(5);

/// The plugin's lines, read on the session's own thread: what has arrived
/// is read when asked for, and a line stays in the socket's buffer (where
/// a crash cannot lose it) until then.
/// A read buffer larger than this is shrunk once the messages it held
/// are parsed.
const SHRINK_ABOVE: usize = 256 * 1024;

struct Lines {
    stream: TcpStream,
    buffer: Vec<u8>,
    chunk: Vec<u8>,
    /// Bytes of `buffer` already searched for a newline (a collection
    /// message of a large suite spans many reads).
    searched: usize,
    /// The socket is in non-blocking mode.
    nonblocking: bool,
    /// The plugin closed the connection (or it failed).
    closed: bool,
    /// The last read received bytes.
    received: bool,
}

impl Lines {
    /// Writes an answer (the plugin waits for it), in blocking mode.
    fn answer(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if self.nonblocking {
            self.stream.set_nonblocking(false)?;
            self.nonblocking = false;
        }
        self.stream.write_all(bytes)
    }

    fn new(stream: TcpStream) -> Lines {
        // A waiting read returns after this long without a line, so that
        // the session still watches the clock, Ctrl-C and the process.
        let closed = stream
            .set_read_timeout(Some(Duration::from_millis(50)))
            .is_err();
        Lines {
            stream,
            buffer: Vec::with_capacity(1 << 16),
            chunk: vec![0; 1 << 16],
            searched: 0,
            nonblocking: false,
            closed,
            received: false,
        }
    }

    /// The messages of the complete lines that have arrived, waiting for
    /// some (up to the read timeout) when `wait`. Events this proctor does
    /// not know (a newer plugin) are skipped; a line that is not a message
    /// is an error, for the caller to report.
    fn read(&mut self, wait: bool) -> Vec<Result<Message, Unreadable>> {
        use std::io::Read;
        self.received = false;
        if self.closed {
            return Vec::new();
        }
        if wait == self.nonblocking {
            if self.stream.set_nonblocking(!wait).is_err() {
                self.closed = true;
                return Vec::new();
            }
            self.nonblocking = !wait;
        }
        loop {
            match self.stream.read(&mut self.chunk) {
                Ok(0) => self.closed = true,
                Ok(n) => {
                    self.received = true;
                    self.buffer.extend_from_slice(&self.chunk[..n]);
                    // A full chunk: more may be waiting.
                    if n == self.chunk.len() {
                        continue;
                    }
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err)
                    if matches!(
                        err.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => self.closed = true,
            }
            break;
        }
        let mut messages = Vec::new();
        let mut start = 0;
        while let Some(end) = self.buffer[self.searched..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|at| self.searched + at)
        {
            messages.extend(Message::parse(&self.buffer[start..end]).transpose());
            start = end + 1;
            self.searched = start;
        }
        self.buffer.drain(..start);
        self.searched = self.buffer.len();
        // The room a large message needed (a collection of 100,000 items
        // is megabytes) is not held while the tests run.
        if self.buffer.capacity() > SHRINK_ABOVE && self.buffer.len() < SHRINK_ABOVE / 4 {
            self.buffer.shrink_to(SHRINK_ABOVE / 4);
        }
        if self.closed && !self.buffer.is_empty() {
            messages.extend(Message::parse(&self.buffer).transpose());
            self.buffer.clear();
        }
        messages
    }
}

fn pytest_command(
    options: &PhaseOptions,
    args: &[String],
    address: &str,
    token: &str,
    log: &Path,
) -> Result<Command, RunError> {
    let log_file = std::fs::File::create(log).map_err(|source| RunError::WorkDir {
        path: log.to_path_buf(),
        source,
    })?;
    let err_file = log_file.try_clone().map_err(|source| RunError::WorkDir {
        path: log.to_path_buf(),
        source,
    })?;
    let mut command = Command::new(&options.python);
    // proctor selects: pytest's own -m/-k (from addopts) would apply twice.
    // `-q`: the log is read only when pytest fails to start or crashes;
    // per-file progress lines there cost pytest time for nobody. (The
    // bridge counts subtests at the verbosity the user asked for.)
    command.args([
        "-m",
        "pytest",
        "-p",
        "proctor_bridge",
        "-q",
        "-m",
        "",
        "-k",
        "",
    ]);
    command.args(args).args(&options.extra_args);
    let python_path = match std::env::var_os("PYTHONPATH") {
        Some(existing) if !existing.is_empty() => {
            let mut joined = options.plugin_dir.clone().into_os_string();
            joined.push(":");
            joined.push(existing);
            joined
        }
        _ => options.plugin_dir.clone().into_os_string(),
    };
    command
        .current_dir(&options.cwd)
        .env("PYTHONPATH", python_path)
        .env("PROCTOR_BRIDGE", address)
        .env("PROCTOR_BRIDGE_TOKEN", token)
        .envs(options.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::from(log_file))
        .stderr(Stdio::from(err_file));
    // Its own process group: a timeout kills pytest and what it started;
    // and pytest dies with proctor, even when proctor is `SIGKILL`ed.
    own_group_dying_with_proctor(&mut command);
    Ok(command)
}

/// Kills the process and its group.
fn kill(child: &mut Child) {
    kill_group(child);
    let _ = child.kill();
}

/// How long a process whose connection closed may take to exit before
/// it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(30);

/// Waits for the process (killing it once `grace` is over, or at once on
/// an interrupt), then kills what it left behind in its process group;
/// how it ended, `None` when that cannot be read.
fn reap(
    child: &mut Child,
    interrupt: Option<&AtomicBool>,
    grace: Option<Duration>,
) -> Option<ExitStatus> {
    let started = Instant::now();
    let status = loop {
        let interrupted = interrupt.is_some_and(|flag| flag.load(Ordering::Relaxed));
        let late = grace.is_some_and(|grace| started.elapsed() > grace);
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            // Python's teardown takes tens to hundreds of milliseconds:
            // poll finely at first, every run waits for it.
            Ok(None) if !late && !interrupted => {
                std::thread::sleep(Duration::from_millis(
                    if started.elapsed() < Duration::from_secs(1) {
                        1
                    } else {
                        10
                    },
                ));
            }
            Ok(None) => {
                kill(child);
                break child.wait().ok();
            }
            Err(_) => break None,
        }
    };
    kill_group(child);
    status
}

/// Kills every process left in the child's process group.
fn kill_group(child: &Child) {
    signal_group(group_of(child), libc::SIGKILL);
}

/// The last lines of pytest's output, for a crash report.
fn pytest_tail(path: &Path) -> String {
    let tail = log_tail(path, 15);
    if tail.is_empty() {
        String::new()
    } else {
        format!("\npytest's last output:\n{tail}")
    }
}

fn describe(command: &Command) -> Vec<String> {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_holds_known_node_ids_as_the_plans_texts() {
        let known: Arc<str> = Arc::from("t.py::static");
        let mut ended = Ended {
            known: Some(Arc::new(HashSet::from([Arc::clone(&known)]))),
            ..Ended::default()
        };
        assert!(Arc::ptr_eq(&ended.intern("t.py::static"), &known));
        let other = ended.intern("t.py::dynamic[1]");
        assert!(Arc::ptr_eq(&ended.intern("t.py::dynamic[1]"), &other));
        assert!(!ended.contains("t.py::static"));
        assert!(ended.insert("t.py::static"));
        assert!(!ended.insert("t.py::static"));
        assert!(ended.contains("t.py::static"));
        // A result without a collected item (a collection error) is noted
        // under the plan's text too.
        let mut fresh = Ended {
            known: Some(Arc::new(HashSet::from([Arc::clone(&known)]))),
            ..Ended::default()
        };
        assert!(fresh.insert("t.py::static"));
        let (key, _) = fresh.ended.get_key_value("t.py::static").unwrap();
        assert!(Arc::ptr_eq(key, &known));
    }
}
