//! The entry point: from the invocation (working directory, arguments,
//! `PYTEST_ADDOPTS`) to pytest's [`PytestConfig`], in the order pytest does it:
//! `PYTEST_ADDOPTS` and the command line decide the rootdir and config file,
//! `-o` overrides apply, then `addopts` is read and its own overrides apply.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::args::{self, Addopts, Known};
use crate::declared_options;
use crate::discovery::{self, Setup, SetupArgs};
use crate::loaders::{IniKind, LoadedConfig};
use crate::shlex;
use crate::values::IniValue;
use proctor_config_file::{ConfigError, ConfigLocation, ConfigWarning};

/// The pseudo-path of errors in the `PYTEST_ADDOPTS` environment variable.
pub const PYTEST_ADDOPTS_PATH: &str = "$PYTEST_ADDOPTS";

/// How pytest is (or would be) invoked.
///
/// Build it with `..Default::default()` so that fields added later do not
/// break callers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// The invocation directory; made absolute with the process's working
    /// directory if it is relative.
    pub cwd: PathBuf,
    /// Positional arguments as given: paths relative to `cwd` or absolute,
    /// possibly node IDs (`tests/test_a.py::test_x`), of which only the part
    /// before the first `::` counts for discovery. Arguments that start with
    /// `-` are ignored, as pytest ignores them.
    pub args: Vec<PathBuf>,
    /// `--rootdir`; `$VAR` and `${VAR}` in it are expanded from the process
    /// environment, as pytest does.
    pub rootdir: Option<PathBuf>,
    /// `-c`/`--config-file`.
    pub inifile: Option<PathBuf>,
    /// The value of the `PYTEST_ADDOPTS` environment variable, if set. Its
    /// tokens come after the ini `addopts` and before the command line, and
    /// its `-c`, `--rootdir`, `-o` and paths take part in discovery.
    pub env_addopts: Option<String>,
    /// The environment `$VAR` in `--rootdir` is expanded from; `None`: the
    /// process's.
    pub environ: Option<BTreeMap<OsString, OsString>>,
}

/// pytest's configuration: rootdir, config file and the values proctor uses.
#[derive(Debug, Clone, PartialEq)]
pub struct PytestConfig {
    /// The rootdir, absolute, as pytest determines it (not symlink-resolved).
    pub rootdir: PathBuf,
    /// The config file pytest uses (its `configfile:`), absolute.
    pub inifile: Option<PathBuf>,
    /// What kind of file `inifile` is and where in it the configuration is.
    pub ini_kind: Option<IniKind>,
    /// The config files in `inifile`'s directory that pytest reports as
    /// ignored in its header (`WARNING: ignoring pytest config in …`).
    pub ignored_config_files: Vec<PathBuf>,
    /// `testpaths` ("args").
    pub testpaths: Vec<String>,
    /// `python_files` ("args"); default `["test_*.py", "*_test.py"]`.
    pub python_files: Vec<String>,
    /// `python_classes` ("args"); default `["Test"]`.
    pub python_classes: Vec<String>,
    /// `python_functions` ("args"); default `["test"]`.
    pub python_functions: Vec<String>,
    /// `norecursedirs` ("args"); a configured value replaces the default
    /// `["*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules",
    /// "venv", "{arch}"]`.
    pub norecursedirs: Vec<String>,
    /// `markers` ("linelist"): raw `name(args): description` lines.
    pub markers: Vec<String>,
    /// The effective `addopts`: the config's `addopts` split like
    /// `shlex.split`, followed by the tokens of `PYTEST_ADDOPTS`.
    pub addopts: Vec<String>,
    /// What `addopts` says, read like pytest's argument parser.
    pub addopts_parsed: Addopts,
    /// Every other key of the config (and of `-o` overrides), raw.
    pub other: BTreeMap<String, IniValue>,
    /// Where each key of `inifile` is written (1-based); keys that only come
    /// from `-o` have no entry.
    pub key_locations: BTreeMap<String, ConfigLocation>,
}

/// The defaults pytest 9.2 registers.
const DEFAULT_PYTHON_FILES: &[&str] = &["test_*.py", "*_test.py"];
const DEFAULT_PYTHON_CLASSES: &[&str] = &["Test"];
const DEFAULT_PYTHON_FUNCTIONS: &[&str] = &["test"];
const DEFAULT_NORECURSEDIRS: &[&str] = &[
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
];

/// Keys with a field of their own in [`PytestConfig`].
const TYPED_KEYS: &[&str] = &[
    "testpaths",
    "python_files",
    "python_classes",
    "python_functions",
    "norecursedirs",
    "markers",
    "addopts",
];

/// Where a value came from, for error positions.
#[derive(Debug, Clone)]
enum ValueSource {
    File(ConfigLocation),
    Override(PathBuf),
}

struct Values<'a> {
    config: Option<&'a LoadedConfig>,
    map: BTreeMap<String, (IniValue, ValueSource)>,
}

impl Values<'_> {
    fn error(&self, origin: &ValueSource, message: String) -> ConfigError {
        match (origin, self.config) {
            (ValueSource::File(location), Some(config)) => config.error(*location, message),
            (ValueSource::Override(path), _) => ConfigError::whole(path, message),
            // File origins only come from a config file; this arm is for
            // completeness.
            (ValueSource::File(location), None) => {
                ConfigError::at(Path::new(PYTEST_ADDOPTS_PATH), *location, message, None)
            }
        }
    }

    /// `parse_override_ini` followed by `inicfg.update`.
    fn apply_overrides(
        &mut self,
        overrides: &[String],
        origin: &ValueSource,
    ) -> Result<(), ConfigError> {
        for item in overrides {
            let Some((key, value)) = item.split_once('=') else {
                return Err(self.error(
                    origin,
                    format!(
                        "-o/--override-ini expects option=value style (got: {}).",
                        crate::python::repr_str(item)
                    ),
                ));
            };
            self.map.insert(
                key.to_owned(),
                (IniValue::Text(value.to_owned()), origin.clone()),
            );
        }
        Ok(())
    }

    fn convert(
        &self,
        key: &str,
        convert: impl Fn(&IniValue, &str) -> Result<Vec<String>, String>,
        default: &[&str],
    ) -> Result<Vec<String>, ConfigError> {
        match self.map.get(key) {
            Some((value, origin)) => {
                convert(value, key).map_err(|message| self.error(origin, message))
            }
            None => Ok(default.iter().map(|s| (*s).to_owned()).collect()),
        }
    }

    fn args(&self, key: &str, default: &[&str]) -> Result<Vec<String>, ConfigError> {
        self.convert(key, IniValue::as_args, default)
    }
}

/// pytest's configuration of one invocation, and the warnings about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// pytest's configuration, as pytest resolves it.
    pub pytest: PytestConfig,
    /// Configurations that work but probably not as meant.
    pub warnings: Vec<ConfigWarning>,
}

/// Discovers and reads pytest's configuration.
///
/// `interpreter` is called once, with the rootdir, before `addopts` are read:
/// it returns the Python interpreter configured for the project, if any,
/// whose installed plugins may declare options that `addopts` use (proctor's
/// own options name it; their errors come out of this call in order).
pub fn load(
    opts: &LoadOptions,
    interpreter: &mut dyn FnMut(&Path) -> Result<Option<String>, ConfigError>,
) -> Result<Loaded, ConfigError> {
    let cwd = std::path::absolute(&opts.cwd)
        .map(|cwd| crate::paths::normpath(&cwd))
        .map_err(|err| {
            ConfigError::whole(
                &opts.cwd,
                format!("cannot make the working directory absolute: {err}"),
            )
        })?;
    let env_path = PathBuf::from(PYTEST_ADDOPTS_PATH);

    // 1. PYTEST_ADDOPTS comes before the command line; both take part in
    //    discovery (the ini `addopts` come too late for that).
    let env_tokens = match opts.env_addopts.as_deref() {
        Some(text) if !text.is_empty() => {
            shlex::split(text).map_err(|err| ConfigError::whole(&env_path, err.message()))?
        }
        _ => Vec::new(),
    };
    let env = args::parse(&env_tokens, Known::Core)
        .map_err(|message| ConfigError::whole(&env_path, message))?;
    let mut positional: Vec<OsString> = env.paths.iter().map(OsString::from).collect();
    positional.extend(opts.args.iter().map(|arg| arg.as_os_str().to_owned()));
    let inifile = opts
        .inifile
        .as_deref()
        .map(Path::as_os_str)
        .or(env.config_file.as_deref().map(OsStr::new));
    let rootdir = opts
        .rootdir
        .as_deref()
        .map(Path::as_os_str)
        .or(env.rootdir.as_deref().map(OsStr::new));
    let lookup = |name: &str| match &opts.environ {
        Some(vars) => vars.get(OsStr::new(name)).cloned(),
        None => std::env::var_os(name),
    };
    let setup = discovery::determine_setup(&SetupArgs {
        invocation_dir: &cwd,
        inifile,
        args: &positional,
        rootdir,
        lookup_var: &lookup,
    })?;

    // 2. The config file's values, then the overrides known so far.
    let mut values = Values {
        config: setup.config.as_ref(),
        map: BTreeMap::new(),
    };
    if let Some(config) = &setup.config {
        for entry in &config.entries {
            values.map.insert(
                entry.key.clone(),
                (entry.value.clone(), ValueSource::File(entry.location)),
            );
        }
    }
    values.apply_overrides(&env.override_ini, &ValueSource::Override(env_path.clone()))?;

    // 3. addopts, then every override again (pytest does one more level).
    let ini_addopts = values.args("addopts", &[])?;
    let addopts_origin = values.map.get("addopts").map_or_else(
        || ValueSource::Override(env_path.clone()),
        |(_, origin)| origin.clone(),
    );
    // pytest validates the ini `addopts` on their own, then parses them with
    // `PYTEST_ADDOPTS` (and the command line) as one list.
    let from_ini = args::parse(&ini_addopts, Known::WithPlugins)
        .map_err(|message| values.error(&addopts_origin, message))?
        .override_ini;
    let mut addopts = ini_addopts;
    addopts.extend(env_tokens);
    // pytest resolves positional arguments against the invocation directory.
    let exists = |path: &str| cwd.join(path).exists();
    let configured = interpreter(&setup.rootdir)?;
    // Options no built-in table knows: read what the initial conftests
    // declare, then the installed plugins. Nothing is read otherwise.
    let mut addopts_parsed = args::parse_guessing(&addopts, Known::WithPlugins, &[], &exists)
        .map_err(|message| ConfigError::whole(&env_path, message))?;
    let mut declared = Vec::new();
    if !addopts_parsed.guessed.is_empty() {
        let initial: Vec<PathBuf> = if positional.is_empty() {
            let testpaths = values.args("testpaths", &[])?;
            let dirs: Vec<PathBuf> = testpaths
                .iter()
                .map(|p| setup.rootdir.join(p))
                .filter(|p| p.exists())
                .collect();
            if dirs.is_empty() || cwd != setup.rootdir {
                vec![cwd.clone()]
            } else {
                dirs
            }
        } else {
            positional.iter().map(|p| cwd.join(p)).collect()
        };
        declared = declared_options::scan_files(&initial_conftests(&setup.rootdir, &initial));
        addopts_parsed = args::parse_guessing(&addopts, Known::WithPlugins, &declared, &exists)
            .map_err(|message| ConfigError::whole(&env_path, message))?;
    }
    if !addopts_parsed.guessed.is_empty() {
        let configured = configured.as_deref();
        if let Some(python) = proctor_caps::find_interpreter(None, configured, &setup.rootdir) {
            let plugins = declared_options::plugin_files(&proctor_caps::site_packages(&python));
            declared.extend(declared_options::scan_files(&plugins));
            addopts_parsed = args::parse_guessing(&addopts, Known::WithPlugins, &declared, &exists)
                .map_err(|message| ConfigError::whole(&env_path, message))?;
        }
    }
    values.apply_overrides(&from_ini, &addopts_origin)?;
    values.apply_overrides(&env.override_ini, &ValueSource::Override(env_path))?;

    let pytest = PytestConfig {
        testpaths: values.args("testpaths", &[])?,
        python_files: values.args("python_files", DEFAULT_PYTHON_FILES)?,
        python_classes: values.args("python_classes", DEFAULT_PYTHON_CLASSES)?,
        python_functions: values.args("python_functions", DEFAULT_PYTHON_FUNCTIONS)?,
        norecursedirs: values.args("norecursedirs", DEFAULT_NORECURSEDIRS)?,
        markers: values.convert("markers", IniValue::as_linelist, &[])?,
        addopts,
        addopts_parsed,
        other: values
            .map
            .iter()
            .filter(|(key, _)| !TYPED_KEYS.contains(&key.as_str()))
            .map(|(key, (value, _))| (key.clone(), value.clone()))
            .collect(),
        key_locations: setup
            .config
            .iter()
            .flat_map(|config| &config.entries)
            .map(|entry| (entry.key.clone(), entry.location))
            .collect(),
        rootdir: setup.rootdir.clone(),
        inifile: setup.config.as_ref().map(|config| config.path.clone()),
        ini_kind: setup.config.as_ref().map(|config| config.kind),
        ignored_config_files: setup.ignored.iter().map(|c| c.path.clone()).collect(),
    };

    let mut warnings = shadow_warnings(&setup);
    let (addopts_path, addopts_at) = match &addopts_origin {
        ValueSource::File(location) => (
            setup
                .config
                .as_ref()
                .map(|c| c.path.clone())
                .unwrap_or_default(),
            *location,
        ),
        ValueSource::Override(path) => (path.clone(), ConfigLocation::START),
    };
    for (option, value) in &pytest.addopts_parsed.guessed {
        warnings.push(ConfigWarning {
            path: addopts_path.clone(),
            line: addopts_at.line,
            column: addopts_at.column,
            message: format!(
                "addopts: `{option}` is not an option proctor knows (no installed plugin declares it here); `{value}` is taken as its value because no such path exists"
            ),
        });
    }
    Ok(Loaded { pytest, warnings })
}

/// The conftests pytest loads before it parses the command line for good
/// (`_set_initial_conftests`): for each initial path, the `conftest.py` of
/// its directory and of every ancestor up to the rootdir, and those of its
/// `test*` subdirectories.
fn initial_conftests(rootdir: &Path, initial: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut add = |path: PathBuf| {
        if path.is_file() && !out.contains(&path) {
            out.push(path);
        }
    };
    for path in initial {
        let anchor = crate::paths::normpath(path);
        let dir = if anchor.is_dir() {
            anchor.clone()
        } else {
            anchor.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        for ancestor in dir.ancestors() {
            add(ancestor.join("conftest.py"));
            if ancestor == rootdir {
                break;
            }
        }
        if anchor.is_dir() {
            let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&anchor)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .filter(|entry| entry.file_name().to_string_lossy().starts_with("test"))
                .map(|entry| entry.path())
                .filter(|p| p.is_dir())
                .collect();
            subdirs.sort();
            for sub in subdirs {
                add(sub.join("conftest.py"));
            }
        }
    }
    out
}

/// A warning for each file whose pytest configuration loses to the one used.
fn shadow_warnings(setup: &Setup) -> Vec<ConfigWarning> {
    let Some(used) = &setup.config else {
        return Vec::new();
    };
    let used_dir = used.path.parent();
    setup
        .shadowed
        .iter()
        .map(|shadowed| {
            let name = file_name(&shadowed.path);
            let what = if shadowed.table_label.is_empty() {
                name.clone()
            } else {
                format!("{} in {name}", shadowed.table_label)
            };
            let message = if shadowed.path.parent() == used_dir {
                format!("{what} is ignored because {} is used", file_name(&used.path))
            } else {
                format!(
                    "{what} is ignored because {} is used (pytest reads only the configuration file closest to the arguments)",
                    used.path.display()
                )
            };
            ConfigWarning {
                path: shadowed.path.clone(),
                line: shadowed.table_location.line,
                column: shadowed.table_location.column,
                message,
            }
        })
        .collect()
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}
