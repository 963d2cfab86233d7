//! Differential tests of `proctor run`: on every fixture suite, the
//! outcome of each test is the one bare pytest gives it (the same default
//! selection, pytest's own classification of its reports), and the exit
//! status is pytest's. Needs `PROCTOR_TEST_PYTHON` (scripts/test sets it).

#![expect(
    clippy::print_stderr,
    reason = "a differential test reports what it compared as it goes"
)]

mod common;

use common::repo;
use common::test_python as python;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// What both runs get besides the selection: pytest arguments and
/// environment variables.
#[derive(Default)]
struct Extra<'a> {
    args: &'a [&'a str],
    env: &'a [(&'a str, &'a str)],
    /// proctor's own arguments (`-n 2`), for proctor only.
    proctor: &'a [&'a str],
}

/// pytest's outcomes, the reasons of the modules it skips whole, and its
/// exit status, through `tests/harness/dump_outcomes.py`.
fn pytest_outcomes(
    dir: &Path,
    out: &Path,
    selection: &[&str],
    extra: &Extra,
) -> (BTreeMap<String, String>, BTreeMap<String, String>, i32) {
    let dump = out.join("pytest.json");
    let status = Command::new(python())
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "dump_outcomes",
            "-p",
            "no:cacheprovider",
        ])
        .args(selection)
        .args(extra.args)
        .envs(extra.env.iter().copied())
        .current_dir(dir)
        .env("PYTHONPATH", repo().join("tests/harness"))
        .env("PROCTOR_DUMP", &dump)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&dump).unwrap_or_else(|_| {
        panic!(
            "pytest wrote no dump in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&status.stdout)
        )
    });
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let strings = |key: &str| {
        doc[key]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
            .collect()
    };
    (
        strings("outcomes"),
        strings("module_skip_reasons"),
        status.status.code().unwrap_or(-1),
    )
}

/// proctor's outcomes (as pytest words), each result's reason, and its
/// exit status; `extra` reaches pytest, with `tests/harness` importable.
fn proctor_outcomes(
    dir: &Path,
    out: &Path,
    selection: &[&str],
    extra: &Extra,
) -> (
    BTreeMap<String, String>,
    BTreeMap<String, String>,
    i32,
    String,
) {
    let report = out.join("proctor.json");
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .args(selection)
        .arg("--python")
        .arg(python())
        .arg("--json")
        .arg(&report)
        .args(extra.proctor)
        .args(["--no-history", "--", "-p", "no:cacheprovider"])
        .args(extra.args)
        .envs(extra.env.iter().copied())
        .current_dir(dir)
        .env("PYTHONPATH", repo().join("tests/harness"))
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|_| panic!("proctor wrote no report in {}: {stdout}", dir.display()));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tests = doc["tests"].as_array().unwrap();
    let outcomes = tests
        .iter()
        .map(|t| {
            (
                t["nodeid"].as_str().unwrap().to_owned(),
                common::outcome_word(t),
            )
        })
        .collect();
    let reasons = tests
        .iter()
        .filter_map(|t| {
            Some((
                t["nodeid"].as_str()?.to_owned(),
                t["reason"].as_str()?.to_owned(),
            ))
        })
        .collect();
    (
        outcomes,
        reasons,
        output.status.code().unwrap_or(-1),
        stdout,
    )
}

fn check(dir: &Path) {
    check_selection(dir, &[]);
}

/// The same `-m` / `-k` for both.
fn check_selection(dir: &Path, selection: &[&str]) {
    check_with(dir, selection, &Extra::default());
}

/// The same `-m` / `-k` and the same extras for both: how many tests
/// were compared.
fn check_with(dir: &Path, selection: &[&str], extra: &Extra) -> usize {
    let out = tempfile::tempdir().unwrap();
    let (theirs, module_skips, their_status) = pytest_outcomes(dir, out.path(), selection, extra);
    let (ours, reasons, our_status, log) = proctor_outcomes(dir, out.path(), selection, extra);
    // A module pytest skips whole (importorskip) is one skip, under the
    // module's node id, with pytest's reason: so it is in proctor's report.
    assert_eq!(
        ours,
        theirs,
        "outcomes differ in {} with {selection:?}\n{log}",
        dir.display()
    );
    for (module, reason) in &module_skips {
        assert_eq!(
            reasons.get(module),
            Some(reason),
            "the reason of the module skip {module}\n{log}"
        );
    }
    assert_eq!(
        our_status,
        their_status,
        "exit status differs in {} with {selection:?}\n{log}",
        dir.display()
    );
    eprintln!(
        "{} {selection:?}: {} tests, same outcomes, exit {their_status}",
        dir.display(),
        ours.len()
    );
    ours.len()
}

/// `proctor run -n 2` against serial bare pytest.
fn check_in_two_workers(dir: &Path) {
    check_with(
        dir,
        &[],
        &Extra {
            proctor: &["-n", "2"],
            ..Extra::default()
        },
    );
}

macro_rules! suites {
    ($check:ident: $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $check(&repo().join("tests/suites").join(stringify!($name)));
            }
        )*
    };
}

/// Every suite again, with two workers each importing its share.
mod two_workers {
    use super::*;

    suites!(
        check_in_two_workers: basics,
        discovery_config,
        discovery_defaults,
        dynamic,
        errors,
        fixtures,
        inheritance,
        markers,
        module_skips,
        naming,
        outcomes,
        parametrize,
        unittest_cases
    );

    #[test]
    fn demo() {
        check_in_two_workers(&repo().join("examples/demo"));
    }
}

suites!(
    check: basics,
    discovery_config,
    discovery_defaults,
    dynamic,
    errors,
    fixtures,
    inheritance,
    markers,
    naming,
    parametrize,
    unittest_cases
);

/// Every outcome pytest has, and selections over them.
#[test]
fn outcomes() {
    let dir = repo().join("tests/suites/outcomes");
    check(&dir);
    check_selection(&dir, &["-m", "not slow"]);
    check_selection(&dir, &["-m", "network and not slow"]);
    check_selection(&dir, &["-k", "param or group"]);
    check_selection(&dir, &["-m", "slow", "-k", "not class"]);
    check_selection(&dir, &["-m", "nothing_has_this"]);
}

/// Modules pytest skips while importing them (`importorskip` of a missing
/// module, `pytest.skip(allow_module_level=True)`): one skip each under the
/// module's node id, whether static collection foresaw it (the interpreter
/// known through `VIRTUAL_ENV`) or not (a module name computed at run time).
#[test]
fn module_skips() {
    let dir = repo().join("tests/suites/module_skips");
    check(&dir);
    let prefix = python()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    check_with(
        &dir,
        &[],
        &Extra {
            env: &[("VIRTUAL_ENV", &prefix)],
            ..Extra::default()
        },
    );
}

/// A plugin that runs each test itself (as pytest-rerunfailures does):
/// the bridge leaves it the hook and reads the reports, with the same
/// outcomes; the plugin's log shows that it ran the tests under proctor.
#[test]
fn outcomes_when_another_plugin_runs_the_tests() {
    let dir = repo().join("tests/suites/outcomes");
    let log = tempfile::NamedTempFile::new().unwrap();
    let path = log.path().to_str().unwrap();
    check_with(
        &dir,
        &["-m", "not slow"],
        &Extra {
            args: &["-p", "own_protocol"],
            env: &[("OWN_PROTOCOL_LOG", path)],
            ..Extra::default()
        },
    );
    let ran = std::fs::read_to_string(log.path()).unwrap();
    let under_proctor = ran
        .lines()
        .filter(|line| line.starts_with("proctor "))
        .count();
    let under_pytest = ran
        .lines()
        .filter(|line| line.starts_with("pytest "))
        .count();
    assert!(
        under_proctor > 5 && under_proctor == under_pytest,
        "the plugin ran {under_proctor} test(s) under proctor, {under_pytest} under pytest:\n{ran}"
    );
}

/// Modules pytest skips whole (a module-level `pytest.importorskip` of a
/// missing package, `pytest.skip(allow_module_level=True)`) count one
/// skip each with pytest's reason, whatever the selection picks in them
/// (the `errors` suite has the modules that do not import).
#[test]
fn module_skips_with_a_selection() {
    let dir = repo().join("tests/suites/module_skips");
    check_selection(&dir, &["-m", "not slow"]);
    check_selection(&dir, &["-m", "slow"]);
    check_selection(&dir, &["-k", "nothing_is_named_so"]);
}

/// pytest 9's `subtests` fixture: the same outcomes and exit status, and
/// the same terminal summary as bare pytest (the `FAILURES` titles of the
/// failed subtests, the `SUBFAILED` / `SUBSKIPPED` lines of `-rA`, the
/// counts with `subtests passed`), with subtests quiet (pytest's default)
/// and verbose.
#[test]
fn subtests() {
    let dir = repo().join("tests/suites/subtests");
    check(&dir);
    for args in [&["-rA"][..], &["-rA", "-o", "verbosity_subtests=1"]] {
        let pytest = Command::new(python())
            .args(["-m", "pytest", "-p", "no:cacheprovider"])
            .args(args)
            .current_dir(&dir)
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        let proctor = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .args(["run", "--no-history", "--python"])
            .arg(python())
            .args(["--", "-p", "no:cacheprovider"])
            .args(args)
            .current_dir(&dir)
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        let theirs = summary_of(&String::from_utf8_lossy(&pytest.stdout));
        let ours = summary_of(&String::from_utf8_lossy(&proctor.stdout));
        assert!(
            theirs.iter().any(|line| line.starts_with("SUBFAILED")),
            "{theirs:#?}"
        );
        assert_eq!(ours, theirs, "with {args:?}");
        assert_eq!(proctor.status.code(), pytest.status.code());
    }
    // The JUnit counts and elements as pytest's `--junit-xml` writes them:
    // a `<failure>` or `<skipped>` per subtest in its test's testcase.
    let out = tempfile::tempdir().unwrap();
    let (theirs, ours) = (
        out.path().join("pytest.xml"),
        out.path().join("proctor.xml"),
    );
    Command::new(python())
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--junit-xml",
        ])
        .arg(&theirs)
        .current_dir(&dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["run", "--no-history", "--python"])
        .arg(python())
        .arg("--junit-xml")
        .arg(&ours)
        .args(["--", "-p", "no:cacheprovider"])
        .current_dir(&dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    let junit = |path: &Path| {
        let xml = std::fs::read_to_string(path).unwrap();
        let suite = xml.split("<testsuite ").nth(1).unwrap_or_default();
        let attr = |name: &str| {
            suite
                .split(&format!(" {name}=\""))
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_default()
                .to_owned()
        };
        (
            ["errors", "failures", "skipped", "tests"].map(attr),
            xml.matches("<failure ").count(),
            xml.matches("<skipped ").count(),
        )
    };
    assert_eq!(junit(&ours), junit(&theirs));
}

/// The `FAILURES` section's titles, the short test summary's lines and the
/// closing counts (without the time) of a pytest-style output.
fn summary_of(output: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut failures = false;
    let mut short = false;
    for line in output.lines() {
        let bare = line.trim_matches(['=', '_', ' ']);
        if line.starts_with('=') {
            failures = bare == "FAILURES";
            short |= bare == "short test summary info";
            if short && bare != "short test summary info" {
                lines.push(bare.split(" in ").next().unwrap_or(bare).to_owned());
                break;
            }
        } else if failures && line.starts_with("___") {
            lines.push(format!("title: {bare}"));
        } else if short {
            lines.push(line.to_owned());
        }
    }
    lines
}

#[test]
fn demo() {
    check(&repo().join("examples/demo"));
}

/// A conftest pytest cannot load stops it before any session, with its
/// own exit status: 4 for one that does not import, 1 for a hook pluggy
/// rejects (boltons 24.1.0's `pytest_ignore_collect(path, config)` under
/// pytest 9). proctor exits with the same status, and so records it.
#[test]
fn a_conftest_pytest_cannot_load_exits_as_bare_pytest_does() {
    for (conftest, expected) in [
        ("import a_module_that_is_not_installed\n", 4),
        (
            "def pytest_ignore_collect(path, config):\n    return None\n",
            1,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        common::write(root, "pytest.ini", "[pytest]\n");
        common::write(root, "tests/conftest.py", conftest);
        common::write(root, "tests/test_a.py", "def test_a():\n    pass\n");
        let bare = common::bare_pytest(root, &[]);
        assert_eq!(
            bare.status.code(),
            Some(expected),
            "{}",
            common::text(&bare)
        );
        let report = root.join("report.json");
        let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .arg("run")
            .arg("--python")
            .arg(python())
            .arg("--json")
            .arg(&report)
            .args(["--no-history", "--", "-p", "no:cacheprovider"])
            .current_dir(root)
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        let log = common::text(&output);
        assert_eq!(output.status.code(), bare.status.code(), "{conftest}{log}");
        assert!(
            log.contains("pytest stopped before running any test"),
            "{log}"
        );
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(doc["summary"]["exit_code"], expected, "{log}");
    }
}

/// The scale benchmark's module (`bench/run/gen_params.py`: parametrized
/// tests whose values are large and shared, marks with arguments on the
/// module, the functions and some parameters) at a size a test can run:
/// every one of its 2,000 tests has bare pytest's outcome, and the exit
/// status is pytest's. `bench/run/scale.sh` compares every outcome of
/// the 100,000-test size the same way.
#[test]
fn scale_benchmark_module() {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("python3")
        .arg(repo().join("bench/run/gen_params.py"))
        .arg(dir.path())
        .args(["--tests", "2000"])
        .status()
        .unwrap();
    assert!(status.success(), "gen_params.py failed");
    assert_eq!(check_with(dir.path(), &[], &Extra::default()), 2000);
}

/// A `[[paths]]` rule's markers reach pytest's items, with their
/// arguments, as the conftest hook it replaces would add them: bare
/// pytest on the suite with the hook, `proctor run` on the same suite
/// with the rule instead. `filterwarnings("error::UserWarning")` turns a
/// warning into a failure, after the test's own filter (added marks come
/// after written ones); `legacy` is seen by the test; files the glob
/// misses get neither.
#[test]
fn path_rule_markers_reach_pytest_as_a_conftest_hook_adds_them() {
    let write_suite = |root: &Path| {
        common::write(
            root,
            "pytest.ini",
            "[pytest]\naddopts = --strict-markers\nmarkers =\n    legacy: the old tests\n",
        );
        let tests = "import warnings\n\nimport pytest\n\n\ndef test_warns():\n    warnings.warn(\"old\", UserWarning)\n\n\ndef test_marked(request):\n    assert request.node.get_closest_marker(\"legacy\") is not None\n\n\n@pytest.mark.filterwarnings(\"ignore::UserWarning\")\ndef test_own_filter_first():\n    warnings.warn(\"old\", UserWarning)\n";
        common::write(root, "tests/legacy/test_old.py", tests);
        common::write(
            root,
            "tests/new/test_new.py",
            "import warnings\n\n\ndef test_warns():\n    warnings.warn(\"new\", UserWarning)\n\n\ndef test_unmarked(request):\n    assert request.node.get_closest_marker(\"legacy\") is None\n",
        );
    };
    let with_hook = tempfile::tempdir().unwrap();
    write_suite(with_hook.path());
    common::write(
        with_hook.path(),
        "conftest.py",
        "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n    for item in items:\n        if \"legacy\" in item.path.parts:\n            item.add_marker(\"legacy\")\n            item.add_marker(pytest.mark.filterwarnings(\"error::UserWarning\"))\n",
    );
    let with_rule = tempfile::tempdir().unwrap();
    write_suite(with_rule.path());
    common::write(
        with_rule.path(),
        "proctor.toml",
        "[[paths]]\nglob = \"tests/legacy\"\nmarkers = [\"legacy\", { name = \"filterwarnings\", args = [\"error::UserWarning\"] }]\n",
    );
    let out = tempfile::tempdir().unwrap();
    let (theirs, _, their_status) =
        pytest_outcomes(with_hook.path(), out.path(), &[], &Extra::default());
    let (ours, _, our_status, log) =
        proctor_outcomes(with_rule.path(), out.path(), &[], &Extra::default());
    assert_eq!(
        theirs["tests/legacy/test_old.py::test_warns"], "failed",
        "{theirs:?}"
    );
    assert_eq!(ours, theirs, "{log}");
    assert_eq!(our_status, their_status, "{log}");
}
