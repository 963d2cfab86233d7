//! How pytest treats the values of its `-m` and `-k` options before and
//! around parsing them (`deselect_by_mark`, `deselect_by_keyword`).

use crate::error::ParseError;
use crate::expression::Expression;
use crate::python;

/// pytest's reading of `-m VALUE`: an empty value selects every item
/// (`Ok(None)`); any other value is parsed as it is, so a value of only
/// blanks is the empty expression, which deselects every item.
///
/// Report an error as pytest does with
/// `error.pytest_message('m', value)`.
pub fn parse_mark_option(value: &str) -> Result<Option<Expression>, ParseError> {
    if value.is_empty() {
        return Ok(None);
    }
    Expression::parse(value).map(Some)
}

/// pytest's reading of `-k VALUE`: leading whitespace is stripped first
/// (see [`strip_keyword_option`]); then an empty value selects every item
/// (`Ok(None)`), and anything else is parsed.
///
/// An error's column and offset count from the stripped value; report it as
/// pytest does with `error.pytest_message('k', strip_keyword_option(value))`.
pub fn parse_keyword_option(value: &str) -> Result<Option<Expression>, ParseError> {
    let value = strip_keyword_option(value);
    if value.is_empty() {
        return Ok(None);
    }
    Expression::parse(value).map(Some)
}

/// The `-k` value as pytest parses it: without leading whitespace, as
/// Python's `str.lstrip()` strips it (which includes the separators
/// U+001C..U+001F that Rust's `trim_start` keeps).
#[must_use]
pub fn strip_keyword_option(value: &str) -> &str {
    python::lstrip(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_mark_option_selects_everything() {
        assert_eq!(parse_mark_option(""), Ok(None));
        let blank = parse_mark_option(" ").unwrap().unwrap();
        assert!(blank.is_empty());
        assert!(!blank.evaluate(&mut |_, _| true));
    }

    #[test]
    fn mark_option_keeps_leading_blanks() {
        let error = parse_mark_option("  a $").unwrap_err();
        assert_eq!(error.column, 5);
        assert_eq!(
            error.pytest_message('m', "  a $"),
            "Wrong expression passed to '-m':   a $: at column 5: unexpected character \"$\""
        );
    }

    #[test]
    fn keyword_option_strips_leading_whitespace() {
        assert_eq!(parse_keyword_option(" \t "), Ok(None));
        let error = parse_keyword_option("  a $").unwrap_err();
        assert_eq!(
            error.pytest_message('k', strip_keyword_option("  a $")),
            "Wrong expression passed to '-k': a $: at column 3: unexpected character \"$\""
        );
    }
}
