//! [`RunPlan`]: what a run will do, decided before any process starts
//! from static collection alone: its phases with their files, static
//! items and services; the tests proctor skips without pytest; how many
//! it deselects; its shard and order. Pure data: the [`Runner`] carries
//! it out.
//!
//! [`Runner`]: crate::Runner

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use proctor_outcome::TestResult;

use crate::workers::Dist;
use proctor_python::{collected_file, function_nodeid};

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
    /// Node ids of the static items, to tell pytest's items apart (the
    /// phases' items share the texts, and so do the sessions' and the
    /// results' ids of those items: [`PhaseOptions::known_ids`]).
    ///
    /// [`PhaseOptions::known_ids`]: crate::PhaseOptions::known_ids
    pub static_ids: Arc<HashSet<Arc<str>>>,
    /// Functions whose items only pytest knows (dynamic parametrization).
    pub dynamic_functions: HashSet<String>,
    /// `--shard`, as given (`2/3`).
    pub shard: Option<String>,
    /// The seed of a random order.
    pub seed: Option<u64>,
    /// `-n`: how many pytest processes run a phase's files at once (0 or
    /// 1: one).
    pub workers: usize,
    /// The recorded duration of each file's tests, to share files out
    /// among workers (a file without one is weighed by its size).
    pub file_durations: HashMap<String, f64>,
    /// `--dist`: how workers share the tests out.
    pub dist: Dist,
    /// How many collection errors static collection found: pytest's
    /// collection error stops its whole session before any test runs,
    /// so with one, `-n` runs each phase in one process (unless pytest
    /// is given `--continue-on-collection-errors`).
    pub collect_errors: usize,
    /// With `--dist loadgroup`: the `xdist_group` names each file's tests
    /// are marked with (files without one are not listed).
    pub file_groups: HashMap<String, Vec<String>>,
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
    /// Its node id (the text [`RunPlan::static_ids`] holds).
    pub nodeid: Arc<str>,
    /// Its file, as in node ids (one text per file).
    pub file: Arc<str>,
    /// Only pytest knows its items (dynamic parametrization).
    pub dynamic: bool,
}

/// What the static pass decided for one static item: the input of
/// [`RunPlan::new`].
#[derive(Debug, Clone)]
pub struct ItemPlan {
    /// Its node id.
    pub nodeid: String,
    /// Only pytest knows its items (dynamic parametrization).
    pub dynamic: bool,
    /// It runs in this run (selected, in the shard, kept by `--lf`).
    pub runs: bool,
    /// Its phase, when the run has phases.
    pub phase: Option<String>,
    /// The services proctor starts that it needs.
    pub services: Vec<String>,
    /// Its skip, when proctor skips it and pytest need not import its file
    /// for another test.
    pub skip: Option<TestResult>,
}

impl RunPlan {
    /// The plan of a run over these static items, in pytest's order: each
    /// item that runs goes to its phase (the first one when its phase is
    /// not among `phases`, which are empty without phases) with its file
    /// and services; `whole_files` (files that fail to collect or that
    /// pytest skips whole while importing them) are imported in the first
    /// phase, for pytest to report them; an item whose file no phase
    /// imports is a static skip, or deselected.
    #[must_use]
    pub fn new(phases: &[String], items: Vec<ItemPlan>, whole_files: Vec<String>) -> RunPlan {
        let names: Vec<Option<String>> = if phases.is_empty() {
            vec![None]
        } else {
            phases.iter().cloned().map(Some).collect()
        };
        let mut plan = RunPlan {
            phases: names
                .iter()
                .map(|name| PhasePlan {
                    name: name.clone(),
                    ..PhasePlan::default()
                })
                .collect(),
            ..RunPlan::default()
        };
        let mut needed: HashSet<String> = HashSet::new();
        // On 100,000 tests, what the plan holds while pytest runs is
        // megabytes: each node id's text once (its phase's item and
        // `static_ids` share it), each file's once.
        let mut file_texts: HashSet<Arc<str>> = HashSet::new();
        let mut static_ids: HashSet<Arc<str>> = HashSet::with_capacity(items.len());
        for item in items.iter().filter(|item| item.runs) {
            let at = names.iter().position(|p| *p == item.phase).unwrap_or(0);
            let phase = &mut plan.phases[at];
            let file = collected_file(&item.nodeid).to_owned();
            if !phase.files.contains(&file) {
                phase.files.push(file.clone());
            }
            let file_text = if let Some(text) = file_texts.get(file.as_str()) {
                Arc::clone(text)
            } else {
                let text: Arc<str> = Arc::from(file.as_str());
                file_texts.insert(Arc::clone(&text));
                text
            };
            let nodeid: Arc<str> = Arc::from(item.nodeid.as_str());
            static_ids.insert(Arc::clone(&nodeid));
            phase.items.push(PlannedItem {
                nodeid,
                file: file_text,
                dynamic: item.dynamic,
            });
            for service in &item.services {
                if !phase.services.contains(service) {
                    phase.services.push(service.clone());
                }
            }
            needed.insert(file);
        }
        // Each phase's items, grown by doubling, without the room to spare.
        for phase in &mut plan.phases {
            phase.items.shrink_to_fit();
        }
        for file in whole_files {
            if needed.insert(file.clone()) {
                plan.phases[0].files.push(file);
            }
        }
        let mut all_files: Vec<String> = Vec::with_capacity(items.len());
        for item in items {
            let file = collected_file(&item.nodeid);
            all_files.push(file.to_owned());
            if !item.runs {
                static_ids.insert(Arc::from(item.nodeid.as_str()));
            }
            if item.dynamic {
                plan.dynamic_functions
                    .insert(function_nodeid(&item.nodeid).to_owned());
            }
            if needed.contains(file) {
                continue;
            }
            match item.skip {
                Some(skip) => plan.static_skips.push(skip),
                None => plan.deselected += 1,
            }
        }
        plan.static_ids = Arc::new(static_ids);
        all_files.sort_unstable();
        all_files.dedup();
        // Room for one file per item is not held while pytest runs.
        all_files.shrink_to_fit();
        plan.all_files = all_files;
        plan.files_to_import = needed.len();
        plan
    }

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

#[cfg(test)]
mod tests {
    use proctor_outcome::Outcome;

    use super::*;

    fn item(nodeid: &str, runs: bool, phase: Option<&str>) -> ItemPlan {
        ItemPlan {
            nodeid: nodeid.to_owned(),
            dynamic: false,
            runs,
            phase: phase.map(str::to_owned),
            services: Vec::new(),
            skip: None,
        }
    }

    #[test]
    fn items_go_to_their_phase_with_their_files_and_services() {
        let mut db = item("tests/test_db.py::test_query", true, Some("integration"));
        db.services = vec!["postgres".to_owned()];
        let items = vec![
            item("tests/test_a.py::test_one", true, Some("unit")),
            item("tests/test_a.py::test_two", true, Some("unit")),
            db,
            // No phase of its own: the first.
            item("tests/test_b.py::test_plain", true, Some("(none)")),
        ];
        let phases = ["unit".to_owned(), "integration".to_owned()];
        let plan = RunPlan::new(&phases, items, vec!["tests/test_broken.py".to_owned()]);
        let unit = &plan.phases[0];
        assert_eq!(unit.name.as_deref(), Some("unit"));
        assert_eq!(
            unit.files,
            ["tests/test_a.py", "tests/test_b.py", "tests/test_broken.py"]
        );
        assert_eq!(unit.items.len(), 3);
        let integration = &plan.phases[1];
        assert_eq!(integration.files, ["tests/test_db.py"]);
        assert_eq!(integration.services, ["postgres"]);
        assert_eq!(plan.files_to_import, 4);
        assert_eq!(plan.phase_names(), ["unit", "integration"]);
    }

    #[test]
    fn files_no_phase_imports_give_static_skips_or_deselections() {
        let mut gated = item("tests/test_gpu.py::test_cuda", false, None);
        gated.skip = Some(TestResult::new(
            "tests/test_gpu.py::test_cuda",
            Outcome::Skipped,
        ));
        // Its file is imported for another test: pytest reports its skip.
        let mut imported = item("tests/test_a.py::test_gated", false, None);
        imported.skip = Some(TestResult::new(
            "tests/test_a.py::test_gated",
            Outcome::Skipped,
        ));
        let items = vec![
            item("tests/test_a.py::test_one", true, None),
            imported,
            gated,
            item("tests/test_c.py::test_other", false, None),
        ];
        let plan = RunPlan::new(&[], items, Vec::new());
        assert_eq!(plan.phases.len(), 1);
        assert_eq!(plan.phases[0].files, ["tests/test_a.py"]);
        let skipped: Vec<&str> = plan
            .static_skips
            .iter()
            .map(|r| r.nodeid.as_str())
            .collect();
        assert_eq!(skipped, ["tests/test_gpu.py::test_cuda"]);
        assert_eq!(plan.deselected, 1);
        assert_eq!(
            plan.all_files,
            ["tests/test_a.py", "tests/test_c.py", "tests/test_gpu.py"]
        );
        assert_eq!(plan.static_ids.len(), 4);
    }
}
