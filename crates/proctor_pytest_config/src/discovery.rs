//! Rootdir and config file discovery: a line-by-line port of `determine_setup`,
//! `locate_config`, `get_common_ancestor` and `get_dirs_from_args` from
//! `_pytest/config/findpaths.py` (pytest 9.2).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::loaders::{self, IniKind, LoadedConfig, Loader, CONFIG_NAMES};
use crate::paths;
use proctor_config_file::ConfigError;

/// What pytest decides before it reads any value: rootdir and config file.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    pub(crate) rootdir: PathBuf,
    /// The config file pytest reports (`configfile:`), with its configuration
    /// (possibly empty).
    pub(crate) config: Option<LoadedConfig>,
    /// The same-directory files pytest reports as ignored in its header.
    pub(crate) ignored: Vec<LoadedConfig>,
    /// Files that also hold pytest configuration but lose to `config`: the
    /// same-directory ones (even where pytest does not report them) and those
    /// in parent directories. Empty when `-c` chose the file.
    pub(crate) shadowed: Vec<LoadedConfig>,
}

/// The inputs of `determine_setup`, already taken from the command line.
pub(crate) struct SetupArgs<'a> {
    pub(crate) invocation_dir: &'a Path,
    /// `-c`/`--config-file`.
    pub(crate) inifile: Option<&'a OsStr>,
    /// Positional arguments (paths, node IDs), in command-line order.
    pub(crate) args: &'a [OsString],
    /// `--rootdir`, before variable expansion.
    pub(crate) rootdir: Option<&'a OsStr>,
    /// Environment lookup for `$VAR` in `--rootdir`.
    pub(crate) lookup_var: &'a dyn Fn(&str) -> Option<OsString>,
}

/// `determine_setup`.
pub(crate) fn determine_setup(input: &SetupArgs<'_>) -> Result<Setup, ConfigError> {
    let cwd = input.invocation_dir;
    let dirs = dirs_from_args(cwd, input.args);
    let rootdir_arg = input.rootdir.filter(|arg| !arg.is_empty());
    let mut setup;

    if let Some(inifile) = input.inifile.filter(|arg| !arg.is_empty()) {
        let inipath = paths::abspath(cwd, Path::new(inifile));
        if !inipath.exists() {
            return Err(ConfigError::whole(
                &inipath,
                format!(
                    "Config file '{}' not found. Check your '-c/--config-file' option.",
                    inipath.display()
                ),
            ));
        }
        if inipath.is_dir() {
            return Err(ConfigError::whole(
                &inipath,
                format!(
                    "Config file '{}' is a directory. Check your '-c/--config-file' option.",
                    inipath.display()
                ),
            ));
        }
        let config = match loaders::loader_for(&inipath) {
            Some(loader) => loaders::load(loader, &inipath)?.unwrap_or_else(|| {
                LoadedConfig::empty(&inipath, loaders::kind_without_config(&inipath, loader))
            }),
            None if inipath.is_file() => {
                return Err(ConfigError::whole(
                    &inipath,
                    format!(
                        "Config file '{}' has an unsupported format. Supported extensions are: .cfg, .ini, .toml.",
                        inipath.display()
                    ),
                ));
            }
            None => LoadedConfig::empty(&inipath, IniKind::NotAFile),
        };
        let rootdir = if inipath.is_file() {
            inipath
                .parent()
                .map_or_else(|| inipath.clone(), Path::to_path_buf)
        } else {
            // A path that is not a regular file says nothing about where the
            // project lives (`-c /dev/null`).
            let ancestor = common_ancestor(cwd, &dirs);
            if paths::is_fs_root(&ancestor) {
                cwd.to_path_buf()
            } else {
                ancestor
            }
        };
        setup = Setup {
            rootdir,
            config: Some(config),
            ignored: Vec::new(),
            shadowed: Vec::new(),
        };
    } else {
        let ancestor = common_ancestor(cwd, &dirs);
        let located = locate_config(std::slice::from_ref(&ancestor))?;
        setup = Setup {
            rootdir: located.rootdir.clone().unwrap_or_default(),
            config: located.config,
            ignored: located.ignored.clone(),
            shadowed: located.ignored,
        };
        if located.rootdir.is_none() && rootdir_arg.is_none() {
            let with_setup_py = ancestor
                .ancestors()
                .find(|dir| dir.join("setup.py").is_file())
                .map(Path::to_path_buf);
            if let Some(dir) = with_setup_py {
                setup.rootdir = dir;
            } else {
                let mut found = None;
                if dirs.len() != 1 || dirs[0] != ancestor {
                    let again = locate_config(&dirs)?;
                    if again.rootdir.is_some() {
                        setup.config = again.config;
                        setup.shadowed = again.ignored;
                        found = again.rootdir;
                    }
                }
                setup.rootdir = if let Some(rootdir) = found {
                    rootdir
                } else {
                    let rootdir = common_ancestor(cwd, &[cwd.to_path_buf(), ancestor.clone()]);
                    if paths::is_fs_root(&rootdir) {
                        ancestor
                    } else {
                        rootdir
                    }
                };
            }
        }
        if let Some(config) = &setup.config {
            if config.kind != IniKind::PyprojectNoTable {
                setup.shadowed.extend(shadowed_in_parents(&config.path));
            }
        }
    }

    if let Some(arg) = rootdir_arg {
        let expanded = paths::expandvars(arg, input.lookup_var);
        let rootdir = paths::abspath(cwd, Path::new(&expanded));
        if !rootdir.is_dir() {
            return Err(ConfigError::whole(
                &rootdir,
                format!(
                    "Directory '{}' not found. Check your '--rootdir' option.",
                    rootdir.display()
                ),
            ));
        }
        setup.rootdir = rootdir;
    }
    Ok(setup)
}

/// `get_dirs_from_args`: the existing paths among the arguments (node IDs cut
/// at `::`), as directories.
fn dirs_from_args(cwd: &Path, args: &[OsString]) -> Vec<PathBuf> {
    args.iter()
        .filter(|arg| !paths::is_option(arg))
        .map(|arg| paths::abspath(cwd, &paths::nodeid_path(arg)))
        .filter(|path| path.exists())
        .map(|path| {
            if path.is_dir() {
                path
            } else {
                path.parent()
                    .map_or_else(|| path.clone(), Path::to_path_buf)
            }
        })
        .collect()
}

/// `get_common_ancestor`.
fn common_ancestor(cwd: &Path, paths: &[PathBuf]) -> PathBuf {
    let mut common: Option<PathBuf> = None;
    for path in paths {
        if !path.exists() {
            continue;
        }
        common = Some(match common {
            None => path.clone(),
            Some(current) => {
                if path.starts_with(&current) {
                    current
                } else if current.starts_with(path) {
                    path.clone()
                } else {
                    paths::commonpath(path, &current).unwrap_or(current)
                }
            }
        });
    }
    match common {
        None => cwd.to_path_buf(),
        Some(path) if path.is_file() => path
            .parent()
            .map_or_else(|| path.clone(), Path::to_path_buf),
        Some(path) => path,
    }
}

struct Located {
    rootdir: Option<PathBuf>,
    config: Option<LoadedConfig>,
    ignored: Vec<LoadedConfig>,
}

/// `locate_config`: walks up from each argument; the first directory with a
/// file that holds pytest configuration wins. A `pyproject.toml` without
/// pytest tables is remembered as a fallback.
fn locate_config(args: &[PathBuf]) -> Result<Located, ConfigError> {
    let mut found_pyproject: Option<PathBuf> = None;
    for arg in args.iter().filter(|arg| !paths::is_option(arg.as_os_str())) {
        for base in arg.ancestors() {
            for (index, (name, loader)) in CONFIG_NAMES.iter().enumerate() {
                let path = base.join(name);
                if !path.is_file() {
                    continue;
                }
                if *name == "pyproject.toml" && found_pyproject.is_none() {
                    found_pyproject = Some(path.clone());
                }
                let Some(config) = loaders::load(*loader, &path)? else {
                    continue;
                };
                let mut ignored = Vec::new();
                for (other_name, other_loader) in &CONFIG_NAMES[index + 1..] {
                    let other = base.join(other_name);
                    if other.is_file() {
                        if let Some(other) = loaders::load(*other_loader, &other)? {
                            ignored.push(other);
                        }
                    }
                }
                return Ok(Located {
                    rootdir: Some(base.to_path_buf()),
                    config: Some(config),
                    ignored,
                });
            }
        }
    }
    if let Some(pyproject) = found_pyproject {
        return Ok(Located {
            rootdir: pyproject.parent().map(Path::to_path_buf),
            config: Some(LoadedConfig::empty(&pyproject, IniKind::PyprojectNoTable)),
            ignored: Vec::new(),
        });
    }
    Ok(Located {
        rootdir: None,
        config: None,
        ignored: Vec::new(),
    })
}

/// Config files in the parent directories of `inifile`'s directory that hold
/// pytest configuration pytest never reads because it stops at `inifile`.
/// Files that fail to parse are skipped: pytest does not read them either.
fn shadowed_in_parents(inifile: &Path) -> Vec<LoadedConfig> {
    let Some(base) = inifile.parent() else {
        return Vec::new();
    };
    base.ancestors()
        .skip(1)
        .flat_map(|dir| {
            CONFIG_NAMES
                .iter()
                .filter_map(move |(name, loader): &(&str, Loader)| {
                    let path = dir.join(name);
                    if !path.is_file() {
                        return None;
                    }
                    loaders::load(*loader, &path).ok().flatten()
                })
        })
        .collect()
}
