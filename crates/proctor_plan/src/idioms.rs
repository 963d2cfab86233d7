//! The `skipif` conditions proctor reads without running Python: the
//! standard idioms for an environment variable, the Python version and the
//! platform. Anything else is a condition only pytest can evaluate.

use crate::requirement::Requirement;

/// The requirement a `skipif` condition (its source text) states: the test
/// is skipped when the condition holds, so it *needs* the opposite.
#[must_use]
pub fn skipif_requirement(condition: &str) -> Requirement {
    let text = normalize(condition);
    let text = text.as_str();
    if let Some(name) = env_unset(text) {
        return Requirement::Env { name };
    }
    if let Some(min) = python_below(text) {
        return Requirement::Python { min };
    }
    if let Some(platform) = platform_is(text) {
        return Requirement::NotPlatform { platform };
    }
    if let Some(platform) = text
        .strip_prefix("not ")
        .and_then(platform_is)
        .or_else(|| platform_is_not(text))
    {
        return Requirement::OnlyPlatform { platform };
    }
    Requirement::Unknown {
        condition: condition.trim().to_owned(),
    }
}

/// Whitespace collapsed, `'` quotes as `"`, outer parentheses removed.
fn normalize(condition: &str) -> String {
    let mut text: String = condition
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('\'', "\"");
    while text.starts_with('(') && text.ends_with(')') && balanced(&text[1..text.len() - 1]) {
        text = text[1..text.len() - 1].trim().to_owned();
    }
    text.replace("( ", "(").replace(" )", ")")
}

fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// A `"NAME"` string literal at the start of `text`, and the rest.
fn string_literal(text: &str) -> Option<(String, &str)> {
    let rest = text.strip_prefix('"')?;
    let end = rest.find('"')?;
    let name = &rest[..end];
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| (name.to_owned(), &rest[end + 1..]))
}

/// `os.environ.get("K")` or `os.getenv("K")` (with an optional default).
fn env_lookup(text: &str) -> Option<(String, &str)> {
    let rest = text
        .strip_prefix("os.environ.get(")
        .or_else(|| text.strip_prefix("os.getenv("))?;
    let (name, rest) = string_literal(rest)?;
    let close = rest.find(')')?;
    let between = rest[..close].trim();
    (between.is_empty() || between.starts_with(',')).then(|| (name, &rest[close + 1..]))
}

/// `not os.environ.get("K")`, `os.getenv("K") is None`, `"K" not in os.environ`.
fn env_unset(text: &str) -> Option<String> {
    if let Some(inner) = text.strip_prefix("not ") {
        if let Some((name, rest)) = env_lookup(inner.trim()) {
            return rest.trim().is_empty().then_some(name);
        }
    }
    if let Some((name, rest)) = env_lookup(text) {
        return matches!(rest.trim(), "is None" | "== None" | "== \"\"").then_some(name);
    }
    let (name, rest) = string_literal(text)?;
    (rest.trim() == "not in os.environ").then_some(name)
}

/// `sys.version_info < (3, 11)` (also `[:2]`, and `<=` meaning below the
/// next minor).
fn python_below(text: &str) -> Option<(u32, u32)> {
    let rest = text.strip_prefix("sys.version_info")?;
    let rest = rest.strip_prefix("[:2]").unwrap_or(rest).trim_start();
    let (inclusive, rest) = if let Some(rest) = rest.strip_prefix("<=") {
        (true, rest)
    } else {
        (false, rest.strip_prefix('<')?)
    };
    let tuple = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut numbers = tuple
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| p.parse::<u32>().ok());
    let major = numbers.next()??;
    let minor = numbers.next().unwrap_or(Some(0))?;
    Some(if inclusive {
        (major, minor + 1)
    } else {
        (major, minor)
    })
}

/// `sys.platform == "win32"` or `sys.platform.startswith("win")`.
fn platform_is(text: &str) -> Option<String> {
    if let Some(rest) = text.strip_prefix("sys.platform == ") {
        return quoted(rest);
    }
    let rest = text
        .strip_prefix("sys.platform.startswith(")?
        .strip_suffix(')')?;
    quoted(rest)
}

/// `sys.platform != "linux"`.
fn platform_is_not(text: &str) -> Option<String> {
    quoted(text.strip_prefix("sys.platform != ")?)
}

fn quoted(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!inner.is_empty() && !inner.contains('"')).then(|| inner.to_owned())
}

#[cfg(test)]
mod tests {
    use super::skipif_requirement;
    use crate::requirement::Requirement;

    fn env(name: &str) -> Requirement {
        Requirement::Env { name: name.into() }
    }

    #[test]
    fn environment_idioms() {
        assert_eq!(
            skipif_requirement("not os.environ.get(\"OPENAI_API_KEY\")"),
            env("OPENAI_API_KEY")
        );
        assert_eq!(
            skipif_requirement("not os.getenv('HF_TOKEN')"),
            env("HF_TOKEN")
        );
        assert_eq!(skipif_requirement("os.getenv(\"K\") is None"), env("K"));
        assert_eq!(
            skipif_requirement("os.environ.get(\"K\", \"\") == \"\""),
            env("K")
        );
        assert_eq!(
            skipif_requirement("\"RUN_SLOW\" not in os.environ"),
            env("RUN_SLOW")
        );
        assert_eq!(skipif_requirement("(not os.environ.get('K'))"), env("K"));
    }

    #[test]
    fn version_and_platform_idioms() {
        assert_eq!(
            skipif_requirement("sys.version_info < (3, 11)"),
            Requirement::Python { min: (3, 11) }
        );
        assert_eq!(
            skipif_requirement("sys.version_info[:2] <= (3, 10)"),
            Requirement::Python { min: (3, 11) }
        );
        assert_eq!(
            skipif_requirement("sys.platform == 'win32'"),
            Requirement::NotPlatform {
                platform: "win32".into()
            }
        );
        assert_eq!(
            skipif_requirement("sys.platform.startswith(\"win\")"),
            Requirement::NotPlatform {
                platform: "win".into()
            }
        );
        assert_eq!(
            skipif_requirement("sys.platform != \"linux\""),
            Requirement::OnlyPlatform {
                platform: "linux".into()
            }
        );
        assert_eq!(
            skipif_requirement("not sys.platform.startswith('linux')"),
            Requirement::OnlyPlatform {
                platform: "linux".into()
            }
        );
    }

    #[test]
    fn anything_else_is_left_to_pytest() {
        for condition in [
            "torch.cuda.device_count() < 2",
            "os.environ.get('CI') == '1'",
            "not HAS_NUMPY",
            "sys.version_info >= (3, 13)",
        ] {
            assert!(
                matches!(skipif_requirement(condition), Requirement::Unknown { .. }),
                "{condition}"
            );
        }
    }
}
