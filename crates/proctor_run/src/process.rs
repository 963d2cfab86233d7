//! Child processes of a run: their process groups (pytest and services
//! run in their own, so that a kill reaches what they started), the
//! parent-death signal that ends them when proctor itself is killed, the
//! groups still running (for a second Ctrl-C), how a process ended, and
//! the tails of their logs for error reports.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicI32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// How many process groups [`kill_registered_groups`] can reach: one
/// pytest process and a few services at a time, with room to spare.
const REGISTRY_SLOTS: usize = 64;

/// The process groups proctor started and has not killed yet; 0 is a
/// free slot. Atomics, so that a signal handler may read them.
static GROUPS: [AtomicI32; REGISTRY_SLOTS] = [const { AtomicI32::new(0) }; REGISTRY_SLOTS];

/// Notes a group proctor leads, for [`kill_registered_groups`]. When
/// every slot is taken the group is not noted; the parent-death signal
/// still reaches its leader.
pub(crate) fn register_group(group: libc::pid_t) {
    for slot in &GROUPS {
        if slot.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            return;
        }
    }
}

/// Forgets a group once it is killed.
pub(crate) fn unregister_group(group: libc::pid_t) {
    for slot in &GROUPS {
        let _ = slot.compare_exchange(group, 0, Ordering::SeqCst, Ordering::SeqCst);
    }
}

/// Sends `SIGKILL` to every process group proctor started and has not
/// killed yet (pytest's, the services'). Async-signal-safe: a second
/// Ctrl-C calls it from the signal handler before proctor exits at once.
pub fn kill_registered_groups() {
    for slot in &GROUPS {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            signal_group(group, libc::SIGKILL);
        }
    }
}

/// Makes `command` start in a process group of its own, and (on Linux)
/// get `SIGKILL` when proctor dies, even by `SIGKILL`, which no handler
/// sees. The parent-death signal fires when the *thread* that forked the
/// child exits: proctor starts its children from its main thread, which
/// lives as long as proctor. A child whose parent is already gone when it
/// starts (proctor killed between fork and exec) exits at once.
pub(crate) fn own_group_dying_with_proctor(command: &mut Command) {
    command.process_group(0);
    #[cfg(target_os = "linux")]
    {
        let parent = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
        // SAFETY: between fork and exec the closure calls only `prctl`,
        // `getppid` and `_exit`, which are async-signal-safe, and
        // allocates nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    libc::_exit(137);
                }
                Ok(())
            });
        }
    }
}

/// How a process ended, as a crash report says it: `exit status 3`,
/// `killed by signal 11 (SIGSEGV)`.
pub(crate) fn describe_exit(status: Option<ExitStatus>) -> String {
    match status {
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(signal)) => killed_by(signal),
            (None, None) => "ended without an exit status".to_owned(),
        },
        None => "its exit status could not be read".to_owned(),
    }
}

/// `killed by signal 9 (SIGKILL, out of memory?)`.
pub(crate) fn killed_by(signal: i32) -> String {
    match signal_name(signal) {
        Some("SIGKILL") => format!("killed by signal {signal} (SIGKILL, out of memory?)"),
        Some(name) => format!("killed by signal {signal} ({name})"),
        None => format!("killed by signal {signal}"),
    }
}

/// The name of a signal (`SIGSEGV`), for the ones a crash or a stop
/// sends.
#[must_use]
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// The process group a child leads (`process_group(0)` made its id the
/// group's).
pub(crate) fn group_of(child: &Child) -> libc::pid_t {
    libc::pid_t::try_from(child.id()).expect("process ids fit in pid_t")
}

/// Sends `signal` to every process of `group`; a group that is already
/// gone is not an error. After `SIGKILL` the group is forgotten by
/// [`kill_registered_groups`]. Async-signal-safe.
pub(crate) fn signal_group(group: libc::pid_t, signal: libc::c_int) {
    // SAFETY: `killpg` only sends a signal; `group` is a group proctor
    // created, so no unrelated process is addressed.
    unsafe {
        libc::killpg(group, signal);
    }
    if signal == libc::SIGKILL {
        unregister_group(group);
    }
}

/// Whether any process of `group` still runs. The leader must be reaped
/// first; orphans are reaped by their new parent, which in a container
/// may take a second, so on Linux a group of zombies counts as gone.
pub(crate) fn group_alive(group: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the group exists.
    let exists = unsafe { libc::killpg(group, 0) == 0 };
    exists && !only_zombies(group)
}

/// Whether every process of `group` listed in `/proc` is a zombie; false
/// when `/proc` cannot be read.
fn only_zombies(group: libc::pid_t) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    let group = group.to_string();
    entries.flatten().filter(|entry| entry.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit())).all(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return true;
        };
        // `pid (comm) state ppid pgrp ...`: the fields after the last `)`.
        let mut fields = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace();
        let state = fields.next().unwrap_or_default();
        let pgrp = fields.nth(1).unwrap_or_default();
        pgrp != group || matches!(state, "Z" | "X")
    })
}

/// Waits up to `grace` for the group to have no processes left.
pub(crate) fn wait_for_group_exit(group: libc::pid_t, grace: Duration) {
    let deadline = Instant::now() + grace;
    while group_alive(group) && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(10));
    }
}

/// The last `count` lines of a log, lossily decoded; empty when it cannot
/// be read.
pub(crate) fn log_tail(path: &Path, count: usize) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

