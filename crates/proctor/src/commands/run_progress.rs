//! The live part of `proctor run`'s output: a character per test like
//! pytest's progress, or a line per test with `--verbose`, and notes.

use std::io::Write;

use proctor_run::{Event, Outcome};

/// Prints events as they come.
pub(crate) struct Progress {
    verbose: bool,
    /// Characters on the current line.
    printed: usize,
}

impl Progress {
    pub(crate) fn new(verbose: bool) -> Self {
        Progress { verbose, printed: 0 }
    }

    pub(crate) fn event(&mut self, event: &Event) {
        let mut out = std::io::stdout().lock();
        match event {
            Event::TestFinished(result) if self.verbose => {
                let _ = writeln!(out, "{} {}", result.nodeid, result.outcome.word().to_uppercase());
            }
            Event::TestFinished(result) => {
                let c = match result.outcome {
                    Outcome::Passed => '.',
                    Outcome::Failed => 'F',
                    Outcome::Error => 'E',
                    Outcome::Skipped => 's',
                    Outcome::Xfailed => 'x',
                    Outcome::Xpassed => 'X',
                    Outcome::Crashed => 'C',
                    Outcome::TimedOut => 'T',
                };
                let _ = write!(out, "{c}");
                self.printed += 1;
                if self.printed == 80 {
                    let _ = writeln!(out);
                    self.printed = 0;
                }
            }
            Event::Note { message } => {
                if self.printed > 0 {
                    let _ = writeln!(out);
                    self.printed = 0;
                }
                let _ = writeln!(out, "note: {message}");
            }
            _ => {}
        }
        let _ = out.flush();
    }

    /// Ends the progress line.
    pub(crate) fn finish(&mut self) {
        if self.printed > 0 {
            let _ = writeln!(std::io::stdout().lock());
            self.printed = 0;
        }
    }
}
