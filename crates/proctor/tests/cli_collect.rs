//! CLI tests for `proctor collect`: exit code, stdout and stderr of the
//! real binary over temporary projects, snapshotted with paths and timings
//! filtered out.

mod common;

use std::path::Path;

use common::write;
use std::process::Command;

/// Runs proctor in `dir`, with durations filtered out.
fn run(dir: &Path, args: &[&str]) -> String {
    common::without_timings(&common::run(dir, args))
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pytest.ini", "[pytest]\ntestpaths = tests\nmarkers =\n    slow: slow tests\n");
    write(
        dir.path(),
        "tests/test_math.py",
        r#"import pytest


@pytest.mark.slow
@pytest.mark.parametrize("n, expected", [(1, 1), (2, 4), pytest.param(3, 9, id="three")])
def test_square(n, expected):
    assert n * n == expected


class TestAdd:
    def test_zero(self):
        assert 0 + 0 == 0
"#,
    );
    dir
}

#[test]
fn collect_prints_node_ids_like_pytest_q() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["collect"]), @r"
    exit: 0
    --- stdout
    tests/test_math.py::test_square[1-1]
    tests/test_math.py::test_square[2-4]
    tests/test_math.py::test_square[three]
    tests/test_math.py::TestAdd::test_zero

    4 tests collected in [TIME]
    --- stderr
    ");
}

#[test]
fn collect_json_has_markers_with_provenance() {
    let dir = project();
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["collect", "--json", "tests/test_math.py::TestAdd"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["version"], 1);
    let items = doc["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    insta::assert_snapshot!(serde_json::to_string_pretty(&items[0]).unwrap(), @r#"
    {
      "nodeid": "tests/test_math.py::TestAdd::test_zero",
      "file": "tests/test_math.py",
      "line": 11,
      "markers": [],
      "dynamic": null
    }
    "#);
    let all = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["collect", "--json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&all.stdout).unwrap();
    insta::assert_snapshot!(serde_json::to_string(&doc["items"][2]["markers"]).unwrap(), @r#"[{"name":"parametrize","args":["n, expected",{"expr":"[(1, 1), (2, 4), pytest.param(3, 9, id=\"three\")]"}],"kwargs":{},"source":"function","location":{"file":"tests/test_math.py","line":5,"column":2,"end_line":5,"end_column":90}},{"name":"slow","args":[],"kwargs":{},"source":"function","location":{"file":"tests/test_math.py","line":4,"column":2,"end_line":4,"end_column":18}}]"#);
}

#[test]
fn collection_errors_exit_2_and_the_rest_is_listed() {
    let dir = project();
    write(dir.path(), "tests/test_broken.py", "def test_x(:\n    pass\n");
    insta::assert_snapshot!(run(dir.path(), &["collect"]), @r"
    exit: 2
    --- stdout
    tests/test_math.py::test_square[1-1]
    tests/test_math.py::test_square[2-4]
    tests/test_math.py::test_square[three]
    tests/test_math.py::TestAdd::test_zero

    ERROR tests/test_broken.py:1:12: SyntaxError: Expected a parameter or the end of the parameter list

    4 tests collected, 1 error in [TIME]
    --- stderr
    ");
}

#[test]
fn dynamic_items_are_listed_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pytest.ini", "[pytest]\n");
    write(
        dir.path(),
        "test_dyn.py",
        "import pytest\n\n@pytest.mark.parametrize('x', [i * 2 for i in range(3)])\ndef test_doubled(x):\n    pass\n",
    );
    insta::assert_snapshot!(run(dir.path(), &["collect"]), @r"
    exit: 0
    --- stdout
    test_dyn.py::test_doubled  (dynamic: parametrize argvalues are computed at runtime)

    0 tests collected, 1 dynamic in [TIME]
    --- stderr
    ");
}

#[test]
fn nothing_collected_exits_5() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pytest.ini", "[pytest]\n");
    insta::assert_snapshot!(run(dir.path(), &["collect"]), @r"
    exit: 5
    --- stdout

    0 tests collected in [TIME]
    --- stderr
    ");
}

#[test]
fn bad_proctor_config_is_a_located_error() {
    let dir = project();
    write(dir.path(), "proctor.toml", "[collect]\nthreads = 2\nfast = true\n");
    let out = run(dir.path(), &["collect"]);
    assert!(out.starts_with("exit: 4\n"), "{out}");
    assert!(out.contains("proctor.toml:3:1"), "{out}");
    assert!(out.contains("fast"), "{out}");
}

#[test]
fn missing_path_is_reported() {
    let dir = project();
    let out = run(dir.path(), &["collect", "tests/nope.py"]);
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("file or directory not found: tests/nope.py"), "{out}");
}
