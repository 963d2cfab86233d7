//! CLI tests for `proctor select` and `proctor explain` over a temporary
//! Mellea-like project: a tier axis with `unit` auto-applied, a deprecated
//! `llm` alias, a path rule, a decorator mapped to a marker, a default
//! selection from `addopts` and a profile.

mod common;

use common::{run, write};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pytest.ini",
        "[pytest]\naddopts = -m \"not qualitative\"\n",
    );
    write(
        root,
        "proctor.toml",
        r#"
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
default = "unit"
write-default = false

[markers.llm]
alias-of = "e2e"
deprecated = true

[markers.gpu]
implies = ["slow"]

[[paths]]
glob = "test/integration/**"
markers = ["integration"]

[decorators]
"predicates.require_gpu" = "gpu"

[profiles.ci]
description = "the pull-request job"
markers = "not slow"
"#,
    );
    write(root, "test/predicates.py", "import pytest\n\ndef require_gpu(min_vram_gb):\n    return pytest.mark.skipif(True, reason='gpu')\n");
    write(
        root,
        "test/test_core.py",
        r"import pytest
from predicates import require_gpu


def test_parse():
    pass


@pytest.mark.llm
@pytest.mark.qualitative
def test_answer_quality():
    pass


@require_gpu(min_vram_gb=8)
def test_big_model():
    pass
",
    );
    write(
        root,
        "test/integration/test_db.py",
        "def test_roundtrip():\n    pass\n",
    );
    dir
}

#[test]
fn select_composes_the_default_with_an_explicit_m() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["select", "-m", "unit"]), @r#"
    exit: 0
    --- stdout
    test/test_core.py::test_parse
    test/test_core.py::test_big_model
    --- stderr
    selecting: -m "(not qualitative) and (unit)"
    2 selected, 2 deselected
    "#);
}

#[test]
fn select_without_the_default_and_with_a_profile() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["select", "--no-default-select", "--profile", "ci", "-k", "test_core"]), @r#"
    exit: 0
    --- stdout
    test/test_core.py::test_parse
    test/test_core.py::test_answer_quality
    --- stderr
    selecting: -m "not slow" -k "test_core"
    2 selected, 2 deselected
    "#);
}

#[test]
fn select_reports_bad_expressions_and_unknown_profiles() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["select", "-m", "unit and (e2e"]), @r#"
    exit: 4
    --- stdout
    --- stderr
    proctor: error: invalid -m expression "unit and (e2e" (command line): at column 14: expected right parenthesis; got end of input
    "#);
    insta::assert_snapshot!(run(dir.path(), &["select", "--profile", "nightly"]), @r"
    exit: 4
    --- stdout
    --- stderr
    proctor: error: unknown profile `nightly` (configured: ci)
    ");
}

#[test]
fn select_writes_an_args_file_for_pytest() {
    let dir = project();
    let out = run(
        dir.path(),
        &["select", "--args-file", "selected.txt", "-m", "integration"],
    );
    assert!(out.starts_with("exit: 0"), "{out}");
    let text = std::fs::read_to_string(dir.path().join("selected.txt")).unwrap();
    assert_eq!(text, "test/integration/test_db.py::test_roundtrip\n");
}

#[test]
fn explain_shows_provenance_and_verdicts() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["explain", "test/test_core.py::test_answer_quality", "test/test_core.py::test_big_model"]), @r#"
    exit: 0
    --- stdout
    test/test_core.py::test_answer_quality
      defined at test/test_core.py:9
      markers:
        qualitative  written on the function (test/test_core.py:10)
        e2e          `llm` (an alias) written on the function (test/test_core.py:9)
      note: `llm` is an alias of `e2e`
      note: `llm` is deprecated
      selection:
        -m "not qualitative": deselected by -m
        profile ci (the pull-request job), -m "(not qualitative) and (not slow)": deselected by -m
    test/test_core.py::test_big_model
      defined at test/test_core.py:15
      markers:
        gpu   decorator `predicates.require_gpu`
        slow  implied by `gpu`
        unit  default of axis `tier`
      selection:
        -m "not qualitative": selected
        profile ci (the pull-request job), -m "(not qualitative) and (not slow)": deselected by -m
    --- stderr
    "#);
}

/// A pytest value of the wrong kind is refused, as pytest refuses it,
/// instead of being read as its default: `empty_parameter_set_mark =
/// ignore` is pytest's usage error (exit 4), and proctor's, at the key; `collect_imported_tests = maybe`, which pytest
/// fails on when it collects, is reported in the same breath.
#[test]
fn bad_pytest_values_are_errors_at_their_keys_as_pytest_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pytest.ini",
        "[pytest]\nempty_parameter_set_mark = ignore\ncollect_imported_tests = maybe\n",
    );
    write(root, "test_a.py", "def test_a():\n    pass\n");
    let pytest = std::process::Command::new(common::test_python())
        .args([
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        ])
        .current_dir(root)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    let pytest_err = String::from_utf8_lossy(&pytest.stderr);
    assert_eq!(pytest.status.code(), Some(4), "{pytest_err}");
    let message = "config option 'empty_parameter_set_mark' expects one of 'skip' | 'xfail' | 'fail_at_collect', got 'ignore'";
    assert!(pytest_err.contains(message), "{pytest_err}");
    let out = run(root, &["select"]);
    assert!(out.starts_with("exit: 4\n"), "{out}");
    assert!(
        out.contains(&format!("[ROOT]/pytest.ini:2:1: {message}")),
        "{out}"
    );
    assert!(
        out.contains("[ROOT]/pytest.ini:3:1: collect_imported_tests: invalid truth value 'maybe'"),
        "{out}"
    );
}
