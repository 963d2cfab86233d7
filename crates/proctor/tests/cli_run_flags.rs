//! pytest's own flags on `proctor run` (`-x`, `--maxfail`, `-p`, `-o`,
//! `-r`, `-q`, `-v`, `--lf`, `--ff`, `--co`), usage errors, a job's `env`
//! at the services' probes, and pytest-xdist's `-n`. Differential against
//! bare pytest where pytest has an answer. Needs `PROCTOR_TEST_PYTHON`
//! (scripts/test sets it); the pytest-xdist test runs only with
//! `PROCTOR_TEST_XDIST_PYTHON` (a Python with pytest-xdist).

mod common;

use common::test_python as python;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{text, write};

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/harness")
        .canonicalize()
        .unwrap()
}

/// `proctor run ARGS` in `dir` with `python`, the project importable.
fn proctor_with(python: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .arg("--python")
        .arg(python)
        .args(args)
        .current_dir(dir)
        .env("PYTHONPATH", dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap()
}

fn proctor(dir: &Path, args: &[&str]) -> Output {
    proctor_with(&python(), dir, args)
}

/// Bare pytest's outcomes (through `tests/harness/dump_outcomes.py`) and
/// exit status with `args`.
fn pytest_outcomes(python: &Path, dir: &Path, args: &[&str]) -> (BTreeMap<String, String>, i32) {
    let out = tempfile::tempdir().unwrap();
    let dump = out.path().join("pytest.json");
    let output = Command::new(python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "dump_outcomes",
            "-p",
            "no:cacheprovider",
        ])
        .args(args)
        .current_dir(dir)
        .env(
            "PYTHONPATH",
            format!("{}:{}", harness().display(), dir.display()),
        )
        .env("PROCTOR_DUMP", &dump)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    let dumped = std::fs::read_to_string(&dump)
        .unwrap_or_else(|_| panic!("pytest wrote no dump: {}", text(&output)));
    let doc: serde_json::Value = serde_json::from_str(&dumped).unwrap();
    let outcomes = doc["outcomes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect();
    (outcomes, output.status.code().unwrap_or(-1))
}

/// proctor's outcomes (from its JSON report), exit status and output with
/// `args` (proctor's flags, then `-- ...`).
fn proctor_outcomes(
    python: &Path,
    dir: &Path,
    args: &[&str],
) -> (BTreeMap<String, String>, i32, String) {
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("proctor.json");
    let mut all = vec!["--no-history", "--json", report.to_str().unwrap()];
    all.extend(args);
    let output = proctor_with(python, dir, &all);
    let log = text(&output);
    let dumped = std::fs::read_to_string(&report)
        .unwrap_or_else(|_| panic!("proctor wrote no report: {log}"));
    let doc: serde_json::Value = serde_json::from_str(&dumped).unwrap();
    let outcomes = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["nodeid"].as_str().unwrap().to_owned(),
                common::outcome_word(t),
            )
        })
        .collect();
    (outcomes, output.status.code().unwrap_or(-1), log)
}

/// The same outcomes and exit status as bare pytest given `theirs`.
fn same_as_pytest(python: &Path, dir: &Path, ours: &[&str], theirs: &[&str]) -> String {
    let (expected, their_status) = pytest_outcomes(python, dir, theirs);
    let (got, our_status, log) = proctor_outcomes(python, dir, ours);
    assert_eq!(
        got, expected,
        "proctor run {ours:?} against pytest {theirs:?}\n{log}"
    );
    assert_eq!(
        our_status, their_status,
        "proctor run {ours:?} against pytest {theirs:?}\n{log}"
    );
    log
}

/// Two failures among passes, skips and xfails: where `-x` and
/// `--maxfail` stop matters.
fn mixed_suite(root: &Path) {
    write(
        root,
        "test_mixed.py",
        "import pytest\n\ndef test_a():\n    pass\n\ndef test_b():\n    assert 1 == 2\n\n@pytest.mark.skip(reason='not today')\ndef test_c():\n    pass\n\ndef test_d():\n    pytest.skip('skipped inside')\n\n@pytest.mark.xfail(reason='known bug')\ndef test_e():\n    assert False\n\ndef test_f():\n    raise ValueError('second failure')\n\ndef test_g():\n    pass\n",
    );
    write(root, "test_more.py", "def test_h():\n    pass\n");
}

#[test]
fn exitfirst_and_maxfail_stop_where_bare_pytest_stops() {
    let dir = tempfile::tempdir().unwrap();
    mixed_suite(dir.path());
    let python = python();
    let log = same_as_pytest(&python, dir.path(), &["-x"], &["-x"]);
    assert!(log.contains("NOT RUN test_mixed.py::test_c"), "{log}");
    same_as_pytest(&python, dir.path(), &["--exitfirst"], &["--exitfirst"]);
    same_as_pytest(&python, dir.path(), &["--maxfail", "2"], &["--maxfail=2"]);
    same_as_pytest(&python, dir.path(), &["--maxfail=1"], &["--maxfail", "1"]);
    same_as_pytest(&python, dir.path(), &[], &[]);
}

#[test]
fn plugins_and_ini_overrides_reach_pytest_and_the_static_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "test_checks.py", "def check_one():\n    pass\n\ndef check_two():\n    assert False\n\ndef test_plain():\n    pass\n");
    write(
        root,
        "skipper.py",
        "import pytest\n\n@pytest.hookimpl(tryfirst=True)\ndef pytest_runtest_setup(item):\n    if item.name.endswith('two'):\n        pytest.skip('skipped by the plugin')\n",
    );
    let python = python();
    // `-o python_functions=check_*`: the static pass collects the same
    // functions pytest does (nothing is reported as drift).
    let log = same_as_pytest(
        &python,
        root,
        &["-o", "python_functions=check_*"],
        &["-o", "python_functions=check_*"],
    );
    assert!(!log.contains("DRIFT"), "{log}");
    assert!(log.contains("(1 of 1 files to import)"), "{log}");
    same_as_pytest(
        &python,
        root,
        &["-o", "python_functions=check_*", "-p", "skipper"],
        &["-o", "python_functions=check_*", "-p", "skipper"],
    );
    same_as_pytest(
        &python,
        root,
        &[
            "--override-ini=python_functions=check_*",
            "-p",
            "skipper",
            "-x",
        ],
        &["-o", "python_functions=check_*", "-p", "skipper", "-x"],
    );
}

/// The lines of the short test summary (between its header and the
/// closing line), without colors.
fn short_summary(output: &str) -> Vec<String> {
    let lines: Vec<&str> = output.lines().collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.contains("short test summary info"))
    else {
        return Vec::new();
    };
    let end = lines
        .iter()
        .rposition(|l| l.contains(" in ") && (l.contains("passed") || l.contains("failed")))
        .unwrap();
    lines[start + 1..end]
        .iter()
        .map(|l| (*l).to_owned())
        .collect()
}

#[test]
fn the_short_summary_lists_what_pytests_r_chars_select_as_pytest_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    mixed_suite(dir.path());
    let python = python();
    for chars in [
        None,
        Some("a"),
        Some("s"),
        Some("fEsxX"),
        Some("N"),
        Some("A"),
    ] {
        let mut ours = vec!["--no-history"];
        let mut theirs = vec!["-m", "pytest", "-p", "no:cacheprovider"];
        let flag = chars.map(|c| format!("-r{c}"));
        if let Some(flag) = &flag {
            ours.push(flag);
            theirs.push(flag);
        }
        let proctor_output = text(&proctor(dir.path(), &ours));
        let pytest_output = Command::new(&python)
            .args(&theirs)
            .current_dir(dir.path())
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        let expected: Vec<String> = short_summary(&text(&pytest_output))
            .into_iter()
            .filter(|l| !l.starts_with("PASSED"))
            .collect();
        let got: Vec<String> = short_summary(&proctor_output)
            .into_iter()
            .filter(|l| !l.starts_with("PASSED"))
            .collect();
        assert_eq!(got, expected, "-r {chars:?}\n{proctor_output}");
        if chars.is_none() {
            assert_eq!(
                got.len(),
                2,
                "pytest's default `fE` lists the failures only\n{proctor_output}"
            );
        }
    }
    // `-rA` lists the passes too, as pytest does.
    let all = text(&proctor(dir.path(), &["--no-history", "-rA"]));
    assert!(all.contains("PASSED test_mixed.py::test_a"), "{all}");
    // The last `-r` of addopts is the default.
    write(dir.path(), "pytest.ini", "[pytest]\naddopts = -rs\n");
    let from_addopts = text(&proctor(dir.path(), &["--no-history"]));
    assert!(
        short_summary(&from_addopts)
            .iter()
            .all(|l| l.starts_with("SKIPPED")),
        "{from_addopts}"
    );
    assert!(
        from_addopts.contains("SKIPPED [1] test_mixed.py:14: skipped inside"),
        "{from_addopts}"
    );
}

#[test]
fn quiet_and_verbose_change_how_much_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    mixed_suite(dir.path());
    let normal = text(&proctor(dir.path(), &["--no-history"]));
    assert!(normal.starts_with("proctor run: every item"), "{normal}");
    let quiet = proctor(dir.path(), &["--no-history", "-q"]);
    let quiet_text = text(&quiet);
    assert!(!quiet_text.contains("proctor run:"), "{quiet_text}");
    assert_eq!(quiet.status.code(), Some(1));
    let last = quiet_text.lines().last().unwrap();
    assert!(
        last.starts_with("2 failed, 3 passed, 2 skipped, 1 xfailed in "),
        "pytest -q's closing line, without rules: {quiet_text}"
    );
    assert!(
        quiet_text.lines().next().unwrap().starts_with(".F"),
        "{quiet_text}"
    );
    let quieter = text(&proctor(dir.path(), &["--no-history", "-qq"]));
    assert!(!quieter.contains(".F"), "{quieter}");
    assert!(
        quieter.contains("FAILED test_mixed.py::test_b"),
        "{quieter}"
    );
    let verbose = text(&proctor(dir.path(), &["--no-history", "-v"]));
    assert!(
        verbose.contains("test_mixed.py::test_a PASSED\n"),
        "{verbose}"
    );
    let very = text(&proctor(dir.path(), &["--no-history", "-vv"]));
    assert!(
        very.contains("test_mixed.py::test_c SKIPPED (not today) ["),
        "{very}"
    );
    assert!(very.contains("test_mixed.py::test_a PASSED ["), "{very}");
}

#[test]
fn last_failed_and_failed_first_come_from_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    mixed_suite(root);
    // Nothing recorded yet: everything runs, and proctor says so.
    let first = proctor(root, &["--lf", "-v"]);
    let first_text = text(&first);
    assert!(first_text.contains("run-last-failure (--lf): no previously failed tests in the history, not deselecting items."), "{first_text}");
    assert!(
        first_text.contains("test_more.py::test_h PASSED"),
        "{first_text}"
    );
    assert_eq!(first.status.code(), Some(1));
    // No pytest cache is read: pytest's is disabled.
    let again = proctor(root, &["--lf", "-v", "--", "-p", "no:cacheprovider"]);
    let again_text = text(&again);
    assert!(
        again_text.contains("rerun previous 2 failures (from the history)"),
        "{again_text}"
    );
    let ran: Vec<&str> = again_text
        .lines()
        .filter(|l| l.ends_with(" PASSED") || l.ends_with(" FAILED"))
        .collect();
    assert_eq!(
        ran,
        [
            "test_mixed.py::test_b FAILED",
            "test_mixed.py::test_f FAILED"
        ],
        "{again_text}"
    );
    assert!(again_text.contains("6 deselected"), "{again_text}");
    assert_eq!(again.status.code(), Some(1));
    // `--ff`: the failures first, then the rest in pytest's order.
    let ff = text(&proctor(root, &["--ff", "-v"]));
    let order: Vec<&str> = ff
        .lines()
        .filter(|l| l.starts_with("test_") && l.contains("::"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        &order[..3],
        [
            "test_mixed.py::test_b",
            "test_mixed.py::test_f",
            "test_mixed.py::test_a"
        ],
        "{ff}"
    );
    assert_eq!(order.len(), 8, "{ff}");
    // Fixed: a test leaves the failures once it passes.
    write(
        root,
        "test_mixed.py",
        "def test_b():\n    pass\n\ndef test_f():\n    pass\n",
    );
    let fixed = text(&proctor(root, &["--lf", "-v"]));
    assert!(fixed.contains("rerun previous 2 failures"), "{fixed}");
    let after = text(&proctor(root, &["--lf", "-v"]));
    assert!(
        after.contains("no previously failed tests in the history, not deselecting items"),
        "{after}"
    );
    // `--lf` and `--no-history` contradict each other.
    let both = proctor(root, &["--lf", "--no-history"]);
    assert_eq!(both.status.code(), Some(4), "{}", text(&both));
}

#[test]
fn collect_only_lists_the_static_selection_without_running_anything() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    mixed_suite(root);
    write(
        root,
        "conftest.py",
        "import pathlib\npathlib.Path('imported').write_text('1')\n",
    );
    let output = proctor(root, &["--co", "-k", "test_a or test_c or test_h"]);
    let listed = text(&output);
    assert_eq!(output.status.code(), Some(0), "{listed}");
    assert!(listed.starts_with("test_mixed.py::test_a\ntest_mixed.py::test_c\ntest_more.py::test_h\n\n3 tests selected, from static collection"), "{listed}");
    assert!(!root.join("imported").exists(), "nothing is imported");
    let none = proctor(root, &["--collect-only", "-k", "nothing_matches"]);
    assert_eq!(none.status.code(), Some(5), "{}", text(&none));
}

#[test]
fn usage_errors_exit_4_and_unknown_pytest_options_get_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    mixed_suite(dir.path());
    for (args, hint) in [
        (
            &["run", "--tb=short"][..],
            "pass pytest options after --: proctor run -- --tb=short",
        ),
        (
            &["run", "--durations", "5"],
            "pass pytest options after --: proctor run -- --durations 5",
        ),
        (
            &["run", "--numprocesses", "2"],
            "pytest-xdist's workers are not supported: `proctor run -n N` runs workers of proctor's own",
        ),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(4), "{args:?}: {}", text(&output));
        assert!(text(&output).contains(hint), "{args:?}: {}", text(&output));
    }
    for args in [
        &["collect", "--bogus"][..],
        &["select", "--bogus"],
        &["plan", "--bogus"],
        &["run", "--order", "sideways"],
        &["explain"],
        &["caps", "--bogus"],
        &["nonsense"],
        &[],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(4), "{args:?}: {}", text(&output));
    }
    // `check` and `coverage` exit 2 when they cannot run (docs/check.md).
    for args in [&["check", "--bogus"][..], &["coverage", "--bogus"]] {
        let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output));
    }
    for args in [&["--help"][..], &["run", "--help"], &["--version"]] {
        let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", text(&output));
    }
}

const SERVICE_CONFIG: &str = "[tool.pytest.ini_options]\nmarkers = ['ollama']\n\n\
     [tool.proctor.services.ollama]\naddress-env = 'OLLAMA_HOST'\ndefault-address = '127.0.0.1:9'\n\n\
     [tool.proctor.needs.ollama]\nservices = ['ollama']\n\n";

#[test]
fn a_jobs_env_is_where_its_services_are_probed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // A port that answers, for as long as the test holds it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    write(root, "pyproject.toml", &format!("{SERVICE_CONFIG}[tool.proctor.jobs.live]\nservices = ['ollama']\nenv = {{ OLLAMA_HOST = '{address}' }}\n"));
    write(root, "test_live.py", &format!("import os\nimport pytest\n\n@pytest.mark.ollama\ndef test_talks():\n    assert os.environ['OLLAMA_HOST'] == '{address}'\n"));
    let with_job = proctor(root, &["--job", "live", "-v", "--no-history"]);
    assert!(
        text(&with_job).contains("test_live.py::test_talks PASSED"),
        "{}",
        text(&with_job)
    );
    assert_eq!(with_job.status.code(), Some(0));
    // Without the job, the default address is probed, and nothing answers.
    let without = proctor(root, &["-v", "--no-history", "-rs"]);
    assert!(
        text(&without).contains("service ollama not reachable at 127.0.0.1:9"),
        "{}",
        text(&without)
    );
    // The generated workflow waits where the job's tests connect.
    let workflow = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["ci", "github"])
        .current_dir(root)
        .output()
        .unwrap();
    let workflow = text(&workflow);
    let (host, port) = address.rsplit_once(':').unwrap();
    assert!(
        workflow.contains(&format!("/dev/tcp/{host}/{port}")),
        "{workflow}"
    );
    assert!(!workflow.contains("/dev/tcp/127.0.0.1/9"), "{workflow}");
    drop(listener);
}

#[test]
fn xdist_workers_after_the_separator_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    mixed_suite(dir.path());
    for workers in [
        &["--", "-n", "2"][..],
        &["--", "--numprocesses=auto"],
        &["--", "-n4"],
        &["--", "--tx", "2*popen", "--dist", "load"],
    ] {
        let output = proctor(dir.path(), workers);
        assert_eq!(
            output.status.code(),
            Some(4),
            "{workers:?}: {}",
            text(&output)
        );
        assert!(
            text(&output).contains("pytest-xdist's workers are not supported"),
            "{}",
            text(&output)
        );
    }
}

/// With pytest-xdist installed: a suite whose `addopts` ask for workers
/// runs in one process (`-n 0`), with bare pytest's outcomes and status
/// (bare pytest runs it with its workers), and says so once.
#[test]
fn addopts_asking_for_xdist_workers_still_run() {
    let Some(python) = std::env::var_os("PROCTOR_TEST_XDIST_PYTHON").map(PathBuf::from) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    mixed_suite(root);
    write(
        root,
        "pytest.ini",
        "[pytest]\naddopts = -n 2 --dist loadscope\n",
    );
    let log = same_as_pytest(&python, root, &[], &[]);
    assert_eq!(
        log.matches("addopts ask pytest-xdist for `-n 2`").count(),
        1,
        "{log}"
    );
    same_as_pytest(&python, root, &["-x"], &["-x", "-n", "0"]);
    // `-n 0` after `--` is what proctor does anyway.
    same_as_pytest(&python, root, &["--", "-n", "0"], &[]);
    // xdist importable, no workers asked: as without it.
    std::fs::remove_file(root.join("pytest.ini")).unwrap();
    same_as_pytest(&python, root, &[], &[]);
}

/// A test proctor skips is placed in `-rs` as pytest places the skip
/// marker the bridge adds, whether its module is imported (another test
/// in it runs) or not (every test in it is skipped): the decorated test by
/// its line, the others folded per file.
#[test]
fn proctor_skips_are_placed_alike_with_or_without_importing_their_module() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pyproject.toml", SERVICE_CONFIG);
    let gated = "import pytest\n\npytestmark = pytest.mark.ollama\n\ndef test_one():\n    pass\n\ndef test_two():\n    pass\n\n@pytest.mark.parametrize('n', [1])\ndef test_three(n):\n    pass\n";
    write(root, "test_gated.py", gated);
    write(
        root,
        "test_mixed.py",
        "import pytest\n\n\n@pytest.mark.ollama\ndef test_one():\n    pass\n\n@pytest.mark.ollama\ndef test_two():\n    pass\n\n@pytest.mark.parametrize('n', [1])\n@pytest.mark.ollama\ndef test_three(n):\n    pass\n\ndef test_runs():\n    pass\n",
    );
    let output = text(&proctor(root, &["--no-history", "-rs"]));
    assert!(output.contains("(1 of 2 files to import)"), "{output}");
    let reason = "service ollama not reachable at 127.0.0.1:9";
    let lines = short_summary(&output);
    assert!(
        lines.contains(&format!("SKIPPED [2] test_gated.py: {reason}")),
        "{output}"
    );
    assert!(
        lines.contains(&format!("SKIPPED [1] test_gated.py:11: {reason}")),
        "{output}"
    );
    for line in [4, 8, 12] {
        assert!(
            lines.contains(&format!("SKIPPED [1] test_mixed.py:{line}: {reason}")),
            "{output}"
        );
    }
}

/// `-vv` gives pytest `pytest -vv`'s verbosity: its failures show the
/// full diff, as bare `pytest -vv` prints it; without it, as bare pytest.
#[test]
fn very_verbose_failures_have_pytests_full_diff() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "test_diff.py",
        "def test_lists():\n    assert [1, 2, 3] == [1, 2, 4]\n",
    );
    let bare = |flags: &[&str]| {
        let output = Command::new(python())
            .args(["-m", "pytest", "-p", "no:cacheprovider"])
            .args(flags)
            .current_dir(dir.path())
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        text(&output).contains("Full diff:")
    };
    let ours = |flags: &[&str]| {
        let mut args = vec!["--no-history"];
        args.extend(flags);
        text(&proctor(dir.path(), &args)).contains("Full diff:")
    };
    assert_eq!((ours(&["-vv"]), ours(&[])), (bare(&["-vv"]), bare(&[])));
    assert!(ours(&["-vv"]));
}

/// On the fixture suites without dynamic items or modules skipped at
/// import, `proctor run --co` lists exactly the node ids `pytest --co -q`
/// collects (the default selection is `addopts`' `-m`, as pytest's).
#[test]
fn collect_only_lists_what_pytest_collects() {
    let suites = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/suites")
        .canonicalize()
        .unwrap();
    for suite in [
        "basics",
        "fixtures",
        "inheritance",
        "markers",
        "naming",
        "parametrize",
        "unittest_cases",
    ] {
        let dir = suites.join(suite);
        let ours = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .args(["run", "--co", "--python"])
            .arg(python())
            .current_dir(&dir)
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        let theirs = Command::new(python())
            .args(["-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"])
            .current_dir(&dir)
            .env_remove("PYTEST_ADDOPTS")
            .env_remove("PYTHONPATH")
            .output()
            .unwrap();
        let ids = |output: &Output| {
            let mut ids: Vec<String> = String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter(|l| l.contains("::"))
                .map(str::to_owned)
                .collect();
            ids.sort();
            ids
        };
        assert!(!ids(&theirs).is_empty(), "{suite}: {}", text(&theirs));
        assert_eq!(ids(&ours), ids(&theirs), "{suite}");
        assert_eq!(ours.status.code(), theirs.status.code(), "{suite}");
    }
}
