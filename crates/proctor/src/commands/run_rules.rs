//! What `proctor run` decides for every item, static or collected by
//! pytest: the verdict (selection, gates, needs on this machine), its shard
//! and phase, whether it may use the network, and the order to run in.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use anyhow::Result;
use proctor_plan::{Facts, Verdict};
use proctor_python::{
    collected_file, function_nodeid, Collection, Decorator, Item, Marker, MarkerSource,
};
use proctor_run::{AddedMarker, CollectedItem, Decider, Decisions, MarkerNames};
use proctor_taxonomy::{Effective, Selection, Taxonomy};

use crate::commands::run_flags::LastFailed;
use crate::commands::run_order::{self, Order};

/// What the run applies to every item, static or collected.
pub(crate) struct Rules<'s> {
    pub(crate) taxonomy: Taxonomy,
    pub(crate) selection: Selection,
    pub(crate) facts: Facts,
    pub(crate) plan: &'s proctor_config::PlanOptions,
    /// Markers whose tests may not use the network.
    pub(crate) no_network: &'s [String],
    pub(crate) order: Order,
    /// The node ids of this shard (static items), when sharded.
    pub(crate) shard: Option<(HashSet<String>, usize, usize)>,
    /// The job's phases in order (markers of its axis, then `(none)`);
    /// empty without phases.
    pub(crate) phases: Vec<String>,
    /// Services proctor starts (configured with `start`).
    pub(crate) started_services: Vec<String>,
    /// `--lf` / `--ff`: the tests that failed when they last ran; `None`
    /// without either flag, or when `--lf` found none of them selected.
    pub(crate) last_failed: Option<LastFailed>,
}

/// What the static pass knows of an item.
pub(crate) struct StaticVerdict {
    pub(crate) verdict: Verdict,
    /// Effective marker names.
    pub(crate) names: Vec<String>,
    /// Services it needs that proctor starts.
    pub(crate) services: Vec<String>,
}

impl Rules<'_> {
    /// The verdict and the effective marker names of an item pytest
    /// collected.
    pub(crate) fn verdict(&self, item: &Item) -> Result<(Verdict, Vec<String>)> {
        self.verdict_with(item, &self.taxonomy.effective(item))
    }

    fn verdict_with(&self, item: &Item, effective: &Effective) -> Result<(Verdict, Vec<String>)> {
        let verdict =
            proctor_plan::decide(item, effective, &self.selection, self.plan, &self.facts)?;
        let mut names: Vec<String> = Vec::new();
        for name in effective.names() {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        Ok((verdict, names))
    }

    /// The static verdict with the marker names and the started services
    /// the item needs.
    pub(crate) fn static_verdict(
        &self,
        item: &Item,
        effective: &Effective,
    ) -> Result<StaticVerdict> {
        let (verdict, names) = self.verdict_with(item, effective)?;
        let services = self.started_needs(item, effective);
        Ok(StaticVerdict {
            verdict,
            names,
            services,
        })
    }

    /// The services proctor starts that an item pytest collected needs.
    pub(crate) fn started_services_of(
        &self,
        collected: &CollectedItem,
        statics: &StaticIndex<'_>,
    ) -> Vec<String> {
        let item = runtime_item(collected, runtime_markers(collected), statics);
        self.started_needs(&item, &self.taxonomy.effective(&item))
    }

    fn started_needs(&self, item: &Item, effective: &Effective) -> Vec<String> {
        proctor_plan::needs(item, effective, self.plan)
            .into_iter()
            .filter_map(|need| match need.requirement {
                proctor_plan::Requirement::Service { name }
                    if self.started_services.contains(&name) =>
                {
                    Some(name)
                }
                _ => None,
            })
            .collect()
    }

    /// The phase of an item with these effective marker names.
    pub(crate) fn phase_of(&self, names: &[String]) -> Option<String> {
        if self.phases.is_empty() {
            return None;
        }
        Some(
            self.phases
                .iter()
                .find(|p| names.contains(p))
                .cloned()
                .unwrap_or_else(|| proctor_plan::NO_PHASE_MARKER.to_owned()),
        )
    }

    /// Whether `--lf` keeps the item (every item without `--lf`).
    pub(crate) fn last_failed_keeps(&self, nodeid: &str) -> bool {
        self.last_failed
            .as_ref()
            .is_none_or(|failed| !failed.only || failed.contains(nodeid))
    }

    /// Whether the item belongs to this shard: for items static collection
    /// knows, the balanced shard's members; for the others (ids only
    /// pytest computes), a stable hash of the node id.
    pub(crate) fn in_shard(&self, nodeid: &str, known: bool) -> bool {
        match &self.shard {
            None => true,
            Some((members, _, _)) if known => members.contains(nodeid),
            Some((_, index, count)) => stable_hash(nodeid) % count == index - 1,
        }
    }
}

/// What the decider keeps of a static item that has decorators (needs
/// that pytest does not keep) or is defined in another file than its node
/// id's (an inherited test): what an item pytest collected takes from it
/// ([`runtime_item`]), not the item's own strings and marker vectors.
struct Known {
    /// Where it is defined.
    file: Arc<str>,
    line: usize,
    decorators: Box<[Arc<Decorator>]>,
}

/// The static items as the decider reads them while pytest runs: which
/// node ids static collection knows (the plan's `static_ids`, every static
/// item's), and [`Known`] for the items that carry more than their node
/// id, by the plan's text of it. Not the items themselves (a few hundred
/// bytes each, tens of MB on 100,000 tests), which the run then need not
/// hold: on a suite without decorators the index holds nothing of its own.
pub(crate) struct StaticIndex<'p> {
    ids: &'p HashSet<Arc<str>>,
    known: HashMap<Arc<str>, Known>,
}

impl<'p> StaticIndex<'p> {
    /// The index of these static items; `ids` are the plan's texts of
    /// their node ids.
    pub(crate) fn new(items: &[Item], ids: &'p HashSet<Arc<str>>) -> StaticIndex<'p> {
        let mut files: HashSet<Arc<str>> = HashSet::new();
        let mut known = HashMap::new();
        for item in items {
            if item.decorators.is_empty() && item.file == collected_file(&item.nodeid) {
                continue;
            }
            let nodeid = ids
                .get(item.nodeid.as_str())
                .map_or_else(|| Arc::from(item.nodeid.as_str()), Arc::clone);
            let file = if let Some(file) = files.get(item.file.as_str()) {
                Arc::clone(file)
            } else {
                let file: Arc<str> = Arc::from(item.file.as_str());
                files.insert(Arc::clone(&file));
                file
            };
            known.entry(nodeid).or_insert_with(|| Known {
                file,
                line: item.line,
                decorators: item.decorators.clone().into_boxed_slice(),
            });
        }
        known.shrink_to_fit();
        StaticIndex { ids, known }
    }

    /// What is kept of the static item with this node id, else (an id
    /// static collection does not know) of its function's.
    fn of(&self, nodeid: &str) -> Option<&Known> {
        if self.ids.contains(nodeid) {
            self.known.get(nodeid)
        } else {
            self.known.get(function_nodeid(nodeid))
        }
    }

    fn contains(&self, nodeid: &str) -> bool {
        self.ids.contains(nodeid)
    }
}

/// The runner's [`Decider`]: the rules over pytest's items, with what the
/// static model knows of them, keeping each item's effective marker names.
pub(crate) struct RunDecider<'r> {
    rules: &'r Rules<'r>,
    statics: StaticIndex<'r>,
    /// Each collected test's effective marker names, by its node id (the
    /// session's text of the id, not a copy).
    markers_of: RefCell<HashMap<Arc<str>, MarkerNames>>,
    /// The node ids pytest collected of the functions whose items the run
    /// records ([`proctor_python::record_expansions`]: those static
    /// collection calls dynamic, and those recorded before), once each, in
    /// the order first seen. Not every test's: on a suite without dynamic
    /// parametrization, nothing.
    collected: RefCell<Vec<String>>,
    /// Those functions' node ids.
    recorded_functions: HashSet<String>,
}

impl<'r> RunDecider<'r> {
    /// The decider of a run over these static items; `static_ids` are the
    /// plan's texts of their node ids. It does not borrow the items: the
    /// run may drop them while pytest runs.
    pub(crate) fn new(
        rules: &'r Rules<'r>,
        collection: &Collection,
        static_ids: &'r HashSet<Arc<str>>,
    ) -> Self {
        let items = &collection.items;
        RunDecider {
            rules,
            statics: StaticIndex::new(items, static_ids),
            markers_of: RefCell::new(HashMap::new()),
            collected: RefCell::new(Vec::new()),
            recorded_functions: recorded_functions(collection)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        }
    }

    /// The node ids pytest collected in the run's processes of the
    /// functions whose items are recorded, once each, in pytest's order.
    pub(crate) fn collected_ids(&self) -> Vec<String> {
        self.collected.borrow().clone()
    }
}

impl Decider for RunDecider<'_> {
    fn decide(&self, items: &[CollectedItem], phase: Option<&str>) -> Decisions {
        decide(
            items,
            self.rules,
            &self.statics,
            &self.markers_of,
            &Recorded {
                functions: &self.recorded_functions,
                ids: &self.collected,
            },
            phase,
        )
    }

    fn started_services_of(&self, item: &CollectedItem) -> Vec<String> {
        self.rules.started_services_of(item, &self.statics)
    }

    fn markers_of(&self, nodeid: &str) -> Option<MarkerNames> {
        self.markers_of.borrow().get(nodeid).cloned()
    }
}

/// The functions whose collected items the run records, and those items'
/// node ids so far.
struct Recorded<'a> {
    functions: &'a HashSet<String>,
    ids: &'a RefCell<Vec<String>>,
}

/// proctor's answer to pytest's collection.
fn decide(
    items: &[CollectedItem],
    rules: &Rules<'_>,
    statics: &StaticIndex<'_>,
    markers_of: &RefCell<HashMap<Arc<str>, MarkerNames>>,
    recorded: &Recorded<'_>,
    phase: Option<&str>,
) -> Decisions {
    let mut decisions = Decisions::default();
    let mut kept: Vec<String> = Vec::with_capacity(items.len());
    // pytest waits for the answer: the map grows once, not by doubling.
    markers_of.borrow_mut().reserve(items.len());
    // Items with the same markers share one list (a parametrized
    // function's calls): converted once.
    let mut converted: HashMap<*const (), Vec<Arc<Marker>>> = HashMap::new();
    // Each distinct list of names is kept once, shared by its items (and
    // by their results, until the run's reports are written).
    let mut shared: HashSet<MarkerNames> = HashSet::new();
    let mut path_markers = PathMarkers::default();
    for collected in items {
        path_markers.file(&rules.taxonomy, collected_file(&collected.nodeid));
        let markers = converted
            .entry(Arc::as_ptr(&collected.markers).cast::<()>())
            .or_insert_with(|| runtime_markers(collected));
        let item = runtime_item(collected, markers.clone(), statics);
        let (verdict, names) = match rules.verdict(&item) {
            Ok(found) => found,
            // A `-k` identifier called with arguments, pytest's error: the
            // item is deselected, as a failing expression selects nothing.
            Err(_) => (Verdict::Deselected { by: String::new() }, Vec::new()),
        };
        let in_shard = rules.in_shard(&collected.nodeid, statics.contains(&collected.nodeid));
        let in_phase = phase.is_none() || rules.phase_of(&names).as_deref() == phase;
        match verdict {
            Verdict::Deselected { .. } => decisions.deselect.push(collected.nodeid.to_string()),
            _ if !in_shard || !in_phase || !rules.last_failed_keeps(&collected.nodeid) => {
                decisions.deselect.push(collected.nodeid.to_string());
            }
            Verdict::Skipped { reason } => {
                decisions.skip.insert(collected.nodeid.to_string(), reason);
                kept.push(collected.nodeid.to_string());
            }
            Verdict::Run => kept.push(collected.nodeid.to_string()),
        }
        if names.iter().any(|n| rules.no_network.contains(n)) {
            decisions.no_network.push(collected.nodeid.to_string());
        }
        let names = if let Some(names) = shared.get(names.as_slice()) {
            MarkerNames::clone(names)
        } else {
            let names = MarkerNames::from(names);
            shared.insert(MarkerNames::clone(&names));
            names
        };
        let first = markers_of
            .borrow_mut()
            .insert(Arc::clone(&collected.nodeid), names)
            .is_none();
        if first
            && recorded
                .functions
                .contains(function_nodeid(&collected.nodeid))
        {
            recorded.ids.borrow_mut().push(collected.nodeid.to_string());
        }
    }
    if rules.order != Order::Pytest {
        let markers = markers_of.borrow();
        decisions.order = run_order::order(&kept, &rules.order, &|nodeid| {
            markers
                .get(nodeid)
                .map(|names| names.to_vec())
                .unwrap_or_default()
        });
    }
    // `--ff`: the failures first, each part in the order it had.
    if let Some(failed) = rules.last_failed.as_ref().filter(|f| !f.only) {
        let order = if decisions.order.is_empty() {
            kept
        } else {
            std::mem::take(&mut decisions.order)
        };
        decisions.order = failed.failed_first(order);
    }
    decisions.markers = path_markers.added;
    decisions
}

/// The markers the path rules add at run time, each with the files whose
/// items get it: pytest and its plugins see them (a path-scoped
/// `filterwarnings`), as the conftest hook they replace would add them.
#[derive(Default)]
struct PathMarkers {
    added: Vec<AddedMarker>,
    /// The file seen last: a file's items come together.
    last: String,
    seen: HashSet<String>,
}

impl PathMarkers {
    fn file(&mut self, taxonomy: &Taxonomy, file: &str) {
        if self.last == file || !self.seen.insert(file.to_owned()) {
            return;
        }
        file.clone_into(&mut self.last);
        for rule in taxonomy.path_rules_for(file) {
            for marker in &rule.markers {
                let (name, args, kwargs) = (marker.name(), marker.args(), marker.kwargs());
                let found = self
                    .added
                    .iter_mut()
                    .find(|a| a.name == name && a.args == args && a.kwargs.as_ref() == kwargs);
                match found {
                    Some(added) => added.files.push(file.to_owned()),
                    None => self.added.push(AddedMarker {
                        name: name.to_owned(),
                        args: args.to_vec(),
                        kwargs: kwargs.cloned(),
                        files: vec![file.to_owned()],
                    }),
                }
            }
        }
    }
}

/// The markers of an item as pytest has them.
fn runtime_markers(collected: &CollectedItem) -> Vec<Arc<Marker>> {
    collected
        .markers
        .iter()
        .map(|m| {
            Arc::new(Marker {
                name: m.name.clone(),
                args: m.args.clone(),
                kwargs: m.kwargs.clone(),
                source: MarkerSource::Function,
                location: None,
            })
        })
        .collect()
}

/// An item as pytest has it, with the helper calls the static model saw
/// on the same test (they are needs, and pytest does not keep them).
fn runtime_item(
    collected: &CollectedItem,
    markers: Vec<Arc<Marker>>,
    statics: &StaticIndex<'_>,
) -> Item {
    let known = statics.of(&collected.nodeid);
    let decorators = known
        .map(|known| known.decorators.to_vec())
        .unwrap_or_default();
    // Where it is defined matters to no rule; the static model says when it
    // knows the item and that is not its node id's file (else line 0, as
    // for an item static collection does not know).
    let (file, line) = known.map_or_else(
        || (collected_file(&collected.nodeid).to_owned(), 0),
        |known| (known.file.to_string(), known.line),
    );
    Item {
        nodeid: collected.nodeid.to_string(),
        file,
        line,
        markers,
        dynamic: None,
        decorators,
        skip: None,
        markers_uncertain: None,
    }
}

/// FNV-1a: the same shard for the same node id everywhere.
fn stable_hash(text: &str) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    usize::try_from(hash % 1_000_003).unwrap_or(0)
}

/// Whether pytest skips the item's whole module while importing it: a
/// module-level `pytest.importorskip` of a package this machine lacks.
/// pytest then counts one skip for the module, with its own reason, and
/// collects none of its tests: proctor lets it import the module and
/// reports what it says, rather than a skip per test.
pub(crate) fn skipped_at_import(item: &Item, facts: &Facts) -> bool {
    item.decorators.iter().any(|decorator| {
        decorator.path == "pytest.importorskip"
            && decorator.source == MarkerSource::Module
            && decorator
                .args
                .first()
                .and_then(serde_json::Value::as_str)
                .is_some_and(|name| {
                    proctor_plan::Requirement::Package {
                        name: name.to_owned(),
                    }
                    .unmet(facts)
                    .is_some()
                })
    })
}

/// The functions whose items pytest collects are recorded in the
/// collection cache ([`proctor_python::record_expansions`]): those static
/// collection calls dynamic, and those recorded before.
pub(crate) fn recorded_functions(collection: &Collection) -> HashSet<&str> {
    collection
        .items
        .iter()
        .filter(|i| i.dynamic.is_some())
        .map(|i| function_nodeid(&i.nodeid))
        .chain(collection.recorded.keys().map(String::as_str))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(nodeid: &str, file: &str, decorators: &[&str]) -> Item {
        Item {
            nodeid: nodeid.to_owned(),
            file: file.to_owned(),
            line: 7,
            markers: Vec::new(),
            dynamic: None,
            decorators: decorators
                .iter()
                .map(|path| {
                    Arc::new(Decorator {
                        path: (*path).to_owned(),
                        args: Vec::new(),
                        kwargs: serde_json::Map::new(),
                        source: MarkerSource::Function,
                    })
                })
                .collect(),
            skip: None,
            markers_uncertain: None,
        }
    }

    #[test]
    fn the_static_index_keeps_only_what_an_item_carries_beyond_its_node_id() {
        let items = [
            item("tests/test_a.py::test_plain[0]", "tests/test_a.py", &[]),
            item("tests/test_a.py::test_plain[1]", "tests/test_a.py", &[]),
            item(
                "tests/test_a.py::test_slow",
                "tests/test_a.py",
                &["helpers.slow"],
            ),
            // Inherited: defined in its base class's module.
            item("tests/test_a.py::TestSub::test_base", "tests/base.py", &[]),
        ];
        let ids: HashSet<Arc<str>> = items
            .iter()
            .map(|item| Arc::from(item.nodeid.as_str()))
            .collect();
        let index = StaticIndex::new(&items, &ids);
        // The plain items cost the index nothing of its own.
        assert_eq!(index.known.len(), 2);
        assert!(index.of("tests/test_a.py::test_plain[0]").is_none());
        assert!(index.contains("tests/test_a.py::test_plain[0]"));
        // Keyed by the plan's text of the node id, not a copy.
        let (key, slow) = index
            .known
            .get_key_value("tests/test_a.py::test_slow")
            .unwrap();
        assert!(Arc::ptr_eq(
            key,
            ids.get("tests/test_a.py::test_slow").unwrap()
        ));
        assert_eq!(slow.decorators[0].path, "helpers.slow");
        assert_eq!(
            &*index
                .of("tests/test_a.py::TestSub::test_base")
                .unwrap()
                .file,
            "tests/base.py"
        );
        // An id only pytest knows takes its function's.
        assert!(!index.contains("tests/test_a.py::test_slow[x]"));
        let runtime = runtime_item(
            &CollectedItem {
                nodeid: Arc::from("tests/test_a.py::test_slow[x]"),
                markers: Arc::default(),
            },
            Vec::new(),
            &index,
        );
        assert_eq!(runtime.decorators.len(), 1);
        assert_eq!(
            (runtime.file.as_str(), runtime.line),
            ("tests/test_a.py", 7)
        );
        let plain = runtime_item(
            &CollectedItem {
                nodeid: Arc::from("tests/test_a.py::test_plain[0]"),
                markers: Arc::default(),
            },
            Vec::new(),
            &index,
        );
        assert!(plain.decorators.is_empty());
        assert_eq!(plain.file, "tests/test_a.py");
    }
}
