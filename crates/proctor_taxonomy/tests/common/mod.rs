//! Helpers shared by the integration tests: a taxonomy read from a real
//! `proctor.toml`, items built by hand, and a one-line-per-marker view of
//! effective markers.

// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use proctor_python::{Item, Marker, MarkerSource};
use proctor_taxonomy::{Effective, Provenance, Taxonomy};

/// Reads `text` as the `proctor.toml` of a project and compiles its
/// taxonomy, so that every configuration in these tests goes through the
/// real loader and its validation.
pub(crate) fn taxonomy(text: &str) -> Taxonomy {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    taxonomy_in(dir.path(), text)
}

/// Like [`taxonomy`], in an existing project directory.
pub(crate) fn taxonomy_in(root: &Path, text: &str) -> Taxonomy {
    std::fs::write(root.join("proctor.toml"), text).unwrap();
    if !root.join("pytest.ini").exists() {
        std::fs::write(root.join("pytest.ini"), "[pytest]\n").unwrap();
    }
    let settings = proctor_config::load(&proctor_config::LoadOptions {
        cwd: root.to_path_buf(),
        ..proctor_config::LoadOptions::default()
    })
    .unwrap_or_else(|err| panic!("{err}"));
    Taxonomy::new(&settings.proctor.taxonomy).unwrap_or_else(|err| panic!("{err}"))
}

/// A marker without arguments.
pub(crate) fn mark(name: &str, source: MarkerSource) -> Arc<Marker> {
    Arc::new(Marker {
        name: name.to_owned(),
        args: Vec::new(),
        kwargs: serde_json::Map::new(),
        source,
        location: None,
    })
}

/// An item defined where it is collected from.
pub(crate) fn item(nodeid: &str, markers: Vec<Arc<Marker>>) -> Item {
    let file = nodeid.split("::").next().unwrap().to_owned();
    Item {
        nodeid: nodeid.to_owned(),
        file,
        line: 1,
        markers,
        dynamic: None,
        decorators: Vec::new(),
        skip: None,
        markers_uncertain: None,
    }
}

/// One line per effective marker: `name <- provenance`.
pub(crate) fn show(effective: &Effective) -> Vec<String> {
    effective
        .markers
        .iter()
        .map(|marker| {
            let why = match &marker.provenance {
                Provenance::Written { source } => format!("written {}", source_name(*source)),
                Provenance::PathRule { glob } => format!("path {glob}"),
                Provenance::Alias { written, source } => {
                    format!("alias {written} ({})", source_name(*source))
                }
                Provenance::Implied { by } => format!("implied by {by}"),
                Provenance::AxisDefault { axis } => format!("default of {axis}"),
                Provenance::Decorator { path } => format!("decorator {path}"),
            };
            format!("{} <- {why}", marker.name)
        })
        .collect()
}

fn source_name(source: MarkerSource) -> &'static str {
    match source {
        MarkerSource::Function => "function",
        MarkerSource::Class => "class",
        MarkerSource::Module => "module",
        MarkerSource::Param => "param",
        MarkerSource::OptIn => "opt-in",
    }
}

/// The `requires-any` and `only-with` rules an item breaks, as lint will
/// report them: shows that the effective markers carry what those rules
/// need.
pub(crate) fn broken_companion_rules(taxonomy: &Taxonomy, effective: &Effective) -> Vec<String> {
    let mut broken = Vec::new();
    for name in effective.names() {
        let Some(rule) = taxonomy.rule(name) else {
            continue;
        };
        for (key, list) in [
            ("requires-any", &rule.requires_any),
            ("only-with", &rule.only_with),
        ] {
            if let Some(list) = list {
                if !list.iter().any(|other| effective.has(other)) {
                    broken.push(format!("{name}: {key} {}", list.join("|")));
                }
            }
        }
    }
    broken
}
