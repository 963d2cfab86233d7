//! pytest-compatible `-m` and `-k` expressions: parse, evaluate, print.
//!
//! The behaviour is pytest 9.2's (`_pytest/mark/expression.py` and
//! `_pytest/mark/__init__.py`), down to its error columns and messages,
//! and is checked against it by the differential tests (`scripts/test`).
//!
//! ```
//! use proctor_expr::{Expression, MarkMatcher};
//!
//! let expr = Expression::parse("device(serial='123') and not slow").unwrap();
//! let mut kwargs = serde_json::Map::new();
//! kwargs.insert("serial".to_owned(), "123".into());
//! let markers = MarkMatcher::new([("device".to_owned(), kwargs)]);
//! assert!(expr.evaluate(&mut |name, kwargs| markers.matches(name, kwargs)));
//!
//! let error = Expression::parse("a and").unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "at column 6: expected not OR left parenthesis OR identifier; got end of input"
//! );
//! ```

#![warn(missing_docs)]

mod error;
mod expression;
mod keywords;
mod matcher;
mod option;
mod parser;
mod python;
mod tables;

pub use error::{ParseError, ParseErrorKind};
pub use expression::{Expression, Kwargs, Relaxed, Value, MAX_RELAXED_NODES};
pub use keywords::keyword_names;
pub use matcher::{KeywordCallError, KeywordMatcher, MarkMatcher};
pub use option::{parse_keyword_option, parse_mark_option, strip_keyword_option};
pub use tables::UNICODE_VERSION;

/// The deepest expression proctor parses: at most this many parentheses
/// open at once, and a tree at most this deep (a chain of `n` `or`s or
/// `and`s is `n` deep, as are `n` `not`s in a row). pytest crashes with
/// `RecursionError` before that: at about 320 parentheses or a depth of 960
/// (see [`ParseErrorKind::Crash`]).
pub const MAX_NESTING: usize = 1000;
