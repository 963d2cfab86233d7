//! Differential tests against pytest's own code, run by `PROCTOR_TEST_PYTHON`
//! (which `scripts/test` sets to a virtualenv with the pinned pytest):
//!
//! - a few hundred random expressions (valid, invalid, with keyword
//!   arguments), each evaluated against random marker sets and keyword sets,
//!   sent in one batch to pytest's `Expression.compile(...).evaluate(...)`
//!   with its `MarkMatcher` and `KeywordMatcher`: the parse errors (column,
//!   message, kind), identifiers, results, `-k` usage errors and the order of
//!   matcher calls must be identical;
//! - the `-k` names of every item of a small suite, from
//!   `KeywordMatcher.from_item`, against [`keyword_names`], and the items a
//!   real `pytest --co -k ... -m ...` run selects;
//! - the generated Unicode tables against the interpreter's.
//!
//! Without `PROCTOR_TEST_PYTHON` the tests fail rather than pass silently.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use proctor_expr::{
    keyword_names, Expression, KeywordMatcher, Kwargs, MarkMatcher, ParseError, ParseErrorKind,
    Value,
};
use serde_json::{json, Map, Value as Json};

const SETUP_HINT: &str = "run the tests through scripts/test, which creates a virtualenv with \
the pinned pytest (tests/requirements.txt) and sets PROCTOR_TEST_PYTHON; or set \
PROCTOR_TEST_PYTHON to a Python that has that pytest installed";

/// The Python to run pytest's code with.
fn python() -> PathBuf {
    match std::env::var_os("PROCTOR_TEST_PYTHON") {
        Some(python) => PathBuf::from(python),
        None => panic!("PROCTOR_TEST_PYTHON is not set: {SETUP_HINT}"),
    }
}

/// Runs the Python with `args` and `stdin` (and `envs`, in `cwd`), returning
/// its stdout; it must succeed.
fn run_python(args: &[&str], stdin: &str, envs: &[(&str, &Path)], cwd: Option<&Path>) -> String {
    let python = python();
    let mut command = Command::new(&python);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in envs {
        command.env(key, value);
    }
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {SETUP_HINT}", python.display()));
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_owned();
    let writer = std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("python runs");
    writer
        .join()
        .expect("writer thread")
        .expect("stdin written");
    let stdout = String::from_utf8(output.stdout).expect("utf-8 output");
    assert!(
        output.status.success(),
        "{} failed ({}):\n{stdout}\n{}\n{SETUP_HINT}",
        python.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The pytest version `tests/requirements.txt` pins.
fn pinned_pytest() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/requirements.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .find_map(|line| line.trim().strip_prefix("pytest=="))
        .map(|version| version.trim().to_owned())
        .expect("tests/requirements.txt pins pytest")
}

/// A small deterministic generator (`SplitMix64`), so that a failure can be
/// reproduced; `PROCTOR_EXPR_SEED` picks another sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("small")
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T: ?Sized>(&mut self, items: &'a [&'a T]) -> &'a T {
        items[self.below(items.len())]
    }
}

const NAMES: &[&str] = &[
    "a",
    "b",
    "slow",
    "Slow",
    "device",
    "dev",
    "test_x",
    "x.y",
    "a[1]",
    "TestA::test_b[1-2]",
    "é",
    "ΣΑΣ",
    "ας",
    "1",
    "True",
    "None",
    "-",
    "İx",
    "STRASSE",
    "straße",
    "ẞ",
    "sub/dir",
];
const KWARG_NAMES: &[&str] = &["x", "serial", "n", "y", "é", "_"];
/// Keyword-argument names and values that markers often have, so that calls
/// match often enough to test the comparison of values.
const CORE_KWARG_NAMES: &[&str] = &["x", "n"];
const CORE_VALUES: &[&str] = &[
    "1",
    "0",
    "True",
    "False",
    "None",
    "'1'",
    "-5",
    "100000000000000000000",
    "18446744073709551615",
    "\"it's\"",
];
const BAD_KWARG_NAMES: &[&str] = &["class", "True", "x-y", "1", "__debug__", "None", "a.b"];
const VALUES: &[&str] = &[
    "'123'",
    "\"123\"",
    "123",
    "1",
    "0",
    "-5",
    "True",
    "False",
    "None",
    "''",
    "\"it's\"",
    "'a b'",
    "100000000000000000000",
    "18446744073709551615",
    "9223372036854775808",
    "-9223372036854775809",
    "٣",
    "007",
    "-0",
    "3",
    "7",
    "'٣'",
];
const BAD_VALUES: &[&str] = &[
    "1.5", "abc", "-", "²", "'a\\b'", "true", "+1", "1e3", "(1)", "'x",
];
const SOUP: &[&str] = &[
    "a", "b", "not", "and", "or", "(", ")", "=", ",", "'s'", "\"s\"", "'", "\"", "$", "\\", "x=1",
    "a(x=1)", "é", "²", "!", "&&", "1.5", "True", "slow", "a(", "x", "1",
];
const INSERTS: &[&str] = &[
    "(", ")", "'", "\"", "\\", "$", ",", "=", " ", "a", "²", "-", "é", "not ",
];
const MARK_NAMES: &[&str] = &[
    "a", "b", "device", "a", "b", "device", "dev", "é", "True", "1",
];
const KEYWORD_NAMES: &[&str] = &[
    "test_x.py",
    "TestA",
    "test_b[1-2]",
    "slow",
    "Device",
    "ΣΑΣ",
    "İx",
    "straße",
    "a",
    "B",
    "x.y",
    "tests",
    "1",
    "true",
    "SUB/DIR",
    "ß",
];

fn json_values() -> Vec<Json> {
    vec![
        json!("1"),
        json!(-5.0),
        json!(1),
        json!(true),
        json!(false),
        json!(0.0),
        json!(null),
        json!(1e20),
        json!(u64::MAX),
        json!("it's"),
        json!("123"),
        json!(123),
        json!(1),
        json!(1.0),
        json!(true),
        json!(false),
        json!(null),
        json!(0),
        json!(0.0),
        json!(-5),
        json!(-5.0),
        json!("a b"),
        json!([1]),
        json!({"k": 1}),
        json!(1e20),
        json!(u64::MAX),
        json!(9_223_372_036_854_775_808_u64),
        json!(1.5),
        json!(""),
        json!("it's"),
        json!("٣"),
        json!(3),
        json!(7),
    ]
}

fn blank(rng: &mut Rng) -> &'static str {
    ["", " ", " ", " ", "\t", "  "][rng.below(6)]
}

fn sep(rng: &mut Rng) -> &'static str {
    [" ", " ", " ", "\t", "  "][rng.below(5)]
}

fn call(rng: &mut Rng, out: &mut String) {
    out.push('(');
    let n = [1, 1, 1, 1, 1, 1, 1, 2, 2, 3][rng.below(10)];
    for i in 0..n {
        if i > 0 {
            out.push_str(blank(rng));
            out.push(',');
            out.push_str(blank(rng));
        }
        let name = match rng.below(20) {
            0 => rng.pick(BAD_KWARG_NAMES),
            1..=12 => rng.pick(CORE_KWARG_NAMES),
            _ => rng.pick(KWARG_NAMES),
        };
        let value = match rng.below(20) {
            0 => rng.pick(BAD_VALUES),
            1..=12 => rng.pick(CORE_VALUES),
            _ => rng.pick(VALUES),
        };
        write!(out, "{name}{}={}{value}", blank(rng), blank(rng)).expect("string");
    }
    out.push_str(blank(rng));
    out.push(')');
}

fn expression(rng: &mut Rng, depth: usize, out: &mut String) {
    let choice = if depth == 0 { 0 } else { rng.below(6) };
    match choice {
        0 | 1 => {
            if rng.chance(40) {
                out.push_str(rng.pick(MARK_NAMES));
                out.push_str(blank(rng));
                call(rng, out);
            } else {
                out.push_str(rng.pick(NAMES));
            }
        }
        2 => {
            out.push_str("not");
            out.push_str(sep(rng));
            expression(rng, depth - 1, out);
        }
        3 | 4 => {
            expression(rng, depth - 1, out);
            out.push_str(sep(rng));
            out.push_str(if choice == 3 { "and" } else { "or" });
            out.push_str(sep(rng));
            expression(rng, depth - 1, out);
        }
        _ => {
            out.push('(');
            out.push_str(blank(rng));
            expression(rng, depth - 1, out);
            out.push_str(blank(rng));
            out.push(')');
        }
    }
}

fn random_expression(rng: &mut Rng) -> String {
    let mut out = String::new();
    match rng.below(20) {
        // Token soup: mostly invalid.
        0..=5 => {
            for _ in 0..=rng.below(7) {
                out.push_str(rng.pick(SOUP));
                out.push_str(blank(rng));
            }
        }
        // A valid-looking expression with one character changed.
        6..=9 => {
            let depth = 1 + rng.below(3);
            expression(rng, depth, &mut out);
            let mut chars: Vec<char> = out.chars().collect();
            let at = rng.below(chars.len() + 1);
            if rng.chance(50) && at < chars.len() {
                chars.remove(at);
            } else {
                let insert: Vec<char> = rng.pick(INSERTS).chars().collect();
                chars.splice(at..at, insert);
            }
            out = chars.into_iter().collect();
        }
        // Valid-looking expressions.
        _ => {
            out.push_str(["", "", "", " ", "\t"][rng.below(5)]);
            let depth = rng.below(5);
            expression(rng, depth, &mut out);
            out.push_str(["", "", "", " "][rng.below(4)]);
        }
    }
    out
}

/// Random markers, named mostly after the identifiers of the expression so
/// that names and keyword arguments match often.
fn random_markers(
    rng: &mut Rng,
    idents: &[&str],
    values: &[Json],
) -> Vec<(String, Map<String, Json>)> {
    (0..rng.below(7))
        .map(|_| {
            let mut kwargs = Map::new();
            for _ in 0..rng.below(4) {
                let key = if rng.chance(80) {
                    rng.pick(CORE_KWARG_NAMES)
                } else {
                    rng.pick(KWARG_NAMES)
                };
                // The first values are the likeliest to match.
                let value = if rng.chance(70) {
                    &values[rng.below(10)]
                } else {
                    &values[rng.below(values.len())]
                };
                kwargs.insert(key.to_owned(), value.clone());
            }
            let name = if !idents.is_empty() && rng.chance(70) {
                rng.pick(idents)
            } else {
                rng.pick(MARK_NAMES)
            };
            (name.to_owned(), kwargs)
        })
        .collect()
}

/// Random keyword names, some made of the expression's identifiers.
fn random_keywords(rng: &mut Rng, idents: &[&str]) -> Vec<String> {
    (0..rng.below(6))
        .map(|_| {
            if !idents.is_empty() && rng.chance(40) {
                let ident = rng.pick(idents);
                match rng.below(3) {
                    0 => ident.to_uppercase(),
                    1 => format!("test_{ident}[x]"),
                    _ => ident.to_owned(),
                }
            } else {
                rng.pick(KEYWORD_NAMES).to_owned()
            }
        })
        .collect()
}

struct Case {
    expr: String,
    marks: Vec<Vec<(String, Map<String, Json>)>>,
    keywords: Vec<Vec<String>>,
}

fn typed(value: &Value) -> Json {
    match value {
        Value::Str(s) => json!(["str", s]),
        Value::Int(i) => json!(["int", i.to_string()]),
        Value::BigInt(digits) => json!(["int", digits]),
        Value::Bool(b) => json!(["bool", if *b { "True" } else { "False" }]),
        Value::None => json!(["None", ""]),
    }
}

fn call_record(name: &str, kwargs: Option<&Kwargs>) -> Json {
    let kwargs = kwargs.map(|kwargs| {
        kwargs
            .iter()
            .map(|(key, value)| {
                let mut row = vec![json!(key)];
                row.extend(typed(value).as_array().expect("pair").iter().cloned());
                Json::Array(row)
            })
            .collect::<Vec<_>>()
    });
    json!([name, kwargs])
}

fn error_record(error: &ParseError) -> Json {
    match error.kind {
        ParseErrorKind::Syntax => {
            json!({"error": {"kind": "syntax", "column": error.column, "message": error.message}})
        }
        ParseErrorKind::Compile => {
            json!({"error": {"kind": "compile", "column": error.column, "message": error.message}})
        }
        ParseErrorKind::Crash { exception } => {
            json!({"error": {"kind": "crash", "exception": exception, "message": error.message}})
        }
    }
}

/// proctor's answer for a case, in the shape `expressions.py` writes.
fn proctor_result(case: &Case) -> Json {
    let expr = match Expression::parse(&case.expr) {
        Ok(expr) => expr,
        Err(error) => return error_record(&error),
    };
    let mut idents = expr.identifiers();
    idents.sort_unstable();
    let marks: Vec<Json> = case
        .marks
        .iter()
        .map(|markers| {
            let matcher = MarkMatcher::new(markers.iter().cloned());
            let mut calls = Vec::new();
            let result = expr.evaluate(&mut |name, kwargs| {
                calls.push(call_record(name, kwargs));
                matcher.matches(name, kwargs)
            });
            json!([result, calls])
        })
        .collect();
    let keywords: Vec<Json> = case
        .keywords
        .iter()
        .map(|names| {
            let matcher = KeywordMatcher::new(names.iter().cloned());
            let mut calls = Vec::new();
            let result = expr.try_evaluate(|name, kwargs| {
                calls.push(call_record(name, kwargs));
                matcher.matches(name, kwargs)
            });
            match result {
                Ok(result) => json!([result, calls]),
                Err(error) => json!([format!("UsageError: {error}"), calls]),
            }
        })
        .collect();
    json!({"idents": idents, "marks": marks, "keywords": keywords})
}

/// How many calls with keyword arguments matched a marker.
fn kwargs_matches(case: &Case) -> usize {
    let Ok(expr) = Expression::parse(&case.expr) else {
        return 0;
    };
    let mut count = 0;
    for markers in &case.marks {
        let matcher = MarkMatcher::new(markers.iter().cloned());
        expr.evaluate(&mut |name, kwargs| {
            let answer = matcher.matches(name, kwargs);
            count += usize::from(answer && kwargs.is_some());
            answer
        });
    }
    count
}

/// Drops a matcher call that repeats the one before it: pytest tests the
/// truth of the same identifier again for each enclosing operator, proctor
/// once.
fn collapse_repeated_calls(result: &mut Json) {
    for key in ["marks", "keywords"] {
        let Some(evaluations) = result.get_mut(key).and_then(Json::as_array_mut) else {
            continue;
        };
        for evaluation in evaluations {
            if let Some(calls) = evaluation.get_mut(1).and_then(Json::as_array_mut) {
                calls.dedup();
            }
        }
    }
}

#[test]
fn expressions_agree_with_pytest() {
    let seed = std::env::var("PROCTOR_EXPR_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or(0x5EED_u64);
    let mut rng = Rng(seed);
    let values = json_values();
    let mut cases: Vec<Case> = [
        "a(x=1, x=2)",
        "a(__debug__=1)",
        "a(x=1) or b(__debug__=2, y=1, y=2)",
        "a(x=²)",
        "a(x=-²)",
        "  a $",
        "a(x=1) or (",
    ]
    .iter()
    .map(|expr| (*expr).to_owned())
    .chain([
        format!("a(x={})", "1".repeat(4300)),
        format!("a(x={})", "1".repeat(4301)),
        format!("a(x={}²)", "1".repeat(300)),
    ])
    .map(|expr| Case {
        expr,
        marks: vec![],
        keywords: vec![],
    })
    .collect();
    for _ in 0..800 {
        let expr = random_expression(&mut rng);
        // The identifiers only steer the generator; they are checked below.
        let parsed = Expression::parse(&expr).ok();
        let idents = parsed
            .as_ref()
            .map(Expression::identifiers)
            .unwrap_or_default();
        let marks = (0..3)
            .map(|_| random_markers(&mut rng, &idents, &values))
            .collect();
        let keywords = (0..3).map(|_| random_keywords(&mut rng, &idents)).collect();
        cases.push(Case {
            expr,
            marks,
            keywords,
        });
    }

    // Single calls against markers of that name: the comparison of values.
    for _ in 0..200 {
        let name = rng.pick(MARK_NAMES).to_owned();
        let mut expr = format!("{name}(x={}", rng.pick(CORE_VALUES));
        if rng.chance(30) {
            write!(expr, ", n={}", rng.pick(CORE_VALUES)).expect("string");
        }
        expr.push(')');
        let marks = (0..3)
            .map(|_| {
                (0..=rng.below(4))
                    .map(|_| {
                        let mut kwargs = Map::new();
                        for key in CORE_KWARG_NAMES {
                            if rng.chance(80) {
                                kwargs.insert((*key).to_owned(), values[rng.below(10)].clone());
                            }
                        }
                        let name = if rng.chance(80) {
                            name.clone()
                        } else {
                            rng.pick(MARK_NAMES).to_owned()
                        };
                        (name, kwargs)
                    })
                    .collect()
            })
            .collect();
        cases.push(Case {
            expr,
            marks,
            keywords: vec![],
        });
    }

    let input = json!({
        "cases": cases
            .iter()
            .map(|case| json!({
                "expr": case.expr,
                "marks": case.marks.iter().map(|markers| markers
                    .iter()
                    .map(|(name, kwargs)| json!([name, kwargs]))
                    .collect::<Vec<_>>()).collect::<Vec<_>>(),
                "keywords": case.keywords,
            }))
            .collect::<Vec<_>>(),
    });
    let script = include_str!("differential/expressions.py");
    let stdout = run_python(&["-c", script], &input.to_string(), &[], None);
    let output: Json = serde_json::from_str(&stdout).expect("expressions.py writes JSON");
    let pinned = pinned_pytest();
    assert_eq!(
        output["pytest"].as_str(),
        Some(pinned.as_str()),
        "PROCTOR_TEST_PYTHON runs another pytest than tests/requirements.txt pins: {SETUP_HINT}"
    );
    let results = output["results"].as_array().expect("results");
    assert_eq!(results.len(), cases.len());

    let mut failures = Vec::new();
    let (mut parsed, mut syntax, mut compile, mut crash, mut calls_with_kwargs, mut usage) =
        (0, 0, 0, 0, 0, 0);
    let mut kwargs_matched = 0;
    for (case, pytest) in cases.iter().zip(results) {
        let mut pytest = pytest.clone();
        let mut proctor = proctor_result(case);
        collapse_repeated_calls(&mut pytest);
        collapse_repeated_calls(&mut proctor);
        match pytest["error"]["kind"].as_str() {
            None => parsed += 1,
            Some("syntax") => syntax += 1,
            Some("compile") => compile += 1,
            _ => crash += 1,
        }
        kwargs_matched += kwargs_matches(case);
        let text = pytest.to_string();
        calls_with_kwargs += usize::from(text.contains("\",[[\""));
        usage += usize::from(text.contains("UsageError"));
        if pytest != proctor {
            failures.push(format!(
                "{:?}\n  pytest:  {pytest}\n  proctor: {proctor}",
                case.expr
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from pytest {} (seed {seed}):\n{}",
        failures.len(),
        cases.len(),
        output["pytest"],
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The generator must reach every outcome, or the test proves little.
    let counts = format!(
        "parsed {parsed}, syntax errors {syntax}, compile errors {compile}, crashes {crash}, \
         cases with calls {calls_with_kwargs}, -k usage errors {usage}, \
         calls that matched a marker {kwargs_matched}"
    );
    let covered = parsed >= 400
        && syntax >= 200
        && compile >= 10
        && crash >= 3
        && calls_with_kwargs >= 200
        && usage >= 50
        && kwargs_matched >= 60;
    assert!(covered, "the generator misses outcomes: {counts}");
}

/// The test suite whose `-k` names are compared.
const SUITE: &[(&str, &str)] = &[
    ("pytest.ini", "[pytest]\nmarkers =\n    slow\n    device\n"),
    (
        "tests/sub/test_x.py",
        r#"
import functools
import pytest

pytestmark = [pytest.mark.modmark, pytest.mark.device(serial="123", n=1)]


@pytest.mark.clsmark
class TestA:
    @pytest.mark.parametrize(
        "a,b",
        [(1, 2), pytest.param(3, 4, marks=pytest.mark.parmark), pytest.param(5, 6, id="a::b/c[d]")],
    )
    @pytest.mark.funcmark(x=1)
    def test_b(self, a, b):
        pass

    def test_plain(self):
        pass

    test_plain.flagged = True

    class TestNested:
        @pytest.mark.slow
        def test_inner(self):
            pass


def test_attr():
    pass


test_attr.myattr = 1
test_attr._private = 2


def deco(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    wrapper.added = "yes"
    return wrapper


@deco
def test_wrapped():
    pass


@functools.lru_cache
def test_cached():
    pass


@pytest.mark.usefixtures("tmp_path")
@pytest.mark.filterwarnings("ignore")
def test_extra_keywords():
    pass


@pytest.fixture(params=["p1", "Straße"])
def fixture_param(request):
    return request.param


def test_fixture_param(fixture_param):
    pass
"#,
    ),
    ("pkg/__init__.py", ""),
    ("pkg/inner/__init__.py", ""),
    (
        "pkg/inner/test_pkg.py",
        "import pytest\n\n@pytest.mark.slow\ndef test_in_package():\n    pass\n",
    ),
    (
        "test_top.py",
        "import pytest\n\n@pytest.mark.parametrize('v', ['é', 'x y'])\ndef test_top(v):\n    pass\n",
    ),
];

#[derive(Debug)]
struct Item {
    nodeid: String,
    names: Vec<String>,
    markers: Vec<(String, Map<String, Json>)>,
    function_attributes: Vec<String>,
    extra: Vec<String>,
}

fn strings(value: &Json) -> Vec<String> {
    value
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a string").to_owned())
        .collect()
}

#[test]
fn keyword_names_and_selection_agree_with_pytest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("project");
    for (path, text) in SUITE {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    std::fs::write(
        root.join("conftest.py"),
        include_str!("differential/keywords_conftest.py"),
    )
    .expect("write conftest");
    let records = dir.path().join("keywords.jsonl");

    let (k_expr, m_expr) = (
        "test_b or sub and not plain or Extra or STRASSE",
        "not slow",
    );
    let stdout = run_python(
        &[
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            k_expr,
            "-m",
            m_expr,
        ],
        "",
        &[("PROCTOR_KEYWORDS_OUT", &records)],
        Some(&root),
    );
    let text = std::fs::read_to_string(&records)
        .unwrap_or_else(|e| panic!("pytest wrote no records ({e}):\n{stdout}\n{SETUP_HINT}"));
    let items: Vec<Item> = text
        .lines()
        .map(|line| {
            let record: Json = serde_json::from_str(line).expect("a JSON record");
            Item {
                nodeid: record["nodeid"].as_str().expect("nodeid").to_owned(),
                names: strings(&record["names"]),
                markers: record["markers"]
                    .as_array()
                    .expect("markers")
                    .iter()
                    .map(|mark| {
                        (
                            mark[0].as_str().expect("name").to_owned(),
                            mark[1].as_object().expect("kwargs").clone(),
                        )
                    })
                    .collect(),
                function_attributes: strings(&record["function_attributes"]),
                extra: strings(&record["extra"]),
            }
        })
        .collect();
    assert!(items.len() >= 12, "too few items:\n{text}");

    let k = Expression::parse(k_expr).expect("valid -k");
    let m = Expression::parse(m_expr).expect("valid -m");
    let mut failures = Vec::new();
    let mut selected = Vec::new();
    for item in &items {
        let markers: Vec<&str> = item.markers.iter().map(|(name, _)| name.as_str()).collect();
        let attributes: Vec<&str> = item
            .function_attributes
            .iter()
            .map(String::as_str)
            .collect();
        let extra: Vec<&str> = item.extra.iter().map(String::as_str).collect();
        let names = keyword_names(&item.nodeid, &markers, &attributes, &extra);
        if names != item.names {
            failures.push(format!(
                "{}\n  pytest:  {:?}\n  proctor: {names:?}",
                item.nodeid, item.names
            ));
        }
        let keywords = KeywordMatcher::new(names);
        let marks = MarkMatcher::new(item.markers.iter().cloned());
        let by_keyword = k
            .try_evaluate(|name, kwargs| keywords.matches(name, kwargs))
            .expect("no calls in -k");
        if by_keyword && m.evaluate(&mut |name, kwargs| marks.matches(name, kwargs)) {
            selected.push(item.nodeid.clone());
        }
    }
    assert!(
        failures.is_empty(),
        "-k names differ:\n{}",
        failures.join("\n")
    );

    let pytest_selected: Vec<String> = stdout
        .lines()
        .take_while(|line| !line.is_empty())
        .map(str::to_owned)
        .collect();
    assert_eq!(selected, pytest_selected, "pytest output:\n{stdout}");
    assert!(selected.len() >= 3 && selected.len() < items.len());
}

#[test]
fn unicode_tables_match_python() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let generated = run_python(
        &[crate_dir
            .join("tools/gen_tables.py")
            .to_str()
            .expect("utf-8 path")],
        "",
        &[],
        None,
    );
    let committed =
        std::fs::read_to_string(crate_dir.join("src/tables.rs")).expect("src/tables.rs");
    let strip = |text: &str| -> String {
        text.lines()
            .filter(|line| !line.contains("from Python"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        strip(&generated) == strip(&committed),
        "src/tables.rs does not match the Unicode data of PROCTOR_TEST_PYTHON: regenerate it \
         with `python tools/gen_tables.py > src/tables.rs` in crates/proctor_expr"
    );
    assert!(committed.contains(proctor_expr::UNICODE_VERSION));
}
