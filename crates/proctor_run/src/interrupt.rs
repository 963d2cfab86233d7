//! Ctrl-C, `SIGTERM` and `SIGHUP` during a run: the first stops the run
//! cleanly (the runner stops pytest and the services; what finished is
//! still reported), a second ends proctor at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

/// The first signal that interrupted the run (`SIGINT`, `SIGTERM`,
/// `SIGHUP`); 0 while none has.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The signal that interrupted the run, if one did.
#[must_use]
pub fn signal() -> Option<i32> {
    Some(SIGNAL.load(Ordering::SeqCst)).filter(|&signal| signal != 0)
}

/// The exit status of a run a signal interrupted: pytest's 2 for Ctrl-C,
/// 128 + the signal for the others, as a shell reports a process they
/// killed.
#[must_use]
pub fn exit_code(signal: i32) -> i32 {
    if signal == libc::SIGINT {
        2
    } else {
        128 + signal
    }
}

/// Ctrl-C, `SIGTERM` and `SIGHUP` (what `timeout`, `docker stop` and CI
/// cancellation send, and a closed terminal) set the returned flag
/// instead of ending proctor: the runner then stops pytest and the
/// services, and the history and reports of what finished are still
/// written. A second signal while proctor cleans up ends it at once:
/// every process group it started gets `SIGKILL`, and it exits with the
/// first signal's status.
#[must_use]
pub fn install_handler() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    let flag = FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)));
    #[cfg(unix)]
    {
        extern "C" fn on_signal(signal: libc::c_int) {
            match SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => {
                    if let Some(flag) = FLAG.get() {
                        flag.store(true, Ordering::SeqCst);
                    }
                }
                Err(first) => {
                    const MESSAGE: &[u8] = b"proctor: a second signal: stopping at once\n";
                    crate::process::kill_registered_groups();
                    // SAFETY: `write` and `_exit` are async-signal-safe;
                    // the buffer is a static.
                    unsafe {
                        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
                        libc::_exit(exit_code(first));
                    }
                }
            }
        }
        // SAFETY: the handler only uses atomics, `killpg`, `write` and
        // `_exit`, which are async-signal-safe; `sigaction` is given a
        // zeroed, valid struct.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&raw mut action.sa_mask);
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::sigaction(signal, &raw const action, std::ptr::null_mut());
            }
        }
    }
    Arc::clone(flag)
}
