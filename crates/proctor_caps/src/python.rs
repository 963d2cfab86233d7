//! The Python interpreter: one short call for its version and where its
//! distributions are installed; the distributions themselves are read from
//! disk by [`crate::packages`], so no package is ever imported.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::model::Python;
use crate::packages::{read_modules, read_packages};
use crate::process;

/// Prints the interpreter's path, version and the directories that may hold
/// distributions, as one JSON object. Imports only what `site` already did.
const QUERY: &str = "\
import json, os, site, sys
paths = list(sys.path)
try:
    paths += site.getsitepackages()
except Exception:
    pass
try:
    paths.append(site.getusersitepackages())
except Exception:
    pass
print(json.dumps({'executable': sys.executable, 'version': sys.version.split()[0], 'paths': [p for p in paths if p and os.path.isdir(p)], 'builtins': list(sys.builtin_module_names)}))
";

/// What the interpreter says about itself.
#[derive(Debug, Deserialize)]
pub(crate) struct Answer {
    /// `sys.executable`.
    #[serde(default)]
    pub(crate) executable: String,
    /// `3.11.2`.
    pub(crate) version: String,
    /// Directories on `sys.path` and the site-packages directories.
    #[serde(default)]
    pub(crate) paths: Vec<PathBuf>,
    /// `sys.builtin_module_names`: modules compiled into the interpreter.
    #[serde(default)]
    pub(crate) builtins: Vec<String>,
}

/// Asks `interpreter` for its version and site-packages, then reads the
/// installed distributions. The error says why there is no answer.
pub(crate) fn detect(interpreter: &Path, timeout: Duration) -> Result<Python, String> {
    let text =
        process::output(interpreter, &["-c", QUERY], timeout).map_err(|err| err.to_string())?;
    let answer = parse_answer(&text).ok_or_else(|| {
        format!(
            "`{}` did not answer like a Python interpreter",
            interpreter.display()
        )
    })?;
    let executable = if answer.executable.is_empty() {
        interpreter.display().to_string()
    } else {
        answer.executable
    };
    let dirs = unique_dirs(answer.paths);
    let mut modules = read_modules(&dirs);
    modules.extend(answer.builtins);
    Ok(Python {
        executable,
        version: answer.version,
        packages: read_packages(&dirs),
        modules: Some(modules),
    })
}

/// The JSON object on the last non-empty line of the output (a
/// `sitecustomize` may print before it).
pub(crate) fn parse_answer(text: &str) -> Option<Answer> {
    let line = text.lines().rev().find(|line| !line.trim().is_empty())?;
    serde_json::from_str(line.trim()).ok()
}

/// The directories in order, each once (compared canonicalized).
fn unique_dirs(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    paths
        .into_iter()
        .filter(|path| seen.insert(std::fs::canonicalize(path).unwrap_or_else(|_| path.clone())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_the_last_json_line() {
        let text = "hello from sitecustomize\n{\"executable\": \"/v/bin/python\", \"version\": \"3.11.2\", \"paths\": [\"/a\", \"/b\"]}\n\n";
        let answer = parse_answer(text).unwrap();
        assert_eq!(
            (answer.executable.as_str(), answer.version.as_str()),
            ("/v/bin/python", "3.11.2")
        );
        assert_eq!(answer.paths, [PathBuf::from("/a"), PathBuf::from("/b")]);
        assert!(parse_answer("Python 2.7\n").is_none());
        assert!(parse_answer("").is_none());
    }

    #[test]
    fn directories_are_kept_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::create_dir(&a).unwrap();
        let dirs = unique_dirs(vec![
            a.clone(),
            dir.path().to_path_buf(),
            a.join("."),
            a.clone(),
        ]);
        assert_eq!(dirs, [a, dir.path().to_path_buf()]);
    }
}
