//! Small re-implementations of Python built-ins whose exact behaviour pytest's
//! configuration loading depends on: whitespace, `splitlines`, `repr`, `str` of
//! TOML values, and truthiness.

use std::fmt::Write as _;

use toml::Value;

/// Python's `str.isspace` for one character: Unicode `White_Space` plus the
/// information separators `\x1c`–`\x1f`.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `str.strip()`.
pub(crate) fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `str.rstrip()`.
pub(crate) fn rstrip(s: &str) -> &str {
    s.trim_end_matches(is_space)
}

/// Python's `str.splitlines(keepends=True)`.
pub(crate) fn splitlines_keepends(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' => {
                if let Some(&(j, '\n')) = chars.peek() {
                    chars.next();
                    j + 1
                } else {
                    i + 1
                }
            }
            '\n' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        lines.push(&s[start..end]);
        start = end;
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// Python's `repr()` of a `str`.
#[must_use]
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            ' ' => out.push(' '),
            c if c.is_control() || is_space(c) || c == '\u{ad}' => {
                let code = u32::from(c);
                if code <= 0xff {
                    let _ = write!(out, "\\x{code:02x}");
                } else if code <= 0xffff {
                    let _ = write!(out, "\\u{code:04x}");
                } else {
                    let _ = write!(out, "\\U{code:08x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr()` of a `float`, the shortest text that reads back the same.
pub(crate) fn repr_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    // `{:e}` gives the shortest round-tripping digits, e.g. "-1.25e-7".
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exponent + 1;
    let len = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let body = if point <= -4 || point > 16 {
        let mut body = digits[..1].to_owned();
        if digits.len() > 1 {
            body.push('.');
            body.push_str(&digits[1..]);
        }
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(body, "e{exp_sign}{:02}", exponent.unsigned_abs());
        body
    } else if point <= 0 {
        format!(
            "0.{}{digits}",
            "0".repeat(usize::try_from(-point).unwrap_or(0))
        )
    } else if point >= len {
        format!(
            "{digits}{}.0",
            "0".repeat(usize::try_from(point - len).unwrap_or(0))
        )
    } else {
        let split = usize::try_from(point).unwrap_or(0);
        format!("{}.{}", &digits[..split], &digits[split..])
    };
    format!("{sign}{body}")
}

/// Python's `str()` of the value `tomllib` returns for a TOML value.
pub(crate) fn str_of_toml(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Datetime(datetime) => str_of_datetime(datetime),
        other => repr_of_toml(other),
    }
}

/// Python's `repr()` of the value `tomllib` returns for a TOML value.
///
/// Dates and times are rendered as their `str()`; pytest never shows their
/// `repr()` in a way that matters here.
pub(crate) fn repr_of_toml(value: &Value) -> String {
    match value {
        Value::String(s) => repr_str(s),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => repr_float(*f),
        Value::Boolean(true) => "True".to_owned(),
        Value::Boolean(false) => "False".to_owned(),
        Value::Datetime(datetime) => str_of_datetime(datetime),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(repr_of_toml).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Table(table) => {
            let items: Vec<String> = table
                .iter()
                .map(|(k, v)| format!("{}: {}", repr_str(k), repr_of_toml(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// Python's `str()` of a `datetime`, `date` or `time` from `tomllib`, which keeps
/// microseconds (truncated) and writes `Z` as `+00:00`.
fn str_of_datetime(datetime: &toml::value::Datetime) -> String {
    let mut out = String::new();
    if let Some(date) = &datetime.date {
        let _ = write!(out, "{:04}-{:02}-{:02}", date.year, date.month, date.day);
    }
    if let Some(time) = &datetime.time {
        if !out.is_empty() {
            out.push(' ');
        }
        let _ = write!(
            out,
            "{:02}:{:02}:{:02}",
            time.hour, time.minute, time.second
        );
        let micros = time.nanosecond / 1000;
        if micros != 0 {
            let _ = write!(out, ".{micros:06}");
        }
    }
    match datetime.offset {
        Some(toml::value::Offset::Z) => out.push_str("+00:00"),
        Some(toml::value::Offset::Custom { minutes }) => {
            let sign = if minutes < 0 { '-' } else { '+' };
            let minutes = minutes.unsigned_abs();
            let _ = write!(out, "{sign}{:02}:{:02}", minutes / 60, minutes % 60);
        }
        None => {}
    }
    out
}

/// Python's truthiness of the value `tomllib` returns for a TOML value.
pub(crate) fn is_truthy(value: &Value) -> bool {
    match value {
        Value::String(s) => !s.is_empty(),
        Value::Integer(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Boolean(b) => *b,
        Value::Datetime(_) => true,
        Value::Array(items) => !items.is_empty(),
        Value::Table(table) => !table.is_empty(),
    }
}

/// Python's `type(value).__name__` for the value `tomllib` returns.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "str",
        Value::Integer(_) => "int",
        Value::Float(_) => "float",
        Value::Boolean(_) => "bool",
        Value::Datetime(datetime) => match (&datetime.date, &datetime.time) {
            (Some(_), Some(_)) => "datetime",
            (Some(_), None) => "date",
            _ => "time",
        },
        Value::Array(_) => "list",
        Value::Table(_) => "dict",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        for (f, expected) in [
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (-2.5, "-2.5"),
            (1.5e300, "1.5e+300"),
            (123.456, "123.456"),
            (0.0, "0.0"),
        ] {
            assert_eq!(repr_float(f), expected, "{f}");
        }
    }

    #[test]
    fn str_repr_matches_python() {
        assert_eq!(repr_str("abc"), "'abc'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(repr_str("a\tb\\"), "'a\\tb\\\\'");
        assert_eq!(repr_str("\u{a0}"), "'\\xa0'");
    }

    #[test]
    fn splitlines_knows_pythons_boundaries() {
        assert_eq!(
            splitlines_keepends("a\nb\r\nc\x0cd\u{2028}e"),
            vec!["a\n", "b\r\n", "c\x0c", "d\u{2028}", "e"]
        );
        assert!(splitlines_keepends("").is_empty());
    }

    #[test]
    fn str_of_toml_scalars() {
        let doc: toml::Table = toml::from_str(
            "a = true\nb = 1.0\nc = 1979-05-27T07:32:00Z\nd = 07:32:00.5\ne = {x = 'y', z = [1, 2]}",
        )
        .unwrap();
        assert_eq!(str_of_toml(&doc["a"]), "True");
        assert_eq!(str_of_toml(&doc["b"]), "1.0");
        assert_eq!(str_of_toml(&doc["c"]), "1979-05-27 07:32:00+00:00");
        assert_eq!(str_of_toml(&doc["d"]), "07:32:00.500000");
        assert_eq!(str_of_toml(&doc["e"]), "{'x': 'y', 'z': [1, 2]}");
    }
}
