//! Turning command-line options and the suite's configuration files into
//! the resolved settings the collector reads.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use proctor_config::{LoadOptions, Settings};
use proctor_python::CollectSettings;

use crate::args::{ConfigArgs, SuiteArgs};
use crate::settings::{threads_arg, Env, EnvSettings, PytestValues};

/// The suite as configured: pytest's and proctor's settings, resolved.
pub(crate) struct Suite {
    pub(crate) cwd: PathBuf,
    pub(crate) config: Settings,
    pub(crate) collect: CollectSettings,
    pub(crate) args: Vec<String>,
    /// What the suite's loading read of the environment.
    pub(crate) env: EnvSettings,
}

/// The current directory and pytest's and proctor's settings, found as
/// pytest finds them from `paths` (its positional arguments), `--rootdir`
/// and `-c`, and `PYTEST_ADDOPTS` in `env`.
pub(crate) fn load_config(
    config: &ConfigArgs,
    paths: &[String],
    env: &Env,
) -> Result<(PathBuf, Settings)> {
    load_config_overriding(config, paths, &[], &EnvSettings::resolve(env)?)
}

/// [`load_config`] with pytest's command-line `-o KEY=VALUE` overrides,
/// which pytest reads after `PYTEST_ADDOPTS` (and so are read as its last
/// tokens).
fn load_config_overriding(
    config: &ConfigArgs,
    paths: &[String],
    overrides: &[String],
    env: &EnvSettings,
) -> Result<(PathBuf, Settings)> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut env_addopts = env.pytest_addopts.clone();
    if !overrides.is_empty() {
        let mut text = env_addopts.unwrap_or_default();
        for value in overrides {
            text.push_str(" -o ");
            text.push_str(&shell_quoted(value));
        }
        env_addopts = Some(text);
    }
    let options = LoadOptions {
        cwd: cwd.clone(),
        args: paths.iter().map(PathBuf::from).collect(),
        rootdir: config.rootdir.clone(),
        inifile: config.config_file.clone(),
        env_addopts,
        environ: Some(env.vars.clone()),
    };
    // The error keeps its type, so that `check` can render it as a diagnostic.
    let settings = proctor_config::load(&options).map_err(anyhow::Error::new)?;
    Ok((cwd, settings))
}

impl SuiteArgs {
    /// The suite at `paths` with the given configuration and pytest's
    /// defaults for the rest.
    pub(crate) fn with(config: &ConfigArgs, paths: Vec<String>) -> SuiteArgs {
        SuiteArgs {
            paths,
            config: config.clone(),
            ignore: Vec::new(),
            ignore_glob: Vec::new(),
            threads: None,
            no_cache: false,
        }
    }
}

/// `text` as one POSIX shell word.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

impl Suite {
    pub(crate) fn load(args: &SuiteArgs, env: &Env) -> Result<Suite> {
        Suite::load_overriding(args, &[], env)
    }

    /// The suite with pytest's `-o KEY=VALUE` overrides applied, as
    /// `proctor run -o` gives them to pytest.
    pub(crate) fn load_overriding(
        args: &SuiteArgs,
        overrides: &[String],
        env: &Env,
    ) -> Result<Suite> {
        let env = EnvSettings::resolve(env)?;
        let (cwd, config) = load_config_overriding(&args.config, &args.paths, overrides, &env)?;
        let pytest = &config.pytest;
        let mut collect = CollectSettings::new(pytest.rootdir.clone());
        collect.python_files.clone_from(&pytest.python_files);
        collect.python_classes.clone_from(&pytest.python_classes);
        collect
            .python_functions
            .clone_from(&pytest.python_functions);
        collect.norecursedirs.clone_from(&pytest.norecursedirs);
        let addopts = &pytest.addopts_parsed;
        // pytest resolves --ignore relative to the invocation directory.
        collect.ignore = addopts
            .ignore
            .iter()
            .chain(&args.ignore)
            .map(|p| absolute(&cwd, p))
            .collect();
        collect.ignore_glob = addopts
            .ignore_glob
            .iter()
            .chain(&args.ignore_glob)
            .cloned()
            .collect();
        let values = PytestValues::resolve(pytest).map_err(anyhow::Error::new)?;
        collect.pythonpath = values
            .pythonpath
            .iter()
            .map(|p| absolute(&pytest.rootdir, p))
            .collect();
        collect.collect_imported_tests = values.collect_imported_tests;
        if let Some(mark) = values.empty_parameter_set_mark {
            collect.empty_parameter_set_mark = mark;
        }
        collect.ids.disable_escaping = values.disable_id_escaping;
        collect.ids.long_str_strategy = values.long_str_id_strategy;
        let mut filters = values.filterwarnings;
        filters.extend(all_option_values(
            &pytest.addopts,
            &["-W", "--pythonwarnings"],
        ));
        collect.deprecations_are_errors = proctor_python::deprecation_is_error(&filters);
        let interpreter =
            proctor_caps::find_interpreter(None, config.proctor.python.as_deref(), &pytest.rootdir);
        collect.asyncio_auto = asyncio_mode(pytest).as_deref() == Some("auto");
        collect.fixture_markers = config
            .proctor
            .fixtures
            .iter()
            .map(|(name, rule)| (name.clone(), rule.markers.clone()))
            .collect();
        read_interpreter(&mut collect, interpreter.as_deref(), &pytest.addopts, &env);
        collect.doctest_modules = addopts.doctest_modules;
        if let Some(mode) = option_value(&pytest.addopts, "--import-mode") {
            collect.import_mode = mode;
        }
        let globs = doctest_globs(&pytest.addopts);
        if !globs.is_empty() {
            collect.doctest_glob = globs;
        }
        if let Some(size) = config.proctor.collect.max_file_size {
            collect.max_file_size = size.get();
        }
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let requested = threads_arg(args.threads)?.or(config
            .proctor
            .collect
            .threads
            .map(std::num::NonZero::get));
        collect.threads = threads(requested, cores);
        let (examples, notebooks) = (&config.proctor.examples, &config.proctor.notebooks);
        collect.opt_in = proctor_python::OptInSettings::under(
            &pytest.rootdir,
            &examples.dirs(),
            examples.comment(),
            &notebooks.dirs(),
            notebooks.metadata_key(),
        );
        if !args.no_cache {
            collect.cache = Some(cache_dir(&pytest.rootdir));
        }
        let mut positional: Vec<String> = addopts.paths.clone();
        positional.extend(args.paths.iter().cloned());
        Ok(Suite {
            cwd,
            config,
            collect,
            args: positional,
            env,
        })
    }

    pub(crate) fn collect(&self) -> proctor_python::Collection {
        self.trace_cache(proctor_python::collect(
            &self.collect,
            &self.args,
            &self.cwd,
            &self.config.pytest.testpaths,
        ))
    }

    /// [`Suite::collect`] for a rendering identified by `memo`, spliced
    /// from the cache after `header` where it can be
    /// ([`proctor_python::collect_memoized`]).
    pub(crate) fn collect_memoized(
        &self,
        memo: u128,
        header: Option<proctor_python::JsonHead<'_>>,
    ) -> proctor_python::Collection {
        self.trace_cache(proctor_python::collect_memoized(
            &self.collect,
            &self.args,
            &self.cwd,
            &self.config.pytest.testpaths,
            memo,
            header,
        ))
    }

    /// Reads the suite for `python` (`--python`) instead of the
    /// interpreter found from config and environment.
    pub(crate) fn use_interpreter(&mut self, python: Option<&Path>) {
        if let Some(python) = python {
            read_interpreter(
                &mut self.collect,
                Some(python),
                &self.config.pytest.addopts,
                &self.env,
            );
        }
    }

    /// The source files of the target interpreter's installed pytest
    /// plugins (`pytest11` entry points), read without running it.
    pub(crate) fn plugin_files(&self) -> Vec<PathBuf> {
        let python = proctor_caps::find_interpreter(
            None,
            self.config.proctor.python.as_deref(),
            &self.config.pytest.rootdir,
        );
        python.map_or_else(Vec::new, |python| {
            proctor_config::declared_options::plugin_files(&proctor_caps::site_packages(&python))
        })
    }

    /// The collection of the whole suite, for the commands that look at
    /// its architecture (`check`, `plan`): without explicit paths, the
    /// configured example and notebook folders are collected too, even
    /// where pytest's own walk (`testpaths`) does not reach them.
    pub(crate) fn collect_whole(&self) -> proctor_python::Collection {
        let mut settings = self.collect.clone();
        settings.opt_in.whole_suite = true;
        self.trace_cache(proctor_python::collect(
            &settings,
            &self.args,
            &self.cwd,
            &self.config.pytest.testpaths,
        ))
    }

    /// With `PROCTOR_CACHE_TRACE` set, says on stderr how many test
    /// modules came from the collection cache (`cache: 41 cached, 1
    /// collected`); set to `memo`, also whether `collect --json`'s memo
    /// was found from `stat` data alone (`, memo by stat`) or by its
    /// digest (`, memo`), or the document spliced from the cache's
    /// fragments (`, spliced`; `, spliced, not stored` when it was not
    /// stored as the memo, as after a cold run).
    fn trace_cache(&self, collection: proctor_python::Collection) -> proctor_python::Collection {
        if self.env.cache_trace {
            let line = match collection.cache {
                Some(stats) => format!(
                    "cache: {} cached, {} collected{}\n",
                    stats.cached,
                    stats.collected,
                    match (self.env.cache_trace_memo, &collection.memo) {
                        (true, _) if stats.by_stat => ", memo by stat",
                        (true, Some(proctor_python::Memo::Hit(_))) => ", memo",
                        (true, Some(proctor_python::Memo::Rendered(r))) if r.stored.is_none() => {
                            ", spliced, not stored"
                        }
                        (true, Some(proctor_python::Memo::Rendered(_))) => ", spliced",
                        _ => "",
                    }
                ),
                None => "cache: off\n".to_string(),
            };
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        }
        collection
    }
}

/// The collection cache's folder for the suite at `rootdir`.
pub(crate) fn cache_dir(rootdir: &Path) -> PathBuf {
    rootdir.join(".proctor").join("cache")
}

/// The parser threads for `requested` (`--threads`, `collect.threads`) on
/// a machine with `cores`: at most one per core, since parsing is CPU-bound
/// and every thread more only costs its start (5,000 threads took seconds
/// on a one-file suite); 0 (one per core) when nothing is requested.
fn threads(requested: Option<usize>, cores: usize) -> usize {
    requested.map_or(0, |n| n.min(cores.max(1)))
}

/// The last value of a long option in addopts (`--opt=value` or
/// `--opt value`).
fn option_value(addopts: &[String], option: &str) -> Option<String> {
    let mut value = None;
    let prefix = format!("{option}=");
    let mut tokens = addopts.iter();
    while let Some(token) = tokens.next() {
        if let Some(v) = token.strip_prefix(&prefix) {
            value = Some(v.to_string());
        } else if token == option {
            value = tokens.next().cloned();
        }
    }
    value
}

/// `--doctest-glob` values in addopts (repeatable; `=` or separate value).
fn doctest_globs(addopts: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut tokens = addopts.iter();
    while let Some(token) = tokens.next() {
        if let Some(value) = token.strip_prefix("--doctest-glob=") {
            out.push(value.to_string());
        } else if token == "--doctest-glob" {
            out.extend(tokens.next().cloned());
        }
    }
    out
}

fn absolute(base: &Path, path: &str) -> PathBuf {
    proctor_python::normalize(&base.join(path))
}

/// Every value of the given options in addopts (`-W error`, `-Werror`,
/// `--pythonwarnings=error`).
/// What static collection reads from the target interpreter, without
/// running it: its import path (module skips, import errors), its version
/// (`sys.version_info`) and its plugins that mark items.
fn read_interpreter(
    collect: &mut CollectSettings,
    interpreter: Option<&Path>,
    addopts: &[String],
    env: &EnvSettings,
) {
    collect.module_path = interpreter
        .and_then(proctor_caps::module_search_path)
        .map(|dirs| std::sync::Arc::new(proctor_python::ModulePath::new(dirs)));
    collect.python_version = interpreter
        .and_then(proctor_caps::interpreter_version)
        .and_then(|text| proctor_python::PythonVersion::parse(&text));
    let installed = |top: &str| {
        collect
            .module_path
            .as_ref()
            .is_some_and(|path| path.tops.contains(top))
    };
    collect.hypothesis_plugin =
        installed("_hypothesis_pytestplugin") && plugin_loads(addopts, env, "hypothesispytest");
    collect.asyncio_plugin = installed("pytest_asyncio") && plugin_loads(addopts, env, "asyncio");
}

/// pytest-asyncio's mode as it reads it: `--asyncio-mode` in addopts, else
/// the `asyncio_mode` ini value (its default, `strict`, when neither).
fn asyncio_mode(pytest: &proctor_config::PytestConfig) -> Option<String> {
    option_value(&pytest.addopts, "--asyncio-mode").or_else(|| {
        pytest
            .other
            .get("asyncio_mode")
            .and_then(|value| value.as_string("asyncio_mode").ok())
    })
}

/// Whether pytest loads the entry-point plugin `name`: not blocked with
/// `-p no:NAME`, and plugins autoload (neither a non-empty
/// `PYTEST_DISABLE_PLUGIN_AUTOLOAD` nor `--disable-plugin-autoload`, which
/// argparse does not abbreviate in pytest) or `-p NAME` asks for it.
fn plugin_loads(addopts: &[String], env: &EnvSettings, name: &str) -> bool {
    let plugins = all_option_values(addopts, &["-p"]);
    if plugins.iter().any(|p| p.strip_prefix("no:") == Some(name)) {
        return false;
    }
    let autoload = env.plugin_autoload && !addopts.iter().any(|t| t == "--disable-plugin-autoload");
    autoload || plugins.iter().any(|p| p == name)
}

fn all_option_values(addopts: &[String], names: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut tokens = addopts.iter();
    while let Some(token) = tokens.next() {
        for name in names {
            if token == name {
                if let Some(value) = tokens.next() {
                    out.push(value.clone());
                }
            } else if let Some(value) = token.strip_prefix(&format!("{name}=")) {
                out.push(value.to_owned());
            } else if name.len() == 2 && token.starts_with(name) && token.len() > 2 {
                out.push(token[2..].to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::threads;

    #[test]
    fn threads_are_at_most_one_per_core() {
        assert_eq!(threads(Some(5_000), 8), 8);
        assert_eq!(threads(Some(3), 8), 3);
        assert_eq!(threads(Some(2), 0), 1);
        assert_eq!(threads(None, 8), 0, "one per core, the global pool");
    }
}
