//! pytest configuration discovery, exactly as pytest 9.2 does it, plus
//! proctor's own options, resolved into one [`Settings`].
//!
//! [`load`] mirrors `_pytest/config/findpaths.py` and `Config.parse`:
//!
//! - The positional arguments (cut at `::`) that exist decide a common
//!   ancestor; without any, the working directory.
//! - From there upwards, the first directory with one of `pytest.toml`,
//!   `.pytest.toml`, `pytest.ini`, `.pytest.ini`, `pyproject.toml`, `tox.ini`,
//!   `setup.cfg` (in that order) that holds pytest configuration is the
//!   rootdir, and that file the config file. `pytest.ini` and `pytest.toml`
//!   count even when empty; `pyproject.toml` needs `[tool.pytest.ini_options]`
//!   or a non-empty `[tool.pytest]` (both at once is an error); `tox.ini` needs
//!   `[pytest]`; `setup.cfg` needs `[tool:pytest]` (a `[pytest]` section there
//!   is an error).
//! - Without one, a `pyproject.toml` seen on the way up fixes the rootdir (and
//!   is reported as the config file), then a directory with `setup.py`, then
//!   the arguments' own directories are searched, then the common ancestor of
//!   the working directory and the arguments is the rootdir.
//! - `-c` names the config file directly (its directory is the rootdir);
//!   `--rootdir` replaces the rootdir, but not the config file.
//!
//! Every malformed file pytest would read is an error with `path:line:col`;
//! nothing here prints.

mod args;
mod coverage_options;
pub mod declared_options;
mod discovery;
mod error;
mod ini;
mod loaders;
mod opt_in_options;
mod paths;
mod plan_options;
mod proctor_options;
mod python;
mod run_options;
mod settings;
mod shlex;
mod source;
mod taxonomy_options;
mod toml_doc;
mod values;

pub use args::{parse_pytest_args, Addopts};
pub use coverage_options::{CoverageArea, CoverageOptions};
pub use error::{ConfigError, ConfigWarning, Location};
pub use loaders::IniKind;
pub use opt_in_options::{
    ExampleOptions, NotebookOptions, DEFAULT_CELL_TIMEOUT, DEFAULT_EXAMPLE_COMMENT,
    DEFAULT_METADATA_KEY, DEFAULT_NOTEBOOK_TIMEOUT,
};
pub use plan_options::{
    parse_version, GateOptions, HelperKind, HelperOptions, HookOptions, JobOptions, NeedOptions,
    PhaseOptions, PlanOptions, ServiceOptions, Trigger,
};
pub use proctor_options::{
    CheckOptions, CollectOptions, FixtureOptions, MirrorOptions, ProctorOptions, ProfileOptions,
    SelectOptions, TestNamePattern,
};
pub use python::repr_str;
pub use run_options::{
    limit_seconds, RerunRule, RunOptions, RunOrder, DEFAULT_HISTORY_RUNS, MAX_SECONDS,
};
pub use settings::{load, LoadOptions, PytestConfig, Settings, PYTEST_ADDOPTS_PATH};
pub use taxonomy_options::{
    build_path_glob, AxisOptions, Cardinality, KeyPath, KeySegment, MarkerOptions, MarkerScope,
    PathRuleOptions, TaxonomyOptions, TaxonomyProblem,
};
pub use values::IniValue;
