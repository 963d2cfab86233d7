//! Buffered output to stdout, with stderr at hand for warnings. The only
//! place in proctor that writes to the terminal.
//!
//! [`init_color`] sets the process's colour choice once, from `--color`
//! and the environment. Standard error goes through anstream: warnings
//! styled with anstyle keep their colours on a terminal and lose them in a
//! pipe, a file, or when colour is off. Standard output is written as it
//! is (machine output can be large, and nothing there should be scanned
//! for escapes): a command asks [`Printer::colored`] and styles its text
//! only then.

use std::io::{self, BufWriter, Stderr, StdoutLock, Write};

use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Style};

use crate::args::ColorWhen;

pub(crate) struct Printer {
    out: BufWriter<StdoutLock<'static>>,
    err: AutoStream<Stderr>,
    colored: bool,
}

/// Sets the process's colour choice from `--color` and the environment,
/// as pytest reads it: `--color always|never` wins; then a non-empty
/// `NO_COLOR` turns colour off, then a non-empty `FORCE_COLOR` turns it on
/// (also into a pipe); otherwise colour is on for a terminal (anstream
/// also reads `CLICOLOR` and `CLICOLOR_FORCE`).
pub(crate) fn init_color(when: ColorWhen) {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    let choice = match when {
        ColorWhen::Always => ColorChoice::Always,
        ColorWhen::Never => ColorChoice::Never,
        ColorWhen::Auto if set("NO_COLOR") => ColorChoice::Never,
        ColorWhen::Auto if set("FORCE_COLOR") => ColorChoice::Always,
        ColorWhen::Auto => ColorChoice::Auto,
    };
    choice.write_global();
}

/// Writes `warning: MESSAGE` to `err`, the prefix in bold yellow where
/// colour is on.
pub(crate) fn warn(err: &mut impl Write, message: &str) -> io::Result<()> {
    let style = Style::new().bold().fg_color(Some(AnsiColor::Yellow.into()));
    writeln!(err, "{style}warning{style:#}: {message}")
}

/// Writes `proctor: error: MESSAGE` to `err`, `error` in bold red where
/// colour is on.
pub(crate) fn error(err: &mut impl Write, message: &str) -> io::Result<()> {
    let style = Style::new().bold().fg_color(Some(AnsiColor::Red.into()));
    writeln!(err, "proctor: {style}error{style:#}: {message}")
}

/// Standard error through anstream, for the top-level error handler.
pub(crate) fn stderr() -> AutoStream<Stderr> {
    AutoStream::auto(io::stderr())
}

impl Printer {
    /// Writes what is left of `reader` to standard output after what was
    /// written before, unbuffered (so that a file goes to the kernel's
    /// copy straight to stdout, not through memory).
    pub(crate) fn copy_from(&mut self, reader: &mut impl io::Read) -> io::Result<()> {
        self.out.flush()?;
        io::copy(reader, self.out.get_mut())?;
        Ok(())
    }

    pub(crate) fn stdout() -> Self {
        let stdout = io::stdout();
        Printer {
            colored: AutoStream::choice(&stdout) != ColorChoice::Never,
            out: BufWriter::new(stdout.lock()),
            err: stderr(),
        }
    }

    /// Whether text for standard output may carry ANSI styles: a terminal
    /// that shows colour, or colour forced.
    pub(crate) fn colored(&self) -> bool {
        self.colored
    }

    /// Standard error, for warnings that must not mix with machine output.
    pub(crate) fn err(&mut self) -> &mut AutoStream<Stderr> {
        let _ = self.out.flush();
        &mut self.err
    }
}

impl Write for Printer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
