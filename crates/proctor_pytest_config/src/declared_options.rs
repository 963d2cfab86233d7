//! Command-line options that conftests and installed plugins declare with
//! `parser.addoption(...)` / `group.addoption(...)` in their
//! `pytest_addoption` hook, read from their source text without importing
//! anything, so that `addopts` is split into options, values and paths as
//! pytest's argparse parser splits it.
//!
//! The scan is textual on purpose: it needs only each call's literal
//! strings (`"--columns"`, `action="store_true"`, `nargs="+"`), and it runs
//! on plugin files of any Python version. A call whose option names are
//! not all plain string literals (`"--{0}sort".format(prefix)`) is skipped:
//! the built-in plugin table and the last-resort rule of
//! [`crate::args::parse_guessing`] cover those.

use std::path::{Path, PathBuf};

/// How many values an option declared with `addoption` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredArity {
    /// `store_true`, `store_false`, `store_const`, `append_const`, `count`,
    /// `help`, `version`.
    Flag,
    /// The default: one value.
    One,
    /// `nargs="?"`.
    Optional,
    /// `nargs="*"` (`min` 0), `nargs="+"` (`min` 1) or `nargs=N`: the
    /// following tokens that are not options, at least `min`, at most `max`.
    Many { min: usize, max: Option<usize> },
}

/// One declared option: its names (`--level`, `-l`) and arity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredOption {
    pub names: Vec<String>,
    pub arity: DeclaredArity,
}

/// Every `addoption(...)` / `_addoption(...)` call in `source` whose option
/// names are string literals.
#[must_use]
pub fn scan(source: &str) -> Vec<DeclaredOption> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = source[at..].find("addoption(") {
        let start = at + found;
        at = start + "addoption(".len();
        // `addoption` as a whole name (or `_addoption`), not `myaddoption(`.
        let before = start.checked_sub(1).map(|i| bytes[i]);
        let whole = match before {
            Some(b'_') => start < 2 || !is_name_byte(bytes[start - 2]),
            Some(b) => !is_name_byte(b),
            None => true,
        };
        if !whole {
            continue;
        }
        let Some((arguments, end)) = call_arguments(source, at) else {
            continue;
        };
        at = end;
        if let Some(option) = declared(&arguments) {
            out.push(option);
        }
    }
    out
}

/// The options declared by the files at `paths` that can be read; a file
/// that cannot be read declares nothing (pytest would fail on it first).
#[must_use]
pub fn scan_files(paths: &[PathBuf]) -> Vec<DeclaredOption> {
    paths
        .iter()
        .filter_map(|path| std::fs::read(path).ok())
        .flat_map(|bytes| scan(&String::from_utf8_lossy(&bytes)))
        .collect()
}

/// The source files of the `pytest11` entry points (installed plugins)
/// found in the `*.dist-info` directories of `site_dirs`.
#[must_use]
pub fn plugin_files(site_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in site_dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut dists: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "dist-info"))
            .collect();
        dists.sort();
        for dist in dists {
            let Ok(text) = std::fs::read_to_string(dist.join("entry_points.txt")) else {
                continue;
            };
            for module in pytest11_modules(&text) {
                if let Some(file) = module_file(dir, &module) {
                    out.push(file);
                }
            }
        }
    }
    out
}

/// The modules named in the `[pytest11]` section of an `entry_points.txt`
/// (`name = module.path` or `module.path:attribute`).
fn pytest11_modules(text: &str) -> Vec<String> {
    let mut section = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line == "[pytest11]";
        } else if section {
            if let Some((_, target)) = line.split_once('=') {
                let module = target.split(':').next().unwrap_or("").trim();
                if !module.is_empty() {
                    out.push(module.to_owned());
                }
            }
        }
    }
    out
}

/// `dir/a/b.py` or `dir/a/b/__init__.py` for module `a.b`.
fn module_file(dir: &Path, module: &str) -> Option<PathBuf> {
    let relative: PathBuf = module.split('.').collect();
    let file = dir.join(&relative).with_extension("py");
    if file.is_file() {
        return Some(file);
    }
    let package = dir.join(relative).join("__init__.py");
    package.is_file().then_some(package)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// One argument of a call: its keyword (if any) and its text.
#[derive(Debug)]
struct Argument {
    keyword: Option<String>,
    text: String,
}

/// The arguments of the call whose `(` is just before `start`, split at
/// top-level commas, and the offset after its `)`. Strings, brackets and
/// comments are skipped over; `None` when the call never closes.
fn call_arguments(source: &str, start: usize) -> Option<(Vec<Argument>, usize)> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    let mut piece_start = start;
    let mut pieces = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => i = skip_string(bytes, i),
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' if depth > 0 => {
                depth -= 1;
                i += 1;
            }
            b')' => {
                pieces.push(&source[piece_start..i]);
                let arguments = pieces
                    .into_iter()
                    .filter(|p| !p.trim().is_empty())
                    .map(argument)
                    .collect();
                return Some((arguments, i + 1));
            }
            b',' if depth == 0 => {
                pieces.push(&source[piece_start..i]);
                i += 1;
                piece_start = i;
            }
            _ => i += 1,
        }
    }
    None
}

/// The offset just past the string literal that starts at `i` (a quote).
fn skip_string(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    let triple = bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote);
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b if b == quote && !triple => return j + 1,
            b if b == quote
                && bytes.get(j + 1) == Some(&quote)
                && bytes.get(j + 2) == Some(&quote) =>
            {
                return j + 3
            }
            b'\n' if !triple => return j,
            _ => j += 1,
        }
    }
    bytes.len()
}

fn argument(piece: &str) -> Argument {
    let text = piece.trim();
    // `name=value` but not `==` or a string holding `=`.
    let keyword = text.split_once('=').and_then(|(name, rest)| {
        let name = name.trim();
        (!rest.starts_with('=') && !name.is_empty() && name.bytes().all(is_name_byte))
            .then(|| name.to_owned())
    });
    let text = match &keyword {
        Some(_) => text.split_once('=').map_or("", |(_, value)| value).trim(),
        None => text,
    };
    Argument {
        keyword,
        text: text.to_owned(),
    }
}

/// The value of a plain string literal (`"x"`, `'x'`, `r"x"`), without
/// escapes (option names and actions have none); `None` for anything else.
fn literal(text: &str) -> Option<String> {
    let text = text.strip_prefix(['r', 'R', 'u', 'U']).unwrap_or(text);
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = text.strip_prefix(quote)?.strip_suffix(quote)?;
    (!inner.contains(quote) && !inner.contains('\\')).then(|| inner.to_owned())
}

fn declared(arguments: &[Argument]) -> Option<DeclaredOption> {
    let mut names = Vec::new();
    let mut action = None;
    let mut nargs = None;
    for argument in arguments {
        match argument.keyword.as_deref() {
            None => {
                // `*names` or a computed name: the option cannot be known.
                let name = literal(&argument.text)?;
                names.push(name);
            }
            Some("action") => action = Some(literal(&argument.text)?),
            Some("nargs") => nargs = Some(argument.text.clone()),
            Some(_) => {}
        }
    }
    if names.is_empty() || !names.iter().all(|n| n.starts_with('-')) {
        return None;
    }
    let arity = match action.as_deref() {
        Some(
            "store_true" | "store_false" | "store_const" | "append_const" | "count" | "help"
            | "version",
        ) => DeclaredArity::Flag,
        _ => match nargs
            .as_deref()
            .map(|n| literal(n).unwrap_or_else(|| n.to_owned()))
            .as_deref()
        {
            None | Some("None") => DeclaredArity::One,
            Some("?") => DeclaredArity::Optional,
            Some("*") => DeclaredArity::Many { min: 0, max: None },
            Some("+") => DeclaredArity::Many { min: 1, max: None },
            Some(n) => match n.parse::<usize>() {
                Ok(1) => DeclaredArity::One,
                Ok(n) => DeclaredArity::Many {
                    min: n,
                    max: Some(n),
                },
                Err(_) => return None,
            },
        },
    };
    Some(DeclaredOption { names, arity })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(names: &[&str], arity: DeclaredArity) -> DeclaredOption {
        DeclaredOption {
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            arity,
        }
    }

    #[test]
    fn reads_the_calls_of_a_pytest_addoption_hook() {
        let source = r#"
def pytest_addoption(parser):
    group = parser.getgroup("suite", "help, with (parens)")
    group.addoption("--columns", action="store", default="", help="columns (comma, separated)")
    parser.addoption("--fast", "-F", action='store_true', help="""a
        "flag", really""")  # a comment (with a paren
    parser.addoption(
        "--level",
        type=int,
        default=1,
    )
    parser.addoption("--stages", nargs="+", default=[])
    parser.addoption("--pair", nargs=2)
    group._addoption("--maybe", nargs="?", const="x")
    parser.addoption("--{0}sort".format(prefix), metavar="COL")
    parser.addoption(*NAMES)
    parser.myaddoption("--not-this")
    parser.addini("markers", "not an option")
"#;
        assert_eq!(
            scan(source),
            [
                option(&["--columns"], DeclaredArity::One),
                option(&["--fast", "-F"], DeclaredArity::Flag),
                option(&["--level"], DeclaredArity::One),
                option(&["--stages"], DeclaredArity::Many { min: 1, max: None }),
                option(
                    &["--pair"],
                    DeclaredArity::Many {
                        min: 2,
                        max: Some(2)
                    }
                ),
                option(&["--maybe"], DeclaredArity::Optional),
            ]
        );
    }

    #[test]
    fn never_panics_on_broken_source() {
        for source in [
            "addoption(",
            "addoption(\"--x",
            "x.addoption('--a', nargs=",
            "addoption(')'",
            "_addoption",
            "é addoption(\"--é\")",
        ] {
            let _ = scan(source);
        }
        assert_eq!(
            scan("addoption(\"--é\")"),
            [option(&["--é"], DeclaredArity::One)]
        );
    }

    #[test]
    fn entry_points_name_plugin_modules() {
        let text = "[console_scripts]\nx = a:b\n\n[pytest11]\nbenchmark = pytest_benchmark.plugin\ncov = pytest_cov.plugin:Plugin\n";
        assert_eq!(
            pytest11_modules(text),
            ["pytest_benchmark.plugin", "pytest_cov.plugin"]
        );
    }
}
