//! pytest's configuration, ported from pytest 9.2: discovery of the rootdir
//! and config file, the ini, `pyproject.toml`, `tox.ini` and `setup.cfg`
//! loaders, pytest's arguments and `addopts`, Python's `shlex`, path
//! normalisation and the target interpreter's declared options.
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
//! nothing here prints. proctor's own options are not read here
//! (`proctor_options`); `proctor_config` puts the two together.

mod args;
pub mod declared_options;
mod discovery;
mod ini;
mod load;
mod loaders;
mod paths;
mod python;
mod shlex;
mod values;

pub use args::{parse_pytest_args, Addopts};
pub use load::{load, LoadOptions, Loaded, PytestConfig, PYTEST_ADDOPTS_PATH};
pub use loaders::IniKind;
pub use python::repr_str;
pub use values::IniValue;
