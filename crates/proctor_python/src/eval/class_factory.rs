//! Functions that make a class and say, by their documented contract, what
//! it is called: `types.new_class(name, ...)`, `collections.namedtuple`,
//! `dataclasses.make_dataclass`, `attr.make_class(name, ...)`,
//! `attr.cmp_using(class_name=...)`, and the class decorators that return
//! the class they are given (`functools.total_ordering`).
//!
//! pytest's id for a class is its `__name__`, so this is all an id needs of
//! such a class: the name is the argument the contract names, read from
//! the call, never from the code that builds the class. The functions are
//! known by their qualified name, whether the project's own source defines
//! them (`attr._make.make_class`, read from a src layout) or they are
//! outside the suite (`attr.make_class`). A name argument that is not a
//! known string leaves the value unknown, with the reason.

use crate::value::PyValue;

use super::expr::Args;

/// Where a factory takes the new class's name from.
enum NameFrom {
    /// A positional index or a keyword, with the default when neither is
    /// given (`None`: the argument is required).
    Argument {
        index: Option<usize>,
        keyword: &'static str,
        default: Option<&'static str>,
    },
    /// The class it is given (a decorator that returns its argument).
    Identity,
}

/// The factories, by every qualified name they are imported under.
const FACTORIES: &[(&[&str], NameFrom)] = &[
    (
        &["types.new_class"],
        NameFrom::Argument {
            index: Some(0),
            keyword: "name",
            default: None,
        },
    ),
    (
        &["collections.namedtuple"],
        NameFrom::Argument {
            index: Some(0),
            keyword: "typename",
            default: None,
        },
    ),
    (
        &["dataclasses.make_dataclass"],
        NameFrom::Argument {
            index: Some(0),
            keyword: "cls_name",
            default: None,
        },
    ),
    // attrs: "A quick way to create a new class called *name*".
    (
        &[
            "attr.make_class",
            "attrs.make_class",
            "attr._make.make_class",
        ],
        NameFrom::Argument {
            index: Some(0),
            keyword: "name",
            default: None,
        },
    ),
    // attrs: "class_name (str | None): Name of class. Defaults to
    // 'Comparable'." It is the seventh parameter.
    (
        &["attr.cmp_using", "attrs.cmp_using", "attr._cmp.cmp_using"],
        NameFrom::Argument {
            index: Some(6),
            keyword: "class_name",
            default: Some("Comparable"),
        },
    ),
    (&["functools.total_ordering"], NameFrom::Identity),
];

/// The class a call of the factory `path` returns, as its `__name__`
/// (a [`PyValue::Named`]); `None` when `path` is no known factory.
pub(super) fn class_factory_call(path: &str, args: &Args) -> Option<PyValue> {
    let (_, from) = FACTORIES.iter().find(|(paths, _)| paths.contains(&path))?;
    let argument = match from {
        NameFrom::Identity => {
            return Some(match args.positional.as_slice() {
                [class @ PyValue::Named(_)] if args.keywords.is_empty() => class.clone(),
                [PyValue::Unknown(reason)] => PyValue::Unknown(reason.clone()),
                _ => PyValue::Unknown(format!("the result of `{path}(...)` with these arguments")),
            })
        }
        NameFrom::Argument {
            index,
            keyword,
            default,
        } => args
            .keywords
            .iter()
            .find(|(k, _)| k == keyword)
            .map(|(_, v)| v.clone())
            .or_else(|| index.and_then(|i| args.positional.get(i).cloned()))
            .or_else(|| default.map(PyValue::str)),
    };
    Some(match argument {
        Some(PyValue::Str(name)) => PyValue::Named(name),
        Some(PyValue::Unknown(reason)) => PyValue::Unknown(format!(
            "the name of the class `{path}(...)` makes: {reason}"
        )),
        _ => PyValue::Unknown(format!(
            "the name of the class `{path}(...)` makes is not a known string"
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(positional: Vec<PyValue>, keywords: Vec<(&str, PyValue)>) -> Args {
        Args {
            positional,
            keywords: keywords
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        }
    }

    fn s(text: &str) -> PyValue {
        PyValue::str(text)
    }

    #[test]
    fn the_name_comes_from_the_argument_the_contract_names() {
        let named = |n: &str| Some(PyValue::Named(n.into()));
        assert_eq!(
            class_factory_call("attr._make.make_class", &args(vec![s("C"), s("x")], vec![])),
            named("C")
        );
        assert_eq!(
            class_factory_call("attr.make_class", &args(vec![], vec![("name", s("D"))])),
            named("D")
        );
        assert_eq!(
            class_factory_call(
                "attr._cmp.cmp_using",
                &args(vec![], vec![("class_name", s("E"))])
            ),
            named("E")
        );
        assert_eq!(
            class_factory_call(
                "attrs.cmp_using",
                &args(vec![], vec![("eq", PyValue::Object)])
            ),
            named("Comparable")
        );
        assert_eq!(
            class_factory_call(
                "collections.namedtuple",
                &args(vec![s("P"), s("x y")], vec![])
            ),
            named("P")
        );
        assert_eq!(
            class_factory_call(
                "functools.total_ordering",
                &args(vec![PyValue::Named("K".into())], vec![])
            ),
            named("K")
        );
    }

    #[test]
    fn an_unknown_name_stays_unknown() {
        assert!(matches!(
            class_factory_call("types.new_class", &args(vec![PyValue::Object], vec![])),
            Some(PyValue::Unknown(_))
        ));
        assert!(matches!(
            class_factory_call("attr.make_class", &args(vec![], vec![])),
            Some(PyValue::Unknown(_))
        ));
        assert!(matches!(
            class_factory_call(
                "functools.total_ordering",
                &args(vec![PyValue::Object], vec![])
            ),
            Some(PyValue::Unknown(_))
        ));
        assert_eq!(class_factory_call("attr.ib", &args(vec![], vec![])), None);
    }
}
