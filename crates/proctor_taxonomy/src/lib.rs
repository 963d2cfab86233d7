//! Effective markers with provenance: the single place where the marker
//! taxonomy of proctor's options (axes, aliases, implications, path rules,
//! defaults) is applied to collected items.
//!
//! [`Taxonomy::new`] compiles validated [`proctor_config::TaxonomyOptions`]
//! once (globs included); [`Taxonomy::effective`] turns one item's written
//! markers into its [`Effective`] markers, in this order:
//!
//! 1. **Written markers**, in pytest's `iter_markers()` order, every one kept
//!    (duplicates too, as pytest keeps every written mark). A marker that is
//!    an alias is replaced in place by its target, with its arguments and a
//!    [`Provenance::Alias`].
//! 2. **Decorators** mapped in `[decorators]` (the function's, then its
//!    classes'), unless the item already has the marker.
//! 3. **Path rules**, in file order: each marker of each rule whose glob
//!    matches the item's file, unless the item already has it.
//! 4. **Implications**, breadth-first and transitively: each marker implied
//!    by one already present is added once, attributed to the marker that
//!    implies it directly. Cycles are allowed and end because nothing is
//!    added twice.
//! 5. **Axis defaults**, in axis order: the default of each axis that none of
//!    the above gave a marker of. Defaults imply nothing (the options refuse
//!    a default with `implies`).
//!
//! Only written markers can repeat; everything derived appears once. What
//! the rules check (cardinality, `requires-any`, `only-with`, `conflicts`,
//! `scope`, `needs-comment`, writing a default) is lint's job: this crate
//! computes, records [`Note`]s about what it resolved, and never judges.

mod effective;
mod error;
mod select;
mod taxonomy;

pub use effective::{Effective, EffectiveMarker, Note, Provenance};
pub use error::TaxonomyError;
pub use select::{describe_provenance, Decision, Origin, Part, Selection, SelectionError};
pub use taxonomy::{Axis, Taxonomy};
