//! proctor's configuration of one invocation: pytest's configuration, as
//! pytest 9.2 discovers and reads it (`proctor_pytest_config`), plus
//! proctor's own options (`proctor_options`), read into one [`Settings`] by
//! [`load`].
//!
//! The rest of the workspace reads both through this crate; the types are
//! re-exported from the crates that define them.

mod settings;

pub use proctor_config_file::{
    ConfigError, ConfigFile, ConfigLocation, ConfigWarning, KeyPath, KeySegment,
};
pub use proctor_options::{
    build_path_glob, json_schema, key_table, limit_seconds, parse_version, AxisOptions,
    Cardinality, CheckOptions, CollectOptions, CoverageArea, CoverageOptions, ExampleOptions,
    FixtureOptions, GateOptions, HelperKind, HelperOptions, HookOptions, JobOptions,
    JobPhaseOptions, MarkerOptions, MarkerScope, MirrorOptions, NeedOptions, NotebookOptions,
    PathMarker, PathMarkerCall, PathRuleOptions, PlanOptions, ProctorOptions, ProfileOptions,
    RerunRule, RunOptions, RunOrder, Seconds, SelectOptions, ServiceOptions, Spanned,
    TaxonomyOptions, TaxonomyProblem, TestNamePattern, Trigger, DEFAULT_CELL_TIMEOUT,
    DEFAULT_EXAMPLE_COMMENT, DEFAULT_HISTORY_RUNS, DEFAULT_METADATA_KEY, DEFAULT_NOTEBOOK_TIMEOUT,
    MAX_SECONDS,
};
pub use proctor_pytest_config::{
    declared_options, parse_pytest_args, repr_str, Addopts, IniKind, IniValue, LoadOptions,
    PytestConfig, PYTEST_ADDOPTS_PATH,
};
pub use settings::{load, Settings};
