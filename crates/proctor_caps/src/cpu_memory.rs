//! CPUs and system memory.

use std::time::Duration;

/// Logical CPUs this process may use: what `nproc` prints (affinity and
/// cgroup quotas count); 1 when unknown.
pub(crate) fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// Total system memory in bytes: `MemTotal` of `/proc/meminfo` on Linux,
/// `sysctl -n hw.memsize` on macOS, `None` elsewhere or when unreadable.
pub(crate) fn ram_bytes(timeout: Duration) -> Option<u64> {
    if cfg!(target_os = "linux") {
        parse_meminfo(&std::fs::read_to_string("/proc/meminfo").ok()?)
    } else if cfg!(target_os = "macos") {
        sysctl("hw.memsize", timeout)?.trim().parse().ok()
    } else {
        None
    }
}

/// `sysctl -n NAME`, for macOS.
pub(crate) fn sysctl(name: &str, timeout: Duration) -> Option<String> {
    crate::process::output(
        std::path::Path::new("/usr/sbin/sysctl"),
        &["-n", name],
        timeout,
    )
    .ok()
}

/// The `MemTotal:  24576000 kB` line of `/proc/meminfo`, in bytes.
pub(crate) fn parse_meminfo(text: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix("MemTotal:")?;
        let mut words = rest.split_whitespace();
        let amount: u64 = words.next()?.parse().ok()?;
        let factor = match words.next() {
            Some("kB" | "KB" | "kiB") => 1024,
            None => 1,
            Some(_) => return None,
        };
        amount.checked_mul(factor)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_total_is_read_in_bytes() {
        let text =
            "MemTotal:       24576000 kB\nMemFree:         1000 kB\nMemAvailable:   2000 kB\n";
        assert_eq!(parse_meminfo(text), Some(24_576_000 * 1024));
        assert_eq!(parse_meminfo("MemFree: 1 kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: lots kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: 12 MB\n"), None);
        assert_eq!(parse_meminfo(""), None);
    }
}
