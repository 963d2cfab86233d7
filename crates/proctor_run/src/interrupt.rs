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
///
/// The signals are caught by `signal-hook` and handled on a thread of
/// their own, so nothing here runs in a signal handler.
#[must_use]
pub fn install_handler() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        watch(&flag);
        flag
    }))
}

/// Starts the thread that handles the signals; if it cannot start, the
/// first signal still sets `flag` and a second ends proctor the way the
/// signal does by default.
#[cfg(unix)]
fn watch(flag: &Arc<AtomicBool>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

    const SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];
    let Ok(mut signals) = signal_hook::iterator::Signals::new(SIGNALS) else {
        return;
    };
    let first = Arc::clone(flag);
    let started = std::thread::Builder::new()
        .name("proctor-signals".to_owned())
        .spawn(move || {
            for signal in signals.forever() {
                on_signal(signal, &first);
            }
        });
    // A thread that did not start dropped `signals`, which took its
    // handlers back.
    if started.is_err() {
        for signal in SIGNALS {
            let _ = signal_hook::flag::register_conditional_default(signal, Arc::clone(flag));
            let _ = signal_hook::flag::register(signal, Arc::clone(flag));
        }
    }
}

/// The first signal sets `flag`; a second kills every process group
/// proctor started and exits with the first signal's status.
#[cfg(unix)]
fn on_signal(signal: i32, flag: &AtomicBool) {
    use std::io::Write as _;

    match SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => flag.store(true, Ordering::SeqCst),
        Err(first) => {
            crate::process::kill_registered_groups();
            let _ = std::io::stderr().write_all(b"proctor: a second signal: stopping at once\n");
            // `_exit`: no destructors or exit handlers of a run being torn
            // down on other threads.
            signal_hook::low_level::exit(exit_code(first));
        }
    }
}
