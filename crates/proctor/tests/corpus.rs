//! The conformance corpus: real suites from pinned `PyPI` sdists
//! (`tests/corpus/suites.toml`), collected by real pytest and by proctor,
//! compared by `tests/corpus/corpus.py`.
//!
//! The suites must be fetched first (`tests/corpus/corpus.py fetch --ci`,
//! which `.ci/run` does; it needs `PyPI`). Without them this test says so and
//! passes, unless `PROCTOR_REQUIRE_CORPUS=1` (set by `.ci/run`) makes a
//! missing corpus a failure.
//!
//! For each suite marked `ci = true` it asserts that no pytest item is
//! missing and no proctor item is extra without a dynamic item that says
//! why, that the common items come in pytest's order, that every item
//! whose markers differ from pytest's has a reason (corpus.py's
//! `silent_marker_diffs` is empty), and that exact
//! agreement is at least the suite's recorded `floor`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

#[test]
#[expect(
    clippy::print_stderr,
    reason = "the skip notice is for the person running the tests"
)]
fn real_suites_collect_as_pytest_collects_them() {
    let root = repo_root();
    let corpus =
        std::env::var_os("PROCTOR_CORPUS").map_or_else(|| root.join(".corpus"), PathBuf::from);
    let required = std::env::var_os("PROCTOR_REQUIRE_CORPUS").is_some_and(|v| v == "1");
    let listed = Command::new("python3")
        .arg(root.join("tests/corpus/corpus.py"))
        .args(["list", "--ci"])
        .env("PROCTOR_CORPUS", &corpus)
        .output()
        .expect("run tests/corpus/corpus.py list");
    assert!(
        listed.status.success(),
        "corpus.py list failed: {}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let listed = String::from_utf8(listed.stdout).unwrap();
    let ci: Vec<(&str, bool)> = listed
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(name, state)| (name, state == "fetched"))
        .collect();
    assert!(
        ci.len() >= 6,
        "the CI subset has at least six suites: {listed}"
    );
    if !ci.iter().all(|(_, fetched)| *fetched) {
        assert!(
            !required,
            "PROCTOR_REQUIRE_CORPUS=1 but the corpus is not fetched under {}:\n{listed}",
            corpus.display()
        );
        eprintln!("skipped: the corpus is not fetched (run `tests/corpus/corpus.py fetch --ci`)");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("corpus.json");
    let status = Command::new("python3")
        .arg(root.join("tests/corpus/corpus.py"))
        .args([
            "collect",
            "--ci",
            "--show",
            "5",
            "--proctor",
            env!("CARGO_BIN_EXE_proctor"),
            "--json",
        ])
        .arg(&report)
        .env("PROCTOR_CORPUS", &corpus)
        .status()
        .expect("run tests/corpus/corpus.py");
    assert!(status.success(), "corpus.py failed");
    let rows: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let mut failures = Vec::new();
    for row in rows.as_array().unwrap() {
        let name = row["suite"].as_str().unwrap();
        let floor = row["floor"].as_f64().unwrap_or(1.0);
        let agreement = row["agreement"].as_f64().unwrap();
        let missing = row["missing"].as_array().unwrap();
        let extra = row["extra"].as_array().unwrap();
        if !missing.is_empty() || !extra.is_empty() {
            failures.push(format!(
                "{name}: {} missing, {} extra without a dynamic reason (first: {:?})",
                missing.len(),
                extra.len(),
                missing.iter().chain(extra).next()
            ));
        }
        if row["same_order"] != true {
            failures.push(format!("{name}: items not in pytest's order"));
        }
        let marker_diffs = row["marker_diffs"].as_array().map_or(0, Vec::len);
        let allowed = usize::try_from(row["marker_diffs_allowed"].as_u64().unwrap_or(0)).unwrap();
        if marker_diffs > allowed {
            failures.push(format!("{name}: {marker_diffs} items whose markers differ from pytest's, {allowed} allowed (first: {})", row["marker_diffs"][0]));
        }
        let silent = row["silent_marker_diffs"].as_array().map_or(0, Vec::len);
        if silent > 0 {
            failures.push(format!(
                "{name}: {silent} items whose markers differ from pytest's with no reason (first: {})",
                row["silent_marker_diffs"][0]
            ));
        }
        if agreement + 1e-9 < floor {
            failures.push(format!(
                "{name}: exact agreement {agreement:.4} below its floor {floor}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
