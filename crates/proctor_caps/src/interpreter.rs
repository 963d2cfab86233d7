//! Which Python interpreter runs the suite: the one named on the command
//! line, else in the configuration, else the active virtual environment,
//! else the project's `.venv`, else `python3` on `PATH`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::binaries;

/// The interpreter's path inside a virtual environment.
#[cfg(not(windows))]
const VENV_PYTHON: &str = "bin/python";
#[cfg(windows)]
const VENV_PYTHON: &str = "Scripts/python.exe";

/// Finds the interpreter, in this order: `explicit` (`--python`);
/// `configured` (the `python` key; relative to `rootdir` when it has a
/// path separator, else looked up on `PATH`); the interpreter of the
/// active virtual environment (`$VIRTUAL_ENV`); `<rootdir>/.venv`;
/// `python3` on `PATH`. `None` when none of them exists.
#[must_use]
pub fn find_interpreter(
    explicit: Option<&Path>,
    configured: Option<&str>,
    rootdir: &Path,
) -> Option<PathBuf> {
    let virtual_env = std::env::var_os("VIRTUAL_ENV");
    let path_var = std::env::var_os("PATH");
    find_interpreter_in(
        explicit,
        configured,
        rootdir,
        virtual_env.as_deref(),
        path_var.as_deref(),
    )
}

/// [`find_interpreter`] with the environment given: `virtual_env` is
/// `$VIRTUAL_ENV`, `path_var` is `$PATH`.
pub(crate) fn find_interpreter_in(
    explicit: Option<&Path>,
    configured: Option<&str>,
    rootdir: &Path,
    virtual_env: Option<&OsStr>,
    path_var: Option<&OsStr>,
) -> Option<PathBuf> {
    if let Some(explicit) = explicit {
        return Some(explicit.to_path_buf());
    }
    if let Some(configured) = configured.filter(|c| !c.is_empty()) {
        let has_separator =
            configured.contains('/') || configured.contains(std::path::MAIN_SEPARATOR);
        return if has_separator {
            Some(rootdir.join(configured))
        } else {
            binaries::find(configured, path_var)
        };
    }
    let in_venv = |venv: &Path| Some(venv.join(VENV_PYTHON)).filter(|python| python.exists());
    virtual_env
        .filter(|venv| !venv.is_empty())
        .and_then(|venv| in_venv(Path::new(venv)))
        .or_else(|| in_venv(&rootdir.join(".venv")))
        .or_else(|| binaries::find("python3", path_var))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn interpreters_are_found_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let executable = |path: &Path| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        let bin = dir.path().join("bin");
        executable(&bin.join("python3"));
        executable(&bin.join("python3.12"));
        let path_var = bin.as_os_str();
        let find = |explicit: Option<&Path>, configured: Option<&str>, venv: Option<&Path>| {
            find_interpreter_in(
                explicit,
                configured,
                &root,
                venv.map(Path::as_os_str),
                Some(path_var),
            )
        };
        assert_eq!(find(None, None, None), Some(bin.join("python3")));
        executable(&root.join(".venv/bin/python"));
        assert_eq!(find(None, None, None), Some(root.join(".venv/bin/python")));
        let active = dir.path().join("active");
        assert_eq!(
            find(None, None, Some(&active)),
            Some(root.join(".venv/bin/python"))
        );
        executable(&active.join("bin/python"));
        assert_eq!(
            find(None, None, Some(&active)),
            Some(active.join("bin/python"))
        );
        assert_eq!(
            find(None, Some("tools/python"), Some(&active)),
            Some(root.join("tools/python"))
        );
        assert_eq!(
            find(None, Some("python3.12"), Some(&active)),
            Some(bin.join("python3.12"))
        );
        assert_eq!(
            find(Some(Path::new("/x/python")), Some("python3.12"), None),
            Some(PathBuf::from("/x/python"))
        );
    }
}
