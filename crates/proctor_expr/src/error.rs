//! The error of a malformed expression, worded and placed as pytest reports it.

/// Why an expression is malformed, with pytest's column and wording.
///
/// pytest stops at the first error, so there is exactly one per expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at column {column}: {message}")]
pub struct ParseError {
    /// The 1-based column pytest reports, counting Unicode scalar values
    /// (Python string indices) from the start of the expression.
    pub column: usize,
    /// The byte offset in the expression that `column` points at (the
    /// expression's length when the error is at its end).
    pub offset: usize,
    /// pytest's message, verbatim (e.g. `expected not OR left parenthesis OR
    /// identifier; got end of input`).
    pub message: String,
    /// Which stage of pytest raised the error, which decides how pytest
    /// reports it.
    pub kind: ParseErrorKind,
}

/// The stage of pytest's `Expression.compile` that rejects an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// pytest's scanner or parser raised `SyntaxError` with the expression
    /// as its text: pytest prints `ERROR: Wrong expression passed to '-m':
    /// {expression}: at column {column}: {message}`.
    Syntax,
    /// Python's compiler rejected the parsed expression (a repeated keyword
    /// argument, `__debug__` as a keyword): the `SyntaxError` has no text, so
    /// pytest prints `None` in place of the expression, and column 1.
    Compile,
    /// pytest crashes on the expression with this Python exception
    /// (`INTERNALERROR> {exception}: {message}`): an integer that `int()`
    /// refuses (`²`, more than 4300 digits), or nesting deeper than Python's
    /// recursion limit allows. The nesting limit is approximate: pytest's
    /// depends on its call stack (at about 320 parentheses, or 965 `not`s or
    /// operators in a chain, measured with pytest 9.2 on Python 3.11);
    /// proctor refuses more than [`MAX_NESTING`](crate::MAX_NESTING) levels.
    Crash {
        /// The Python exception class: `ValueError` or `RecursionError`.
        exception: &'static str,
    },
}

impl ParseError {
    pub(crate) fn syntax(input: &str, offset: usize, message: String) -> Self {
        Self {
            column: input[..offset].chars().count() + 1,
            offset,
            message,
            kind: ParseErrorKind::Syntax,
        }
    }

    /// pytest's own report of this error for an expression passed to
    /// `-{option}` (`m` or `k`), without pytest's `ERROR: ` prefix:
    /// `Wrong expression passed to '-m': {input}: at column {column}: {message}`,
    /// or `{exception}: {message}` for an expression pytest crashes on.
    ///
    /// For `-k`, `input` is the expression as pytest sees it, after its
    /// leading whitespace is stripped (see [`parse_keyword_option`](crate::parse_keyword_option)).
    #[must_use]
    pub fn pytest_message(&self, option: char, input: &str) -> String {
        match self.kind {
            ParseErrorKind::Syntax => {
                format!("Wrong expression passed to '-{option}': {input}: {self}")
            }
            ParseErrorKind::Compile => {
                format!("Wrong expression passed to '-{option}': None: {self}")
            }
            ParseErrorKind::Crash { exception } => format!("{exception}: {}", self.message),
        }
    }
}
