//! `proctor run -n N` over temporary projects with real pytest: each
//! worker imports only its share of the files, every test runs once, and
//! a crash in one worker loses no test of its share. (Outcomes against
//! serial bare pytest on every fixture suite: `run_differential.rs`;
//! Ctrl-C stopping every worker: `cli_signals.rs`.) Needs
//! `PROCTOR_TEST_PYTHON` (scripts/test sets it).

mod common;

use common::test_python as python;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

use common::{text, write};

fn proctor(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .arg("--python")
        .arg(python())
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap()
}

/// Each test's outcome in a JSON report.
fn outcomes(path: &Path) -> BTreeMap<String, String> {
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["nodeid"].as_str().unwrap().to_owned(),
                t["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A module that writes `<its name> <pid>` to `imports.log` when pytest
/// imports it, with a passing and a failing test.
fn module(name: &str) -> String {
    format!(
        "import os\n\nwith open('imports.log', 'a') as f:\n    f.write('{name} %d\\n' % os.getpid())\n\n\
         def test_passes():\n    pass\n\ndef test_fails():\n    assert False\n"
    )
}

#[test]
fn each_worker_imports_only_its_share_and_every_test_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let names = ["test_a", "test_b", "test_c", "test_d"];
    for name in names {
        write(root, &format!("{name}.py"), &module(name));
    }
    let output = proctor(root, &["-n", "2", "--json", "report.json"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let log = std::fs::read_to_string(root.join("imports.log")).unwrap();
    let imports: Vec<(&str, &str)> = log
        .lines()
        .map(|line| line.split_once(' ').unwrap())
        .collect();
    let modules: BTreeSet<&str> = imports.iter().map(|(m, _)| *m).collect();
    let pids: BTreeSet<&str> = imports.iter().map(|(_, p)| *p).collect();
    assert_eq!(imports.len(), 4, "each module imported once:\n{log}");
    assert_eq!(modules.len(), 4, "{log}");
    assert_eq!(pids.len(), 2, "two workers:\n{log}");
    let got = outcomes(&root.join("report.json"));
    let mut want = BTreeMap::new();
    for name in names {
        want.insert(format!("{name}.py::test_passes"), "passed".to_owned());
        want.insert(format!("{name}.py::test_fails"), "failed".to_owned());
    }
    assert_eq!(got, want, "{}", text(&output));
    assert!(
        text(&output).contains("4 failed, 4 passed"),
        "one summary of both workers:\n{}",
        text(&output)
    );
    // Again, shared out by the durations the first run recorded.
    std::fs::remove_file(root.join("imports.log")).unwrap();
    let again = proctor(root, &["-n", "2", "--json", "report.json"]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    let log = std::fs::read_to_string(root.join("imports.log")).unwrap();
    assert_eq!(log.lines().count(), 4, "{log}");
    assert_eq!(outcomes(&root.join("report.json")), want);
}

#[test]
fn a_crash_in_one_worker_loses_no_test() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "test_crash.py",
        "import os, signal\n\ndef test_before():\n    pass\n\ndef test_killed():\n    os.kill(os.getpid(), signal.SIGKILL)\n\ndef test_after():\n    pass\n",
    );
    write(
        root,
        "test_other.py",
        "def test_one():\n    pass\n\ndef test_two():\n    pass\n",
    );
    let output = proctor(root, &["-n", "2", "--json", "report.json", "--no-history"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let got = outcomes(&root.join("report.json"));
    let want: BTreeMap<String, String> = [
        ("test_crash.py::test_before", "passed"),
        ("test_crash.py::test_killed", "crashed"),
        ("test_crash.py::test_after", "passed"),
        ("test_other.py::test_one", "passed"),
        ("test_other.py::test_two", "passed"),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_owned(), o.to_owned()))
    .collect();
    assert_eq!(got, want, "{}", text(&output));
}

#[test]
fn a_bad_worker_count_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "test_a.py", "def test_a():\n    pass\n");
    let output = proctor(dir.path(), &["-n", "many"]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output));
    assert!(
        text(&output).contains("-n: expected a number of workers or `auto`, got `many`"),
        "{}",
        text(&output)
    );
    let output = proctor(dir.path(), &["-n", "auto"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
}
