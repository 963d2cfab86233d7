//! Running a child process for its standard output, killed when it takes
//! longer than a timeout, so that a hung driver or interpreter cannot hang
//! `proctor caps`.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Why a child process gave no output.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProcessError {
    /// It could not be started.
    #[error("cannot run `{program}`: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    /// It ran longer than the timeout and was killed.
    #[error("`{program}` did not finish within {millis} ms")]
    Timeout { program: String, millis: u128 },
    /// It exited unsuccessfully.
    #[error("`{program}` failed ({status})")]
    Failed {
        program: String,
        status: std::process::ExitStatus,
    },
}

/// Runs `program` with `args` and returns its standard output (lossily
/// decoded), or an error when it cannot start, fails, or outlives
/// `timeout`. Standard input and error are closed.
pub(crate) fn output(
    program: &Path,
    args: &[&str],
    timeout: Duration,
) -> Result<String, ProcessError> {
    let name = program.display().to_string();
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut attempts = 0;
    let mut child = loop {
        match command.spawn() {
            // A script just written may still be open for writing in a
            // process forked meanwhile: Linux then refuses to run it for an
            // instant.
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 5 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            result => {
                break result.map_err(|source| ProcessError::Spawn {
                    program: name.clone(),
                    source,
                })?
            }
        }
    };
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let (sender, receiver) = mpsc::channel();
    // Not a scoped thread: a grandchild that keeps the pipe open must not
    // keep us waiting after the timeout.
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let result = stdout.read_to_end(&mut bytes).map(|_| bytes);
        let _ = sender.send(result);
    });
    let Ok(read) = receiver.recv_timeout(timeout) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(ProcessError::Timeout {
            program: name,
            millis: timeout.as_millis(),
        });
    };
    let status = child.wait().map_err(|source| ProcessError::Spawn {
        program: name.clone(),
        source,
    })?;
    if !status.success() {
        return Err(ProcessError::Failed {
            program: name,
            status,
        });
    }
    let bytes = read.map_err(|source| ProcessError::Spawn {
        program: name,
        source,
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn output_is_returned_and_slow_children_are_killed() {
        let sh = Path::new("/bin/sh");
        let text = output(sh, &["-c", "echo hello"], Duration::from_secs(5)).unwrap();
        assert_eq!(text, "hello\n");
        let started = std::time::Instant::now();
        let error = output(sh, &["-c", "exec sleep 5"], Duration::from_millis(100)).unwrap_err();
        assert!(matches!(error, ProcessError::Timeout { .. }), "{error}");
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(matches!(
            output(sh, &["-c", "exit 3"], Duration::from_secs(5)),
            Err(ProcessError::Failed { .. })
        ));
        assert!(matches!(
            output(
                Path::new("/nonexistent/program"),
                &[],
                Duration::from_secs(1)
            ),
            Err(ProcessError::Spawn { .. })
        ));
    }
}
