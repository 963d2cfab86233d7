//! proctor's own options: the schema of `proctor.toml` and of the
//! `[tool.proctor]` table of `pyproject.toml` (selection, taxonomy, plan,
//! run, coverage and opt-in options), how [`find`] looks them up from the
//! rootdir, and the consistency checks serde cannot make.
//!
//! Nothing here is pytest's configuration (`proctor_pytest_config`); the two
//! share only the file, position and error types of `proctor_config_file`.

mod coverage_options;
mod opt_in_options;
mod plan_options;
mod proctor_options;
mod run_options;
mod schema;
mod seconds;
mod taxonomy_options;

pub use coverage_options::{CoverageArea, CoverageOptions};
pub use opt_in_options::{
    ExampleOptions, NotebookOptions, DEFAULT_CELL_TIMEOUT, DEFAULT_EXAMPLE_COMMENT,
    DEFAULT_METADATA_KEY, DEFAULT_NOTEBOOK_TIMEOUT,
};
pub use plan_options::{
    parse_version, GateOptions, HelperKind, HelperOptions, HookOptions, JobOptions,
    JobPhaseOptions, NeedOptions, PlanOptions, ServiceOptions, Trigger,
};
pub use proctor_options::{
    find, CheckOptions, CollectOptions, FixtureOptions, MirrorOptions, ProctorOptions,
    ProfileOptions, SelectOptions, TestNamePattern,
};
pub use run_options::{RerunRule, RunOptions, RunOrder, DEFAULT_HISTORY_RUNS};
pub use schema::{json_schema, key_table};
pub use seconds::{limit_seconds, Seconds, MAX_SECONDS};
pub use taxonomy_options::{
    build_path_glob, AxisOptions, Cardinality, MarkerOptions, MarkerScope, PathMarker,
    PathMarkerCall, PathRuleOptions, TaxonomyOptions, TaxonomyProblem,
};
/// A value with its byte range in the file, on the options that validation
/// points at.
pub use toml::Spanned;
