//! `pathlib.Path` values: the attributes of a path that a hook's
//! condition reads (`file_path.suffix == ".txt"`), with `PurePosixPath`'s
//! rules.

use crate::value::{ContainerKind, PyValue};

/// `PurePosixPath(path).name`: the last component.
fn name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or("")
}

/// `path.parent`.
fn parent(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(0) => "/".to_owned(),
        Some(at) => trimmed[..at].to_owned(),
        None if trimmed.is_empty() && path.starts_with('/') => "/".to_owned(),
        None => ".".to_owned(),
    }
}

/// The attribute `attr` of the path `path`, or why it is not known.
pub(super) fn attribute(path: &str, attr: &str) -> PyValue {
    let name = name(path);
    // Python 3.14 gave a trailing dot a suffix of its own: which rule
    // applies depends on the interpreter.
    let versioned = || {
        PyValue::Unknown(format!(
            "the suffix of `{name}`, which ends in a dot, depends on the Python version"
        ))
    };
    match attr {
        "name" => PyValue::str(name),
        "suffix" | "stem" | "suffixes" if name.ends_with('.') && name != "." && name != ".." => {
            versioned()
        }
        "suffix" => PyValue::str(suffix_at(name).map_or("", |at| &name[at..])),
        "stem" => PyValue::str(suffix_at(name).map_or(name, |at| &name[..at])),
        "suffixes" => {
            let bare = name.trim_start_matches('.');
            PyValue::Container {
                kind: ContainerKind::List,
                elements: bare
                    .split('.')
                    .skip(1)
                    .map(|s| PyValue::str(format!(".{s}")))
                    .collect(),
            }
        }
        "parent" => PyValue::Path(parent(path)),
        "parts" => {
            let mut parts = Vec::new();
            if path.starts_with('/') {
                parts.push(PyValue::str("/"));
            }
            parts.extend(
                path.split('/')
                    .filter(|p| !p.is_empty() && *p != ".")
                    .map(PyValue::str),
            );
            PyValue::Container {
                kind: ContainerKind::Tuple,
                elements: parts.into(),
            }
        }
        _ => PyValue::Unknown(format!("attribute `{attr}` of a path")),
    }
}

/// Where the suffix of a final component starts, as `PurePath.suffix`
/// finds it: the last dot, unless it is the first character.
fn suffix_at(name: &str) -> Option<usize> {
    match name.rfind('.') {
        Some(at) if at > 0 && at + 1 < name.len() => Some(at),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::attribute;
    use crate::value::PyValue;

    fn text(path: &str, attr: &str) -> String {
        match attribute(path, attr) {
            PyValue::Str(s) => s.into_string(),
            PyValue::Path(s) => s,
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn posix_path_attributes_follow_pathlib() {
        // Each pair checked against CPython 3.11's `PurePosixPath`.
        assert_eq!(text("/a/b/test_x.txt", "suffix"), ".txt");
        assert_eq!(text("/a/b/test_x.txt", "stem"), "test_x");
        assert_eq!(text("/a/b/test_x.txt", "name"), "test_x.txt");
        assert_eq!(text("/a/b/.htaccess", "suffix"), "");
        assert_eq!(text("/a/b/.htaccess", "stem"), ".htaccess");
        assert_eq!(text("/a/b/x.tar.gz", "suffix"), ".gz");
        assert_eq!(text("/a/b/x.tar.gz", "stem"), "x.tar");
        assert_eq!(text("/a/b/Makefile", "suffix"), "");
        assert_eq!(text("/a/b/x.txt", "parent"), "/a/b");
        assert_eq!(text("/x", "parent"), "/");
        assert!(matches!(attribute("/a/x.", "suffix"), PyValue::Unknown(_)));
        let PyValue::Container { elements, .. } = attribute("/a/.x.tar.gz", "suffixes") else {
            panic!("suffixes is a list")
        };
        assert_eq!(*elements, vec![PyValue::str(".tar"), PyValue::str(".gz")]);
    }
}
