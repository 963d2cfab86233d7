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

/// Notes a group proctor leads, for [`kill_registered_groups`] and for
/// the guardian. When every slot is taken the group is not noted; the
/// parent-death signal still reaches its leader.
pub(crate) fn register_group(group: libc::pid_t) {
    tell_guardian(group);
    for slot in &GROUPS {
        if slot
            .compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Forgets a group once it is killed. Async-signal-safe.
pub(crate) fn unregister_group(group: libc::pid_t) {
    let mut known = false;
    for slot in &GROUPS {
        known |= slot
            .compare_exchange(group, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
    }
    if known {
        tell_guardian(-group);
    }
}

/// The write end of the pipe to the guardian; -1 while there is none.
static GUARDIAN: AtomicI32 = AtomicI32::new(-1);

/// Tells the guardian of a group to kill if proctor dies (`group`), or
/// one to forget (`-group`), starting the guardian first if need be.
/// Async-signal-safe once the guardian runs (a group is forgotten only
/// after it was registered, which started it).
fn tell_guardian(value: libc::pid_t) {
    static START: std::sync::Once = std::sync::Once::new();
    if value > 0 {
        START.call_once(|| GUARDIAN.store(start_guardian().unwrap_or(-1), Ordering::SeqCst));
    }
    let fd = GUARDIAN.load(Ordering::SeqCst);
    if fd >= 0 {
        let bytes = value.to_ne_bytes();
        // SAFETY: `write` of a 4-byte buffer on the stack; a pipe writes
        // up to `PIPE_BUF` bytes at once, so records never interleave.
        unsafe {
            libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        }
    }
}

/// Forks the guardian: a process of proctor's that outlives it by a
/// moment, to `SIGKILL` the process groups proctor leaves when it dies
/// without cleaning up (`SIGKILL`, a crash). The parent-death signal only
/// reaches a group's leader; the guardian reaches what the leader started
/// in its group (pytest's `multiprocessing` children, a service's
/// workers). It reads groups to kill (`pid`) and to forget (`-pid`) from
/// a pipe whose only write end is proctor's, and acts when the pipe
/// closes. Returns the write end.
fn start_guardian() -> Option<libc::c_int> {
    let mut fds = [0; 2];
    // SAFETY: `pipe2` fills the two-element array; the ends are closed
    // on exec, so no child but the guardian holds them.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    let [read, write] = fds;
    // SAFETY: after `fork` the child runs only `guard`, which calls
    // async-signal-safe functions and allocates nothing, as a child of a
    // multi-threaded process must.
    match unsafe { libc::fork() } {
        0 => unsafe { guard(read) },
        -1 => {
            // SAFETY: closing the two ends just created.
            unsafe {
                libc::close(read);
                libc::close(write);
            }
            None
        }
        _ => {
            // SAFETY: the read end is the guardian's alone.
            unsafe {
                libc::close(read);
            }
            Some(write)
        }
    }
}

/// The guardian's body (see [`start_guardian`]); never returns.
///
/// # Safety
///
/// Only in the child of `fork`, with `read` the pipe's read end.
unsafe fn guard(read: libc::c_int) -> ! {
    const DEV_NULL: &[u8] = b"/dev/null\0";
    // SAFETY (the whole body): async-signal-safe calls on descriptors
    // and buffers of this process only.
    unsafe {
        // A group of its own: a signal to proctor's group (a terminal's
        // Ctrl-C, a CI runner's kill) leaves it to clean up after proctor.
        libc::setpgid(0, 0);
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(signal, libc::SIG_IGN);
        }
        // Only the read end stays open, as descriptor 3: holding proctor's
        // output or the pipe's write end would keep others waiting.
        if read != 3 {
            libc::dup2(read, 3);
        }
        if libc::syscall(libc::SYS_close_range, 4_u32, u32::MAX, 0_u32) != 0 {
            for fd in 4..4096 {
                libc::close(fd);
            }
        }
        let null = libc::open(DEV_NULL.as_ptr().cast(), libc::O_RDWR);
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
        if null > 3 {
            libc::close(null);
        }
        let mut groups = [0 as libc::pid_t; REGISTRY_SLOTS];
        let mut buffer = [0_u8; 4];
        'read: loop {
            let mut got = 0;
            while got < buffer.len() {
                let n = libc::read(3, buffer[got..].as_mut_ptr().cast(), buffer.len() - got);
                if n > 0 {
                    got += n.unsigned_abs();
                } else if n == 0 || *libc::__errno_location() != libc::EINTR {
                    // The pipe closed: proctor is gone.
                    break 'read;
                }
            }
            let value = libc::pid_t::from_ne_bytes(buffer);
            if value > 0 {
                if let Some(slot) = groups.iter_mut().find(|slot| **slot == 0) {
                    *slot = value;
                }
            } else if let Some(slot) = groups.iter_mut().find(|slot| **slot == -value) {
                *slot = 0;
            }
        }
        for &group in &groups {
            if group > 0 {
                libc::killpg(group, libc::SIGKILL);
            }
        }
        libc::_exit(0)
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
/// child exits: proctor starts its children from threads that outlive
/// them (the main thread; a worker's thread waits for its last process).
/// A child whose parent is already gone when it starts (proctor killed
/// between fork and exec) exits at once.
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
    entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .all(|entry| {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                return true;
            };
            // `pid (comm) state ppid pgrp ...`: the fields after the last `)`.
            let mut fields = stat
                .rsplit_once(')')
                .map_or("", |(_, rest)| rest)
                .split_whitespace();
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
