//! `proctor check`'s engine: rules over collected items, their effective
//! markers and the taxonomy, producing [`Diagnostic`]s.
//!
//! Every rule lives in its own file under `rules/<group>/`, with its
//! documentation (what it does, why, example, use instead) as a `DOC`
//! constant that `proctor rule CODE` prints; [`RULES`] is the one table that
//! maps stable codes to rules. [`check`] runs the enabled rules over every
//! item, reports a marker written once on a class or module once (findings
//! are deduplicated by code and location), drops findings suppressed with a
//! `# proctor: ignore[CODE]` comment on their line, and sorts the rest.
//!
//! Most rules look at one item at a time; suite-level rules (marker
//! registration, configuration files, layout conventions) look at the whole
//! collection and the configuration once. [`check_suite`] runs both kinds;
//! [`check`] only the item rules, for callers without a configuration.

mod baseline;
mod context;
mod error;
mod fix_safety;
mod registry;
mod rules;
mod selection;
mod suppression;

use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use proctor_config::Settings;
use proctor_python::{Collection, Item};
use proctor_source::{Diagnostic, LineColumn, Sources};
use proctor_taxonomy::Taxonomy;
use rayon::prelude::*;

pub use baseline::{Baseline, BASELINE_VERSION};
pub use error::LintError;
pub use registry::{rule, Rule, RULES};
pub use selection::{PerFileIgnores, RuleSelection, SelectorLayer};

use context::{ItemContext, Sink, SuiteContext};
use registry::Check;

/// Checks `items` against `taxonomy` with the item rules `selection`
/// enables. Reads the files the items and their markers are written in into
/// `sources` (once each), which the renderers then draw code frames from.
#[must_use]
pub fn check(
    items: &[Item],
    taxonomy: &Taxonomy,
    selection: &RuleSelection,
    sources: &mut Sources,
) -> Vec<Diagnostic> {
    run(items, &[], &[], None, taxonomy, selection, sources)
}

/// Like [`check`] over the collection's items, and also runs the
/// suite-level rules over the whole collection and `settings`; reads the
/// configuration files they point into. `plugins` are the source files of
/// the installed pytest plugins: the markers they register with
/// `addinivalue_line` count as registered, like the conftests'. The
/// collection may hold test definitions rather than pytest's items
/// (`definitions_only`): findings are the same.
#[must_use]
pub fn check_suite(
    collection: &Collection,
    plugins: &[std::path::PathBuf],
    settings: &Settings,
    taxonomy: &Taxonomy,
    selection: &RuleSelection,
    sources: &mut Sources,
) -> Vec<Diagnostic> {
    let registering: Vec<std::path::PathBuf> = collection
        .conftests
        .iter()
        .chain(plugins)
        .cloned()
        .collect();
    run(
        &collection.items,
        &registering,
        &collection.opt_in,
        Some(settings),
        taxonomy,
        selection,
        sources,
    )
}

fn run(
    items: &[Item],
    conftests: &[std::path::PathBuf],
    opt_in: &[proctor_python::OptInFile],
    settings: Option<&Settings>,
    taxonomy: &Taxonomy,
    selection: &RuleSelection,
    sources: &mut Sources,
) -> Vec<Diagnostic> {
    // Files are read when a rule or a renderer first needs them: a clean
    // file is never read again after collection.
    // Items come in runs of one file: announce each file once per run.
    let mut last: Option<&str> = None;
    for item in items {
        if last != Some(item.file.as_str()) {
            sources.load(&item.file);
            last = Some(&item.file);
        }
        for marker in &item.markers {
            // Marks written in another file: a base class's, a module's.
            if let Some(location) = marker.location.as_ref().filter(|l| l.file != item.file) {
                sources.load(&location.file);
            }
        }
    }
    if let Some(settings) = settings {
        let rootdir = &settings.pytest.rootdir;
        let files = settings
            .pytest
            .inifile
            .iter()
            .chain(&settings.proctor_file)
            .chain(settings.warnings.iter().map(|w| &w.path));
        for file in files {
            if let Ok(relative) = file.strip_prefix(rootdir) {
                sources.load(&relative.to_string_lossy().replace('\\', "/"));
            }
        }
        for file in opt_in
            .iter()
            .filter(|f| f.nodeid.is_none() || !f.problems.is_empty())
        {
            sources.load(&file.file);
        }
    }
    let enabled: Vec<&'static Rule> = RULES
        .iter()
        .filter(|rule| selection.enabled(rule.code))
        .collect();
    let sources: &Sources = sources;
    // Items are independent: the effective markers of each distinct item
    // are computed once, in parallel, and shared by every rule.
    let distinct = distinct(items);
    let linted: Vec<Linted<'_>> = distinct
        .par_iter()
        .map(|&item| (item, taxonomy.effective(item)))
        .collect();
    // Item rules, in parallel chunks so that each thread reuses its
    // buffer; deduplicated in item order below. Each item's fixes are
    // checked together: they are kept only if they leave its effective
    // markers as they are.
    let mut found: Vec<Vec<Diagnostic>> = linted
        .par_chunks(256)
        .map(|chunk| {
            let mut found = Vec::new();
            for (item, effective) in chunk {
                let cx = ItemContext::new(item, effective, taxonomy, sources);
                let first = found.len();
                for rule in &enabled {
                    if let Check::Item(check) = rule.check {
                        check(&cx, &mut Sink::new(rule, &mut found));
                    }
                }
                let own = &mut found[first..];
                let edits: Vec<&proctor_source::Edit> = own
                    .iter()
                    .filter_map(|d| d.fix.as_ref())
                    .flat_map(|f| &f.edits)
                    .collect();
                if !edits.is_empty()
                    && !fix_safety::edits_keep_effective(item, effective, &edits, taxonomy)
                {
                    for diagnostic in own.iter_mut() {
                        diagnostic.fix = None;
                    }
                }
            }
            found
        })
        .collect();
    if let Some(settings) = settings {
        let cx = SuiteContext {
            items,
            conftests,
            opt_in,
            linted: &linted,
            known: std::sync::OnceLock::new(),
            used: std::sync::OnceLock::new(),
            settings,
            taxonomy,
            sources,
        };
        let mut suite = Vec::new();
        for rule in &enabled {
            if let Check::Suite(check) = rule.check {
                check(&cx, &mut Sink::new(rule, &mut suite));
            }
        }
        found.push(suite);
    }
    // A finding reported for several items (a class's marker) keeps its
    // fix only when the fix was safe for every one of them.
    let mut seen: HashMap<(&'static str, String, LineColumn, LineColumn), usize> =
        HashMap::default();
    let mut unique: Vec<Diagnostic> = Vec::new();
    for diagnostic in found.into_iter().flatten() {
        match seen.entry((
            diagnostic.code,
            diagnostic.file.clone(),
            diagnostic.start,
            diagnostic.end,
        )) {
            Entry::Occupied(at) => {
                let kept = &mut unique[*at.get()];
                if kept.fix != diagnostic.fix {
                    kept.fix = None;
                }
            }
            Entry::Vacant(at) => {
                at.insert(unique.len());
                unique.push(diagnostic);
            }
        }
    }
    // Suppression comments are read from the files with findings, which
    // may not have been read yet: in parallel.
    let mut diagnostics: Vec<Diagnostic> = unique
        .into_par_iter()
        .filter(|d| !suppression::suppressed(d, sources))
        .map(|mut d| {
            if let Some(source) = sources.get(&d.file) {
                d.locate(source);
            }
            d
        })
        .collect();
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    // Every item's effective markers are freed on the pool's threads: on
    // this thread alone, that is a share of the sequential time.
    linted.into_par_iter().for_each(drop);
    diagnostics
}

/// An item and its effective markers.
pub(crate) type Linted<'a> = (&'a Item, proctor_taxonomy::Effective);

/// The items that can have findings of their own, in order: the instances
/// of a parametrized test share its definition, name, markers and
/// decorators (the same `Arc`s) and so its findings, except for instances
/// with marks of their own (`pytest.param(..., marks=...)`), which differ
/// in their marker list. One of each is enough. Only neighbours are
/// compared (pytest's order may separate instances): a repeat that is not
/// caught here is linted again, and its findings are deduplicated with
/// the others.
fn distinct(items: &[Item]) -> Vec<&Item> {
    fn function(item: &Item) -> &str {
        proctor_python::function_nodeid(&item.nodeid)
    }
    fn same(a: &Item, b: &Item) -> bool {
        a.file == b.file
            && a.line == b.line
            && a.dynamic == b.dynamic
            && a.markers.len() == b.markers.len()
            && a.markers
                .iter()
                .zip(&b.markers)
                .all(|(x, y)| Arc::ptr_eq(x, y))
            && a.decorators.len() == b.decorators.len()
            && a.decorators
                .iter()
                .zip(&b.decorators)
                .all(|(x, y)| Arc::ptr_eq(x, y))
    }
    let mut kept: Vec<&Item> = Vec::with_capacity(items.len());
    // Where the kept items of the current function begin.
    let mut run = 0;
    for item in items {
        if kept
            .last()
            .is_some_and(|last| function(last) != function(item))
        {
            run = kept.len();
        }
        if !kept[run..].iter().any(|k| same(k, item)) {
            kept.push(item);
        }
    }
    kept
}
