//! Python's `fnmatch.fnmatch` (POSIX, case-sensitive) and pytest's
//! `fnmatch_ex`, used for `python_files`, `norecursedirs` and
//! `--ignore-glob`.

use std::path::Path;

/// `fnmatch.fnmatchcase(name, pattern)`: `*` matches any run of characters
/// (separators included), `?` one character, `[seq]` / `[!seq]` a set.
pub(crate) fn fnmatch(name: &str, pattern: &str) -> bool {
    // ASCII text (nearly every file name) is matched byte by byte, which
    // is the same as char by char and needs no buffers: discovery matches
    // every entry of every directory.
    if name.is_ascii() && pattern.is_ascii() {
        return matches(name.as_bytes(), pattern.as_bytes());
    }
    let name: Vec<char> = name.chars().collect();
    let pattern: Vec<char> = pattern.chars().collect();
    matches(&name, &pattern)
}

/// A character of a name or pattern: a `char`, or a byte of ASCII text.
trait Unit: Copy + PartialEq + PartialOrd {
    fn is(self, c: char) -> bool;
}

impl Unit for char {
    fn is(self, c: char) -> bool {
        self == c
    }
}

impl Unit for u8 {
    fn is(self, c: char) -> bool {
        char::from(self) == c
    }
}

fn matches<C: Unit>(name: &[C], pattern: &[C]) -> bool {
    let (mut n, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() {
            let c = pattern[p];
            if c.is('*') {
                star = Some((p, n));
                p += 1;
                continue;
            }
            if c.is('?') {
                n += 1;
                p += 1;
                continue;
            }
            if c.is('[') {
                if let Some((hit, next)) = class_match(&pattern[p..], name[n]) {
                    if hit {
                        n += 1;
                        p += next;
                        continue;
                    }
                } else if name[n].is('[') {
                    n += 1;
                    p += 1;
                    continue;
                }
            } else if c == name[n] {
                n += 1;
                p += 1;
                continue;
            }
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c.is('*'))
}

/// Matches `c` against the set starting at `pattern[0] == '['`. Returns
/// whether it matched and the set's length, or `None` for an unterminated set
/// (which Python treats as a literal `[`).
fn class_match<C: Unit>(pattern: &[C], c: C) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = pattern.get(i).is_some_and(|p| p.is('!'));
    if negate {
        i += 1;
    }
    let start = i;
    let mut hit = false;
    while i < pattern.len() {
        if pattern[i].is(']') && i > start {
            return Some((hit != negate, i + 1));
        }
        if pattern.get(i + 1).is_some_and(|d| d.is('-'))
            && pattern.get(i + 2).is_some_and(|e| !e.is(']'))
        {
            if pattern[i] <= c && c <= pattern[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if pattern[i] == c {
                hit = true;
            }
            i += 1;
        }
    }
    None
}

/// pytest's `fnmatch_ex`: a pattern without a separator matches the file
/// name; one with a separator matches the whole path, anchored at any
/// directory when the pattern is relative.
#[must_use]
pub fn fnmatch_ex(pattern: &str, path: &Path) -> bool {
    if pattern.contains('/') {
        let full = path.to_string_lossy();
        if pattern.starts_with('/') {
            fnmatch(&full, pattern)
        } else {
            fnmatch(&full, &format!("*/{pattern}"))
        }
    } else {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        fnmatch(&name, pattern)
    }
}

/// [`fnmatch_ex`] of a path whose file name is `name` (from a directory
/// listing: the name is not taken apart from the path again).
#[must_use]
pub(crate) fn fnmatch_ex_named(pattern: &str, path: &Path, name: &str) -> bool {
    if pattern.contains('/') {
        fnmatch_ex(pattern, path)
    } else {
        fnmatch(name, pattern)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_semantics() {
        assert!(fnmatch("test_a.py", "test_*.py"));
        assert!(fnmatch("a_test.py", "*_test.py"));
        assert!(!fnmatch("test_a.pyc", "test_*.py"));
        assert!(fnmatch(".git", ".*"));
        assert!(fnmatch("{arch}", "{arch}"));
        assert!(fnmatch("x.egg", "*.egg"));
        assert!(fnmatch("ab", "[a-c]b"));
        assert!(!fnmatch("db", "[a-c]b"));
        assert!(fnmatch("db", "[!a-c]b"));
        assert!(fnmatch("[b", "[b"));
        assert!(fnmatch("a/b/c", "a*c"));
        assert!(fnmatch("tést_é.py", "t?st_*.py"));
        assert!(fnmatch("é", "[à-ê]"));
        assert!(!fnmatch("tést.py", "test*"));
        assert!(fnmatch_ex("tests/skip", Path::new("/r/tests/skip")));
        assert!(!fnmatch_ex("tests/skip", Path::new("/r/tests/skipx")));
    }
}
