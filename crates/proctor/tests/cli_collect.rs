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
    write(
        dir.path(),
        "pytest.ini",
        "[pytest]\ntestpaths = tests\nmarkers =\n    slow: slow tests\n",
    );
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
    assert_eq!(doc["version"], 2);
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
    let doc = common::inline_markers(serde_json::from_slice(&all.stdout).unwrap());
    insta::assert_snapshot!(serde_json::to_string(&doc["items"][2]["markers"]).unwrap(), @r#"[{"name":"parametrize","args":["n, expected",{"expr":"[(1, 1), (2, 4), pytest.param(3, 9, id=\"three\")]"}],"kwargs":{},"source":"function","location":{"file":"tests/test_math.py","line":5,"column":2,"end_line":5,"end_column":90}},{"name":"slow","args":[],"kwargs":{},"source":"function","location":{"file":"tests/test_math.py","line":4,"column":2,"end_line":4,"end_column":18}}]"#);
}

#[test]
fn collection_errors_exit_2_and_the_rest_is_listed() {
    let dir = project();
    write(
        dir.path(),
        "tests/test_broken.py",
        "def test_x(:\n    pass\n",
    );
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
        "import pytest\nimport random\n\n@pytest.mark.parametrize('x', [random.random() for i in range(3)])\ndef test_random(x):\n    pass\n\n\
         @pytest.mark.parametrize('x', [i * 2 for i in range(3)])\ndef test_doubled(x):\n    pass\n",
    );
    insta::assert_snapshot!(run(dir.path(), &["collect"]), @r"
    exit: 0
    --- stdout
    test_dyn.py::test_random  (dynamic: parametrize argvalues: the result of `random.random(...)`)
    test_dyn.py::test_doubled[0]
    test_dyn.py::test_doubled[2]
    test_dyn.py::test_doubled[4]

    3 tests collected, 1 dynamic in [TIME]
    --- stderr
    ");
}

#[test]
fn evaluation_is_bounded_and_says_why_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pytest.ini", "[pytest]\n");
    write(
        dir.path(),
        "test_hostile.py",
        r#"import pytest

HUGE = range(10**12)
SELF = [1]
SELF = SELF + SELF
LOOP = []
X = 0
while True:
    LOOP.append(X)


def forever():
    while True:
        pass


def recurse(n):
    return recurse(n + 1)


@pytest.mark.parametrize("x", HUGE)
def test_huge(x):
    pass


@pytest.mark.parametrize("x", [x * 2 for x in range(10**4) for y in range(10**4)])
def test_quadratic(x):
    pass


@pytest.mark.parametrize("x", SELF)
def test_self(x):
    pass


@pytest.mark.parametrize("x", LOOP)
def test_loop(x):
    pass


@pytest.mark.parametrize("x", forever())
def test_forever(x):
    pass


@pytest.mark.parametrize("x", recurse(0))
def test_recurse(x):
    pass


@pytest.mark.parametrize("x", ["a" * 10**7])
def test_big_string(x):
    pass
"#,
    );
    insta::assert_snapshot!(run(dir.path(), &["collect"]), @r"
    exit: 0
    --- stdout
    test_hostile.py::test_huge  (dynamic: parametrize argvalues: a range too large to expand statically)
    test_hostile.py::test_quadratic  (dynamic: parametrize argvalues: a comprehension too large to expand statically)
    test_hostile.py::test_self[1_0]
    test_hostile.py::test_self[1_1]
    test_hostile.py::test_loop  (dynamic: parametrize argvalues: `LOOP` is built by module code proctor cannot follow: a value too large to compute statically)
    test_hostile.py::test_forever  (dynamic: parametrize argvalues: calling `forever`: the value takes too many steps to compute statically)
    test_hostile.py::test_recurse  (dynamic: parametrize argvalues: calling `recurse`: calls nested too deeply)
    test_hostile.py::test_big_string  (dynamic: a value too large to compute statically)

    2 tests collected, 6 dynamic in [TIME]
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
    write(
        dir.path(),
        "proctor.toml",
        "[collect]\nthreads = 2\nfast = true\n",
    );
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
    assert!(
        out.contains("file or directory not found: tests/nope.py"),
        "{out}"
    );
}

#[test]
fn collect_json_writes_a_shared_marker_once() {
    // 5,000 items share one parametrize list: version 1 wrote the list in
    // every item (n² bytes); each distinct marker is now in the table once.
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..5000).map(|i| format!("\"v{i}_sentinel\"")).collect();
    write(dir.path(), "test_big.py", &format!("import pytest\n\n@pytest.mark.slow\n@pytest.mark.parametrize('x', [{}])\ndef test_x(x):\n    pass\n\n@pytest.mark.slow\ndef test_y():\n    pass\n", values.join(", ")));
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["collect", "--json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        text.matches("v4999_sentinel").count(),
        2,
        "the value is in the table once and in one node id"
    );
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let names: Vec<&str> = doc["markers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["parametrize", "slow", "slow"],
        "two slow marks written in two places are two entries (their locations differ)"
    );
    assert_eq!(doc["items"][4999]["markers"], serde_json::json!([0, 1]));
    assert_eq!(doc["items"][5000]["markers"], serde_json::json!([2]));
    let inlined = common::inline_markers(doc);
    assert_eq!(inlined["items"][5000]["markers"][0]["location"]["line"], 8);
}

#[test]
fn hypothesis_plugin_marks_given_tests() {
    // Hypothesis's pytest plugin appends `hypothesis` to every `@given`
    // test (after the test's own marks): a fake environment holding the
    // plugin, made from the test interpreter's own venv settings.
    let python =
        std::env::var("PROCTOR_TEST_PYTHON").expect("PROCTOR_TEST_PYTHON is set by scripts/test");
    let venv = Path::new(&python).parent().unwrap().parent().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = std::fs::read_to_string(venv.join("pyvenv.cfg")).unwrap();
    write(dir.path(), "env/pyvenv.cfg", &cfg);
    write(dir.path(), "env/bin/python", "");
    let lib = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    let site = format!("env/lib/{}/site-packages", lib.to_string_lossy());
    write(dir.path(), &format!("{site}/_hypothesis_pytestplugin.py"), "def pytest_configure(config):\n    config.addinivalue_line(\"markers\", \"hypothesis: Tests which use hypothesis.\")\n");
    write(
        dir.path(),
        &format!("{site}/hypothesis-6.112.1.dist-info/entry_points.txt"),
        "[pytest11]\nhypothesispytest = _hypothesis_pytestplugin\n",
    );
    write(dir.path(), &format!("{site}/hypothesis/__init__.py"), "");
    write(dir.path(), &format!("{site}/pytest/__init__.py"), "");
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.proctor]\npython = \"env/bin/python\"\n",
    );
    write(
        dir.path(),
        "tests/test_props.py",
        "import pytest\nfrom hypothesis import given, strategies as st\n\n@pytest.mark.slow\n@given(st.integers())\ndef test_given(x):\n    pass\n\ndef test_plain():\n    pass\n",
    );
    let names_with = |extra: &str, disable_autoload: Option<&str>| {
        write(
            dir.path(),
            "pyproject.toml",
            &format!("[tool.proctor]\npython = \"env/bin/python\"\n{extra}"),
        );
        let mut command = Command::new(env!("CARGO_BIN_EXE_proctor"));
        command
            .args(["collect", "--json", "tests"])
            .current_dir(dir.path())
            .env_remove("PYTEST_ADDOPTS")
            .env_remove("PYTEST_DISABLE_PLUGIN_AUTOLOAD");
        if let Some(value) = disable_autoload {
            command.env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", value);
        }
        let output = command.output().unwrap();
        let doc = common::inline_markers(serde_json::from_slice(&output.stdout).unwrap());
        doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| {
                item["markers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["name"].as_str().unwrap().to_owned())
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let names = |extra: &str| names_with(extra, None);
    assert_eq!(names(""), [vec!["slow", "hypothesis"], vec![]]);
    // pytest 9.2 loads no entry-point plugin under a non-empty
    // `PYTEST_DISABLE_PLUGIN_AUTOLOAD` (`0` too: it tests
    // `bool(os.environ.get(...))`) or `--disable-plugin-autoload`, unless
    // `-p` names it (`_pytest/config/__init__.py`, `_preparse`).
    let without: [Vec<&str>; 2] = [vec!["slow"], vec![]];
    assert_eq!(names_with("", Some("0")), without);
    assert_eq!(
        names_with("", Some("")),
        [vec!["slow", "hypothesis"], vec![]]
    );
    let addopts = |value: &str| format!("[tool.pytest.ini_options]\naddopts = \"{value}\"\n");
    assert_eq!(names(&addopts("--disable-plugin-autoload")), without);
    assert_eq!(
        names(&addopts("--disable-plugin-autoload -p hypothesispytest")),
        [vec!["slow", "hypothesis"], vec![]]
    );
    // The plugin registers the marker: `check` does not call it unknown.
    write(dir.path(), "pyproject.toml", "[tool.proctor]\npython = \"env/bin/python\"\n[tool.pytest.ini_options]\nmarkers = [\"slow\"]\n");
    let check = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["check"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(!text.contains("PRC101"), "{text}");
    write(
        dir.path(),
        &format!("{site}/_hypothesis_pytestplugin.py"),
        "",
    );
    let check = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["check"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(
        text.contains("PRC101"),
        "without the plugin's registration the marker is unknown: {text}"
    );
    // Blocked with -p no:hypothesispytest, it marks nothing.
    assert_eq!(
        names("[tool.pytest.ini_options]\naddopts = \"-p no:hypothesispytest\"\n"),
        [vec!["slow"], vec![]]
    );
}

/// The node ids `pytest --collect-only -q` prints for `args` in `dir`.
fn pytest_ids(dir: &Path, args: &[&str]) -> Vec<String> {
    let python =
        std::env::var("PROCTOR_TEST_PYTHON").expect("PROCTOR_TEST_PYTHON is set by scripts/test");
    let output = Command::new(python)
        .args([
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        ])
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("pytest runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .take_while(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn collect_file_hook_sees_files_given_on_the_command_line() {
    // A conftest's `pytest_collect_file` is called for a file given as an
    // argument too: its items, as pytest lists them, next to a test module.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/suites/collect_hooks");
    let args = [
        "golden/sub/b_case.yaml",
        "golden/test_module.py",
        "golden/a_case.yaml",
    ];
    let mut cmd = vec!["collect"];
    cmd.extend(args);
    let out = common::run(&dir, &cmd);
    let ours: Vec<String> = out
        .split("--- stdout\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|line| !line.is_empty() && !line.starts_with("---"))
        .map(str::to_owned)
        .collect();
    let theirs = pytest_ids(&dir, &args);
    assert_eq!(theirs.len(), 5, "pytest collected: {theirs:?}");
    assert_eq!(ours, theirs, "proctor:\n{out}");
}

#[test]
fn one_parser_thread_collects_what_many_do() {
    // `--threads 1` runs collection on a pool of one thread, where the
    // shared modules' scans (queued while their imports are resolved) and
    // the directory listings made ahead must be run by that same thread.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "conftest.py", "");
    write(dir.path(), "pkg/__init__.py", "from .a import *\n");
    write(
        dir.path(),
        "pkg/a.py",
        "from .b import VALUES\n\n__all__ = [\"VALUES\"]\n",
    );
    write(dir.path(), "pkg/b.py", "VALUES = [1, 2, 3]\n");
    write(
        dir.path(),
        "tests/unit/test_values.py",
        "import pytest\n\nfrom pkg import VALUES\n\n\n@pytest.mark.parametrize(\"v\", VALUES)\ndef test_v(v):\n    assert v\n",
    );
    write(
        dir.path(),
        "tests/other/test_more.py",
        "def test_more():\n    pass\n",
    );
    let one = run(dir.path(), &["collect", "--threads", "1", "--no-cache"]);
    let many = run(dir.path(), &["collect", "--threads", "2", "--no-cache"]);
    assert!(
        one.contains("tests/unit/test_values.py::test_v[3]"),
        "{one}"
    );
    assert_eq!(one, many);
    // Cold, with the cache written, then warm.
    let cold = run(dir.path(), &["collect", "--threads", "1"]);
    let warm = run(dir.path(), &["collect", "--threads", "1"]);
    assert_eq!(cold, many);
    assert_eq!(warm, many);
}

/// `proctor collect --json | head -c 100`: standard output closed while a
/// cold run writes its document (from a worker, beside the pack) is not
/// an error, and the cache it wrote serves the whole document next time.
/// The document is larger than a pipe's buffer, so the writer blocks until
/// the reader has gone and then gets `EPIPE`, whatever the timing.
#[test]
fn a_closed_standard_output_ends_a_cold_collect_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pytest.ini", "[pytest]\ntestpaths = tests\n");
    write(
        dir.path(),
        "tests/test_many.py",
        "import pytest\n\n\n@pytest.mark.parametrize(\"n\", range(4000))\ndef test_n(n):\n    pass\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["collect", "--json"])
        .current_dir(dir.path())
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("PYTHONPATH")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // The pipe's read end is closed here, with the document mostly unread.
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert!(head.starts_with(b"{\"version\":2,"));
    let whole = common::run(dir.path(), &["collect", "--json"]);
    let uncached = common::run(dir.path(), &["collect", "--json", "--no-cache"]);
    assert_eq!(whole, uncached);
    assert!(
        whole.contains("tests/test_many.py::test_n[3999]"),
        "{whole}"
    );
}
