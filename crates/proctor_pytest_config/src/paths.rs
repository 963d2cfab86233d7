//! Path helpers with the exact semantics of the Python functions pytest uses:
//! `os.path.abspath` (lexical, no symlink resolution), `os.path.commonpath`,
//! `os.path.expandvars`, and the path part of a node ID.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// `os.path.abspath(path)` with `cwd` as the working directory: joins and
/// removes `.` and `..` lexically.
pub(crate) fn abspath(cwd: &Path, path: &Path) -> PathBuf {
    normpath(&cwd.join(path))
}

/// `os.path.normpath` for absolute paths: `..` at the root stays at the root.
pub(crate) fn normpath(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                out.push(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `os.path.commonpath([a, b])` for two absolute paths; `None` when they share
/// nothing (different drives).
pub(crate) fn commonpath(a: &Path, b: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for (x, y) in a.components().zip(b.components()) {
        if x != y {
            break;
        }
        out.push(x.as_os_str());
    }
    if out.as_os_str().is_empty() {
        None
    } else {
        Some(out)
    }
}

/// Whether `path` is the root of a file system (`/`, `C:\`).
pub(crate) fn is_fs_root(path: &Path) -> bool {
    path.has_root() && path.parent().is_none()
}

/// The path part of a node ID argument: everything before the first `::`.
pub(crate) fn nodeid_path(arg: &OsStr) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = arg.as_bytes();
        let end = bytes
            .windows(2)
            .position(|w| w == b"::")
            .unwrap_or(bytes.len());
        PathBuf::from(OsStr::from_bytes(&bytes[..end]))
    }
    #[cfg(not(unix))]
    {
        let text = arg.to_string_lossy();
        let end = text.find("::").unwrap_or(text.len());
        PathBuf::from(&text[..end])
    }
}

/// Whether a command-line argument looks like an option (`-x`), which pytest
/// never treats as a path.
pub(crate) fn is_option(arg: &OsStr) -> bool {
    arg.as_encoded_bytes().first() == Some(&b'-')
}

/// `os.path.expandvars` (POSIX): `$name` and `${name}` are replaced when
/// `lookup` knows the variable and left alone otherwise.
pub(crate) fn expandvars(text: &OsStr, lookup: impl Fn(&str) -> Option<OsString>) -> OsString {
    let Some(text) = text.to_str() else {
        return text.to_owned();
    };
    if !text.contains('$') {
        return text.into();
    }
    let mut out = OsString::new();
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let (name, consumed) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (Some(&braced[..end]), end + 2),
                None => (None, 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            if end == 0 {
                (None, 0)
            } else {
                (Some(&after[..end]), end)
            }
        };
        match name.and_then(&lookup) {
            Some(value) => out.push(value),
            None => out.push(&rest[dollar..=dollar + consumed]),
        }
        rest = &rest[dollar + 1 + consumed..];
    }
    out.push(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abspath_is_lexical() {
        let cwd = Path::new("/work/proj");
        assert_eq!(
            abspath(cwd, Path::new("tests/../src/./a")),
            Path::new("/work/proj/src/a")
        );
        assert_eq!(abspath(cwd, Path::new("../../../..")), Path::new("/"));
        assert_eq!(abspath(cwd, Path::new("/abs//x/")), Path::new("/abs/x"));
    }

    #[test]
    fn common_paths() {
        assert_eq!(
            commonpath(Path::new("/a/b/c"), Path::new("/a/bc")),
            Some(PathBuf::from("/a"))
        );
        assert_eq!(
            commonpath(Path::new("/a"), Path::new("/b")),
            Some(PathBuf::from("/"))
        );
        assert!(is_fs_root(Path::new("/")));
        assert!(!is_fs_root(Path::new("/a")));
    }

    #[test]
    fn nodeid_paths() {
        assert_eq!(
            nodeid_path(OsStr::new("t/test_a.py::T::t[x::y]")),
            Path::new("t/test_a.py")
        );
        assert_eq!(
            nodeid_path(OsStr::new("t/test[1].py")),
            Path::new("t/test[1].py")
        );
    }

    #[test]
    fn expandvars_like_posixpath() {
        let lookup = |name: &str| match name {
            "HOME" => Some(OsString::from("/home/u")),
            "A_1" => Some(OsString::from("x")),
            _ => None,
        };
        let expand = |s: &str| expandvars(OsStr::new(s), lookup).into_string().unwrap();
        assert_eq!(expand("$HOME/p"), "/home/u/p");
        assert_eq!(expand("${A_1}y$A_1-"), "xyx-");
        assert_eq!(
            expand("$NOPE/${NOPE}/$/${}/${open"),
            "$NOPE/${NOPE}/$/${}/${open"
        );
        assert_eq!(expand("$$HOME"), "$/home/u");
    }
}
