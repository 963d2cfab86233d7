//! CLI tests for a default selection that makes way for an explicit `-m`:
//! the default applies except to the markers the explicit expression
//! names (`D[m:=True] or D[m:=False]` for each), and a selection the
//! default empties says so with the flag that drops it.

mod common;

use common::{run, write};

/// A suite whose `addopts` leave out slow, credentialed, smoke and the
/// opt-in property tests.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pytest.ini",
        "[pytest]\naddopts = -m \"not (slow or credentialed or smoke) and not property\"\nmarkers =\n    core\n    live\n    slow\n    credentialed\n    smoke\n    property\n",
    );
    write(
        root,
        "proctor.toml",
        r#"
[profiles.everything]
description = "the whole suite"
markers = "not smoke"
use-default = false

[jobs.nightly]
markers = "live and slow"
"#,
    );
    write(
        root,
        "tests/test_suite.py",
        r"import pytest


@pytest.mark.core
def test_core():
    pass


@pytest.mark.core
@pytest.mark.slow
def test_core_slow():
    pass


@pytest.mark.live
@pytest.mark.slow
def test_live_slow():
    pass


@pytest.mark.live
@pytest.mark.slow
@pytest.mark.credentialed
def test_live_slow_credentialed():
    pass


@pytest.mark.property
def test_property():
    pass


@pytest.mark.smoke
def test_smoke():
    pass
",
    );
    dir
}

#[test]
fn an_explicit_m_keeps_the_default_on_the_markers_it_does_not_name() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["select", "-m", "core"]), @r#"
    exit: 0
    --- stdout
    tests/test_suite.py::test_core
    --- stderr
    selecting: -m "(not (slow or credentialed or smoke) and not property) and (core)"
    1 selected, 5 deselected
    "#);
}

#[test]
fn the_default_makes_way_on_the_markers_the_explicit_m_names() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["select", "-m", "live and slow"]), @r#"
    exit: 0
    --- stdout
    tests/test_suite.py::test_live_slow
    --- stderr
    selecting: -m "(not (credentialed or smoke) and not property) and (live and slow)"
    1 selected, 5 deselected
    "#);
}

#[test]
fn an_opt_in_marker_selects_its_tests() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["select", "-m", "property"]), @r#"
    exit: 0
    --- stdout
    tests/test_suite.py::test_property
    --- stderr
    selecting: -m "(not (slow or credentialed or smoke)) and (property)"
    1 selected, 5 deselected
    "#);
}

#[test]
fn a_default_that_leaves_out_everything_says_how_to_drop_it() {
    let dir = project();
    // `-k` names no marker: the default leaves out the one test it picks.
    insta::assert_snapshot!(run(dir.path(), &["select", "-k", "credentialed"]), @r#"
    exit: 5
    --- stdout
    --- stderr
    selecting: -m "not (slow or credentialed or smoke) and not property" -k "credentialed"
    0 selected, 6 deselected
    hint: the default selection -m "not (slow or credentialed or smoke) and not property" (pytest addopts) leaves out the 1 test that -k "credentialed" alone selects; --no-default-select drops the default
    "#);
    insta::assert_snapshot!(run(dir.path(), &["select", "-k", "credentialed", "--no-default-select"]), @r#"
    exit: 0
    --- stdout
    tests/test_suite.py::test_live_slow_credentialed
    --- stderr
    selecting: -k "credentialed"
    1 selected, 5 deselected
    "#);
}

#[test]
fn a_profile_with_use_default_false_leaves_the_default_out() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["select", "--profile", "everything"]), @r#"
    exit: 0
    --- stdout
    tests/test_suite.py::test_core
    tests/test_suite.py::test_core_slow
    tests/test_suite.py::test_live_slow
    tests/test_suite.py::test_live_slow_credentialed
    tests/test_suite.py::test_property
    --- stderr
    selecting: -m "not smoke"
    5 selected, 1 deselected
    "#);
}

#[test]
fn a_jobs_markers_relax_the_default_in_the_emitted_pytest_command() {
    let dir = project();
    let out = run(dir.path(), &["ci", "github", "--runner", "pytest"]);
    assert!(
        out.contains(
            "pytest -m '(not (credentialed or smoke) and not property) and (live and slow)'"
        ),
        "{out}"
    );
}

/// `proctor run` in `dir` with the test Python; exit code and output.
fn proctor_run(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let python = std::env::var_os("PROCTOR_TEST_PYTHON")
        .expect("PROCTOR_TEST_PYTHON names a Python with pytest (scripts/test sets it)");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .arg("--python")
        .arg(python)
        .arg("--no-history")
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

#[test]
fn run_selects_the_opt_in_tests_with_m_before_or_after_the_dashes() {
    let dir = project();
    for args in [&["-m", "property"][..], &["--", "-m", "property"][..]] {
        let (code, text) = proctor_run(dir.path(), args);
        assert_eq!(code, 0, "{args:?}: {text}");
        assert!(
            text.contains(
                "proctor run: -m \"(not (slow or credentialed or smoke)) and (property)\""
            ),
            "{args:?}: {text}"
        );
        assert!(text.contains("1 passed"), "{args:?}: {text}");
    }
}

#[test]
fn run_says_how_to_drop_a_default_that_leaves_out_everything() {
    let dir = project();
    let (code, text) = proctor_run(dir.path(), &["-k", "credentialed"]);
    // pytest's status for nothing collected.
    assert_eq!(code, 5, "{text}");
    assert!(
        text.contains("--no-default-select drops the default"),
        "{text}"
    );
    let (code, text) = proctor_run(dir.path(), &["--job", "nightly"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("1 passed"), "{text}");
}
