//! The builtins, methods of builtin types and standard-library functions
//! the evaluator knows. Each follows `CPython` 3.11–3.13; anything else is
//! unknown with the name of what was called.

use std::cmp::Ordering;

use super::expr::Args;
use super::ops::{self, int, int_value, iterate, order, truth};
use super::{text, Evaluator, MAX_ELEMENTS};
use crate::value::{ContainerKind, PyValue};

fn list(elements: Vec<PyValue>) -> PyValue {
    PyValue::Container {
        kind: ContainerKind::List,
        elements: elements.into(),
    }
}

/// An iterator, range or view.
fn lazy(elements: Vec<PyValue>) -> PyValue {
    PyValue::Container {
        kind: ContainerKind::Lazy,
        elements: elements.into(),
    }
}

/// `itertools.chain` of `iterables`: their elements end to end, each
/// copied once (packaging's 17,000 version pairs are one chain).
fn chained(iterables: &[PyValue]) -> Result<PyValue, String> {
    let known: usize = iterables
        .iter()
        .map(|iterable| match iterable {
            PyValue::Container { elements, .. } => elements.len(),
            _ => 0,
        })
        .sum();
    let mut elements = Vec::with_capacity(known);
    for iterable in iterables {
        elements.extend(iterate(iterable)?);
    }
    Ok(lazy(elements))
}

/// A list made lazy (the result of `islice`).
fn relabel(value: PyValue) -> PyValue {
    match value {
        PyValue::Container { elements, .. } => lazy(elements.into_vec()),
        other => other,
    }
}

fn tuple(elements: Vec<PyValue>) -> PyValue {
    PyValue::Container {
        kind: ContainerKind::Tuple,
        elements: elements.into(),
    }
}

fn unknown(what: &str) -> PyValue {
    PyValue::Unknown(format!("the result of `{what}(...)` with these arguments"))
}

fn keyword<'v>(args: &'v Args, name: &str) -> Option<&'v PyValue> {
    args.keywords
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// Fails with the first unknown argument's reason, so that the reason a
/// user sees is the root one.
fn first_unknown(args: &Args) -> Option<PyValue> {
    args.positional
        .iter()
        .chain(args.keywords.iter().map(|(_, v)| v))
        .find(|v| matches!(v, PyValue::Unknown(_)))
        .cloned()
}

/// The items of a value whose order does not matter to the caller
/// (`sorted()`, `min()`, `set()`, `sum()` of ints): a set's items too.
fn items_unordered(value: &PyValue) -> Result<Vec<PyValue>, String> {
    match value {
        PyValue::Container {
            kind: ContainerKind::Set,
            elements,
        } => Ok(elements.to_vec()),
        other => iterate(other),
    }
}

fn result(value: Result<PyValue, String>) -> PyValue {
    value.unwrap_or_else(PyValue::Unknown)
}

fn range(args: &[PyValue]) -> Result<PyValue, String> {
    let ints: Vec<i128> = args
        .iter()
        .map(int)
        .collect::<Option<_>>()
        .ok_or("range() of values that are not integers")?;
    let (first, end, stride) = match ints.as_slice() {
        [end] => (0, *end, 1),
        [first, end] => (*first, *end, 1),
        [first, end, stride] if *stride != 0 => (*first, *end, *stride),
        _ => return Err("range() with these arguments".to_owned()),
    };
    let len = if stride > 0 {
        (end - first + stride - 1) / stride
    } else {
        (first - end - stride - 1) / -stride
    };
    if len > i128::try_from(MAX_ELEMENTS).unwrap_or(i128::MAX) {
        return Err("a range too large to expand statically".to_owned());
    }
    let mut out = Vec::with_capacity(usize::try_from(len.max(0)).unwrap_or(0));
    let mut n = first;
    while (stride > 0 && n < end) || (stride < 0 && n > end) {
        out.push(int_value(n));
        n += stride;
    }
    Ok(lazy(out))
}

/// Sorts by `key` (a callable or `None`), stably, as `sorted()`.
fn sort(
    ev: &Evaluator<'_, '_>,
    items: &[PyValue],
    key: Option<&PyValue>,
    reverse: bool,
) -> Result<Vec<PyValue>, String> {
    let keys: Vec<PyValue> = match key {
        None | Some(PyValue::None) => items.to_vec(),
        Some(key) => items
            .iter()
            .map(|item| ev.call1(key, item.clone()))
            .collect(),
    };
    if let Some(PyValue::Unknown(reason)) = keys.iter().find(|k| matches!(k, PyValue::Unknown(_))) {
        return Err(reason.clone());
    }
    let mut indexed: Vec<usize> = (0..items.len()).collect();
    let mut failure = None;
    indexed.sort_by(|&a, &b| match order(&keys[a], &keys[b]) {
        Ok(o) if reverse => o.reverse(),
        Ok(o) => o,
        Err(reason) => {
            failure.get_or_insert(reason);
            Ordering::Equal
        }
    });
    if let Some(reason) = failure {
        return Err(reason);
    }
    // Python's reverse sort keeps equal items in their original order.
    Ok(indexed.into_iter().map(|i| items[i].clone()).collect())
}

fn extreme(ev: &Evaluator<'_, '_>, name: &str, args: &Args) -> Result<PyValue, String> {
    let items = match args.positional.as_slice() {
        [single] => items_unordered(single)?,
        many => many.to_vec(),
    };
    if items.is_empty() {
        return keyword(args, "default")
            .cloned()
            .ok_or_else(|| format!("{name}() of an empty sequence"));
    }
    let sorted = sort(ev, &items, keyword(args, "key"), false)?;
    let value = if name == "min" {
        sorted.first()
    } else {
        // max() returns the first of equal maxima.
        let last = sorted.last().cloned();
        let first_max = sorted
            .iter()
            .find(|v| {
                last.as_ref()
                    .is_some_and(|l| ops::equal(v, l) == Some(true))
            })
            .cloned();
        return first_max.ok_or_else(|| "max() of an empty sequence".to_owned());
    };
    value
        .cloned()
        .ok_or_else(|| format!("{name}() of an empty sequence"))
}

fn to_int(value: &PyValue, base: Option<&PyValue>) -> Result<PyValue, String> {
    match (value, base) {
        (PyValue::Int(_) | PyValue::Bool(_), None) => {
            Ok(int_value(int(value).ok_or("int() of a large integer")?))
        }
        (PyValue::Float(f), None) if f.is_finite() && f.abs() < 1e36 => {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "int() truncates toward zero; the range is checked"
            )]
            let n = f.trunc() as i128;
            Ok(int_value(n))
        }
        (PyValue::Str(s), base) => {
            let base = match base {
                None => 10,
                Some(b) => u32::try_from(int(b).ok_or("int() with a base that is not an integer")?)
                    .map_err(|_| "int() base")?,
            };
            let text = s.trim().replace('_', "");
            let (negative, digits) = match text.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, text.strip_prefix('+').unwrap_or(&text)),
            };
            let n = i128::from_str_radix(digits, base)
                .map_err(|_| format!("int() of {s:?} (ValueError)"))?;
            Ok(int_value(if negative { -n } else { n }))
        }
        (PyValue::Unknown(reason), _) => Err(reason.clone()),
        _ => Err("int() of this value".to_owned()),
    }
}

fn to_float(value: &PyValue) -> Result<PyValue, String> {
    match value {
        PyValue::Float(f) => Ok(PyValue::Float(*f)),
        PyValue::Int(_) | PyValue::Bool(_) => value
            .scalar_str()
            .and_then(|s| s.parse().ok())
            .map(PyValue::Float)
            .ok_or_else(|| "float() of a large integer".to_owned()),
        PyValue::Str(s) => {
            let text = s.trim().to_ascii_lowercase().replace('_', "");
            let parsed = match text.trim_start_matches(['+', '-']) {
                "inf" | "infinity" => Some(f64::INFINITY),
                "nan" => Some(f64::NAN),
                _ => text.trim_start_matches(['+', '-']).parse::<f64>().ok(),
            };
            let f = parsed.ok_or_else(|| format!("float() of {s:?} (ValueError)"))?;
            Ok(PyValue::Float(if text.starts_with('-') { -f } else { f }))
        }
        PyValue::Unknown(reason) => Err(reason.clone()),
        _ => Err("float() of this value".to_owned()),
    }
}

fn length(value: &PyValue) -> Result<PyValue, String> {
    let n = match value {
        PyValue::Str(s) => s.chars().count(),
        PyValue::Bytes(b) => b.len(),
        PyValue::Container { elements, .. } => elements.len(),
        PyValue::Unknown(reason) => return Err(reason.clone()),
        _ => return Err("len() of this value".to_owned()),
    };
    Ok(int_value(i128::try_from(n).unwrap_or(i128::MAX)))
}

fn to_dict(args: &Args) -> Result<PyValue, String> {
    let mut pairs = match args.positional.as_slice() {
        [] => Vec::new(),
        [PyValue::Container {
            kind: ContainerKind::Dict,
            elements,
        }] => elements.to_vec(),
        [other] => iterate(other)?,
        _ => return Err("dict() with several positional arguments".to_owned()),
    };
    pairs.extend(
        args.keywords
            .iter()
            .map(|(k, v)| tuple(vec![PyValue::str(k.clone()), v.clone()])),
    );
    Ok(ops::make_dict(pairs))
}

/// A call of a builtin function or class.
pub(super) fn call_builtin(ev: &Evaluator<'_, '_>, name: &str, args: &Args) -> PyValue {
    if let Some(unknown) = first_unknown(args) {
        return unknown;
    }
    let p = &args.positional;
    match (name, p.as_slice()) {
        ("__import__", _) => ev.dunder_import(args),
        ("getattr", _) => ev.getattr(args),
        ("range", _) if args.keywords.is_empty() => result(range(p)),
        ("list", []) => list(Vec::new()),
        ("tuple", []) => tuple(Vec::new()),
        ("list", [it]) => result(iterate(it).map(list)),
        ("tuple", [it]) => result(iterate(it).map(tuple)),
        ("set" | "frozenset", []) => ops::make_set(Vec::new()),
        (
            "set" | "frozenset",
            [PyValue::Container {
                kind: ContainerKind::Set | ContainerKind::Keys,
                elements,
            }],
        ) => ops::make_set(elements.to_vec()),
        ("set" | "frozenset", [it]) => result(items_unordered(it).map(ops::make_set)),
        ("dict", _) => result(to_dict(args)),
        ("enumerate", [it, rest @ ..]) => {
            let start = rest
                .first()
                .or_else(|| keyword(args, "start"))
                .map_or(Some(0), int);
            match (iterate(it), start) {
                (Ok(items), Some(start)) => lazy(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| {
                            tuple(vec![int_value(start + i128::try_from(i).unwrap_or(0)), v])
                        })
                        .collect(),
                ),
                (Err(reason), _) => PyValue::Unknown(reason),
                _ => unknown(name),
            }
        }
        ("zip", _) => {
            let iterables: Result<Vec<Vec<PyValue>>, String> = p.iter().map(iterate).collect();
            match iterables {
                Ok(iterables) => {
                    let n = iterables.iter().map(Vec::len).min().unwrap_or(0);
                    if keyword(args, "strict").is_some_and(|s| truth(s) == Ok(true))
                        && iterables.iter().any(|i| i.len() != n)
                    {
                        return PyValue::Unknown(
                            "zip(strict=True) of unequal lengths (ValueError)".to_owned(),
                        );
                    }
                    lazy(
                        (0..n)
                            .map(|i| tuple(iterables.iter().map(|it| it[i].clone()).collect()))
                            .collect(),
                    )
                }
                Err(reason) => PyValue::Unknown(reason),
            }
        }
        ("sorted", [it]) => {
            let reverse = keyword(args, "reverse").map_or(Ok(false), truth);
            match (items_unordered(it), reverse) {
                (Ok(items), Ok(reverse)) => {
                    result(sort(ev, &items, keyword(args, "key"), reverse).map(list))
                }
                (Err(reason), _) | (_, Err(reason)) => PyValue::Unknown(reason),
            }
        }
        (
            "reversed",
            [it @ (PyValue::Container {
                kind: ContainerKind::List | ContainerKind::Tuple,
                ..
            }
            | PyValue::Str(_))],
        ) => result(iterate(it).map(|mut items| {
            items.reverse();
            lazy(items)
        })),
        ("len", [value]) => result(length(value)),
        ("min" | "max", _) if !p.is_empty() => result(extreme(ev, name, args)),
        ("sum", [it, rest @ ..]) => {
            let start = rest
                .first()
                .or_else(|| keyword(args, "start"))
                .cloned()
                .unwrap_or_else(|| int_value(0));
            match iterate(it) {
                Ok(items) => items.iter().fold(start, |acc, v| {
                    ops::binary(ruff_python_ast::Operator::Add, &acc, v)
                }),
                Err(reason) => PyValue::Unknown(reason),
            }
        }
        ("any" | "all", [it]) => match items_unordered(it) {
            Ok(items) => {
                let truths: Result<Vec<bool>, String> = items.iter().map(truth).collect();
                match truths {
                    Ok(t) => PyValue::Bool(if name == "any" {
                        t.into_iter().any(|b| b)
                    } else {
                        t.into_iter().all(|b| b)
                    }),
                    Err(reason) => PyValue::Unknown(reason),
                }
            }
            Err(reason) => PyValue::Unknown(reason),
        },
        ("str", []) => PyValue::Str(crate::value::Text::default()),
        ("str", [value]) => result(text::str_of(value).map(PyValue::str)),
        ("str", [PyValue::Bytes(b), encoding, ..]) => call_method(
            &PyValue::Bytes(b.clone()),
            "decode",
            &Args {
                positional: vec![encoding.clone()],
                keywords: Vec::new(),
            },
        ),
        ("repr", [value]) => result(text::repr(value).map(PyValue::str)),
        ("format", [value]) => result(text::format_value(value, "").map(PyValue::str)),
        ("format", [value, PyValue::Str(spec)]) => {
            result(text::format_value(value, spec).map(PyValue::str))
        }
        ("int", []) => int_value(0),
        ("int", [value]) => result(to_int(value, keyword(args, "base"))),
        ("int", [value, base]) => result(to_int(value, Some(base))),
        ("float", []) => PyValue::Float(0.0),
        ("float", [value]) => result(to_float(value)),
        ("bool", []) => PyValue::Bool(false),
        ("bool", [value]) => result(truth(value).map(PyValue::Bool)),
        ("abs", [value]) => match value {
            PyValue::Float(f) => PyValue::Float(f.abs()),
            v => int(v).map_or_else(|| unknown(name), |n| int_value(n.abs())),
        },
        ("round", [PyValue::Float(f)]) if f.is_finite() && f.abs() < 1e30 => {
            #[expect(clippy::cast_possible_truncation, reason = "rounded and in range")]
            let n = f.round_ties_even() as i128;
            int_value(n)
        }
        ("round", [v]) if int(v).is_some() => int(v).map_or_else(|| unknown(name), int_value),
        ("chr", [v]) => int(v)
            .and_then(|n| u32::try_from(n).ok())
            .and_then(char::from_u32)
            .map_or_else(|| unknown(name), |c| PyValue::str(c.to_string())),
        ("ord", [PyValue::Str(s)]) if s.chars().count() == 1 => {
            int_value(i128::from(s.chars().next().map_or(0, |c| c as u32)))
        }
        ("hex" | "oct" | "bin", [v]) if int(v).is_some() => {
            let n = int(v).unwrap_or(0);
            let spec = match name {
                "hex" => "#x",
                "oct" => "#o",
                _ => "#b",
            };
            result(text::format_value(&int_value(n), spec).map(PyValue::str))
        }
        ("map", [f, iterables @ ..]) if !iterables.is_empty() => {
            let lists: Result<Vec<Vec<PyValue>>, String> = iterables.iter().map(iterate).collect();
            match lists {
                Ok(lists) => {
                    let n = lists.iter().map(Vec::len).min().unwrap_or(0);
                    let out: Vec<PyValue> = (0..n)
                        .map(|i| {
                            ev.call_value(
                                f,
                                lists.iter().map(|l| l[i].clone()).collect(),
                                Vec::new(),
                            )
                        })
                        .collect();
                    out.iter()
                        .find(|v| matches!(v, PyValue::Unknown(_)))
                        .cloned()
                        .unwrap_or_else(|| lazy(out))
                }
                Err(reason) => PyValue::Unknown(reason),
            }
        }
        ("filter", [f, it]) => match iterate(it) {
            Ok(items) => {
                let mut out = Vec::new();
                for item in items {
                    let keep = if matches!(f, PyValue::None) {
                        truth(&item)
                    } else {
                        truth(&ev.call1(f, item.clone()))
                    };
                    match keep {
                        Ok(true) => out.push(item),
                        Ok(false) => {}
                        Err(reason) => return PyValue::Unknown(reason),
                    }
                }
                lazy(out)
            }
            Err(reason) => PyValue::Unknown(reason),
        },
        ("object", []) => PyValue::Object,
        (n, _) if n.ends_with("Error") || n.ends_with("Exception") || n.ends_with("Warning") => {
            PyValue::Object
        }
        _ => unknown(name),
    }
}

/// Whether `name` is a method of `value`'s type that [`call_method`]
/// knows.
pub(super) fn is_method(value: &PyValue, name: &str) -> bool {
    const STR: &[&str] = &[
        "join",
        "split",
        "rsplit",
        "strip",
        "lstrip",
        "rstrip",
        "upper",
        "lower",
        "replace",
        "startswith",
        "endswith",
        "format",
        "zfill",
        "ljust",
        "rjust",
        "center",
        "count",
        "find",
        "rfind",
        "index",
        "splitlines",
        "encode",
        "removeprefix",
        "removesuffix",
        "isdigit",
        "isalpha",
        "isalnum",
        "isupper",
        "islower",
        "isspace",
        "partition",
        "rpartition",
        "capitalize",
    ];
    match value {
        PyValue::Str(_) => STR.contains(&name),
        PyValue::Bytes(_) => matches!(name, "decode" | "startswith" | "endswith" | "count"),
        PyValue::Container {
            kind: ContainerKind::List | ContainerKind::Tuple,
            ..
        } => matches!(name, "index" | "count" | "copy"),
        PyValue::Container {
            kind: ContainerKind::Dict,
            ..
        } => matches!(name, "keys" | "values" | "items" | "get" | "copy"),
        PyValue::Container {
            kind: ContainerKind::Set | ContainerKind::Keys,
            ..
        } => {
            matches!(
                name,
                "union"
                    | "intersection"
                    | "difference"
                    | "symmetric_difference"
                    | "copy"
                    | "issubset"
                    | "issuperset"
                    | "isdisjoint"
            )
        }
        _ => false,
    }
}

fn strip_chars(args: &Args) -> Result<Option<Vec<char>>, String> {
    match args.positional.first() {
        None | Some(PyValue::None) => Ok(None),
        Some(PyValue::Str(chars)) => Ok(Some(chars.chars().collect())),
        Some(_) => Err("strip() of characters that are not a string".to_owned()),
    }
}

fn str_arg(args: &Args, i: usize) -> Option<&str> {
    match args.positional.get(i) {
        Some(PyValue::Str(s)) => Some(s),
        _ => None,
    }
}

fn split(s: &str, sep: Option<&str>, maxsplit: i128, from_right: bool) -> Vec<PyValue> {
    let limit = usize::try_from(maxsplit).ok();
    let pieces: Vec<String> = match (sep, from_right) {
        (Some(sep), false) => match limit {
            Some(n) => s.splitn(n + 1, sep).map(str::to_owned).collect(),
            None => s.split(sep).map(str::to_owned).collect(),
        },
        (Some(sep), true) => {
            let mut pieces: Vec<String> = match limit {
                Some(n) => s.rsplitn(n + 1, sep).map(str::to_owned).collect(),
                None => s.rsplit(sep).map(str::to_owned).collect(),
            };
            pieces.reverse();
            pieces
        }
        (None, _) => {
            // Runs of whitespace, leading and trailing ignored.
            let words: Vec<&str> = s.split_whitespace().collect();
            match limit {
                Some(n) if n < words.len() && !from_right => {
                    let mut out: Vec<String> = words[..n].iter().map(|w| (*w).to_owned()).collect();
                    let mut rest = s.trim_start();
                    for _ in 0..n {
                        rest = rest.trim_start();
                        rest = rest.split_once(char::is_whitespace).map_or("", |(_, r)| r);
                    }
                    out.push(rest.trim_start().to_owned());
                    out
                }
                _ => words.into_iter().map(str::to_owned).collect(),
            }
        }
    };
    pieces.into_iter().map(PyValue::str).collect()
}

fn justify(s: &str, args: &Args, how: char) -> Result<PyValue, String> {
    let width = args
        .positional
        .first()
        .and_then(int)
        .ok_or("a width that is not an integer")?;
    let fill = match args.positional.get(1) {
        None => ' ',
        Some(PyValue::Str(f)) if f.chars().count() == 1 => f.chars().next().unwrap_or(' '),
        Some(_) => return Err("a fill that is not one character".to_owned()),
    };
    let len = i128::try_from(s.chars().count()).unwrap_or(i128::MAX);
    let missing = usize::try_from((width - len).max(0))
        .unwrap_or(0)
        .min(super::MAX_TEXT);
    let fill_n = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    Ok(PyValue::Str(match how {
        '<' => format!("{s}{}", fill_n(missing)).into(),
        '>' => format!("{}{s}", fill_n(missing)).into(),
        // str.center puts the extra fill character on the left when the
        // string's length is odd.
        _ => {
            let left = missing / 2 + (missing & usize::from(s.chars().count() % 2 == 1));
            format!("{}{s}{}", fill_n(left), fill_n(missing - left)).into()
        }
    }))
}

/// A call of a method of a builtin value.
pub(super) fn call_method(receiver: &PyValue, name: &str, args: &Args) -> PyValue {
    if let Some(unknown) = first_unknown(args) {
        return unknown;
    }
    let outcome: Result<PyValue, String> = match (receiver, name) {
        (PyValue::Str(s), _) => str_method(s, name, args),
        (PyValue::Bytes(b), "decode") => {
            let encoding = str_arg(args, 0).map_or_else(
                || {
                    keyword(args, "encoding").and_then(|v| {
                        if let PyValue::Str(e) = v {
                            Some(e.to_ascii_lowercase())
                        } else {
                            None
                        }
                    })
                },
                |e| Some(e.to_ascii_lowercase().into()),
            );
            match encoding
                .as_deref()
                .unwrap_or("utf-8")
                .replace('_', "-")
                .as_str()
            {
                "utf-8" | "utf8" => String::from_utf8(b.clone())
                    .map(PyValue::str)
                    .map_err(|_| "bytes that are not UTF-8 (UnicodeDecodeError)".to_owned()),
                "ascii" if b.is_ascii() => {
                    Ok(PyValue::Str(b.iter().map(|&c| char::from(c)).collect()))
                }
                "latin-1" | "latin1" | "iso-8859-1" => {
                    Ok(PyValue::Str(b.iter().map(|&c| char::from(c)).collect()))
                }
                other => Err(format!("decoding bytes as {other}")),
            }
        }
        (PyValue::Bytes(b), "startswith" | "endswith") => match args.positional.first() {
            Some(PyValue::Bytes(x)) => Ok(PyValue::Bool(if name == "startswith" {
                b.starts_with(x)
            } else {
                b.ends_with(x)
            })),
            _ => Err(format!("bytes.{name} of this value")),
        },
        (PyValue::Container { elements, .. }, "index" | "count") => match args.positional.first() {
            Some(x) => {
                let hits: Vec<usize> = elements
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| ops::equal(e, x) == Some(true))
                    .map(|(i, _)| i)
                    .collect();
                if name == "count" {
                    Ok(int_value(i128::try_from(hits.len()).unwrap_or(0)))
                } else {
                    hits.first()
                        .map(|&i| int_value(i128::try_from(i).unwrap_or(0)))
                        .ok_or_else(|| "a value not in the list (ValueError)".to_owned())
                }
            }
            None => Err(format!("{name}() without an argument")),
        },
        (PyValue::Container { .. }, "copy") => Ok(receiver.clone()),
        (
            PyValue::Container {
                kind: ContainerKind::Dict,
                elements,
            },
            "keys",
        ) => Ok(PyValue::Container {
            kind: ContainerKind::Keys,
            elements: elements
                .iter()
                .filter_map(|e| ops::pair(e.clone()).map(|(k, _)| k))
                .collect(),
        }),
        (
            PyValue::Container {
                kind: ContainerKind::Dict,
                elements,
            },
            "values",
        ) => Ok(lazy(
            elements
                .iter()
                .filter_map(|e| ops::pair(e.clone()).map(|(_, v)| v))
                .collect(),
        )),
        (
            PyValue::Container {
                kind: ContainerKind::Dict,
                elements,
            },
            "items",
        ) => Ok(lazy(elements.to_vec())),
        (
            PyValue::Container {
                kind: ContainerKind::Dict,
                ..
            },
            "get",
        ) => match args.positional.as_slice() {
            [key, rest @ ..] => match ops::subscript(receiver, key) {
                PyValue::Unknown(reason) if reason.contains("KeyError") => {
                    Ok(rest.first().cloned().unwrap_or(PyValue::None))
                }
                value => Ok(value),
            },
            [] => Err("dict.get() without a key".to_owned()),
        },
        (
            PyValue::Container {
                kind: ContainerKind::Set | ContainerKind::Keys,
                elements,
            },
            _,
        ) => {
            let others: Result<Vec<Vec<PyValue>>, String> =
                args.positional.iter().map(iterate).collect();
            others.and_then(|others| {
                let op = match name {
                    "union" => ruff_python_ast::Operator::BitOr,
                    "intersection" => ruff_python_ast::Operator::BitAnd,
                    "difference" => ruff_python_ast::Operator::Sub,
                    "symmetric_difference" => ruff_python_ast::Operator::BitXor,
                    _ => return Err(format!("set.{name}")),
                };
                let mut acc = ops::make_set(elements.to_vec());
                for other in others {
                    acc = ops::binary(op, &acc, &ops::make_set(other));
                }
                Ok(acc)
            })
        }
        _ => Err(format!("the method `{name}`")),
    };
    result(outcome)
}

fn str_method(s: &str, name: &str, args: &Args) -> Result<PyValue, String> {
    let p = &args.positional;
    let bool_of = |f: &dyn Fn(char) -> bool| -> Result<PyValue, String> {
        if !s.is_ascii() {
            return Err(format!("str.{name} of a non-ASCII string"));
        }
        Ok(PyValue::Bool(!s.is_empty() && s.chars().all(f)))
    };
    Ok(match name {
        "join" => {
            let items = iterate(p.first().ok_or("join() without an argument")?)?;
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    PyValue::Str(part) => parts.push(part),
                    _ => return Err("join() of values that are not strings (TypeError)".to_owned()),
                }
            }
            let joined = parts.join(s);
            if joined.len() > super::MAX_TEXT {
                return Err("a string too large to build statically".to_owned());
            }
            PyValue::str(joined)
        }
        "split" | "rsplit" => {
            let sep = match p.first().or_else(|| keyword(args, "sep")) {
                None | Some(PyValue::None) => None,
                Some(PyValue::Str(sep)) if !sep.is_empty() => Some(sep.as_str()),
                Some(_) => return Err("split() with this separator".to_owned()),
            };
            let maxsplit = p
                .get(1)
                .or_else(|| keyword(args, "maxsplit"))
                .map_or(Some(-1), int)
                .ok_or("split() maxsplit")?;
            list(split(s, sep, maxsplit, name == "rsplit"))
        }
        "strip" | "lstrip" | "rstrip" => {
            let chars = strip_chars(args)?;
            let is_stripped = |c: char| {
                chars
                    .as_ref()
                    .map_or(c.is_whitespace(), |set| set.contains(&c))
            };
            PyValue::Str(
                match name {
                    "strip" => s.trim_matches(is_stripped),
                    "lstrip" => s.trim_start_matches(is_stripped),
                    _ => s.trim_end_matches(is_stripped),
                }
                .into(),
            )
        }
        "upper" => PyValue::str(s.to_uppercase()),
        "lower" => PyValue::str(s.to_lowercase()),
        "capitalize" if s.is_ascii() => {
            let mut chars = s.chars();
            PyValue::str(chars.next().map_or_else(String::new, |first| {
                format!(
                    "{}{}",
                    first.to_ascii_uppercase(),
                    chars.as_str().to_ascii_lowercase()
                )
            }))
        }
        "replace" => match (str_arg(args, 0), str_arg(args, 1), p.get(2).map(int)) {
            (Some(old), Some(new), None) => PyValue::str(s.replace(old, new)),
            (Some(old), Some(new), Some(Some(n))) if n >= 0 => {
                PyValue::str(s.replacen(old, new, usize::try_from(n).unwrap_or(usize::MAX)))
            }
            _ => return Err("replace() with these arguments".to_owned()),
        },
        "startswith" | "endswith" => {
            let check = |prefix: &str| {
                if name == "startswith" {
                    s.starts_with(prefix)
                } else {
                    s.ends_with(prefix)
                }
            };
            match p.first() {
                Some(PyValue::Str(x)) if p.len() == 1 => PyValue::Bool(check(x)),
                Some(PyValue::Container {
                    kind: ContainerKind::Tuple,
                    elements,
                }) if p.len() == 1 => {
                    let mut any = false;
                    for element in elements {
                        match element {
                            PyValue::Str(x) => any |= check(x),
                            _ => return Err(format!("{name}() of values that are not strings")),
                        }
                    }
                    PyValue::Bool(any)
                }
                _ => return Err(format!("{name}() with these arguments")),
            }
        }
        "format" => PyValue::str(text::str_format(s, p, &args.keywords)?),
        "zfill" => {
            let width = usize::try_from(p.first().and_then(int).ok_or("zfill() width")?.max(0))
                .unwrap_or(0)
                .min(super::MAX_TEXT);
            let len = s.chars().count();
            if len >= width {
                PyValue::str(s)
            } else {
                let (sign, rest) = if s.starts_with(['-', '+']) {
                    s.split_at(1)
                } else {
                    ("", s)
                };
                PyValue::str(format!("{sign}{}{rest}", "0".repeat(width - len)))
            }
        }
        "ljust" => justify(s, args, '<')?,
        "rjust" => justify(s, args, '>')?,
        "center" => justify(s, args, '^')?,
        "count" => match str_arg(args, 0) {
            Some(x) if !x.is_empty() && p.len() == 1 => {
                int_value(i128::try_from(s.matches(x).count()).unwrap_or(0))
            }
            _ => return Err("count() with these arguments".to_owned()),
        },
        "find" | "rfind" | "index" => match str_arg(args, 0) {
            Some(x) if p.len() == 1 => {
                let at = if name == "rfind" {
                    s.rfind(x)
                } else {
                    s.find(x)
                };
                match at {
                    Some(byte) => int_value(i128::try_from(s[..byte].chars().count()).unwrap_or(0)),
                    None if name == "index" => {
                        return Err("a substring not found (ValueError)".to_owned())
                    }
                    None => int_value(-1),
                }
            }
            _ => return Err(format!("{name}() with these arguments")),
        },
        "splitlines" if p.is_empty() && args.keywords.is_empty() && s.is_ascii() => list(
            s.lines()
                .map(|line| PyValue::str(line.strip_suffix('\r').unwrap_or(line)))
                .collect(),
        ),
        "encode" => match str_arg(args, 0)
            .map(str::to_ascii_lowercase)
            .as_deref()
            .unwrap_or("utf-8")
        {
            "utf-8" | "utf8" => PyValue::Bytes(s.as_bytes().to_vec()),
            "ascii" if s.is_ascii() => PyValue::Bytes(s.as_bytes().to_vec()),
            other => return Err(format!("encoding a string as {other}")),
        },
        "removeprefix" => PyValue::Str(
            str_arg(args, 0)
                .map_or(s, |x| s.strip_prefix(x).unwrap_or(s))
                .into(),
        ),
        "removesuffix" => PyValue::Str(
            str_arg(args, 0)
                .map_or(s, |x| s.strip_suffix(x).unwrap_or(s))
                .into(),
        ),
        "partition" | "rpartition" => match str_arg(args, 0) {
            Some(sep) if !sep.is_empty() => {
                let found = if name == "partition" {
                    s.split_once(sep)
                } else {
                    s.rsplit_once(sep)
                };
                let parts = match found {
                    Some((a, b)) => [a, sep, b],
                    None if name == "partition" => [s, "", ""],
                    None => ["", "", s],
                };
                tuple(parts.iter().map(|p| PyValue::str(*p)).collect())
            }
            _ => return Err(format!("{name}() with these arguments")),
        },
        "isdigit" => bool_of(&|c| c.is_ascii_digit())?,
        "isalpha" => bool_of(&|c| c.is_ascii_alphabetic())?,
        "isalnum" => bool_of(&|c| c.is_ascii_alphanumeric())?,
        "isspace" => bool_of(&|c| c.is_ascii_whitespace() || c == '\u{b}')?,
        "isupper" | "islower" => {
            if !s.is_ascii() {
                return Err(format!("str.{name} of a non-ASCII string"));
            }
            let cased = s.chars().any(|c| c.is_ascii_alphabetic());
            let all = if name == "isupper" {
                !s.chars().any(|c| c.is_ascii_lowercase())
            } else {
                !s.chars().any(|c| c.is_ascii_uppercase())
            };
            PyValue::Bool(cased && all)
        }
        _ => return Err(format!("str.{name} with these arguments")),
    })
}

/// Standard-library module attributes whose value is a function or class
/// (so its id is the attribute's name).
const NAMED_MODULES: &[&str] = &[
    "operator",
    "math",
    "itertools",
    "functools",
    "textwrap",
    "json",
    "copy",
    "os.path",
    "posixpath",
    "datetime",
    "decimal",
    "fractions",
    "pathlib",
    "collections",
    "string",
    "re",
    "uuid",
    "random",
    "statistics",
    "pickle",
    "base64",
    "binascii",
    "hashlib",
    "zlib",
    "struct",
    "shlex",
    "fnmatch",
    "glob",
    "html",
    "keyword",
    "unicodedata",
];

/// The value of a dotted name outside the suite that proctor knows.
pub(super) fn external_value(path: &str) -> PyValue {
    let constant = match path {
        "math.pi" => Some(PyValue::Float(std::f64::consts::PI)),
        "math.e" => Some(PyValue::Float(std::f64::consts::E)),
        "math.tau" => Some(PyValue::Float(std::f64::consts::TAU)),
        "math.inf" => Some(PyValue::Float(f64::INFINITY)),
        "math.nan" => Some(PyValue::Float(f64::NAN)),
        "sys.maxsize" => Some(int_value(i128::from(i64::MAX))),
        "string.ascii_letters" => Some(PyValue::Str(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".into(),
        )),
        "string.ascii_lowercase" => Some(PyValue::str("abcdefghijklmnopqrstuvwxyz")),
        "string.ascii_uppercase" => Some(PyValue::str("ABCDEFGHIJKLMNOPQRSTUVWXYZ")),
        "string.digits" => Some(PyValue::str("0123456789")),
        "string.hexdigits" => Some(PyValue::str("0123456789abcdefABCDEF")),
        "string.octdigits" => Some(PyValue::str("01234567")),
        "string.punctuation" => Some(PyValue::Str("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".into())),
        "string.whitespace" => Some(PyValue::str(" \t\n\r\u{b}\u{c}")),
        "logging.CRITICAL" | "logging.FATAL" => Some(int_value(50)),
        "logging.ERROR" => Some(int_value(40)),
        "logging.WARNING" | "logging.WARN" => Some(int_value(30)),
        "logging.INFO" => Some(int_value(20)),
        "logging.DEBUG" => Some(int_value(10)),
        "logging.NOTSET" => Some(int_value(0)),
        "pickle.HIGHEST_PROTOCOL" => Some(int_value(5)),
        "os.sep" | "posixpath.sep" => Some(PyValue::str("/")),
        "os.pathsep" => Some(PyValue::str(":")),
        "os.linesep" => Some(PyValue::str("\n")),
        "pytest.HIDDEN_PARAM" => Some(PyValue::Named("HIDDEN_PARAM".into())),
        _ => None,
    };
    if let Some(value) = constant {
        return value;
    }
    if let Some((module, attr)) = path.rsplit_once('.') {
        let is_name = attr.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && attr.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            // Upper-case names in these modules are constants or flags.
            && attr.chars().any(|c| c.is_ascii_lowercase());
        if is_name && NAMED_MODULES.contains(&module) {
            return PyValue::Named(attr.into());
        }
    }
    PyValue::Unknown(format!("`{path}` is defined outside the suite"))
}

/// Classes of the standard library whose instances pytest names by the
/// argument name and index (they are not `str`, numbers, enums or
/// patterns, and have no `__name__`).
const OBJECT_CLASSES: &[&str] = &[
    "datetime.date",
    "datetime.datetime",
    "datetime.time",
    "datetime.timedelta",
    "datetime.timezone",
    "decimal.Decimal",
    "fractions.Fraction",
    "pathlib.Path",
    "pathlib.PurePath",
    "pathlib.PosixPath",
    "pathlib.PurePosixPath",
    "pathlib.PureWindowsPath",
    "uuid.UUID",
    "collections.OrderedDict",
    "collections.defaultdict",
    "collections.Counter",
    "collections.deque",
    "types.SimpleNamespace",
    "argparse.Namespace",
    "io.StringIO",
    "io.BytesIO",
    "functools.partial",
    "ipaddress.ip_address",
    "ipaddress.ip_network",
    "ipaddress.IPv4Address",
    "ipaddress.IPv6Address",
    "ipaddress.IPv4Network",
    "ipaddress.IPv6Network",
    "array.array",
    "unittest.mock.Mock",
    "unittest.mock.MagicMock",
    "mock.Mock",
    "mock.MagicMock",
    "object",
];

fn combinations(
    items: &[PyValue],
    r: usize,
    replacement: bool,
    out: &mut Vec<PyValue>,
    current: &mut Vec<PyValue>,
    start: usize,
) -> bool {
    if current.len() == r {
        out.push(tuple(current.clone()));
        return out.len() <= MAX_ELEMENTS;
    }
    for i in start..items.len() {
        current.push(items[i].clone());
        let ok = combinations(
            items,
            r,
            replacement,
            out,
            current,
            if replacement { i } else { i + 1 },
        );
        current.pop();
        if !ok {
            return false;
        }
    }
    true
}

fn permutations(
    items: &[PyValue],
    r: usize,
    out: &mut Vec<PyValue>,
    current: &mut Vec<usize>,
) -> bool {
    if current.len() == r {
        out.push(tuple(current.iter().map(|&i| items[i].clone()).collect()));
        return out.len() <= MAX_ELEMENTS;
    }
    for i in 0..items.len() {
        if current.contains(&i) {
            continue;
        }
        current.push(i);
        let ok = permutations(items, r, out, current);
        current.pop();
        if !ok {
            return false;
        }
    }
    true
}

fn product(lists: &[Vec<PyValue>]) -> Result<Vec<PyValue>, String> {
    let total = lists
        .iter()
        .try_fold(1usize, |acc, l| acc.checked_mul(l.len()))
        .unwrap_or(usize::MAX);
    if total > MAX_ELEMENTS {
        return Err("a product too large to expand statically".to_owned());
    }
    let mut out: Vec<Vec<PyValue>> = vec![Vec::new()];
    for l in lists {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                l.iter().map(move |v| {
                    let mut next = prefix.clone();
                    next.push(v.clone());
                    next
                })
            })
            .collect();
    }
    Ok(out.into_iter().map(tuple).collect())
}

/// `textwrap.dedent`: lines of only spaces and tabs become empty, then the
/// whitespace every other line starts with is removed.
fn dedent(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let cleaned: Vec<&str> = lines
        .iter()
        .map(|l| {
            if l.chars().all(|c| c == ' ' || c == '\t') {
                ""
            } else {
                *l
            }
        })
        .collect();
    let mut margin: Option<&str> = None;
    for line in &cleaned {
        if line.is_empty() {
            continue;
        }
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        margin = Some(match margin {
            None => indent,
            Some(m) if indent.starts_with(m) => m,
            Some(m) if m.starts_with(indent) => indent,
            Some(m) => {
                let common = m
                    .bytes()
                    .zip(indent.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &m[..common]
            }
        });
    }
    let margin = margin.unwrap_or("");
    cleaned
        .iter()
        .map(|l| l.strip_prefix(margin).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A call of a standard-library function or class proctor knows.
pub(super) fn call_library(path: &str, args: &Args) -> PyValue {
    // pytest names an instance of these classes by argument name and index
    // whatever its arguments are (python-dateutil's `datetime(...,
    // tzinfo=tz.gettz("Europe/London"))`, where `gettz` may give None): the
    // call gives one or raises, and a call that raises at import stops the
    // whole module, which proctor assumes of no module.
    if OBJECT_CLASSES.contains(&path) {
        return PyValue::Object;
    }
    if let Some(unknown) = first_unknown(args) {
        return unknown;
    }
    let p = &args.positional;
    let outcome: Result<PyValue, String> = match path {
        "itertools.product" => {
            let repeat = keyword(args, "repeat")
                .map_or(Some(1), int)
                .and_then(|r| usize::try_from(r).ok());
            p.iter()
                .map(iterate)
                .collect::<Result<Vec<_>, _>>()
                .and_then(|lists| {
                    let repeat = repeat.ok_or("product() repeat")?;
                    let all: Vec<Vec<PyValue>> =
                        std::iter::repeat_n(lists, repeat).flatten().collect();
                    product(&all).map(list)
                })
        }
        "itertools.chain" => chained(p),
        "itertools.chain.from_iterable" => p
            .first()
            .ok_or_else(|| "chain.from_iterable() without an argument".to_owned())
            .and_then(iterate)
            .and_then(|outer| chained(&outer)),
        "itertools.combinations"
        | "itertools.combinations_with_replacement"
        | "itertools.permutations" => {
            match (
                p.first().map(iterate),
                p.get(1).or_else(|| keyword(args, "r")).map(int),
            ) {
                (Some(Ok(items)), r) => {
                    let r = match r {
                        None if path.ends_with("permutations") => Some(items.len()),
                        Some(Some(r)) => usize::try_from(r).ok(),
                        _ => None,
                    };
                    match r {
                        Some(r) => {
                            let mut out = Vec::new();
                            let complete = if path.ends_with("permutations") {
                                permutations(&items, r, &mut out, &mut Vec::new())
                            } else {
                                combinations(
                                    &items,
                                    r,
                                    path.ends_with("replacement"),
                                    &mut out,
                                    &mut Vec::new(),
                                    0,
                                )
                            };
                            if complete {
                                Ok(lazy(out))
                            } else {
                                Err("too many combinations to expand statically".to_owned())
                            }
                        }
                        None => Err(format!("`{path}` with this length")),
                    }
                }
                (Some(Err(reason)), _) => Err(reason),
                _ => Err(format!("`{path}` without arguments")),
            }
        }
        "itertools.islice" => match p.as_slice() {
            [it, stop] => {
                iterate(it).map(|items| relabel(ops::slice(&list(items), None, Some(stop), None)))
            }
            [it, start, stop, rest @ ..] if rest.len() <= 1 => iterate(it).map(|items| {
                relabel(ops::slice(
                    &list(items),
                    Some(start),
                    Some(stop),
                    rest.first(),
                ))
            }),
            _ => Err("islice() with these arguments".to_owned()),
        },
        "itertools.repeat" => match p.as_slice() {
            [value, times] => int(times)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| *n <= MAX_ELEMENTS)
                .map(|n| lazy(vec![value.clone(); n]))
                .ok_or_else(|| "repeat() times".to_owned()),
            _ => Err("an endless itertools.repeat()".to_owned()),
        },
        "re.compile" => match p.first() {
            Some(PyValue::Str(pattern)) => Ok(PyValue::Pattern(pattern.to_string())),
            _ => Err("re.compile of a pattern that is not a string".to_owned()),
        },
        "textwrap.dedent" => match p.as_slice() {
            [PyValue::Str(text)] => Ok(PyValue::str(dedent(text))),
            _ => Err("textwrap.dedent() of this value".to_owned()),
        },
        "os.path.join" | "posixpath.join" => {
            let mut out = String::new();
            for part in p {
                let PyValue::Str(part) = part else {
                    return PyValue::Unknown(
                        "os.path.join() of values that are not strings".to_owned(),
                    );
                };
                if part.starts_with('/') || out.is_empty() {
                    out = part.to_string();
                } else if out.ends_with('/') {
                    out.push_str(part);
                } else {
                    out = format!("{out}/{part}");
                }
            }
            Ok(PyValue::str(out))
        }
        "os.path.basename" | "posixpath.basename" => match p.as_slice() {
            [PyValue::Str(s)] => Ok(PyValue::Str(
                s.rsplit_once('/').map_or(s.as_str(), |(_, b)| b).into(),
            )),
            _ => Err("basename() of this value".to_owned()),
        },
        "operator.add" | "operator.sub" | "operator.mul" | "operator.truediv"
        | "operator.floordiv" | "operator.mod" | "operator.pow" => match p.as_slice() {
            [a, b] => {
                use ruff_python_ast::Operator as O;
                let op = match path {
                    "operator.add" => O::Add,
                    "operator.sub" => O::Sub,
                    "operator.mul" => O::Mult,
                    "operator.truediv" => O::Div,
                    "operator.floordiv" => O::FloorDiv,
                    "operator.mod" => O::Mod,
                    _ => O::Pow,
                };
                Ok(ops::binary(op, a, b))
            }
            _ => Err(format!("`{path}` with these arguments")),
        },
        "operator.eq" | "operator.ne" | "operator.lt" | "operator.le" | "operator.gt"
        | "operator.ge" => match p.as_slice() {
            [a, b] => {
                use ruff_python_ast::CmpOp as C;
                let op = match path {
                    "operator.eq" => C::Eq,
                    "operator.ne" => C::NotEq,
                    "operator.lt" => C::Lt,
                    "operator.le" => C::LtE,
                    "operator.gt" => C::Gt,
                    _ => C::GtE,
                };
                ops::compare(op, a, b).map(PyValue::Bool)
            }
            _ => Err(format!("`{path}` with these arguments")),
        },
        "math.floor" | "math.ceil" => match p.as_slice() {
            [PyValue::Float(f)] if f.is_finite() && f.abs() < 1e30 => {
                #[expect(clippy::cast_possible_truncation, reason = "integral and in range")]
                let n = if path == "math.floor" {
                    f.floor()
                } else {
                    f.ceil()
                } as i128;
                Ok(int_value(n))
            }
            [v] if int(v).is_some() => Ok(int_value(int(v).unwrap_or(0))),
            _ => Err(format!("`{path}` of this value")),
        },
        "math.sqrt" => match p.as_slice() {
            [v] => {
                match super::ops::binary(ruff_python_ast::Operator::Mult, v, &PyValue::Float(1.0)) {
                    PyValue::Float(f) if f >= 0.0 => Ok(PyValue::Float(f.sqrt())),
                    _ => Err("math.sqrt() of this value".to_owned()),
                }
            }
            _ => Err("math.sqrt() with these arguments".to_owned()),
        },
        _ => Err(format!("the result of `{path}(...)`")),
    };
    result(outcome)
}
