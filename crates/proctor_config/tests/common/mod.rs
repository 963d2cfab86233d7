//! A temporary project tree for the integration tests.

// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use proctor_config::{load, ConfigError, LoadOptions, Settings};

/// A temporary directory with files written into it.
pub(crate) struct Tree {
    _dir: tempfile::TempDir,
    /// The canonical root, so that paths compare equal to what pytest prints.
    pub(crate) root: PathBuf,
}

impl Tree {
    pub(crate) fn new() -> Tree {
        let dir = tempfile::tempdir().expect("create a temporary directory");
        let root = dir
            .path()
            .canonicalize()
            .expect("canonicalize the temporary directory");
        Tree { _dir: dir, root }
    }

    /// Writes `text` to `rel`, creating parent directories.
    pub(crate) fn file(&self, rel: &str, text: &str) -> &Tree {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// Creates the directory `rel`.
    pub(crate) fn dir(&self, rel: &str) -> &Tree {
        std::fs::create_dir_all(self.root.join(rel)).unwrap();
        self
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        if rel.is_empty() || rel == "." {
            self.root.clone()
        } else {
            self.root.join(rel)
        }
    }

    /// Options for running in `cwd` (relative to the root) with `args`.
    pub(crate) fn opts(&self, cwd: &str, args: &[&str]) -> LoadOptions {
        LoadOptions {
            cwd: self.path(cwd),
            args: args.iter().map(PathBuf::from).collect(),
            ..LoadOptions::default()
        }
    }

    pub(crate) fn load(&self, cwd: &str, args: &[&str]) -> Result<Settings, ConfigError> {
        load(&self.opts(cwd, args))
    }

    /// Loads and expects success.
    pub(crate) fn ok(&self, cwd: &str, args: &[&str]) -> Settings {
        match self.load(cwd, args) {
            Ok(settings) => settings,
            Err(err) => panic!("unexpected error: {err}"),
        }
    }

    /// The path relative to the root, for short assertions.
    pub(crate) fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
    }
}
