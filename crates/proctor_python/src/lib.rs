//! The static model of a pytest suite: discovers test files as pytest does,
//! parses them with ruff's parser (in parallel), and produces the items pytest
//! would collect — node ids, order, markers with provenance — without
//! importing anything. What cannot be known statically is reported as a
//! dynamic item, never guessed and never dropped.

mod bodies;
mod byte_search;
mod cache;
mod class_flags;
mod collector;
mod decorator_factory;
mod discover;
mod eval;
mod fixtures;
mod fnmatch;
mod hooks;
mod ids;
mod import_scan;
mod imports;
mod model;
mod module_skip;
mod namespace;
mod opt_in;
mod parametrize;
mod project;
mod reorder;
mod session;
mod settings;
mod source;
mod value;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub use cache::clean as clean_cache;
pub use cache::fragment::{json_item_head, json_item_markers, json_item_tail, recorded_note};
pub use discover::normalize;
pub use fnmatch::fnmatch_ex;
pub use hooks::{
    read_conftest_hooks, ConftestHooks, HookCondition, HookMark, HookMarkKind, HookUnknown,
};
pub use ids::IdOptions;
pub use model::{
    CacheStats, CollectError, Collection, Decorator, Item, JsonHead, Location, Marker,
    MarkerSource, Memo, MemoDocument, MemoSlot, Rendered,
};
pub use opt_in::{OptInFile, OptInKind, OptInProblem, OptInSettings, NOTEBOOK_RUNNER_PACKAGE};
pub use settings::{deprecation_is_error, CollectSettings, ModulePath, PythonVersion};

use collector::RawItem;

/// One positional argument: a path, optionally followed by `::` node-id
/// parts.
#[derive(Debug, Clone)]
struct Arg {
    path: PathBuf,
    /// The node id prefix the argument selects (`path::Class::test`), when
    /// it has `::` parts.
    nodeid: Option<String>,
    /// An example or notebook folder the whole suite adds beyond pytest's
    /// own walk.
    beyond_walk: bool,
}

/// The paths pytest starts collecting from: the arguments, else `testpaths`
/// (when run from the rootdir), else the current directory.
fn initial_args(
    settings: &CollectSettings,
    args: &[String],
    cwd: &Path,
    testpaths: &[String],
) -> Vec<Arg> {
    let mut out = Vec::new();
    if args.is_empty() {
        if cwd == settings.rootdir {
            for pattern in testpaths {
                let full = settings.rootdir.join(pattern);
                if pattern.contains(['*', '?', '[']) {
                    let mut matches = glob_paths(&settings.rootdir, pattern);
                    matches.sort();
                    out.extend(matches.into_iter().map(|path| Arg {
                        path,
                        nodeid: None,
                        beyond_walk: false,
                    }));
                } else if full.exists() {
                    out.push(Arg {
                        path: full,
                        nodeid: None,
                        beyond_walk: false,
                    });
                }
            }
        }
        if out.is_empty() {
            out.push(Arg {
                path: cwd.to_path_buf(),
                nodeid: None,
                beyond_walk: false,
            });
        }
        if settings.opt_in.whole_suite {
            let folders = settings
                .opt_in
                .example_dirs
                .iter()
                .chain(&settings.opt_in.notebook_dirs);
            for dir in folders {
                if dir.exists() && !out.iter().any(|start| dir.starts_with(&start.path)) {
                    out.push(Arg {
                        path: dir.clone(),
                        nodeid: None,
                        beyond_walk: true,
                    });
                }
            }
        }
        return out;
    }
    for arg in args {
        let (path_part, rest) = match arg.split_once("::") {
            Some((p, r)) => (p, Some(r)),
            None => (arg.as_str(), None),
        };
        let path = discover::normalize(&cwd.join(path_part));
        let nodeid = rest.map(|r| format!("{}::{r}", settings.relative(&path)));
        out.push(Arg {
            path,
            nodeid,
            beyond_walk: false,
        });
    }
    out
}

/// The example and notebook folders (relative to the rootdir) that a run
/// with these arguments does not reach: none when paths are given, else
/// the configured folders outside pytest's walk (`testpaths`).
#[must_use]
pub fn folders_beyond_walk(
    settings: &CollectSettings,
    args: &[String],
    cwd: &Path,
    testpaths: &[String],
) -> Vec<String> {
    if !args.is_empty() {
        return Vec::new();
    }
    let mut whole = settings.clone();
    whole.opt_in.whole_suite = true;
    initial_args(&whole, args, cwd, testpaths)
        .iter()
        .filter(|a| a.beyond_walk)
        .map(|a| settings.relative(&a.path))
        .collect()
}

/// Expands a relative glob (as `testpaths` allows) under `root`.
fn glob_paths(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut current = vec![root.to_path_buf()];
    for part in pattern.split('/') {
        let mut next = Vec::new();
        for dir in &current {
            if part.contains(['*', '?', '[']) {
                if let Ok(rd) = std::fs::read_dir(dir) {
                    for entry in rd.flatten() {
                        let name = entry.file_name().to_string_lossy().into_owned();
                        if fnmatch::fnmatch(&name, part) {
                            next.push(entry.path());
                        }
                    }
                }
            } else {
                let p = dir.join(part);
                if p.exists() {
                    next.push(p);
                }
            }
        }
        current = next;
    }
    current
}

/// Collects the suite statically. `args` are pytest's positional
/// arguments as given on the command line (relative to `cwd`).
#[must_use]
pub fn collect(
    settings: &CollectSettings,
    args: &[String],
    cwd: &Path,
    testpaths: &[String],
) -> Collection {
    // One thread per core is the global pool, which callers reuse after
    // collection (lint, selection): no second pool to start and tear down.
    collect_in_pool(settings, args, cwd, testpaths, None)
}

/// [`collect`] for a caller that renders the whole collection the same way
/// every time (`collect --json`): `memo` identifies the rendering (its
/// format and everything it reads besides the collection). With the cache
/// on, when a rendering stored with [`store_memo`] has the same inputs
/// (every module's key, the context, what discovery found, the recorded
/// expansions, the arguments, `memo`) and its file-system answers hold,
/// the collection is only its [`Memo::Hit`] (with the cache's counts).
/// Otherwise, when `header` is given (the start of `collect --json`, a
/// JSON object) and every item is wanted, it is [`Memo::Rendered`]: the
/// document spliced from the cache's per-module fragments; else the full
/// collection with a [`Memo::Miss`] to store the rendering with.
#[must_use]
pub fn collect_memoized(
    settings: &CollectSettings,
    args: &[String],
    cwd: &Path,
    testpaths: &[String],
    memo: u128,
    header: Option<JsonHead<'_>>,
) -> Collection {
    collect_in_pool(settings, args, cwd, testpaths, Some((memo, header)))
}

/// Stores `rendered` (with `code` as its first byte; the concatenation of
/// its parts) as the memo of the collection that gave `slot`.
pub fn store_memo(settings: &CollectSettings, slot: &MemoSlot, code: u8, rendered: &[&[u8]]) {
    if let Some(root) = settings.cache.as_deref() {
        cache::store::Store::open_bare(root).write_memo(slot, code, rendered);
    }
}

fn collect_in_pool(
    settings: &CollectSettings,
    args: &[String],
    cwd: &Path,
    testpaths: &[String],
    memo: Option<(u128, Option<JsonHead<'_>>)>,
) -> Collection {
    if settings.threads == 0 || settings.threads == rayon::current_num_threads() {
        return collect_inner(settings, args, cwd, testpaths, memo);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        .build();
    match pool {
        Ok(pool) => pool.install(|| collect_inner(settings, args, cwd, testpaths, memo)),
        Err(_) => collect_inner(settings, args, cwd, testpaths, memo),
    }
}

/// Whether `text` parses as a Python module, with the same parser that
/// collection uses. The error names the 1-based line and column of the
/// first syntax error. `proctor check --fix` calls it on every fixed text
/// before writing it.
pub fn parses(text: &str) -> Result<(), String> {
    match ruff_python_parser::parse_module(text) {
        Ok(_) => Ok(()),
        Err(err) => {
            let offset = err.location.start().to_u32();
            let at = proctor_source::LineIndex::new(text).line_column(text, offset);
            Err(format!(
                "{}:{}: SyntaxError: {}",
                at.line, at.column, err.error
            ))
        }
    }
}

/// Whether the text of `file` is still what it must be after a fix: a
/// notebook valid JSON, anything else a Python module ([`parses`]).
pub fn parses_as(file: &str, text: &str) -> Result<(), String> {
    if std::path::Path::new(file)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
    {
        return serde_json::from_str::<serde_json::Value>(text)
            .map(|_| ())
            .map_err(|err| format!("{}:{}: not valid JSON: {err}", err.line(), err.column()));
    }
    parses(text)
}

fn collect_inner(
    settings: &CollectSettings,
    args: &[String],
    cwd: &Path,
    testpaths: &[String],
    memo: Option<(u128, Option<JsonHead<'_>>)>,
) -> Collection {
    let initial = initial_args(settings, args, cwd, testpaths);
    let paths: Vec<PathBuf> = initial.iter().map(|a| a.path.clone()).collect();
    // The selection below follows the arguments: part of the memo's key.
    // A document spliced from fragments has every item.
    let header = memo
        .and_then(|(_, header)| header)
        .filter(|_| initial.iter().all(|a| a.nodeid.is_none()));
    let memo = memo.map(|(memo, _)| {
        let mut hasher = cache::key::Hasher::new();
        hasher.hash(memo);
        hasher.str(&format!("{initial:?}"));
        hasher.finish()
    });
    let (mut collection, raw) = session::run(settings, &paths, memo, header);
    if matches!(collection.memo, Some(Memo::Hit(_) | Memo::Rendered(_))) {
        return collection;
    }
    collection.beyond_walk = initial
        .iter()
        .filter(|a| a.beyond_walk)
        .map(|a| settings.relative(&a.path))
        .collect();
    let selectors: Vec<&str> = initial.iter().filter_map(|a| a.nodeid.as_deref()).collect();
    let whole_files: Vec<String> = initial
        .iter()
        .filter(|a| a.nodeid.is_none())
        .map(|a| settings.relative(&a.path))
        .collect();
    let items: Vec<Item> = raw
        .into_iter()
        .filter(|item| selectors.is_empty() || selected(item, &selectors, &whole_files))
        .map(|item| {
            let facts = item
                .facts
                .map(std::sync::Arc::unwrap_or_clone)
                .unwrap_or_default();
            Item {
                nodeid: item.nodeid,
                file: item.def_file.to_string(),
                line: item.line,
                markers: item.markers,
                dynamic: facts.dynamic,
                decorators: facts.decorators,
                skip: facts.skip,
                markers_uncertain: facts.markers_uncertain,
            }
        })
        .collect();
    if collection.items.is_empty() {
        collection.items = items;
    } else {
        collection.items.extend(items);
    }
    collection
}

/// Records in the collection cache the items pytest collected for the
/// functions `collection` calls dynamic (and those it took from an earlier
/// recording), so that later static collections use them while the test
/// module's record key holds. `collected` is every node id pytest
/// collected, in its order; a function with none of them (its module not
/// collected, or the run given a node id of another function) is left as
/// it was. `run` is when the run started (ISO-8601, UTC). Nothing is
/// recorded without the cache.
pub fn record_expansions(
    settings: &CollectSettings,
    collection: &Collection,
    collected: &[String],
    run: &str,
) {
    let Some(root) = settings.cache.as_deref() else {
        return;
    };
    let mut functions: HashMap<&str, usize> = HashMap::new();
    for item in &collection.items {
        *functions.entry(function_nodeid(&item.nodeid)).or_default() += 1;
    }
    // A function's static items: one dynamic item (no parameters), or the
    // items an earlier recording gave.
    let mut wanted: BTreeMap<&str, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for item in &collection.items {
        let function = function_nodeid(&item.nodeid);
        let dynamic = item.dynamic.is_some()
            && item.nodeid.contains("::")
            && function == item.nodeid
            && functions.get(function) == Some(&1);
        if dynamic || collection.recorded.contains_key(function) {
            wanted
                .entry(collected_file(function))
                .or_default()
                .entry(function.to_string())
                .or_default();
        }
    }
    if wanted.is_empty() {
        return;
    }
    let mut real: HashMap<&str, Vec<&String>> = HashMap::new();
    for nodeid in collected {
        real.entry(function_nodeid(nodeid))
            .or_default()
            .push(nodeid);
    }
    let mut modules = Vec::new();
    for (file, mut functions) in wanted {
        let Some(&key) = collection.record_keys.get(file) else {
            continue;
        };
        functions.retain(|function, ids| {
            let Some(found) = real.get(function.as_str()) else {
                return false;
            };
            ids.extend(found.iter().map(|id| (*id).clone()));
            true
        });
        if functions.is_empty() {
            continue;
        }
        modules.push((
            file.to_string(),
            cache::store::RecordedModule {
                key,
                run: run.to_string(),
                functions,
            },
        ));
    }
    if !modules.is_empty() {
        cache::store::Store::open_bare(root).write_recorded(&settings.rootdir, modules);
    }
}

fn selected(item: &RawItem, selectors: &[&str], whole: &[String]) -> bool {
    let in_whole = whole
        .iter()
        .any(|w| w == "." || *item.file == **w || item.file.starts_with(&format!("{w}/")));
    in_whole || selectors.iter().any(|s| nodeid_matches(&item.nodeid, s))
}

/// The file part of a node id: the module the item is collected from
/// (pytest's `item.path`), which differs from [`Item::file`] for a test
/// inherited from another module.
#[must_use]
pub fn collected_file(nodeid: &str) -> &str {
    nodeid.split_once("::").map_or(nodeid, |(file, _)| file)
}

/// A node id without its parameters (`[...]`): the test function's, which
/// every parametrized instance shares.
#[must_use]
pub fn function_nodeid(nodeid: &str) -> &str {
    nodeid.split_once('[').map_or(nodeid, |(base, _)| base)
}

/// Whether `nodeid` is picked by a node-id argument `selector`, as pytest
/// reads one: the item itself, or everything below it (a class, a
/// function's parametrized items).
#[must_use]
pub fn nodeid_matches(nodeid: &str, selector: &str) -> bool {
    nodeid == selector
        || nodeid
            .strip_prefix(selector)
            .is_some_and(|rest| rest.starts_with("::") || rest.starts_with('['))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_whole_suite_adds_the_opt_in_folders_to_globbed_testpaths() {
        let dir = tempfile::tempdir().unwrap();
        let root = super::normalize(&dir.path().canonicalize().unwrap());
        for (path, text) in [
            ("tests/a/test_x.py", "def test_x():\n    pass\n"),
            ("other/test_y.py", "def test_y():\n    pass\n"),
            ("ex/hello.py", "# pytest: e2e\nprint(1)\n"),
        ] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        let mut settings = super::CollectSettings::new(root.clone());
        settings.opt_in =
            super::OptInSettings::under(&root, &["ex".into()], "# pytest:", &[], "proctor");
        let ids = |settings: &super::CollectSettings| -> Vec<String> {
            super::collect(settings, &[], &root, &["tests/*".into()])
                .items
                .into_iter()
                .map(|i| i.nodeid)
                .collect()
        };
        assert_eq!(ids(&settings), ["tests/a/test_x.py::test_x"]);
        settings.opt_in.whole_suite = true;
        assert_eq!(
            ids(&settings),
            ["tests/a/test_x.py::test_x", "ex/hello.py::hello.py"]
        );
    }

    #[test]
    fn parses_locates_the_first_syntax_error() {
        assert_eq!(
            super::parses("import pytest\n\n@pytest.mark.e2e\ndef test_a():\n    pass\n"),
            Ok(())
        );
        let err = super::parses("def test_(:\n").unwrap_err();
        assert!(err.starts_with("1:11: SyntaxError: "), "{err}");
    }
}
