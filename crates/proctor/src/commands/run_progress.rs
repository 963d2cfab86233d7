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

/// How often the progress is written out at most.
const REFRESH: Duration = Duration::from_millis(100);

use proctor_run::{Event, Outcome};

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

    pub(crate) fn event(&mut self, event: &Event) {
        let mut out = std::io::stdout().lock();
        // Written out now, not at the next refresh: a failure, a note, the
        // end of a line.
        let mut now = false;
        match event {
            Event::Collected {
                collected,
                deselected,
                ..
            } => {
                self.total = (self.done + collected.saturating_sub(*deselected)).max(self.total);
            }
            Event::TestFinished(result) => {
                self.done += 1;
                *self.counts.entry(result.outcome).or_insert(0) += 1;
                self.total = self.total.max(self.done);
                now = result.outcome.is_failure();
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
            }
            Event::Note { message } => {
                self.clear(&mut out);
                if self.printed > 0 {
                    let _ = writeln!(out);
                    self.printed = 0;
                }
                let _ = writeln!(out, "note: {message}");
                if self.live && self.done > 0 {
                    self.status(&mut out);
                }
                now = true;
            }
            _ => {}
        }
        if now || self.flushed.elapsed() >= REFRESH {
            let _ = out.flush();
            self.flushed = Instant::now();
        }
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
