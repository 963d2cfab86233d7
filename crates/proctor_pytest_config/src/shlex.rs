//! A port of Python's `shlex.split(s)` (POSIX mode, no comments), which pytest
//! uses for `addopts`, `PYTEST_ADDOPTS` and every "args" option.
//!
//! It differs from a POSIX shell in small ways that matter for exactness: only
//! space, tab, `\r` and `\n` separate words; inside double quotes a backslash
//! escapes only `"` and `\`; `#` is an ordinary character.

/// Why a string could not be split; the messages are Python's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SplitError {
    NoClosingQuotation,
    NoEscapedCharacter,
}

impl SplitError {
    /// The message Python's `shlex` raises.
    pub(crate) fn message(self) -> &'static str {
        match self {
            SplitError::NoClosingQuotation => "No closing quotation",
            SplitError::NoEscapedCharacter => "No escaped character",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Space,
    Word,
    Quote(char),
    Escape,
}

fn is_split_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Splits `s` into words exactly as Python's `shlex.split(s)` does.
pub(crate) fn split(s: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut token = String::new();
    let mut quoted = false;
    let mut state = State::Space;
    // The state an escape returns to: a word, or double quotes.
    let mut escaped_state = State::Word;
    let mut chars = s.chars();
    loop {
        let next = chars.next();
        match state {
            State::Space => match next {
                None => break,
                Some(c) if is_split_space(c) => {}
                Some('\\') => {
                    escaped_state = State::Word;
                    state = State::Escape;
                }
                Some(q @ ('"' | '\'')) => state = State::Quote(q),
                Some(c) => {
                    token.push(c);
                    state = State::Word;
                }
            },
            State::Quote(q) => {
                quoted = true;
                match next {
                    None => return Err(SplitError::NoClosingQuotation),
                    Some(c) if c == q => state = State::Word,
                    Some('\\') if q == '"' => {
                        escaped_state = state;
                        state = State::Escape;
                    }
                    Some(c) => token.push(c),
                }
            }
            State::Escape => {
                let Some(c) = next else {
                    return Err(SplitError::NoEscapedCharacter);
                };
                // Within quotes only the quote itself or the escape character
                // may be escaped; elsewhere the backslash stays.
                if let State::Quote(q) = escaped_state {
                    if c != '\\' && c != q {
                        token.push('\\');
                    }
                }
                token.push(c);
                state = escaped_state;
            }
            State::Word => match next {
                None => {
                    if !token.is_empty() || quoted {
                        words.push(std::mem::take(&mut token));
                    }
                    break;
                }
                Some(c) if is_split_space(c) => {
                    state = State::Space;
                    if !token.is_empty() || quoted {
                        words.push(std::mem::take(&mut token));
                        quoted = false;
                    }
                }
                Some(q @ ('"' | '\'')) => state = State::Quote(q),
                Some('\\') => {
                    escaped_state = State::Word;
                    state = State::Escape;
                }
                Some(c) => token.push(c),
            },
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Vec<String> {
        split(s).unwrap()
    }

    #[test]
    fn splits_like_python() {
        assert_eq!(ok("  -m 'not slow'  -v "), ["-m", "not slow", "-v"]);
        assert_eq!(ok(r#"-k "a and \"b\" \x""#), ["-k", r#"a and "b" \x"#]);
        assert_eq!(ok(r"a\ b c\\d"), ["a b", r"c\d"]);
        assert_eq!(ok("a '' b"), ["a", "", "b"]);
        assert_eq!(ok("x'y'z\"w\""), ["xyzw"]);
        assert_eq!(ok("-v # not a comment"), ["-v", "#", "not", "a", "comment"]);
        assert_eq!(ok("a\u{a0}b"), ["a\u{a0}b"]);
        assert_eq!(ok("'it''s'"), ["its"]);
        assert!(ok("").is_empty());
    }

    #[test]
    fn reports_pythons_errors() {
        assert_eq!(split("-m 'x"), Err(SplitError::NoClosingQuotation));
        assert_eq!(split("a\\"), Err(SplitError::NoEscapedCharacter));
    }
}
