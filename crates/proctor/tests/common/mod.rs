//! Helpers shared by the CLI tests.

use std::path::Path;

/// Writes `text` to `path` under `dir`, creating directories.
pub(crate) fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
