//! Installed Python distributions, read from the metadata files in
//! site-packages directories (`*.dist-info/METADATA`, `*.egg-info/PKG-INFO`
//! or an `*.egg-info` file) without running Python, and the top-level
//! modules those directories let the interpreter import: a module is not a
//! distribution (`import yaml` is distribution `PyYAML`'s, `dateutil`
//! `python-dateutil`'s), and `pytest.importorskip` names modules.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// A distribution name normalized as PEP 503 says: lowercase, with every
/// run of `-`, `_` and `.` replaced by one `-` (`Foo__Bar.baz` →
/// `foo-bar-baz`).
#[must_use]
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_separator = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !in_separator {
                out.push('-');
            }
            in_separator = true;
        } else {
            out.extend(c.to_lowercase());
            in_separator = false;
        }
    }
    out
}

/// The distributions installed in `dirs`: normalized name → version. When
/// a name is in several directories the first directory wins, as for
/// `importlib.metadata`.
pub(crate) fn read_packages(dirs: &[PathBuf]) -> BTreeMap<String, String> {
    let mut packages = BTreeMap::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut found: Vec<(String, String)> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| read_distribution(&entry.path()))
            .collect();
        // Within one directory, a stable order for duplicates.
        found.sort();
        for (name, version) in found {
            packages.entry(normalize_name(&name)).or_insert(version);
        }
    }
    packages
}

/// The top-level modules the directories `dirs` (an interpreter's
/// `sys.path`) provide, as Python's path finder finds them: packages
/// (directories, namespace packages included), `x.py` and `x.pyc` modules,
/// and extension modules (`x.cpython-311-x86_64-linux-gnu.so`, `x.pyd`).
/// Names that are not identifiers (`foo-1.0.dist-info`) are no modules.
pub(crate) fn read_modules(dirs: &[PathBuf]) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let module = if entry.path().is_dir() {
                Some(name.as_str())
            } else if let Some(stem) = name
                .strip_suffix(".py")
                .or_else(|| name.strip_suffix(".pyc"))
            {
                Some(stem)
            } else if Path::new(&name)
                .extension()
                .is_some_and(|e| e == "so" || e == "pyd")
            {
                name.split('.').next()
            } else {
                None
            };
            if let Some(module) = module.filter(|m| is_identifier(m)) {
                modules.insert(module.to_owned());
            }
        }
    }
    modules
}

/// Whether `name` can be a module's name (ASCII identifiers; others are
/// accepted as they come, as Python accepts them).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || !c.is_ascii() || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || !c.is_ascii() || c.is_ascii_alphanumeric())
}

/// The name and version of the distribution whose metadata is at `path`
/// (a `.dist-info` or `.egg-info` directory, or an `.egg-info` file).
fn read_distribution(path: &Path) -> Option<(String, String)> {
    let file_name = path.file_name()?.to_str()?;
    let metadata = if file_name.ends_with(".dist-info") {
        path.join("METADATA")
    } else if file_name.ends_with(".egg-info") {
        if path.is_dir() {
            path.join("PKG-INFO")
        } else {
            path.to_path_buf()
        }
    } else {
        return None;
    };
    let headers = File::open(&metadata)
        .ok()
        .and_then(|file| read_headers(BufReader::new(file)));
    headers.or_else(|| name_version_from_dir(file_name))
}

/// The `Name:` and `Version:` headers of a core metadata file, read up to
/// the blank line that ends the headers (the description may be long).
pub(crate) fn read_headers(reader: impl BufRead) -> Option<(String, String)> {
    let mut name = None;
    let mut version = None;
    for line in reader.lines() {
        let line = line.ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((key, value)) = line.split_once(':') {
            let value = value.trim();
            if key.eq_ignore_ascii_case("name") && name.is_none() {
                name = Some(value.to_owned());
            } else if key.eq_ignore_ascii_case("version") && version.is_none() {
                version = Some(value.to_owned());
            }
        }
        if name.is_some() && version.is_some() {
            break;
        }
    }
    Some((name.filter(|n| !n.is_empty())?, version.unwrap_or_default()))
}

/// `foo_bar-1.2.dist-info` → (`foo_bar`, `1.2`), for metadata that cannot
/// be read.
fn name_version_from_dir(file_name: &str) -> Option<(String, String)> {
    let stem = file_name
        .strip_suffix(".dist-info")
        .or_else(|| file_name.strip_suffix(".egg-info"))?;
    let (name, rest) = stem.split_once('-')?;
    // Egg names may carry `-py3.11` after the version.
    let version = rest.split('-').next().unwrap_or_default();
    (!name.is_empty()).then(|| (name.to_owned(), version.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_as_pep_503() {
        assert_eq!(normalize_name("Foo_Bar"), "foo-bar");
        assert_eq!(normalize_name("foo.bar"), "foo-bar");
        assert_eq!(normalize_name("Foo__-.Bar-baz"), "foo-bar-baz");
        assert_eq!(normalize_name("typing_extensions"), "typing-extensions");
        assert_eq!(normalize_name("torch"), "torch");
    }

    #[test]
    fn metadata_headers_are_read_up_to_the_body() {
        let text =
            "Metadata-Version: 2.1\nName: foo_bar\nVersion: 1.2\nSummary: x\n\nName: not-this\n";
        assert_eq!(
            read_headers(text.as_bytes()),
            Some(("foo_bar".into(), "1.2".into()))
        );
        let body_only = "Metadata-Version: 2.1\n\nName: foo\nVersion: 1\n";
        assert_eq!(read_headers(body_only.as_bytes()), None);
        assert_eq!(
            read_headers("Name: foo\r\n".as_bytes()),
            Some(("foo".into(), String::new()))
        );
    }

    #[test]
    fn directory_names_are_a_fallback() {
        assert_eq!(
            name_version_from_dir("foo_bar-1.2.dist-info"),
            Some(("foo_bar".into(), "1.2".into()))
        );
        assert_eq!(
            name_version_from_dir("six-1.16.0-py3.11.egg-info"),
            Some(("six".into(), "1.16.0".into()))
        );
        assert_eq!(name_version_from_dir("broken.dist-info"), None);
    }

    #[test]
    fn modules_are_what_the_directories_let_python_import() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        };
        // PyYAML's distribution provides module `yaml` (and `_yaml`).
        write("PyYAML-6.0.2.dist-info/METADATA");
        write("PyYAML-6.0.2.dist-info/top_level.txt");
        write("yaml/__init__.py");
        write("_yaml/__init__.py");
        write("namespace_pkg/sub/mod.py");
        write("six.py");
        write("compiled.pyc");
        write("_cffi_backend.cpython-311-x86_64-linux-gnu.so");
        write("winmod.pyd");
        write("distutils-precedence.pth");
        write("README.txt");
        let modules = read_modules(&[dir.path().to_path_buf(), dir.path().join("missing")]);
        let expected: BTreeSet<String> = [
            "_cffi_backend",
            "_yaml",
            "compiled",
            "namespace_pkg",
            "six",
            "winmod",
            "yaml",
        ]
        .map(str::to_owned)
        .into();
        assert_eq!(modules, expected);
    }

    #[test]
    fn site_packages_are_read_first_directory_first() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        let write = |dir: &Path, path: &str, text: &str| {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            first.path(),
            "foo_bar-1.2.dist-info/METADATA",
            "Name: Foo_Bar\nVersion: 1.2\n",
        );
        write(
            first.path(),
            "baz.egg-info/PKG-INFO",
            "Name: baz\nVersion: 0.3\n",
        );
        write(
            first.path(),
            "old-1.0-py3.11.egg-info",
            "Metadata-Version: 1.0\nName: old\nVersion: 1.0\n",
        );
        write(first.path(), "nometa-2.0.dist-info/RECORD", "");
        write(first.path(), "module.py", "");
        write(
            second.path(),
            "foo_bar-9.dist-info/METADATA",
            "Name: foo-bar\nVersion: 9\n",
        );
        let packages = read_packages(&[
            first.path().to_path_buf(),
            second.path().join("missing"),
            second.path().to_path_buf(),
        ]);
        let expected: BTreeMap<String, String> = [
            ("baz", "0.3"),
            ("foo-bar", "1.2"),
            ("nometa", "2.0"),
            ("old", "1.0"),
        ]
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .into();
        assert_eq!(packages, expected);
    }
}
