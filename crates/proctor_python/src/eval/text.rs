//! Turning values into text as Python does: `str()`, `repr()`, format
//! specifications (`f"{x:>4}"`, `format()`), `str.format` and `%`
//! formatting. Where Python's output depends on something proctor does not
//! model (the printable-character table for non-ASCII `repr`, set order,
//! object addresses), the answer is an error, never an approximation.

use std::fmt::Write as _;

use super::ops::{self, int};
use crate::value::{float_repr, ContainerKind, PyValue};

/// `str(value)`.
pub(super) fn str_of(value: &PyValue) -> Result<String, String> {
    match value {
        PyValue::Str(s) => Ok(s.to_string()),
        PyValue::Path(s) => Ok(s.clone()),
        PyValue::EnumMember { display } => Ok(display.clone()),
        PyValue::Unknown(reason) => Err(reason.clone()),
        other => repr(other),
    }
}

fn quote_char(has_single: bool, has_double: bool) -> char {
    if has_single && !has_double {
        '"'
    } else {
        '\''
    }
}

/// `repr(value)`.
pub(super) fn repr(value: &PyValue) -> Result<String, String> {
    Ok(match value {
        PyValue::None => "None".to_owned(),
        PyValue::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        PyValue::Int(_) | PyValue::Float(_) | PyValue::Imag(_) | PyValue::NegImag(_) => {
            value.scalar_str().unwrap_or_default()
        }
        PyValue::Str(s) => {
            if !s.is_ascii() {
                return Err("repr() of a non-ASCII string (Python's printable table)".to_owned());
            }
            // The same text as the config's port of `repr`, for ASCII.
            proctor_config::repr_str(s)
        }
        PyValue::Bytes(b) => {
            let quote = quote_char(b.contains(&b'\''), b.contains(&b'"'));
            let mut out = format!("b{quote}");
            for &c in b {
                match c {
                    b'\\' => out.push_str("\\\\"),
                    b'\n' => out.push_str("\\n"),
                    b'\r' => out.push_str("\\r"),
                    b'\t' => out.push_str("\\t"),
                    c if char::from(c) == quote => {
                        out.push('\\');
                        out.push(char::from(c));
                    }
                    0x20..=0x7e => out.push(char::from(c)),
                    c => {
                        let _ = write!(out, "\\x{c:02x}");
                    }
                }
            }
            out.push(quote);
            out
        }
        PyValue::Container { kind, elements } => {
            let items: Vec<String> = match kind {
                ContainerKind::Dict => elements
                    .iter()
                    .map(|entry| match ops::pair(entry.clone()) {
                        Some((k, v)) => Ok(format!("{}: {}", repr(&k)?, repr(&v)?)),
                        None => Err("repr() of a malformed dict".to_owned()),
                    })
                    .collect::<Result<_, _>>()?,
                ContainerKind::Set if elements.len() > 1 => {
                    return Err("repr() of a set, whose order is Python's hash order".to_owned());
                }
                _ => elements.iter().map(repr).collect::<Result<_, _>>()?,
            };
            let joined = items.join(", ");
            match kind {
                ContainerKind::List => format!("[{joined}]"),
                ContainerKind::Tuple if items.len() == 1 => format!("({joined},)"),
                ContainerKind::Tuple => format!("({joined})"),
                ContainerKind::Set if items.is_empty() => "set()".to_owned(),
                ContainerKind::Dict | ContainerKind::Set => format!("{{{joined}}}"),
                ContainerKind::Keys => format!("dict_keys([{joined}])"),
                ContainerKind::Lazy => return Err("repr() of a range, iterator or view".to_owned()),
            }
        }
        PyValue::Unknown(reason) => return Err(reason.clone()),
        _ => {
            return Err(
                "repr() of an object (it shows the object's address or a custom __repr__)"
                    .to_owned(),
            )
        }
    })
}

/// A parsed format specification.
#[derive(Default)]
struct Spec {
    fill: char,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

fn parse_spec(spec: &str) -> Result<Spec, String> {
    let chars: Vec<char> = spec.chars().collect();
    let mut out = Spec {
        fill: ' ',
        ..Spec::default()
    };
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        out.fill = chars[0];
        out.align = Some(chars[1]);
        i = 2;
    } else if chars.first().copied().is_some_and(is_align) {
        out.align = Some(chars[0]);
        i = 1;
    }
    if let Some(&c) = chars.get(i).filter(|c| matches!(c, '+' | '-' | ' ')) {
        out.sign = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'z') {
        return Err("the `z` format option".to_owned());
    }
    if chars.get(i) == Some(&'#') {
        out.alternate = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        out.zero = true;
        i += 1;
    }
    let start = i;
    while chars.get(i).is_some_and(char::is_ascii_digit) {
        i += 1;
    }
    out.width = chars[start..i]
        .iter()
        .collect::<String>()
        .parse()
        .unwrap_or(0);
    if let Some(&c) = chars.get(i).filter(|c| matches!(c, ',' | '_')) {
        out.grouping = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        let start = i;
        while chars.get(i).is_some_and(char::is_ascii_digit) {
            i += 1;
        }
        out.precision = Some(
            chars[start..i]
                .iter()
                .collect::<String>()
                .parse()
                .map_err(|_| "a format precision".to_owned())?,
        );
    }
    if let Some(&c) = chars.get(i) {
        out.kind = Some(c);
        i += 1;
    }
    if i != chars.len() || out.width > 10_000 || out.precision.is_some_and(|p| p > 1_000) {
        return Err(format!("the format specification `{spec}`"));
    }
    Ok(out)
}

fn group(digits: &str, separator: char) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(separator);
        }
        out.push(c);
    }
    out
}

fn pad(body: &str, sign: &str, spec: &Spec, default_align: char) -> String {
    let len = body.chars().count() + sign.chars().count();
    if len >= spec.width {
        return format!("{sign}{body}");
    }
    let missing = spec.width - len;
    let (fill, align) = if spec.zero && spec.align.is_none() {
        ('0', '=')
    } else {
        (spec.fill, spec.align.unwrap_or(default_align))
    };
    let fill_n = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    match align {
        '<' => format!("{sign}{body}{}", fill_n(missing)),
        '^' => format!(
            "{}{sign}{body}{}",
            fill_n(missing / 2),
            fill_n(missing - missing / 2)
        ),
        '=' => format!("{sign}{}{body}", fill_n(missing)),
        _ => format!("{}{sign}{body}", fill_n(missing)),
    }
}

fn sign_of(negative: bool, spec: &Spec) -> &'static str {
    match (negative, spec.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

/// `format(value, spec)`.
pub(super) fn format_value(value: &PyValue, spec: &str) -> Result<String, String> {
    if spec.is_empty() {
        return str_of(value);
    }
    let parsed = parse_spec(spec)?;
    match value {
        PyValue::Str(s) if matches!(parsed.kind, None | Some('s')) && parsed.sign.is_none() => {
            let body: String = match parsed.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s.to_string(),
            };
            Ok(pad(&body, "", &parsed, '<'))
        }
        PyValue::Int(_) | PyValue::Bool(_)
            if matches!(parsed.kind, None | Some('d' | 'x' | 'X' | 'o' | 'b' | 'n')) =>
        {
            if matches!(value, PyValue::Bool(_)) && parsed.kind.is_none() {
                return Ok(pad(&str_of(value)?, "", &parsed, '<'));
            }
            let n = int(value).ok_or("an integer too large to format statically")?;
            let magnitude = n.unsigned_abs();
            let (mut digits, prefix) = match parsed.kind {
                Some('x') => (format!("{magnitude:x}"), "0x"),
                Some('X') => (format!("{magnitude:X}"), "0X"),
                Some('o') => (format!("{magnitude:o}"), "0o"),
                Some('b') => (format!("{magnitude:b}"), "0b"),
                _ => (magnitude.to_string(), ""),
            };
            if let Some(separator) = parsed.grouping {
                if prefix.is_empty() {
                    digits = group(&digits, separator);
                } else {
                    return Err("grouping in a non-decimal format".to_owned());
                }
            }
            let sign = format!(
                "{}{}",
                sign_of(n < 0, &parsed),
                if parsed.alternate { prefix } else { "" }
            );
            Ok(pad(&digits, &sign, &parsed, '>'))
        }
        PyValue::Int(_) | PyValue::Float(_)
            if matches!(parsed.kind, Some('f' | 'F' | '%' | 'e' | 'E'))
                || (matches!(value, PyValue::Float(_))
                    && parsed.kind.is_none()
                    && parsed.precision.is_none()) =>
        {
            let f = match value {
                PyValue::Float(f) => *f,
                other => other
                    .scalar_str()
                    .and_then(|s| s.parse().ok())
                    .ok_or("a number too large to format statically")?,
            };
            if !f.is_finite() {
                return Err("formatting a non-finite float".to_owned());
            }
            let precision = parsed.precision.unwrap_or(6);
            let (body, suffix) = match parsed.kind {
                None => (float_repr(f.abs()), ""),
                Some('%') => (format!("{:.precision$}", (f * 100.0).abs()), "%"),
                Some('e' | 'E') => {
                    let text = format!("{:.precision$e}", f.abs());
                    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
                    let exponent: i32 = exponent.parse().unwrap_or(0);
                    let text = format!(
                        "{mantissa}e{}{:02}",
                        if exponent < 0 { '-' } else { '+' },
                        exponent.unsigned_abs()
                    );
                    (
                        if parsed.kind == Some('E') {
                            text.to_uppercase()
                        } else {
                            text
                        },
                        "",
                    )
                }
                _ => (format!("{:.precision$}", f.abs()), ""),
            };
            let body = match parsed.grouping {
                Some(separator) => {
                    let (whole, fraction) = body
                        .split_once('.')
                        .map_or((body.as_str(), None), |(w, f)| (w, Some(f)));
                    let grouped = group(whole, separator);
                    fraction.map_or(grouped.clone(), |f| format!("{grouped}.{f}"))
                }
                None => body,
            };
            Ok(pad(
                &format!("{body}{suffix}"),
                sign_of(f.is_sign_negative(), &parsed),
                &parsed,
                '>',
            ))
        }
        PyValue::Unknown(reason) => Err(reason.clone()),
        _ => Err(format!("formatting a value with `{spec}`")),
    }
}

/// `template.format(*positional, **keywords)`: the literal text between
/// fields copied in runs, each field's value written without a copy
/// where it is a string already (a parametrize list built by formatting
/// thousands of templates, as packaging's `test_markers.py` does).
pub(super) fn str_format(
    template: &str,
    positional: &[PyValue],
    keywords: &[(String, PyValue)],
) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    let mut auto = 0usize;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let brace = &rest[at..=at];
        rest = &rest[at + 1..];
        if let Some(after) = rest.strip_prefix(brace) {
            // `{{` or `}}`.
            out.push_str(brace);
            rest = after;
            continue;
        }
        if brace == "}" {
            return Err("a single `}` in a format string".to_owned());
        }
        let end = rest
            .find(['{', '}'])
            .ok_or("an unclosed field in a format string")?;
        if rest.as_bytes()[end] == b'{' {
            return Err("a nested field in a format string".to_owned());
        }
        let field = &rest[..end];
        rest = &rest[end + 1..];
        let (name_part, spec) = field.split_once(':').unwrap_or((field, ""));
        let (name, conversion) = name_part
            .split_once('!')
            .map_or((name_part, None), |(n, c)| (n, Some(c)));
        let (base, index) = match name.split_once('[') {
            Some((base, rest)) => (
                base,
                Some(
                    rest.strip_suffix(']')
                        .ok_or("a malformed index in a format field")?,
                ),
            ),
            None => (name, None),
        };
        if base.contains('.') {
            return Err("an attribute in a format field".to_owned());
        }
        let value = if base.is_empty() {
            let value = positional
                .get(auto)
                .ok_or("too few arguments for str.format")?;
            auto += 1;
            value
        } else if let Ok(i) = base.parse::<usize>() {
            positional
                .get(i)
                .ok_or("too few arguments for str.format")?
        } else {
            keywords
                .iter()
                .find(|(k, _)| k == base)
                .map(|(_, v)| v)
                .ok_or("a missing keyword for str.format")?
        };
        let subscripted;
        let value = match index {
            Some(index) => {
                let key = index
                    .parse::<i128>()
                    .map_or_else(|_| PyValue::str(index), ops::int_value);
                subscripted = ops::subscript(value, &key);
                &subscripted
            }
            None => value,
        };
        let converted = match conversion {
            None => None,
            Some("r") => Some(repr(value)?),
            Some("s") => Some(str_of(value)?),
            Some(_) => return Err("a format conversion other than !r and !s".to_owned()),
        };
        match (converted, value) {
            (Some(text), _) if spec.is_empty() => out.push_str(&text),
            (Some(text), _) => out.push_str(&format_value(&PyValue::str(&text), spec)?),
            (None, PyValue::Str(text)) if spec.is_empty() => out.push_str(text),
            (None, value) => out.push_str(&format_value(value, spec)?),
        }
        if out.len() > super::MAX_TEXT {
            return Err("a string too large to build statically".to_owned());
        }
    }
    out.push_str(rest);
    if out.len() > super::MAX_TEXT {
        return Err("a string too large to build statically".to_owned());
    }
    Ok(out)
}

/// `format % args`.
pub(super) fn percent(format: &str, args: &PyValue) -> Result<PyValue, String> {
    let (positional, mapping): (Vec<PyValue>, Option<&[PyValue]>) = match args {
        PyValue::Container {
            kind: ContainerKind::Tuple,
            elements,
        } => (elements.to_vec(), None),
        PyValue::Container {
            kind: ContainerKind::Dict,
            elements,
        } => (vec![args.clone()], Some(elements)),
        PyValue::Unknown(reason) => return Err(reason.clone()),
        other => (vec![other.clone()], None),
    };
    let mut out = String::new();
    let mut next = positional.into_iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut value = None;
        if chars.peek() == Some(&'(') {
            chars.next();
            let key: String = chars.by_ref().take_while(|&c| c != ')').collect();
            let entries = mapping.ok_or("a `%(name)` format without a mapping")?;
            value = entries
                .iter()
                .filter_map(|e| ops::pair(e.clone()))
                .find(|(k, _)| matches!(k, PyValue::Str(s) if *s == key))
                .map(|(_, v)| v);
            if value.is_none() {
                return Err(format!("a missing key `{key}` for % formatting"));
            }
        }
        let mut spec = String::new();
        let mut kind = None;
        for c in chars.by_ref() {
            if c.is_ascii_alphabetic() || c == '%' {
                kind = Some(c);
                break;
            }
            spec.push(c);
        }
        let kind = kind.ok_or("an incomplete % format")?;
        if kind == '%' {
            out.push('%');
            continue;
        }
        if spec.contains('*') {
            return Err("a `*` width in % formatting".to_owned());
        }
        let value = match value {
            Some(v) => v,
            None => next.next().ok_or("not enough arguments for % formatting")?,
        };
        let (flags, rest) = spec.split_at(
            spec.find(|c: char| !matches!(c, '-' | '+' | ' ' | '0' | '#'))
                .unwrap_or(spec.len()),
        );
        let align = if flags.contains('-') { "<" } else { "" };
        let zero = if flags.contains('0') && !flags.contains('-') {
            "0"
        } else {
            ""
        };
        let sign = if flags.contains('+') {
            "+"
        } else if flags.contains(' ') {
            " "
        } else {
            ""
        };
        let alternate = if flags.contains('#') { "#" } else { "" };
        let text = match kind {
            's' => format_value(&PyValue::str(str_of(&value)?), &format!("{align}{rest}"))?,
            'r' => format_value(&PyValue::str(repr(&value)?), &format!("{align}{rest}"))?,
            'd' | 'i' | 'u' => {
                let n = match &value {
                    PyValue::Float(f) if f.is_finite() => {
                        #[expect(
                            clippy::cast_possible_truncation,
                            reason = "%d truncates toward zero, as Python does"
                        )]
                        let n = f.trunc() as i128;
                        ops::int_value(n)
                    }
                    other => other.clone(),
                };
                format_value(&n, &format!("{align}{sign}{alternate}{zero}{rest}d"))?
            }
            'x' | 'X' | 'o' => format_value(
                &value,
                &format!("{align}{sign}{alternate}{zero}{rest}{kind}"),
            )?,
            'f' | 'F' | 'e' | 'E' => {
                format_value(&value, &format!("{align}{sign}{zero}{rest}{kind}"))?
            }
            _ => return Err(format!("the % format `%{kind}`")),
        };
        out.push_str(&text);
    }
    if mapping.is_none() && next.next().is_some() {
        return Err("not all arguments converted during string formatting (TypeError)".to_owned());
    }
    Ok(PyValue::str(out))
}

#[cfg(test)]
mod tests {
    use super::str_format;
    use crate::eval::ops::int_value;
    use crate::value::{ContainerKind, PyValue};

    /// A template, its positional and keyword arguments, and what Python
    /// gives.
    type Case<'a> = (&'a str, Vec<PyValue>, &'a [(String, PyValue)], &'a str);

    /// What Python's `str.format` gives, field by field and for the
    /// templates it refuses.
    #[test]
    fn str_format_writes_what_python_writes() {
        let s = PyValue::str;
        let list = PyValue::Container {
            kind: ContainerKind::List,
            elements: vec![int_value(10), int_value(20)].into(),
        };
        let name = [("name".to_owned(), s("ab"))];
        let cases: [Case<'_>; 8] = [
            ("{} {!r}", vec![s("a"), s("b")], &[], "a 'b'"),
            ("{{x}} {0}-{0}}}", vec![int_value(1)], &[], "{x} 1-1}"),
            ("{name:>5}|{name!s}", vec![], &name, "   ab|ab"),
            ("{0[1]}", vec![list], &[], "20"),
            ("[{!r:>6}]", vec![s("a")], &[], "[   'a']"),
            ("{:03d}", vec![int_value(7)], &[], "007"),
            ("no fields", vec![], &[], "no fields"),
            ("é{}ü", vec![s("ß")], &[], "éßü"),
        ];
        for (template, positional, keywords, expected) in cases {
            assert_eq!(
                str_format(template, &positional, keywords).as_deref(),
                Ok(expected),
                "{template}"
            );
        }
        for template in [
            "}",
            "{",
            "{a{b}",
            "{x.y}",
            "{!x}",
            "{} {}",
            "{0[1}",
            "{missing}",
        ] {
            assert!(
                str_format(template, &[s("v")], &[]).is_err(),
                "{template} is refused"
            );
        }
    }
}
