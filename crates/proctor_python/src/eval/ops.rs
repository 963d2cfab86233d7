//! Python's operators, truth, equality, ordering, hashing and iteration
//! over the values the evaluator knows, with Python's semantics (floor
//! division and modulo round toward negative infinity, `1 == 1.0 == True`,
//! dicts keep insertion order, lists and tuples are never equal).

use std::cmp::Ordering;

use ruff_python_ast::{CmpOp, Operator, UnaryOp};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{MAX_ELEMENTS, MAX_TEXT};
use crate::value::{ContainerKind, KeyLookup, PyValue};

pub(super) fn too_large() -> PyValue {
    PyValue::Unknown("a value too large to compute statically".to_owned())
}

/// An integer value as `i128` (`bool` counts as an integer).
pub(super) fn int(value: &PyValue) -> Option<i128> {
    match value {
        PyValue::Int(digits) => digits.parse().ok(),
        PyValue::Bool(b) => Some(i128::from(*b)),
        _ => None,
    }
}

fn float(value: &PyValue) -> Option<f64> {
    match value {
        PyValue::Float(f) => Some(*f),
        #[expect(
            clippy::cast_precision_loss,
            reason = "Python converts int to float the same way for these sizes"
        )]
        other => int(other).map(|i| i as f64),
    }
}

pub(super) fn int_value(n: i128) -> PyValue {
    PyValue::Int(compact_str::ToCompactString::to_compact_string(&n))
}

/// `bool(value)`.
pub(super) fn truth(value: &PyValue) -> Result<bool, String> {
    Ok(match value {
        PyValue::None => false,
        PyValue::Bool(b) => *b,
        PyValue::Int(digits) => digits != "0",
        PyValue::Float(f) => *f != 0.0,
        PyValue::Str(s) => !s.is_empty(),
        PyValue::Bytes(b) => !b.is_empty(),
        PyValue::Container { elements, .. } => !elements.is_empty(),
        PyValue::Named(_)
        | PyValue::Function { .. }
        | PyValue::Param(_)
        | PyValue::Mark(_)
        | PyValue::Pattern(_)
        | PyValue::Path(_) => true,
        PyValue::Unknown(reason) => return Err(reason.clone()),
        _ => return Err("the truth of a value proctor cannot know statically".to_owned()),
    })
}

/// A key equal for values Python considers equal and hashes alike; `None`
/// for unhashable values (lists, dicts, sets) and unknown ones.
pub(super) fn hash_key(value: &PyValue) -> Option<String> {
    Some(match value {
        PyValue::None => "n".to_owned(),
        PyValue::Bool(_) | PyValue::Int(_) => format!("i{}", int(value)?),
        PyValue::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30 => {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "integral and in range, checked above"
            )]
            let n = *f as i128;
            format!("i{n}")
        }
        PyValue::Float(f) => format!("f{}", crate::value::float_repr(*f)),
        // The most common key (a dict of names): built without `format!`.
        PyValue::Str(s) => {
            let mut key = String::with_capacity(1 + s.len());
            key.push('s');
            key.push_str(s);
            key
        }
        PyValue::Bytes(b) => format!("b{b:?}"),
        PyValue::Container {
            kind: ContainerKind::Tuple,
            elements,
        } => {
            let mut key = String::from("t(");
            for element in elements {
                key.push_str(&hash_key(element)?);
                key.push('\u{0}');
            }
            key.push(')');
            key
        }
        PyValue::EnumMember { display } => format!("e{display}"),
        PyValue::Named(name) => format!("N{name}"),
        _ => return None,
    })
}

/// A set of `elements`, each once, in first-insertion order.
pub(super) fn make_set(elements: Vec<PyValue>) -> PyValue {
    // One object needs no hashing to be told apart from the others
    // (packaging's `{Tag("py3", "none", "any")}`).
    if let [PyValue::Object] = elements.as_slice() {
        return PyValue::Container {
            kind: ContainerKind::Set,
            elements: elements.into(),
        };
    }
    let mut seen: HashSet<String> = HashSet::default();
    let mut out = Vec::with_capacity(elements.len());
    for element in elements {
        let Some(key) = hash_key(&element) else {
            return PyValue::Unknown("a set of values proctor cannot hash statically".to_owned());
        };
        if seen.insert(key) {
            out.push(element);
        }
    }
    PyValue::Container {
        kind: ContainerKind::Set,
        elements: out.into(),
    }
}

/// The key and value of a dict entry.
pub(super) fn pair(entry: PyValue) -> Option<(PyValue, PyValue)> {
    match entry {
        PyValue::Container {
            kind: ContainerKind::Tuple | ContainerKind::List,
            elements,
        } if elements.len() == 2 => {
            let mut elements = elements.into_iter();
            Some((elements.next()?, elements.next()?))
        }
        _ => None,
    }
}

/// The key and value of a dict entry, borrowed (lookups must not copy
/// every entry of a large dict).
pub(super) fn pair_ref(entry: &PyValue) -> Option<(&PyValue, &PyValue)> {
    match entry {
        PyValue::Container {
            kind: ContainerKind::Tuple | ContainerKind::List,
            elements,
        } if elements.len() == 2 => Some((&elements[0], &elements[1])),
        _ => None,
    }
}

/// A dict of `(key, value)` pairs: a later value replaces an earlier one
/// and keeps its position, as in Python.
pub(super) fn make_dict(pairs: Vec<PyValue>) -> PyValue {
    let mut index: HashMap<String, usize> = HashMap::default();
    let mut out: Vec<PyValue> = Vec::with_capacity(pairs.len());
    for entry in pairs {
        if let PyValue::Unknown(reason) = entry {
            return PyValue::Unknown(reason);
        }
        let Some((key, value)) = pair(entry) else {
            return PyValue::Unknown("a dict entry that is not a pair".to_owned());
        };
        let Some(hashed) = hash_key(&key) else {
            return PyValue::Unknown("a dict key proctor cannot hash statically".to_owned());
        };
        if let Some(&at) = index.get(&hashed) {
            // The first key object stays, with the new value.
            if let PyValue::Container { elements, .. } = &mut out[at] {
                elements[1] = value;
            }
        } else {
            index.insert(hashed, out.len());
            out.push(PyValue::Container {
                kind: ContainerKind::Tuple,
                elements: vec![key, value].into(),
            });
        }
    }
    PyValue::Container {
        kind: ContainerKind::Dict,
        elements: out.into(),
    }
}

/// [`iterate`] of a value the caller gives up: a list, tuple or lazy
/// iterable not shared elsewhere hands over its elements instead of
/// cloning them (a comprehension over a fresh slice, a computed
/// parametrize list of 17,000 tuples).
pub(super) fn iterate_owned(value: PyValue) -> Result<Vec<PyValue>, String> {
    match value {
        PyValue::Container {
            kind:
                ContainerKind::List | ContainerKind::Tuple | ContainerKind::Keys | ContainerKind::Lazy,
            elements,
        } => Ok(elements.into_vec()),
        other => iterate(&other),
    }
}

/// The items `for x in value` visits.
pub(super) fn iterate(value: &PyValue) -> Result<Vec<PyValue>, String> {
    match value {
        PyValue::Container {
            kind:
                ContainerKind::List | ContainerKind::Tuple | ContainerKind::Keys | ContainerKind::Lazy,
            elements,
        } => Ok(elements.to_vec()),
        PyValue::Container {
            kind: ContainerKind::Dict,
            elements,
        } => Ok(elements
            .iter()
            .filter_map(|e| pair(e.clone()).map(|(k, _)| k))
            .collect()),
        PyValue::Container {
            kind: ContainerKind::Set,
            elements,
        } => {
            // Small non-negative ints sit in their own slots: ascending.
            let small: Option<Vec<i128>> = elements
                .iter()
                .map(|e| int(e).filter(|n| (0..8).contains(n)))
                .collect();
            match small {
                Some(mut ints) if elements.iter().all(|e| matches!(e, PyValue::Int(_))) => {
                    ints.sort_unstable();
                    Ok(ints.into_iter().map(int_value).collect())
                }
                _ if elements.len() <= 1 => Ok(elements.to_vec()),
                _ => Err(
                    "iterating a set, whose order is Python's hash order (known only at run time)"
                        .to_owned(),
                ),
            }
        }
        PyValue::Str(s) => Ok(s.chars().map(|c| PyValue::str(c.to_string())).collect()),
        PyValue::Bytes(b) => Ok(b.iter().map(|&c| int_value(i128::from(c))).collect()),
        PyValue::Unknown(reason) => Err(reason.clone()),
        _ => Err("iterating a value proctor cannot iterate statically".to_owned()),
    }
}

/// `a == b`; `None` when it cannot be known.
#[inline]
pub(super) fn equal(a: &PyValue, b: &PyValue) -> Option<bool> {
    // Strings first, inline: a registry dict filled and read in a loop
    // (`_cache[cls.name] = cls`, `LEXERS[key]`) compares its string keys
    // once per entry per lookup.
    match (a, b) {
        (PyValue::Str(x), PyValue::Str(y)) => Some(x == y),
        _ => equal_values(a, b),
    }
}

fn equal_values(a: &PyValue, b: &PyValue) -> Option<bool> {
    use PyValue as V;
    Some(match (a, b) {
        (V::Unknown(_), _) | (_, V::Unknown(_)) => return None,
        (V::None, V::None) => true,
        (V::Str(x), V::Str(y)) => x == y,
        (V::EnumMember { display: x }, V::EnumMember { display: y }) | (V::Path(x), V::Path(y)) => {
            x == y
        }
        (V::Bytes(x), V::Bytes(y)) => x == y,
        // A path is never equal to a string or a builtin container.
        (V::Path(_), V::None | V::Str(_) | V::Bytes(_) | V::Container { .. })
        | (V::None | V::Str(_) | V::Bytes(_) | V::Container { .. }, V::Path(_)) => false,
        (V::Int(_) | V::Bool(_) | V::Float(_), V::Int(_) | V::Bool(_) | V::Float(_)) => {
            match (int(a), int(b)) {
                (Some(x), Some(y)) => x == y,
                #[expect(clippy::float_cmp, reason = "Python's == on floats is exact")]
                _ => float(a)? == float(b)?,
            }
        }
        (
            V::Container {
                kind: ka,
                elements: ea,
            },
            V::Container {
                kind: kb,
                elements: eb,
            },
        ) => {
            use ContainerKind as K;
            match (ka, kb) {
                (K::List, K::List) | (K::Tuple, K::Tuple) => {
                    if ea.len() != eb.len() {
                        return Some(false);
                    }
                    for (x, y) in ea.iter().zip(eb) {
                        if !equal(x, y)? {
                            return Some(false);
                        }
                    }
                    true
                }
                (K::Set | K::Keys, K::Set | K::Keys) | (K::Dict, K::Dict) => {
                    let keys = |e: &[PyValue]| -> Option<Vec<String>> {
                        let mut keys: Vec<String> =
                            e.iter().map(hash_key).collect::<Option<_>>()?;
                        keys.sort();
                        Some(keys)
                    };
                    keys(ea)? == keys(eb)?
                }
                _ => false,
            }
        }
        (V::None | V::Str(_) | V::Bytes(_) | V::Container { .. }, _)
        | (_, V::None | V::Str(_) | V::Bytes(_) | V::Container { .. }) => {
            // Different builtin types compare unequal, unless one side is
            // an object whose `__eq__` proctor cannot see.
            if matches!(a, V::Object | V::EnumMember { .. })
                || matches!(b, V::Object | V::EnumMember { .. })
            {
                return None;
            }
            false
        }
        _ => return None,
    })
}

/// The ordering of `a` and `b` for `<`, `sorted()`, `min()` and `max()`.
pub(super) fn order(a: &PyValue, b: &PyValue) -> Result<Ordering, String> {
    use PyValue as V;
    match (a, b) {
        (V::Int(_) | V::Bool(_) | V::Float(_), V::Int(_) | V::Bool(_) | V::Float(_)) => {
            if let (Some(x), Some(y)) = (int(a), int(b)) {
                Ok(x.cmp(&y))
            } else {
                let (x, y) = (float(a).unwrap_or(f64::NAN), float(b).unwrap_or(f64::NAN));
                x.partial_cmp(&y).ok_or_else(|| "comparing nan".to_owned())
            }
        }
        // Code point order; UTF-8 byte order is the same.
        (V::Str(x), V::Str(y)) => Ok(x.cmp(y)),
        (V::Bytes(x), V::Bytes(y)) => Ok(x.cmp(y)),
        (
            V::Container {
                kind: ka @ (ContainerKind::List | ContainerKind::Tuple),
                elements: ea,
            },
            V::Container {
                kind: kb,
                elements: eb,
            },
        ) if ka == kb => {
            for (x, y) in ea.iter().zip(eb) {
                if equal(x, y) == Some(true) {
                    continue;
                }
                return order(x, y);
            }
            Ok(ea.len().cmp(&eb.len()))
        }
        (V::Unknown(reason), _) | (_, V::Unknown(reason)) => Err(reason.clone()),
        _ => Err("an ordering proctor cannot know statically".to_owned()),
    }
}

/// `x in container`.
fn contains(container: &PyValue, item: &PyValue) -> Result<bool, String> {
    match (container, item) {
        (PyValue::Str(haystack), PyValue::Str(needle)) => Ok(haystack.contains(needle.as_str())),
        (PyValue::Bytes(haystack), PyValue::Bytes(needle)) => Ok(needle.is_empty()
            || haystack
                .windows(needle.len())
                .any(|w| w == needle.as_slice())),
        (
            PyValue::Container {
                kind: ContainerKind::Dict,
                elements,
            },
            _,
        ) => {
            // A registry filled in a loop (`if name not in _cache:
            // _cache[name] = ...`) asks this once per entry: its index
            // answers, or the keys are compared in place.
            if let PyValue::Str(key) = item {
                match elements.str_key_position(key) {
                    KeyLookup::Found(_) => return Ok(true),
                    KeyLookup::Missing => return Ok(false),
                    KeyLookup::Unindexed => {}
                }
            }
            let keys = elements.iter().filter_map(|e| pair_ref(e).map(|(k, _)| k));
            any_equal(keys, item)
        }
        (PyValue::Container { elements, .. }, _) => any_equal(elements.iter(), item),
        (PyValue::Unknown(reason), _) => Err(reason.clone()),
        _ => Err("a membership test proctor cannot decide statically".to_owned()),
    }
}

/// Whether one of `elements` equals `item`, as `in` decides it.
fn any_equal<'v>(
    elements: impl Iterator<Item = &'v PyValue>,
    item: &PyValue,
) -> Result<bool, String> {
    for element in elements {
        match equal(element, item) {
            Some(true) => return Ok(true),
            Some(false) => {}
            None => return Err("a membership test proctor cannot decide statically".to_owned()),
        }
    }
    Ok(false)
}

/// One comparison of a chain.
pub(super) fn compare(op: CmpOp, a: &PyValue, b: &PyValue) -> Result<bool, String> {
    let unknown = || "a comparison proctor cannot decide statically".to_owned();
    match op {
        CmpOp::Eq => equal(a, b).ok_or_else(unknown),
        CmpOp::NotEq => equal(a, b).map(|e| !e).ok_or_else(unknown),
        CmpOp::Lt => Ok(order(a, b)? == Ordering::Less),
        CmpOp::LtE => Ok(order(a, b)? != Ordering::Greater),
        CmpOp::Gt => Ok(order(a, b)? == Ordering::Greater),
        CmpOp::GtE => Ok(order(a, b)? != Ordering::Less),
        CmpOp::In => contains(b, a),
        CmpOp::NotIn => contains(b, a).map(|c| !c),
        // Only the singletons have an identity proctor knows.
        CmpOp::Is | CmpOp::IsNot => {
            let same = match (a, b) {
                (PyValue::None, PyValue::None) => true,
                (PyValue::Bool(x), PyValue::Bool(y)) => x == y,
                (PyValue::None | PyValue::Bool(_), other)
                | (other, PyValue::None | PyValue::Bool(_))
                    if !matches!(other, PyValue::Unknown(_) | PyValue::Object) =>
                {
                    false
                }
                _ => return Err(unknown()),
            };
            Ok(if op == CmpOp::Is { same } else { !same })
        }
    }
}

pub(super) fn unary(op: UnaryOp, value: &PyValue) -> PyValue {
    match (op, value) {
        (_, PyValue::Unknown(reason)) => PyValue::Unknown(reason.clone()),
        (UnaryOp::USub, PyValue::Float(f)) => PyValue::Float(-f),
        (UnaryOp::UAdd, PyValue::Float(f)) => PyValue::Float(*f),
        (UnaryOp::USub, v) if int(v).is_some() => int(v)
            .and_then(i128::checked_neg)
            .map_or_else(too_large, int_value),
        (UnaryOp::UAdd, v) if int(v).is_some() => int(v).map_or_else(too_large, int_value),
        (UnaryOp::Invert, v) if int(v).is_some() => {
            int(v).map_or_else(too_large, |n| int_value(!n))
        }
        (UnaryOp::USub, PyValue::Imag(f)) => PyValue::NegImag(*f),
        (UnaryOp::UAdd, PyValue::Imag(f)) => PyValue::Imag(*f),
        _ => PyValue::Unknown("a unary operation proctor cannot compute statically".to_owned()),
    }
}

fn floor_div(x: i128, y: i128) -> Option<i128> {
    let q = x.checked_div(y)?;
    Some(if (x % y != 0) && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    })
}

fn floor_mod(x: i128, y: i128) -> Option<i128> {
    let r = x.checked_rem(y)?;
    Some(if r != 0 && ((r < 0) != (y < 0)) {
        r + y
    } else {
        r
    })
}

fn repeat(elements: &[PyValue], times: i128) -> PyValue {
    let times = usize::try_from(times.max(0)).unwrap_or(usize::MAX);
    if elements.len().saturating_mul(times) > MAX_ELEMENTS {
        return too_large();
    }
    PyValue::Container {
        kind: ContainerKind::List,
        elements: elements
            .iter()
            .cloned()
            .cycle()
            .take(elements.len() * times)
            .collect(),
    }
}

/// A binary operator.
pub(super) fn binary(op: Operator, a: &PyValue, b: &PyValue) -> PyValue {
    use PyValue as V;
    if let V::Unknown(reason) = a {
        return V::Unknown(reason.clone());
    }
    if let V::Unknown(reason) = b {
        return V::Unknown(reason.clone());
    }
    if let (Some(x), Some(y)) = (int(a), int(b)) {
        let result = match op {
            Operator::Add => x.checked_add(y),
            Operator::Sub => x.checked_sub(y),
            Operator::Mult => x.checked_mul(y),
            Operator::FloorDiv => floor_div(x, y),
            Operator::Mod => floor_mod(x, y),
            Operator::Pow if y >= 0 => u32::try_from(y).ok().and_then(|e| x.checked_pow(e)),
            Operator::BitAnd => Some(x & y),
            Operator::BitOr if !matches!((a, b), (V::Bool(_), V::Bool(_))) => Some(x | y),
            Operator::BitOr => return V::Bool(x | y != 0),
            Operator::BitXor => Some(x ^ y),
            Operator::LShift => u32::try_from(y)
                .ok()
                .and_then(|s| x.checked_shl(s))
                .filter(|r| r >> y.min(127) == x),
            Operator::RShift => u32::try_from(y).ok().map(|s| x >> s.min(127)),
            #[expect(
                clippy::cast_precision_loss,
                reason = "true division converts to float as Python does"
            )]
            Operator::Div if y != 0 => return V::Float(x as f64 / y as f64),
            Operator::Pow => {
                return V::Float(float(a).unwrap_or(0.0).powf(float(b).unwrap_or(0.0)))
            }
            _ => None,
        };
        return result.map_or_else(
            || V::Unknown("an integer operation proctor cannot compute statically (overflow or division by zero)".to_owned()),
            int_value,
        );
    }
    if let (Some(x), Some(y)) = (float(a), float(b)) {
        if matches!(a, V::Float(_)) || matches!(b, V::Float(_)) {
            let result = match op {
                Operator::Add => x + y,
                Operator::Sub => x - y,
                Operator::Mult => x * y,
                Operator::Div if y != 0.0 => x / y,
                Operator::FloorDiv if y != 0.0 => (x / y).floor(),
                Operator::Mod if y != 0.0 => {
                    let r = x % y;
                    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                        r + y
                    } else {
                        r
                    }
                }
                Operator::Pow => x.powf(y),
                _ => {
                    return V::Unknown(
                        "a float operation proctor cannot compute statically".to_owned(),
                    )
                }
            };
            return V::Float(result);
        }
    }
    match (op, a, b) {
        (Operator::Add, V::Str(x), V::Str(y)) => {
            if x.len() + y.len() > MAX_TEXT {
                return too_large();
            }
            V::Str(format!("{x}{y}").into())
        }
        (Operator::Add, V::Bytes(x), V::Bytes(y)) => V::Bytes([x.as_slice(), y].concat()),
        (
            Operator::Add,
            V::Container {
                kind: ka,
                elements: x,
            },
            V::Container {
                kind: kb,
                elements: y,
            },
        ) if ka == kb && matches!(ka, ContainerKind::List | ContainerKind::Tuple) => {
            if x.len() + y.len() > MAX_ELEMENTS {
                return too_large();
            }
            V::Container {
                kind: *ka,
                elements: x.iter().chain(y).cloned().collect(),
            }
        }
        (Operator::Mult, V::Str(s), n) | (Operator::Mult, n, V::Str(s)) if int(n).is_some() => {
            let times = usize::try_from(int(n).unwrap_or(0).max(0)).unwrap_or(usize::MAX);
            if s.len().saturating_mul(times) > MAX_TEXT {
                return too_large();
            }
            V::Str(s.repeat(times))
        }
        (Operator::Mult, V::Bytes(s), n) | (Operator::Mult, n, V::Bytes(s)) if int(n).is_some() => {
            let times = usize::try_from(int(n).unwrap_or(0).max(0)).unwrap_or(usize::MAX);
            if s.len().saturating_mul(times) > MAX_TEXT {
                return too_large();
            }
            V::Bytes(s.repeat(times))
        }
        (
            Operator::Mult,
            V::Container {
                kind: kind @ (ContainerKind::List | ContainerKind::Tuple),
                elements,
            },
            n,
        )
        | (
            Operator::Mult,
            n,
            V::Container {
                kind: kind @ (ContainerKind::List | ContainerKind::Tuple),
                elements,
            },
        ) if int(n).is_some() => match repeat(elements, int(n).unwrap_or(0)) {
            V::Container { elements, .. } => V::Container {
                kind: *kind,
                elements,
            },
            other => other,
        },
        (Operator::Mod, V::Str(format), args) => {
            super::text::percent(format, args).unwrap_or_else(V::Unknown)
        }
        (
            Operator::Sub | Operator::BitAnd | Operator::BitOr | Operator::BitXor,
            V::Container {
                kind: ContainerKind::Set | ContainerKind::Keys,
                elements: x,
            },
            V::Container {
                kind: ContainerKind::Set | ContainerKind::Keys,
                elements: y,
            },
        ) => set_operation(op, x, y),
        (
            Operator::BitOr,
            V::Container {
                kind: ContainerKind::Dict,
                elements: x,
            },
            V::Container {
                kind: ContainerKind::Dict,
                elements: y,
            },
        ) => make_dict(x.iter().chain(y).cloned().collect()),
        _ => V::Unknown("an operation proctor cannot compute statically".to_owned()),
    }
}

fn set_operation(op: Operator, x: &[PyValue], y: &[PyValue]) -> PyValue {
    let keys = |e: &[PyValue]| -> Option<Vec<String>> { e.iter().map(hash_key).collect() };
    let (Some(kx), Some(ky)) = (keys(x), keys(y)) else {
        return PyValue::Unknown("a set of values proctor cannot hash statically".to_owned());
    };
    let in_y: HashSet<&str> = ky.iter().map(String::as_str).collect();
    let in_x: HashSet<&str> = kx.iter().map(String::as_str).collect();
    let elements: Vec<PyValue> = match op {
        Operator::Sub => x
            .iter()
            .zip(&kx)
            .filter(|(_, k)| !in_y.contains(k.as_str()))
            .map(|(v, _)| v.clone())
            .collect(),
        Operator::BitAnd => x
            .iter()
            .zip(&kx)
            .filter(|(_, k)| in_y.contains(k.as_str()))
            .map(|(v, _)| v.clone())
            .collect(),
        Operator::BitOr => x.iter().chain(y).cloned().collect(),
        _ => x
            .iter()
            .zip(&kx)
            .filter(|(_, k)| !in_y.contains(k.as_str()))
            .map(|(v, _)| v.clone())
            .chain(
                y.iter()
                    .zip(&ky)
                    .filter(|(_, k)| !in_x.contains(k.as_str()))
                    .map(|(v, _)| v.clone()),
            )
            .collect(),
    };
    make_set(elements)
}

/// `value[index]`.
pub(super) fn subscript(value: &PyValue, index: &PyValue) -> PyValue {
    let position = |len: usize| -> Option<usize> {
        let i = int(index)?;
        let len = i128::try_from(len).ok()?;
        let i = if i < 0 { i + len } else { i };
        (0..len)
            .contains(&i)
            .then(|| usize::try_from(i).ok())
            .flatten()
    };
    match value {
        PyValue::Container {
            kind: ContainerKind::List | ContainerKind::Tuple,
            elements,
        } => position(elements.len()).map_or_else(
            || PyValue::Unknown("an index out of range".to_owned()),
            |i| elements[i].clone(),
        ),
        PyValue::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            position(chars.len()).map_or_else(
                || PyValue::Unknown("an index out of range".to_owned()),
                |i| PyValue::str(chars[i].to_string()),
            )
        }
        PyValue::Bytes(b) => position(b.len()).map_or_else(
            || PyValue::Unknown("an index out of range".to_owned()),
            |i| int_value(i128::from(b[i])),
        ),
        PyValue::Container {
            kind: ContainerKind::Dict,
            elements,
        } => {
            if let PyValue::Str(key) = index {
                match elements.str_key_position(key) {
                    KeyLookup::Found(at) => {
                        if let Some((_, v)) = elements.get(at).and_then(pair_ref) {
                            return v.clone();
                        }
                    }
                    KeyLookup::Missing => {
                        return PyValue::Unknown("a missing dict key (KeyError)".to_owned())
                    }
                    KeyLookup::Unindexed => {}
                }
            }
            for entry in elements {
                if let Some((key, v)) = pair_ref(entry) {
                    match equal(key, index) {
                        Some(true) => return v.clone(),
                        Some(false) => {}
                        None => {
                            return PyValue::Unknown(
                                "a dict lookup proctor cannot decide statically".to_owned(),
                            )
                        }
                    }
                }
            }
            PyValue::Unknown("a missing dict key (KeyError)".to_owned())
        }
        PyValue::Unknown(reason) => PyValue::Unknown(reason.clone()),
        _ => PyValue::Unknown("a subscript proctor cannot compute statically".to_owned()),
    }
}

/// `value[lower:upper:step]`.
pub(super) fn slice(
    value: &PyValue,
    lower: Option<&PyValue>,
    upper: Option<&PyValue>,
    step: Option<&PyValue>,
) -> PyValue {
    let bound = |v: Option<&PyValue>| -> Result<Option<i128>, ()> {
        match v {
            None | Some(PyValue::None) => Ok(None),
            Some(v) => int(v).map(Some).ok_or(()),
        }
    };
    let (Ok(lower), Ok(upper), Ok(step)) = (bound(lower), bound(upper), bound(step)) else {
        return PyValue::Unknown(
            "a slice with bounds proctor cannot compute statically".to_owned(),
        );
    };
    let step = step.unwrap_or(1);
    if step == 0 {
        return PyValue::Unknown("a slice step of zero (ValueError)".to_owned());
    }
    let pick = |len: usize| -> Vec<usize> {
        let len = i128::try_from(len).unwrap_or(i128::MAX);
        let clamp = |v: Option<i128>, default: i128| -> i128 {
            match v {
                None => default,
                Some(v) if v < 0 => (v + len).max(if step < 0 { -1 } else { 0 }),
                Some(v) => v.min(if step < 0 { len - 1 } else { len }),
            }
        };
        let (from, to) = if step > 0 {
            (clamp(lower, 0), clamp(upper, len))
        } else {
            (clamp(lower, len - 1), clamp(upper, -1))
        };
        let mut out = Vec::new();
        let mut i = from;
        while (step > 0 && i < to) || (step < 0 && i > to) {
            if let Ok(index) = usize::try_from(i) {
                out.push(index);
            }
            i += step;
        }
        out
    };
    match value {
        PyValue::Container {
            kind: kind @ (ContainerKind::List | ContainerKind::Tuple),
            elements,
        } => PyValue::Container {
            kind: *kind,
            elements: pick(elements.len())
                .into_iter()
                .map(|i| elements[i].clone())
                .collect(),
        },
        PyValue::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            PyValue::Str(pick(chars.len()).into_iter().map(|i| chars[i]).collect())
        }
        PyValue::Bytes(b) => PyValue::Bytes(pick(b.len()).into_iter().map(|i| b[i]).collect()),
        PyValue::Unknown(reason) => PyValue::Unknown(reason.clone()),
        _ => PyValue::Unknown("a slice proctor cannot compute statically".to_owned()),
    }
}
