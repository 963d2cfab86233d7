//! The compiled taxonomy and the one function that applies it to an item.

use rustc_hash::FxHashMap as HashMap;

use globset::{Candidate, GlobSet, GlobSetBuilder};
use proctor_config::{
    build_path_glob, Cardinality, MarkerOptions, PathMarker, PathRuleOptions, TaxonomyOptions,
};
use proctor_python::{collected_file, Item};
use std::sync::Arc;

use crate::effective::{Effective, EffectiveMarker, Note, Provenance};
use crate::error::TaxonomyError;

/// A family of markers, as compiled from `[axes.<name>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    /// The axis's name.
    pub name: String,
    /// Its markers, in configured order.
    pub markers: Vec<String>,
    /// How many of them an item may carry.
    pub cardinality: Cardinality,
    /// The marker added where none of the axis is present.
    pub default: Option<String>,
    /// Whether writing the default explicitly is allowed.
    pub write_default: bool,
}

/// The taxonomy, compiled once from validated options and then applied to
/// any number of items.
#[derive(Debug, Clone)]
pub struct Taxonomy {
    axes: Vec<Axis>,
    /// Marker name → index into `axes`.
    axis_of: HashMap<String, usize>,
    rules: HashMap<String, MarkerOptions>,
    paths: Vec<PathRuleOptions>,
    /// One glob per entry of `paths`, same index.
    globs: GlobSet,
    /// Decorator path → the marker it stands for.
    decorators: HashMap<String, String>,
}

impl Taxonomy {
    /// Compiles `options`, refusing them as [`TaxonomyOptions::problems`]
    /// would.
    pub fn new(options: &TaxonomyOptions) -> Result<Taxonomy, TaxonomyError> {
        if let Some(problem) = options.problems().into_iter().next() {
            return Err(TaxonomyError::Invalid(problem));
        }
        let axes: Vec<Axis> = options
            .axes
            .iter()
            .map(|(name, axis)| Axis {
                name: name.clone(),
                markers: axis.markers.clone(),
                cardinality: axis.cardinality,
                default: axis.default.clone(),
                write_default: axis.write_default_allowed(),
            })
            .collect();
        let axis_of = axes
            .iter()
            .enumerate()
            .flat_map(|(index, axis)| axis.markers.iter().map(move |m| (m.clone(), index)))
            .collect();
        let mut builder = GlobSetBuilder::new();
        for rule in &options.paths {
            // Validated above, so this cannot fail; report it rather than
            // trust it.
            let glob = build_path_glob(&rule.glob).map_err(TaxonomyError::Globs)?;
            builder.add(glob);
        }
        let globs = builder.build().map_err(TaxonomyError::Globs)?;
        Ok(Taxonomy {
            axes,
            axis_of,
            rules: options.markers.iter().cloned().collect(),
            paths: options.paths.clone(),
            globs,
            decorators: options.decorators.iter().cloned().collect(),
        })
    }

    /// The axes, in configured order.
    #[must_use]
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// The axis that `marker` belongs to.
    #[must_use]
    pub fn axis_of(&self, marker: &str) -> Option<&Axis> {
        self.axis_of.get(marker).map(|&index| &self.axes[index])
    }

    /// The configured rules of `marker` (`[markers.<marker>]`).
    #[must_use]
    pub fn rule(&self, marker: &str) -> Option<&MarkerOptions> {
        self.rules.get(marker)
    }

    /// The path rules whose glob matches `file` (relative to the rootdir,
    /// `/`-separated) or one of its parent directories, in configured order.
    #[must_use]
    pub fn path_rules_for(&self, file: &str) -> Vec<&PathRuleOptions> {
        if self.paths.is_empty() {
            return Vec::new();
        }
        let mut matched = vec![false; self.paths.len()];
        let mut hits = Vec::new();
        // The file, then each directory above it: a glob that names a
        // directory applies to everything inside.
        let mut path = file;
        loop {
            self.globs
                .matches_candidate_into(&Candidate::new(path), &mut hits);
            for &index in &hits {
                matched[index] = true;
            }
            match path.rfind('/') {
                Some(slash) if slash > 0 => path = &path[..slash],
                _ => break,
            }
        }
        self.paths
            .iter()
            .zip(matched)
            .filter_map(|(rule, hit)| hit.then_some(rule))
            .collect()
    }

    /// The item's effective markers and notes (see the crate documentation
    /// for the order of application).
    #[must_use]
    pub fn effective(&self, item: &Item) -> Effective {
        let mut out = Effective {
            markers: Vec::with_capacity(item.markers.len() + 2),
            notes: Vec::new(),
        };

        // 1. Written markers, aliases replaced in place.
        for marker in &item.markers {
            let rule = self.rules.get(&marker.name);
            let source = marker.source;
            let (name, provenance) = match rule.and_then(|r| r.alias_of.as_ref()) {
                Some(target) => {
                    out.notes.push(Note::Alias {
                        written: marker.name.clone(),
                        target: target.clone(),
                        source,
                    });
                    let provenance = Provenance::Alias {
                        written: marker.name.clone(),
                        source,
                    };
                    (target.clone(), provenance)
                }
                None => (marker.name.clone(), Provenance::Written { source }),
            };
            if let Some(rule) = rule {
                if rule.is_deprecated() {
                    out.notes.push(Note::Deprecated {
                        name: marker.name.clone(),
                        source,
                    });
                }
                if let Some(message) = &rule.removed {
                    out.notes.push(Note::Removed {
                        name: marker.name.clone(),
                        message: message.clone(),
                        source,
                    });
                }
            }
            out.markers.push(EffectiveMarker {
                name,
                provenance,
                written: Some(Arc::clone(marker)),
                configured: None,
            });
        }

        // 2. Decorators that stand for markers (`@slow` from
        //    transformers.testing_utils), function first, then classes.
        for decorator in &item.decorators {
            if let Some(name) = self.decorators.get(&decorator.path) {
                add(
                    &mut out.markers,
                    name,
                    Provenance::Decorator {
                        path: decorator.path.clone(),
                    },
                );
            }
        }

        // 3. Path rules, matched against the file the item is collected
        //    from (what a conftest hook sees as `item.path`).
        //    A marker with arguments is added unless the item has it with
        //    the same arguments (a second `filterwarnings` filters more).
        for rule in self.path_rules_for(collected_file(&item.nodeid)) {
            for marker in &rule.markers {
                let provenance = Provenance::PathRule {
                    glob: rule.glob.clone(),
                };
                match marker {
                    PathMarker::Name(name) => add(&mut out.markers, name, provenance),
                    PathMarker::Call(call) => {
                        let present = out.markers.iter().any(|m| {
                            m.name == call.name
                                && m.args() == call.args.as_slice()
                                && m.kwargs()
                                    .map_or(call.kwargs.is_empty(), |k| *k == call.kwargs)
                        });
                        if !present {
                            out.markers.push(EffectiveMarker {
                                configured: Some(Arc::clone(call)),
                                ..derived(&call.name, provenance)
                            });
                        }
                    }
                }
            }
        }

        // 4. Implications, breadth-first; the list grows as it is walked.
        let mut index = 0;
        while index < out.markers.len() {
            if let Some(rule) = self.rules.get(&out.markers[index].name) {
                for implied in &rule.implies {
                    let by = out.markers[index].name.clone();
                    add(&mut out.markers, implied, Provenance::Implied { by });
                }
            }
            index += 1;
        }

        // 5. Defaults of the axes the item has no marker of.
        for (axis_index, axis) in self.axes.iter().enumerate() {
            let Some(default) = &axis.default else {
                continue;
            };
            let present = out
                .markers
                .iter()
                .any(|m| self.axis_of.get(&m.name) == Some(&axis_index));
            if !present {
                out.markers.push(derived(
                    default,
                    Provenance::AxisDefault {
                        axis: axis.name.clone(),
                    },
                ));
            }
        }
        out
    }
}

/// Adds a derived marker unless the item already has one of that name.
fn add(markers: &mut Vec<EffectiveMarker>, name: &str, provenance: Provenance) {
    if !markers.iter().any(|m| m.name == name) {
        markers.push(derived(name, provenance));
    }
}

fn derived(name: &str, provenance: Provenance) -> EffectiveMarker {
    EffectiveMarker {
        name: name.to_owned(),
        provenance,
        written: None,
        configured: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_collected_file_is_the_node_id_before_the_first_separator() {
        assert_eq!(
            collected_file("tests/a.py::TestX::test_y[a::b]"),
            "tests/a.py"
        );
        assert_eq!(collected_file("docs/usage.txt"), "docs/usage.txt");
    }

    #[test]
    fn globs_naming_a_directory_cover_its_contents() {
        let options = TaxonomyOptions {
            paths: vec![
                PathRuleOptions {
                    glob: "tests/integration".into(),
                    markers: vec!["integration".into()],
                },
                PathRuleOptions {
                    glob: "tests/*.py".into(),
                    markers: vec!["top".into()],
                },
                PathRuleOptions {
                    glob: "**/realdb/**".into(),
                    markers: vec!["realdb".into()],
                },
            ],
            ..TaxonomyOptions::default()
        };
        let taxonomy = Taxonomy::new(&options).unwrap();
        let globs = |file: &str| -> Vec<&str> {
            taxonomy
                .path_rules_for(file)
                .into_iter()
                .map(|rule| rule.glob.as_str())
                .collect()
        };
        assert_eq!(
            globs("tests/integration/db/test_a.py"),
            ["tests/integration"]
        );
        assert_eq!(globs("tests/test_a.py"), ["tests/*.py"]);
        assert!(
            globs("tests/unit/test_a.py").is_empty(),
            "`*` does not cross `/`"
        );
        assert_eq!(globs("pkg/tests/realdb/test_pg.py"), ["**/realdb/**"]);
        assert!(globs("tests/integration_helpers/test_a.py").is_empty());
    }
}
