//! The resolved inputs of static collection: pytest's ini values that shape
//! collection, already merged with the command line by the caller.

use std::path::{Path, PathBuf};

use crate::ids::IdOptions;
use crate::opt_in::OptInSettings;

/// Everything static collection needs to know about the suite's setup.
#[derive(Debug, Clone)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent pytest settings, each read as pytest reads it"
)]
pub struct CollectSettings {
    /// pytest's rootdir (absolute).
    pub rootdir: PathBuf,
    /// `python_files` globs.
    pub python_files: Vec<String>,
    /// `python_classes` prefixes or globs.
    pub python_classes: Vec<String>,
    /// `python_functions` prefixes or globs.
    pub python_functions: Vec<String>,
    /// `norecursedirs` patterns.
    pub norecursedirs: Vec<String>,
    /// `--ignore` paths (absolute, normalised).
    pub ignore: Vec<PathBuf>,
    /// `--ignore-glob` patterns (matched against absolute paths).
    pub ignore_glob: Vec<String>,
    /// `pythonpath` entries (absolute) used to resolve imports.
    pub pythonpath: Vec<PathBuf>,
    /// `collect_imported_tests` (pytest 8.4+); default true.
    pub collect_imported_tests: bool,
    /// `empty_parameter_set_mark`: `skip` (default), `xfail` or
    /// `fail_at_collect`.
    pub empty_parameter_set_mark: String,
    /// `--doctest-glob` patterns (default `test*.txt`).
    pub doctest_glob: Vec<String>,
    /// `--doctest-modules`: docstring doctests of every module are collected
    /// too (reported as dynamic items).
    pub doctest_modules: bool,
    /// `--import-mode`: `prepend` (default), `append` or `importlib`.
    pub import_mode: String,
    /// Options that change parametrize ids.
    pub ids: IdOptions,
    /// Files larger than this are reported instead of parsed.
    pub max_file_size: u64,
    /// Worker threads for parsing (0: one per core).
    pub threads: usize,
    /// Collect test definitions rather than pytest's items, for callers
    /// that look at what is written (lint) and not at the run: the
    /// instances of a parametrized test that carry no marks of their own
    /// become one item, every item of a parametrized test has the node id
    /// of its function (without `[...]`), and items are left in file order
    /// instead of pytest's fixture-scope order. Markers, decorators,
    /// locations, dynamic reasons and errors are those of full collection.
    pub definitions_only: bool,
    /// Example scripts and notebooks that are tests when they opt in.
    /// Whether the suite's warning filters (`filterwarnings`, `-W`) turn
    /// pytest's `PytestRemovedIn10Warning` into an error: then argvalues
    /// given as an iterator (a generator, `map(...)`) fail the module.
    /// The target interpreter's `sys.path` outside the suite (standard
    /// library, site-packages), read from disk; `None` when unknown. It
    /// decides which top-level `pytest.importorskip(...)` skip a module.
    pub module_path: Option<std::sync::Arc<ModulePath>>,
    /// Whether a top-level `import` of a module [`Self::module_path`] does
    /// not have is a collection error (`ModuleNotFoundError`), as in
    /// pytest. Off where a conftest changes `sys.path`.
    pub infer_import_errors: bool,
    pub deprecations_are_errors: bool,
    /// Hypothesis's pytest plugin is active in the target interpreter: it
    /// marks every test decorated with `@given` `hypothesis` (appended in
    /// `pytest_collection_modifyitems`).
    pub hypothesis_plugin: bool,
    /// pytest-asyncio's plugin is active in the target interpreter: in
    /// `auto` mode ([`Self::asyncio_auto`]) it marks every coroutine test
    /// `asyncio` (`add_marker` while the item is made).
    pub asyncio_plugin: bool,
    /// `asyncio_mode = auto` (or `--asyncio-mode=auto` in addopts).
    pub asyncio_auto: bool,
    /// `[fixtures.<name>] markers = [...]`: markers for every test whose
    /// fixture closure holds the fixture, rules in file order. They follow
    /// the test's own, parameter and plugin markers (`item.add_marker`).
    pub fixture_markers: Vec<(String, Vec<String>)>,
    /// The target interpreter's `sys.version_info` as far as its files
    /// state it; `None` when no interpreter is found. The evaluator answers
    /// `sys.version_info` comparisons with it.
    pub python_version: Option<PythonVersion>,
    pub opt_in: OptInSettings,
    /// The collection cache's folder (`.proctor/cache` under the rootdir
    /// unless configured); `None` (`--no-cache`) collects everything anew
    /// and writes nothing.
    pub cache: Option<PathBuf>,
}

impl CollectSettings {
    /// pytest's defaults for a suite at `rootdir`.
    #[must_use]
    pub fn new(rootdir: PathBuf) -> Self {
        CollectSettings {
            rootdir,
            python_files: vec!["test_*.py".into(), "*_test.py".into()],
            python_classes: vec!["Test".into()],
            python_functions: vec!["test".into()],
            norecursedirs: [
                "*.egg",
                ".*",
                "_darcs",
                "build",
                "CVS",
                "dist",
                "node_modules",
                "venv",
                "{arch}",
            ]
            .map(String::from)
            .to_vec(),
            ignore: Vec::new(),
            ignore_glob: Vec::new(),
            pythonpath: Vec::new(),
            collect_imported_tests: true,
            empty_parameter_set_mark: "skip".into(),
            doctest_glob: vec!["test*.txt".into()],
            doctest_modules: false,
            import_mode: "prepend".into(),
            ids: IdOptions::default(),
            max_file_size: 16 * 1024 * 1024,
            threads: 0,
            definitions_only: false,
            opt_in: OptInSettings::default(),
            deprecations_are_errors: false,
            hypothesis_plugin: false,
            asyncio_plugin: false,
            asyncio_auto: false,
            fixture_markers: Vec::new(),
            python_version: None,
            module_path: None,
            infer_import_errors: false,
            cache: None,
        }
    }

    /// `path` relative to the rootdir with `/` separators, as in node ids;
    /// the path itself when it lies outside the rootdir.
    #[must_use]
    pub fn relative(&self, path: &Path) -> String {
        if let Some(plain) = self.plain_relative(path) {
            return plain.to_owned();
        }
        let rel = path.strip_prefix(&self.rootdir).unwrap_or(path);
        let mut out = String::new();
        for (i, component) in rel.components().enumerate() {
            if i > 0 {
                out.push('/');
            }
            push_wire(&mut out, component.as_os_str());
        }
        if out.is_empty() {
            ".".to_string()
        } else {
            out
        }
    }

    /// [`Self::relative`] without taking `path` apart: its bytes after the
    /// rootdir's and a slash, when they are UTF-8 and name plain components
    /// (no `.` to drop, no doubled or trailing slash), as nearly every path
    /// the walk gives is.
    fn plain_relative<'p>(&self, path: &'p Path) -> Option<&'p str> {
        use std::os::unix::ffi::OsStrExt;
        let rest = path
            .as_os_str()
            .as_bytes()
            .strip_prefix(self.rootdir.as_os_str().as_bytes())?
            .strip_prefix(b"/")?;
        plain_components(rest).then(|| std::str::from_utf8(rest).ok())?
    }
}

/// Whether `bytes` is a relative path of plain components, as the walk
/// joins them: no empty one (a leading, doubled or trailing slash) and none
/// starting with `.` (so no `.` or `..`, and hidden names are left to the
/// component walk too). Such a path is its components joined by slashes.
pub(crate) fn plain_components(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && !bytes.starts_with(b"/")
        && !bytes.starts_with(b".")
        && !bytes.ends_with(b"/")
        && memchr::memmem::find(bytes, b"//").is_none()
        && memchr::memmem::find(bytes, b"/.").is_none()
}

/// `_matches_prefix_or_glob_option`: a name matches an option when it
/// starts with it, or when the option is a glob that matches it.
pub(crate) fn matches_prefix_or_glob(options: &[String], name: &str) -> bool {
    options.iter().any(|option| {
        name.starts_with(option.as_str())
            || (option.contains(['*', '?', '[']) && crate::fnmatch::fnmatch(name, option))
    })
}

/// The target interpreter's import path outside the suite, with the
/// top-level names its directories provide.
#[derive(Debug, Default)]
pub struct ModulePath {
    pub dirs: Vec<PathBuf>,
    pub tops: rustc_hash::FxHashSet<String>,
}

impl ModulePath {
    /// The path `dirs`, its top-level names read from disk.
    #[must_use]
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        let tops = crate::module_skip::top_level_names(&dirs);
        ModulePath { dirs, tops }
    }
}

/// `sys.version_info` of the target interpreter, read from its files:
/// major and minor always, the rest when the files state them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonVersion {
    pub major: u32,
    pub minor: u32,
    pub micro: Option<u32>,
    /// `releaselevel` and `serial` (`("final", 0)`, `("candidate", 2)`).
    pub level: Option<(String, u32)>,
}

impl PythonVersion {
    /// Reads `3.12`, `3.12.1`, `3.13.0rc2` or `3.12.1.final.0`; `None` for
    /// anything else.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().splitn(3, '.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let Some(rest) = parts.next() else {
            return Some(PythonVersion {
                major,
                minor,
                micro: None,
                level: None,
            });
        };
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let micro = rest[..digits].parse().ok()?;
        let suffix = &rest[digits..];
        let level = if suffix.is_empty() {
            Some(("final".to_owned(), 0))
        } else if let Some(dotted) = suffix.strip_prefix('.') {
            let (level, serial) = dotted.split_once('.')?;
            ["alpha", "beta", "candidate", "final"]
                .contains(&level)
                .then_some(())?;
            Some((level.to_owned(), serial.parse().ok()?))
        } else {
            let split = suffix.find(|c: char| c.is_ascii_digit())?;
            let level = match &suffix[..split] {
                "a" => "alpha",
                "b" => "beta",
                "rc" => "candidate",
                _ => return None,
            };
            Some((level.to_owned(), suffix[split..].parse().ok()?))
        };
        Some(PythonVersion {
            major,
            minor,
            micro: Some(micro),
            level,
        })
    }
}

/// Whether warning filters in pytest's order (`filterwarnings` lines, then
/// `-W` options; the last matching one wins) make a
/// `PytestRemovedIn10Warning` an error.
#[must_use]
pub fn deprecation_is_error(filters: &[String]) -> bool {
    const CATEGORIES: &[&str] = &[
        "",
        "Warning",
        "DeprecationWarning",
        "builtins.Warning",
        "builtins.DeprecationWarning",
        "pytest.PytestWarning",
        "pytest.PytestDeprecationWarning",
        "pytest.PytestRemovedIn10Warning",
        "_pytest.warning_types.PytestRemovedIn10Warning",
    ];
    for filter in filters.iter().rev() {
        let mut parts = filter.split(':').map(str::trim);
        let action = parts.next().unwrap_or("");
        let message = parts.next().unwrap_or("");
        let category = parts.next().unwrap_or("");
        let module = parts.next().unwrap_or("");
        if !message.is_empty() || !module.is_empty() || !CATEGORIES.contains(&category) {
            continue;
        }
        return action == "error";
    }
    false
}

/// Appends `name` as the bridge sends a node id holding it: UTF-8 as it
/// is; a name that is not UTF-8 (which Python decodes with
/// `surrogateescape`) with each byte UTF-8 cannot hold written as its
/// surrogate's escape (`\udcff`) and each backslash doubled, so that the
/// static node id equals the one pytest reports through the bridge.
fn push_wire(out: &mut String, name: &std::ffi::OsStr) {
    use std::fmt::Write as _;
    use std::os::unix::ffi::OsStrExt;
    let bytes = name.as_bytes();
    if let Ok(text) = std::str::from_utf8(bytes) {
        out.push_str(text);
        return;
    }
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for byte in chunk.invalid() {
            let _ = write!(out, "\\udc{byte:02x}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PythonVersion;

    /// The byte shortcut of `relative` gives what the component walk gives,
    /// or steps aside.
    #[test]
    fn a_plain_relative_path_is_what_its_components_give() {
        use std::path::Path;
        let walk = |root: &Path, path: &Path| {
            let rel = path.strip_prefix(root).unwrap_or(path);
            let parts: Vec<_> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.is_empty() {
                ".".to_string()
            } else {
                parts.join("/")
            }
        };
        for root in ["/r", "/r/", "/", "/r/./s"] {
            let settings = super::CollectSettings::new(root.into());
            for path in [
                "/r",
                "/r/",
                "/r/a.py",
                "/r/t/test_a.py",
                "/r/t//a.py",
                "/r/./a.py",
                "/r/t/.",
                "/r/t/",
                "/r/.hidden/a.py",
                "/rr/a.py",
                "/x/a.py",
                "/r/a/../b.py",
                "/r/./s/c.py",
            ] {
                let path = Path::new(path);
                assert_eq!(
                    settings.relative(path),
                    walk(Path::new(root), path),
                    "{root} {}",
                    path.display()
                );
            }
        }
    }

    type Parts = (u32, u32, Option<u32>, Option<(String, u32)>);

    fn parts(text: &str) -> Option<Parts> {
        PythonVersion::parse(text).map(|v| (v.major, v.minor, v.micro, v.level))
    }

    #[test]
    fn versions_as_pyvenv_cfg_and_patchlevel_h_write_them() {
        assert_eq!(parts("3.12"), Some((3, 12, None, None)));
        assert_eq!(
            parts("3.12.1"),
            Some((3, 12, Some(1), Some(("final".into(), 0))))
        );
        assert_eq!(
            parts("3.13.0rc2"),
            Some((3, 13, Some(0), Some(("candidate".into(), 2))))
        );
        assert_eq!(
            parts("3.14.0a7"),
            Some((3, 14, Some(0), Some(("alpha".into(), 7))))
        );
        assert_eq!(
            parts("3.12.1.final.0"),
            Some((3, 12, Some(1), Some(("final".into(), 0))))
        );
        // A suffix it does not know leaves the version unread, never guessed.
        assert_eq!(parts("3.12.1+"), None);
        assert_eq!(parts("python3"), None);
        assert_eq!(parts("3"), None);
    }
}
