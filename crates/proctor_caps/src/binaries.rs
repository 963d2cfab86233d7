//! Programs on `PATH`.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Name → the path of the program on `path_var` (a `PATH` value), if any.
pub(crate) fn find_all(
    names: &[String],
    path_var: Option<&OsStr>,
) -> BTreeMap<String, Option<String>> {
    names
        .iter()
        .map(|name| {
            (
                name.clone(),
                find(name, path_var).map(|path| path.display().to_string()),
            )
        })
        .collect()
}

/// The first executable file called `name` in the directories of
/// `path_var`; a name with a `/` is checked as a path.
pub(crate) fn find(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    if name.is_empty() {
        return None;
    }
    if name.contains(std::path::MAIN_SEPARATOR) || name.contains('/') {
        let path = PathBuf::from(name);
        return is_executable(&path).then_some(path);
    }
    std::env::split_paths(path_var?)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// An executable regular file (following symlinks).
#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// A regular file: Windows has no executable bit.
#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_executable_files_on_path_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (dir.path().join("a"), dir.path().join("b"));
        for sub in [&first, &second] {
            std::fs::create_dir(sub).unwrap();
        }
        let make = |path: &Path, mode: u32| {
            std::fs::write(path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        make(&first.join("tool"), 0o644);
        make(&second.join("tool"), 0o755);
        std::fs::create_dir(first.join("dir")).unwrap();
        let path_var = std::env::join_paths([&first, &second]).unwrap();
        assert_eq!(find("tool", Some(&path_var)), Some(second.join("tool")));
        assert_eq!(find("dir", Some(&path_var)), None);
        assert_eq!(find("missing", Some(&path_var)), None);
        assert_eq!(find("tool", None), None);
        let by_path = second.join("tool").display().to_string();
        assert_eq!(find(&by_path, None), Some(second.join("tool")));
        let all = find_all(&["tool".to_owned(), "missing".to_owned()], Some(&path_var));
        assert_eq!(all["tool"].as_deref(), Some(by_path.as_str()));
        assert_eq!(all["missing"], None);
    }
}
