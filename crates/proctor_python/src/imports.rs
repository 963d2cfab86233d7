//! Finding the files of the suite's own modules that test modules import,
//! as Python would under pytest's default `prepend` import mode. Directory
//! listings are read once and cached: a suite imports the same few names
//! (`os`, `pytest`, its helpers) from hundreds of files.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::settings::CollectSettings;
use crate::source::SourceFile;

/// Cached directory listings and module lookups.
#[derive(Default)]
pub(crate) struct Resolver {
    listings: HashMap<PathBuf, Listing>,
    found: HashMap<String, Vec<(PathBuf, String)>>,
}

#[derive(Default)]
struct Listing {
    files: HashSet<OsString>,
    dirs: HashSet<OsString>,
}

impl Resolver {
    fn listing(&mut self, dir: &Path) -> &Listing {
        self.listings.entry(dir.to_path_buf()).or_insert_with(|| {
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
        })
    }

    fn has_init(&mut self, dir: &Path) -> bool {
        self.listing(dir).files.contains(std::ffi::OsStr::new("__init__.py"))
    }

    /// The dotted module name of a file (from the first directory upwards
    /// without `__init__.py`), and the package used for its relative
    /// imports.
    pub(crate) fn module_names(&mut self, path: &Path) -> (String, String) {
        let mut parts: Vec<String> = Vec::new();
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if stem != "__init__" {
            parts.push(stem);
        }
        let mut dir = path.parent();
        while let Some(d) = dir {
            if !self.has_init(d) {
                break;
            }
            parts.push(d.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
            dir = d.parent();
        }
        parts.reverse();
        let dotted = parts.join(".");
        let package = crate::package_of(path, &dotted);
        (dotted, package)
    }

    /// Directories searched for `import x`: `pythonpath`, the base
    /// directories of the test files, then the rootdir.
    pub(crate) fn import_roots(&mut self, settings: &CollectSettings, files: &[SourceFile]) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = settings.pythonpath.clone();
        let mut seen: HashSet<PathBuf> = roots.iter().cloned().collect();
        for file in files {
            let mut dir = file.path.parent();
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
        roots
    }

    /// Files of `dotted` and of its parent packages, under the first root
    /// that has it.
    pub(crate) fn find_module(&mut self, roots: &[PathBuf], dotted: &str) -> Vec<(PathBuf, String)> {
        if let Some(found) = self.found.get(dotted) {
            return found.clone();
        }
        let parts: Vec<&str> = dotted.split('.').collect();
        let mut result = Vec::new();
        for root in roots {
            let mut found = Vec::new();
            let mut dir = root.clone();
            for (i, part) in parts.iter().enumerate() {
                let name = parts[..=i].join(".");
                let file_name = OsString::from(format!("{part}.py"));
                let listing = self.listing(&dir);
                let is_dir = listing.dirs.contains(std::ffi::OsStr::new(part));
                let is_file = listing.files.contains(&file_name);
                if is_dir && self.has_init(&dir.join(part)) {
                    dir = dir.join(part);
                    found.push((dir.join("__init__.py"), name));
                } else if is_file {
                    found.push((dir.join(file_name), name));
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
        self.found.insert(dotted.to_string(), result.clone());
        result
    }
}
