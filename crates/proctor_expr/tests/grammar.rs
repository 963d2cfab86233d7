//! The grammar rules of pytest's expressions, one by one, and how they
//! evaluate.

use proctor_expr::{Expression, Value};

/// Evaluates `input` with a matcher that answers true for the names in
/// `truthy` (bare or called), recording the calls as `name` or
/// `name(k=v, ...)`.
fn run(input: &str, truthy: &[&str]) -> (bool, Vec<String>) {
    let expr = Expression::parse(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
    let mut calls = Vec::new();
    let result = expr.evaluate(&mut |name, kwargs| {
        calls.push(match kwargs {
            None => name.to_owned(),
            Some(kwargs) => {
                let args: Vec<String> = kwargs.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{name}({})", args.join(", "))
            }
        });
        truthy.contains(&name)
    });
    (result, calls)
}

#[test]
fn empty_expression_is_false() {
    for input in ["", " ", "\t \t"] {
        assert_eq!(run(input, &["a"]), (false, vec![]));
        assert!(Expression::parse(input).unwrap().is_empty());
    }
}

#[test]
fn identifiers_use_pytest_characters() {
    for name in [
        "a",
        "test_x",
        "TestA::test_b[1-2]",
        "tests/sub/test_x.py",
        "a+b.c:d",
        r"back\slash",
        "[",
        "-",
        "123",
        "True",
        "None",
        "été",
        "中文",
        "٣²",
        "orx",
        "andy",
        "notable",
        "OR",
        "Not",
    ] {
        let expr = Expression::parse(name).unwrap();
        assert_eq!(expr.identifiers(), [name]);
        assert_eq!(expr.to_string(), name);
        assert_eq!(run(name, &[name]), (true, vec![name.to_owned()]));
    }
}

#[test]
fn operators_need_no_spaces_around_parentheses() {
    assert_eq!(
        Expression::parse("not(a)or(b)").unwrap().to_string(),
        "not a or b"
    );
    // Without a separator, `aor` is one identifier.
    assert_eq!(
        Expression::parse("(a)or(b)").unwrap().identifiers(),
        ["a", "b"]
    );
    assert!(Expression::parse("aor b").is_err());
}

#[test]
fn boolean_operators_and_precedence() {
    assert!(run("a or b", &["b"]).0);
    assert!(!run("a and b", &["b"]).0);
    assert!(run("not a", &[]).0);
    assert!(run("not not a", &["a"]).0);
    // `not` binds tighter than `and`, which binds tighter than `or`.
    assert!(!run("not a and b", &["a", "b"]).0);
    assert!(run("a or b and c", &["a"]).0);
    assert!(!run("(a or b) and c", &["a"]).0);
    assert!(run("not (a or b)", &[]).0);
}

#[test]
fn evaluation_short_circuits() {
    assert_eq!(run("a or b", &["a"]), (true, vec!["a".to_owned()]));
    assert_eq!(run("a and b", &[]), (false, vec!["a".to_owned()]));
    assert_eq!(
        run("a or b and c", &[]),
        (false, vec!["a".to_owned(), "b".to_owned()])
    );
    assert_eq!(
        run("a and b or c", &["c"]),
        (true, vec!["a".to_owned(), "c".to_owned()])
    );
}

#[test]
fn keyword_arguments() {
    let (_, calls) = run(
        "device(serial='123', port=\"a b\", n=-5, ok=True, no=False, none=None, big=99999999999999999999)",
        &[],
    );
    assert_eq!(
        calls,
        ["device(serial='123', port='a b', n=-5, ok=True, no=False, none=None, big=99999999999999999999)"]
    );
    let expr = Expression::parse("m(s=\"it's\", t='say \"hi\"', e='')").unwrap();
    let mut seen = Vec::new();
    expr.evaluate(&mut |_, kwargs| {
        seen = kwargs.unwrap().to_vec();
        true
    });
    assert_eq!(
        seen,
        [
            ("s".to_owned(), Value::Str("it's".to_owned())),
            ("t".to_owned(), Value::Str("say \"hi\"".to_owned())),
            ("e".to_owned(), Value::Str(String::new())),
        ]
    );
    assert_eq!(expr.to_string(), "m(s=\"it's\", t='say \"hi\"', e='')");
}

#[test]
fn integers_read_like_python_int() {
    let value = |input: &str| {
        let mut out = None;
        Expression::parse(&format!("a(x={input})"))
            .unwrap()
            .evaluate(&mut |_, kwargs| {
                out = Some(kwargs.unwrap()[0].1.clone());
                true
            });
        out.unwrap()
    };
    assert_eq!(value("0"), Value::Int(0));
    assert_eq!(value("-0"), Value::Int(0));
    assert_eq!(value("0012"), Value::Int(12));
    assert_eq!(value("٣٤"), Value::Int(34));
    assert_eq!(value("9223372036854775807"), Value::Int(i64::MAX));
    assert_eq!(value("-9223372036854775808"), Value::Int(i64::MIN));
    assert_eq!(
        value("-9223372036854775809"),
        Value::BigInt("-9223372036854775809".to_owned())
    );
}

#[test]
fn keyword_names_may_be_soft_keywords() {
    // `match`, `case`, `type` and `_` are identifiers, not keywords.
    assert!(Expression::parse("a(match=1, case=2, type=3, _=4)").is_ok());
    assert!(Expression::parse("a(été=1)").is_ok());
}

#[test]
fn identifiers_in_order_without_repeats() {
    let expr = Expression::parse("b or a(x=1) and not (b or c(y='z'))").unwrap();
    assert_eq!(expr.identifiers(), ["b", "a", "c"]);
}
