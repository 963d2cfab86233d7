//! The result of applying the taxonomy to one item: its effective markers,
//! each with where it came from, and notes about what was resolved.
//!
//! Everything here serialises (for `--json`) with a `kind` tag on the enums.

use std::sync::Arc;

use proctor_config::PathMarkerCall;
use proctor_python::{Location, Marker, MarkerSource};
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
#[derive(Debug, Clone, PartialEq)]
pub struct EffectiveMarker {
    /// The marker's name (an alias's target, never the alias).
    pub name: String,
    /// Why the item has it.
    pub provenance: Provenance,
    /// The marker as written (shared with the item), for written markers
    /// and aliases; `None` for derived ones.
    pub written: Option<Arc<Marker>>,
    /// The arguments a path rule gives it (`{ name, args, kwargs }`).
    pub configured: Option<Arc<PathMarkerCall>>,
}

impl EffectiveMarker {
    /// Positional arguments as written, or as a path rule gives them
    /// (empty for other derived markers).
    #[must_use]
    pub fn args(&self) -> &[Json] {
        match (&self.written, &self.configured) {
            (Some(written), _) => &written.args,
            (None, Some(call)) => &call.args,
            (None, None) => &[],
        }
    }

    /// Keyword arguments as written, or as a path rule gives them (`None`
    /// for other derived markers).
    #[must_use]
    pub fn kwargs(&self) -> Option<&Map<String, Json>> {
        match (&self.written, &self.configured) {
            (Some(written), _) => Some(&written.kwargs),
            (None, Some(call)) => Some(&call.kwargs),
            (None, None) => None,
        }
    }

    /// Where it is written, for written markers and aliases.
    #[must_use]
    pub fn location(&self) -> Option<&Location> {
        self.written.as_ref().and_then(|m| m.location.as_ref())
    }
}

/// `{"name", "args", "kwargs", "provenance", "location"?}`.
impl Serialize for EffectiveMarker {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let location = self.location();
        let mut out =
            serializer.serialize_struct("EffectiveMarker", 4 + usize::from(location.is_some()))?;
        out.serialize_field("name", &self.name)?;
        out.serialize_field("args", self.args())?;
        out.serialize_field("kwargs", &self.kwargs().cloned().unwrap_or_default())?;
        out.serialize_field("provenance", &self.provenance)?;
        if let Some(location) = location {
            out.serialize_field("location", location)?;
        }
        out.end()
    }
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
