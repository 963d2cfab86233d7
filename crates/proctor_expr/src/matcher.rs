//! pytest's two matchers: `MarkMatcher` for `-m` and `KeywordMatcher` for
//! `-k` (`_pytest/mark/__init__.py`).

use std::collections::HashMap;

use serde_json::{Map, Value as Json};

use crate::expression::{Kwargs, Value};

/// pytest's `MarkMatcher`: `-m` semantics over an item's markers.
///
/// A bare name matches when the item has a marker of exactly that name
/// (case-sensitive). A call `name(k=v, ...)` matches when one marker of that
/// name has every given keyword argument equal to the given value, in
/// Python's sense of `==`: `1`, `1.0` and `True` are equal, as are `0`,
/// `0.0` and `False`; a string equals only the same string, `None` only
/// `None`, and a list or object equals no literal. Positional arguments and
/// keyword arguments not named are ignored.
#[derive(Debug, Clone, Default)]
pub struct MarkMatcher {
    /// The keyword arguments of each marker, by marker name.
    markers: HashMap<String, Vec<Map<String, Json>>>,
}

impl MarkMatcher {
    /// A matcher over an item's markers (pytest's `item.iter_markers()`,
    /// the item's own and its parents'): each marker's name and its keyword
    /// arguments as JSON values (literal Python values: `str`, `int`,
    /// `float`, `bool`, `None`, lists and dicts).
    pub fn new(markers: impl IntoIterator<Item = (String, Map<String, Json>)>) -> Self {
        let mut by_name: HashMap<String, Vec<Map<String, Json>>> = HashMap::new();
        for (name, kwargs) in markers {
            by_name.entry(name).or_default().push(kwargs);
        }
        Self { markers: by_name }
    }

    /// Whether the identifier `name`, called with `kwargs` when `Some`,
    /// matches (pytest's `MarkMatcher.__call__`).
    #[must_use]
    pub fn matches(&self, name: &str, kwargs: Option<&Kwargs>) -> bool {
        let Some(marks) = self.markers.get(name) else {
            return false;
        };
        let kwargs = kwargs.unwrap_or_default();
        marks.iter().any(|mark| {
            kwargs
                .iter()
                .all(|(key, value)| mark.get(key).is_some_and(|json| python_eq(json, value)))
        })
    }
}

/// Python's `json_value == value` for a JSON value loaded as Python would.
fn python_eq(json: &Json, value: &Value) -> bool {
    match value {
        Value::Str(s) => json.as_str() == Some(s.as_str()),
        Value::None => json.is_null(),
        Value::Bool(b) => int_eq(json, i64::from(*b)),
        Value::Int(i) => int_eq(json, *i),
        Value::BigInt(digits) => match json {
            Json::Number(n) => {
                if n.is_i64() {
                    // Every `BigInt` lies outside `i64`'s range.
                    false
                } else if let Some(u) = n.as_u64() {
                    u.to_string() == *digits
                } else {
                    n.as_f64().is_some_and(|f| {
                        f.is_finite() && f.fract() == 0.0 && format!("{f:.0}") == *digits
                    })
                }
            }
            _ => false,
        },
    }
}

/// Python's `json_value == i` for an integer `i`.
fn int_eq(json: &Json, i: i64) -> bool {
    match json {
        Json::Bool(b) => i64::from(*b) == i,
        Json::Number(n) => {
            if let Some(j) = n.as_i64() {
                j == i
            } else if n.is_u64() {
                false
            } else {
                n.as_f64().is_some_and(|f| float_eq_int(f, i))
            }
        }
        _ => false,
    }
}

/// Python's exact comparison of a float with an integer.
fn float_eq_int(f: f64, i: i64) -> bool {
    // 2^63 is exactly representable; every integral float in [-2^63, 2^63)
    // converts to `i64` without loss.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "range and integrality checked"
    )]
    let converted = f as i64;
    f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f) && converted == i
}

/// pytest's `KeywordMatcher`: `-k` semantics over a set of names (see
/// [`keyword_names`](crate::keyword_names)).
///
/// An identifier matches when it is a substring of one of the names, both
/// lowercased with Python's `str.lower()` (full Unicode lowercasing, which
/// Rust's `str::to_lowercase` implements too, up to the Unicode versions of
/// the two).
#[derive(Debug, Clone, Default)]
pub struct KeywordMatcher {
    /// The names, lowercased.
    names: Vec<String>,
}

/// pytest's `UsageError` for a `-k` expression that calls an identifier with
/// keyword arguments, raised only when the evaluation reaches the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("Keyword expressions do not support call parameters.")]
pub struct KeywordCallError;

impl KeywordMatcher {
    /// A matcher over an item's keyword names.
    pub fn new(names: impl IntoIterator<Item = String>) -> Self {
        let mut names: Vec<String> = names.into_iter().map(|name| name.to_lowercase()).collect();
        names.sort_unstable();
        names.dedup();
        Self { names }
    }

    /// Whether `subname` matches (pytest's `KeywordMatcher.__call__`); an
    /// error for a call with keyword arguments, as in pytest.
    pub fn matches(
        &self,
        subname: &str,
        kwargs: Option<&Kwargs>,
    ) -> Result<bool, KeywordCallError> {
        if kwargs.is_some_and(|kwargs| !kwargs.is_empty()) {
            return Err(KeywordCallError);
        }
        let subname = subname.to_lowercase();
        Ok(self.names.iter().any(|name| name.contains(&subname)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Expression;
    use serde_json::json;

    fn marks(list: &[(&str, Json)]) -> MarkMatcher {
        MarkMatcher::new(list.iter().map(|(name, kwargs)| {
            let Json::Object(map) = kwargs.clone() else {
                panic!("kwargs must be an object")
            };
            ((*name).to_owned(), map)
        }))
    }

    fn m(expr: &str, matcher: &MarkMatcher) -> bool {
        Expression::parse(expr)
            .unwrap()
            .evaluate(&mut |name, kwargs| matcher.matches(name, kwargs))
    }

    #[test]
    fn bare_names_match_exactly() {
        let matcher = marks(&[("slow", json!({})), ("device", json!({"serial": "123"}))]);
        assert!(m("slow", &matcher));
        assert!(m("device", &matcher));
        assert!(!m("Slow", &matcher));
        assert!(!m("slo", &matcher));
        assert!(m("not fast and slow", &matcher));
    }

    #[test]
    fn kwargs_compare_like_python() {
        let matcher = marks(&[
            (
                "device",
                json!({"serial": "123", "n": 1, "f": 1.0, "b": true, "z": null}),
            ),
            (
                "device",
                json!({"serial": "456", "big": 1e20, "u": u64::MAX, "l": [1]}),
            ),
        ]);
        assert!(m("device(serial='123')", &matcher));
        assert!(m("device(serial=\"456\")", &matcher));
        assert!(!m("device(serial=123)", &matcher));
        assert!(!m(
            "device(serial='123', big=100000000000000000000)",
            &matcher
        ));
        assert!(m(
            "device(serial='456', big=100000000000000000000)",
            &matcher
        ));
        assert!(m("device(u=18446744073709551615)", &matcher));
        assert!(m("device(n=True)", &matcher));
        assert!(m("device(n=1, f=1, b=1, z=None)", &matcher));
        assert!(m("device(f=True, b=True)", &matcher));
        assert!(!m("device(n=False)", &matcher));
        assert!(!m("device(z=False)", &matcher));
        assert!(!m("device(missing=None)", &matcher));
        assert!(!m("device(l=1)", &matcher));
        assert!(!m("other(n=1)", &matcher));
    }

    #[test]
    fn floats_compare_exactly_with_integers() {
        assert!(float_eq_int(9_007_199_254_740_992.0, 9_007_199_254_740_992));
        assert!(!float_eq_int(
            9_007_199_254_740_992.0,
            9_007_199_254_740_993
        ));
        assert!(float_eq_int(-9_223_372_036_854_775_808.0, i64::MIN));
        assert!(!float_eq_int(9_223_372_036_854_775_808.0, i64::MAX));
        assert!(!float_eq_int(1.5, 1));
        assert!(float_eq_int(-0.0, 0));
    }

    #[test]
    fn keywords_match_case_insensitive_substrings() {
        let matcher = KeywordMatcher::new(["test_Foo[1-2]".to_owned(), "TestBar".to_owned()]);
        assert_eq!(matcher.matches("foo", None), Ok(true));
        assert_eq!(matcher.matches("[1-", None), Ok(true));
        assert_eq!(matcher.matches("TESTBAR", None), Ok(true));
        assert_eq!(matcher.matches("baz", None), Ok(false));
        let kwargs = [("x".to_owned(), Value::Int(1))];
        assert_eq!(matcher.matches("foo", Some(&kwargs)), Err(KeywordCallError));
        assert_eq!(
            KeywordCallError.to_string(),
            "Keyword expressions do not support call parameters."
        );
    }

    #[test]
    fn keyword_call_errors_only_when_reached() {
        let matcher = KeywordMatcher::new(["test_a".to_owned()]);
        let run = |expr: &str| {
            Expression::parse(expr)
                .unwrap()
                .try_evaluate(|name, kwargs| matcher.matches(name, kwargs))
        };
        assert_eq!(run("test or a(x=1)"), Ok(true));
        assert_eq!(run("nomatch and a(x=1)"), Ok(false));
        assert_eq!(run("a(x=1)"), Err(KeywordCallError));
    }

    #[test]
    fn keywords_lowercase_like_python() {
        let matcher = KeywordMatcher::new(["ΣΑΣ".to_owned(), "İx".to_owned()]);
        assert_eq!(matcher.matches("ας", None), Ok(true));
        assert_eq!(matcher.matches("i̇x", None), Ok(true));
    }
}
