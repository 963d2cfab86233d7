//! The capabilities of a machine as data, with the questions a planner asks
//! of them. Field names are part of `proctor caps --json` and stay stable.
//!
//! Sizes are bytes; the helpers that return "GB" return GiB (bytes / 2^30),
//! the unit `--assume gpu.vram_gb=N` and `ram_gb=N` take too.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::packages::normalize_name;

/// Bytes in one GiB, the unit of every `*_gb` value.
pub(crate) const GIB: f64 = 1_073_741_824.0;

/// What this machine offers tests.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Capabilities {
    /// Operating system and CPU architecture.
    pub platform: Platform,
    /// Logical CPUs this process may use (what `nproc` prints).
    pub cpus: usize,
    /// Total system memory in bytes, when known.
    pub ram_bytes: Option<u64>,
    /// GPUs, largest first as reported by the driver.
    pub gpus: Vec<Gpu>,
    /// The interpreter that runs the tests and what it has installed.
    pub python: Option<Python>,
    /// Environment variable name → whether it is set (present and not
    /// empty). Values are never recorded.
    pub env: BTreeMap<String, bool>,
    /// Service name → where it was looked for and whether it answered.
    pub services: BTreeMap<String, Service>,
    /// Program name → its path on `PATH`, if found.
    pub binaries: BTreeMap<String, Option<String>>,
    /// Whether resource needs (GPU, RAM) are to be treated as met
    /// (`--skip-resource-checks` or `PROCTOR_SKIP_RESOURCE_CHECKS`).
    pub skip_resource_checks: bool,
    /// The `--assume` entries applied, as given.
    pub assumed: Vec<String>,
    /// What could not be detected, and why.
    pub warnings: Vec<String>,
}

/// Operating system and architecture, as Rust names them
/// (`std::env::consts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Platform {
    /// `linux`, `macos`, `windows`, ...
    pub os: String,
    /// `x86_64`, `aarch64`, ...
    pub arch: String,
}

impl Default for Platform {
    fn default() -> Self {
        Platform {
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
        }
    }
}

/// One GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gpu {
    /// The model as the driver names it (`NVIDIA H200`).
    pub name: String,
    /// `nvidia`, `apple`, or `assumed` for one made by `--assume`.
    pub vendor: String,
    /// Memory usable by the GPU, in bytes. With unified memory (Apple
    /// Silicon) this is the system RAM.
    pub vram_bytes: u64,
    /// Whether the GPU shares the system memory.
    pub unified: bool,
}

/// A Python interpreter and its installed distributions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Python {
    /// The interpreter's path (`sys.executable`).
    pub executable: String,
    /// Its version, `3.11.2`.
    pub version: String,
    /// Installed distributions: PEP 503-normalized name → version.
    pub packages: BTreeMap<String, String>,
    /// The top-level modules it can import (`yaml`, which distribution
    /// `PyYAML` provides; built-in modules included), when read from its
    /// `sys.path`; `None` when unknown (an assumed interpreter). Not
    /// printed: `proctor caps` lists distributions.
    #[serde(skip)]
    pub modules: Option<BTreeSet<String>>,
}

/// A service the suite talks to, and whether it answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Service {
    /// `host:port` that was probed, without scheme, path or credentials.
    pub address: String,
    /// Where the address came from: the environment variable's name, or
    /// `default`.
    pub source: String,
    /// Whether the port accepted a connection (and, with an HTTP probe,
    /// the probe answered 2xx).
    pub reachable: bool,
    /// The HTTP probe's outcome: `Some(true)` on a 2xx answer, `None` when
    /// there is no probe or the port did not answer.
    pub http: Option<bool>,
}

impl Capabilities {
    /// The memory of the largest GPU in GiB, or `None` without a GPU.
    #[must_use]
    pub fn vram_gb_max(&self) -> Option<f64> {
        self.gpus.iter().map(|gpu| gpu.vram_bytes).max().map(gib)
    }

    /// System memory in GiB, when known.
    #[must_use]
    pub fn ram_gb(&self) -> Option<f64> {
        self.ram_bytes.map(gib)
    }

    /// Whether a distribution is installed; names compare PEP 503-normalized
    /// (`Foo_Bar` is `foo-bar`).
    #[must_use]
    pub fn has_package(&self, name: &str) -> bool {
        self.python
            .as_ref()
            .is_some_and(|python| python.packages.contains_key(&normalize_name(name)))
    }

    /// Whether an environment variable is set (present and not empty).
    /// Only names that were asked about are known; others count as unset.
    #[must_use]
    pub fn env_set(&self, name: &str) -> bool {
        self.env.get(name).copied().unwrap_or(false)
    }

    /// Whether a service answered its probe.
    #[must_use]
    pub fn service_up(&self, name: &str) -> bool {
        self.services
            .get(name)
            .is_some_and(|service| service.reachable)
    }

    /// Whether a program is on `PATH`.
    #[must_use]
    pub fn has_binary(&self, name: &str) -> bool {
        self.binaries.get(name).is_some_and(Option::is_some)
    }

    /// The interpreter's `(major, minor)` version.
    #[must_use]
    pub fn python_version(&self) -> Option<(u32, u32)> {
        parse_major_minor(&self.python.as_ref()?.version)
    }
}

/// `3.11.2` or `3.12` or `3.13.0rc1` → `(3, 11)`.
pub(crate) fn parse_major_minor(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor.parse().ok()?))
}

/// `bytes` in GiB, the unit of every memory figure proctor prints.
#[expect(
    clippy::cast_precision_loss,
    reason = "sizes well below 2^52 bytes are exact"
)]
#[must_use]
pub fn gib(bytes: u64) -> f64 {
    bytes as f64 / GIB
}

/// `gib` GiB in bytes, rounded; `None` unless finite, 0 or more, and in
/// range.
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "checked finite, non-negative and in range"
)]
#[must_use]
pub fn gib_bytes(gib: f64) -> Option<u64> {
    let bytes = (gib * GIB).round();
    (gib.is_finite() && gib >= 0.0 && bytes < 1.8e19).then_some(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(vram_bytes: u64) -> Gpu {
        Gpu {
            name: "g".into(),
            vendor: "nvidia".into(),
            vram_bytes,
            unified: false,
        }
    }

    #[test]
    fn helpers_answer_in_gib_and_normalized_names() {
        let mut caps = Capabilities {
            ram_bytes: Some(8 << 30),
            ..Capabilities::default()
        };
        assert_eq!(caps.vram_gb_max(), None);
        caps.gpus = vec![gpu(24 << 30), gpu(80 << 30)];
        assert_eq!(caps.vram_gb_max(), Some(80.0));
        assert_eq!(caps.ram_gb(), Some(8.0));
        caps.python = Some(Python {
            executable: "python".into(),
            version: "3.12.1".into(),
            packages: BTreeMap::from([("foo-bar".into(), "1.0".into())]),
            modules: None,
        });
        assert!(
            caps.has_package("Foo_Bar") && caps.has_package("foo.bar") && !caps.has_package("foo")
        );
        assert_eq!(caps.python_version(), Some((3, 12)));
        caps.env.insert("CI".into(), true);
        caps.env.insert("HF_TOKEN".into(), false);
        assert!(caps.env_set("CI") && !caps.env_set("HF_TOKEN") && !caps.env_set("OTHER"));
        caps.binaries
            .insert("git".into(), Some("/usr/bin/git".into()));
        caps.binaries.insert("nvidia-smi".into(), None);
        assert!(caps.has_binary("git") && !caps.has_binary("nvidia-smi") && !caps.has_binary("x"));
        caps.services.insert(
            "db".into(),
            Service {
                address: "127.0.0.1:5432".into(),
                source: "default".into(),
                reachable: true,
                http: None,
            },
        );
        assert!(caps.service_up("db") && !caps.service_up("ollama"));
    }

    #[test]
    fn versions_parse_with_suffixes() {
        assert_eq!(parse_major_minor("3.13.0rc1"), Some((3, 13)));
        assert_eq!(parse_major_minor("3.12"), Some((3, 12)));
        assert_eq!(parse_major_minor("3"), None);
        assert_eq!(parse_major_minor("unknown"), None);
    }
}
