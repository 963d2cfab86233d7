//! The live part of `proctor run`'s output. On a terminal: one status line
//! redrawn in place by `indicatif` (`[ 42/120] 40 passed, 1 failed, 1
//! skipped · 0:12 · ETA 0:30 · tests/test_x.py::test_slow`: the counts in
//! pytest's colours, the time so far, the time left and the running test),
//! with failures and notes printed above it as they happen. Elsewhere (a
//! pipe, a CI log): a character per test like pytest's progress, or a line
//! per test with `--verbose` (with its duration and reason with `-vv`), or
//! nothing per test with `-qq`; no status line, no colour, no ETA.
//!
//! The time left is the recorded durations (the history database's
//! medians) of the tests still to run, where known, and the mean duration
//! of the tests run so far for the others, divided by how many seconds of
//! tests a second of the run has done so far (the parallelism); before the
//! first test ends, only the recorded durations give one.
//!
//! Output is written out at most every [`REFRESH`] (and at every line
//! end and failure), not once per test: with thousands of fast tests a
//! write per test cost proctor more than everything else it does while
//! pytest runs.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use proctor_run::{Outcome, RunEvent, RunReporter, TestResult};

/// How often the progress is written out at most.
const REFRESH: Duration = Duration::from_millis(100);

/// Prints events as they come.
pub(crate) struct Progress {
    /// `-v` count: a line per test from 1, with duration and reason from 2.
    verbose: u8,
    /// `-qq`: nothing per test.
    silent: bool,
    /// The status line (stdout is a terminal).
    live: Option<Live>,
    /// Characters on the current line (pytest-style output).
    printed: usize,
    /// Tests expected in the running process, summed over processes.
    total: usize,
    done: usize,
    counts: BTreeMap<Outcome, usize>,
    /// When the output was last written out.
    flushed: Instant,
}

/// Whether `proctor run` shows a live status line: on a terminal, without
/// `-v` or `-qq`.
pub(crate) fn live(verbose: u8, quiet: u8) -> bool {
    verbose == 0 && quiet < 2 && std::io::IsTerminal::is_terminal(&std::io::stdout())
}

impl Progress {
    /// `expected`: the recorded durations of the tests the run expects to
    /// run (for the time left; empty without a history).
    pub(crate) fn new(verbose: u8, quiet: u8, expected: HashMap<String, f64>) -> Self {
        let live = live(verbose, quiet).then(|| {
            let colored =
                anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never;
            let started = Instant::now();
            let clock: Clock = Arc::new(move || started.elapsed());
            match own_terminal() {
                Some(target) => {
                    let live = Live::new(target, clock, colored, expected);
                    // The elapsed time and the ETA move while a long test
                    // runs: a thread redraws the line.
                    live.bar.enable_steady_tick(Duration::from_millis(500));
                    live
                }
                // Drawn through stdout, only when an event comes.
                None => Live::new(ProgressDrawTarget::stdout(), clock, colored, expected),
            }
        });
        Self::with(verbose, quiet, live)
    }

    fn with(verbose: u8, quiet: u8, live: Option<Live>) -> Self {
        Progress {
            verbose,
            silent: quiet >= 2 && verbose == 0,
            live,
            printed: 0,
            total: 0,
            done: 0,
            counts: BTreeMap::new(),
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
                if let Some(live) = &self.live {
                    live.update(|status| status.total = self.total);
                }
                self.written(false);
            }
            RunEvent::TestStarted { nodeid } => {
                if let Some(live) = &self.live {
                    live.started(nodeid);
                }
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
        self.done += 1;
        *self.counts.entry(result.outcome).or_insert(0) += 1;
        self.total = self.total.max(self.done);
        if let Some(live) = &self.live {
            // Not under the stdout lock: the bar's ticker thread draws
            // while holding the bar's own lock, and then needs stdout's.
            live.finished(result, self.done, self.total);
            if result.outcome.is_failure() {
                live.bar.println(format!(
                    "{} {}",
                    live.paint(&result.outcome.word().to_uppercase(), result.outcome),
                    result.nodeid
                ));
            }
            return;
        }
        let mut out = std::io::stdout().lock();
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
        if let Some(live) = &self.live {
            live.bar.println(format!("note: {message}"));
            return;
        }
        let mut out = std::io::stdout().lock();
        if self.printed > 0 {
            let _ = writeln!(out);
            self.printed = 0;
        }
        let _ = writeln!(out, "note: {message}");
        drop(out);
        self.written(true);
    }

    /// Ends the progress output, leaving the last status on screen.
    pub(crate) fn finish(&mut self) {
        if let Some(live) = &self.live {
            live.update(|status| status.running = None);
            live.bar.set_message("");
            if self.done > 0 {
                live.bar.finish();
                // The last status stays, on a line of its own.
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out);
                let _ = out.flush();
            } else {
                live.bar.finish_and_clear();
            }
            return;
        }
        let mut out = std::io::stdout().lock();
        if self.printed > 0 {
            let _ = writeln!(out);
        }
        let _ = out.flush();
        self.printed = 0;
    }
}

/// The terminal behind stdout, written through a descriptor of its own:
/// the bar's ticker thread then never waits for the lock on `stdout`,
/// which the run's report holds while tests run.
#[cfg(unix)]
fn own_terminal() -> Option<ProgressDrawTarget> {
    use std::os::fd::AsFd;
    let out = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned().ok()?);
    let input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned().ok()?);
    Some(ProgressDrawTarget::term(
        console::Term::read_write_pair(input, out),
        20,
    ))
}

#[cfg(not(unix))]
fn own_terminal() -> Option<ProgressDrawTarget> {
    None
}

/// The status line's bar, and what it shows.
struct Live {
    bar: ProgressBar,
    status: Arc<Mutex<Status>>,
    colored: bool,
}

/// The time since the run started.
type Clock = Arc<dyn Fn() -> Duration + Send + Sync>;

impl Live {
    fn new(
        target: ProgressDrawTarget,
        clock: Clock,
        colored: bool,
        expected: HashMap<String, f64>,
    ) -> Self {
        let status = Arc::new(Mutex::new(Status {
            eta: Eta::new(expected),
            ..Status::default()
        }));
        let shown = Arc::clone(&status);
        // The line is drawn from the shared status at each redraw (the
        // steady tick's too); the running test is the message, which
        // `wide_msg` cuts to the terminal's width.
        let style = ProgressStyle::with_template("{line}{wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "line",
                move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let status = shown.lock().unwrap_or_else(PoisonError::into_inner);
                    let _ = w.write_str(&status_line(&status, clock(), colored));
                },
            );
        let bar = ProgressBar::with_draw_target(None, target).with_style(style);
        Live {
            bar,
            status,
            colored,
        }
    }

    fn update(&self, change: impl FnOnce(&mut Status)) {
        change(&mut self.status.lock().unwrap_or_else(PoisonError::into_inner));
    }

    fn started(&self, nodeid: &str) {
        self.update(|status| status.running = Some(nodeid.to_owned()));
        self.bar.set_message(format!(" · {nodeid}"));
    }

    fn finished(&self, result: &TestResult, done: usize, total: usize) {
        let clear = self
            .status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .finished(result, done, total);
        if clear {
            self.bar.set_message("");
        }
        self.bar.tick();
    }

    fn paint(&self, text: &str, outcome: Outcome) -> String {
        paint(text, outcome, self.colored)
    }
}

/// What the status line says.
#[derive(Default)]
struct Status {
    done: usize,
    total: usize,
    counts: BTreeMap<Outcome, usize>,
    /// The test that started last and has not ended.
    running: Option<String>,
    eta: Eta,
}

impl Status {
    /// Counts `result`; whether the running test is the one that ended.
    fn finished(&mut self, result: &TestResult, done: usize, total: usize) -> bool {
        self.done = done;
        self.total = total;
        *self.counts.entry(result.outcome).or_insert(0) += 1;
        self.eta.finished(&result.nodeid, result.duration);
        let ended = self.running.as_deref() == Some(result.nodeid.as_str());
        if ended {
            self.running = None;
        }
        ended
    }
}

/// The status line at `elapsed`: counts, time so far, time left.
fn status_line(status: &Status, elapsed: Duration, colored: bool) -> String {
    if status.total == 0 {
        // pytest is still collecting.
        return format!("collecting · {}", clock_text(elapsed));
    }
    let digits = status.total.to_string().len();
    let mut line = format!("[{:>digits$}/{}]", status.done, status.total);
    let parts: Vec<String> = status
        .counts
        .iter()
        .filter(|(_, &n)| n > 0)
        .map(|(&outcome, &n)| {
            let text = match (outcome, n) {
                (Outcome::Error, 1) => "1 error".to_owned(),
                (Outcome::Error, _) => format!("{n} errors"),
                (other, _) => format!("{n} {}", other.word()),
            };
            paint(&text, outcome, colored)
        })
        .collect();
    if !parts.is_empty() {
        line.push(' ');
        line.push_str(&parts.join(", "));
    }
    let _ = write!(line, " · {}", clock_text(elapsed));
    if let Some(left) = status
        .eta
        .left(status.total, status.done, elapsed)
        .filter(|_| status.done < status.total)
    {
        let _ = write!(line, " · ETA {}", clock_text(left));
    }
    line
}

/// `m:ss`, or `h:mm:ss` from an hour.
fn clock_text(duration: Duration) -> String {
    let seconds = duration.as_secs();
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// `text` in pytest's colour for `outcome` (green passed, red failed and
/// errors, yellow skips and xfails) when `colored`.
fn paint(text: &str, outcome: Outcome, colored: bool) -> String {
    if !colored {
        return text.to_owned();
    }
    let color = match outcome {
        Outcome::Passed => AnsiColor::Green,
        Outcome::Failed | Outcome::Error | Outcome::Crashed | Outcome::TimedOut => AnsiColor::Red,
        Outcome::Skipped | Outcome::Xfailed | Outcome::Xpassed => AnsiColor::Yellow,
    };
    let style = Style::new().fg_color(Some(color.into()));
    format!("{style}{text}{style:#}")
}

/// The time left, from recorded durations and the run so far.
#[derive(Default)]
struct Eta {
    /// Recorded durations of the tests expected to run, not yet ended.
    expected: HashMap<String, f64>,
    /// Their sum.
    known_left: f64,
    /// The seconds the ended tests took.
    observed: f64,
}

impl Eta {
    fn new(expected: HashMap<String, f64>) -> Self {
        let known_left = expected.values().sum();
        Eta {
            expected,
            known_left,
            observed: 0.0,
        }
    }

    fn finished(&mut self, nodeid: &str, duration: f64) {
        if let Some(recorded) = self.expected.remove(nodeid) {
            self.known_left = (self.known_left - recorded).max(0.0);
        }
        if duration.is_finite() && duration > 0.0 {
            self.observed += duration;
        }
    }

    /// The time left with `done` of `total` tests ended after `elapsed`.
    #[expect(clippy::cast_precision_loss, reason = "test counts are far below 2^52")]
    fn left(&self, total: usize, done: usize, elapsed: Duration) -> Option<Duration> {
        let left = total.saturating_sub(done);
        let unknown = left.saturating_sub(self.expected.len());
        let seconds = if done == 0 {
            // Nothing ran yet: the recorded durations alone, serially.
            if self.expected.is_empty() {
                return None;
            }
            let mean = self.known_left / self.expected.len() as f64;
            self.known_left + unknown as f64 * mean
        } else {
            let mean = self.observed / done as f64;
            let elapsed = elapsed.as_secs_f64();
            // Seconds of tests per second of run: above 1 with workers.
            let speed = if elapsed > 0.0 && self.observed > 0.0 {
                self.observed / elapsed
            } else {
                1.0
            };
            let work = if left == 0 {
                0.0
            } else {
                self.known_left + unknown as f64 * mean
            };
            work / speed
        };
        (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
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

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::InMemoryTerm;

    fn result(nodeid: &str, outcome: Outcome, duration: f64) -> TestResult {
        TestResult {
            duration,
            ..TestResult::new(nodeid.to_owned(), outcome)
        }
    }

    /// A progress line on a fake 100-column terminal whose clock says
    /// `elapsed`, with colour, fed `events`; the screen as text and with
    /// its escapes made visible.
    fn screen(
        expected: &[(&str, f64)],
        elapsed: Duration,
        events: &[RunEvent<'_>],
        finish: bool,
    ) -> (String, String) {
        let term = InMemoryTerm::new(8, 100);
        let live = Live::new(
            ProgressDrawTarget::term_like(Box::new(term.clone())),
            Arc::new(move || elapsed),
            true,
            expected
                .iter()
                .map(|(id, d)| ((*id).to_owned(), *d))
                .collect(),
        );
        let mut progress = Progress::with(0, 0, Some(live));
        for event in events {
            progress.show(event);
        }
        if finish {
            progress.finish();
        } else if let Some(live) = &progress.live {
            live.bar.force_draw();
        }
        let formatted =
            String::from_utf8_lossy(&term.contents_formatted()).replace('\u{1b}', "\\e");
        (term.contents(), formatted)
    }

    #[test]
    fn the_status_line_shows_counts_time_eta_and_the_running_test() {
        let (a, b) = (
            result("t.py::test_a", Outcome::Passed, 1.0),
            result("t.py::test_b", Outcome::Failed, 1.0),
        );
        let events = [
            RunEvent::Collected {
                collected: 4,
                deselected: 0,
                skipped: 0,
            },
            RunEvent::TestStarted {
                nodeid: "t.py::test_a",
            },
            RunEvent::TestFinished {
                result: &a,
                rerun: false,
            },
            RunEvent::TestStarted {
                nodeid: "t.py::test_b",
            },
            RunEvent::TestFinished {
                result: &b,
                rerun: false,
            },
            RunEvent::TestStarted {
                nodeid: "t.py::test_slow",
            },
        ];
        // test_slow took 30 s last time; test_d is unknown and counts the
        // mean so far (1 s): 31 s of tests left at 1 s per second.
        let (text, formatted) = screen(
            &[("t.py::test_slow", 30.0)],
            Duration::from_secs(2),
            &events,
            false,
        );
        insta::assert_snapshot!(text, @r"
        FAILED t.py::test_b
        [2/4] 1 passed, 1 failed · 0:02 · ETA 0:31 · t.py::test_slow
        ");
        // pytest's colours: red for the failure, green passed.
        assert!(formatted.contains("\\e[31mFAILED"), "{formatted}");
        assert!(formatted.contains("\\e[32m1 passed"), "{formatted}");
        assert!(formatted.contains("\\e[31m1 failed"), "{formatted}");
        // At the end the running test is gone and the last status stays.
        let (text, _) = screen(&[], Duration::from_secs(65), &events[..5], true);
        insta::assert_snapshot!(text, @r"
        FAILED t.py::test_b
        [2/4] 1 passed, 1 failed · 1:05 · ETA 1:05
        ");
    }

    #[test]
    fn notes_print_above_the_line_and_skips_are_yellow() {
        let skipped = result("t.py::test_s", Outcome::Skipped, 0.0);
        let events = [
            RunEvent::Collected {
                collected: 1,
                deselected: 0,
                skipped: 0,
            },
            RunEvent::Note {
                message: "restarted pytest",
            },
            RunEvent::TestFinished {
                result: &skipped,
                rerun: false,
            },
        ];
        let (text, formatted) = screen(&[], Duration::ZERO, &events, true);
        insta::assert_snapshot!(text, @r"
        note: restarted pytest
        [1/1] 1 skipped · 0:00
        ");
        assert!(formatted.contains("\\e[33m1 skipped"), "{formatted}");
    }

    #[test]
    fn the_eta_comes_from_recorded_durations_else_from_the_rate() {
        let secs = |s: f64| Some(Duration::from_secs_f64(s));
        // Before any test ends: recorded durations only.
        let eta = Eta::new([("a".to_owned(), 10.0), ("b".to_owned(), 20.0)].into());
        assert_eq!(eta.left(2, 0, Duration::ZERO), secs(30.0));
        // One unknown test counts the recorded mean.
        assert_eq!(eta.left(3, 0, Duration::ZERO), secs(45.0));
        assert_eq!(Eta::default().left(5, 0, Duration::ZERO), None);
        // No history: the rate so far (2 tests in 10 s, 3 left).
        let mut eta = Eta::default();
        eta.finished("x", 5.0);
        eta.finished("y", 5.0);
        assert_eq!(eta.left(5, 2, Duration::from_secs(10)), secs(15.0));
        // Two workers: 10 s of tests in 5 s of run halve what is left.
        let mut eta = Eta::new([("c".to_owned(), 8.0)].into());
        eta.finished("x", 5.0);
        eta.finished("y", 5.0);
        assert_eq!(eta.left(3, 2, Duration::from_secs(5)), secs(4.0));
        assert_eq!(eta.left(2, 2, Duration::from_secs(5)), secs(0.0));
    }
}
