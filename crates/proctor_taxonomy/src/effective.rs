//! The result of applying the taxonomy to one item: its effective markers,
//! each with where it came from, and notes about what was resolved.
//!
//! Everything here serialises (for `--json`) with a `kind` tag on the enums.

use proctor_python::MarkerSource;
use serde::Serialize;
use serde_json::{Map, Value as Json};

/// An item's markers after the taxonomy, and what was resolved on the way.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Effective {
    /// Written markers (aliases resolved) first, then path-rule, implied and
    /// default markers; see the crate documentation for the order.
    pub markers: Vec<EffectiveMarker>,
    /// Aliases, deprecated and removed markers found among the written
    /// markers, in the order they were written.
    pub notes: Vec<Note>,
}

impl Effective {
    /// Whether the item has marker `name`.
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.markers.iter().any(|marker| marker.name == name)
    }

    /// The names of the markers, in order, repeated where written twice.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.markers.iter().map(|marker| marker.name.as_str())
    }
}

/// One effective marker.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectiveMarker {
    /// The marker's name (an alias's target, never the alias).
    pub name: String,
    /// Positional arguments as written (empty for derived markers).
    pub args: Vec<Json>,
    /// Keyword arguments as written (empty for derived markers).
    pub kwargs: Map<String, Json>,
    /// Why the item has it.
    pub provenance: Provenance,
    /// Where it is written, for written markers and aliases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<proctor_python::Location>,
}

/// Why an item has a marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Provenance {
    /// Written on the function, a class, the module or a parameter set.
    Written {
        /// Where it was written.
        source: MarkerSource,
    },
    /// Applied by the `[[paths]]` rule with this glob.
    PathRule {
        /// The rule's glob, as configured.
        glob: String,
    },
    /// Written as `written`, an alias of this marker.
    Alias {
        /// The alias as written.
        written: String,
        /// Where it was written.
        source: MarkerSource,
    },
    /// Implied by marker `by` (which may itself be implied: follow the chain).
    Implied {
        /// The marker whose `implies` added this one.
        by: String,
    },
    /// The default of `axis`, which the item had no marker of.
    AxisDefault {
        /// The axis's name.
        axis: String,
    },
    /// A decorator mapped to this marker in `[decorators]`.
    Decorator {
        /// The decorator's dotted path.
        path: String,
    },
}

/// Something the taxonomy resolved on an item that lint and `explain`
/// report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Note {
    /// An alias was written and replaced by its target.
    Alias {
        /// The alias as written.
        written: String,
        /// The marker it stands for.
        target: String,
        /// Where it was written.
        source: MarkerSource,
    },
    /// A marker with `deprecated = true` was written (alias or not).
    Deprecated {
        /// The marker as written.
        name: String,
        /// Where it was written.
        source: MarkerSource,
    },
    /// A removed marker was written; it stays among the effective markers,
    /// as pytest still sees it.
    Removed {
        /// The marker as written.
        name: String,
        /// The configured message (what to use instead).
        message: String,
        /// Where it was written.
        source: MarkerSource,
    },
}
