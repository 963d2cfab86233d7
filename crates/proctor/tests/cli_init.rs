//! `proctor init` on the seed example suites: each example is copied
//! without its hand-written proctor config, the CI workflows its seed
//! document describes are put back (`tests/init_seeds/<name>/.github`), and
//! `proctor init` writes a config from them and the suite's own conftest
//! hooks. Under it, `proctor plan` must name the same unrun tests as under
//! the hand-written config, in every seed (mellea's nightly is a shell
//! script, put back under `tests/init_seeds/mellea/test/scripts/`). Also:
//! refusing to overwrite, `--force`, `--dry-run`, and a real corpus suite.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Every variable the example configurations (or their conftests) read.
const CLEAN: &[&str] = &[
    "CICD",
    "RUN_SLOW",
    "OLLAMA_HOST",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "QDRANT_URL",
    "PGVECTOR_ADDRESS",
    "_MELLEA_SKIP_RESOURCE_CHECKS",
    "PROCTOR_SKIP_RESOURCE_CHECKS",
    "PYTEST_ADDOPTS",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn proctor(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_proctor"));
    command.args(args).current_dir(dir);
    for var in CLEAN {
        command.env_remove(var);
    }
    command.output().expect("proctor runs")
}

/// `pyproject.toml` without its `[tool.proctor*]` tables.
fn without_proctor_tables(text: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            let name = trimmed.trim_start_matches('[').split(']').next().unwrap();
            skip = name == "tool.proctor" || name.starts_with("tool.proctor.");
        }
        if !skip {
            out.push_str(line);
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// The example `name` with its proctor config taken out and its seed's
/// workflows and scripts (`tests/init_seeds/<name>/`) put back.
fn bare_example(name: &str) -> tempfile::TempDir {
    let dir = common::copy_of(&repo().join("examples").join(name));
    let _ = std::fs::remove_file(dir.path().join("proctor.toml"));
    let pyproject = dir.path().join("pyproject.toml");
    let text = std::fs::read_to_string(&pyproject).unwrap();
    std::fs::write(&pyproject, without_proctor_tables(&text)).unwrap();
    copy_tree(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/init_seeds")
            .join(name),
        dir.path(),
    );
    dir
}

fn plan(dir: &Path) -> Value {
    let output = proctor(
        dir,
        &[
            "plan",
            "--json",
            "--assume",
            "python.version=3.11",
            "--assume",
            "gpu.count=0",
        ],
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("plan --json: {e}\n{}", common::text(&output)))
}

fn unrun(doc: &Value) -> BTreeSet<String> {
    doc["unrun"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["nodeid"].as_str().unwrap().to_owned())
        .collect()
}

/// Runs `proctor init` in the bare example and returns (the hand-written
/// plan, the inferred plan, init's output).
fn init_and_plan(name: &str) -> (Value, Value, String) {
    let hand = plan(&repo().join("examples").join(name));
    let dir = bare_example(name);
    let output = proctor(dir.path(), &["init"]);
    let text = common::text(&output);
    assert_eq!(output.status.code(), Some(0), "{name}: init\n{text}");
    assert!(
        text.contains("`proctor plan` under it:"),
        "{name}: init ends with the plan\n{text}"
    );
    let inferred = plan(dir.path());
    (hand, inferred, text)
}

fn assert_same_unrun(name: &str) -> String {
    let (hand, inferred, text) = init_and_plan(name);
    assert!(
        !unrun(&hand).is_empty(),
        "{name}: the hand config leaves tests unrun"
    );
    assert_eq!(
        unrun(&inferred),
        unrun(&hand),
        "{name}: the tests no job runs, init's config vs the hand-written one\n{text}"
    );
    text
}

#[test]
fn indx_init_finds_the_live_gate_the_service_helpers_and_four_workflows() {
    let text = assert_same_unrun("indx");
    assert!(
        text.contains("gate: `live` runs only with `--live`"),
        "{text}"
    );
    assert!(
        text.contains("helper `tests.helpers.requires_postgres` needs service `postgres`"),
        "{text}"
    );
}

#[test]
fn maseval_init_finds_the_implication_and_the_approval_gated_job() {
    let text = assert_same_unrun("maseval");
    assert!(text.contains("`credentialed` implies `live`"), "{text}");
    assert!(text.contains("job `test-credentialed`"), "{text}");
}

#[test]
fn nl2sql_init_turns_the_path_hook_into_path_rules_in_a_proctor_toml() {
    let text = assert_same_unrun("nl2sql");
    assert!(
        text.contains("`integration` by path (`packages/nl2sql/tests/integration/**`)"),
        "{text}"
    );
    assert!(
        text.contains("Wrote proctor.toml."),
        "pytest.ini is pytest's config: {text}"
    );
}

#[test]
fn transformers_init_reads_the_slow_decorator_and_its_run_slow_gate() {
    let text = assert_same_unrun("transformers");
    assert!(
        text.contains("decorator `transformers.testing_utils.slow` stands for marker `slow`"),
        "{text}"
    );
    assert!(
        text.contains("gate: `slow` runs only with RUN_SLOW=1"),
        "{text}"
    );
    assert!(
        text.contains("what runner `aws-g5-4xlarge-cache` offers"),
        "{text}"
    );
}

/// Mellea's nightly is a shell script on an LSF cluster
/// (`test/scripts/run_tests_with_ollama_and_vllm.sh`, put back): init
/// reads its default phases (one `pytest -m` per backend group, CICD
/// unset so the qualitative tests run, the GPU its `#BSUB -gpu` reserves)
/// and its `WITH_EXAMPLES=1` notebook pass under `-m e2e` with the
/// packages it adds; the legacy `SERIAL_PHASES=0` branch, an alternative,
/// and when the script runs are said, not guessed.
#[test]
fn mellea_init_reads_the_nightly_script_and_names_the_same_unrun_tests() {
    let text = assert_same_unrun("mellea");
    for phrase in [
        "axis `tier` (unit, integration, e2e), default `unit` (never written in tests)",
        "gate: `qualitative` skipped when CICD=1",
        "`llm` is a deprecated alias of `e2e`",
        "not recognised: a mark under `if not ollama`",
        "notebooks under docs/examples/notebooks (job `notebooks`), opted in by their `mellea` metadata block (2 notebooks)",
        "1 shell script.",
        "job `run-tests-with-ollama-and-vllm-with-examples`",
        "(an opt-in pass: `[[ \"${WITH_EXAMPLES:-0}\" == \"1\" ]]`, so WITH_EXAMPLES=1)",
        "runs only when `not ([[ \"${SERIAL_PHASES:-1}\" == \"1\" ]])`, instead of what the script runs by default: not written as a job",
        "when it runs is not in the script and no workflow calls it: its jobs are written with `trigger = \"manual\"`",
    ] {
        assert!(text.contains(phrase), "`{phrase}` not in:\n{text}");
    }
}

#[test]
fn init_refuses_to_overwrite_and_force_replaces_only_proctors_tables() {
    let dir = common::copy_of(&repo().join("examples/maseval"));
    let before = std::fs::read_to_string(dir.path().join("pyproject.toml")).unwrap();
    let output = proctor(dir.path(), &["init"]);
    assert_eq!(output.status.code(), Some(4), "{}", common::text(&output));
    assert!(
        common::text(&output).contains("already exists in")
            && common::text(&output).contains("--force"),
        "{}",
        common::text(&output)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pyproject.toml")).unwrap(),
        before,
        "nothing written"
    );
    let output = proctor(dir.path(), &["init", "--force"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::text(&output));
    let after = std::fs::read_to_string(dir.path().join("pyproject.toml")).unwrap();
    assert!(after.starts_with(&without_proctor_tables(&before).trim_end().to_owned()));
    assert!(
        !after.contains("[tool.proctor.jobs.test-core]"),
        "the hand jobs are gone"
    );
    assert!(
        after.contains("[tool.proctor.markers.credentialed]\nimplies = [\"live\"]"),
        "{after}"
    );
    assert_eq!(after.matches("[tool.pytest.ini_options]").count(), 1);
}

#[test]
fn dry_run_prints_the_config_and_writes_nothing() {
    let dir = bare_example("nl2sql");
    let output = proctor(dir.path(), &["init", "--dry-run"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stdout.contains(
            "[[paths]]\nglob = \"packages/nl2sql/tests/realdb/**\"\nmarkers = [\"realdb\"]"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("[jobs.integration]\nmarkers = \"integration and not llm\""),
        "{stdout}"
    );
    assert!(
        stderr.contains("Inferred:"),
        "the notes go to stderr: {stderr}"
    );
    assert!(!dir.path().join("proctor.toml").exists());
    // The printed config is valid: proctor reads it.
    std::fs::write(dir.path().join("proctor.toml"), stdout.as_bytes()).unwrap();
    let output = proctor(dir.path(), &["check"]);
    assert_ne!(output.status.code(), Some(2), "{}", common::text(&output));
    assert_ne!(output.status.code(), Some(4), "{}", common::text(&output));
}

/// A real suite of the conformance corpus (when fetched): init neither
/// fails nor stays silent about what it could not infer.
#[test]
fn a_real_suite_gets_a_config_and_the_list_of_what_was_not_inferred() {
    let corpus = std::env::var_os("PROCTOR_CORPUS")
        .map_or_else(|| repo().join(".corpus"), PathBuf::from)
        .join("src/pluggy-1.5.0");
    if !corpus.is_dir() {
        assert!(
            std::env::var_os("PROCTOR_REQUIRE_CORPUS").is_none_or(|v| v != "1"),
            "the corpus is not fetched under {}",
            corpus.display()
        );
        return;
    }
    let dir = common::copy_of(&corpus);
    let github = dir.path().join(".github");
    std::fs::create_dir_all(&github).unwrap();
    copy_tree(&corpus.join(".github"), &github);
    let output = proctor(dir.path(), &["init"]);
    let text = common::text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("Not inferred"), "{text}");
    assert!(text.contains("pytest runs through `tox`"), "{text}");
    assert!(
        dir.path().join("proctor.toml").is_file(),
        "setup.cfg/tox.ini is pytest's config: {text}"
    );
}

/// docs/init.md's example: its files are written, `proctor init` runs,
/// and what it prints and appends must be what the page shows.
#[test]
fn the_example_of_docs_init_md_prints_and_writes_what_the_page_shows() {
    let page = std::fs::read_to_string(repo().join("docs/init.md")).unwrap();
    let blocks = common::fenced_blocks(&page);
    let dir = tempfile::tempdir().unwrap();
    let mut pyproject = None;
    for (info, body) in &blocks {
        if let Some(path) = info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("file="))
        {
            common::write(dir.path(), path, body);
            if path == "pyproject.toml" {
                pyproject = Some(body.clone());
            }
        }
    }
    let pyproject = pyproject.expect("the page shows a pyproject.toml");
    let console = blocks
        .iter()
        .find(|(info, body)| info == "console" && body.starts_with("$ proctor init\n"))
        .expect("the page shows a run of `proctor init`");
    let output = proctor(dir.path(), &["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::text(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        console.1["$ proctor init\n".len()..],
        "docs/init.md: the output of `proctor init`"
    );
    let written = std::fs::read_to_string(dir.path().join("pyproject.toml")).unwrap();
    let appended = written[pyproject.len()..].trim_start_matches('\n');
    let shown = blocks
        .iter()
        .filter(|(info, _)| info == "toml")
        .map(|(_, body)| body.as_str())
        .find(|body| body.contains("[tool.proctor]"))
        .expect("the page shows the appended tables");
    assert_eq!(appended, shown, "docs/init.md: the tables init appends");
}

/// What init reads from a workflow, `proctor ci github` writes back: the
/// service containers (image, port), the `paths:` filter and the approval
/// environment.
#[test]
fn init_then_ci_github_gives_back_the_service_containers_and_environments() {
    let dir = bare_example("nl2sql");
    let output = proctor(dir.path(), &["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::text(&output));
    let output = proctor(dir.path(), &["ci", "github"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::text(&output));
    let workflow: serde_yaml::Value = serde_yaml::from_slice(&output.stdout).unwrap();
    let realdb = &workflow["jobs"]["realdb"];
    assert_eq!(
        realdb["services"]["postgres"]["image"].as_str(),
        Some("postgres:16")
    );
    assert_eq!(
        realdb["services"]["mssql"]["ports"][0].as_str(),
        Some("1433:1433")
    );
    assert_eq!(realdb["continue-on-error"].as_bool(), Some(true));
    // On pull requests and nightly, as its workflow says.
    let condition = realdb["if"].as_str().unwrap();
    assert!(
        condition.contains("'pull_request'") && condition.contains("'schedule'"),
        "{condition}"
    );
    // Only on pull requests that touch database code: the workflow's
    // `paths:` filter, carried over as `on-paths`.
    assert_eq!(realdb["needs"][0].as_str(), Some("changes"), "{realdb:?}");
    let filters = workflow["jobs"]["changes"]["steps"][1]["with"]["filters"]
        .as_str()
        .unwrap();
    assert!(
        filters.contains("packages/nl2sql/src/nl2sql/db/**"),
        "{filters}"
    );

    let dir = bare_example("maseval");
    assert_eq!(proctor(dir.path(), &["init"]).status.code(), Some(0));
    let output = proctor(dir.path(), &["ci", "github"]);
    let workflow: serde_yaml::Value = serde_yaml::from_slice(&output.stdout).unwrap();
    assert_eq!(
        workflow["jobs"]["test-credentialed"]["environment"].as_str(),
        Some("credentialed")
    );
    // Each test job passes `--cov`: a final job combines their data.
    let needs: Vec<&str> = workflow["jobs"]["coverage"]["needs"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(
        needs,
        [
            "test-core",
            "test-interface",
            "test-benchmark",
            "test-slow",
            "test-smoke",
            "test-credentialed"
        ]
    );
}

/// A parent directory's config is never deleted: `--force` writes the
/// rootdir's own, which proctor reads first.
#[test]
fn force_leaves_a_parent_directorys_config_alone() {
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "proctor.toml",
        "[select]\ndefault = \"not slow\"\n",
    );
    let child = dir.path().join("child");
    common::write(&child, "pytest.ini", "[pytest]\n");
    common::write(&child, "tests/test_a.py", "def test_a():\n    pass\n");
    let output = proctor(&child, &["init"]);
    assert_eq!(output.status.code(), Some(4), "{}", common::text(&output));
    let output = proctor(&child, &["init", "--force"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::text(&output));
    assert!(
        dir.path().join("proctor.toml").is_file(),
        "the parent's config is kept"
    );
    assert!(child.join("proctor.toml").is_file());
}
