//! Finding the files of the suite's own modules that test modules import,
//! as Python would under pytest's default `prepend` import mode. Directory
//! listings are read once and cached: a suite imports the same few names
//! (`os`, `pytest`, its helpers) from hundreds of files.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::settings::CollectSettings;

/// Cached directory listings and module lookups.
/// The files of a module and of its parent packages, with their dotted
/// names ([`Resolver::find_module`]).
pub(crate) type Found = std::sync::Arc<[(PathBuf, String)]>;

#[derive(Default)]
pub(crate) struct Resolver {
    // Paths are keyed by their bytes: hashing a `Path` walks its
    // components, which costs more than the lookup it serves. The paths
    // here are all joined from the same roots, so equal paths are equal
    // bytes.
    listings: HashMap<OsString, Listing>,
    /// Shared with the callers: a module is looked up once per import of
    /// it, and most are found already.
    found: HashMap<String, Found>,
    /// The dotted name of each directory's package ("" outside packages).
    packages: HashMap<OsString, String>,
    /// `rootdir/src` of a src layout, searched last (see
    /// [`Resolver::import_roots`]), with the top-level names the target
    /// interpreter can import (`None` when unknown).
    src_layout: Option<(PathBuf, Option<std::sync::Arc<crate::settings::ModulePath>>)>,
}

/// The directories and other entries of `dir` (empty when unreadable).
fn read_listing(dir: &Path) -> Listing {
    let mut listing = Listing::default();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let is_dir = match entry.file_type() {
                Ok(t) if t.is_symlink() => entry.path().is_dir(),
                Ok(t) => t.is_dir(),
                Err(_) => false,
            };
            if is_dir {
                listing.dirs.insert(entry.file_name());
            } else {
                listing.files.insert(entry.file_name());
            }
        }
    }
    listing
}

#[derive(Default)]
struct Listing {
    files: HashSet<OsString>,
    dirs: HashSet<OsString>,
}

impl Resolver {
    /// Every directory listed so far.
    pub(crate) fn listed(&self) -> impl Iterator<Item = &OsStr> {
        self.listings.keys().map(OsString::as_os_str)
    }

    fn listing(&mut self, dir: &Path) -> &Listing {
        self.listings
            .entry(dir.as_os_str().to_owned())
            .or_insert_with(|| read_listing(dir))
    }

    /// Lists `dirs` (and the directories above them, up to the first
    /// without `__init__.py`) in parallel, ahead of the lookups that need
    /// them.
    pub(crate) fn prefetch<'d>(&mut self, dirs: impl IntoIterator<Item = &'d Path>) {
        let mut wanted: Vec<&Path> = Vec::new();
        let mut seen: HashSet<&OsStr> = HashSet::default();
        for dir in dirs {
            if seen.insert(dir.as_os_str()) && !self.listings.contains_key(dir.as_os_str()) {
                wanted.push(dir);
            }
        }
        while !wanted.is_empty() {
            let listed: Vec<Listing> = wanted.par_iter().map(|dir| read_listing(dir)).collect();
            let mut above = Vec::new();
            for (dir, listing) in wanted.into_iter().zip(listed) {
                let package = listing.files.contains(std::ffi::OsStr::new("__init__.py"));
                self.listings.insert(dir.as_os_str().to_owned(), listing);
                if let Some(parent) = dir.parent().filter(|_| package) {
                    if seen.insert(parent.as_os_str())
                        && !self.listings.contains_key(parent.as_os_str())
                    {
                        above.push(parent);
                    }
                }
            }
            wanted = above;
        }
    }

    fn has_init(&mut self, dir: &Path) -> bool {
        self.listing(dir)
            .files
            .contains(std::ffi::OsStr::new("__init__.py"))
    }

    /// The dotted module name of a file (from the first directory upwards
    /// without `__init__.py`), and the package used for its relative
    /// imports.
    pub(crate) fn module_names(&mut self, path: &Path) -> (String, String) {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = path
            .parent()
            .map(|dir| self.dir_package(dir))
            .unwrap_or_default();
        let dotted = if stem == "__init__" {
            prefix
        } else if prefix.is_empty() {
            stem
        } else {
            format!("{prefix}.{stem}")
        };
        let package = package_of(path, &dotted);
        (dotted, package)
    }

    /// The dotted name of the package `dir` is (its name, after those of
    /// the directories above it that have an `__init__.py` too), or ""
    /// when it has no `__init__.py`. Cached: test files share directories.
    fn dir_package(&mut self, dir: &Path) -> String {
        if let Some(known) = self.packages.get(dir.as_os_str()) {
            return known.clone();
        }
        let dotted = if self.has_init(dir) {
            let name = dir
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            match dir.parent().map(|parent| self.dir_package(parent)) {
                Some(parent) if !parent.is_empty() => format!("{parent}.{name}"),
                _ => name,
            }
        } else {
            String::new()
        };
        self.packages
            .insert(dir.as_os_str().to_owned(), dotted.clone());
        dotted
    }

    /// Directories searched for `import x`: `pythonpath`, the base
    /// directories of the test files, the rootdir, then (for reading the
    /// project's own source only) `rootdir/src` of a src layout.
    ///
    /// pytest does not put `src/` on `sys.path`: the suite imports the
    /// project from its installed copy, which a src layout installs from
    /// `src/` (an editable install is `src/` itself). So a package under
    /// `src/` is read only when the target interpreter can import a
    /// top-level name of that name (or when its path is unknown, where
    /// proctor infers no import errors either), and only after every
    /// directory pytest does search.
    pub(crate) fn import_roots<'f>(
        &mut self,
        settings: &CollectSettings,
        files: impl IntoIterator<Item = &'f Path>,
    ) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = settings.pythonpath.clone();
        let mut seen: HashSet<PathBuf> = roots.iter().cloned().collect();
        for file in files {
            let mut dir = file.parent();
            while let Some(d) = dir {
                if !self.has_init(d) {
                    if seen.insert(d.to_path_buf()) {
                        roots.push(d.to_path_buf());
                    }
                    break;
                }
                dir = d.parent();
            }
        }
        if seen.insert(settings.rootdir.clone()) {
            roots.push(settings.rootdir.clone());
        }
        let src = settings.rootdir.join("src");
        if !seen.contains(&src)
            && self
                .listing(&settings.rootdir)
                .dirs
                .contains(OsStr::new("src"))
            && !self.has_init(&src)
        {
            roots.push(src.clone());
            self.src_layout = Some((src, settings.module_path.clone()));
        }
        roots
    }

    /// Files of `dotted` and of its parent packages, under the first root
    /// that has it.
    pub(crate) fn find_module(&mut self, roots: &[PathBuf], dotted: &str) -> Found {
        if let Some(found) = self.found.get(dotted) {
            return found.clone();
        }
        let parts: Vec<&str> = dotted.split('.').collect();
        let mut result = Vec::new();
        for root in roots {
            if let Some((_, Some(installed))) =
                self.src_layout.as_ref().filter(|(src, _)| src == root)
            {
                if !installed.tops.contains(parts[0]) {
                    continue;
                }
            }
            let mut found = Vec::new();
            let mut dir = root.clone();
            for (i, part) in parts.iter().enumerate() {
                // The dotted name so far: `dotted` up to this part.
                let name = &dotted[..parts[..=i].iter().map(|p| p.len() + 1).sum::<usize>() - 1];
                let mut file_name = OsString::with_capacity(part.len() + 3);
                file_name.push(part);
                file_name.push(".py");
                let listing = self.listing(&dir);
                let is_dir = listing.dirs.contains(std::ffi::OsStr::new(part));
                let is_file = listing.files.contains(&file_name);
                if is_dir && self.has_init(&dir.join(part)) {
                    dir = dir.join(part);
                    found.push((dir.join("__init__.py"), name.to_owned()));
                } else if is_file {
                    found.push((dir.join(file_name), name.to_owned()));
                    break;
                } else if is_dir {
                    dir = dir.join(part);
                } else {
                    break;
                }
            }
            if !found.is_empty() {
                result = found;
                break;
            }
        }
        let result: Found = result.into();
        self.found.insert(dotted.to_string(), result.clone());
        result
    }
}

/// The package a module's relative imports start from: the module itself
/// for an `__init__.py`, else its parent package.
pub(crate) fn package_of(path: &Path, dotted: &str) -> String {
    if path.file_stem().is_some_and(|s| s == "__init__") {
        dotted.to_string()
    } else {
        dotted
            .rsplit_once('.')
            .map_or(String::new(), |(p, _)| p.to_string())
    }
}

/// The modules a source text may import, found without parsing: every
/// `import a.b` and `from .x import y` statement at the start of a line (at
/// any indentation), as absolute dotted names, together with `x.y` for
/// each imported name (which may be a submodule). A superset is harmless —
/// names that are not modules of the suite are simply not found — so
/// imports inside functions or docstrings do no harm.
pub(crate) fn scan_imports(text: &str, package: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let is_import = trimmed.starts_with("import ") || trimmed.starts_with("import\t");
        let is_from = trimmed.starts_with("from ") || trimmed.starts_with("from\t");
        if !is_import && !is_from {
            continue;
        }
        let mut statement = strip_comment(trimmed).to_string();
        // Backslash continuations and parenthesised name lists.
        loop {
            let open = statement.matches('(').count() > statement.matches(')').count();
            let continued = statement.trim_end().ends_with('\\');
            if !open && !continued {
                break;
            }
            let Some(next) = lines.next() else { break };
            if continued {
                let end = statement.trim_end().len() - 1;
                statement.truncate(end);
            }
            statement.push(' ');
            statement.push_str(strip_comment(next));
        }
        let statement = statement.split(';').next().unwrap_or_default();
        if is_import {
            for part in statement[6..].split(',') {
                if let Some(name) = part.split_whitespace().next() {
                    if is_dotted(name) {
                        out.push(name.to_string());
                    }
                }
            }
        } else {
            let rest = &statement[4..];
            let Some((module, names)) = rest.split_once(" import ") else {
                continue;
            };
            let module = module.trim();
            let level = module.chars().take_while(|&c| c == '.').count();
            let name = &module[level..];
            if !name.is_empty() && !is_dotted(name) {
                continue;
            }
            let level = u32::try_from(level).unwrap_or(u32::MAX);
            let base = crate::namespace::absolute_module(
                package,
                level,
                (!name.is_empty()).then_some(name),
            );
            for part in names.replace(['(', ')'], " ").split(',') {
                if let Some(imported) = part.split_whitespace().next() {
                    if imported != "*" && is_dotted(imported) {
                        out.push(if base.is_empty() {
                            imported.to_string()
                        } else {
                            format!("{base}.{imported}")
                        });
                    }
                }
            }
            if !base.is_empty() {
                out.push(base);
            }
        }
    }
    out
}

fn strip_comment(line: &str) -> &str {
    line.split('#').next().unwrap_or_default()
}

fn is_dotted(name: &str) -> bool {
    !name.is_empty()
        && name
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c == '_' || c.is_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::{scan_imports, Resolver};
    use crate::settings::{CollectSettings, ModulePath};

    /// A src layout: `src/pkg/__init__.py` and `tests/test_a.py` under a
    /// temporary rootdir.
    fn src_layout() -> (tempfile::TempDir, CollectSettings, PathBuf) {
        let dir = tempfile::tempdir().expect("temporary directory");
        std::fs::create_dir_all(dir.path().join("src/pkg")).expect("src/pkg");
        std::fs::create_dir_all(dir.path().join("tests")).expect("tests");
        std::fs::write(dir.path().join("src/pkg/__init__.py"), "X = 1\n").expect("write");
        let test = dir.path().join("tests/test_a.py");
        std::fs::write(&test, "import pkg\n").expect("write");
        let settings = CollectSettings::new(dir.path().to_path_buf());
        (dir, settings, test)
    }

    #[test]
    fn a_src_layout_package_is_read_when_the_interpreter_has_it() {
        let (dir, settings, test) = src_layout();
        let init = dir.path().join("src/pkg/__init__.py");
        let found = |settings: &CollectSettings| {
            let mut resolver = Resolver::default();
            let roots = resolver.import_roots(settings, [test.as_path()]);
            resolver.find_module(&roots, "pkg").to_vec()
        };
        // The interpreter's path unknown: read it.
        assert_eq!(found(&settings), [(init.clone(), "pkg".to_owned())]);
        // Installed: read it.
        let mut installed = ModulePath::new(Vec::new());
        installed.tops.insert("pkg".to_owned());
        let with = CollectSettings {
            module_path: Some(Arc::new(installed)),
            ..settings.clone()
        };
        assert_eq!(found(&with), [(init, "pkg".to_owned())]);
        // Not installed: pytest cannot import it, so it is not the suite's.
        let without = CollectSettings {
            module_path: Some(Arc::new(ModulePath::new(Vec::new()))),
            ..settings
        };
        assert_eq!(found(&without), []);
    }

    #[test]
    fn finds_every_import_form() {
        let text = "import os, a.b as c\nfrom .base import (\n    Mixin,  # comment\n    Other,\n)\nfrom .. import sibling\nfrom x \\\n    import y\nif True:\n    from z import *\n";
        let found = scan_imports(text, "pkg.sub");
        assert_eq!(
            found,
            [
                "os",
                "a.b",
                "pkg.sub.base.Mixin",
                "pkg.sub.base.Other",
                "pkg.sub.base",
                "pkg.sibling",
                "pkg",
                "x.y",
                "x",
                "z"
            ]
        );
    }
}
