//! Buffered output to stdout, with stderr at hand for warnings. The only
//! place in proctor that writes to the terminal.
//!
//! Both streams go through anstream: text styled with anstyle keeps its
//! colours on a terminal and loses them in a pipe, a file, or when colour
//! is off (`--color never`, `NO_COLOR`); [`init_color`] sets the choice once
//! for the process.

use std::io::{self, BufWriter, Stderr, StdoutLock, Write};

use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Style};

use crate::args::ColorWhen;

pub(crate) struct Printer {
    out: BufWriter<AutoStream<StdoutLock<'static>>>,
    err: AutoStream<Stderr>,
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
    pub(crate) fn stdout() -> Self {
        Printer {
            out: BufWriter::new(AutoStream::auto(io::stdout().lock())),
            err: stderr(),
        }
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
