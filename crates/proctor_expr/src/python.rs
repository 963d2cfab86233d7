//! Python's answers to the character and number questions pytest's scanner
//! asks: `re`'s `\w`, `str.isdigit`, `int(str)`, `str.isidentifier`,
//! `keyword.iskeyword` and `str.lstrip`.
//!
//! The character classes come from generated tables (see `tables.rs`), so
//! they agree with the interpreter that ran the generator, not with Rust's
//! own, newer Unicode database.

use crate::tables;

/// The digits Python's `int()` accepts before refusing a decimal string
/// (`sys.get_int_max_str_digits()`, 4300 by default since Python 3.11).
pub(crate) const INT_MAX_STR_DIGITS: usize = 4300;

/// The hard keywords of Python (`keyword.kwlist`), which cannot name a keyword
/// argument.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Whether `re.match(r"\w", c)` matches.
pub(crate) fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    in_table(tables::WORD, c)
}

/// Whether `c` is one of the characters of pytest's identifier pattern
/// `(:?\w|:|\+|-|\.|\[|\]|\\|/)+`.
pub(crate) fn is_ident_char(c: char) -> bool {
    is_word(c) || matches!(c, ':' | '+' | '-' | '.' | '[' | ']' | '\\' | '/')
}

/// Whether `c.isspace()`: the characters `str.lstrip()` removes.
pub(crate) fn is_space(c: char) -> bool {
    in_table(tables::SPACE, c)
}

/// `s.isdigit()`: non-empty, and every character a digit in Python's sense
/// (which includes superscripts and other digits `int()` refuses).
pub(crate) fn is_digit_str(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| in_table(tables::DIGIT, c))
}

/// The value of a decimal digit (`str.isdecimal()`), in any script.
fn decimal_value(c: char) -> Option<u8> {
    if c.is_ascii_digit() {
        return u8::try_from(u32::from(c) - u32::from('0')).ok();
    }
    let cp = u32::from(c);
    let index = tables::DECIMAL.partition_point(|&(_, hi, _)| hi < cp);
    let &(lo, hi, first) = tables::DECIMAL.get(index)?;
    if (lo..=hi).contains(&cp) {
        u8::try_from(cp - lo).ok().map(|offset| first + offset)
    } else {
        None
    }
}

/// `s.isidentifier()`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| in_table(tables::ID_START, c))
        && chars.all(|c| in_table(tables::ID_CONTINUE, c))
}

/// `keyword.iskeyword(s)`.
pub(crate) fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// `s.lstrip()`.
pub(crate) fn lstrip(s: &str) -> &str {
    s.trim_start_matches(is_space)
}

/// An integer literal of an expression, as Python's `int()` reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Integer {
    /// A value that fits in an `i64`.
    Small(i64),
    /// Any other value: its canonical decimal digits, with a leading `-` when
    /// negative.
    Big(String),
}

/// Why Python's `int()` raised `ValueError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IntError(pub(crate) String);

/// `int(s)` for a string `s` of an optional `-` and Python digits, which is
/// what pytest passes it.
pub(crate) fn parse_int(s: &str) -> Result<Integer, IntError> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let mut ascii = String::with_capacity(digits.len());
    let mut run = 0;
    for c in digits.chars() {
        match decimal_value(c) {
            Some(value) => {
                ascii.push(char::from(b'0' + value));
                run += 1;
            }
            None => break,
        }
    }
    if run > INT_MAX_STR_DIGITS {
        return Err(IntError(format!(
            "Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer string conversion: \
             value has {run} digits; use sys.set_int_max_str_digits() to increase the limit"
        )));
    }
    if run != digits.chars().count() || run == 0 {
        // `%.200R`: the repr, cut to 200 characters.
        let repr: String = format!("'{s}'").chars().take(200).collect();
        return Err(IntError(format!(
            "invalid literal for int() with base 10: {repr}"
        )));
    }
    let trimmed = ascii.trim_start_matches('0');
    if trimmed.is_empty() {
        return Ok(Integer::Small(0));
    }
    let signed = if negative {
        format!("-{trimmed}")
    } else {
        trimmed.to_owned()
    };
    Ok(match signed.parse::<i64>() {
        Ok(value) => Integer::Small(value),
        Err(_) => Integer::Big(signed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_characters_follow_python() {
        for c in ['a', 'Z', '0', '_', 'é', 'ß', '٣', '²', '中'] {
            assert!(is_word(c), "{c:?}");
        }
        // U+0345 is alphabetic for Rust but not `\w` for Python.
        for c in ['-', ' ', '$', '\u{0345}', '\u{00B7}'] {
            assert!(!is_word(c), "{c:?}");
        }
    }

    #[test]
    fn ident_characters_add_pytest_punctuation() {
        for c in [':', '+', '-', '.', '[', ']', '\\', '/'] {
            assert!(is_ident_char(c));
        }
        for c in [
            '(', ')', '=', ',', '\'', '"', '$', '!', '*', '{', ' ', '\t', '\n',
        ] {
            assert!(!is_ident_char(c), "{c:?}");
        }
    }

    #[test]
    fn digits_include_superscripts() {
        assert!(is_digit_str("123"));
        assert!(is_digit_str("٣²"));
        assert!(!is_digit_str(""));
        assert!(!is_digit_str("1_000"));
        assert!(!is_digit_str("-1"));
    }

    #[test]
    fn int_reads_any_decimal_script() {
        assert_eq!(parse_int("007"), Ok(Integer::Small(7)));
        assert_eq!(parse_int("-0"), Ok(Integer::Small(0)));
        assert_eq!(parse_int("٣٤"), Ok(Integer::Small(34)));
        assert_eq!(
            parse_int("-9223372036854775808"),
            Ok(Integer::Small(i64::MIN))
        );
        assert_eq!(
            parse_int("9223372036854775808"),
            Ok(Integer::Big("9223372036854775808".into()))
        );
        assert_eq!(
            parse_int("-000123456789012345678901234567890"),
            Ok(Integer::Big("-123456789012345678901234567890".into()))
        );
    }

    #[test]
    fn int_refuses_like_python() {
        assert_eq!(
            parse_int("-²"),
            Err(IntError(
                "invalid literal for int() with base 10: '-²'".into()
            ))
        );
        let long = "1".repeat(4301);
        assert!(parse_int(&long)
            .unwrap_err()
            .0
            .contains("value has 4301 digits"));
        assert!(parse_int(&"1".repeat(4300)).is_ok());
        let cut = parse_int(&format!("{}²", "1".repeat(300))).unwrap_err().0;
        assert_eq!(
            cut.len(),
            "invalid literal for int() with base 10: ".len() + 200
        );
    }

    #[test]
    fn identifiers_and_keywords() {
        assert!(is_identifier("serial"));
        assert!(is_identifier("_x1"));
        assert!(is_identifier("été"));
        assert!(!is_identifier("1x"));
        assert!(!is_identifier("x-y"));
        assert!(!is_identifier(""));
        assert!(is_keyword("class"));
        assert!(is_keyword("None"));
        assert!(!is_keyword("match"));
    }

    #[test]
    fn lstrip_uses_python_whitespace() {
        assert_eq!(lstrip(" \t\n\u{1c}\u{3000}a b"), "a b");
    }
}
