//! The manifest of opted-in examples and notebooks that `proctor run`
//! hands the bridge (named in its setup): which files are tests,
//! their markers (read statically, the one place the opt-in rules live),
//! and the timeouts. The bridge collects and runs them from it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use proctor_config::ProctorOptions;
use proctor_python::{Collection, OptInKind};
use serde_json::{json, Map, Value};

/// Writes the manifest into `work_dir` when the collection has opted-in
/// files; returns its path.
pub(crate) fn write_manifest(
    work_dir: &Path,
    rootdir: &Path,
    collection: &Collection,
    options: &ProctorOptions,
) -> Result<Option<PathBuf>> {
    let mut files = Map::new();
    for file in collection.opt_in.iter().filter(|f| f.nodeid.is_some()) {
        let kind = match file.kind {
            OptInKind::Example => "example",
            OptInKind::Notebook => "notebook",
        };
        let mut entry = json!({ "kind": kind, "markers": file.markers });
        if let Some(reason) = &file.skip {
            entry["skip"] = Value::String(reason.clone());
        }
        files.insert(
            rootdir.join(&file.file).to_string_lossy().into_owned(),
            entry,
        );
    }
    if files.is_empty() {
        return Ok(None);
    }
    let manifest = json!({
        "files": files,
        "example_timeout": options.examples.timeout.map(proctor_config::Seconds::get),
        "cell_timeout": options.notebooks.cell_timeout(),
        "notebook_timeout": options.notebooks.timeout(),
    });
    std::fs::create_dir_all(work_dir)
        .with_context(|| format!("cannot create {}", work_dir.display()))?;
    let path = work_dir.join("opt-in.json");
    std::fs::write(&path, serde_json::to_string_pretty(&manifest)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(Some(path))
}
