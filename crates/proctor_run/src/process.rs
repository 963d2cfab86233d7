//! Child processes of a run: their process groups (pytest and services
//! run in their own, so that a kill reaches what they started) and the
//! tails of their logs for error reports.

use std::path::Path;
use std::process::Child;
use std::thread;
use std::time::{Duration, Instant};

/// The process group a child leads (`process_group(0)` made its id the
/// group's).
pub(crate) fn group_of(child: &Child) -> libc::pid_t {
    libc::pid_t::try_from(child.id()).expect("process ids fit in pid_t")
}

/// Sends `signal` to every process of `group`; a group that is already
/// gone is not an error.
pub(crate) fn signal_group(group: libc::pid_t, signal: libc::c_int) {
    // SAFETY: `killpg` only sends a signal; `group` is a group proctor
    // created, so no unrelated process is addressed.
    unsafe {
        libc::killpg(group, signal);
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

