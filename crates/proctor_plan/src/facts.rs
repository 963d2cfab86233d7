//! What the planner knows about a machine: this one (from `proctor caps`)
//! or a CI job's runner (from the job's configuration). Unknown facts are
//! `None` and never close a test: the planner only skips what it knows is
//! missing.

use std::collections::{BTreeMap, BTreeSet};

/// A machine as the planner sees it.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// Memory of each GPU, in GiB; empty when there is none.
    pub gpus_vram_gb: Vec<f64>,
    /// System memory in GiB, when known.
    pub ram_gb: Option<f64>,
    /// Environment variables. Values are read by gates (`CICD=1`) and never
    /// printed: requirements only ask whether a variable is set.
    pub env: BTreeMap<String, String>,
    /// Services by name: reachable or not, and at which address.
    pub services: BTreeMap<String, ServiceFact>,
    /// Installed distributions (PEP 503 names), when known.
    pub packages: Option<BTreeSet<String>>,
    /// The top-level modules the interpreter can import (`yaml`, not the
    /// distribution `pyyaml`), when known.
    pub modules: Option<BTreeSet<String>>,
    /// Programs on `PATH` by name: found or not. Programs not listed are
    /// unknown.
    pub binaries: BTreeMap<String, bool>,
    /// The Python version that runs pytest, when known.
    pub python: Option<(u32, u32)>,
    /// `linux`, `macos`, `windows`, ...
    pub os: String,
    /// Flags given to the run (`--live`).
    pub flags: Vec<String>,
    /// `--skip-resource-checks`: GPU and RAM needs are not checked.
    pub skip_resource_checks: bool,
}

/// A service's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceFact {
    /// Whether it answered.
    pub up: bool,
    /// Where it was looked for.
    pub address: String,
}

impl Facts {
    /// Whether `name` is set (present and not empty).
    #[must_use]
    pub fn env_set(&self, name: &str) -> bool {
        self.env.get(name).is_some_and(|value| !value.is_empty())
    }

    /// The largest GPU's memory in GiB, `None` without a GPU.
    #[must_use]
    pub fn vram_gb(&self) -> Option<f64> {
        self.gpus_vram_gb.iter().copied().reduce(f64::max)
    }
}
