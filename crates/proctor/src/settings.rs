//! Resolved settings: the command line, proctor's options and pytest's
//! configuration merged in one step per command (as uv's
//! `crates/uv/src/settings.rs`), so that a command reads typed values with
//! the defaults already applied, and every bad value is refused here, named
//! by its flag or at its `file:line:col`, all of a file's at once.

use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use proctor_config::{
    ConfigError, ConfigLocation, IniValue, ProctorOptions, PytestConfig, Seconds,
    PYTEST_ADDOPTS_PATH,
};

use crate::args::RunArgs;

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
    fn zero_threads_are_refused_by_the_flag_name() {
        assert_eq!(
            threads_arg(Some(0)).unwrap_err().to_string(),
            "--threads must be at least 1"
        );
        assert_eq!(threads_arg(Some(2)).unwrap(), Some(2));
        assert_eq!(threads_arg(None).unwrap(), None);
    }
}
