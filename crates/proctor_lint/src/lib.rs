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

mod context;
mod error;
mod registry;
mod rules;
mod selection;
mod suppression;

use std::collections::HashSet;

use proctor_config::Settings;
use proctor_python::Item;
use rayon::prelude::*;
use proctor_source::{Diagnostic, Sources};
use proctor_taxonomy::Taxonomy;

pub use error::LintError;
pub use registry::{rule, Rule, RULES};
pub use selection::RuleSelection;

use context::{ItemContext, Sink, SuiteContext};
use registry::Check;

/// Checks `items` against `taxonomy` with the item rules `selection`
/// enables. Reads the files the items and their markers are written in into
/// `sources` (once each), which the renderers then draw code frames from.
#[must_use]
pub fn check(items: &[Item], taxonomy: &Taxonomy, selection: &RuleSelection, sources: &mut Sources) -> Vec<Diagnostic> {
    run(items, None, taxonomy, selection, sources)
}

/// Like [`check`], and also runs the suite-level rules over the whole
/// collection and `settings`; reads the configuration files they point into.
#[must_use]
pub fn check_suite(items: &[Item], settings: &Settings, taxonomy: &Taxonomy, selection: &RuleSelection, sources: &mut Sources) -> Vec<Diagnostic> {
    run(items, Some(settings), taxonomy, selection, sources)
}

fn run(items: &[Item], settings: Option<&Settings>, taxonomy: &Taxonomy, selection: &RuleSelection, sources: &mut Sources) -> Vec<Diagnostic> {
    for item in items {
        sources.load(&item.file);
        for marker in &item.markers {
            if let Some(location) = &marker.location {
                sources.load(&location.file);
            }
        }
    }
    if let Some(settings) = settings {
        let rootdir = &settings.pytest.rootdir;
        let files = settings.pytest.inifile.iter().chain(&settings.proctor_file).chain(settings.warnings.iter().map(|w| &w.path));
        for file in files {
            if let Ok(relative) = file.strip_prefix(rootdir) {
                sources.load(&relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let enabled: Vec<&'static Rule> = RULES.iter().filter(|rule| selection.enabled(rule.code)).collect();
    let sources: &Sources = sources;
    // Items are independent: check them in parallel, in chunks so that
    // each thread reuses its buffer, then deduplicate in item order.
    let mut found: Vec<Vec<Diagnostic>> = items
        .par_chunks(256)
        .map(|chunk| {
            let mut found = Vec::new();
            for item in chunk {
                let effective = taxonomy.effective(item);
                let cx = ItemContext::new(item, &effective, taxonomy, sources);
                for rule in &enabled {
                    if let Check::Item(check) = rule.check {
                        check(&cx, &mut Sink::new(rule, &mut found));
                    }
                }
            }
            found
        })
        .collect();
    if let Some(settings) = settings {
        let cx = SuiteContext { items, known: std::sync::OnceLock::new(), used: std::sync::OnceLock::new(), settings, taxonomy, sources };
        let mut suite = Vec::new();
        for rule in &enabled {
            if let Check::Suite(check) = rule.check {
                check(&cx, &mut Sink::new(rule, &mut suite));
            }
        }
        found.push(suite);
    }
    let mut diagnostics = Vec::new();
    let mut seen = HashSet::new();
    for diagnostic in found.into_iter().flatten() {
        let key = (diagnostic.code, diagnostic.file.clone(), diagnostic.start, diagnostic.end);
        if seen.insert(key) && !suppression::suppressed(&diagnostic, sources) {
            diagnostics.push(diagnostic);
        }
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diagnostics
}
