//! CLI tests for `proctor ci github` over a temporary nl2sql-like project:
//! the workflow it prints (snapshotted, and parsed back as YAML), `--job`,
//! `--runner pytest`, `--output`, and the errors for an unknown job and for
//! a configuration without jobs; every proctor job installs this proctor
//! and never runs a local interpreter path from the configuration.

mod common;

use common::write;
use serde_yaml::Value;

const CONFIG: &str = r#"
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
default = "unit"

[axes.backend]
markers = ["ollama", "openai"]
cardinality = "any"

[select]
default = "not slow"

[services.ollama]
address-env = "OLLAMA_HOST"
default-address = "127.0.0.1:11434"
http-probe = "/api/tags"

[services.postgres]
address-env = "DATABASE_ADDRESS"
default-address = "localhost:5432"

[jobs.unit]
description = "Fast tests: no database, no model."
markers = "not integration and not realdb"
python = ["3.11", "3.12"]

[jobs.integration]
markers = "integration and not llm"
services = ["postgres", "ollama"]
env = { CICD = "1", OPENAI_API_KEY = "${{ secrets.OPENAI_API_KEY }}" }

[jobs."nightly e2e"]
description = "Everything slow, against real models."
markers = "e2e or slow"
use-default = false
trigger = "nightly"
required = false
shards = 3
flags = ["--live"]
phases = { by = "backend", order = ["ollama", "openai"] }
runs-on = "self-hosted"
"#;

/// Runs proctor (see `common::run`) with this proctor's version, which the
/// install step pins, shown as `[VERSION]`.
fn run(dir: &std::path::Path, args: &[&str]) -> String {
    common::run(dir, args).replace(&format!("=={}", env!("CARGO_PKG_VERSION")), "==[VERSION]")
}

fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pytest.ini", "[pytest]\ntestpaths = tests\n");
    write(root, "proctor.toml", config);
    write(root, "tests/test_sql.py", "def test_ok():\n    pass\n");
    dir
}

/// The stdout of a rendered run (see `common::run`).
fn stdout(output: &str) -> &str {
    let start = output.find("--- stdout\n").unwrap() + "--- stdout\n".len();
    let end = output.find("--- stderr\n").unwrap();
    &output[start..end]
}

/// Parses a workflow and returns it with its job ids, in order.
fn parse(text: &str) -> (Value, Vec<String>) {
    let value: Value =
        serde_yaml::from_str(text).unwrap_or_else(|e| panic!("not YAML: {e}\n{text}"));
    let ids = value["jobs"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap().to_owned())
        .collect();
    (value, ids)
}

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap())
        .collect()
}

#[test]
fn github_workflow_for_every_job() {
    let dir = project(CONFIG);
    let output = run(dir.path(), &["ci", "github"]);
    insta::assert_snapshot!("github_workflow_for_every_job", output);
    assert!(output.starts_with("exit: 0\n"), "{output}");
    let (value, ids) = parse(stdout(&output));
    assert_eq!(ids, ["unit", "integration", "nightly_e2e"]);
    assert_eq!(value["name"].as_str(), Some("proctor"));
    assert_eq!(
        keys(&value["on"]),
        ["pull_request", "push", "schedule", "workflow_dispatch"]
    );
    assert_eq!(
        value["on"]["schedule"][0]["cron"].as_str(),
        Some("0 3 * * *")
    );
    let jobs = &value["jobs"];
    assert_eq!(
        jobs["unit"]["strategy"]["matrix"]["python"]
            .as_sequence()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        jobs["integration"]["env"]["OPENAI_API_KEY"].as_str(),
        Some("${{ secrets.OPENAI_API_KEY }}")
    );
    assert_eq!(
        jobs["integration"]["env"]["OLLAMA_HOST"].as_str(),
        Some("127.0.0.1:11434")
    );
    assert_eq!(
        jobs["integration"]["env"]["DATABASE_ADDRESS"].as_str(),
        Some("localhost:5432")
    );
    let nightly = &jobs["nightly_e2e"];
    assert_eq!(nightly["name"].as_str(), Some("nightly e2e"));
    assert_eq!(nightly["continue-on-error"].as_bool(), Some(true));
    assert_eq!(nightly["runs-on"].as_str(), Some("self-hosted"));
    assert_eq!(keys(&nightly["strategy"]["matrix"]), ["python", "shard"]);
    assert_eq!(
        nightly["strategy"]["matrix"]["shard"]
            .as_sequence()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn github_workflow_with_plain_pytest() {
    let dir = project(CONFIG);
    let output = run(
        dir.path(),
        &[
            "ci",
            "github",
            "--runner",
            "pytest",
            "--name",
            "tests: \"all\"",
            "--branch",
            "develop",
            "--install",
            "pip install -e '.[test]'",
        ],
    );
    insta::assert_snapshot!("github_workflow_with_plain_pytest", output);
    let (value, ids) = parse(stdout(&output));
    assert_eq!(ids, ["unit", "integration", "nightly_e2e"]);
    assert_eq!(value["name"].as_str(), Some("tests: \"all\""));
    assert_eq!(value["on"]["push"]["branches"][0].as_str(), Some("develop"));
    let steps = |id: &str| value["jobs"][id]["steps"].as_sequence().unwrap().clone();
    let last_run = |id: &str| {
        steps(id).last().unwrap()["run"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        last_run("unit"),
        "pytest -m '(not slow) and (not integration and not realdb)'"
    );
    assert_eq!(last_run("nightly_e2e"), "pytest -m 'e2e or slow' --live");
    assert_eq!(
        steps("unit")[2]["run"].as_str(),
        Some("pip install -e '.[test]'")
    );
    assert!(value["jobs"]["nightly_e2e"]["strategy"]["matrix"]
        .get("shard")
        .is_none());
}

#[test]
fn github_workflow_for_chosen_jobs_to_a_file() {
    let dir = project(CONFIG);
    let output = run(
        dir.path(),
        &[
            "ci",
            "github",
            "--job",
            "nightly e2e",
            "--job",
            "unit",
            "--cron",
            "15 2 * * 1",
            "--output",
            ".github/workflows/proctor.yml",
        ],
    );
    insta::assert_snapshot!(output, @r"
    exit: 0
    --- stdout
    --- stderr
    wrote .github/workflows/proctor.yml (2 jobs)
    ");
    let text = std::fs::read_to_string(dir.path().join(".github/workflows/proctor.yml")).unwrap();
    let (value, ids) = parse(&text);
    // Configuration order, not command-line order.
    assert_eq!(ids, ["unit", "nightly_e2e"]);
    assert_eq!(
        value["on"]["schedule"][0]["cron"].as_str(),
        Some("15 2 * * 1")
    );

    let output = run(dir.path(), &["ci", "github", "--job", "nightly e2e"]);
    let (value, ids) = parse(stdout(&output));
    assert_eq!(ids, ["nightly_e2e"]);
    assert_eq!(keys(&value["on"]), ["schedule", "workflow_dispatch"]);
}

#[test]
fn unknown_job() {
    let dir = project(CONFIG);
    insta::assert_snapshot!(run(dir.path(), &["ci", "github", "--job", "unit", "--job", "e2e"]), @r"
    exit: 4
    --- stdout
    --- stderr
    proctor: error: unknown job `e2e` (configured: unit, integration, nightly e2e)
    ");
}

#[test]
fn no_jobs_configured() {
    let dir = project("[select]\ndefault = \"not slow\"\n");
    insta::assert_snapshot!(run(dir.path(), &["ci", "github"]), @r"
    exit: 4
    --- stdout
    --- stderr
    proctor: error: no jobs are configured
      hint: declare them in `[jobs.<name>]` of proctor.toml (or `[tool.proctor.jobs.<name>]` of pyproject.toml); see docs/ci.md
    ");
}

#[test]
fn bad_job_expression() {
    let dir = project("[jobs.unit]\nmarkers = \"not (unit\"\n");
    let output = run(dir.path(), &["ci", "github"]);
    assert!(output.starts_with("exit: 4\n"), "{output}");
    assert!(output.contains("proctor: error: job `unit`"), "{output}");
}

#[test]
fn every_job_installs_the_distribution_of_pyproject_toml() {
    let pyproject =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../pyproject.toml"))
            .unwrap();
    let name = pyproject
        .lines()
        .find_map(|line| line.strip_prefix("name = "))
        .unwrap()
        .trim_matches('"');
    let dir = project(CONFIG);
    let output = common::run(dir.path(), &["ci", "github"]);
    let (value, ids) = parse(stdout(&output));
    let install = format!("pip install {name}=={}", env!("CARGO_PKG_VERSION"));
    for id in ids {
        let steps = value["jobs"][&id]["steps"].as_sequence().unwrap();
        let installs: Vec<&str> = steps
            .iter()
            .filter_map(|step| step["run"].as_str())
            .filter(|run| *run == install)
            .collect();
        assert_eq!(installs.len(), 1, "{id}: {steps:?}");
    }
}

#[test]
fn a_local_interpreter_never_reaches_the_runner() {
    let dir = project(&format!("python = \".venv/bin/python\"\n{CONFIG}"));
    let output = run(dir.path(), &["ci", "github"]);
    assert!(output.starts_with("exit: 0\n"), "{output}");
    assert!(!output.contains(".venv"), "{output}");
    let (value, ids) = parse(stdout(&output));
    for id in ids {
        let steps = value["jobs"][&id]["steps"].as_sequence().unwrap();
        assert_eq!(steps[1]["id"].as_str(), Some("python"));
        let last = steps.last().unwrap()["run"].as_str().unwrap();
        assert!(
            last.contains(" --python \"${{ steps.python.outputs.python-path }}\""),
            "{last}"
        );
    }
    // Plain pytest runs the `pytest` of the job's interpreter.
    let output = run(dir.path(), &["ci", "github", "--runner", "pytest"]);
    assert!(
        !output.contains(".venv") && !output.contains("--python"),
        "{output}"
    );
}

/// A file at the repository's root.
fn repository_file(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn pre_commit_hooks_run_real_subcommands() {
    let hooks: Value = serde_yaml::from_str(&repository_file(".pre-commit-hooks.yaml")).unwrap();
    let hooks = hooks.as_sequence().unwrap();
    let ids: Vec<&str> = hooks
        .iter()
        .map(|hook| hook["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["proctor-check", "proctor-plan"]);
    let dir = project(CONFIG);
    for hook in hooks {
        assert_eq!(hook["language"].as_str(), Some("python"), "{hook:?}");
        assert_eq!(hook["pass_filenames"].as_bool(), Some(false), "{hook:?}");
        assert!(
            hook["name"].is_string() && hook["files"].is_string(),
            "{hook:?}"
        );
        let entry: Vec<&str> = hook["entry"].as_str().unwrap().split_whitespace().collect();
        assert_eq!(entry[0], "proctor");
        assert_eq!(
            format!("proctor-{}", entry[1]),
            hook["id"].as_str().unwrap()
        );
        // The subcommand exists: its `--help` succeeds.
        let mut help = entry[1..].to_vec();
        help.push("--help");
        let output = common::run(dir.path(), &help);
        assert!(output.starts_with("exit: 0\n"), "{output}");
    }
}

#[test]
fn action_installs_from_its_own_checkout() {
    let action: Value = serde_yaml::from_str(&repository_file("action.yml")).unwrap();
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    for input in ["version", "args", "working-directory"] {
        assert_eq!(
            action["inputs"][input]["required"].as_bool(),
            Some(false),
            "{input}"
        );
    }
    let steps = action["runs"]["steps"].as_sequence().unwrap();
    let install = &steps[0];
    assert_eq!(
        install["env"]["PROCTOR_ACTION_PATH"].as_str(),
        Some("${{ github.action_path }}")
    );
    assert!(install["run"]
        .as_str()
        .unwrap()
        .contains("pip install --disable-pip-version-check \"$PROCTOR_ACTION_PATH\""));
    assert_eq!(steps[1]["if"].as_str(), Some("inputs.args != ''"));
    for step in steps {
        assert_eq!(step["shell"].as_str(), Some("bash"), "{step:?}");
        let script = step["run"].as_str().unwrap();
        // Inputs reach the scripts through the environment, never pasted
        // into them.
        assert!(!script.contains("${{"), "{script}");
        let status = std::process::Command::new("bash")
            .args(["-n", "-c", script])
            .status()
            .unwrap();
        assert!(status.success(), "bash -n failed on:\n{script}");
    }
}

/// A suite whose markers come partly from proctor: `unit` is the tier
/// default, `integration` a path rule, `db` implied by `postgres`.
const DERIVED: &str = r#"
[axes.tier]
markers = ["unit", "integration"]
cardinality = "exactly-one"
default = "unit"

[[paths]]
glob = "tests/integration/**"
markers = ["integration"]

[markers.postgres]
implies = ["db"]

[jobs.unit]
markers = "unit"

[jobs.db]
markers = "db"
use-default = false

[jobs.slow]
markers = "slow"
"#;

fn derived_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pytest.ini",
        "[pytest]\ntestpaths = tests\nmarkers =\n    unit\n    integration\n    postgres\n    db\n    slow\n",
    );
    write(root, "proctor.toml", DERIVED);
    write(
        root,
        "tests/test_core.py",
        "import pytest\n\ndef test_parse():\n    pass\n\n@pytest.mark.slow\ndef test_big():\n    pass\n",
    );
    write(
        root,
        "tests/integration/test_store.py",
        "import pytest\n\n@pytest.mark.postgres\ndef test_upsert():\n    pass\n\ndef test_connect():\n    pass\n",
    );
    dir
}

/// The node ids a listing names, each once (`proctor select` prints them
/// before pytest's `--co -q` does).
fn listed(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| l.contains("::")) {
        if !out.iter().any(|seen| seen == line) {
            out.push(line.to_owned());
        }
    }
    out
}

/// With `--runner pytest`, a job whose `-m` names a marker only proctor
/// gives items (an axis default, an implication) selects with `proctor
/// select --args-file` and runs `pytest @FILE`: the step, run as written
/// with real pytest, collects what proctor selects, where bare pytest's
/// `-m` would collect nothing. A job on written markers keeps plain `-m`.
#[test]
fn plain_pytest_jobs_on_derived_markers_select_with_proctor() {
    let dir = derived_project();
    let output = run(dir.path(), &["ci", "github", "--runner", "pytest"]);
    assert!(output.starts_with("exit: 0\n"), "{output}");
    let (value, _) = parse(stdout(&output));
    let steps = |id: &str| value["jobs"][id]["steps"].as_sequence().unwrap().clone();
    let last_run = |id: &str| {
        steps(id).last().unwrap()["run"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let installs_proctor = |id: &str| {
        steps(id)
            .iter()
            .any(|s| s["name"].as_str() == Some("Install proctor"))
    };
    assert_eq!(last_run("slow"), "pytest -m slow");
    assert!(!installs_proctor("slow"));
    let unit = last_run("unit");
    assert!(
        unit.contains("proctor select -m unit --args-file proctor-selection.txt\n")
            && unit.contains("\npytest @proctor-selection.txt"),
        "{unit}"
    );
    assert!(installs_proctor("unit"));
    assert!(
        last_run("db").contains("proctor select --no-default-select -m db --args-file"),
        "{}",
        last_run("db")
    );
    let Some(python) = std::env::var_os("PROCTOR_TEST_PYTHON") else {
        return;
    };
    // Run the steps as written, with `proctor` and `pytest` on PATH.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_proctor"), bin.join("proctor")).unwrap();
    write(
        &bin,
        "pytest",
        &format!(
            "#!/bin/sh\nexec '{}' -m pytest -p no:cacheprovider \"$@\"\n",
            python.to_string_lossy()
        ),
    );
    std::process::Command::new("chmod")
        .args(["+x", bin.join("pytest").to_str().unwrap()])
        .status()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sh = |script: &str| {
        let output = std::process::Command::new("sh")
            .args(["-ec", script])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        (output.status.code(), common::text(&output))
    };
    for (job, want) in [
        (
            "unit",
            vec![
                "tests/test_core.py::test_parse",
                "tests/test_core.py::test_big",
            ],
        ),
        ("db", vec!["tests/integration/test_store.py::test_upsert"]),
    ] {
        let (code, text) = sh(&format!("{} --co -q", last_run(job)));
        assert_eq!(code, Some(0), "{job}: {text}");
        assert_eq!(listed(&text), want, "{job}: what pytest collects\n{text}");
        assert!(
            text.contains(&format!("{} tests collected", want.len()))
                || text.contains(&format!("{} test collected", want.len())),
            "{job}: pytest collects the selection\n{text}"
        );
        // Bare pytest's `-m` does not see the marker: it selects nothing.
        let marker = if job == "unit" { "unit" } else { "db" };
        let (code, text) = sh(&format!("pytest -m {marker} --co -q"));
        assert_eq!(code, Some(5), "{job}: bare pytest -m {marker}: {text}");
    }
}

/// `proctor run` starts the services that have a `start`: the workflow
/// waits only for the others. Plain pytest starts nothing, so there the
/// job starts such a service in the background, then waits for it.
#[test]
fn a_workflow_waits_only_for_services_it_does_not_start() {
    let config = format!(
        "{CONFIG}\n[services.cache]\ndefault-address = \"127.0.0.1:6380\"\nstart = \"redis-server --port 6380\"\n\n[jobs.cached]\nservices = [\"cache\", \"postgres\"]\n"
    );
    let dir = project(&config);
    let names = |runner: &str| -> Vec<String> {
        let output = run(
            dir.path(),
            &["ci", "github", "--runner", runner, "--job", "cached"],
        );
        let (value, _) = parse(stdout(&output));
        value["jobs"]["cached"]["steps"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(|s| s["name"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(
        names("proctor"),
        [
            "Install proctor",
            "Install",
            "Wait for postgres",
            "Run cached"
        ]
    );
    assert_eq!(
        names("pytest"),
        [
            "Install",
            "Start cache",
            "Wait for cache",
            "Wait for postgres",
            "Run cached"
        ]
    );
}

/// A service with an `image` becomes a GitHub service container on its
/// port; a job's `environment` gates it on approval; its `setup` commands
/// run after the install, one step each, before the tests.
#[test]
fn service_containers_approval_environments_and_setup_steps() {
    let config = r#"
[services.postgres]
address-env = "DATABASE_ADDRESS"
default-address = "127.0.0.1:5433"
image = "postgres:16"
env = { POSTGRES_PASSWORD = "test" }

[jobs.credentialed]
markers = "credentialed"
environment = "maintainers"
setup = ["nl2sql init --demo demo-ci", "nl2sql --config demo-ci/nl2sql.yaml index"]
services = ["postgres"]
env = { OPENAI_API_KEY = "${{ secrets.OPENAI_API_KEY }}" }
"#;
    let dir = project(config);
    let output = run(dir.path(), &["ci", "github"]);
    assert!(output.starts_with("exit: 0\n"), "{output}");
    assert!(!output.contains("start it before the tests"), "{output}");
    let (value, _) = parse(stdout(&output));
    let job = &value["jobs"]["credentialed"];
    assert_eq!(job["environment"].as_str(), Some("maintainers"));
    let postgres = &job["services"]["postgres"];
    assert_eq!(postgres["image"].as_str(), Some("postgres:16"));
    assert_eq!(postgres["ports"][0].as_str(), Some("5433:5433"));
    assert_eq!(postgres["env"]["POSTGRES_PASSWORD"].as_str(), Some("test"));
    let steps: Vec<(String, String)> = job["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|s| {
            Some((
                s["name"].as_str()?.to_owned(),
                s["run"].as_str()?.to_owned(),
            ))
        })
        .collect();
    let names: Vec<&str> = steps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "Install proctor",
            "Install",
            "Setup 1",
            "Setup 2",
            "Wait for postgres",
            "Run credentialed"
        ]
    );
    assert_eq!(steps[2].1, "nl2sql init --demo demo-ci");
    assert!(
        steps[4].1.contains("/dev/tcp/127.0.0.1/5433"),
        "{}",
        steps[4].1
    );
}

/// Jobs that pass pytest-cov's `--cov` each write their own data file and
/// upload it; one more job downloads them all, combines them and, with
/// `[[coverage.areas]]` configured, checks the areas with `proctor coverage`.
#[test]
fn jobs_that_collect_coverage_get_a_combine_job() {
    let config = r#"
[jobs.core]
markers = "core"
python = ["3.11", "3.12"]
flags = ["--cov=src"]

[jobs.bench]
markers = "benchmark"

[jobs.slow]
markers = "slow"
flags = ["--cov"]
shards = 2

[[coverage.areas]]
name = "core"
paths = ["src/**"]
line = 90
"#;
    let dir = project(config);
    let output = run(dir.path(), &["ci", "github"]);
    assert!(output.starts_with("exit: 0\n"), "{output}");
    let (value, ids) = parse(stdout(&output));
    assert_eq!(ids, ["core", "bench", "slow", "coverage"]);
    let jobs = &value["jobs"];
    assert_eq!(
        jobs["core"]["env"]["COVERAGE_FILE"].as_str(),
        Some(".coverage.core-${{ matrix.python }}")
    );
    assert_eq!(
        jobs["slow"]["env"]["COVERAGE_FILE"].as_str(),
        Some(".coverage.slow-${{ matrix.python }}-${{ matrix.shard }}")
    );
    assert!(jobs["bench"].get("env").is_none());
    let upload = jobs["core"]["steps"]
        .as_sequence()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(upload["uses"].as_str(), Some("actions/upload-artifact@v4"));
    assert_eq!(
        upload["with"]["name"].as_str(),
        Some("coverage-core-${{ matrix.python }}")
    );
    let combine = &jobs["coverage"];
    let needs: Vec<&str> = combine["needs"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(needs, ["core", "slow"]);
    let last = combine["steps"].as_sequence().unwrap().last().unwrap()["run"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        last,
        "coverage combine && coverage report && coverage json && proctor coverage coverage.json"
    );
    // No job with `--cov`, no combine job.
    let dir = project(CONFIG);
    let (_, ids) = parse(stdout(&run(dir.path(), &["ci", "github"])));
    assert!(!ids.iter().any(|id| id == "coverage"), "{ids:?}");
}

/// `also-on` adds events to a job's `trigger`: the workflow's `on:` has
/// them and the job's `if:` lets them through.
#[test]
fn a_job_runs_on_several_triggers() {
    let config = r#"
[jobs.realdb]
markers = "realdb"
also-on = ["nightly"]

[jobs.unit]
markers = "not realdb"
"#;
    let dir = project(config);
    let output = run(dir.path(), &["ci", "github"]);
    assert!(output.starts_with("exit: 0\n"), "{output}");
    let (value, _) = parse(stdout(&output));
    assert_eq!(
        keys(&value["on"]),
        ["pull_request", "push", "schedule", "workflow_dispatch"]
    );
    assert_eq!(
        value["jobs"]["realdb"]["if"].as_str(),
        Some("github.event_name == 'pull_request' || github.event_name == 'push' || github.event_name == 'workflow_dispatch' || github.event_name == 'schedule'")
    );
    assert!(!value["jobs"]["unit"]["if"]
        .as_str()
        .unwrap()
        .contains("schedule"));
}

/// The fenced block of `page` whose info string is `info` and whose body
/// contains `needle`.
fn docs_block(page: &str, info: &str, needle: &str) -> String {
    let text = repository_file(page);
    let blocks = common::fenced_blocks(&text);
    blocks
        .into_iter()
        .find(|(tag, body)| tag == info && body.contains(needle))
        .unwrap_or_else(|| panic!("{page}: no ```{info} block with `{needle}`"))
        .1
}

/// docs/ci.md's `on-paths` example: its configuration gives the
/// workflow lines the page shows; the filtered job waits for a `changes`
/// job on pull requests and pushes only, and the unfiltered one does not.
#[test]
fn on_paths_writes_a_changes_job_and_filters_only_that_job() {
    let config = docs_block("docs/ci.md", "toml", "on-paths");
    let shown = docs_block("docs/ci.md", "yaml", "dorny/paths-filter");
    let dir = project(&config);
    let output = run(dir.path(), &["ci", "github"]);
    assert!(output.starts_with("exit: 0\n"), "{output}");
    let text = stdout(&output);
    for line in shown.lines().filter(|l| !l.trim().is_empty()) {
        assert!(text.contains(line), "`{line}` not in the workflow:\n{text}");
    }
    let (value, ids) = parse(text);
    assert_eq!(ids, ["changes", "realdb", "unit"]);
    let filters: Value = serde_yaml::from_str(
        value["jobs"]["changes"]["steps"][1]["with"]["filters"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(filters["realdb"][0].as_str(), Some("src/db/**"));
    assert_eq!(filters["realdb"][1].as_str(), Some("tests/realdb/**"));
    let unit = &value["jobs"]["unit"];
    assert!(unit["needs"].is_null(), "{unit:?}");
    assert!(!unit["if"].as_str().unwrap().contains("changes"));
    // Without `on-paths` anywhere, no `changes` job.
    let dir = project(&config.replace("on-paths = [\"src/db/**\", \"tests/realdb/**\"]\n", ""));
    let (_, ids) = parse(stdout(&run(dir.path(), &["ci", "github"])));
    assert_eq!(ids, ["realdb", "unit"]);
}
