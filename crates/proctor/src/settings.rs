//! Resolved settings: the command line, proctor's options and pytest's
//! configuration merged in one step per command (as uv's
//! `crates/uv/src/settings.rs`), so that a command reads typed values with
//! the defaults already applied, and every bad value is refused here, named
//! by its flag or at its `file:line:col`, all of a file's at once.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use proctor_config::{
    CheckOptions, ConfigError, ConfigFile, ConfigLocation, IniValue, ProctorOptions,
    ProfileOptions, PytestConfig, Seconds, Spanned, PYTEST_ADDOPTS_PATH,
};
use proctor_lint::{PerFileIgnores, RuleSelection, SelectorLayer};
use proctor_source::Format;

use crate::args::{CheckArgs, OutputFormat, PlanArgs, RunArgs, SelectArgs, SelectionArgs};

/// A snapshot of the environment a command reads, taken once
/// ([`Env::process`]) and passed down, so that every resolve step is a pure
/// function of its arguments, options and environment, testable without
/// touching the process's own ([`Env::of`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Env {
    vars: BTreeMap<OsString, OsString>,
}

impl Env {
    /// The process's environment, now.
    pub(crate) fn process() -> Env {
        Env {
            vars: std::env::vars_os().collect(),
        }
    }

    /// An environment of exactly these variables.
    #[cfg(test)]
    pub(crate) fn of(vars: &[(&str, &str)]) -> Env {
        Env {
            vars: vars
                .iter()
                .map(|(name, value)| (OsString::from(name), OsString::from(value)))
                .collect(),
        }
    }

    /// Every variable, for what expands `$VAR` (pytest's `--rootdir`).
    pub(crate) fn vars(&self) -> &BTreeMap<OsString, OsString> {
        &self.vars
    }

    /// The value of `name`, if it is set (perhaps empty).
    pub(crate) fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(OsStr::new(name)).map(OsString::as_os_str)
    }

    /// Whether `name` is set to a non-empty value (Python's
    /// `bool(os.environ.get(name))`).
    fn is_true(&self, name: &str) -> bool {
        self.get(name).is_some_and(|value| !value.is_empty())
    }

    /// The text of `name`; a value that is not UTF-8 is an error that names
    /// the variable (and not its value, which may be a secret).
    fn text(&self, name: &str) -> Result<Option<&str>> {
        match self.get(name) {
            None => Ok(None),
            Some(value) => value
                .to_str()
                .map(Some)
                .ok_or_else(|| anyhow!("the environment variable {name} is not valid UTF-8")),
        }
    }
}

/// `PYTEST_ADDOPTS`: arguments pytest reads before its command line.
pub(crate) const PYTEST_ADDOPTS: &str = "PYTEST_ADDOPTS";
/// `PYTEST_DISABLE_PLUGIN_AUTOLOAD`: set (non-empty), pytest loads only the
/// plugins that `-p` names.
pub(crate) const PYTEST_DISABLE_PLUGIN_AUTOLOAD: &str = "PYTEST_DISABLE_PLUGIN_AUTOLOAD";
/// `PROCTOR_CACHE_TRACE`: set, the collecting commands say on stderr how
/// many test modules came from the collection cache.
pub(crate) const PROCTOR_CACHE_TRACE: &str = "PROCTOR_CACHE_TRACE";

/// What the suite-loading commands read of the environment, as pytest reads
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnvSettings {
    /// `PYTEST_ADDOPTS`, when set: its text is split (and a bad one refused
    /// with pytest's message, at `$PYTEST_ADDOPTS`) where pytest's
    /// configuration is read, since it takes part in finding the rootdir.
    pub(crate) pytest_addopts: Option<String>,
    /// Whether pytest loads its entry-point plugins on its own: true unless
    /// `PYTEST_DISABLE_PLUGIN_AUTOLOAD` is set to a non-empty value (pytest
    /// tests `bool(os.environ.get(...))`, so that every other value,
    /// `0` and `false` too, disables autoload).
    pub(crate) plugin_autoload: bool,
    /// `PROCTOR_CACHE_TRACE` is set (to anything).
    pub(crate) cache_trace: bool,
    /// `PROCTOR_CACHE_TRACE=memo`: the trace also says whether `collect
    /// --json`'s memo was found from `stat` data alone.
    pub(crate) cache_trace_memo: bool,
    /// The whole environment, which `$VAR` in `--rootdir` expands from.
    pub(crate) vars: BTreeMap<OsString, OsString>,
}

impl EnvSettings {
    pub(crate) fn resolve(env: &Env) -> Result<EnvSettings> {
        Ok(EnvSettings {
            pytest_addopts: env.text(PYTEST_ADDOPTS)?.map(str::to_owned),
            plugin_autoload: !env.is_true(PYTEST_DISABLE_PLUGIN_AUTOLOAD),
            cache_trace: env.get(PROCTOR_CACHE_TRACE).is_some(),
            cache_trace_memo: env
                .get(PROCTOR_CACHE_TRACE)
                .is_some_and(|value| value == "memo"),
            vars: env.vars().clone(),
        })
    }
}

/// The values of pytest's configuration that static collection reads, as
/// pytest's `getini` would return them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PytestValues {
    /// `pythonpath` (rootdir-relative, as written).
    pub(crate) pythonpath: Vec<String>,
    /// `collect_imported_tests` (default true).
    pub(crate) collect_imported_tests: bool,
    /// `empty_parameter_set_mark`, when set (the collector has pytest's
    /// default).
    pub(crate) empty_parameter_set_mark: Option<String>,
    /// `disable_test_id_escaping_and_forfeit_all_rights_to_community_support`.
    pub(crate) disable_id_escaping: bool,
    /// `parametrize_long_str_id_strategy`, when set.
    pub(crate) long_str_id_strategy: Option<String>,
    /// `filterwarnings` (a `linelist`).
    pub(crate) filterwarnings: Vec<String>,
}

const DISABLE_ESCAPING: &str =
    "disable_test_id_escaping_and_forfeit_all_rights_to_community_support";

impl PytestValues {
    /// Reads the values; a value of the wrong type is an error at its key
    /// (where pytest would fail on it, at configure or collection time,
    /// rather than be read as its default), every such value at once.
    pub(crate) fn resolve(pytest: &PytestConfig) -> Result<PytestValues, ConfigError> {
        let mut errors = Vec::new();
        let values = PytestValues {
            pythonpath: get(pytest, &mut errors, "pythonpath", IniValue::as_args)
                .unwrap_or_default(),
            collect_imported_tests: get(
                pytest,
                &mut errors,
                "collect_imported_tests",
                IniValue::as_bool,
            )
            .unwrap_or(true),
            empty_parameter_set_mark: get(
                pytest,
                &mut errors,
                "empty_parameter_set_mark",
                |v, k| {
                    let mark = v.as_string(k)?;
                    // pytest 9.2 registers it as `Literal["skip", "xfail",
                    // "fail_at_collect"]` and refuses the rest when it is read.
                    if ["skip", "xfail", "fail_at_collect"].contains(&mark.as_str()) {
                        Ok(mark)
                    } else {
                        Err(format!(
                            "config option '{k}' expects one of 'skip' | 'xfail' | 'fail_at_collect', got {}",
                            proctor_config::repr_str(&mark)
                        ))
                    }
                },
            ),
            disable_id_escaping: get(pytest, &mut errors, DISABLE_ESCAPING, IniValue::as_bool)
                .unwrap_or(false),
            long_str_id_strategy: get(
                pytest,
                &mut errors,
                "parametrize_long_str_id_strategy",
                IniValue::as_string,
            ),
            filterwarnings: get(pytest, &mut errors, "filterwarnings", |v, k| {
                v.as_linelist(k)
            })
            .unwrap_or_default(),
        };
        if errors.is_empty() {
            Ok(values)
        } else {
            Err(ConfigError::all(errors))
        }
    }
}

/// The value of pytest's `key`, converted; `None` when it is unset or
/// wrong (then with an error in `errors`).
fn get<T>(
    pytest: &PytestConfig,
    errors: &mut Vec<ConfigError>,
    key: &str,
    convert: impl Fn(&IniValue, &str) -> Result<T, String>,
) -> Option<T> {
    let value = pytest.other.get(key)?;
    convert(value, key)
        .map_err(|message| errors.push(at_key(pytest, key, &message)))
        .ok()
}

/// An error about pytest's `key`: at the key in the config file, or, for a
/// value that only `-o` gives, at the overrides (`$PYTEST_ADDOPTS`).
fn at_key(pytest: &PytestConfig, key: &str, message: &str) -> ConfigError {
    let message = if message.contains(&format!("'{key}'")) {
        message.to_owned()
    } else {
        format!("{key}: {message}")
    };
    match (pytest.key_locations.get(key), &pytest.inifile) {
        (Some(at), Some(file)) => {
            let line = std::fs::read_to_string(file).ok().and_then(|text| {
                text.lines()
                    .nth(at.line.saturating_sub(1))
                    .map(str::to_owned)
            });
            ConfigError::at(file, *at, message, line.as_deref())
        }
        _ => ConfigError::at(
            Path::new(PYTEST_ADDOPTS_PATH),
            ConfigLocation::START,
            message,
            None,
        ),
    }
}

/// The order `proctor run` runs tests in, before `--seed` and
/// `--group-by` are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OrderKind {
    Pytest,
    Random,
    ByGroup,
}

/// What `proctor run` reads of its arguments and of `[run]`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunSettings {
    /// The per-test limit: `--timeout`, else `[run] timeout`, else none.
    pub(crate) timeout: Option<Duration>,
    /// `--order`, else the job's `order`, else `[run] order`, else pytest's.
    pub(crate) order: OrderKind,
}

impl RunSettings {
    pub(crate) fn resolve(args: &RunArgs, options: &ProctorOptions) -> Result<RunSettings> {
        let timeout = match args.timeout {
            Some(seconds) => Some(
                Seconds::new(seconds)
                    .map_err(|e| anyhow!("--timeout {e}"))?
                    .duration(),
            ),
            None => options.run.timeout.map(Seconds::duration),
        };
        let job_order = args
            .job
            .as_ref()
            .and_then(|name| options.plan.jobs.iter().find(|(n, _)| n == name))
            .and_then(|(_, job)| job.order);
        let configured = job_order
            .or(options.run.order)
            .map(proctor_config::RunOrder::as_str);
        let order = match args.order.as_deref().or(configured).unwrap_or("pytest") {
            "pytest" => OrderKind::Pytest,
            "random" => OrderKind::Random,
            "by-group" => OrderKind::ByGroup,
            other => bail!("--order: unknown order `{other}` (pytest, random or by-group)"),
        };
        Ok(RunSettings { timeout, order })
    }
}

/// The selection that a command's `-m`, `-k`, `--profile` and
/// `--no-default-select` ask for, with the profile looked up in
/// `[profiles]`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SelectionSettings {
    /// `--profile`: its name and table.
    pub(crate) profile: Option<(String, ProfileOptions)>,
    /// Whether the default selection applies: not `--no-default-select`,
    /// and the profile's `use-default` (default true).
    pub(crate) use_default: bool,
    /// `-m`.
    pub(crate) markers: Option<String>,
    /// `-k`.
    pub(crate) keywords: Option<String>,
}

impl SelectionSettings {
    pub(crate) fn resolve(
        args: &SelectionArgs,
        options: &ProctorOptions,
    ) -> Result<SelectionSettings> {
        let profile = match &args.profile {
            None => None,
            Some(name) => {
                let profiles = &options.profiles;
                let Some((_, profile)) = profiles.iter().find(|(n, _)| n == name) else {
                    let known: Vec<&str> = profiles.iter().map(|(n, _)| n.as_str()).collect();
                    if known.is_empty() {
                        bail!("unknown profile `{name}`: no [profiles] are configured");
                    }
                    bail!(
                        "unknown profile `{name}` (configured: {})",
                        known.join(", ")
                    );
                };
                Some((name.clone(), profile.clone()))
            }
        };
        let profile_default = profile
            .as_ref()
            .is_none_or(|(_, profile)| profile.use_default.unwrap_or(true));
        Ok(SelectionSettings {
            use_default: !args.no_default_select && profile_default,
            profile,
            markers: args.markers.clone(),
            keywords: args.keywords.clone(),
        })
    }
}

/// `--job NAME`: a job of `[jobs]`, else an error that lists them.
fn job_arg(job: Option<&str>, options: &ProctorOptions) -> Result<Option<String>> {
    let Some(wanted) = job else {
        return Ok(None);
    };
    let jobs = &options.plan.jobs;
    if jobs.iter().any(|(name, _)| name == wanted) {
        return Ok(Some(wanted.to_owned()));
    }
    let known: Vec<&str> = jobs.iter().map(|(n, _)| n.as_str()).collect();
    if known.is_empty() {
        bail!("unknown job `{wanted}`: no [jobs] are configured");
    }
    bail!("unknown job `{wanted}` (configured: {})", known.join(", "));
}

/// What `proctor select` reads of its arguments and options.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SelectSettings {
    pub(crate) selection: SelectionSettings,
    /// `--json`: the selection as JSON instead of node ids.
    pub(crate) json: bool,
    /// `--args-file`: where to write the selected node ids for `pytest @FILE`.
    pub(crate) args_file: Option<PathBuf>,
}

impl SelectSettings {
    pub(crate) fn resolve(args: &SelectArgs, options: &ProctorOptions) -> Result<SelectSettings> {
        Ok(SelectSettings {
            selection: SelectionSettings::resolve(&args.selection, options)?,
            json: args.json,
            args_file: args.args_file.clone(),
        })
    }
}

/// What `proctor plan` reads of its arguments and options.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlanSettings {
    pub(crate) selection: SelectionSettings,
    /// `--job`, a configured job: only its plan, and no audit of the tests
    /// that no job runs.
    pub(crate) job: Option<String>,
    /// `--json`.
    pub(crate) json: bool,
}

impl PlanSettings {
    pub(crate) fn resolve(args: &PlanArgs, options: &ProctorOptions) -> Result<PlanSettings> {
        Ok(PlanSettings {
            selection: SelectionSettings::resolve(&args.selection, options)?,
            job: job_arg(args.job.as_deref(), options)?,
            json: args.json,
        })
    }
}

/// What `proctor check` reads of its arguments before the suite is loaded:
/// the output format, and `--ignore` split into the paths it takes (as
/// pytest's) and the rule codes it refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CheckArgsSettings {
    pub(crate) format: Format,
    /// `--ignore` paths, for collection.
    pub(crate) ignore_paths: Vec<String>,
}

impl CheckArgsSettings {
    pub(crate) fn resolve(args: &CheckArgs) -> Result<CheckArgsSettings> {
        let format = match args.format {
            _ if args.json => Format::Json,
            OutputFormat::Full => Format::Full,
            OutputFormat::Concise => Format::Concise,
            OutputFormat::Json => Format::Json,
            OutputFormat::Github => Format::Github,
            OutputFormat::Sarif => Format::Sarif,
        };
        let (paths, codes) = split_ignore(&args.ignore);
        if !codes.is_empty() {
            // ruff's convention: `--ignore` is for paths here (pytest's),
            // rule codes go through `--select`/`--extend-ignore`.
            bail!(
                "`--ignore {codes}` names rule codes, and `--ignore` takes paths (as pytest's)\n  hint: use `--extend-ignore {codes}`",
                codes = codes.join(",")
            );
        }
        Ok(CheckArgsSettings {
            format,
            ignore_paths: paths,
        })
    }
}

/// `--ignore` values split into paths and rule codes: a value that is no
/// existing path and whose comma-separated parts are all rule selectors is
/// codes.
fn split_ignore(values: &[String]) -> (Vec<String>, Vec<String>) {
    let mut paths = Vec::new();
    let mut codes = Vec::new();
    for value in values {
        let parts: Vec<&str> = value.split(',').filter(|p| !p.trim().is_empty()).collect();
        if !parts.is_empty()
            && !Path::new(value).exists()
            && parts.iter().all(|p| RuleSelection::is_selector(p))
        {
            codes.extend(parts.iter().map(|p| p.trim().to_owned()));
        } else {
            paths.push(value.clone());
        }
    }
    (paths, codes)
}

/// What `proctor check` reads of `[check]` and of its rule arguments: the
/// rules that run (the command line layered over `[check]`, as ruff does)
/// and the findings `per-file-ignores` drops.
pub(crate) struct CheckSettings {
    pub(crate) rules: RuleSelection,
    pub(crate) per_file_ignores: PerFileIgnores,
}

impl CheckSettings {
    /// `file` is the options' file, where an unknown selector of
    /// `[check]` is an error at its `line:col` (every one at once).
    pub(crate) fn resolve(
        args: &CheckArgs,
        options: &CheckOptions,
        file: Option<&Path>,
    ) -> Result<CheckSettings> {
        let texts = |values: &[Spanned<String>]| -> Vec<String> {
            values.iter().map(|v| v.get_ref().clone()).collect()
        };
        let (select, extend_select, ignore) = (
            texts(&options.select),
            texts(&options.extend_select),
            texts(&options.ignore),
        );
        unknown_selectors(options, file)?;
        let rules = RuleSelection::layered(&[
            SelectorLayer {
                select: &select,
                extend_select: &extend_select,
                ignore: &ignore,
            },
            SelectorLayer {
                select: &args.select,
                extend_select: &args.extend_select,
                ignore: &args.extend_ignore,
            },
        ])?;
        let per_file_ignores = PerFileIgnores::new(
            options
                .per_file_ignores
                .iter()
                .map(|(glob, codes)| (glob.as_str(), codes.as_slice())),
        )?;
        Ok(CheckSettings {
            rules,
            per_file_ignores,
        })
    }
}

/// The selectors of `[check]` that name no rule, each an error at its
/// value in `file`.
fn unknown_selectors(options: &CheckOptions, file: Option<&Path>) -> Result<(), ConfigError> {
    let unknown: Vec<&Spanned<String>> = options
        .select
        .iter()
        .chain(&options.extend_select)
        .chain(&options.ignore)
        .filter(|selector| !RuleSelection::is_selector(selector.get_ref()))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let source = match file {
        Some(path) => ConfigFile::read(path)?,
        None => ConfigFile::new(Path::new("proctor.toml"), ""),
    };
    let errors = unknown
        .into_iter()
        .map(|selector| {
            let message = RuleSelection::new(std::slice::from_ref(selector.get_ref()), &[])
                .err()
                .map_or_else(|| "unknown rule selector".to_owned(), |e| e.to_string());
            source.error_at(selector.span().start, message)
        })
        .collect();
    Err(ConfigError::all(errors))
}

/// `--threads`, which like `[collect] threads` is at least 1.
pub(crate) fn threads_arg(threads: Option<usize>) -> Result<Option<usize>> {
    match threads {
        Some(0) => bail!("--threads must be at least 1"),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pytest_with(file: &Path, entries: &[(&str, IniValue, usize)]) -> PytestConfig {
        let mut config = proctor_config::load(&proctor_config::LoadOptions {
            cwd: file.parent().unwrap().to_path_buf(),
            ..Default::default()
        })
        .unwrap()
        .pytest;
        for (key, value, line) in entries {
            config.other.insert((*key).to_owned(), value.clone());
            config.key_locations.insert(
                (*key).to_owned(),
                ConfigLocation {
                    line: *line,
                    column: 1,
                },
            );
        }
        config
    }

    #[test]
    fn bad_pytest_values_are_all_errors_at_their_keys() {
        let dir = tempfile::tempdir().unwrap();
        let ini = dir.path().join("pytest.ini");
        std::fs::write(
            &ini,
            "[pytest]\ncollect_imported_tests = maybe\nempty_parameter_set_mark = ignore\n",
        )
        .unwrap();
        let config = proctor_config::load(&proctor_config::LoadOptions {
            cwd: dir.path().to_path_buf(),
            ..Default::default()
        })
        .unwrap()
        .pytest;
        let error = PytestValues::resolve(&config).unwrap_err();
        let found: Vec<(usize, usize, &str)> = error
            .iter()
            .map(|e| (e.line, e.column, e.message.as_str()))
            .collect();
        assert_eq!(found.len(), 2, "{error}");
        assert_eq!((found[0].0, found[0].1), (2, 1), "{error}");
        assert!(
            found[0].2.contains("invalid truth value 'maybe'"),
            "{error}"
        );
        assert_eq!(found[1].0, 3, "{error}");
        assert!(
            found[1].2.contains("expects one of 'skip' | 'xfail'"),
            "{error}"
        );
        assert_eq!(error.path, ini);
    }

    #[test]
    fn good_pytest_values_are_read_and_unset_ones_are_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").unwrap();
        let config = pytest_with(
            &dir.path().join("pytest.ini"),
            &[
                ("collect_imported_tests", IniValue::Text("no".into()), 2),
                ("pythonpath", IniValue::Text("src lib".into()), 3),
            ],
        );
        let values = PytestValues::resolve(&config).unwrap();
        assert!(!values.collect_imported_tests);
        assert_eq!(values.pythonpath, ["src", "lib"]);
        assert!(!values.disable_id_escaping);
        assert_eq!(values.empty_parameter_set_mark, None);
    }

    #[test]
    fn the_environment_is_read_as_pytest_reads_it() {
        let unset = EnvSettings::resolve(&Env::of(&[])).unwrap();
        assert_eq!(
            unset,
            EnvSettings {
                pytest_addopts: None,
                plugin_autoload: true,
                cache_trace: false,
                cache_trace_memo: false,
                vars: BTreeMap::new(),
            }
        );
        for (value, autoload) in [("", true), ("1", false), ("0", false), ("false", false)] {
            let env = Env::of(&[(PYTEST_DISABLE_PLUGIN_AUTOLOAD, value)]);
            assert_eq!(
                EnvSettings::resolve(&env).unwrap().plugin_autoload,
                autoload,
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD={value:?}"
            );
        }
        let env = Env::of(&[(PYTEST_ADDOPTS, "-x -k 'a b'"), (PROCTOR_CACHE_TRACE, "")]);
        let settings = EnvSettings::resolve(&env).unwrap();
        assert_eq!(settings.pytest_addopts.as_deref(), Some("-x -k 'a b'"));
        assert!(settings.cache_trace);
        assert!(!settings.cache_trace_memo);
        let env = Env::of(&[(PROCTOR_CACHE_TRACE, "memo")]);
        assert!(EnvSettings::resolve(&env).unwrap().cache_trace_memo);
    }

    #[cfg(unix)]
    #[test]
    fn an_addopts_that_is_not_text_is_refused_by_the_variable_name() {
        use std::os::unix::ffi::OsStringExt;
        let mut env = Env::of(&[]);
        env.vars.insert(
            OsString::from(PYTEST_ADDOPTS),
            OsString::from_vec(b"-k secret\xff".to_vec()),
        );
        let error = EnvSettings::resolve(&env).unwrap_err().to_string();
        assert_eq!(
            error,
            "the environment variable PYTEST_ADDOPTS is not valid UTF-8"
        );
    }

    /// The arguments of `proctor ARGS...`, parsed as clap parses them.
    fn command(args: &[&str]) -> crate::args::Command {
        use clap::Parser as _;
        let mut words = vec!["proctor"];
        words.extend(args);
        crate::args::Cli::try_parse_from(words).unwrap().command
    }

    fn select_args(args: &[&str]) -> SelectArgs {
        let mut words = vec!["select"];
        words.extend(args);
        match command(&words) {
            crate::args::Command::Select(select) => select,
            _ => unreachable!(),
        }
    }

    fn plan_args(args: &[&str]) -> PlanArgs {
        let mut words = vec!["plan"];
        words.extend(args);
        match command(&words) {
            crate::args::Command::Plan(plan) => plan,
            _ => unreachable!(),
        }
    }

    fn check_args(args: &[&str]) -> CheckArgs {
        let mut words = vec!["check"];
        words.extend(args);
        match command(&words) {
            crate::args::Command::Check(check) => check,
            _ => unreachable!(),
        }
    }

    fn with_profiles(profiles: &[(&str, Option<bool>)]) -> ProctorOptions {
        let mut options = ProctorOptions::default();
        for (name, use_default) in profiles {
            options.profiles.push((
                (*name).to_owned(),
                ProfileOptions {
                    markers: Some("slow".to_owned()),
                    use_default: *use_default,
                    ..ProfileOptions::default()
                },
            ));
        }
        options
    }

    #[test]
    fn a_selection_merges_the_flags_with_the_profile() {
        let options = with_profiles(&[("ci", None), ("all", Some(false))]);
        let plain = SelectSettings::resolve(&select_args(&["-m", "fast"]), &options).unwrap();
        assert_eq!(
            plain.selection,
            SelectionSettings {
                profile: None,
                use_default: true,
                markers: Some("fast".to_owned()),
                keywords: None,
            }
        );
        assert!(!plain.json);
        let ci = SelectSettings::resolve(&select_args(&["--profile", "ci", "--json"]), &options)
            .unwrap();
        assert_eq!(ci.selection.profile.as_ref().unwrap().0, "ci");
        assert!(ci.selection.use_default, "use-default is true by default");
        assert!(ci.json);
        let all = SelectSettings::resolve(&select_args(&["--profile", "all"]), &options).unwrap();
        assert!(!all.selection.use_default, "use-default = false");
        let off = SelectSettings::resolve(
            &select_args(&["--profile", "ci", "--no-default-select"]),
            &options,
        )
        .unwrap();
        assert!(!off.selection.use_default);
    }

    #[test]
    fn an_unknown_profile_is_an_error_that_lists_the_configured_ones() {
        let args = select_args(&["--profile", "nightly"]);
        let error = SelectSettings::resolve(&args, &with_profiles(&[("ci", None)])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown profile `nightly` (configured: ci)"
        );
        let error = SelectSettings::resolve(&args, &ProctorOptions::default()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown profile `nightly`: no [profiles] are configured"
        );
    }

    #[test]
    fn a_plan_job_must_be_configured() {
        let mut options = ProctorOptions::default();
        options
            .plan
            .jobs
            .push(("unit".to_owned(), proctor_config::JobOptions::default()));
        let plan = PlanSettings::resolve(&plan_args(&["--job", "unit"]), &options).unwrap();
        assert_eq!(plan.job.as_deref(), Some("unit"));
        let all = PlanSettings::resolve(&plan_args(&["--json"]), &options).unwrap();
        assert_eq!((all.job, all.json), (None, true));
        let error = PlanSettings::resolve(&plan_args(&["--job", "gpu"]), &options).unwrap_err();
        assert_eq!(error.to_string(), "unknown job `gpu` (configured: unit)");
        let error =
            PlanSettings::resolve(&plan_args(&["--job", "gpu"]), &ProctorOptions::default())
                .unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown job `gpu`: no [jobs] are configured"
        );
    }

    #[test]
    fn check_takes_paths_in_ignore_and_refuses_rule_codes() {
        let settings =
            CheckArgsSettings::resolve(&check_args(&["--ignore", "tests/legacy", "--json"]))
                .unwrap();
        assert_eq!(settings.ignore_paths, ["tests/legacy"]);
        assert_eq!(settings.format, Format::Json);
        let github =
            CheckArgsSettings::resolve(&check_args(&["--output-format", "github"])).unwrap();
        assert_eq!(github.format, Format::Github);
        let error = CheckArgsSettings::resolve(&check_args(&["--ignore", "PRC001,PRC2"]))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("`--ignore PRC001,PRC2` names rule codes"),
            "{error}"
        );
    }

    #[test]
    fn check_rules_layer_the_command_line_over_the_configuration() {
        let spanned = |text: &str| Spanned::new(0..0, text.to_owned());
        let options = CheckOptions {
            select: vec![spanned("PRC0")],
            ignore: vec![spanned("PRC001")],
            ..CheckOptions::default()
        };
        let settings = CheckSettings::resolve(
            &check_args(&["--extend-select", "PRC2", "--extend-ignore", "PRC002"]),
            &options,
            None,
        )
        .unwrap();
        assert!(!settings.rules.enabled("PRC001"), "ignored by [check]");
        assert!(!settings.rules.enabled("PRC002"), "--extend-ignore");
        assert!(settings.rules.enabled("PRC003"), "[check] select");
        assert!(settings.rules.enabled("PRC201"), "--extend-select");
        assert!(!settings.rules.enabled("PRC101"), "not in [check] select");
        let error = CheckSettings::resolve(&check_args(&["--select", "NOPE1"]), &options, None)
            .err()
            .unwrap();
        assert!(
            error
                .to_string()
                .starts_with("unknown rule selector `NOPE1`"),
            "{error:#}"
        );
    }

    #[test]
    fn unknown_check_selectors_are_errors_at_their_values_all_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("proctor.toml");
        let text = "[check]\nselect = [\"PRC0\", \"E501\"]\nignore = [\"W2\"]\n";
        std::fs::write(&file, text).unwrap();
        let at = |needle: &str| {
            Spanned::new(
                text.find(needle).unwrap()..0,
                needle.trim_matches('"').to_owned(),
            )
        };
        let options = CheckOptions {
            select: vec![at("\"PRC0\""), at("\"E501\"")],
            ignore: vec![at("\"W2\"")],
            ..CheckOptions::default()
        };
        let error = CheckSettings::resolve(&check_args(&[]), &options, Some(&file))
            .err()
            .unwrap();
        let error = error.downcast_ref::<ConfigError>().unwrap();
        let found: Vec<(usize, usize, &str)> = error
            .iter()
            .map(|e| (e.line, e.column, e.message.as_str()))
            .collect();
        assert_eq!(found.len(), 2, "{error}");
        assert_eq!((found[0].0, found[0].1), (2, 19), "{error}");
        assert!(
            found[0].2.starts_with("unknown rule selector `E501`"),
            "{error}"
        );
        assert_eq!((found[1].0, found[1].1), (3, 11), "{error}");
        assert_eq!(error.path, file);
    }

    #[test]
    fn zero_threads_are_refused_by_the_flag_name() {
        assert_eq!(
            threads_arg(Some(0)).unwrap_err().to_string(),
            "--threads must be at least 1"
        );
        assert_eq!(threads_arg(Some(2)).unwrap(), Some(2));
        assert_eq!(threads_arg(None).unwrap(), None);
    }
}
