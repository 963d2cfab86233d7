//! What a helper's own source says, when its module is in the suite: the
//! environment variable it reads (directly, or through a module-level
//! flag such as `_RUN_SLOW = os.environ.get("RUN_SLOW")`), the
//! `host:port` it connects to, and the reason of its skip. Read as text:
//! a hint for `proctor init`, stated as such, never a guess at run time.

use std::path::PathBuf;

/// The hints found in one helper's definition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelperSource {
    /// An upper-case environment variable the helper reads.
    pub env: Option<String>,
    /// A `host:port` literal (a service's default address).
    pub address: Option<String>,
    /// A literal with a space in it: the skip's reason.
    pub reason: Option<String>,
}

/// The hints of the helper at dotted `path` (`tests.helpers.requires_qdrant`),
/// when its module is a file under one of `search`.
#[must_use]
pub fn find(search: &[PathBuf], path: &str) -> Option<HelperSource> {
    let (module, name) = path.rsplit_once('.')?;
    let relative: PathBuf = module.split('.').collect();
    let file = search.iter().find_map(|dir| {
        let plain = dir.join(&relative).with_extension("py");
        let package = dir.join(&relative).join("__init__.py");
        [plain, package].into_iter().find(|f| f.is_file())
    })?;
    let text = std::fs::read_to_string(&file).ok()?;
    Some(read(&text, name))
}

/// The hints of function `name` in module source `text`.
#[must_use]
pub fn read(text: &str, name: &str) -> HelperSource {
    let body = definition(text, name).unwrap_or_default();
    let literals = string_literals(&body);
    let mut out = HelperSource {
        address: literals.iter().find(|s| is_address(s)).cloned(),
        reason: literals.iter().find(|s| s.contains(' ')).cloned(),
        env: literals.iter().find(|s| is_env_name(s)).cloned(),
    };
    if out.env.is_none() {
        // A module-level flag the body reads: `_RUN_SLOW = os.environ.get("RUN_SLOW", ...)`.
        for line in text.lines() {
            let Some((target, value)) = line.split_once('=') else {
                continue;
            };
            let target = target.trim();
            if line.starts_with(char::is_whitespace)
                || !value.contains("environ")
                || target.is_empty()
                || !target.chars().all(|c| c.is_alphanumeric() || c == '_')
                || !mentions(&body, target)
            {
                continue;
            }
            if let Some(var) = string_literals(value).into_iter().find(|s| is_env_name(s)) {
                out.env = Some(var);
                break;
            }
        }
    }
    out
}

/// The lines of `def name(...)` up to the next top-level statement.
fn definition(text: &str, name: &str) -> Option<String> {
    let header = format!("def {name}(");
    let mut lines = text.lines();
    lines.by_ref().find(|l| l.starts_with(&header))?;
    let mut body = String::new();
    for line in lines {
        if !line.is_empty() && !line.starts_with(char::is_whitespace) && !line.starts_with(')') {
            break;
        }
        body.push_str(line);
        body.push('\n');
    }
    Some(body)
}

fn mentions(body: &str, name: &str) -> bool {
    body.match_indices(name).any(|(at, _)| {
        let before = body[..at].chars().next_back();
        let after = body[at + name.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The contents of the simple `"..."` and `'...'` literals of `text`
/// (f-strings included, their braces as written).
fn string_literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '#' {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            continue;
        }
        if c != '"' && c != '\'' {
            continue;
        }
        let mut literal = String::new();
        let mut closed = false;
        while let Some(next) = chars.next() {
            if next == '\\' {
                if let Some(escaped) = chars.next() {
                    literal.push(escaped);
                }
            } else if next == c {
                closed = true;
                break;
            } else if next == '\n' {
                break;
            } else {
                literal.push(next);
            }
        }
        if closed {
            out.push(literal);
        }
    }
    out
}

fn is_env_name(text: &str) -> bool {
    text.len() >= 3
        && text.contains('_')
        && text
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && text.starts_with(|c: char| c.is_ascii_uppercase())
}

fn is_address(text: &str) -> bool {
    let Some((host, port)) = text.rsplit_once(':') else {
        return false;
    };
    !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && !port.is_empty()
        && port.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_read_at_module_level_and_a_reason() {
        let text = r#"
import os
_RUN_SLOW = os.environ.get("RUN_SLOW", "0") in ("1",)

def slow(test_case):
    return unittest.skipUnless(_RUN_SLOW, "test is slow")(test_case)

def other():
    return os.environ.get("OTHER_VAR")
"#;
        let got = read(text, "slow");
        assert_eq!(got.env.as_deref(), Some("RUN_SLOW"));
        assert_eq!(got.reason.as_deref(), Some("test is slow"));
        assert_eq!(got.address, None);
    }

    #[test]
    fn a_service_address_and_its_variable() {
        let text = r#"
def requires_qdrant():
    return pytest.mark.skipif(not _reachable("QDRANT_URL", "127.0.0.1:6333"), reason="service qdrant not reachable")
"#;
        let got = read(text, "requires_qdrant");
        assert_eq!(got.env.as_deref(), Some("QDRANT_URL"));
        assert_eq!(got.address.as_deref(), Some("127.0.0.1:6333"));
    }
}
