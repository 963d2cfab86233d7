//! The config file loaders of `_pytest/config/findpaths.py`: which files pytest
//! looks for, in which order, and which tables or sections in them count as
//! pytest configuration.

use std::path::{Path, PathBuf};

use toml_edit::{Item, TableLike};

use crate::ini::{self, IniFile};
use crate::python;
use crate::values::IniValue;
use proctor_config_file::ConfigFile;
use proctor_config_file::{self as toml_doc, TomlDoc};
use proctor_config_file::{ConfigError, ConfigLocation};

/// Which kind of file (and which table or section in it) pytest's configuration
/// comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IniKind {
    /// `pytest.toml`: the `[pytest]` table, native TOML types (pytest 9).
    PytestToml,
    /// `.pytest.toml`: like [`IniKind::PytestToml`].
    DotPytestToml,
    /// `pytest.ini`: the `[pytest]` section; the file counts even without it.
    PytestIni,
    /// `.pytest.ini`: like [`IniKind::PytestIni`].
    DotPytestIni,
    /// `pyproject.toml` with `[tool.pytest.ini_options]` (values as strings).
    PyprojectIniOptions,
    /// `pyproject.toml` with a native `[tool.pytest]` table (pytest 9).
    PyprojectNative,
    /// `pyproject.toml` without pytest tables, which pytest still reports as
    /// its config file when it is the only thing that fixes the rootdir (or
    /// when passed with `-c`); it holds no pytest configuration.
    PyprojectNoTable,
    /// `tox.ini` with a `[pytest]` section.
    ToxIni,
    /// `setup.cfg` with a `[tool:pytest]` section.
    SetupCfg,
    /// Another `*.ini` file given with `-c`: its `[pytest]` section, if any.
    OtherIni,
    /// Another `*.cfg` file given with `-c`: its `[tool:pytest]` section, if any.
    OtherCfg,
    /// Another `*.toml` file given with `-c`: its `[pytest]` table, if any (a
    /// file with `[tool.pytest…]` tables is reported as the pyproject kind).
    OtherToml,
    /// A `-c` path that is not a regular file, such as `/dev/null`: pytest's
    /// way of asking for no configuration.
    NotAFile,
}

/// One configuration key as a file gave it.
#[derive(Debug, Clone)]
pub(crate) struct RawEntry {
    pub(crate) key: String,
    pub(crate) value: IniValue,
    pub(crate) location: ConfigLocation,
}

/// The pytest configuration found in one file.
#[derive(Debug, Clone)]
pub(crate) struct LoadedConfig {
    pub(crate) path: PathBuf,
    pub(crate) kind: IniKind,
    pub(crate) entries: Vec<RawEntry>,
    /// Where the table or section starts, for warnings.
    pub(crate) table_location: ConfigLocation,
    /// `[pytest]`, `[tool.pytest.ini_options]` …; empty for a file that
    /// counts without a table.
    pub(crate) table_label: &'static str,
    /// The file's text, for excerpts in later errors about values.
    pub(crate) source: Option<ConfigFile>,
}

impl LoadedConfig {
    /// A config file that holds no pytest configuration.
    pub(crate) fn empty(path: &Path, kind: IniKind) -> LoadedConfig {
        LoadedConfig {
            path: path.to_path_buf(),
            kind,
            entries: Vec::new(),
            table_location: ConfigLocation::START,
            table_label: "",
            source: None,
        }
    }

    /// An error about a value at `location` in this file.
    pub(crate) fn error(
        &self,
        location: ConfigLocation,
        message: impl Into<String>,
    ) -> ConfigError {
        match &self.source {
            Some(source) => source.error_at_location(location, message),
            None => ConfigError::at(&self.path, location, message, None),
        }
    }
}

/// How a file is read; the keys of pytest's loader tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loader {
    PytestToml,
    PytestIni,
    Pyproject,
    IniFile,
    CfgFile,
    CustomToml,
}

/// `CONFIG_LOADERS_BY_NAME`: the files pytest discovers, in precedence order.
pub(crate) const CONFIG_NAMES: [(&str, Loader); 7] = [
    ("pytest.toml", Loader::PytestToml),
    (".pytest.toml", Loader::PytestToml),
    ("pytest.ini", Loader::PytestIni),
    (".pytest.ini", Loader::PytestIni),
    ("pyproject.toml", Loader::Pyproject),
    ("tox.ini", Loader::IniFile),
    ("setup.cfg", Loader::CfgFile),
];

/// `_get_config_loader`: by file name first, then by suffix (for `-c`).
pub(crate) fn loader_for(path: &Path) -> Option<Loader> {
    let name = path.file_name()?.to_str()?;
    if let Some((_, loader)) = CONFIG_NAMES.iter().find(|(n, _)| *n == name) {
        return Some(*loader);
    }
    match path.extension()?.to_str()? {
        "ini" => Some(Loader::IniFile),
        "cfg" => Some(Loader::CfgFile),
        "toml" => Some(Loader::CustomToml),
        _ => None,
    }
}

/// The kind reported for a file whose loader found no configuration in it but
/// that pytest uses anyway (`-c`, or the `pyproject.toml` rootdir fallback).
pub(crate) fn kind_without_config(path: &Path, loader: Loader) -> IniKind {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match loader {
        Loader::PytestToml | Loader::PytestIni => kind_by_name(name, loader),
        Loader::Pyproject => IniKind::PyprojectNoTable,
        Loader::IniFile => {
            if name == "tox.ini" {
                IniKind::ToxIni
            } else {
                IniKind::OtherIni
            }
        }
        Loader::CfgFile => {
            if name == "setup.cfg" {
                IniKind::SetupCfg
            } else {
                IniKind::OtherCfg
            }
        }
        Loader::CustomToml => IniKind::OtherToml,
    }
}

fn kind_by_name(name: &str, loader: Loader) -> IniKind {
    match (loader, name) {
        (Loader::PytestToml, ".pytest.toml") => IniKind::DotPytestToml,
        (Loader::PytestToml, _) => IniKind::PytestToml,
        (Loader::PytestIni, ".pytest.ini") => IniKind::DotPytestIni,
        _ => IniKind::PytestIni,
    }
}

/// Runs a loader: `Ok(None)` when the file holds no pytest configuration of
/// the kind this loader looks for.
pub(crate) fn load(loader: Loader, path: &Path) -> Result<Option<LoadedConfig>, ConfigError> {
    let source = ConfigFile::read(path)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match loader {
        Loader::PytestIni => {
            let file = parse_ini(&source)?;
            let kind = kind_by_name(name, loader);
            Ok(Some(
                ini_section(&source, &file, "pytest", kind, "[pytest]")
                    .unwrap_or_else(|| LoadedConfig::empty(path, kind)),
            ))
        }
        Loader::IniFile => {
            let file = parse_ini(&source)?;
            let kind = if name == "tox.ini" {
                IniKind::ToxIni
            } else {
                IniKind::OtherIni
            };
            Ok(ini_section(&source, &file, "pytest", kind, "[pytest]"))
        }
        Loader::CfgFile => {
            let file = parse_ini(&source)?;
            let kind = if name == "setup.cfg" {
                IniKind::SetupCfg
            } else {
                IniKind::OtherCfg
            };
            if let Some(config) = ini_section(&source, &file, "tool:pytest", kind, "[tool:pytest]")
            {
                return Ok(Some(config));
            }
            if let Some(section) = file.section("pytest") {
                // pytest `fail()`s here; note that it names setup.cfg even
                // for another .cfg file.
                return Err(ini_error(
                    &source,
                    section.line,
                    "[pytest] section in setup.cfg files is no longer supported, change to [tool:pytest] instead.",
                ));
            }
            Ok(None)
        }
        Loader::PytestToml => {
            let doc = TomlDoc::parse(&source)?;
            let kind = kind_by_name(name, loader);
            Ok(Some(
                pytest_table(&doc, kind)?.unwrap_or_else(|| LoadedConfig::empty(path, kind)),
            ))
        }
        Loader::Pyproject => {
            let doc = TomlDoc::parse(&source)?;
            tool_pytest(&doc)
        }
        Loader::CustomToml => {
            let doc = TomlDoc::parse(&source)?;
            let Some(config) = tool_pytest(&doc)? else {
                return pytest_table(&doc, IniKind::OtherToml);
            };
            if doc.root().contains_key("pytest") {
                return Err(doc.error(
                    doc.key_location(doc.root(), "pytest"),
                    "Cannot use both [pytest] and [tool.pytest]/[tool.pytest.ini_options] in the same file. Please use [pytest], which is what pytest's own configuration files use; the [tool.pytest] tables are meant for pyproject.toml.",
                ));
            }
            Ok(Some(config))
        }
    }
}

fn parse_ini(source: &ConfigFile) -> Result<IniFile, ConfigError> {
    ini::parse(source.text()).map_err(|err| ini_error(source, err.line, &err.message))
}

fn ini_error(source: &ConfigFile, line: usize, message: &str) -> ConfigError {
    let lines = ini::lines(source.text());
    ConfigError::at(
        &source.path,
        ConfigLocation {
            line: line + 1,
            column: 1,
        },
        message,
        lines.get(line).copied(),
    )
}

fn ini_section(
    source: &ConfigFile,
    file: &IniFile,
    section: &str,
    kind: IniKind,
    label: &'static str,
) -> Option<LoadedConfig> {
    let section = file.section(section)?;
    Some(LoadedConfig {
        path: source.path.clone(),
        kind,
        entries: section
            .entries
            .iter()
            .map(|entry| RawEntry {
                key: entry.key.clone(),
                value: IniValue::Text(entry.value.clone()),
                location: ConfigLocation {
                    line: entry.line + 1,
                    column: 1,
                },
            })
            .collect(),
        table_location: ConfigLocation {
            line: section.line + 1,
            column: 1,
        },
        table_label: label,
        source: Some(source.clone()),
    })
}

/// A table's entries with their positions, in toml or ini mode.
fn table_entries(doc: &TomlDoc<'_>, table: &dyn TableLike, ini_mode: bool) -> Vec<RawEntry> {
    table
        .iter()
        .filter_map(|(key, item)| {
            let value = toml_doc::to_value(item)?;
            let value = if !ini_mode {
                IniValue::Native(value)
            } else if let toml::Value::Array(items) = value {
                IniValue::List(items)
            } else {
                IniValue::Text(python::str_of_toml(&value))
            };
            Some(RawEntry {
                key: key.to_owned(),
                value,
                location: doc.key_location(table, key),
            })
        })
        .collect()
}

/// `_config_from_pytest_table`: the `[pytest]` table of `pytest.toml` or of a
/// `-c` TOML file.
fn pytest_table(doc: &TomlDoc<'_>, kind: IniKind) -> Result<Option<LoadedConfig>, ConfigError> {
    let root = doc.root();
    if let Some(item) = root.get("pytest") {
        let Some(table) = item.as_table_like() else {
            return Err(doc.error(
                doc.key_location(root, "pytest"),
                "`pytest` must be a table (pytest fails with an internal error here)",
            ));
        };
        return Ok(Some(LoadedConfig {
            path: doc.source.path.clone(),
            kind,
            entries: table_entries(doc, table, false),
            table_location: doc.table_location(item),
            table_label: "[pytest]",
            source: Some(doc.source.clone()),
        }));
    }
    let top_level: Vec<&str> = root
        .iter()
        .filter(|(_, item)| !toml_doc::is_table(item))
        .map(|(key, _)| key)
        .collect();
    if let Some(first) = top_level.first() {
        return Err(doc.error(
            doc.key_location(root, first),
            format!(
                "pytest configuration must be under a [pytest] table (found top-level options: {})",
                top_level.join(", ")
            ),
        ));
    }
    Ok(None)
}

/// `_config_from_tool_pytest`: `[tool.pytest]` (toml mode) or
/// `[tool.pytest.ini_options]` (ini mode) of `pyproject.toml`.
fn tool_pytest(doc: &TomlDoc<'_>) -> Result<Option<LoadedConfig>, ConfigError> {
    let root = doc.root();
    let Some(tool_item) = root.get("tool") else {
        return Ok(None);
    };
    let Some(tool) = tool_item.as_table_like() else {
        return Err(doc.error(
            doc.key_location(root, "tool"),
            "`tool` must be a table (pytest fails with an internal error here)",
        ));
    };
    let Some(pytest_item) = tool.get("pytest") else {
        return Ok(None);
    };
    let Some(pytest) = pytest_item.as_table_like() else {
        return Err(doc.error(
            doc.key_location(tool, "pytest"),
            "`tool.pytest` must be a table (pytest fails with an internal error here)",
        ));
    };
    let has_native = pytest.iter().any(|(key, _)| key != "ini_options");
    let ini_item = pytest.get("ini_options");
    let ini_truthy = ini_item
        .and_then(toml_doc::to_value)
        .is_some_and(|value| python::is_truthy(&value));

    if has_native && ini_truthy {
        return Err(doc.error(
            doc.key_location(pytest, "ini_options"),
            "Cannot use both [tool.pytest] (native TOML types) and [tool.pytest.ini_options] (string-based INI format) simultaneously. Please use [tool.pytest] with native TOML types (recommended) or [tool.pytest.ini_options] for backwards compatibility.",
        ));
    }
    if has_native {
        // An empty `ini_options` table next to native keys is silently ignored.
        let entries = table_entries(doc, pytest, false)
            .into_iter()
            .filter(|entry| entry.key != "ini_options")
            .collect();
        return Ok(Some(LoadedConfig {
            path: doc.source.path.clone(),
            kind: IniKind::PyprojectNative,
            entries,
            table_location: doc.table_location(pytest_item),
            table_label: "[tool.pytest]",
            source: Some(doc.source.clone()),
        }));
    }
    let Some(ini_item) = ini_item else {
        // An empty `[tool.pytest]` table is no configuration at all.
        return Ok(None);
    };
    let Some(ini_table) = ini_item.as_table_like() else {
        return Err(doc.error(
            doc.key_location(pytest, "ini_options"),
            "`tool.pytest.ini_options` must be a table (pytest fails with an internal error here)",
        ));
    };
    Ok(Some(LoadedConfig {
        path: doc.source.path.clone(),
        kind: IniKind::PyprojectIniOptions,
        entries: table_entries(doc, ini_table, true),
        table_location: table_location_of(doc, ini_item, pytest),
        table_label: "[tool.pytest.ini_options]",
        source: Some(doc.source.clone()),
    }))
}

fn table_location_of(doc: &TomlDoc<'_>, item: &Item, parent: &dyn TableLike) -> ConfigLocation {
    if item.span().is_some() {
        doc.table_location(item)
    } else {
        doc.key_location(parent, "ini_options")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn keys(config: &LoadedConfig) -> Vec<(&str, &IniValue)> {
        config
            .entries
            .iter()
            .map(|e| (e.key.as_str(), &e.value))
            .collect()
    }

    #[test]
    fn pytest_ini_counts_even_when_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "pytest.ini", "");
        let config = load(Loader::PytestIni, &path).unwrap().unwrap();
        assert_eq!(config.kind, IniKind::PytestIni);
        assert!(config.entries.is_empty());
        let path = write(dir.path(), ".pytest.ini", "[other]\nx=1\n");
        assert_eq!(
            load(Loader::PytestIni, &path).unwrap().unwrap().kind,
            IniKind::DotPytestIni
        );
    }

    #[test]
    fn tox_and_setup_cfg_need_their_section() {
        let dir = tempfile::tempdir().unwrap();
        let tox = write(dir.path(), "tox.ini", "[tox]\nenvlist = py3\n");
        assert!(load(Loader::IniFile, &tox).unwrap().is_none());
        let cfg = write(
            dir.path(),
            "setup.cfg",
            "[metadata]\nname = x\n[tool:pytest]\ntestpaths = t\n",
        );
        let config = load(Loader::CfgFile, &cfg).unwrap().unwrap();
        assert_eq!(config.kind, IniKind::SetupCfg);
        assert_eq!(config.table_location.line, 3);
        assert_eq!(config.entries[0].location.line, 4);
    }

    #[test]
    fn setup_cfg_with_plain_pytest_section_fails() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = write(dir.path(), "setup.cfg", "[metadata]\n\n[pytest]\nx = 1\n");
        let error = load(Loader::CfgFile, &cfg).unwrap_err();
        assert_eq!((error.line, error.column), (3, 1));
        assert!(error.message.contains("change to [tool:pytest]"));
    }

    #[test]
    fn pyproject_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "pyproject.toml", "[project]\nname = 'x'\n");
        assert!(load(Loader::Pyproject, &path).unwrap().is_none());

        write(dir.path(), "pyproject.toml", "[tool.pytest]\n");
        assert!(
            load(Loader::Pyproject, &path).unwrap().is_none(),
            "empty [tool.pytest] is no config"
        );

        write(dir.path(), "pyproject.toml", "[tool.pytest.ini_options]\n");
        let config = load(Loader::Pyproject, &path).unwrap().unwrap();
        assert_eq!(config.kind, IniKind::PyprojectIniOptions);

        write(
            dir.path(),
            "pyproject.toml",
            "[tool.pytest.ini_options]\ntestpaths = ['a']\nxfail_strict = true\nminversion = 6.0\n",
        );
        let config = load(Loader::Pyproject, &path).unwrap().unwrap();
        assert_eq!(
            keys(&config),
            [
                (
                    "testpaths",
                    &IniValue::List(vec![toml::Value::String("a".into())])
                ),
                ("xfail_strict", &IniValue::Text("True".into())),
                ("minversion", &IniValue::Text("6.0".into())),
            ]
        );

        write(
            dir.path(),
            "pyproject.toml",
            "[tool.pytest]\ntestpaths = ['a']\n[tool.pytest.ini_options]\n",
        );
        let config = load(Loader::Pyproject, &path).unwrap().unwrap();
        assert_eq!(
            config.kind,
            IniKind::PyprojectNative,
            "an empty ini_options is ignored"
        );
        assert_eq!(config.entries.len(), 1);

        write(
            dir.path(),
            "pyproject.toml",
            "[tool.pytest]\na = 1\n[tool.pytest.ini_options]\nb = 2\n",
        );
        let error = load(Loader::Pyproject, &path).unwrap_err();
        assert!(error.message.contains("Cannot use both"), "{error}");
        assert_eq!(error.line, 3);
    }

    #[test]
    fn pyproject_shapes_pytest_crashes_on_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "pyproject.toml", "tool = 1\n");
        assert!(load(Loader::Pyproject, &path).is_err());
        write(dir.path(), "pyproject.toml", "[tool]\npytest = 'x'\n");
        assert_eq!(load(Loader::Pyproject, &path).unwrap_err().line, 2);
        write(
            dir.path(),
            "pyproject.toml",
            "[tool.pytest]\nini_options = 3\n",
        );
        assert!(
            load(Loader::Pyproject, &path).is_err(),
            "ini_options that is not a table"
        );
    }

    #[test]
    fn pytest_toml_needs_its_table() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "pytest.toml", "[tool.black]\nx = 1\n");
        let config = load(Loader::PytestToml, &path).unwrap().unwrap();
        assert!(config.entries.is_empty());
        write(dir.path(), "pytest.toml", "testpaths = ['a']\n");
        let error = load(Loader::PytestToml, &path).unwrap_err();
        assert!(error
            .message
            .contains("must be under a [pytest] table (found top-level options: testpaths)"));
        write(dir.path(), "pytest.toml", "[pytest]\ntestpaths = ['a']\n");
        let config = load(Loader::PytestToml, &path).unwrap().unwrap();
        assert_eq!(
            keys(&config),
            [(
                "testpaths",
                &IniValue::Native(toml::Value::Array(vec![toml::Value::String("a".into())]))
            )]
        );
    }

    #[test]
    fn custom_toml_accepts_either_style_but_not_both() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "ci.toml",
            "[tool.pytest.ini_options]\nx = '1'\n",
        );
        assert_eq!(
            load(Loader::CustomToml, &path).unwrap().unwrap().kind,
            IniKind::PyprojectIniOptions
        );
        write(
            dir.path(),
            "ci.toml",
            "[pytest]\nx = '1'\n[tool.pytest]\ny = 2\n",
        );
        assert!(load(Loader::CustomToml, &path).is_err());
    }

    #[test]
    fn loaders_by_name_then_suffix() {
        assert_eq!(
            loader_for(Path::new("a/pyproject.toml")),
            Some(Loader::Pyproject)
        );
        assert_eq!(loader_for(Path::new("a/x.toml")), Some(Loader::CustomToml));
        assert_eq!(loader_for(Path::new("a/setup.cfg")), Some(Loader::CfgFile));
        assert_eq!(loader_for(Path::new("a/x.ini")), Some(Loader::IniFile));
        assert_eq!(loader_for(Path::new("/dev/null")), None);
        assert_eq!(loader_for(Path::new("a/.ini")), None);
    }
}
