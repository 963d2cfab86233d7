//! The run's typed events, from [`RunEvent::RunStarted`] (with its plan)
//! to [`RunEvent::RunFinished`] (with its summary), each with the time
//! since the run started; every reporter (the live progress, the terminal
//! summary, the history, the JSON, `JUnit` and HTML reports) consumes this
//! one stream through [`RunReporter`], aggregating what it needs (the
//! model is cargo-nextest's `nextest-runner/src/reporter/events.rs`).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use proctor_outcome::{MarkerNames, Outcome, RunSummary, TestResult};

use crate::plan::RunPlan;
use crate::session::LateExit;

/// One thing that happened in a run, in the order it happened.
#[derive(Debug, Clone, Copy)]
pub enum RunEvent<'a> {
    /// The run starts, with everything decided before any process starts.
    RunStarted {
        /// The plan.
        plan: &'a RunPlan,
    },
    /// A phase starts (the one phase of a run without phases too).
    PhaseStarted {
        /// Its name, when the run has phases.
        name: Option<&'a str>,
        /// The static items it runs.
        tests: usize,
        /// The files pytest imports in it.
        files: usize,
    },
    /// A phase ended: its tests, reruns and services are done.
    PhaseFinished {
        /// Its name, when the run has phases.
        name: Option<&'a str>,
    },
    /// A service proctor starts is ready.
    ServiceReady {
        /// The service.
        name: &'a str,
        /// Where the tests reach it.
        address: &'a str,
        /// Its start command exited and left a daemon proctor cannot stop
        /// (no `stop` command is configured).
        unstoppable: bool,
    },
    /// A service did not become ready: the tests that need it are errors.
    ServiceFailed {
        /// The service.
        name: &'a str,
        /// Why, as the error says it.
        message: &'a str,
    },
    /// A service's hook between modules failed; the run goes on.
    ServiceHookFailed {
        /// The module about to start.
        module: &'a str,
        /// Why.
        message: &'a str,
    },
    /// A service would not stop.
    ServiceStopFailed {
        /// The service.
        name: &'a str,
        /// Why.
        message: &'a str,
    },
    /// A pytest process started (one per phase, again after a crash, and
    /// one per rerun).
    ProcessStarted {
        /// The phase, when the run has phases.
        phase: Option<&'a str>,
        /// Its command line.
        command: &'a [String],
    },
    /// A pytest process exited.
    ProcessExited {
        /// Its exit status, when it exited on its own.
        status: Option<i32>,
        /// The signal that ended it, if one did.
        signal: Option<i32>,
    },
    /// A process whose session had ended exited otherwise than its session
    /// said (a crash in an atexit hook): the run fails.
    LateExit(&'a LateExit),
    /// pytest collected, proctor decided.
    Collected {
        /// Items pytest collected in this process.
        collected: usize,
        /// Items proctor deselected.
        deselected: usize,
        /// Items proctor marked skipped.
        skipped: usize,
    },
    /// A test starts.
    TestStarted {
        /// Its node id.
        nodeid: &'a str,
    },
    /// A test ended (a first attempt, or one of its reruns).
    TestFinished {
        /// The attempt's result, with the test's effective markers.
        result: &'a TestResult,
        /// Whether this is a rerun of a test that failed before: its
        /// result is then folded into the earlier one
        /// ([`TestResult::absorb_rerun`]).
        rerun: bool,
    },
    /// Failed tests that a rerun rule covers run again.
    Rerun {
        /// The round, from 1.
        round: u32,
        /// How many tests.
        tests: usize,
        /// The seconds waited first.
        delay: f64,
    },
    /// Static collection and pytest disagree on an item.
    Drift {
        /// What differs.
        message: &'a str,
    },
    /// Something else the user should know (a restarted process, a line
    /// the bridge could not read).
    Note {
        /// The message.
        message: &'a str,
    },
    /// The run ended.
    RunFinished(&'a RunEnd),
}

/// How a run ended.
#[derive(Debug, Clone, Default)]
pub struct RunEnd {
    /// The totals, with the exit code their counts give.
    pub summary: RunSummary,
    /// The run's exit status (pytest's own when it chose one, 128 + the
    /// signal that interrupted it), before a late exit is known.
    pub exit_code: i32,
    /// A signal or Ctrl-C interrupted the run.
    pub interrupted: bool,
    /// The signal, if one did.
    pub signal: Option<i32>,
    /// pytest never reached collection: the tail of its output.
    pub failed_to_start: Option<String>,
    /// What went wrong with no test to blame.
    pub problems: Vec<String>,
    /// pytest ended its session before running these selected tests, and
    /// why when it said.
    pub not_run: Option<(Option<String>, Vec<String>)>,
    /// The run's results as [`Results`] gathered them from this stream,
    /// handed over once at the end, so that a reporter that needs them all
    /// (the summary, the history, the reports) keeps no copy of its own:
    /// on a run of 100,000 tests each copy is tens of megabytes.
    pub results: Results,
}

/// A consumer of the run's events.
pub trait RunReporter {
    /// Handles one event, `elapsed` after the run started.
    fn event(&mut self, elapsed: Duration, event: &RunEvent<'_>);
}

/// Several reporters as one: every event to each in turn.
pub struct Reporters<'a>(pub Vec<&'a mut dyn RunReporter>);

impl RunReporter for Reporters<'_> {
    fn event(&mut self, elapsed: Duration, event: &RunEvent<'_>) {
        for reporter in &mut self.0 {
            reporter.event(elapsed, event);
        }
    }
}

/// The results of a run, as its events give them: the plan's static
/// skips, then each test as it finished, its reruns folded in. What the
/// terminal summary, the history and the reports are built from.
///
/// While pytest runs they are kept compactly: a test that carries no text
/// (no reason, message, output, subtests, no rerun) costs its node id, its
/// outcome, its duration and a shared marker list, about 50 bytes instead
/// of a [`TestResult`]'s 230 (on 100,000 tests, 18 MB less while pytest
/// holds its peak). [`Results::expand`] makes them [`TestResult`]s in
/// `results`, once the last pytest process has exited.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// One result per test, in order: empty until [`Results::expand`].
    pub results: Vec<TestResult>,
    /// What static collection and pytest disagree on.
    pub drift: Vec<String>,
    stored: Vec<Stored>,
    /// The phase names the stored results name (`Plain::phase` - 1).
    phases: Vec<String>,
    /// The plan's texts of the static items' node ids, which the stored
    /// results share.
    ids: Arc<HashSet<Arc<str>>>,
}

/// One stored result: compact, or whole when it carries text.
#[derive(Debug, Clone)]
enum Stored {
    Plain(Plain),
    Full(Box<TestResult>),
}

/// A result with nothing but its id, outcome, duration, markers and phase.
#[derive(Debug, Clone)]
struct Plain {
    nodeid: Arc<str>,
    duration: f64,
    markers: MarkerNames,
    outcome: Outcome,
    /// 0 for none, else the index in `Results::phases` plus one.
    phase: u32,
}

/// One stored result, as the runner reads it while pytest runs.
#[derive(Debug, Clone, Copy)]
pub struct StoredResult<'a> {
    /// The node id.
    pub nodeid: &'a str,
    /// How it ended.
    pub outcome: Outcome,
    /// The failure's text, if any.
    pub message: Option<&'a str>,
}

impl Plain {
    /// The [`TestResult`] it stands for, its phase named from `phases`.
    fn expand(&self, phases: &[String]) -> TestResult {
        TestResult {
            duration: self.duration,
            markers: self.markers.clone(),
            phase: self
                .phase
                .checked_sub(1)
                .and_then(|at| phases.get(at as usize))
                .cloned(),
            ..TestResult::new(&*self.nodeid, self.outcome)
        }
    }
}

impl Stored {
    fn nodeid(&self) -> &str {
        match self {
            Stored::Plain(plain) => &plain.nodeid,
            Stored::Full(full) => &full.nodeid,
        }
    }
}

impl Results {
    /// Keeps `result`, compactly when it carries no text.
    fn store(&mut self, result: &TestResult) {
        let plain = result.reason.is_none()
            && result.message.is_none()
            && result.teardown_error.is_none()
            && result.output.is_empty()
            && result.attempts == 1
            && !result.flaky
            && result.subtests.is_empty()
            && result.location.is_none();
        let stored = if plain {
            let phase = match &result.phase {
                None => 0,
                Some(name) => {
                    let at = self
                        .phases
                        .iter()
                        .position(|p| p == name)
                        .unwrap_or_else(|| {
                            self.phases.push(name.clone());
                            self.phases.len() - 1
                        });
                    u32::try_from(at + 1).unwrap_or(u32::MAX)
                }
            };
            Stored::Plain(Plain {
                nodeid: self
                    .ids
                    .get(result.nodeid.as_str())
                    .map_or_else(|| Arc::from(result.nodeid.as_str()), Arc::clone),
                duration: result.duration,
                markers: result.markers.clone(),
                outcome: result.outcome,
                phase,
            })
        } else {
            Stored::Full(Box::new(result.clone()))
        };
        self.stored.push(stored);
    }

    /// How many results are stored (not yet expanded).
    #[must_use]
    pub fn stored_len(&self) -> usize {
        self.stored.len()
    }

    /// The stored results from the `first`th on.
    pub fn stored_from(&self, first: usize) -> impl Iterator<Item = StoredResult<'_>> {
        self.stored.iter().skip(first).map(|stored| match stored {
            Stored::Plain(plain) => StoredResult {
                nodeid: &plain.nodeid,
                outcome: plain.outcome,
                message: None,
            },
            Stored::Full(full) => StoredResult {
                nodeid: &full.nodeid,
                outcome: full.outcome,
                message: full.message.as_deref(),
            },
        })
    }

    /// Makes the stored results [`TestResult`]s, appended to `results`.
    pub fn expand(&mut self) {
        let stored = std::mem::take(&mut self.stored);
        self.results.reserve_exact(stored.len());
        for stored in stored {
            self.results.push(match stored {
                Stored::Plain(plain) => plain.expand(&self.phases),
                Stored::Full(full) => *full,
            });
        }
        self.phases = Vec::new();
    }
}

impl RunReporter for Results {
    fn event(&mut self, _: Duration, event: &RunEvent<'_>) {
        match *event {
            RunEvent::RunStarted { plan } => {
                // Room for every planned test at once: grown by doubling, a
                // run of 100,000 would hold room for 131,072 results.
                let planned: usize = plan.phases.iter().map(|p| p.items.len()).sum();
                self.stored.reserve_exact(planned + plan.static_skips.len());
                self.ids = Arc::clone(&plan.static_ids);
                for skip in &plan.static_skips {
                    self.store(skip);
                }
            }
            RunEvent::TestFinished {
                result,
                rerun: false,
            } => self.store(result),
            RunEvent::TestFinished {
                result,
                rerun: true,
            } => {
                if let Some(previous) = self
                    .stored
                    .iter_mut()
                    .rev()
                    .find(|r| r.nodeid() == result.nodeid)
                {
                    if let Stored::Plain(plain) = previous {
                        let whole = plain.expand(&self.phases);
                        *previous = Stored::Full(Box::new(whole));
                    }
                    if let Stored::Full(full) = previous {
                        full.absorb_rerun(result);
                    }
                }
            }
            RunEvent::Drift { message } => self.drift.push(message.to_owned()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use proctor_outcome::Outcome;

    use super::*;

    #[test]
    fn compact_results_share_the_plans_text_of_a_static_node_id() {
        let known: Arc<str> = Arc::from("t.py::static");
        let plan = RunPlan {
            static_ids: Arc::new(HashSet::from([Arc::clone(&known)])),
            ..RunPlan::default()
        };
        let mut results = Results::default();
        results.event(Duration::ZERO, &RunEvent::RunStarted { plan: &plan });
        for nodeid in ["t.py::static", "t.py::only_pytest_knows[1]"] {
            let result = TestResult::new(nodeid, Outcome::Passed);
            results.event(
                Duration::ZERO,
                &RunEvent::TestFinished {
                    result: &result,
                    rerun: false,
                },
            );
        }
        let ids: Vec<&Arc<str>> = results
            .stored
            .iter()
            .map(|stored| match stored {
                Stored::Plain(compact) => &compact.nodeid,
                Stored::Full(_) => panic!("a plain pass is stored compactly"),
            })
            .collect();
        assert!(Arc::ptr_eq(ids[0], &known));
        assert_eq!(&**ids[1], "t.py::only_pytest_knows[1]");
    }

    #[test]
    fn results_hold_static_skips_then_tests_with_their_reruns_folded_in() {
        let plan = RunPlan {
            static_skips: vec![TestResult::new("t.py::gated", Outcome::Skipped)],
            ..RunPlan::default()
        };
        let mut results = Results::default();
        let at = Duration::ZERO;
        let flaky = TestResult::new("t.py::flaky", Outcome::Failed);
        let broken = TestResult::new("t.py::broken", Outcome::Failed);
        let passed = TestResult {
            duration: 0.5,
            ..TestResult::new("t.py::flaky", Outcome::Passed)
        };
        let again = TestResult {
            message: Some("still broken".to_owned()),
            ..TestResult::new("t.py::broken", Outcome::Error)
        };
        let compact = TestResult {
            duration: 0.25,
            phase: Some("unit".to_owned()),
            markers: MarkerNames::from(vec!["slow".to_owned()]),
            ..TestResult::new("t.py::plain", Outcome::Passed)
        };
        for event in [
            RunEvent::RunStarted { plan: &plan },
            RunEvent::TestFinished {
                result: &flaky,
                rerun: false,
            },
            RunEvent::TestFinished {
                result: &broken,
                rerun: false,
            },
            RunEvent::TestFinished {
                result: &compact,
                rerun: false,
            },
            RunEvent::Rerun {
                round: 1,
                tests: 2,
                delay: 0.0,
            },
            RunEvent::TestFinished {
                result: &passed,
                rerun: true,
            },
            RunEvent::TestFinished {
                result: &again,
                rerun: true,
            },
            RunEvent::Drift {
                message: "pytest collected t.py::new",
            },
        ] {
            results.event(at, &event);
        }
        assert!(results.results.is_empty(), "kept compactly until expanded");
        let stored: Vec<(&str, Outcome, Option<&str>)> = results
            .stored_from(2)
            .map(|r| (r.nodeid, r.outcome, r.message))
            .collect();
        assert_eq!(
            stored,
            [
                ("t.py::broken", Outcome::Error, Some("still broken")),
                ("t.py::plain", Outcome::Passed, None),
            ]
        );
        results.expand();
        let got: Vec<(&str, Outcome, u32, bool)> = results
            .results
            .iter()
            .map(|r| (r.nodeid.as_str(), r.outcome, r.attempts, r.flaky))
            .collect();
        assert_eq!(
            got,
            [
                ("t.py::gated", Outcome::Skipped, 1, false),
                ("t.py::flaky", Outcome::Passed, 2, true),
                ("t.py::broken", Outcome::Error, 2, false),
                ("t.py::plain", Outcome::Passed, 1, false),
            ]
        );
        assert_eq!(
            results.results[3], compact,
            "a compact result expands as it was"
        );
        assert!((results.results[1].duration - 0.5).abs() < 1e-12);
        assert_eq!(results.results[2].message.as_deref(), Some("still broken"));
        assert_eq!(results.drift, ["pytest collected t.py::new"]);
    }
}
