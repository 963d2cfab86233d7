//! Buffered output to stdout, with stderr at hand for warnings. The only
//! place in proctor that writes to the terminal.

use std::io::{self, BufWriter, Stderr, StdoutLock, Write};

pub(crate) struct Printer {
    out: BufWriter<StdoutLock<'static>>,
    err: Stderr,
}

impl Printer {
    pub(crate) fn stdout() -> Self {
        Printer {
            out: BufWriter::new(io::stdout().lock()),
            err: io::stderr(),
        }
    }

    /// Standard error, for warnings that must not mix with machine output.
    pub(crate) fn err(&mut self) -> &mut Stderr {
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
