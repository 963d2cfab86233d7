//! Why a taxonomy could not be built.

use proctor_config::TaxonomyProblem;

/// Options that [`crate::Taxonomy::new`] refuses.
///
/// Options read by `proctor_config` were validated when they were loaded
/// (with the error's line and column); this error is for options built in
/// code.
#[derive(Debug, thiserror::Error)]
pub enum TaxonomyError {
    /// The options break a rule of the taxonomy (the first problem found).
    #[error("invalid taxonomy at {0}")]
    Invalid(TaxonomyProblem),
    /// The path rules' globs parse but cannot be compiled together.
    #[error("cannot compile the globs of the path rules")]
    Globs(#[source] globset::Error),
}
