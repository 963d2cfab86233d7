//! Run-level conformance on real suites: `proctor run` and bare pytest on
//! the same selection, in the same venv, give every test the same outcome
//! (passed, failed, skipped with its reason, xfailed, xpassed, error,
//! collection errors included) and the same exit status. The suites are
//! those marked `run-ci = true` in `tests/corpus/suites.toml`, compared by
//! `tests/corpus/corpus.py run --ci` (`corpus.py run` does all the suites
//! marked `run = true`). Both again with `proctor run -n 2` (two workers,
//! work stealing): per-test outcomes and exit status still those of
//! serial bare pytest.
//!
//! The suites must be fetched first (`tests/corpus/corpus.py fetch --ci`,
//! which `.ci/run` does; it needs `PyPI`). Without them this test says so and
//! passes, unless `PROCTOR_REQUIRE_CORPUS=1` (set by `.ci/run`) makes a
//! missing corpus a failure.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

#[test]
fn real_suites_run_as_bare_pytest_runs_them() {
    check_run_ci(Path::new(env!("CARGO_BIN_EXE_proctor")));
}

#[test]
fn real_suites_run_in_two_workers_as_bare_pytest_runs_them() {
    // corpus.py runs `PROCTOR run ARGS`: this one runs `proctor run -n 2
    // ARGS`.
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("proctor-n2");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nshift\nexec '{}' run -n 2 \"$@\"\n",
            env!("CARGO_BIN_EXE_proctor")
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&wrapper, permissions).unwrap();
    check_run_ci(&wrapper);
}

/// `corpus.py run --ci` with `proctor` as the proctor binary: every
/// run-ci suite agrees with bare pytest.
#[expect(
    clippy::print_stderr,
    reason = "the skip notice is for the person running the tests"
)]
fn check_run_ci(proctor: &Path) {
    // corpus.py writes its reports under the corpus's `out/` by suite
    // name: one run at a time.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let root = repo_root();
    let corpus =
        std::env::var_os("PROCTOR_CORPUS").map_or_else(|| root.join(".corpus"), PathBuf::from);
    let required = std::env::var_os("PROCTOR_REQUIRE_CORPUS").is_some_and(|v| v == "1");
    let listed = Command::new("python3")
        .arg(root.join("tests/corpus/corpus.py"))
        .args(["list", "--run-ci"])
        .env("PROCTOR_CORPUS", &corpus)
        .output()
        .expect("run tests/corpus/corpus.py list");
    assert!(
        listed.status.success(),
        "corpus.py list failed: {}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let listed = String::from_utf8(listed.stdout).unwrap();
    let suites: Vec<(&str, bool)> = listed
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(name, state)| (name, state == "fetched"))
        .collect();
    assert!(
        !suites.is_empty(),
        "the run-ci subset has at least one suite: {listed}"
    );
    if !suites.iter().all(|(_, fetched)| *fetched) {
        assert!(
            !required,
            "PROCTOR_REQUIRE_CORPUS=1 but the corpus is not fetched under {}:\n{listed}",
            corpus.display()
        );
        eprintln!("skipped: the corpus is not fetched (run `tests/corpus/corpus.py fetch --ci`)");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("corpus-run.json");
    // The script's own status says whether everything agreed; the rows say
    // what did not.
    let status = Command::new("python3")
        .arg(root.join("tests/corpus/corpus.py"))
        .args(["run", "--ci", "--show", "10", "--proctor"])
        .arg(proctor)
        .arg("--json")
        .arg(&report)
        .env("PROCTOR_CORPUS", &corpus)
        .env_remove("PYTEST_ADDOPTS")
        .status()
        .expect("run tests/corpus/corpus.py run");
    let rows: serde_json::Value = serde_json::from_slice(
        &std::fs::read(&report)
            .unwrap_or_else(|_| panic!("corpus.py run wrote no report ({status})")),
    )
    .unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(
        rows.len(),
        suites.len(),
        "one row per run-ci suite: {rows:?}"
    );
    let mut failures = Vec::new();
    for row in rows {
        let name = row["suite"].as_str().unwrap();
        let tests = row["tests"].as_u64().unwrap();
        let differences = row["differences"].as_array().unwrap();
        for problem in row["problems"].as_array().unwrap() {
            failures.push(format!("{name}: {}", problem.as_str().unwrap()));
        }
        if tests == 0 {
            failures.push(format!("{name}: pytest ran no test"));
        }
        if !differences.is_empty() {
            failures.push(format!(
                "{name}: {} of {tests} tests differ (first: {})",
                differences.len(),
                differences[0]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        status.success(),
        "corpus.py run failed ({status}) without a difference in its report"
    );
}
