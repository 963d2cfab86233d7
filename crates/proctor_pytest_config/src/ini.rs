//! A port of the `iniconfig` parser (2.x, `strip_inline_comments=False`) that
//! pytest uses for `pytest.ini`, `tox.ini` and `setup.cfg`.
//!
//! Its rules differ from Python's `configparser`: a line starting with `#` or `;`
//! (after whitespace) is a comment, but a `#` after a value is part of the value;
//! `key = value` and `key: value` both work (a `:` before the first `=` wins);
//! an indented line continues the previous value even across blank lines; a
//! duplicate section or key is an error; section names are not trimmed.

use crate::python;

/// A parsed INI file: its sections in file order.
#[derive(Debug, Clone, Default)]
pub(crate) struct IniFile {
    pub(crate) sections: Vec<Section>,
}

/// One `[name]` section.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    pub(crate) name: String,
    /// The 0-based line of the header.
    pub(crate) line: usize,
    pub(crate) entries: Vec<Entry>,
}

/// One `key = value` entry; continuation lines are joined with `\n`.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) value: String,
    /// The 0-based line of the key.
    pub(crate) line: usize,
}

/// A parse error, with `iniconfig`'s message and 0-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IniError {
    pub(crate) line: usize,
    pub(crate) message: String,
}

impl IniFile {
    /// The section with exactly this name (`iniconfig` does not trim names).
    pub(crate) fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }
}

enum Line<'a> {
    Blank,
    Section(&'a str),
    Value(&'a str, &'a str),
    Continuation(&'a str),
}

/// The lines `iniconfig` numbers, for excerpts: Python's `splitlines()`.
pub(crate) fn lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    python::splitlines_keepends(text)
        .into_iter()
        .map(|line| {
            line.trim_end_matches([
                '\n', '\r', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\u{85}', '\u{2028}',
                '\u{2029}',
            ])
        })
        .collect()
}

/// A line of `parse_lines`' output: a section header or a key with its value lines.
struct Token {
    line: usize,
    section: Option<String>,
    key: Option<String>,
    value: Vec<String>,
    has_value: bool,
}

/// Parses `text` as `iniconfig` does, with the same error precedence: errors
/// in single lines come first, then structural ones in file order.
pub(crate) fn parse(text: &str) -> Result<IniFile, IniError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);

    // Pass 1 (`parse_lines`): tokens of (line, section, key, value lines).
    let mut tokens: Vec<Token> = Vec::new();
    let mut section: Option<String> = None;
    for (lineno, raw) in python::splitlines_keepends(text).into_iter().enumerate() {
        match parse_line(raw).map_err(|message| IniError {
            line: lineno,
            message,
        })? {
            Line::Blank => {}
            Line::Value(key, value) => tokens.push(Token {
                line: lineno,
                section: section.clone(),
                key: Some(key.to_owned()),
                value: if value.is_empty() {
                    Vec::new()
                } else {
                    vec![value.to_owned()]
                },
                has_value: true,
            }),
            Line::Section(name) => {
                if name.is_empty() {
                    return Err(IniError {
                        line: lineno,
                        message: "empty section name".to_owned(),
                    });
                }
                section = Some(name.to_owned());
                tokens.push(Token {
                    line: lineno,
                    section: section.clone(),
                    key: None,
                    value: Vec::new(),
                    has_value: false,
                });
            }
            Line::Continuation(data) => match tokens.last_mut() {
                Some(token) if token.has_value => token.value.push(data.to_owned()),
                _ => {
                    return Err(IniError {
                        line: lineno,
                        message: "unexpected value continuation".to_owned(),
                    })
                }
            },
        }
    }

    // Pass 2 (`parse_ini_data`): sections and duplicate checks.
    let mut file = IniFile::default();
    for token in tokens {
        let Some(section) = token.section else {
            return Err(IniError {
                line: token.line,
                message: "no section header defined".to_owned(),
            });
        };
        match token.key {
            None => {
                if file.section(&section).is_some() {
                    return Err(IniError {
                        line: token.line,
                        message: format!("duplicate section {}", python::repr_str(&section)),
                    });
                }
                file.sections.push(Section {
                    name: section,
                    line: token.line,
                    entries: Vec::new(),
                });
            }
            Some(key) => {
                let current = file
                    .sections
                    .iter_mut()
                    .find(|s| s.name == section)
                    .expect("a key's section header comes before it");
                if current.entries.iter().any(|e| e.key == key) {
                    return Err(IniError {
                        line: token.line,
                        message: format!("duplicate name {}", python::repr_str(&key)),
                    });
                }
                current.entries.push(Entry {
                    key,
                    value: token.value.join("\n"),
                    line: token.line,
                });
            }
        }
    }
    Ok(file)
}

const COMMENT_CHARS: [char; 2] = ['#', ';'];

/// `iniconfig._parse._parseline`.
fn parse_line(line: &str) -> Result<Line<'_>, String> {
    let is_comment = line
        .trim_start_matches(python::is_space)
        .chars()
        .next()
        .is_none_or(|c| COMMENT_CHARS.contains(&c));
    let line = if is_comment { "" } else { python::rstrip(line) };
    let Some(first) = line.chars().next() else {
        return Ok(Line::Blank);
    };
    if first == '[' {
        let mut head = line;
        for c in COMMENT_CHARS {
            head = python::rstrip(head.split(c).next().unwrap_or(""));
        }
        if head.len() >= 2 && head.ends_with(']') {
            return Ok(Line::Section(&head[1..head.len() - 1]));
        }
        return Ok(Line::Continuation(python::strip(line)));
    }
    if !python::is_space(first) {
        let split = match line.split_once('=') {
            Some((name, value)) if !name.contains(':') => Some((name, value)),
            _ => line.split_once(':'),
        };
        let Some((name, value)) = split else {
            return Err(format!("unexpected line: {}", python::repr_str(line)));
        };
        return Ok(Line::Value(python::strip(name), python::strip(value)));
    }
    Ok(Line::Continuation(python::strip(line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str, section: &str) -> Vec<(String, String)> {
        parse(text)
            .unwrap()
            .section(section)
            .unwrap()
            .entries
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect()
    }

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn keys_values_and_continuations() {
        let text = "\u{feff}# comment\n[pytest]\naddopts = -v # kept\nmarkers =\n    slow: slow tests\n\n    ; an indented comment\n    fast\nurl: http://x=1\na:b = c\nempty =\n";
        assert_eq!(
            values(text, "pytest"),
            pairs(&[
                ("addopts", "-v # kept"),
                ("markers", "slow: slow tests\nfast"),
                ("url", "http://x=1"),
                ("a", "b = c"),
                ("empty", ""),
            ])
        );
    }

    #[test]
    fn section_names_are_exact() {
        let file = parse("[ pytest ]\n[tool:pytest] # c\nx=1\n").unwrap();
        let names: Vec<_> = file.sections.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, [" pytest ", "tool:pytest"]);
    }

    #[test]
    fn unclosed_bracket_is_a_continuation() {
        assert_eq!(
            values("[s]\nk = a\n[oops\n", "s"),
            pairs(&[("k", "a\n[oops")])
        );
    }

    #[test]
    fn errors_match_iniconfig() {
        let error = |text: &str| parse(text).unwrap_err();
        assert_eq!(
            error("[s]\nnovalue\n"),
            IniError {
                line: 1,
                message: "unexpected line: 'novalue'".to_owned()
            }
        );
        assert_eq!(error("x = 1\n").message, "no section header defined");
        assert_eq!(
            error("[s]\n  cont\n").message,
            "unexpected value continuation"
        );
        assert_eq!(error("[]\n").message, "empty section name");
        assert_eq!(error("[s]\n[s]\n").message, "duplicate section 's'");
        assert_eq!(error("[s]\na=1\na=2\n").line, 2);
        // A bad line anywhere wins over an earlier structural error.
        assert_eq!(error("x = 1\n[s]\nbad\n").message, "unexpected line: 'bad'");
    }
}
