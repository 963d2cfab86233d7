//! Differential test: real pytest's `--junit-xml` (family `xunit2`) and
//! [`proctor_report::junit_xml`] must give the same testcases (classname,
//! name, outcome element, skip type and message) and the same suite counts
//! for one suite with every kind of node id and outcome.
//!
//! The interpreter comes from `PROCTOR_TEST_PYTHON` (set by
//! `scripts/test`); without it the test fails rather than passing silently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proctor_outcome::{Outcome, RunSummary, TestResult};
use proctor_report::junit_xml;
use roxmltree::Document;

const SUITE: &str = r#"import pytest


def test_pass():
    print("out")


def test_fail():
    assert 1 == 2


@pytest.mark.skip(reason="service ollama not reachable at 127.0.0.1:11434")
def test_skip():
    pass


@pytest.mark.xfail(reason="bug #12")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="bug #13")
def test_xpass():
    pass


@pytest.mark.parametrize("p", ["a/b::c", "x y", "<&>"])
def test_param(p):
    pass


@pytest.fixture
def broken():
    raise RuntimeError("db down")


def test_error(broken):
    pass


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown breaks")


def test_teardown_error(broken_teardown):
    pass


def test_fail_and_teardown_error(broken_teardown):
    assert 0


class TestOuter:
    class TestInner:
        def test_z(self):
            pass

    @pytest.mark.parametrize("n", [1, 2])
    def test_y(self, n):
        pass
"#;

/// The results the runner would report for [`SUITE`], in pytest's order.
fn results() -> Vec<TestResult> {
    let file = "tests/unit/test_a.py";
    let cases: &[(&str, Outcome, Option<&str>, Option<&str>)] = &[
        ("test_pass", Outcome::Passed, None, None),
        (
            "test_fail",
            Outcome::Failed,
            None,
            Some("    def test_fail():\n>       assert 1 == 2\nE       assert 1 == 2\n"),
        ),
        (
            "test_skip",
            Outcome::Skipped,
            Some("service ollama not reachable at 127.0.0.1:11434"),
            None,
        ),
        ("test_xfail", Outcome::Xfailed, Some("bug #12"), None),
        ("test_xpass", Outcome::Xpassed, Some("bug #13"), None),
        ("test_param[a/b::c]", Outcome::Passed, None, None),
        ("test_param[x y]", Outcome::Passed, None, None),
        ("test_param[<&>]", Outcome::Passed, None, None),
        (
            "test_error",
            Outcome::Error,
            None,
            Some("E       RuntimeError: db down\n"),
        ),
        ("test_teardown_error", Outcome::Passed, None, None),
        (
            "test_fail_and_teardown_error",
            Outcome::Failed,
            None,
            Some("    def test_fail_and_teardown_error(broken_teardown):\n>       assert 0\nE       assert 0\n"),
        ),
        ("TestOuter::TestInner::test_z", Outcome::Passed, None, None),
        ("TestOuter::test_y[1]", Outcome::Passed, None, None),
        ("TestOuter::test_y[2]", Outcome::Passed, None, None),
    ];
    cases
        .iter()
        .map(|&(name, outcome, reason, message)| TestResult {
            reason: reason.map(str::to_owned),
            message: message.map(str::to_owned),
            // The two tests of `broken_teardown`: pytest's second report.
            teardown_error: name
                .contains("teardown_error")
                .then(|| "E       RuntimeError: teardown breaks\n".to_owned()),
            ..TestResult::new(format!("{file}::{name}"), outcome)
        })
        .collect()
}

/// What both writers must agree on for one testcase: each outcome
/// element's tag in order (a skip and a failed teardown are two in one
/// testcase), and for all but errors the type and message attributes.
type Case = Vec<(String, Option<String>, Option<String>)>;

/// A testcase's classname and name, and how many testcases before it had
/// the same two.
type CaseKey = (String, String, usize);

/// Suite counts and testcases keyed by (classname, name, how many came
/// before with the same names: a failed call and a failed teardown are two).
fn shape(xml: &str) -> (Vec<String>, BTreeMap<CaseKey, Case>) {
    let doc = Document::parse(xml).unwrap_or_else(|err| panic!("malformed XML ({err}):\n{xml}"));
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .expect("a testsuite");
    let counts = ["errors", "failures", "skipped", "tests"]
        .iter()
        .map(|a| suite.attribute(*a).unwrap_or("").to_owned())
        .collect();
    let mut cases = BTreeMap::new();
    for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let names = (
            case.attribute("classname").unwrap().to_owned(),
            case.attribute("name").unwrap().to_owned(),
        );
        let before = cases
            .keys()
            .filter(|(classname, name, _)| (classname, name) == (&names.0, &names.1))
            .count();
        let key = (names.0, names.1, before);
        let outcomes = case
            .children()
            .filter(|c| ["failure", "error", "skipped"].contains(&c.tag_name().name()))
            .map(|c| {
                let attribute = |name: &str| {
                    Some(c)
                        .filter(|c| !c.has_tag_name("error"))
                        .and_then(|c| c.attribute(name))
                        .map(str::to_owned)
                };
                (
                    c.tag_name().name().to_owned(),
                    attribute("type"),
                    attribute("message"),
                )
            })
            .collect();
        cases.insert(key, outcomes);
    }
    (counts, cases)
}

/// Real pytest's `--junit-xml` (family `xunit2`) of the suite in `dir`,
/// run with `extra` arguments; the suite must fail (exit status 1).
fn pytest_junit(dir: &Path, extra: &[&str]) -> String {
    let Some(python) = std::env::var_os("PROCTOR_TEST_PYTHON") else {
        panic!(
            "PROCTOR_TEST_PYTHON is not set: the differential test needs a Python with pytest \
             (export PROCTOR_TEST_PYTHON=/work/main/.venv/bin/python, or run scripts/test)"
        );
    };
    let python = PathBuf::from(python);
    let run = Command::new(&python)
        .args(["-m", "pytest", "-p", "no:cacheprovider", "-q"])
        .args(extra)
        .args(["--junit-xml=report.xml", "-o", "junit_family=xunit2"])
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", python.display()));
    assert_eq!(
        run.status.code(),
        Some(1),
        "pytest: {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(dir.join("report.xml")).unwrap()
}

/// Fails unless [`junit_xml`] of `results` has the [`shape`] of pytest's
/// report `theirs`.
fn assert_same_shape(results: &[TestResult], theirs: &str) {
    let ours = junit_xml(
        results,
        &RunSummary::of(results, 0, 0.1, false),
        "pytest",
        "t",
        "h",
    );
    assert_eq!(
        shape(&ours),
        shape(theirs),
        "ours:\n{ours}\npytest's:\n{theirs}"
    );
}

#[test]
fn junit_matches_real_pytest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("tests/unit")).unwrap();
    std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").unwrap();
    std::fs::write(dir.path().join("tests/unit/test_a.py"), SUITE).unwrap();
    // The suite has a failure and an error on purpose.
    let theirs = pytest_junit(dir.path(), &[]);

    let results = results();
    assert_same_shape(&results, &theirs);
}

/// A module that does not import and one skipped whole at import, next to
/// a passing test (`--continue-on-collection-errors`): the same counts
/// (`errors="1"`, `skipped="1"`) and elements as pytest's own report.
#[test]
fn junit_of_a_collection_error_and_a_module_skip_matches_real_pytest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").unwrap();
    std::fs::write(
        dir.path().join("test_broken.py"),
        "import a_module_nobody_wrote\n\ndef test_never():\n    pass\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("test_gone.py"), "import pytest\n\npytest.skip('not here', allow_module_level=True)\n\ndef test_a():\n    pass\n").unwrap();
    std::fs::write(dir.path().join("test_ok.py"), "def test_ok():\n    pass\n").unwrap();
    let theirs = pytest_junit(dir.path(), &["--continue-on-collection-errors"]);
    let broken = TestResult {
        message: Some("ImportError while importing test module 'test_broken.py'.\nE   ModuleNotFoundError: No module named 'a_module_nobody_wrote'".to_owned()),
        ..TestResult::new("test_broken.py", Outcome::Error)
    };
    let gone = TestResult {
        reason: Some("not here".to_owned()),
        ..TestResult::new("test_gone.py", Outcome::Skipped)
    };
    let results = vec![
        broken,
        gone,
        TestResult::new("test_ok.py::test_ok", Outcome::Passed),
    ];
    assert_same_shape(&results, &theirs);
}

/// What `quick-junit` (nextest's `JUnit` writer) cannot write and pytest
/// does: a tab and a newline in a skip reason, kept in the `message`
/// attribute as character references (`quick-junit` drops the tab and
/// leaves the newline raw, which parsers read as a space), and a skip whose
/// fixture then fails its teardown, `<skipped>` and `<error>` in one
/// testcase (`quick-junit` has one outcome per testcase). This is why
/// `junit.rs` writes the XML by hand.
#[test]
fn junit_of_a_multi_line_skip_reason_and_a_skip_with_a_failed_teardown_matches_real_pytest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").unwrap();
    std::fs::write(
        dir.path().join("test_t.py"),
        r#"import pytest


@pytest.mark.skip(reason="line one\nline\ttwo")
def test_skip():
    pass


@pytest.fixture
def bad_teardown():
    yield
    raise RuntimeError("td")


def test_skip_td(bad_teardown):
    pytest.skip("inside")
"#,
    )
    .unwrap();
    let theirs = pytest_junit(dir.path(), &[]);
    let results = vec![
        TestResult {
            reason: Some("line one\nline\ttwo".to_owned()),
            ..TestResult::new("test_t.py::test_skip", Outcome::Skipped)
        },
        TestResult {
            reason: Some("inside".to_owned()),
            teardown_error: Some("E       RuntimeError: td\n".to_owned()),
            ..TestResult::new("test_t.py::test_skip_td", Outcome::Skipped)
        },
    ];
    assert_same_shape(&results, &theirs);
}
