//! Python values known statically, and how Python prints them.
//!
//! Parametrize ids and marker arguments come from literal expressions in the
//! source. This module holds the small value model they evaluate to and the
//! exact text `CPython`'s `str()` gives for each (float repr included), because
//! pytest builds node ids from that text.

use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::hash::BuildHasher as _;
use std::sync::{Arc, OnceLock};

use rustc_hash::{FxBuildHasher, FxHashMap as HashMap};

use serde_json::{json, Value as Json};

/// The text of a `str` value.
pub(crate) type Text = compact_str::CompactString;

/// A container's elements, shared: a value is cloned wherever a name is
/// read or a list repeated (`[BIG] * 10_000`), and a parametrize list of
/// large values must not be copied once per element (100,000 tests of a
/// 2,000-element list each cost gigabytes). Written only when not shared.
#[derive(Clone, Default)]
pub(crate) struct Elements(Arc<Shared>);

/// What an [`Elements`] shares: the elements, and a dict's string-key
/// index, built on the first lookup that can use it (see
/// [`Elements::str_key_position`]).
#[derive(Clone, Default)]
struct Shared {
    items: Vec<PyValue>,
    /// `None` inside: the elements are not a large dict of string keys
    /// the index can answer for.
    keys: OnceLock<Option<Box<KeyIndex>>>,
}

/// A dict's entry positions by the hash of their string key. Two keys of
/// one hash leave the dict unindexed, so a hit names the only key that
/// can equal the one looked up.
type KeyIndex = HashMap<u64, u32>;

/// What a dict's key index says of a string key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyLookup {
    /// The first entry with the key is at this position.
    Found(usize),
    /// No entry has the key.
    Missing,
    /// The dict has no index (see [`Elements::str_key_position`]): its
    /// keys are compared in place.
    Unindexed,
}

/// The fewest entries a dict needs before its keys are indexed: below
/// this, comparing them in place costs less than hashing.
const INDEX_MIN: usize = 16;

impl std::fmt::Debug for Elements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.items.fmt(f)
    }
}

impl PartialEq for Elements {
    fn eq(&self, other: &Elements) -> bool {
        self.0.items == other.0.items
    }
}

/// The string key of a dict entry, a `(key, value)` pair.
fn str_key(entry: &PyValue) -> Option<&str> {
    match entry {
        PyValue::Container {
            kind: ContainerKind::Tuple | ContainerKind::List,
            elements,
        } if elements.len() == 2 => match &elements[0] {
            PyValue::Str(key) => Some(key),
            _ => None,
        },
        _ => None,
    }
}

fn key_hash(key: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(key)
}

impl Elements {
    /// The elements as a vector of their own (moved when not shared).
    pub(crate) fn into_vec(self) -> Vec<PyValue> {
        Arc::unwrap_or_clone(self.0).items
    }

    /// Where the dict whose entries these are holds the string `key`,
    /// answered from a hash index; [`KeyLookup::Unindexed`] where the
    /// index cannot answer (a small dict, a key that is not a
    /// string, an entry that is not a pair) and the caller compares the
    /// keys in place. A registry dict filled and read in a loop
    /// (`_cache[cls.name] = cls`, `LEXERS[key]`) is otherwise scanned
    /// once per lookup: quadratic in its size. The answer is the first
    /// entry whose key equals `key`, as the scan finds it.
    pub(crate) fn str_key_position(&self, key: &str) -> KeyLookup {
        let items = &self.0.items;
        if items.len() < INDEX_MIN {
            return KeyLookup::Unindexed;
        }
        let Some(index) = self.0.keys.get_or_init(|| Self::index_of(items)) else {
            return KeyLookup::Unindexed;
        };
        index
            .get(&key_hash(key))
            .map(|&at| at as usize)
            .filter(|&at| items.get(at).and_then(str_key) == Some(key))
            .map_or(KeyLookup::Missing, KeyLookup::Found)
    }

    /// The index of `items`, when every one is a pair with a string key
    /// and no two different keys share a hash.
    fn index_of(items: &[PyValue]) -> Option<Box<KeyIndex>> {
        let mut index = KeyIndex::with_capacity_and_hasher(items.len(), FxBuildHasher);
        for (at, entry) in items.iter().enumerate() {
            let key = str_key(entry)?;
            match index.entry(key_hash(key)) {
                Entry::Vacant(slot) => {
                    slot.insert(u32::try_from(at).ok()?);
                }
                // The same key again: the first one answers, as in a scan.
                Entry::Occupied(first)
                    if items.get(*first.get() as usize).and_then(str_key) == Some(key) => {}
                Entry::Occupied(_) => return None,
            }
        }
        Some(Box::new(index))
    }

    /// Appends a dict entry whose key is not among the entries, keeping
    /// the key index where there is one (a registry filled in a loop is
    /// also read in it).
    pub(crate) fn push_entry(&mut self, entry: PyValue) {
        let shared = Arc::make_mut(&mut self.0);
        let at = shared.items.len();
        let kept = match (shared.keys.get_mut(), str_key(&entry)) {
            (Some(Some(index)), Some(key)) => {
                u32::try_from(at).is_ok_and(|at| match index.entry(key_hash(key)) {
                    Entry::Vacant(slot) => {
                        slot.insert(at);
                        true
                    }
                    Entry::Occupied(_) => false,
                })
            }
            _ => false,
        };
        if !kept {
            shared.keys = OnceLock::new();
        }
        shared.items.push(entry);
    }

    /// Sets the value of the dict entry at `at` (a pair), keeping the key
    /// index.
    pub(crate) fn set_entry_value(&mut self, at: usize, value: PyValue) {
        let shared = Arc::make_mut(&mut self.0);
        if let Some(PyValue::Container { elements: kv, .. }) = shared.items.get_mut(at) {
            if let Some(slot) = kv.get_mut(1) {
                *slot = value;
            }
        }
    }
}

impl std::ops::Deref for Elements {
    type Target = Vec<PyValue>;

    fn deref(&self) -> &Vec<PyValue> {
        &self.0.items
    }
}

impl std::ops::DerefMut for Elements {
    /// The elements, to change: the key index is dropped (it is built
    /// again when next asked for).
    fn deref_mut(&mut self) -> &mut Vec<PyValue> {
        let shared = Arc::make_mut(&mut self.0);
        shared.keys = OnceLock::new();
        &mut shared.items
    }
}

impl From<Vec<PyValue>> for Elements {
    fn from(items: Vec<PyValue>) -> Elements {
        Elements(Arc::new(Shared {
            items,
            keys: OnceLock::new(),
        }))
    }
}

impl FromIterator<PyValue> for Elements {
    fn from_iter<I: IntoIterator<Item = PyValue>>(iter: I) -> Elements {
        Elements::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl IntoIterator for Elements {
    type Item = PyValue;
    type IntoIter = std::vec::IntoIter<PyValue>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'e> IntoIterator for &'e Elements {
    type Item = &'e PyValue;
    type IntoIter = std::slice::Iter<'e, PyValue>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.items.iter()
    }
}

/// A value whose Python identity matters for ids and marker arguments.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PyValue {
    None,
    Bool(bool),
    /// Decimal digits, with a leading `-` when negative.
    Int(Text),
    Float(f64),
    /// An imaginary literal such as `2j` (real part +0).
    Imag(f64),
    /// A negated imaginary literal such as `-2j`: `complex(-0.0, -2.0)`.
    NegImag(f64),
    /// A `str`: inline up to 24 bytes, so that copying a short string
    /// (a name read in a comprehension) allocates nothing.
    Str(Text),
    Bytes(Vec<u8>),
    /// A list, tuple, set or dict literal; `elements` keeps literal contents
    /// for marker arguments (dicts become lists of pairs).
    Container {
        kind: ContainerKind,
        elements: Elements,
    },
    /// A member of an `Enum` class: `str(member)` is `display`.
    EnumMember {
        display: String,
    },
    /// A class or function object: its id is its `__name__`.
    Named(Text),
    /// A compiled regular expression: its id is its pattern, escaped.
    Pattern(String),
    /// A `pathlib.Path` (the absolute path pytest hands a hook as
    /// `file_path`): it has no id of its own.
    Path(String),
    /// An object with no usable id (an instance of a plain class, `object()`):
    /// pytest uses the argument name and index.
    Object,
    /// A function or lambda the evaluator can call. `name` is its
    /// `__name__` (its id); `slot` indexes the callables of the evaluator
    /// `owner` that made it, so a value from another evaluation is never
    /// called by mistake.
    Function {
        name: Text,
        owner: u64,
        slot: u32,
    },
    /// `pytest.param(...)`, evaluated.
    Param(Box<ParamValue>),
    /// A mark such as `pytest.mark.xfail(reason="x")`, evaluated.
    Mark(Box<MarkValue>),
    /// Something that cannot be known without running code.
    Unknown(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContainerKind {
    List,
    Tuple,
    /// A `set` or `frozenset`, elements in insertion order (Python's own
    /// iteration order is its hash order, so iterating one is refused).
    Set,
    Dict,
    /// `dict.keys()`: iterates in the dict's order, and supports set
    /// operations (which give a [`ContainerKind::Set`]).
    Keys,
    /// A `range`, iterator, generator or view (`map(...)`,
    /// `itertools.product(...)`, `dict.items()`): iterates like a list, but
    /// is not one (a marker argument holding it is not a JSON list).
    Lazy,
}

/// `pytest.param(*values, id=..., marks=...)`, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParamValue {
    pub(crate) values: Vec<PyValue>,
    /// The `id=` given (`Some(PyValue::None)` for an explicit `None`).
    pub(crate) id: Option<PyValue>,
    /// `id=pytest.HIDDEN_PARAM`.
    pub(crate) hidden: bool,
    pub(crate) marks: Vec<MarkValue>,
}

/// A mark with its arguments, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MarkValue {
    pub(crate) name: String,
    pub(crate) args: Vec<PyValue>,
    pub(crate) kwargs: Vec<(String, PyValue)>,
}

impl PyValue {
    /// A `str` value of `text`.
    pub(crate) fn str(text: impl Into<Text>) -> PyValue {
        PyValue::Str(text.into())
    }

    /// Text of `str(value)` for the types pytest turns into ids directly
    /// (`None`, bools, numbers); `None` for every other type.
    pub(crate) fn scalar_str(&self) -> Option<String> {
        match self {
            PyValue::None => Some("None".to_string()),
            PyValue::Bool(true) => Some("True".to_string()),
            PyValue::Bool(false) => Some("False".to_string()),
            PyValue::Int(digits) => Some(digits.to_string()),
            PyValue::Float(f) => Some(float_repr(*f)),
            PyValue::Imag(f) => Some(imag_repr(*f)),
            PyValue::NegImag(f) => Some(format!("(-0-{})", imag_repr(*f))),
            _ => None,
        }
    }

    /// JSON form used in `collect --json` marker arguments: literals as JSON,
    /// bytes as `{"bytes": latin-1 text}`, anything else as
    /// `{"expr": source}`.
    pub(crate) fn to_json(&self, source: &str) -> Json {
        match self {
            PyValue::None => Json::Null,
            PyValue::Bool(b) => Json::Bool(*b),
            PyValue::Int(digits) => digits
                .parse::<i64>()
                .map_or_else(|_| json!({ "expr": source }), |n| json!(n)),
            PyValue::Float(f) if f.is_finite() => json!(f),
            PyValue::Str(s) => Json::String(s.to_string()),
            PyValue::Bytes(b) => {
                json!({ "bytes": b.iter().map(|&c| char::from(c)).collect::<String>() })
            }
            PyValue::Container {
                kind: ContainerKind::List | ContainerKind::Tuple,
                elements,
            } if elements.iter().all(PyValue::is_json_literal) => {
                Json::Array(elements.iter().map(|e| e.to_json("")).collect())
            }
            _ => json!({ "expr": source }),
        }
    }

    fn is_json_literal(&self) -> bool {
        match self {
            PyValue::None | PyValue::Bool(_) | PyValue::Str(_) | PyValue::Bytes(_) => true,
            PyValue::Int(d) => d.parse::<i64>().is_ok(),
            PyValue::Float(f) => f.is_finite(),
            PyValue::Container {
                kind: ContainerKind::List | ContainerKind::Tuple,
                elements,
            } => elements.iter().all(PyValue::is_json_literal),
            _ => false,
        }
    }
}

/// `CPython`'s `repr(float)`: the shortest digits that round-trip, in fixed
/// notation for exponents in `-4..16` and scientific notation otherwise.
pub(crate) fn float_repr(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, e.g. `1.5e-7`.
    let sci = format!("{value:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa
        .strip_prefix('-')
        .map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let n_digits = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let text = if point <= 0 {
            format!("0.{}{}", "0".repeat(point.unsigned_abs() as usize), digits)
        } else if point >= n_digits {
            format!(
                "{}{}.0",
                digits,
                "0".repeat(usize::try_from(point - n_digits).unwrap_or(0))
            )
        } else {
            let (int, frac) = digits.split_at(usize::try_from(point).unwrap_or(0));
            format!("{int}.{frac}")
        };
        format!("{sign}{text}")
    } else {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.unsigned_abs())
    }
}

/// `CPython`'s `str(complex(0, imag))`: the imaginary part without a trailing
/// `.0`, followed by `j`.
pub(crate) fn imag_repr(imag: f64) -> String {
    let text = float_repr(imag);
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text}j")
}

/// pytest's `ascii_escaped` for `str` values: `unicode_escape` encoding.
#[cfg(test)]
pub(crate) fn ascii_escape_str(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    push_ascii_escaped_str(&mut out, value);
    out
}

/// [`ascii_escape_str`], appended to `out` (an id built in place).
pub(crate) fn push_ascii_escaped_str(out: &mut String, value: &str) {
    if is_plain_ascii(value.as_bytes()) {
        out.push_str(value);
        return;
    }
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
}

/// Whether every byte of `bytes` is printable ASCII other than `\`, the
/// text `ascii_escaped` leaves as it is: sixteen bytes at a time (a loop
/// over a fixed array, which the compiler makes a few vector
/// instructions), as every parameter id asks it.
fn is_plain_ascii(bytes: &[u8]) -> bool {
    let escaped = |chunk: &[u8; 16]| {
        let mut any = 0u8;
        for &byte in chunk {
            any |= u8::from(byte < b' ') | u8::from(byte > b'~') | u8::from(byte == b'\\');
        }
        any != 0
    };
    (0..bytes.len())
        .step_by(16)
        .all(|at| !escaped(&crate::byte_search::padded_chunk(bytes, at)))
}

/// pytest's `ascii_escaped` for `bytes` values: `backslashreplace` decoding
/// followed by escaping of non-printable ASCII.
#[cfg(test)]
pub(crate) fn ascii_escape_bytes(value: &[u8]) -> String {
    let mut out = String::with_capacity(value.len());
    push_ascii_escaped_bytes(&mut out, value);
    out
}

/// [`ascii_escape_bytes`], appended to `out`.
pub(crate) fn push_ascii_escaped_bytes(out: &mut String, value: &[u8]) {
    for &b in value {
        match b {
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b' '..=b'~' => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The sixteen-bytes-at-a-time check agrees with the byte-wise one for
    /// every byte value at every place of strings up to two chunks and more.
    #[test]
    fn plain_ascii_is_found_wherever_the_other_byte_sits() {
        for byte in 0..=u8::MAX {
            for len in 1..=40 {
                for at in 0..len {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    let expected = text
                        .iter()
                        .all(|b| (b' '..=b'~').contains(b) && *b != b'\\');
                    assert_eq!(
                        super::is_plain_ascii(&text),
                        expected,
                        "{byte:#x} at {at} of {len}"
                    );
                }
            }
        }
        assert!(super::is_plain_ascii(b""));
    }

    use super::*;

    fn pair(key: PyValue, value: i32) -> PyValue {
        PyValue::Container {
            kind: ContainerKind::Tuple,
            elements: vec![
                key,
                PyValue::Int(compact_str::ToCompactString::to_compact_string(&value)),
            ]
            .into(),
        }
    }

    fn str_pairs(n: i32) -> Elements {
        (0..n)
            .map(|i| pair(PyValue::str(format!("k{i}")), i))
            .collect()
    }

    #[test]
    fn a_large_dict_of_string_keys_is_answered_by_its_index() {
        let mut dict = str_pairs(40);
        assert_eq!(dict.str_key_position("k7"), KeyLookup::Found(7));
        assert_eq!(dict.str_key_position("k40"), KeyLookup::Missing);
        // Appended and updated entries keep the index, and it answers
        // for them.
        dict.push_entry(pair(PyValue::str("new"), 1));
        assert!(matches!(dict.0.keys.get(), Some(Some(_))));
        assert_eq!(dict.str_key_position("new"), KeyLookup::Found(40));
        dict.set_entry_value(3, PyValue::None);
        assert!(matches!(dict.0.keys.get(), Some(Some(_))));
        let updated = PyValue::Container {
            kind: ContainerKind::Tuple,
            elements: vec![PyValue::str("k3"), PyValue::None].into(),
        };
        assert_eq!(dict[3], updated);
        // Any other change drops it; it is built again when asked.
        dict.pop();
        assert!(dict.0.keys.get().is_none());
        assert_eq!(dict.str_key_position("new"), KeyLookup::Missing);
    }

    #[test]
    fn the_first_of_two_equal_keys_answers_as_a_scan_finds_it() {
        let mut items = str_pairs(20).into_vec();
        items.push(pair(PyValue::str("k5"), 99));
        let dict = Elements::from(items);
        assert_eq!(dict.str_key_position("k5"), KeyLookup::Found(5));
    }

    #[test]
    fn small_or_mixed_dicts_are_left_to_the_scan() {
        assert_eq!(
            str_pairs(i32::try_from(INDEX_MIN).unwrap() - 1).str_key_position("k1"),
            KeyLookup::Unindexed
        );
        let mut items = str_pairs(20).into_vec();
        items.push(pair(PyValue::Int("1".into()), 1));
        assert_eq!(
            Elements::from(items).str_key_position("k1"),
            KeyLookup::Unindexed
        );
        let mut items = str_pairs(20).into_vec();
        items.push(PyValue::None);
        assert_eq!(
            Elements::from(items).str_key_position("k1"),
            KeyLookup::Unindexed
        );
    }

    #[test]
    fn floats_print_like_python() {
        let cases = [
            (0.1, "0.1"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (1e20, "1e+20"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (123.456, "123.456"),
            (1.5e-7, "1.5e-07"),
            (2.5e300, "2.5e+300"),
            (f64::INFINITY, "inf"),
        ];
        for (value, expected) in cases {
            assert_eq!(float_repr(value), expected, "{value}");
        }
        assert_eq!(imag_repr(1.0), "1j");
        assert_eq!(imag_repr(2.5), "2.5j");
    }

    #[test]
    fn escapes_like_pytest() {
        assert_eq!(
            ascii_escape_str("é日😀\n\\ x"),
            "\\xe9\\u65e5\\U0001f600\\n\\\\ x"
        );
        assert_eq!(ascii_escape_bytes(b"a\xff\x00\\\t"), "a\\xff\\x00\\\\t");
        // The printable fast path and the escaping loop agree.
        for text in ["plain ~!", "back\\slash", "tab\t", "", "é"] {
            let mut out = String::from("<");
            push_ascii_escaped_str(&mut out, text);
            let slow: String = text
                .chars()
                .map(|c| ascii_escape_str(&format!("{c}")))
                .collect();
            assert_eq!(out, format!("<{slow}"));
        }
    }
}
