//! Every error of pytest's expression parser, with the column and message
//! pytest 9.2 printed for it (`python -m pytest --co -q -m EXPR`, copied from
//! its output; the lines without `ERROR: ` are pytest's `INTERNALERROR>`
//! crashes).

use proctor_expr::{Expression, ParseErrorKind};

/// (expression passed to `-m`, what pytest printed after `ERROR: `).
const PYTEST_ERRORS: &[(&str, &str)] = &[
    ("a and", "Wrong expression passed to '-m': a and: at column 6: expected not OR left parenthesis OR identifier; got end of input"),
    ("a or", "Wrong expression passed to '-m': a or: at column 5: expected not OR left parenthesis OR identifier; got end of input"),
    ("not", "Wrong expression passed to '-m': not: at column 4: expected not OR left parenthesis OR identifier; got end of input"),
    ("(", "Wrong expression passed to '-m': (: at column 2: expected not OR left parenthesis OR identifier; got end of input"),
    ("(a", "Wrong expression passed to '-m': (a: at column 3: expected right parenthesis; got end of input"),
    (")", "Wrong expression passed to '-m': ): at column 1: expected not OR left parenthesis OR identifier; got right parenthesis"),
    ("a)", "Wrong expression passed to '-m': a): at column 2: expected end of input; got right parenthesis"),
    ("a b", "Wrong expression passed to '-m': a b: at column 3: expected end of input; got identifier"),
    ("a b $", "Wrong expression passed to '-m': a b $: at column 3: expected end of input; got identifier"),
    ("a $", "Wrong expression passed to '-m': a $: at column 3: unexpected character \"$\""),
    ("$", "Wrong expression passed to '-m': $: at column 1: unexpected character \"$\""),
    ("a && b", "Wrong expression passed to '-m': a && b: at column 3: unexpected character \"&\""),
    ("'a'", "Wrong expression passed to '-m': 'a': at column 1: expected not OR left parenthesis OR identifier; got string literal"),
    ("\"a\"", "Wrong expression passed to '-m': \"a\": at column 1: expected not OR left parenthesis OR identifier; got string literal"),
    ("a = b", "Wrong expression passed to '-m': a = b: at column 3: expected end of input; got ="),
    ("a, b", "Wrong expression passed to '-m': a, b: at column 2: expected end of input; got ,"),
    ("a(", "Wrong expression passed to '-m': a(: at column 3: expected identifier; got end of input"),
    ("a()", "Wrong expression passed to '-m': a(): at column 3: expected identifier; got right parenthesis"),
    ("a(x)", "Wrong expression passed to '-m': a(x): at column 4: expected =; got right parenthesis"),
    ("a(x=)", "Wrong expression passed to '-m': a(x=): at column 5: expected identifier; got right parenthesis"),
    ("a(x=1", "Wrong expression passed to '-m': a(x=1: at column 6: expected right parenthesis; got end of input"),
    ("a(x=1,)", "Wrong expression passed to '-m': a(x=1,): at column 7: expected identifier; got right parenthesis"),
    ("a(x=1 y=2)", "Wrong expression passed to '-m': a(x=1 y=2): at column 7: expected right parenthesis; got identifier"),
    ("a(x=1, y)", "Wrong expression passed to '-m': a(x=1, y): at column 9: expected =; got right parenthesis"),
    ("a(=1)", "Wrong expression passed to '-m': a(=1): at column 3: expected identifier; got ="),
    ("a(1=1)", "Wrong expression passed to '-m': a(1=1): at column 3: not a valid python identifier 1"),
    ("a(x-y=1)", "Wrong expression passed to '-m': a(x-y=1): at column 3: not a valid python identifier x-y"),
    ("a(x.y=1)", "Wrong expression passed to '-m': a(x.y=1): at column 3: not a valid python identifier x.y"),
    ("a(class=1)", "Wrong expression passed to '-m': a(class=1): at column 3: unexpected reserved python keyword `class`"),
    ("a(True=1)", "Wrong expression passed to '-m': a(True=1): at column 3: unexpected reserved python keyword `True`"),
    ("a(None=1)", "Wrong expression passed to '-m': a(None=1): at column 3: unexpected reserved python keyword `None`"),
    ("a(and=1)", "Wrong expression passed to '-m': a(and=1): at column 3: expected identifier; got and"),
    ("a(x=1.5)", "Wrong expression passed to '-m': a(x=1.5): at column 5: unexpected character/s \"1.5\""),
    ("a(x=1e3)", "Wrong expression passed to '-m': a(x=1e3): at column 5: unexpected character/s \"1e3\""),
    ("a(x=-)", "Wrong expression passed to '-m': a(x=-): at column 5: unexpected character/s \"-\""),
    ("a(x=--1)", "Wrong expression passed to '-m': a(x=--1): at column 5: unexpected character/s \"--1\""),
    ("a(x=+1)", "Wrong expression passed to '-m': a(x=+1): at column 5: unexpected character/s \"+1\""),
    ("a(x=abc)", "Wrong expression passed to '-m': a(x=abc): at column 5: unexpected character/s \"abc\""),
    ("a(x=true)", "Wrong expression passed to '-m': a(x=true): at column 5: unexpected character/s \"true\""),
    ("a(x='abc)", "Wrong expression passed to '-m': a(x='abc): at column 5: closing quote \"'\" is missing"),
    ("a(x=\"abc)", "Wrong expression passed to '-m': a(x=\"abc): at column 5: closing quote \"\"\" is missing"),
    ("a(x='a\\b')", "Wrong expression passed to '-m': a(x='a\\b'): at column 7: escaping with \"\\\" not supported in marker expression"),
    ("a(x='ab'c')", "Wrong expression passed to '-m': a(x='ab'c'): at column 9: expected right parenthesis; got identifier"),
    ("a(x=(1))", "Wrong expression passed to '-m': a(x=(1)): at column 5: expected identifier; got left parenthesis"),
    ("a(x=1, x=2)", "Wrong expression passed to '-m': None: at column 1: keyword argument repeated: x"),
    ("a(x=1, y=2, x=3)", "Wrong expression passed to '-m': None: at column 1: keyword argument repeated: x"),
    ("a(__debug__=1)", "Wrong expression passed to '-m': None: at column 1: cannot assign to __debug__"),
    ("a(x=1) or b(__debug__=2, y=1, y=2)", "Wrong expression passed to '-m': None: at column 1: cannot assign to __debug__"),
    ("a(x=1, x=2) or (", "Wrong expression passed to '-m': a(x=1, x=2) or (: at column 17: expected not OR left parenthesis OR identifier; got end of input"),
    ("a(x=²)", "ValueError: invalid literal for int() with base 10: '²'"),
    ("a(x=-²)", "ValueError: invalid literal for int() with base 10: '-²'"),
    ("é and $", "Wrong expression passed to '-m': é and $: at column 7: unexpected character \"$\""),
    ("ééé(x=1.5)", "Wrong expression passed to '-m': ééé(x=1.5): at column 7: unexpected character/s \"1.5\""),
    ("a\tand\t$", "Wrong expression passed to '-m': a\tand\t$: at column 7: unexpected character \"$\""),
    ("a or not", "Wrong expression passed to '-m': a or not: at column 9: expected not OR left parenthesis OR identifier; got end of input"),
    ("not not", "Wrong expression passed to '-m': not not: at column 8: expected not OR left parenthesis OR identifier; got end of input"),
    ("a and and b", "Wrong expression passed to '-m': a and and b: at column 7: expected not OR left parenthesis OR identifier; got and"),
    ("a not b", "Wrong expression passed to '-m': a not b: at column 3: expected end of input; got not"),
    ("or", "Wrong expression passed to '-m': or: at column 1: expected not OR left parenthesis OR identifier; got or"),
    ("and a", "Wrong expression passed to '-m': and a: at column 1: expected not OR left parenthesis OR identifier; got and"),
    ("a(x=1)(y=2)", "Wrong expression passed to '-m': a(x=1)(y=2): at column 7: expected end of input; got left parenthesis"),
    ("'unterminated", "Wrong expression passed to '-m': 'unterminated: at column 1: closing quote \"'\" is missing"),
    ("\"unterminated", "Wrong expression passed to '-m': \"unterminated: at column 1: closing quote \"\"\" is missing"),
    ("a ! b", "Wrong expression passed to '-m': a ! b: at column 3: unexpected character \"!\""),
];

#[test]
fn errors_match_pytest_output() {
    let mut failures = Vec::new();
    for &(input, expected) in PYTEST_ERRORS {
        let actual = match Expression::parse(input) {
            Ok(expr) => format!("parsed as {expr}"),
            Err(error) => error.pytest_message('m', input),
        };
        if actual != expected {
            failures.push(format!(
                "{input:?}\n  pytest:  {expected}\n  proctor: {actual}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn error_kinds_and_offsets() {
    let error = Expression::parse("é and $").unwrap_err();
    assert_eq!((error.column, error.offset), (7, 7));
    assert_eq!(error.kind, ParseErrorKind::Syntax);
    assert_eq!(error.to_string(), "at column 7: unexpected character \"$\"");

    let error = Expression::parse("a(x=1, x=2)").unwrap_err();
    assert_eq!((error.column, error.offset), (1, 0));
    assert_eq!(error.kind, ParseErrorKind::Compile);

    let error = Expression::parse("a(x=²)").unwrap_err();
    assert_eq!(
        error.kind,
        ParseErrorKind::Crash {
            exception: "ValueError"
        }
    );
    assert_eq!(error.column, 5);
}

#[test]
fn the_lexer_is_lazy() {
    // pytest only lexes one token ahead: the parser fails on `b` before the
    // scanner reaches the bad character or the unterminated string.
    assert_eq!(
        Expression::parse("a b $").unwrap_err().message,
        "expected end of input; got identifier"
    );
    assert_eq!(
        Expression::parse("a) 'unterminated").unwrap_err().message,
        "expected end of input; got right parenthesis"
    );
    // A syntax error anywhere wins over a compile error earlier on.
    assert_eq!(
        Expression::parse("a(x=1, x=2) or (").unwrap_err().kind,
        ParseErrorKind::Syntax
    );
}

#[test]
fn huge_integers_crash_pytest() {
    let input = format!("a(x={})", "1".repeat(4301));
    let error = Expression::parse(&input).unwrap_err();
    assert_eq!(
        error.pytest_message('m', &input),
        "ValueError: Exceeds the limit (4300 digits) for integer string conversion: \
         value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"
    );
    assert!(Expression::parse(&format!("a(x={})", "1".repeat(4300))).is_ok());
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let limit = proctor_expr::MAX_NESTING;
    let recursion = ParseErrorKind::Crash {
        exception: "RecursionError",
    };
    for (ok, too_deep) in [
        (
            format!("{}a{}", "(".repeat(limit), ")".repeat(limit)),
            format!("{}a{}", "(".repeat(limit + 1), ")".repeat(limit + 1)),
        ),
        (
            format!("{}a", "not ".repeat(limit - 1)),
            format!("{}a", "not ".repeat(limit)),
        ),
        (
            vec!["a"; limit].join(" or "),
            vec!["a"; limit + 1].join(" or "),
        ),
        (
            format!("{}a{}", "not (".repeat(limit - 1), ")".repeat(limit - 1)),
            format!("{}a{}", "not (".repeat(limit), ")".repeat(limit)),
        ),
    ] {
        match Expression::parse(&ok) {
            Ok(_) => {}
            Err(error) => assert_ne!(error.kind, recursion, "{error}"),
        }
        assert_eq!(Expression::parse(&too_deep).unwrap_err().kind, recursion);
    }
    let deep = Expression::parse(&vec!["a"; limit].join(" and ")).unwrap();
    assert!(deep.evaluate(&mut |_, _| true));
    assert_eq!(Expression::parse(&deep.to_string()).unwrap(), deep);
}
