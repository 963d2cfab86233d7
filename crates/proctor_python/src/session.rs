//! One collection session, in pytest's order: discovery, then the shared
//! modules (conftests, the suite's helpers and any test module another one
//! imports) parsed once and kept, then every other test module parsed,
//! collected and dropped in parallel — so memory holds the shared modules
//! and one module per thread, not the whole suite. Finally the session-wide
//! steps: pytest's import-name clashes, doctest files and `reorder_items`.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use ruff_python_ast::Stmt;

use crate::cache::fragment::{self, Piece};
use crate::cache::key;
use crate::cache::probe;
use crate::cache::store::{
    self, flags, EntryRef, FreshEntry, Hash, ModuleOutput, Pack, SessionEntry, Stamp, StatData,
    Store,
};
use crate::collector::{self, ItemFacts, ModuleCollector, RawItem};
use crate::discover::{self, Discovery};
use crate::fixtures::{FixtureDef, Fixtures};
use crate::import_scan::scan_module;
use crate::imports::{package_of, scan_imports, Resolver};
use crate::model::{
    CacheStats, CollectError, Collection, Item, JsonHead, Memo, MemoSlot, Rendered,
};
use crate::namespace::{absolute_module, Binding, Namespace};
use crate::project::{self, Local, Module, Project, Shared, SharedModule, SourceRef};
use crate::reorder;
use crate::settings::CollectSettings;
use crate::source::{read_bytes, LazyFile, ParsedFile};

/// Runs discovery and collection from `paths`; returns the collection
/// (errors, warnings and conftest-level dynamic items) and the items in
/// pytest's order. With `splice` (the header of `collect --json`, given
/// with `memo` when every item is wanted), a collection the memo does not
/// answer is rendered from the cached modules' fragments and the
/// re-collected modules' ([`Memo::Rendered`]), without decoding what the
/// cache holds, where nothing makes one module's order depend on another's.
pub(crate) fn run(
    settings: &CollectSettings,
    paths: &[PathBuf],
    memo: Option<Hash>,
    splice: Option<JsonHead<'_>>,
) -> (Collection, Vec<RawItem>) {
    let started = store::now_seconds();
    // A memo whose watch list holds needs no discovery at all.
    let quick = memo
        .filter(|_| settings.cache.is_some())
        .map(|memo| quick_digest(settings, paths, memo));
    if let (Some(quick), Some(root)) = (quick, settings.cache.as_deref()) {
        if let Some((document, files)) = Store::open_bare(root).quick_memo(quick) {
            let collection = Collection {
                cache: Some(CacheStats {
                    cached: files,
                    collected: 0,
                    by_stat: true,
                }),
                memo: Some(Memo::Hit(document)),
                ..Collection::default()
            };
            return (collection, Vec::new());
        }
    }
    probe::forget_listings();
    let mut discovery = discover::Walker::new(settings).run(paths);
    // Missing imports are only inferred where no conftest edits `sys.path`
    // (which proctor cannot follow) and the interpreter's path is known.
    let edits_path = discovery
        .conftest_sources
        .iter()
        .any(|c| c.source.text.contains("sys.path"));
    let inferring;
    let settings = if settings.module_path.is_some()
        && !edits_path
        && std::env::var_os("PYTHONPATH").is_none()
    {
        inferring = CollectSettings {
            infer_import_errors: true,
            ..settings.clone()
        };
        &inferring
    } else {
        settings
    };
    let mut resolver = Resolver::default();
    resolver.prefetch(
        discovery
            .test_files
            .iter()
            .chain(discovery.conftests.values())
            .filter_map(|p| p.parent()),
    );
    let test_names: Vec<(String, String)> = discovery
        .test_files
        .iter()
        .map(|p| resolver.module_names(p))
        .collect();
    let roots = resolver.import_roots(
        settings,
        discovery
            .test_files
            .iter()
            .chain(discovery.conftests.values())
            .map(PathBuf::as_path),
    );

    let mut store = settings.cache.as_deref().map(Store::open);
    let cached = store.is_some();
    let mut stamps: Vec<(PathBuf, Stamp)> = Vec::new();

    // The shared modules: conftests, and what test modules import (found by
    // a quick scan, without parsing), then what those import in turn.
    // The bytes read here are kept for parsing the module below; with the
    // cache, a file whose `stat` data is unchanged is not read at all.
    let facts: Vec<TestFacts> = discovery
        .test_files
        .par_iter()
        .zip(test_names.par_iter())
        .map(|(path, (_, package))| test_facts(settings, store.as_ref(), path, package))
        .collect();
    let mut hashes = Vec::with_capacity(facts.len());
    let mut contents: Vec<Option<FileBytes>> = Vec::with_capacity(facts.len());
    let mut scans = Vec::with_capacity(facts.len());
    for fact in facts {
        hashes.push(fact.hash);
        contents.push(fact.bytes);
        scans.push(fact.scan);
        stamps.extend(fact.stamp);
    }
    let mut slots: Vec<Slot> = Vec::new();
    let mut names: Vec<(String, String)> = Vec::new();
    let mut known: HashSet<OsString> = HashSet::default();
    // Discovery already parsed the conftests (for `collect_ignore`).
    for file in std::mem::take(&mut discovery.conftest_sources) {
        if known.insert(file.path.clone().into_os_string()) {
            let (dotted, package) = resolver.module_names(&file.path);
            let imports = file
                .ast
                .as_ref()
                .map_or_else(Vec::new, |ast| imported_modules(&ast.body, &package));
            slots.push(Slot {
                path: file.path.clone(),
                hash: if cached { conftest_hash(&file) } else { 0 },
                imports,
                file: Some(file),
                bytes: None,
                elide: Vec::new(),
                scanned: None,
                source: false,
            });
            names.push((dotted, package));
        }
    }
    // Test modules others import are collected from their shared module:
    // their parse leaves nothing out.
    let test_paths: HashSet<&OsStr> = discovery.test_files.iter().map(|p| p.as_os_str()).collect();
    let mut wanted: Vec<(PathBuf, String)> = Vec::new();
    for names in &scans {
        for dotted in names {
            let found = resolver.find_module(&roots, dotted);
            wanted.extend(newly_found(&mut known, &found).cloned());
        }
    }
    // Every module reachable from there, scanned on workers as soon as it
    // is found; then put in the order of the waves below.
    let mut scanned = scan_reachable(
        settings,
        store.as_ref(),
        &mut resolver,
        &roots,
        &known,
        &wanted,
        &slots,
        &test_paths,
    );
    let mut start = 0;
    loop {
        // What the modules loaded since `start` import in turn.
        for slot in &slots[start..] {
            for dotted in &slot.imports {
                let found = resolver.find_module(&roots, dotted);
                wanted.extend(newly_found(&mut known, &found).cloned());
            }
        }
        if wanted.is_empty() {
            break;
        }
        start = slots.len();
        let new: Vec<(Slot, Option<Stamp>)> = wanted
            .iter()
            .map(|(path, dotted)| match scanned.remove(path.as_os_str()) {
                Some((name, made)) if name == *dotted => made,
                // Met under another name (another import root): its
                // package, and so its relative imports, may differ.
                _ => shared_slot(
                    settings,
                    store.as_ref(),
                    path,
                    &package_of(path, dotted),
                    !test_paths.contains(path.as_os_str()),
                ),
            })
            .collect();
        for ((slot, stamp), (path, dotted)) in new.into_iter().zip(wanted.drain(..)) {
            let package = package_of(&path, &dotted);
            names.push((dotted, package));
            stamps.extend(stamp.map(|s| (path, s)));
            slots.push(slot);
        }
    }
    let slot_of: HashMap<&OsStr, usize> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| (s.path.as_os_str(), i))
        .collect();
    // What a recorded expansion's key follows: each shared module's path,
    // hash and imports (the slots themselves are consumed below).
    let deps: Vec<(PathBuf, Hash, Vec<String>)> = if cached {
        slots
            .iter()
            .map(|s| (s.path.clone(), s.hash, s.imports.clone()))
            .collect()
    } else {
        Vec::new()
    };

    // With the cache: the context every module's result depends on, each
    // module's key in it, and the cached results that still hold.
    let context = store
        .as_ref()
        .map(|_| context_hash(settings, &discovery, &slots, &names));
    let keys: Vec<Hash> = match context {
        Some(context) => discovery
            .test_files
            .iter()
            .zip(&test_names)
            .zip(&hashes)
            .map(|((path, (dotted, package)), &hash)| {
                let hash = slot_of
                    .get(path.as_os_str())
                    .map_or(hash, |&i| slots[i].hash);
                module_key(context, path, dotted, package, hash)
            })
            .collect(),
        None => Vec::new(),
    };
    let (recorded, recorded_hash) = store.as_ref().map(Store::recorded).unwrap_or_default();
    // The memo of the caller's rendering: its digest covers every input of
    // the collection (the context, each module's key, what discovery found,
    // the recorded expansions) and of the rendering (`memo`). Not with
    // items only a hook or a doctest file's text decides.
    let digest = memo
        .zip(context)
        .filter(|_| discovery.hook_files.is_empty());
    // A doctest file's item depends on its text: its hash (from its stamp
    // when its `stat` data is unchanged) is part of the digest.
    let doctest_hash = digest.map_or(0, |_| {
        let mut doctest_hasher = key::Hasher::new();
        for (at, path) in &discovery.doctest_files {
            doctest_hasher.str(&at.to_string());
            doctest_hasher.path(path);
            if let Some(stamp) = store.as_ref().and_then(|s| s.fresh_stamp(path)) {
                doctest_hasher.hash(stamp.hash);
                continue;
            }
            let stat_data = StatData::of(path);
            let bytes = std::fs::read(path).map_err(|err| err.to_string());
            let hash = key::content(&bytes);
            if bytes.is_ok() {
                let stamp = Stamp {
                    stat: stat_data,
                    hash,
                    scan: None,
                    imports: None,
                };
                stamps.push((path.clone(), stamp));
            }
            doctest_hasher.hash(hash);
        }
        doctest_hasher.finish()
    });
    let digest = digest.map(|(memo, context)| {
        let mut memo_hasher = key::Hasher::new();
        memo_hasher.str("memo");
        memo_hasher.hash(memo);
        memo_hasher.hash(context);
        memo_hasher.hash(recorded_hash);
        memo_hasher.hash(doctest_hash);
        memo_hasher.str(&format!("{paths:?}"));
        for (path, key) in discovery.test_files.iter().zip(&keys) {
            memo_hasher.path(path);
            memo_hasher.hash(*key);
        }
        memo_hasher.str(&format!("{:?}", discovery.errors));
        memo_hasher.str(&format!("{:?}", discovery.opt_in));
        memo_hasher.finish()
    });
    // What a memo's watch list holds: everything read to get here.
    let watch = quick
        .zip(digest)
        .filter(|_| discovery.opt_in.is_empty())
        .map(|(quick, _)| store::Watch {
            quick,
            files: discovery.test_files.len(),
            paths: watch_paths(&discovery, paths, &slots, &resolver, store.as_ref()),
            started,
        });
    if let Some((document, watched)) =
        digest.and_then(|d| store.as_ref()?.memo(d, quick.unwrap_or(0)))
    {
        if let Some(store) = store.as_mut() {
            // Stamps read again because they were too recent are stored,
            // and the memo gets a watch list it lacked.
            store.write_stamps(stamps);
            if let Some(digest) = digest.filter(|_| !watched) {
                store.rewatch_memo(digest, watch.as_ref());
            }
        }
        let collection = Collection {
            cache: Some(CacheStats {
                cached: discovery.test_files.len(),
                collected: 0,
                by_stat: false,
            }),
            memo: Some(Memo::Hit(document)),
            ..Collection::default()
        };
        return (collection, Vec::new());
    }
    let pack = store
        .as_ref()
        .zip(context)
        .and_then(|(store, context)| store.pack(context));
    let (entries, mut session_entry) = pack.as_ref().and_then(Pack::entries).unwrap_or_default();
    let mut all_probes: Vec<probe::Probe> = Vec::new();
    let valid: Vec<Option<EntryRef<'_>>> = if cached {
        let (valid, probes) = cached_entries(&discovery.test_files, &keys, &entries);
        all_probes = probes;
        valid
    } else {
        (0..discovery.test_files.len()).map(|_| None).collect()
    };
    drop(entries);
    // Items a conftest's `pytest_collect_file` gives (with the position in
    // the test files each follows) are not cached: they depend on the
    // files the hook sees, so a suite with such a hook collects them anew.
    let follows_hooks = !discovery.hook_files.is_empty();
    if follows_hooks {
        session_entry = None;
    }
    // Splicing: every module's items in their own order, put end to end,
    // are the session's order while no parameter's key spans modules.
    let splice = splice.filter(|_| {
        cached
            && discovery.opt_in.is_empty()
            && !valid.iter().flatten().any(|e| e.has(flags::SPANS))
    });
    let mut outputs: Vec<Option<ModuleOutput>> = if splice.is_some() {
        (0..valid.len()).map(|_| None).collect()
    } else {
        valid.iter().map(|e| e.as_ref()?.output()).collect()
    };
    let missing: Vec<bool> = if splice.is_some() {
        valid.iter().map(Option::is_none).collect()
    } else {
        outputs.iter().map(Option::is_none).collect()
    };
    let hits = missing.iter().filter(|m| !**m).count();
    // Fragments of the modules collected now, for splicing.
    // (those a run's recorded expansions changed, or that have no entry;
    // the others' are in their entry, `fresh_at`).
    let mut fresh_fragments: Vec<Option<Vec<u8>>> = (0..valid.len()).map(|_| None).collect();
    let mut fresh_at: Vec<Option<usize>> = vec![None; valid.len()];

    let mut collection = Collection {
        conftests: discovery.conftests.values().cloned().collect(),
        ..Collection::default()
    };
    collection.errors.extend(discovery.errors.iter().cloned());
    let mut hooked: Vec<(usize, RawItem)> = Vec::new();
    let mut fresh: Vec<FreshEntry> = Vec::new();
    let mut tainted = false;
    let session_fresh = session_entry.is_none() && !follows_hooks;
    let reordering = !settings.definitions_only;
    let splicing = splice.is_some();
    // Whether a module collected now has a parameter whose key spans
    // modules (found before a spliced module's items are let go).
    let mut spanning = false;
    if hits < missing.len() || session_entry.is_none() {
        // Something must be collected: the shared modules are parsed (those
        // the cache let alone are read now) and the misses collected.
        let slot_hashes: Vec<Hash> = slots.iter().map(|s| s.hash).collect();
        let loaded: Vec<LazyFile> = slots
            .into_iter()
            .map(|slot| slot.load(settings, cached))
            .collect();
        let shared = build_shared(
            loaded.iter().map(SourceRef::Lazy).collect(),
            &names,
            settings.python_version.clone(),
        );
        let project = Project::new(&shared, None);
        let by_path: ByPath<'_> = loaded
            .iter()
            .enumerate()
            .map(|(i, f)| (f.path.as_os_str(), i))
            .collect();
        let session = SessionFixtures::new(&project, &discovery, &by_path);
        if session_entry.is_none() {
            let mut hooks = Collection::default();
            hooked = conftest_hooks(settings, &project, &discovery, &by_path, &mut hooks);
            session_entry = Some(SessionEntry {
                items: hooks.items,
                warnings: hooks.warnings,
            });
        }
        let (dirs, dir_of) = dir_contexts(settings, &discovery, &session, &by_path);
        let mut tasks: Vec<(usize, Option<FileBytes>)> = missing
            .iter()
            .zip(contents)
            .enumerate()
            .filter(|(_, (missing, _))| **missing)
            .map(|(i, (_, bytes))| (i, bytes))
            .collect();
        // The largest modules first, each taken by the next free worker: a
        // module of thousands of items (packaging's `test_version.py`)
        // started last would hold the session on one thread at the end.
        tasks.sort_by_key(|(i, bytes)| {
            let size = bytes.as_ref().map_or(0, |b| b.as_ref().map_or(0, Vec::len));
            (std::cmp::Reverse(size), *i)
        });
        let collect_one = |(i, bytes): (usize, Option<FileBytes>)| -> Collected {
            let path = &discovery.test_files[i];
            let (dotted, package) = &test_names[i];
            let dir = &dirs[dir_of[i]];
            let (hash, task) = if let Some(&idx) = by_path.get(path.as_os_str()) {
                (slot_hashes[idx], Task::Shared(idx))
            } else {
                let bytes = bytes.unwrap_or_else(|| read_bytes(path, settings.max_file_size));
                let hash = if cached { key::content(&bytes) } else { 0 };
                (hash, Task::Local(bytes))
            };
            let (output, probes) = probe::recording(|| match task {
                Task::Shared(idx) => collect_module(settings, &project, idx, &discovery, dir),
                Task::Local(bytes) => {
                    let module = ((dotted.as_str(), package.as_str()), bytes);
                    collect_local(settings, &shared, path, module, &discovery, dir)
                }
            });
            // Rendered as `collect --json` writes the module's items
            // (without a run's recorded expansions, which are applied
            // when used), for the pack and for splicing.
            let order = context.and_then(|_| fragment::render_order(&output.items, reordering));
            let render = || fragment::render_in(&output.items, order.as_deref(), &|_| None);
            // Whether a parameter's key spans modules: for the entry's
            // flags and for splicing.
            let cross_module =
                (context.is_some() || splicing) && reorder::spans_modules(&output.items);
            let mut entry = None;
            let mut fragment = None;
            if let Some(context) = context {
                if let Some(name) = path.to_str() {
                    let key = module_key(context, path, dotted, package, hash);
                    // The fragment is kept once: in the entry, when there is one.
                    let made = FreshEntry::new(
                        name.to_string(),
                        key,
                        probes,
                        &output,
                        render,
                        order.as_deref(),
                        cross_module,
                    );
                    match made {
                        Ok(made) => entry = Some(made),
                        Err(rendered) => fragment = Some(rendered),
                    }
                } else {
                    fragment = Some(render());
                }
            }
            let mut output = output;
            let wide = splicing && cross_module;
            if splicing && !wide && output.items.iter().all(|item| item.dynamic().is_none()) {
                // Spliced, a module's items are their fragment: only a
                // dynamic function's (which a run may have recorded)
                // are needed besides, and the others' memory is reused.
                output.items = Vec::new();
            }
            (i, output, entry, fragment, wide)
        };
        // One taker per worker. Between modules a worker first helps with
        // what another one left for the taking (a large module's
        // functions, expanded in parallel), then takes the next module.
        let queue = std::sync::Mutex::new(tasks.into_iter());
        let mut collected: Vec<Collected> = rayon::broadcast(|_| {
            let mut done = Vec::new();
            loop {
                while let Some(rayon::Yield::Executed) = rayon::yield_now() {}
                let Some(task) = queue.lock().ok().and_then(|mut q| q.next()) else {
                    break done;
                };
                done.push(collect_one(task));
            }
        })
        .into_iter()
        .flatten()
        .collect();
        collected.sort_unstable_by_key(|c| c.0);
        // A shared module parsed late whose bytes changed since they were
        // hashed: the results are not stored.
        tainted |= loaded.iter().any(LazyFile::changed);
        for (i, output, entry, fragment, wide) in collected {
            spanning |= wide;
            outputs[i] = Some(output);
            fresh_fragments[i] = fragment;
            if digest.is_some() {
                all_probes.extend(entry.iter().flat_map(|e| e.probes.iter().cloned()));
            }
            if entry.is_some() {
                fresh_at[i] = Some(fresh.len());
            }
            fresh.extend(entry);
        }
        // The shared modules' syntax trees are let go on a worker, off the
        // path to the output (on pygments, a tenth of the main thread's
        // time was spent freeing them here).
        drop((dirs, session, by_path));
        drop(shared);
        rayon::spawn(move || drop(loaded));
    }
    if splice.is_some() && spanning {
        // A module collected now has a parameter whose key spans modules:
        // the session's order is computed as a whole.
        drop(valid);
        drop(pack);
        return run(settings, paths, memo, None);
    }
    // Recorded expansions: a dynamic function's items as a run saw pytest
    // collect them, while the module's record key holds.
    if store.is_some() && context.is_some() {
        let base = key::context(settings).finish();
        let slot_of: HashMap<&OsStr, usize> = deps
            .iter()
            .enumerate()
            .map(|(i, d)| (d.0.as_os_str(), i))
            .collect();
        // Computed once for every module's key: the conditional ignores,
        // what each shared module's imports resolve to, and the shared
        // modules' order by path.
        let conditional = format!("{:?}", discovery.conditional);
        let mut imported: Vec<Option<Vec<usize>>> = vec![None; deps.len()];
        let mut by_path: Vec<usize> = (0..deps.len()).collect();
        by_path.sort_by(|&a, &b| deps[a].0.cmp(&deps[b].0));
        let mut dependencies = |i: usize| -> Hash {
            let path = &discovery.test_files[i];
            let (dotted, package) = &test_names[i];
            let hash = slot_of
                .get(path.as_os_str())
                .map_or(hashes[i], |&s| deps[s].1);
            let mut dep_hasher = key::Hasher::new();
            dep_hasher.hash(base);
            dep_hasher.hash(module_key(0, path, dotted, package, hash));
            dep_hasher.str(&conditional);
            let mut queue: Vec<usize> = Vec::new();
            let dir = path.parent().unwrap_or(path);
            for conftest in discovery
                .conftests
                .iter()
                .filter(|(d, _)| crate::discover::starts_with_dir(dir, d))
                .map(|(_, c)| c)
            {
                queue.extend(slot_of.get(conftest.as_os_str()));
            }
            for dotted in &scans[i] {
                for (file, _) in resolver.find_module(&roots, dotted).iter() {
                    queue.extend(slot_of.get(file.as_os_str()));
                }
            }
            let mut seen = vec![false; deps.len()];
            while let Some(s) = queue.pop() {
                if std::mem::replace(&mut seen[s], true) {
                    continue;
                }
                let next = imported[s].get_or_insert_with(|| {
                    let mut next = Vec::new();
                    for dotted in &deps[s].2 {
                        let found = resolver.find_module(&roots, dotted);
                        next.extend(
                            found
                                .iter()
                                .filter_map(|(file, _)| slot_of.get(file.as_os_str()).copied()),
                        );
                    }
                    next
                });
                queue.extend_from_slice(next);
            }
            // In the order of their paths.
            for &s in by_path.iter().filter(|&&s| seen[s]) {
                let (path, hash, _) = &deps[s];
                dep_hasher.path(path);
                dep_hasher.hash(*hash);
            }
            dep_hasher.finish()
        };
        for i in 0..outputs.len() {
            if splice.is_some() && outputs[i].is_none() {
                // A module the cache answered is decoded only when a run
                // recorded expansions for it.
                let Some(entry) = valid[i].filter(|e| e.has(flags::DYNAMIC)) else {
                    continue;
                };
                if !recorded
                    .modules
                    .contains_key(&settings.relative(&discovery.test_files[i]))
                {
                    continue;
                }
                match entry.output() {
                    Some(output) => outputs[i] = Some(output),
                    None => return run(settings, paths, memo, None),
                }
            }
            let Some(output) = outputs[i].as_mut() else {
                continue;
            };
            if !output.items.iter().any(|item| item.dynamic().is_some()) {
                continue;
            }
            let rel = settings.relative(&discovery.test_files[i]);
            if splice.is_some() && !recorded.modules.contains_key(&rel) {
                // The spliced document keeps no record keys: one is
                // needed only to check a recording.
                continue;
            }
            let key = record_key(dependencies(i), output);
            if let Some(module) = recorded.modules.get(&rel).filter(|m| m.key == key) {
                apply_recorded(output, module, &mut collection.recorded);
                if splice.is_some() {
                    let notes = &collection.recorded;
                    let note = |nodeid: &str| notes.get(crate::function_nodeid(nodeid)).cloned();
                    fresh_fragments[i] = Some(fragment::render(&output.items, reordering, &note));
                }
            }
            collection.record_keys.insert(rel, key);
        }
    }
    if let Some(entry) = &session_entry {
        collection.items.extend(entry.items.iter().cloned());
        collection.warnings.extend(entry.warnings.iter().cloned());
    }
    // The store and the stamps to write, and whether the pack is to be
    // written again.
    let mut unwritten: Option<(Store, Vec<(PathBuf, Stamp)>)> = None;
    let mut pack_due = false;
    if let (Some(store), Some(_)) = (store, context) {
        collection.cache = Some(CacheStats {
            cached: hits,
            collected: outputs.len() - hits,
            by_stat: false,
        });
        if let Some(digest) = digest.filter(|_| !tainted) {
            let mut seen = HashSet::default();
            all_probes.retain(|p| seen.insert(p.clone()));
            collection.memo = Some(Memo::Miss(MemoSlot {
                digest,
                probes: all_probes,
                watch,
            }));
        }
        if !tainted {
            pack_due = !fresh.is_empty() || session_fresh;
            unwritten = Some((store, std::mem::take(&mut stamps)));
        }
    }
    // The pack and the stamps are written while the document is spliced
    // (and stored as the memo): two files written side by side.
    let no_session = SessionEntry::default();
    let session = session_entry.as_ref().unwrap_or(&no_session);
    let write_cache = {
        let (fresh, pack, discovery) = (&fresh, &pack, &discovery);
        move || {
            let Some((mut store, stamps)) = unwritten else {
                return;
            };
            if let (true, Some(context)) = (pack_due, context) {
                let current: HashSet<&str> = discovery
                    .test_files
                    .iter()
                    .filter_map(|p| p.to_str())
                    .collect();
                store.write_pack(context, pack.as_ref(), session, fresh, &current);
            }
            store.write_stamps(stamps);
        }
    };
    if let Some(header) = splice {
        let slot = match collection.memo.take() {
            Some(Memo::Miss(slot)) => Some(slot),
            _ => None,
        };
        let fragments: Vec<Option<&[u8]>> = fresh_fragments
            .iter()
            .zip(&fresh_at)
            .map(|(own, at)| own.as_deref().or_else(|| Some(fresh[(*at)?].fragment())))
            .collect();
        let (spliced, ()) = rayon::join(
            || {
                let spliced = splice_document(
                    settings,
                    &discovery,
                    &test_names,
                    &valid,
                    &outputs,
                    &fragments,
                    session,
                    &hooked,
                    &collection.errors,
                    header.json,
                )?;
                // Written to the caller's sink (standard output) when there
                // is one and, side by side, into the memo, except on a cold
                // run: one that collected every module and stored each in
                // the pack it has just written. There the document written
                // a second time (5 MB on packaging) made the end of the run
                // a third longer, and the next run, finding nothing
                // changed, splices the same document from the pack alone
                // (on packaging in about the time the memo takes) and
                // stores it then. Without a sink it is stored and copied
                // out of the memo by the caller, and held in memory only
                // when it goes to neither (the caller does not try again).
                let first = (header.status)(spliced.errors, spliced.items);
                let cold = hits == 0 && fresh.len() == outputs.len();
                let store = slot
                    .as_ref()
                    .zip(settings.cache.as_deref())
                    .filter(|_| !cold || header.sink.is_none());
                let (stored, sent) = rayon::join(
                    || {
                        let (slot, root) = store?;
                        Store::open_bare(root)
                            .write_memo_with(slot, first, |out| spliced.write_to(out))
                    },
                    || {
                        header.sink.map(|sink| {
                            let mut out = std::io::BufWriter::with_capacity(1 << 16, sink);
                            spliced
                                .write_to(&mut out)
                                .and_then(|()| std::io::Write::flush(&mut out))
                                .map_err(std::sync::Arc::new)
                        })
                    },
                );
                Some((spliced, stored, sent))
            },
            write_cache,
        );
        let Some((spliced, stored, sent)) = spliced else {
            return run(settings, paths, memo, None);
        };
        let document = match (&stored, &sent) {
            (None, None) => spliced.to_bytes(),
            _ => Vec::new(),
        };
        let collection = Collection {
            cache: collection.cache,
            memo: Some(Memo::Rendered(Rendered {
                document,
                stored,
                sent,
                items: spliced.items,
                errors: spliced.errors,
            })),
            ..Collection::default()
        };
        return (collection, Vec::new());
    }
    write_cache();
    // Written: the fresh entries are no longer needed.
    drop(fresh);
    let results: Vec<ModuleOutput> = outputs.into_iter().flatten().collect();

    let mut raw: Vec<RawItem> = Vec::with_capacity(results.iter().map(|r| r.items.len()).sum());
    let mut doctests = discovery.doctest_files.iter().peekable();
    let mut opt_in = discovery.opt_in.iter().peekable();
    let mut hooked = hooked.into_iter().peekable();
    // In pytest's default `prepend` import mode, two test modules with the
    // same dotted name cannot both be imported: the later one fails.
    let mut imported: HashMap<&str, &Path> = HashMap::default();
    for (position, result) in results.into_iter().enumerate() {
        while let Some((_, path)) = doctests.next_if(|(at, _)| *at <= position) {
            raw.extend(doctest_item(settings, &discovery, path));
        }
        while let Some((_, file)) = opt_in.next_if(|(at, _)| *at <= position) {
            raw.extend(crate::opt_in::item(file));
        }
        while let Some((_, item)) = hooked.next_if(|(at, _)| *at <= position) {
            raw.push(item);
        }
        let path = discovery.test_files[position].as_path();
        if settings.import_mode != "importlib" && result.parsed {
            let dotted = test_names[position].0.as_str();
            match imported.get(dotted) {
                Some(first) if *first != path => {
                    collection
                        .errors
                        .push(import_mismatch(settings, dotted, first, path));
                    continue;
                }
                Some(_) => {}
                None => {
                    imported.insert(dotted, path);
                }
            }
        }
        raw.extend(result.items);
        collection.errors.extend(result.error);
        collection.skipped.extend(result.skipped);
    }
    for (_, path) in doctests {
        raw.extend(doctest_item(settings, &discovery, path));
    }
    for (_, file) in opt_in {
        raw.extend(crate::opt_in::item(file));
    }
    raw.extend(hooked.map(|(_, item)| item));
    collection.opt_in = discovery.opt_in.into_iter().map(|(_, file)| file).collect();
    if !settings.definitions_only {
        reorder::reorder_items(&mut raw);
    }
    (collection, raw)
}

/// `collect --json` spliced from fragments: the conftest hooks' items,
/// then per test module (with the doctest files and the items of conftest
/// `pytest_collect_file` hooks between them, `hooked`) its fragment, as
/// stored or rendered now, its error and its skip; the document, written
/// out of the fragments when asked. `None` when a fragment is damaged.
#[expect(clippy::too_many_arguments, reason = "the session's parts, borrowed")]
fn splice_document<'f>(
    settings: &CollectSettings,
    discovery: &Discovery,
    test_names: &[(String, String)],
    valid: &[Option<EntryRef<'f>>],
    outputs: &[Option<ModuleOutput>],
    fresh: &[Option<&'f [u8]>],
    session: &SessionEntry,
    hooked: &[(usize, RawItem)],
    errors: &[CollectError],
    header: &[u8],
) -> Option<fragment::Spliced<'f>> {
    let reordering = !settings.definitions_only;
    let session_fragment = fragment::render_items(&session.items);
    let doctests: Vec<(usize, Vec<u8>)> = discovery
        .doctest_files
        .iter()
        .filter_map(|(at, path)| {
            let item = doctest_item(settings, discovery, path)?;
            Some((*at, fragment::render(&[item], reordering, &|_| None)))
        })
        .collect();
    // One fragment per run of items at the same place.
    let hooked: Vec<(usize, Vec<u8>)> = hooked
        .chunk_by(|a, b| a.0 == b.0)
        .map(|run| {
            let items: Vec<RawItem> = run.iter().map(|(_, item)| item.clone()).collect();
            (run[0].0, fragment::render(&items, reordering, &|_| None))
        })
        .collect();
    let mut hooked = hooked.into_iter().peekable();
    let mut doc = fragment::Document::new();
    doc.module(Piece::Owned(session_fragment))?;
    doc.errors(errors);
    let mut doctests = doctests.into_iter().peekable();
    // As in the whole session's assembly: in pytest's default `prepend`
    // import mode, two test modules with the same dotted name cannot both
    // be imported.
    let mut imported: HashMap<&str, &Path> = HashMap::default();
    for position in 0..valid.len() {
        while let Some((_, item)) = doctests.next_if(|(at, _)| *at <= position) {
            doc.module(Piece::Owned(item))?;
        }
        while let Some((_, item)) = hooked.next_if(|(at, _)| *at <= position) {
            doc.module(Piece::Owned(item))?;
        }
        let path = discovery.test_files[position].as_path();
        let parsed = match (&outputs[position], valid[position]) {
            (Some(output), _) => output.parsed,
            (None, Some(entry)) => entry.has(flags::PARSED),
            (None, None) => return None,
        };
        if settings.import_mode != "importlib" && parsed {
            let dotted = test_names[position].0.as_str();
            match imported.get(dotted) {
                Some(first) if *first != path => {
                    doc.errors(&[import_mismatch(settings, dotted, first, path)]);
                    continue;
                }
                Some(_) => {}
                None => {
                    imported.insert(dotted, path);
                }
            }
        }
        match (&fresh[position], &outputs[position], valid[position]) {
            (Some(fragment), Some(output), _) => {
                doc.module(Piece::Borrowed(fragment))?;
                doc.errors(output.error.as_slice());
                if let Some(skipped) = &output.skipped {
                    doc.skipped_json(&serde_json::to_vec(skipped).ok()?);
                }
            }
            (None, _, Some(entry)) => {
                doc.module(Piece::Borrowed(entry.fragment))?;
                if let Some(error) = entry.error {
                    doc.error_json(error);
                }
                if let Some(skipped) = entry.skipped {
                    doc.skipped_json(skipped);
                }
            }
            _ => return None,
        }
    }
    for (_, item) in doctests {
        doc.module(Piece::Owned(item))?;
    }
    for (_, item) in hooked {
        doc.module(Piece::Owned(item))?;
    }
    Some(doc.finish(header, &session.warnings))
}

/// The digest of what a memo depends on that is known before discovery:
/// the context's settings (configuration, interpreter, proctor's build),
/// the arguments, the caller's rendering and the environment collection
/// reads. With it equal, the memo's watch list stands for the rest.
fn quick_digest(settings: &CollectSettings, paths: &[PathBuf], memo: Hash) -> Hash {
    let mut hasher = key::context(settings);
    hasher.str("quick");
    hasher.hash(memo);
    hasher.str(&format!("{paths:?}"));
    hasher.str(&format!("{:?}", std::env::var_os("PYTHONPATH")));
    hasher.finish()
}

/// Every file and directory whose `stat` data stand for what a collection
/// read before collecting: the directories discovery listed (a file added
/// or removed changes them), the arguments (and the folder of a missing
/// one), the test modules, doctest files, conftests and shared modules,
/// the directories the import resolver listed, and the recorded
/// expansions.
fn watch_paths(
    discovery: &Discovery,
    paths: &[PathBuf],
    slots: &[Slot],
    resolver: &Resolver,
    store: Option<&Store>,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = discovery.walked.clone();
    for path in paths {
        out.push(path.clone());
        // A missing argument appears in its folder (an existing one is
        // watched itself: its folder, often the busy `/tmp`, is not).
        if !path.exists() {
            out.extend(path.parent().map(Path::to_path_buf));
        }
    }
    out.extend(discovery.test_files.iter().cloned());
    out.extend(discovery.doctest_files.iter().map(|(_, path)| path.clone()));
    out.extend(discovery.conftests.values().cloned());
    out.extend(slots.iter().map(|s| s.path.clone()));
    out.extend(resolver.listed().map(PathBuf::from));
    out.extend(store.map(Store::recorded_path));
    out
}

/// `bytes` as text for the import scan: borrowed when they are UTF-8, as
/// nearly every file is (`from_utf8` checks that faster than the lossy
/// conversion does).
fn utf8_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    std::str::from_utf8(bytes).map_or_else(
        |_| String::from_utf8_lossy(bytes),
        std::borrow::Cow::Borrowed,
    )
}

/// The shared modules by path. Paths are keyed by their bytes: hashing a
/// `Path` walks its components, which costs more than the lookup it
/// serves, and every path here is joined from the same roots.
type ByPath<'f> = HashMap<&'f OsStr, usize>;

/// A file's bytes, or why they could not be read.
type FileBytes = Result<Vec<u8>, String>;

fn import_mismatch(
    settings: &CollectSettings,
    dotted: &str,
    first: &Path,
    path: &Path,
) -> CollectError {
    CollectError {
        file: settings.relative(path),
        line: 0,
        column: 0,
        message: format!(
            "import file mismatch:\nimported module '{dotted}' has this __file__ attribute:\n  {}\nwhich is not the same as the test file we want to collect:\n  {}\nHINT: remove __pycache__ / .pyc files and/or use a unique basename for your test file modules",
            first.display(),
            path.display()
        ),
    }
}

pub(crate) fn build_shared<'a>(
    sources: Vec<SourceRef<'a>>,
    names: &[(String, String)],
    python_version: Option<crate::settings::PythonVersion>,
) -> Shared<'a> {
    let modules: Vec<SharedModule<'a>> = sources
        .into_iter()
        .zip(names)
        .map(|(source, (dotted, package))| {
            SharedModule::new(source, dotted.clone(), package.clone())
        })
        .collect();
    let mut by_dotted = HashMap::default();
    for (idx, (dotted, _)) in names.iter().enumerate() {
        by_dotted.entry(dotted.clone()).or_insert(idx);
    }
    Shared {
        modules,
        by_dotted,
        python_version,
    }
}

/// Fixtures every test module sees: `pytest_plugins` modules and each
/// conftest's own, computed once.
struct SessionFixtures<'a> {
    plugins: Vec<Arc<[FixtureDef<'a>]>>,
    conftests: HashMap<usize, Arc<[FixtureDef<'a>]>>,
}

impl<'a> SessionFixtures<'a> {
    fn new(project: &Project<'_, 'a>, discovery: &Discovery, by_path: &ByPath<'_>) -> Self {
        let conftest_indices: Vec<usize> = discovery
            .conftests
            .values()
            .filter_map(|p| by_path.get(p.as_os_str()).copied())
            .collect();
        let conftests = conftest_indices
            .iter()
            .map(|&idx| {
                (
                    idx,
                    Fixtures::of_namespace(project, idx, &project.module(idx).ns, false).into(),
                )
            })
            .collect();
        // Modules named in a conftest's `pytest_plugins` are visible to the
        // whole session, registered before the conftests' own fixtures.
        let mut plugins = Vec::new();
        let mut seen = HashSet::default();
        for &idx in &conftest_indices {
            let Some(Binding::Value { expr, .. }) = project.module(idx).ns.get("pytest_plugins")
            else {
                continue;
            };
            for name in plugin_names(expr) {
                if let Some(plugin) = project.by_dotted(&name) {
                    if seen.insert(plugin) {
                        plugins.push(
                            Fixtures::of_namespace(
                                project,
                                plugin,
                                &project.module(plugin).ns,
                                false,
                            )
                            .into(),
                        );
                    }
                }
            }
        }
        SessionFixtures { plugins, conftests }
    }
}

/// Conftest hooks that create items: the items of a `pytest_collect_file`
/// proctor can follow (with the index in the test files each follows);
/// the others become dynamic items, `pytest_collection_modifyitems` a
/// warning.
fn conftest_hooks(
    settings: &CollectSettings,
    project: &Project<'_, '_>,
    discovery: &Discovery,
    by_path: &ByPath<'_>,
    collection: &mut Collection,
) -> Vec<(usize, RawItem)> {
    let hooks: Vec<(&Path, usize)> = discovery
        .conftests
        .iter()
        .filter_map(|(dir, c)| Some((dir.as_path(), *by_path.get(c.as_os_str())?)))
        .filter(|&(_, idx)| project.module(idx).ns.get("pytest_collect_file").is_some())
        .collect();
    let followed = crate::eval::collect_files(*project, settings, &hooks, &discovery.hook_files);
    for (dir, conftest) in &discovery.conftests {
        let Some(&idx) = by_path.get(conftest.as_os_str()) else {
            continue;
        };
        let ns = &project.module(idx).ns;
        let rel = settings.relative(conftest);
        for hook in [
            "pytest_collect_file",
            "pytest_pycollect_makeitem",
            "pytest_collect_directory",
            "pytest_pycollect_makemodule",
        ] {
            if ns.get(hook).is_some() {
                let reason = if hook == "pytest_collect_file" {
                    let h = hooks.iter().position(|&(_, i)| i == idx);
                    match followed.failed.iter().find(|(f, _)| Some(*f) == h) {
                        Some((_, reason)) => format!("{rel} defines `{hook}`, which proctor cannot follow statically: {reason}"),
                        None => continue,
                    }
                } else {
                    format!(
                        "{rel} defines `{hook}`: the items it creates are only known at run time"
                    )
                };
                let nodeid = settings.relative(dir);
                collection.items.push(Item {
                    nodeid: if nodeid == "." { String::new() } else { nodeid },
                    file: rel.clone(),
                    line: 0,
                    markers: Vec::new(),
                    dynamic: Some(reason),
                    decorators: Vec::new(),
                    skip: None,
                    markers_uncertain: None,
                });
            }
        }
        if ns.get("pytest_collection_modifyitems").is_some() {
            collection.warnings.push(CollectError {
                file: rel,
                line: 0,
                column: 0,
                message: "defines `pytest_collection_modifyitems`: pytest may reorder, deselect or re-mark items at run time".to_string(),
            });
        }
    }
    followed.items
}

/// What every test module of one directory shares: its conftests and the
/// fixtures they and the session's plugins define.
struct DirContext<'a> {
    chain: Vec<usize>,
    layers: Vec<Arc<[FixtureDef<'a>]>>,
}

/// The [`DirContext`] of each directory that holds test modules, and the
/// index of each test module's directory among them: computed once per
/// directory rather than once per module.
fn dir_contexts<'a>(
    settings: &CollectSettings,
    discovery: &Discovery,
    session: &SessionFixtures<'a>,
    by_path: &ByPath<'_>,
) -> (Vec<DirContext<'a>>, Vec<usize>) {
    let mut dirs = Vec::new();
    let mut index: HashMap<&OsStr, usize> = HashMap::default();
    let dir_of = discovery
        .test_files
        .iter()
        .map(|path| {
            let dir = path.parent().unwrap_or(path);
            *index.entry(dir.as_os_str()).or_insert_with(|| {
                let chain = conftest_chain(settings, dir, &discovery.conftests, by_path);
                let mut layers = session.plugins.clone();
                layers.extend(chain.iter().map(|c| {
                    session
                        .conftests
                        .get(c)
                        .cloned()
                        .unwrap_or_else(|| Arc::new([]))
                }));
                dirs.push(DirContext { chain, layers });
                dirs.len() - 1
            })
        })
        .collect();
    (dirs, dir_of)
}

/// Why `path` (or a directory above it) is ignored only under a condition,
/// if it is; nothing to look up in the common case of no such conftest.
fn conditional_reason(
    settings: &CollectSettings,
    path: &Path,
    discovery: &Discovery,
) -> Option<String> {
    if discovery.conditional.is_empty() {
        return None;
    }
    path.ancestors()
        .take_while(|p| p.starts_with(&settings.rootdir))
        .find_map(|p| discovery.conditional.get(p).cloned())
}

/// Collects one test module (module index `idx` in `project`) of the
/// directory `dir`.
fn collect_module<'a>(
    settings: &CollectSettings,
    project: &Project<'_, 'a>,
    idx: usize,
    discovery: &Discovery,
    dir: &DirContext<'a>,
) -> ModuleOutput {
    let module = project.module(idx);
    if let Some(error) = &module.file.error {
        return ModuleOutput {
            items: Vec::new(),
            error: Some(error.clone()),
            skipped: None,
            parsed: false,
        };
    }
    let mut uncertain = None;
    match crate::module_skip::module_stop(project, idx, settings) {
        Some(crate::module_skip::ModuleStop::Skip(reason, offset)) => {
            let skip = CollectError {
                file: module.file.rel.clone(),
                line: module.file.line_of(offset),
                column: 0,
                message: reason,
            };
            return ModuleOutput {
                items: Vec::new(),
                error: None,
                skipped: Some(skip),
                parsed: true,
            };
        }
        Some(crate::module_skip::ModuleStop::Missing(name)) => {
            let message = format!(
                "ImportError while importing test module '{}'.\nModuleNotFoundError: No module named '{name}'",
                module.file.path.display()
            );
            let error = CollectError {
                file: module.file.rel.clone(),
                line: 0,
                column: 0,
                message,
            };
            return ModuleOutput {
                items: Vec::new(),
                error: Some(error),
                skipped: None,
                parsed: true,
            };
        }
        Some(crate::module_skip::ModuleStop::Uncertain(name)) => {
            uncertain = Some(format!("the module imports `{name}`, which is not installed, under a condition known only at run time"));
        }
        None => {}
    }
    let chain = &dir.chain;
    let mut layers = dir.layers.clone();
    layers.push(Fixtures::of_namespace(project, idx, &module.ns, false).into());
    let mut module_dynamic =
        conditional_reason(settings, &module.file.path, discovery).or(uncertain);
    for &c in chain.iter().chain(std::iter::once(&idx)) {
        if module_dynamic.is_none() && project.module(c).ns.get("pytest_generate_tests").is_some() {
            module_dynamic = Some(format!(
                "{} defines `pytest_generate_tests`: parametrization happens at run time",
                project.module(c).file.rel
            ));
        }
    }
    let mut doc_item = None;
    if settings.doctest_modules && module.file.text().contains(">>>") {
        doc_item = Some(RawItem {
            facts: ItemFacts {
                dynamic: Some(
                    "--doctest-modules: docstring doctests are found at run time".to_string(),
                ),
                ..ItemFacts::default()
            }
            .shared(),
            ..RawItem::of_file(module.file.rel.clone(), module.file.rel.as_str().into())
        });
    }
    let collector =
        ModuleCollector::new(project, settings, idx, Fixtures { layers }, module_dynamic);
    match collector.collect() {
        Ok(mut items) => {
            items.extend(doc_item);
            ModuleOutput {
                items,
                error: None,
                skipped: None,
                parsed: true,
            }
        }
        Err(collector::ModuleError(error)) => ModuleOutput {
            items: Vec::new(),
            error: Some(error),
            skipped: None,
            parsed: true,
        },
    }
}

/// The one item pytest's doctest plugin makes of a text file with examples.
/// (Discovery read its text: see [`Discovery::with_examples`].)
fn doctest_item(settings: &CollectSettings, discovery: &Discovery, path: &Path) -> Option<RawItem> {
    if !discovery.with_examples.contains(path) {
        return None;
    }
    let rel = settings.relative(path);
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(RawItem::of_file(
        format!("{rel}::{name}"),
        rel.as_str().into(),
    ))
}

/// Conftest modules from the rootdir down to `dir`.
fn conftest_chain(
    settings: &CollectSettings,
    dir: &Path,
    conftests: &BTreeMap<PathBuf, PathBuf>,
    by_path: &ByPath<'_>,
) -> Vec<usize> {
    // The directory and those above it up to the rootdir: one component
    // comparison, not one per directory.
    let depth = dir
        .strip_prefix(&settings.rootdir)
        .map_or(0, |rel| rel.components().count() + 1);
    let mut dirs: Vec<&Path> = dir.ancestors().take(depth).collect();
    dirs.reverse();
    dirs.into_iter()
        .filter_map(|d| conftests.get(d))
        .filter_map(|c| by_path.get(c.as_os_str()).copied())
        .collect()
}

/// Absolute module names a module imports (module level and class bodies).
pub(crate) fn imported_modules(body: &[Stmt], package: &str) -> Vec<String> {
    let mut out = Vec::new();
    for stmt in body {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    out.push(alias.name.id.as_str().to_string());
                }
            }
            Stmt::ImportFrom(import) => {
                let base = absolute_module(
                    package,
                    import.level,
                    import.module.as_ref().map(|m| m.id.as_str()),
                );
                for alias in &import.names {
                    if alias.name.id.as_str() != "*" {
                        out.push(if base.is_empty() {
                            alias.name.id.as_str().to_string()
                        } else {
                            format!("{base}.{}", alias.name.id.as_str())
                        });
                    }
                }
                out.push(base);
            }
            Stmt::If(s) => {
                out.extend(imported_modules(&s.body, package));
                for clause in &s.elif_else_clauses {
                    out.extend(imported_modules(&clause.body, package));
                }
            }
            Stmt::Try(s) => {
                out.extend(imported_modules(&s.body, package));
                out.extend(imported_modules(&s.orelse, package));
                for handler in &s.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                    out.extend(imported_modules(&h.body, package));
                }
            }
            Stmt::ClassDef(c) => out.extend(imported_modules(&c.body, package)),
            Stmt::Assign(assign) => {
                let is_plugins = assign
                    .targets
                    .iter()
                    .any(|t| matches!(t, ruff_python_ast::Expr::Name(n) if n.id.as_str() == "pytest_plugins"));
                if is_plugins {
                    out.extend(plugin_names(&assign.value));
                }
                crate::eval::named_submodules(&assign.value, package, &mut out);
            }
            _ => {}
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// The module names of a literal `pytest_plugins` value.
fn plugin_names(value: &ruff_python_ast::Expr) -> Vec<String> {
    use ruff_python_ast::Expr;
    match value {
        Expr::StringLiteral(s) => vec![s.value.to_str().to_string()],
        Expr::List(list) => list.elts.iter().flat_map(plugin_names).collect(),
        Expr::Tuple(tuple) => tuple.elts.iter().flat_map(plugin_names).collect(),
        _ => Vec::new(),
    }
}

/// One test module collected anew: its index, its output, its cache
/// entry (by path) when the cache is on, its fragment when it has no entry,
/// and whether a parameter's key spans modules.
type Collected = (
    usize,
    ModuleOutput,
    Option<FreshEntry>,
    Option<Vec<u8>>,
    bool,
);

/// How a test module is collected: as one of the shared modules, or
/// parsed from its bytes for this task only.
enum Task {
    Shared(usize),
    Local(FileBytes),
}

/// What the session needs of one test module before collecting anything:
/// its content hash and the modules it may import, and its bytes when
/// they were read.
struct TestFacts {
    hash: Hash,
    scan: Vec<String>,
    bytes: Option<FileBytes>,
    stamp: Option<(PathBuf, Stamp)>,
}

/// The [`TestFacts`] of `path`: from its stamp when the cache has a fresh
/// one, else from its bytes.
fn test_facts(
    settings: &CollectSettings,
    store: Option<&Store>,
    path: &Path,
    package: &str,
) -> TestFacts {
    if let Some(stamp) = store.and_then(|s| s.fresh_stamp(path)) {
        if let Some((scanned_for, scan)) = &stamp.scan {
            if scanned_for == package {
                return TestFacts {
                    hash: stamp.hash,
                    scan: scan.clone(),
                    bytes: None,
                    stamp: None,
                };
            }
        }
    }
    let (stat, bytes) = read_stat_bytes(settings, store, path);
    let scan = bytes.as_ref().map_or_else(
        |_| Vec::new(),
        |bytes| scan_imports(&utf8_text(bytes), package),
    );
    let hash = if store.is_some() {
        key::content(&bytes)
    } else {
        0
    };
    // A file that could not be read (or was over `max-file-size`, which
    // the next run may not have) gets no stamp: it is read every time.
    let stamp = store.filter(|_| bytes.is_ok()).map(|_| {
        (
            path.to_path_buf(),
            Stamp {
                stat,
                hash,
                scan: Some((package.to_string(), scan.clone())),
                imports: None,
            },
        )
    });
    TestFacts {
        hash,
        scan,
        bytes: Some(bytes),
        stamp,
    }
}

/// One shared module: parsed, or (from a fresh stamp) only its hash and
/// imports until collection needs it parsed.
struct Slot {
    path: PathBuf,
    file: Option<ParsedFile>,
    /// The bytes read for the import scan, when it was enough.
    bytes: Option<FileBytes>,
    /// Ranges of `bytes` the parse leaves out (see
    /// [`crate::source::Elided`]), or of the bytes scanned and let go,
    /// whose hash is `scanned`.
    elide: Vec<(u32, u32)>,
    scanned: Option<u64>,
    /// A source module (not a test module or a conftest): its tree drops
    /// its function bodies (see [`crate::bodies`]).
    source: bool,
    hash: Hash,
    imports: Vec<String>,
}

impl Slot {
    /// The module's file, parsed on first use; read then, when it was not
    /// read yet (checked then against the hash the context was computed
    /// with).
    fn load(self, settings: &CollectSettings, cached: bool) -> LazyFile {
        if let Some(file) = self.file {
            return LazyFile::parsed(file);
        }
        let rel = settings.relative(&self.path);
        let expect = (cached && self.bytes.is_none()).then_some(self.hash);
        LazyFile::new(self.path, rel, settings.max_file_size, self.bytes, expect)
            .eliding(self.elide, self.scanned)
            .stripping(self.source)
    }
}

/// The size from which a source module's bytes, read for its import scan,
/// are not kept until it is parsed.
const LET_GO_SIZE: usize = 16 * 1024;

/// The shared modules reachable from `wanted` and from the imports of
/// `slots`, each scanned ([`shared_slot`]) on a worker as soon as the main
/// thread, which resolves imports, finds it, by path with the dotted name
/// it was found under. `known`: the files already known (`wanted`'s
/// among them).
#[expect(clippy::too_many_arguments, reason = "the session's parts, borrowed")]
fn scan_reachable(
    settings: &CollectSettings,
    store: Option<&Store>,
    resolver: &mut Resolver,
    roots: &[PathBuf],
    known: &HashSet<OsString>,
    wanted: &[(PathBuf, String)],
    slots: &[Slot],
    test_paths: &HashSet<&OsStr>,
) -> HashMap<OsString, (String, (Slot, Option<Stamp>))> {
    type Scanned = (PathBuf, String, std::thread::Result<(Slot, Option<Stamp>)>);
    let mut known = known.clone();
    let mut out = HashMap::default();
    rayon::in_place_scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::channel::<Scanned>();
        let pending = std::cell::Cell::new(0usize);
        let mut spawn = |path: PathBuf, dotted: String| {
            let sender = sender.clone();
            pending.set(pending.get() + 1);
            scope.spawn(move |_| {
                let source = !test_paths.contains(path.as_os_str());
                let package = package_of(&path, &dotted);
                // A panic is sent too, so that the main thread never waits
                // for a scan that will not come.
                let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    shared_slot(settings, store, &path, &package, source)
                }));
                let _ = sender.send((path, dotted, made));
            });
        };
        for (path, dotted) in wanted {
            spawn(path.clone(), dotted.clone());
        }
        let mut follow = |imports: &[String], spawn: &mut dyn FnMut(PathBuf, String)| {
            for dotted in imports {
                let found = resolver.find_module(roots, dotted);
                for (file, name) in newly_found(&mut known, &found) {
                    spawn(file.clone(), name.clone());
                }
            }
        };
        for slot in slots {
            follow(&slot.imports, &mut spawn);
        }
        while pending.get() > 0 {
            // On a worker of rayon's (a caller's parallel loop), a scan
            // waiting in this worker's queue is run here, not waited for.
            let next = match receiver.try_recv() {
                Err(std::sync::mpsc::TryRecvError::Empty) => match rayon::yield_now() {
                    Some(rayon::Yield::Executed) => continue,
                    // Every scan left runs elsewhere, or is done.
                    Some(rayon::Yield::Idle) | None => receiver.recv().ok(),
                },
                ready => ready.ok(),
            };
            let Some((path, dotted, made)) = next else {
                break;
            };
            pending.set(pending.get() - 1);
            let made = made.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            follow(&made.0.imports, &mut spawn);
            out.insert(path.into_os_string(), (dotted, made));
        }
    });
    out
}

/// The files of `found` that are not in `known`, each added to it as it is
/// given (a module found again allocates nothing).
fn newly_found<'f>(
    known: &'f mut HashSet<OsString>,
    found: &'f [(PathBuf, String)],
) -> impl Iterator<Item = &'f (PathBuf, String)> + 'f {
    found.iter().filter(move |(file, _)| {
        !known.contains(file.as_os_str()) && known.insert(file.clone().into_os_string())
    })
}

/// A file's bytes and, with the cache, its `stat` data, taken on the open
/// file before it is read: a change while reading leaves a stamp older
/// than the bytes, which the next run reads again.
fn read_stat_bytes(
    settings: &CollectSettings,
    store: Option<&Store>,
    path: &Path,
) -> (Option<StatData>, Result<Vec<u8>, String>) {
    let mut stat = None;
    let bytes = crate::source::read_bytes_with(path, settings.max_file_size, |meta| {
        stat = store.and_then(|_| StatData::of_metadata(meta));
    });
    (stat, bytes)
}

/// The [`Slot`] of a shared module, and its new stamp when it was read.
/// The parse of a `source` module (not a test module) may leave class
/// attribute values out.
fn shared_slot(
    settings: &CollectSettings,
    store: Option<&Store>,
    path: &Path,
    package: &str,
    source: bool,
) -> (Slot, Option<Stamp>) {
    if let Some(stamp) = store.and_then(|s| s.fresh_stamp(path)) {
        if let Some((parsed_for, imports)) = &stamp.imports {
            if parsed_for == package {
                let slot = Slot {
                    path: path.to_path_buf(),
                    file: None,
                    bytes: None,
                    elide: Vec::new(),
                    scanned: None,
                    source,
                    hash: stamp.hash,
                    imports: imports.clone(),
                };
                return (slot, None);
            }
        }
    }
    let (stat, bytes) = read_stat_bytes(settings, store, path);
    let hash = if store.is_some() {
        key::content(&bytes)
    } else {
        0
    };
    let readable = bytes.is_ok();
    // The import scan reads what the walk of the syntax tree would find,
    // without parsing; where it cannot tell, the module is parsed now.
    let scanned = bytes
        .as_ref()
        .ok()
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|text| scan_module(text, package));
    let (file, bytes, imports, elide, scanned) = if let Some(scan) = scanned {
        let elide = if source { scan.elidable } else { Vec::new() };
        // A large source module's bytes are let go and read again if it
        // is parsed: many are read only for their imports (pygments'
        // `_*_builtins` data modules), and held they outweighed the
        // second read of those that are parsed.
        match bytes {
            Ok(kept) if source && kept.len() >= LET_GO_SIZE => {
                let hash = crate::source::bytes_hash(&kept);
                (None, None, scan.imports, elide, Some(hash))
            }
            bytes => (None, Some(bytes), scan.imports, elide, None),
        }
    } else {
        // Parsed now, a source module drops its bodies and text as a
        // lazily parsed one does (its imports are at module and class
        // level).
        let strip = source.then_some(settings.max_file_size);
        let file = ParsedFile::parse_eliding(path, settings.relative(path), bytes, &[], strip);
        let imports = file
            .ast
            .as_ref()
            .map_or_else(Vec::new, |ast| imported_modules(&ast.body, package));
        (Some(file), None, imports, Vec::new(), None)
    };
    let stamp = store.filter(|_| readable).map(|_| Stamp {
        stat,
        hash,
        scan: None,
        imports: Some((package.to_string(), imports.clone())),
    });
    let slot = Slot {
        path: path.to_path_buf(),
        file,
        bytes,
        elide,
        scanned,
        source,
        hash,
        imports,
    };
    (slot, stamp)
}

/// A conftest's hash: discovery read it already, so its text and any
/// error stand for its bytes.
fn conftest_hash(file: &ParsedFile) -> Hash {
    let mut hasher = key::Hasher::new();
    hasher.str("conftest");
    hasher.str(&file.source.text);
    hasher.str(&format!("{:?}", file.error));
    hasher.finish()
}

/// The hash of everything a test module's result depends on besides its
/// own bytes and the file-system answers it records: the settings, the
/// conftests found and the files they ignore under a condition, and every
/// shared module (name, package, content) in the order they are loaded.
fn context_hash(
    settings: &CollectSettings,
    discovery: &Discovery,
    slots: &[Slot],
    names: &[(String, String)],
) -> Hash {
    let mut hasher = key::context(settings);
    hasher.str(&format!("{:?}", discovery.conftests));
    let mut conditional: Vec<_> = discovery.conditional.iter().collect();
    conditional.sort();
    hasher.str(&format!("{conditional:?}"));
    for (slot, (dotted, package)) in slots.iter().zip(names) {
        hasher.path(&slot.path);
        hasher.str(dotted);
        hasher.str(package);
        hasher.hash(slot.hash);
    }
    hasher.finish()
}

/// The key of one test module in `context`.
fn module_key(context: Hash, path: &Path, dotted: &str, package: &str, hash: Hash) -> Hash {
    let mut hasher = key::Hasher::new();
    hasher.hash(context);
    hasher.path(path);
    hasher.str(dotted);
    hasher.str(package);
    hasher.hash(hash);
    hasher.finish()
}

/// The key a module's recorded expansions are stored under: its key in
/// the context (its bytes, everything it resolves against) and its static
/// result's items, so that a change of what the file system answered it
/// (an optional module installed) that changes them drops the recording.
pub(crate) fn record_key(key: Hash, output: &ModuleOutput) -> Hash {
    let mut hasher = key::Hasher::new();
    hasher.str("recorded");
    hasher.hash(key);
    for item in &output.items {
        hasher.str(&item.nodeid);
        hasher.str(item.dynamic().unwrap_or(""));
    }
    hasher.str(&format!("{:?}{:?}", output.error, output.skipped));
    hasher.finish()
}

/// Replaces each dynamic item of `output` that `module` recorded with the
/// items pytest collected for it (static now, with the dynamic item's
/// file, line and markers), noting the function in `recorded`.
fn apply_recorded(
    output: &mut ModuleOutput,
    module: &store::RecordedModule,
    recorded: &mut BTreeMap<String, String>,
) {
    let recorded_here =
        |item: &RawItem| item.dynamic().is_some() && module.functions.contains_key(&item.nodeid);
    if !output.items.iter().any(recorded_here) {
        return;
    }
    let mut items = Vec::with_capacity(output.items.len());
    for item in std::mem::take(&mut output.items) {
        if !recorded_here(&item) {
            items.push(item);
            continue;
        }
        let ids = &module.functions[&item.nodeid];
        let static_facts = item.facts.as_deref().and_then(|facts| {
            ItemFacts {
                dynamic: None,
                ..facts.clone()
            }
            .shared()
        });
        recorded.insert(item.nodeid.clone(), module.run.clone());
        for id in ids {
            items.push(RawItem {
                nodeid: id.clone(),
                high_params: Vec::new(),
                facts: static_facts.clone(),
                ..item.clone()
            });
        }
    }
    output.items = items;
}

/// The cached entry of each test module whose entry has its key, is
/// intact, and whose recorded file-system answers still hold (each
/// distinct probe is asked once); and the probes that held.
fn cached_entries<'p>(
    files: &[PathBuf],
    keys: &[Hash],
    entries: &HashMap<&str, EntryRef<'p>>,
) -> (Vec<Option<EntryRef<'p>>>, Vec<probe::Probe>) {
    let found: Vec<Option<(EntryRef<'p>, Vec<probe::Probe>)>> = files
        .par_iter()
        .zip(keys.par_iter())
        .map(|(path, &key)| {
            let entry = *entries.get(path.to_str()?)?;
            if entry.key != key || !entry.intact() {
                return None;
            }
            Some((entry, entry.probes()?))
        })
        .collect();
    let probes: HashSet<&probe::Probe> = found
        .iter()
        .flatten()
        .flat_map(|(_, probes)| probes.iter())
        .collect();
    let failed: HashSet<&probe::Probe> =
        probes.par_iter().copied().filter(|p| !p.holds()).collect();
    let held: Vec<probe::Probe> = probes
        .iter()
        .filter(|p| !failed.contains(*p))
        .map(|p| (*p).clone())
        .collect();
    let valid = found
        .iter()
        .map(|found| {
            let (entry, probes) = found.as_ref()?;
            (!probes.iter().any(|p| failed.contains(p))).then_some(*entry)
        })
        .collect();
    (valid, held)
}

/// Collects a test module nothing imports: parsed for this task only and
/// dropped when its items are made.
fn collect_local(
    settings: &CollectSettings,
    shared: &Shared<'_>,
    path: &Path,
    ((dotted, package), bytes): ((&str, &str), FileBytes),
    discovery: &Discovery,
    dir: &DirContext<'_>,
) -> ModuleOutput {
    let file = ParsedFile::parse(path, settings.relative(path), bytes);
    let body: &[Stmt] = file.ast.as_ref().map_or(&[], |a| a.body.as_slice());
    let module = Module {
        file: &file,
        dotted: dotted.to_string(),
        package: package.to_string(),
        ns: Namespace::build(body, package),
    };
    let classes = project::class_tables(&module);
    let local = Project::new(
        shared,
        Some(Local {
            module: &module,
            classes: &classes,
        }),
    );
    collect_module(settings, &local, local.local_index(), discovery, dir)
}
