//! Parametrization ids exactly as pytest's `IdMaker` builds them.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use std::fmt::Write as _;

use crate::value::{push_ascii_escaped_bytes, push_ascii_escaped_str, PyValue};

/// How ids are affected by the pytest ini options that change them.
#[derive(Debug, Clone, Default)]
pub struct IdOptions {
    /// `disable_test_id_escaping_and_forfeit_all_rights_to_community_support`.
    pub disable_escaping: bool,
    /// `parametrize_long_str_id_strategy` (`short`, `legacy`, `sha256`,
    /// `disallow`); `None` means the default, `short`.
    pub long_str_strategy: Option<String>,
}

/// An explicit id given by `pytest.param(id=...)` or `ids=[...]`.
pub(crate) enum ExplicitId {
    /// `pytest.param(id="x")`: a string, escaped.
    Param(String),
    /// An entry of `ids=[...]` evaluated.
    Listed(PyValue),
    /// What an `ids=` callable returned for each value, as its id part;
    /// `None` where the value's own id applies.
    PerValue(Vec<Option<String>>),
}

/// The id part an `ids=` callable's result gives (`_idval_from_function`):
/// `None` for a type pytest has no id for, so the value's own id applies.
pub(crate) fn function_id(result: &PyValue, options: &IdOptions) -> Result<Option<String>, String> {
    value_id(result, options)
}

/// One parameter set to name.
pub(crate) struct IdInput<'v> {
    pub(crate) explicit: Option<ExplicitId>,
    pub(crate) values: &'v [PyValue],
}

/// Builds the ids of one `parametrize` call, or explains why they cannot be
/// known statically.
pub(crate) fn make_ids(
    argnames: &[String],
    sets: &[IdInput<'_>],
    options: &IdOptions,
) -> Result<Vec<String>, String> {
    let mut ids = Vec::with_capacity(sets.len());
    for (idx, set) in sets.iter().enumerate() {
        let id = match &set.explicit {
            Some(ExplicitId::Param(text)) => escape_str(text, options),
            Some(ExplicitId::Listed(value)) => value_id(value, options)?
                .ok_or_else(|| format!("ids[{idx}] is not a type pytest accepts as an id"))?,
            // The parts written straight into the id, not one string each:
            // an `ids=` callable's where it gave one, else the value's own.
            Some(ExplicitId::PerValue(_)) | None => {
                let given = match &set.explicit {
                    Some(ExplicitId::PerValue(given)) => Some(given.as_slice()),
                    _ => None,
                };
                let parts = given.map_or(usize::MAX, <[_]>::len);
                // Room for most ids at once (a version pair and an operator).
                let mut id = String::with_capacity(32);
                for (i, (value, argname)) in set.values.iter().zip(argnames).take(parts).enumerate()
                {
                    if i > 0 {
                        id.push('-');
                    }
                    match given.and_then(|given| given[i].as_deref()) {
                        Some(part) => id.push_str(part),
                        None => push_auto_id(&mut id, value, argname, idx, options)?,
                    }
                }
                id
            }
        };
        ids.push(id);
    }
    Ok(make_unique(ids))
}

/// Whether [`make_ids`] would build the ids of these sets, without
/// building them: the same error for the same first set it fails on. For
/// callers that need to know whether the ids are static but not the ids
/// themselves (test definitions).
pub(crate) fn check_ids(sets: &[IdInput<'_>], options: &IdOptions) -> Result<(), String> {
    for (idx, set) in sets.iter().enumerate() {
        match &set.explicit {
            Some(ExplicitId::Param(_) | ExplicitId::PerValue(_)) => {}
            Some(ExplicitId::Listed(value)) => match value {
                PyValue::Unknown(reason) => return Err(reason.clone()),
                PyValue::Container { .. }
                | PyValue::Object
                | PyValue::Param(_)
                | PyValue::Mark(_) => {
                    return Err(format!("ids[{idx}] is not a type pytest accepts as an id"))
                }
                _ => {}
            },
            None => {
                for value in set.values {
                    if is_too_long(value) {
                        match options.long_str_strategy.as_deref().unwrap_or("short") {
                            "legacy" => {}
                            "short" => continue,
                            other => return Err(format!("parametrize_long_str_id_strategy = {other} is not computed statically")),
                        }
                    }
                    if let PyValue::Unknown(reason) = value {
                        return Err(reason.clone());
                    }
                }
            }
        }
    }
    Ok(())
}

fn escape_str(text: &str, options: &IdOptions) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped_str(&mut out, text, options);
    out
}

fn push_escaped_str(out: &mut String, text: &str, options: &IdOptions) {
    if options.disable_escaping {
        out.push_str(text);
    } else {
        push_ascii_escaped_str(out, text);
    }
}

/// `_idval_from_value`: `Ok(None)` when the type has no id of its own.
fn value_id(value: &PyValue, options: &IdOptions) -> Result<Option<String>, String> {
    let mut out = String::new();
    Ok(push_value_id(&mut out, value, options)?.then_some(out))
}

/// [`value_id`] appended to `out`: `Ok(false)` (nothing written) when the
/// type has no id of its own.
fn push_value_id(out: &mut String, value: &PyValue, options: &IdOptions) -> Result<bool, String> {
    match value {
        PyValue::Str(s) => push_escaped_str(out, s, options),
        PyValue::Bytes(b) => {
            if options.disable_escaping {
                out.push_str(&String::from_utf8_lossy(b));
            } else {
                push_ascii_escaped_bytes(out, b);
            }
        }
        PyValue::Pattern(p) => push_ascii_escaped_str(out, p),
        PyValue::EnumMember { display } => out.push_str(display),
        PyValue::Named(name) | PyValue::Function { name, .. } => out.push_str(name),
        PyValue::Container { .. }
        | PyValue::Object
        | PyValue::Path(_)
        | PyValue::Param(_)
        | PyValue::Mark(_) => return Ok(false),
        PyValue::Unknown(reason) => return Err(reason.clone()),
        scalar => match scalar.scalar_str() {
            Some(text) => out.push_str(&text),
            None => return Ok(false),
        },
    }
    Ok(true)
}

/// `_idval`: the id of one value of an auto-named parameter set, appended
/// to `out`.
fn push_auto_id(
    out: &mut String,
    value: &PyValue,
    argname: &str,
    idx: usize,
    options: &IdOptions,
) -> Result<(), String> {
    if is_too_long(value) {
        match options.long_str_strategy.as_deref().unwrap_or("short") {
            "legacy" => {}
            "short" => {
                let _ = write!(out, "{argname}{idx}");
                return Ok(());
            }
            other => {
                return Err(format!(
                    "parametrize_long_str_id_strategy = {other} is not computed statically"
                ))
            }
        }
    }
    if !push_value_id(out, value, options)? {
        let _ = write!(out, "{argname}{idx}");
    }
    Ok(())
}

/// A string or bytes value too long for pytest to use as its own id.
fn is_too_long(value: &PyValue) -> bool {
    match value {
        // No more characters than bytes: most strings are not counted.
        PyValue::Str(s) => s.len() > 100 && s.chars().count() > 100,
        PyValue::Bytes(b) => b.len() > 100,
        _ => false,
    }
}

/// `make_unique_parameterset_ids`: suffix duplicates with a counter, with
/// an `_` when the id ends in a digit.
fn make_unique(mut ids: Vec<String>) -> Vec<String> {
    // Counted by reference: the usual all-distinct case copies no id.
    let counts = {
        let mut counts: HashMap<&str, usize> = HashMap::default();
        counts.reserve(ids.len());
        for id in &ids {
            *counts.entry(id.as_str()).or_default() += 1;
        }
        if counts.values().all(|&c| c == 1) {
            return ids;
        }
        counts
            .into_iter()
            .filter(|&(_, c)| c > 1)
            .map(|(id, c)| (id.to_owned(), c))
            .collect::<HashMap<String, usize>>()
    };
    let mut suffixes: HashMap<String, usize> = HashMap::default();
    for index in 0..ids.len() {
        let id = ids[index].clone();
        if counts.get(&id).copied().unwrap_or(0) <= 1 {
            continue;
        }
        let sep = if id
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_digit() || c.is_numeric())
        {
            "_"
        } else {
            ""
        };
        let mut new_id = format!("{id}{sep}{}", suffixes.get(&id).copied().unwrap_or(0));
        loop {
            let current: HashSet<&String> = ids.iter().collect();
            if !current.contains(&new_id) {
                break;
            }
            *suffixes.entry(id.clone()).or_default() += 1;
            new_id = format!("{id}{sep}{}", suffixes[&id]);
        }
        ids[index] = new_id;
        *suffixes.entry(id).or_default() += 1;
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_ids_fails_where_make_ids_fails() {
        let long = PyValue::str("x".repeat(101));
        let unknown = PyValue::Unknown("not literal".into());
        let values = [
            PyValue::Int("1".into()),
            long,
            unknown,
            PyValue::Object,
            PyValue::Container {
                kind: crate::value::ContainerKind::List,
                elements: Vec::new().into(),
            },
        ];
        let strategies = [None, Some("legacy"), Some("sha256")];
        let argnames = ["a".to_string()];
        for strategy in strategies {
            let options = IdOptions {
                disable_escaping: false,
                long_str_strategy: strategy.map(String::from),
            };
            for value in &values {
                let cases: [Option<ExplicitId>; 3] = [
                    None,
                    Some(ExplicitId::Listed(value.clone())),
                    Some(ExplicitId::Param("p".into())),
                ];
                for explicit in cases {
                    let sets = [IdInput {
                        explicit,
                        values: std::slice::from_ref(value),
                    }];
                    let built = make_ids(&argnames, &sets, &options).map(|_| ());
                    assert_eq!(check_ids(&sets, &options), built, "{value:?} {strategy:?}");
                }
            }
        }
    }

    #[test]
    fn parts_are_joined_in_place_like_pytest() {
        let options = IdOptions::default();
        let argnames = ["a", "b", "c"].map(String::from);
        let values = [
            PyValue::str("1.0\n\\é"),
            PyValue::Int("3".into()),
            PyValue::Object,
        ];
        let sets = [
            IdInput {
                explicit: None,
                values: &values,
            },
            IdInput {
                explicit: Some(ExplicitId::PerValue(vec![Some("x".into()), None, None])),
                values: &values,
            },
            IdInput {
                explicit: None,
                values: &values,
            },
        ];
        // As pytest names them: an object by its argname and index.
        assert_eq!(
            make_ids(&argnames, &sets, &options).unwrap(),
            ["1.0\\n\\\\\\xe9-3-c0", "x-3-c1", "1.0\\n\\\\\\xe9-3-c2"]
        );
    }

    #[test]
    fn duplicates_get_pytest_suffixes() {
        let ids = ["a", "a", "a1", "a1", ""].map(String::from).to_vec();
        assert_eq!(make_unique(ids), ["a0", "a2", "a1_0", "a1_1", ""]);
        let ids = ["", ""].map(String::from).to_vec();
        assert_eq!(make_unique(ids), ["0", "1"]);
    }
}
