//! The live part of `proctor run`'s output. On a terminal: one status line
//! rewritten in place (`[ 42/120] 40 passed, 1 failed, 1 skipped`), with
//! failures and notes printed above it as they happen. Elsewhere (a pipe,
//! a CI log): a character per test like pytest's progress, or a line per
//! test with `--verbose` (with its duration and reason with `-vv`), or
//! nothing per test with `-qq`.
//!
//! Output is written out at most every [`REFRESH`] (and at every line
//! end and failure), not once per test: with thousands of fast tests a
//! write per test cost proctor more than everything else it does while
//! pytest runs.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use proctor_run::{Outcome, RunEvent, RunReporter, TestResult};

/// How often the progress is written out at most.
const REFRESH: Duration = Duration::from_millis(100);

/// Prints events as they come.
pub(crate) struct Progress {
    /// `-v` count: a line per test from 1, with duration and reason from 2.
    verbose: u8,
    /// `-qq`: nothing per test.
    silent: bool,
    /// Rewrite a status line (stdout is a terminal).
    live: bool,
    /// Characters on the current line (pytest-style output).
    printed: usize,
    /// Tests expected in the running process, summed over processes.
    total: usize,
    done: usize,
    counts: BTreeMap<Outcome, usize>,
    /// A status line is on screen.
    status_shown: bool,
    /// When the output was last written out.
    flushed: Instant,
}

impl Progress {
    pub(crate) fn new(verbose: u8, quiet: u8) -> Self {
        let silent = quiet >= 2 && verbose == 0;
        let live = verbose == 0 && !silent && std::io::IsTerminal::is_terminal(&std::io::stdout());
        Progress {
            verbose,
            silent,
            live,
            printed: 0,
            total: 0,
            done: 0,
            counts: BTreeMap::new(),
            status_shown: false,
            flushed: Instant::now(),
        }
    }

    /// Shows one event: a test's letter, line or status, a note.
    fn show(&mut self, event: &RunEvent<'_>) {
        match *event {
            RunEvent::Collected {
                collected,
                deselected,
                ..
            } => {
                self.total = (self.done + collected.saturating_sub(deselected)).max(self.total);
                self.written(false);
            }
            RunEvent::TestFinished { result, .. } => self.test_finished(result),
            RunEvent::Note { message } | RunEvent::ServiceFailed { message, .. } => {
                self.note(message);
            }
            RunEvent::PhaseStarted {
                name: Some(name),
                tests,
                files,
            } => self.note(&format!("phase {name}: {tests} test(s) in {files} file(s)")),
            RunEvent::ServiceReady {
                name,
                address,
                unstoppable,
            } => {
                self.note(&format!("service {name} ready at {address}"));
                if unstoppable {
                    self.note(&format!("service {name}: its start command exited and left a daemon that proctor cannot stop (add `stop = \"<command>\"` to [services.{name}])"));
                }
            }
            RunEvent::ServiceHookFailed { module, message } => {
                self.note(&format!("before {module}: {message}"));
            }
            RunEvent::ServiceStopFailed { name, message } => {
                self.note(&format!("service {name}: {message}"));
            }
            RunEvent::Rerun {
                round,
                tests,
                delay,
            } => self.note(&format!(
                "rerun {round}: {tests} failed test(s) a rerun rule covers{}",
                if delay > 0.0 {
                    format!(", after {delay}s")
                } else {
                    String::new()
                }
            )),
            RunEvent::LateExit(late) => self.note(&late.to_string()),
            RunEvent::RunFinished(_) => self.finish(),
            _ => self.written(false),
        }
    }

    /// Writes the output out now (a failure, a note, the end of a line),
    /// or when the refresh is due.
    fn written(&mut self, now: bool) {
        if now || self.flushed.elapsed() >= REFRESH {
            let _ = std::io::stdout().lock().flush();
            self.flushed = Instant::now();
        }
    }

    fn test_finished(&mut self, result: &TestResult) {
        let mut out = std::io::stdout().lock();
        self.done += 1;
        *self.counts.entry(result.outcome).or_insert(0) += 1;
        self.total = self.total.max(self.done);
        let mut now = result.outcome.is_failure();
        if self.verbose >= 2 {
            let reason = result
                .reason
                .as_deref()
                .filter(|r| !r.is_empty())
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{} {}{reason} [{:.2}s]",
                result.nodeid,
                result.outcome.word().to_uppercase(),
                result.duration
            );
        } else if self.verbose == 1 {
            let _ = writeln!(
                out,
                "{} {}",
                result.nodeid,
                result.outcome.word().to_uppercase()
            );
        } else if self.silent {
            // `-qq`: failures are in the summary.
        } else if self.live {
            if result.outcome.is_failure() {
                self.clear(&mut out);
                let _ = writeln!(
                    out,
                    "{} {}",
                    result.outcome.word().to_uppercase(),
                    result.nodeid
                );
            }
            // The status line is redrawn at each refresh only.
            if now || self.flushed.elapsed() >= REFRESH {
                self.status(&mut out);
                now = true;
            }
        } else {
            let _ = write!(out, "{}", letter(result.outcome));
            self.printed += 1;
            if self.printed == 80 {
                let _ = writeln!(out);
                self.printed = 0;
                now = true;
            }
        }
        drop(out);
        self.written(now);
    }

    fn note(&mut self, message: &str) {
        let mut out = std::io::stdout().lock();
        self.clear(&mut out);
        if self.printed > 0 {
            let _ = writeln!(out);
            self.printed = 0;
        }
        let _ = writeln!(out, "note: {message}");
        if self.live && self.done > 0 {
            self.status(&mut out);
        }
        drop(out);
        self.written(true);
    }

    /// Ends the progress output, leaving the last status on screen.
    pub(crate) fn finish(&mut self) {
        let mut out = std::io::stdout().lock();
        if self.live && self.done > 0 {
            self.status(&mut out);
        }
        if self.status_shown || self.printed > 0 {
            let _ = writeln!(out);
        }
        let _ = out.flush();
        self.status_shown = false;
        self.printed = 0;
    }

    fn status(&mut self, out: &mut impl Write) {
        let line = proctor_report::progress_line(self.done, self.total, &self.counts);
        let _ = write!(out, "\r\x1b[2K{line}");
        self.status_shown = true;
    }

    fn clear(&mut self, out: &mut impl Write) {
        if self.status_shown {
            let _ = write!(out, "\r\x1b[2K");
            self.status_shown = false;
        }
    }
}

impl RunReporter for Progress {
    fn event(&mut self, _: Duration, event: &RunEvent<'_>) {
        self.show(event);
    }
}

/// pytest's progress letter for an outcome (`C`rashed and `T`imed out are
/// proctor's).
fn letter(outcome: Outcome) -> char {
    match outcome {
        Outcome::Passed => '.',
        Outcome::Failed => 'F',
        Outcome::Error => 'E',
        Outcome::Skipped => 's',
        Outcome::Xfailed => 'x',
        Outcome::Xpassed => 'X',
        Outcome::Crashed => 'C',
        Outcome::TimedOut => 'T',
    }
}
