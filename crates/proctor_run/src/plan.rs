//! [`RunPlan`]: what a run will do, decided before any process starts
//! from static collection alone: its phases with their files, static
//! items and services; the tests proctor skips without pytest; how many
//! it deselects; its shard and order. Pure data: the [`Runner`] carries
//! it out.
//!
//! [`Runner`]: crate::Runner

use std::collections::HashSet;

use proctor_outcome::TestResult;

/// What a run will do.
#[derive(Debug, Clone, Default)]
pub struct RunPlan {
    /// The phases, in order (one, unnamed, without phases); a phase with
    /// no file does not start.
    pub phases: Vec<PhasePlan>,
    /// Every file static collection found items in, sorted: those a phase
    /// does not import are ignored in it.
    pub all_files: Vec<String>,
    /// The files pytest imports in some phase.
    pub files_to_import: usize,
    /// The files of the suite (with those that fail to collect).
    pub files_in_suite: usize,
    /// Tests proctor skips without pytest (in files no phase imports).
    pub static_skips: Vec<TestResult>,
    /// Static items deselected without pytest.
    pub deselected: usize,
    /// Node ids of the static items, to tell pytest's items apart.
    pub static_ids: HashSet<String>,
    /// Functions whose items only pytest knows (dynamic parametrization).
    pub dynamic_functions: HashSet<String>,
    /// `--shard`, as given (`2/3`).
    pub shard: Option<String>,
    /// The seed of a random order.
    pub seed: Option<u64>,
}

/// One phase of a run.
#[derive(Debug, Clone, Default)]
pub struct PhasePlan {
    /// Its name, when the run has phases.
    pub name: Option<String>,
    /// The files pytest imports in it.
    pub files: Vec<String>,
    /// The services proctor starts for it.
    pub services: Vec<String>,
    /// The static items it runs.
    pub items: Vec<PlannedItem>,
}

/// A static item a phase runs.
#[derive(Debug, Clone)]
pub struct PlannedItem {
    /// Its node id.
    pub nodeid: String,
    /// Its file, as in node ids.
    pub file: String,
    /// Only pytest knows its items (dynamic parametrization).
    pub dynamic: bool,
}

impl RunPlan {
    /// The names of the phases that import files, in order.
    #[must_use]
    pub fn phase_names(&self) -> Vec<&str> {
        self.phases
            .iter()
            .filter(|p| !p.files.is_empty())
            .filter_map(|p| p.name.as_deref())
            .collect()
    }
}
