//! Examples and notebooks that opt in (`[examples]`, `[notebooks]`),
//! against the reference: bare pytest with the collector the Mellea
//! document describes (`tests/harness/opt_in_reference.py`) and nbmake.
//! proctor must collect the same items with the same markers, and its run
//! must give them the same outcomes. Then the timeouts, and what `check`
//! and `plan` say about them. Needs `PROCTOR_TEST_PYTHON` with nbclient,
//! ipykernel and nbmake (scripts/test installs tests/requirements.txt).

mod common;

use common::repo;
use common::test_python as python;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{copy_of, text, write};
use serde_json::Value;

fn suite() -> PathBuf {
    repo().join("tests/suites/opt_in")
}

/// The suite copied to a temporary directory, so runs leave nothing in
/// the repository (`.proctor/`, notebook outputs).
fn copy_of_suite() -> tempfile::TempDir {
    copy_of(&suite())
}

/// bare pytest with the reference collector and nbmake, plus `plugin`
/// (a harness dump plugin) writing to `dump`.
fn reference_pytest(dir: &Path, plugin: &str, dump: &Path, extra: &[&str]) -> Output {
    Command::new(python())
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "opt_in_reference",
            "-p",
            plugin,
            "-p",
            "no:cacheprovider",
            "--nbmake",
        ])
        .args(extra)
        .arg("docs")
        .current_dir(dir)
        .env("PYTHONPATH", repo().join("tests/harness"))
        .env("PROCTOR_DUMP", dump)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap()
}

fn proctor(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap()
}

/// Node ids with their marker names (sorted, `skip` aside: the reference
/// and proctor word skip reasons differently), in collection order.
fn items_with_markers(items: &[Value]) -> Vec<(String, Vec<String>)> {
    items
        .iter()
        .map(|item| {
            let mut names: Vec<String> = item["markers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["name"].as_str().unwrap().to_owned())
                .filter(|n| n != "skip")
                .collect();
            names.sort();
            (item["nodeid"].as_str().unwrap().to_owned(), names)
        })
        .collect()
}

#[test]
fn collection_matches_the_reference_collector_and_nbmake() {
    let dir = copy_of_suite();
    let dump = dir.path().join("pytest.json");
    let output = reference_pytest(dir.path(), "dump_items", &dump, &["--collect-only"]);
    let theirs: Value = serde_json::from_str(
        &std::fs::read_to_string(&dump).unwrap_or_else(|_| panic!("no dump: {}", text(&output))),
    )
    .unwrap();
    let theirs = items_with_markers(theirs["items"].as_array().unwrap());
    let output = proctor(dir.path(), &["collect", "docs", "--json"]);
    let ours = common::inline_markers(
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&output))),
    );
    let ours = items_with_markers(ours["items"].as_array().unwrap());
    assert_eq!(
        ours, theirs,
        "proctor (left) and the reference (right) collect different items or markers"
    );
    assert_eq!(
        theirs.len(),
        7,
        "the suite has 3 examples and 4 notebooks: {theirs:?}"
    );
}

#[test]
fn outcomes_match_the_reference() {
    let dir = copy_of_suite();
    let dump = dir.path().join("pytest.json");
    let output = reference_pytest(
        dir.path(),
        "dump_outcomes",
        &dump,
        &["--nbmake-timeout=120"],
    );
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(&dump).unwrap_or_else(|_| panic!("no dump: {}", text(&output))),
    )
    .unwrap();
    let theirs: BTreeMap<String, String> = doc["outcomes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect();
    let their_status = output.status.code();
    let report = dir.path().join("proctor.json");
    let output = proctor(
        dir.path(),
        &[
            "run",
            "docs",
            "--python",
            python().to_str().unwrap(),
            "--no-history",
            "--json",
            report.to_str().unwrap(),
        ],
    );
    let log = text(&output);
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(&report).unwrap_or_else(|_| panic!("no report: {log}")),
    )
    .unwrap();
    let tests = doc["tests"].as_array().unwrap();
    let ours: BTreeMap<String, String> = tests
        .iter()
        .map(|t| {
            (
                t["nodeid"].as_str().unwrap().to_owned(),
                common::outcome_word(t),
            )
        })
        .collect();
    assert_eq!(ours, theirs, "outcomes differ\n{log}");
    assert_eq!(output.status.code(), their_status, "{log}");
    let expected = [
        ("docs/examples/hello.py::hello.py", "passed"),
        ("docs/examples/fails.py::fails.py", "failed"),
        ("docs/examples/skips_itself.py::skips_itself.py", "skipped"),
        ("docs/notebooks/intro.ipynb::intro.ipynb", "passed"),
        ("docs/notebooks/fails.ipynb::fails.ipynb", "failed"),
        ("docs/notebooks/no_block.ipynb::no_block.ipynb", "skipped"),
        (
            "docs/notebooks/needs_package.ipynb::needs_package.ipynb",
            "skipped",
        ),
    ];
    for (nodeid, outcome) in expected {
        assert_eq!(
            ours.get(nodeid).map(String::as_str),
            Some(outcome),
            "{nodeid}\n{log}"
        );
    }
    // What the report says about each, in the words a maintainer needs.
    let find = |nodeid: &str| tests.iter().find(|t| t["nodeid"] == nodeid).unwrap();
    let failed = find("docs/examples/fails.py::fails.py")["message"]
        .as_str()
        .unwrap();
    assert!(
        failed.contains("example exited with status 1")
            && failed.contains("about to fail")
            && failed.contains("boom"),
        "{failed}"
    );
    let notebook = find("docs/notebooks/fails.ipynb::fails.ipynb")["message"]
        .as_str()
        .unwrap();
    assert!(
        notebook.contains("ZeroDivisionError") && !notebook.contains('\u{1b}'),
        "{notebook}"
    );
    assert_eq!(
        find("docs/examples/skips_itself.py::skips_itself.py")["reason"],
        "needs a pulled model"
    );
    assert_eq!(
        find("docs/notebooks/needs_package.ipynb::needs_package.ipynb")["reason"],
        "package surely_not_installed_pkg not installed"
    );
    assert!(
        find("docs/notebooks/no_block.ipynb::no_block.ipynb")["reason"]
            .as_str()
            .unwrap()
            .starts_with("notebook has no `mellea` metadata block")
    );
    // The notebooks with a missing package or without a block are not even
    // handed to pytest.
    assert!(log.contains("(5 of 7 files to import)"), "{log}");
}

#[test]
fn per_cell_and_whole_notebook_timeouts_are_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[tool.pytest.ini_options]\nmarkers = ['e2e']\n\n[tool.proctor.examples]\npaths = ['examples']\ntimeout = 1\n\n[tool.proctor.notebooks]\npaths = ['notebooks']\ncell-timeout = 3\ntimeout = 12\n",
    );
    write(
        root,
        "examples/sleeps.py",
        "# pytest: e2e\nimport time\ntime.sleep(30)\n",
    );
    let notebook = |cells: &[&str]| {
        let cells: Vec<Value> = cells
            .iter()
            .enumerate()
            .map(|(i, source)| serde_json::json!({"cell_type": "code", "id": format!("c{i}"), "execution_count": null, "metadata": {}, "outputs": [], "source": source}))
            .collect();
        serde_json::json!({"cells": cells, "metadata": {"proctor": {"markers": ["e2e"]}, "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}).to_string()
    };
    write(
        root,
        "notebooks/slow_cell.ipynb",
        &notebook(&["import time\ntime.sleep(60)"]),
    );
    write(
        root,
        "notebooks/slow_notebook.ipynb",
        &notebook(&["import time\ntime.sleep(2)"; 8]),
    );
    let report = root.join("report.json");
    let output = proctor(
        root,
        &[
            "run",
            "examples",
            "notebooks",
            "--python",
            python().to_str().unwrap(),
            "--no-history",
            "--json",
            report.to_str().unwrap(),
        ],
    );
    let log = text(&output);
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(&report).unwrap_or_else(|_| panic!("no report: {log}")),
    )
    .unwrap();
    let message = |nodeid: &str| {
        let test = doc["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["nodeid"] == nodeid)
            .unwrap_or_else(|| panic!("{nodeid}: {log}"));
        assert_eq!(test["outcome"], "failed", "{nodeid}: {log}");
        test["message"].as_str().unwrap().to_owned()
    };
    assert!(
        message("examples/sleeps.py::sleeps.py")
            .contains("example ran over its 1 s timeout ([examples] timeout)"),
        "{log}"
    );
    assert!(
        message("notebooks/slow_cell.ipynb::slow_cell.ipynb")
            .contains("a cell ran over its 3 s timeout ([notebooks] cell-timeout)"),
        "{log}"
    );
    assert!(
        message("notebooks/slow_notebook.ipynb::slow_notebook.ipynb")
            .contains("notebook ran over its 12 s timeout ([notebooks] timeout)"),
        "{log}"
    );
}

#[test]
fn a_notebook_timeout_shorter_than_a_cell_is_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pyproject.toml", "[tool.pytest.ini_options]\n\n[tool.proctor.notebooks]\npaths = ['nb']\ncell-timeout = 1200\n");
    let output = proctor(dir.path(), &["check"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains(
            "pyproject.toml:5:16: config-error the notebook timeout (900 s) is shorter than one cell's (1200 s)"
        ),
        "{}",
        text(&output)
    );
}

#[test]
fn check_lists_what_never_runs_and_plan_audits_examples_with_the_rest() {
    let dir = copy_of_suite();
    let output = proctor(dir.path(), &["check", "--format", "concise"]);
    let log = text(&output);
    assert!(
        log.contains("docs/examples/forgotten.py:1:1: PRC402"),
        "{log}"
    );
    assert!(log.contains("docs/notebooks/no_block.ipynb:"), "{log}");
    assert!(
        log.contains("PRC403 the notebook's metadata has no `mellea` block"),
        "{log}"
    );
    assert_eq!(output.status.code(), Some(1), "{log}");
    // No explicit path: plan sees the example folders beside `testpaths`;
    // a job without paths runs what `pytest` alone collects, so only a job
    // that names the folder runs the examples.
    let config = std::fs::read_to_string(dir.path().join("pyproject.toml")).unwrap();
    let jobs = "\n[tool.proctor.jobs.ci]\n\n[tool.proctor.jobs.docs]\npaths = [\"docs\"]\n";
    std::fs::write(dir.path().join("pyproject.toml"), config + jobs).unwrap();
    let output = proctor(dir.path(), &["plan", "--json"]);
    let plan: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&output)));
    let items = plan["items"].as_array().unwrap_or_else(|| panic!("{plan}"));
    let verdicts = |nodeid: &str| -> Vec<String> {
        let item = items
            .iter()
            .find(|i| i["nodeid"] == nodeid)
            .unwrap_or_else(|| panic!("{nodeid} not planned: {plan}"));
        ["ci", "docs"]
            .iter()
            .map(|job| &item["jobs"][job])
            .map(|v| {
                format!(
                    "{} {}",
                    v["verdict"].as_str().unwrap(),
                    v["by"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    assert_eq!(
        verdicts("docs/examples/hello.py::hello.py"),
        ["deselected pytest's testpaths (tests)", "run "]
    );
    assert_eq!(
        verdicts("tests/test_unit.py::test_unit"),
        ["run ", "deselected the job's paths (docs)"]
    );
}

/// The Mellea example (seed 000): its examples and notebooks go through the
/// same gates as its tests. Without Ollama or a GPU they are skipped with
/// the maintainers' reasons; on an assumed machine with both they run.
#[test]
fn mellea_examples_and_notebooks_are_gated_like_tests() {
    let dir = copy_of(&repo().join("examples/mellea"));
    let interpreter = python();
    let run = |extra: &[&str]| {
        let report = dir.path().join("report.json");
        let mut args = vec![
            "run",
            "--python",
            interpreter.to_str().unwrap(),
            "--no-history",
            "--json",
            report.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .args(&args)
            .current_dir(dir.path())
            .env_remove("PYTEST_ADDOPTS")
            .env_remove("CICD")
            .env_remove("OLLAMA_HOST")
            .output()
            .unwrap();
        let log = text(&output);
        let doc: Value = serde_json::from_str(
            &std::fs::read_to_string(&report).unwrap_or_else(|_| panic!("no report: {log}")),
        )
        .unwrap();
        let outcomes: BTreeMap<String, (String, String)> = doc["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["nodeid"].as_str().unwrap().to_owned(),
                    (
                        common::outcome_word(t),
                        t["reason"].as_str().unwrap_or("").to_owned(),
                    ),
                )
            })
            .collect();
        (outcomes, log)
    };
    let (here, log) = run(&[
        "docs",
        "--assume",
        "service.ollama=down",
        "--assume",
        "gpu.count=0",
    ]);
    let reason = |nodeid: &str| {
        here.get(nodeid)
            .map_or_else(|| panic!("{nodeid}: {log}"), |(o, r)| format!("{o}: {r}"))
    };
    assert_eq!(
        reason("docs/examples/instruct_greeting.py::instruct_greeting.py"),
        "skipped: service ollama not reachable at 127.0.0.1:11434"
    );
    assert_eq!(
        reason("docs/examples/hf_generate.py::hf_generate.py"),
        "skipped: no GPU detected"
    );
    assert_eq!(
        reason("docs/examples/notebooks/getting_started.ipynb::getting_started.ipynb"),
        "skipped: service ollama not reachable at 127.0.0.1:11434"
    );
    assert!(
        reason("docs/examples/notebooks/untagged.ipynb::untagged.ipynb")
            .starts_with("skipped: notebook has no `mellea` metadata block"),
        "{log}"
    );
    // `slow`, deselected by addopts' `-m "not slow"`; the draft never opted in.
    assert!(
        !here.contains_key("docs/examples/notebooks/docling_rag.ipynb::docling_rag.ipynb")
            && !here.keys().any(|n| n.contains("draft_agent")),
        "{log}"
    );
    let (there, log) = run(&[
        "docs",
        "--assume",
        "service.ollama=up",
        "--assume",
        "gpu.vram_gb=80",
    ]);
    for nodeid in [
        "docs/examples/instruct_greeting.py::instruct_greeting.py",
        "docs/examples/hf_generate.py::hf_generate.py",
        "docs/examples/notebooks/getting_started.ipynb::getting_started.ipynb",
    ] {
        assert_eq!(
            there.get(nodeid).map(|(o, _)| o.as_str()),
            Some("passed"),
            "{nodeid}: {log}"
        );
    }
    // The advisory `notebooks` job runs what its CI step runs: its `paths`,
    // with addopts' `not slow`.
    let (job, log) = run(&["--job", "notebooks", "--assume", "service.ollama=up"]);
    let ran: Vec<(&str, &str)> = job
        .iter()
        .map(|(n, (o, _))| (n.as_str(), o.as_str()))
        .collect();
    assert_eq!(
        ran,
        [
            (
                "docs/examples/notebooks/getting_started.ipynb::getting_started.ipynb",
                "passed"
            ),
            (
                "docs/examples/notebooks/untagged.ipynb::untagged.ipynb",
                "skipped"
            )
        ],
        "{log}"
    );
}

/// One rule for what a command without paths covers: `plan`'s machine line
/// counts what a bare `proctor run` runs (pytest's testpaths), and says how
/// many example and notebook items lie beyond it instead of counting them.
#[test]
fn plan_counts_what_a_bare_run_runs() {
    let dir = copy_of(&repo().join("examples/mellea"));
    let interpreter = python();
    let assume = ["--assume", "service.ollama=down", "--assume", "gpu.count=0"];
    let report = dir.path().join("report.json");
    let mut args = vec![
        "run",
        "--python",
        interpreter.to_str().unwrap(),
        "--no-history",
        "--json",
        report.to_str().unwrap(),
    ];
    args.extend_from_slice(&assume);
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(&args)
        .current_dir(dir.path())
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("CICD")
        .env_remove("OLLAMA_HOST")
        .output()
        .unwrap();
    let log = text(&output);
    assert!(log.contains("note: not in a run without paths: docs/examples (pytest's testpaths do not reach it; `proctor run docs/examples` runs it)"), "{log}");
    let run: Value = serde_json::from_str(
        &std::fs::read_to_string(&report).unwrap_or_else(|_| panic!("no report: {log}")),
    )
    .unwrap();
    let mut args = vec!["plan", "--json"];
    args.extend_from_slice(&assume);
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(&args)
        .current_dir(dir.path())
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("CICD")
        .env_remove("OLLAMA_HOST")
        .output()
        .unwrap();
    let plan: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&output)));
    let machine = &plan["machine"];
    let counts = &run["summary"]["counts"];
    let ran = counts["passed"].as_u64().unwrap_or(0) + counts["failed"].as_u64().unwrap_or(0);
    let skipped: u64 = machine["skipped"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(
        machine["runs"].as_u64(),
        Some(ran),
        "{machine} / {}",
        run["summary"]
    );
    assert_eq!(
        Some(skipped),
        counts["skipped"].as_u64(),
        "{machine} / {}",
        run["summary"]
    );
    assert_eq!(
        machine["deselected"], run["summary"]["deselected"],
        "{machine} / {}",
        run["summary"]
    );
    assert_eq!(
        machine["outside"], 5,
        "the opted-in examples and notebooks under docs/examples: {machine}"
    );
}
