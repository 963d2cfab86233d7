//! `proctor plan` over a Mellea-like suite: jobs, the tests no job runs
//! and why, and skip reasons on this machine and on assumed ones.

mod common;

use common::{run_env, write};

const CONFIG: &str = r#"
[tool.pytest.ini_options]
testpaths = ["test"]
markers = ["unit", "integration", "e2e", "qualitative", "slow", "ollama", "openai", "huggingface"]

[tool.proctor.axes.tier]
markers = ["unit", "integration", "e2e"]
default = "unit"

[tool.proctor.axes.backend]
markers = ["ollama", "openai", "huggingface"]
cardinality = "any"

[tool.proctor.services.ollama]
address-env = "OLLAMA_HOST"
default-address = "127.0.0.1:9"

[tool.proctor.needs.ollama]
services = ["ollama"]

[tool.proctor.helpers]
"test.predicates.require_gpu" = "gpu"
"test.predicates.require_api_key" = "env"

[tool.proctor.gates.qualitative]
skip-if-env = { CICD = "1" }

[tool.proctor.gates.slow]
run-if-env = { RUN_SLOW = "1" }

[tool.proctor.jobs.unit]
markers = "unit or integration"
python = ["3.11", "3.12"]

[tool.proctor.jobs.ollama]
markers = "e2e and ollama"
services = ["ollama"]
env = { CICD = "1" }
trigger = "nightly"
required = false
phases = { by = "backend", order = ["ollama"] }
"#;

fn suite() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pyproject.toml", CONFIG);
    write(root, "test/__init__.py", "");
    write(
        root,
        "test/predicates.py",
        "def require_gpu(min_vram_gb=0): ...\ndef require_api_key(*names): ...\n",
    );
    write(
        root,
        "test/test_core.py",
        "import pytest\n\ndef test_repr():\n    pass\n\n@pytest.mark.integration\ndef test_session():\n    pass\n\n@pytest.mark.slow\ndef test_big():\n    pass\n",
    );
    write(root, "test/backends/__init__.py", "");
    write(
        root,
        "test/backends/test_ollama.py",
        "import pytest\n\npytestmark = [pytest.mark.e2e, pytest.mark.ollama]\n\ndef test_chat():\n    pass\n\n@pytest.mark.qualitative\ndef test_judge():\n    pass\n",
    );
    write(
        root,
        "test/backends/test_huggingface.py",
        "import pytest\nfrom test.predicates import require_gpu\n\npytestmark = [pytest.mark.e2e, pytest.mark.huggingface, require_gpu(min_vram_gb=80)]\n\ndef test_generate():\n    pass\n\n@require_gpu(min_vram_gb=200)\ndef test_huge():\n    pass\n",
    );
    write(
        root,
        "test/backends/test_openai.py",
        "import os, sys\nimport pytest\nfrom test.predicates import require_api_key\n\npytestmark = [pytest.mark.e2e, pytest.mark.openai]\n\n@require_api_key(\"OPENAI_API_KEY\")\ndef test_complete():\n    pass\n\n@pytest.mark.skipif(sys.version_info < (3, 99), reason=\"future\")\ndef test_future():\n    pass\n",
    );
    dir
}

/// A clean environment: nothing the gates or needs read is set.
const CLEAN: &[(&str, Option<&str>)] = &[
    ("OPENAI_API_KEY", None),
    ("OLLAMA_HOST", None),
    ("CICD", None),
    ("RUN_SLOW", None),
    ("PROCTOR_SKIP_RESOURCE_CHECKS", None),
];

#[test]
fn jobs_unrun_tests_and_skip_reasons() {
    let dir = suite();
    insta::assert_snapshot!(run_env(
        dir.path(),
        &[
            "plan",
            "--assume",
            "python.version=3.11",
            "--assume",
            "gpu.count=0"
        ],
        CLEAN
    ));
}

#[test]
fn an_assumed_machine_changes_the_skips() {
    let dir = suite();
    let output = run_env(
        dir.path(),
        &[
            "plan",
            "--assume",
            "gpu.vram_gb=80",
            "--assume",
            "env.OPENAI_API_KEY=set",
        ],
        CLEAN,
    );
    assert!(
        output.contains("SKIPPED [1] Insufficient VRAM: 80 GB < 200 GB required"),
        "{output}"
    );
    assert!(!output.contains("OPENAI_API_KEY not set"), "{output}");
    assert!(!output.contains("< 80 GB required"), "{output}");
}

#[test]
fn one_job_lists_its_skips_and_phases() {
    let dir = suite();
    insta::assert_snapshot!(run_env(
        dir.path(),
        &[
            "plan",
            "--job",
            "ollama",
            "--assume",
            "python.version=3.11",
            "--assume",
            "gpu.count=0"
        ],
        CLEAN
    ));
}

#[test]
fn json_names_every_verdict() {
    let dir = suite();
    let output = run_env(dir.path(), &["plan", "--json"], CLEAN);
    let json = output
        .split("--- stdout\n")
        .nth(1)
        .unwrap()
        .split("--- stderr\n")
        .next()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(json).unwrap();
    let unrun: Vec<&str> = doc["unrun"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["nodeid"].as_str().unwrap())
        .collect();
    assert_eq!(
        unrun,
        [
            "test/backends/test_huggingface.py::test_generate",
            "test/backends/test_huggingface.py::test_huge",
            "test/backends/test_ollama.py::test_judge",
            "test/backends/test_openai.py::test_complete",
            "test/backends/test_openai.py::test_future",
            "test/test_core.py::test_big",
        ]
    );
    let chat = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["nodeid"] == "test/backends/test_ollama.py::test_chat")
        .unwrap();
    assert_eq!(chat["jobs"]["ollama"]["verdict"], "run");
    assert_eq!(chat["jobs"]["ollama"]["phase"], "ollama");
    assert_eq!(
        chat["here"]["reason"],
        "service ollama not reachable at 127.0.0.1:9"
    );
}

#[test]
fn unknown_job_is_a_usage_error() {
    let dir = suite();
    let output = run_env(dir.path(), &["plan", "--job", "nightly"], CLEAN);
    assert!(output.starts_with("exit: 4"), "{output}");
    assert!(
        output.contains("unknown job `nightly` (configured: unit, ollama)"),
        "{output}"
    );
}

/// `explain` and `plan` give one answer to "does job J run item I",
/// the job's `paths` included.
#[test]
fn explain_and_plan_agree_on_a_jobs_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[tool.pytest.ini_options]\ntestpaths = [\"test\"]\n\n[tool.proctor.jobs.unit]\nmarkers = \"not slow\"\n\n[tool.proctor.jobs.notebooks]\npaths = [\"docs/notebooks\"]\n",
    );
    write(root, "test/test_core.py", "def test_repr():\n    pass\n");
    let explained = run_env(root, &["explain", "test/test_core.py::test_repr"], CLEAN);
    assert!(explained.contains("unit: runs"), "{explained}");
    assert!(
        explained.contains("notebooks: deselected by the job's paths (docs/notebooks)"),
        "{explained}"
    );
    let output = run_env(root, &["plan", "--json"], CLEAN);
    let json = output
        .split("--- stdout\n")
        .nth(1)
        .unwrap()
        .split("--- stderr\n")
        .next()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(json).unwrap();
    let item = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["nodeid"] == "test/test_core.py::test_repr")
        .unwrap();
    assert_eq!(item["jobs"]["unit"]["verdict"], "run", "{item}");
    assert_eq!(item["jobs"]["notebooks"]["verdict"], "deselected", "{item}");
}

#[test]
fn dynamic_items_are_counted_apart_from_tests() {
    // A function whose parameters come from a call pytest makes at run
    // time is one dynamic item, not one test.
    let dir = suite();
    write(
        dir.path(),
        "test/test_dynamic.py",
        "import pytest\nimport random\n\n@pytest.mark.parametrize('n', random.sample(range(100), 50))\ndef test_sampled(n):\n    pass\n\n@pytest.mark.parametrize('n', [1, 2, 3])\ndef test_known(n):\n    pass\n",
    );
    let output = run_env(
        dir.path(),
        &[
            "plan",
            "--assume",
            "python.version=3.11",
            "--assume",
            "gpu.count=0",
        ],
        CLEAN,
    );
    assert!(output.contains("job     trigger   kind      selected  skipped    runs  +dynamic\nunit    pr        required         6        1       5         1\n"), "{output}");
    assert!(output.contains("5 run, 7 skipped, 0 deselected; plus 1 dynamic item that runs (a test function or file whose tests pytest knows only at run time)."), "{output}");
    let output = run_env(
        dir.path(),
        &["plan", "--json", "--assume", "gpu.count=0"],
        CLEAN,
    );
    let stdout = output
        .split("--- stdout\n")
        .nth(1)
        .and_then(|rest| rest.split("--- stderr\n").next())
        .unwrap();
    let json: serde_json::Value =
        serde_json::from_str(stdout).unwrap_or_else(|err| panic!("{err}: {output}"));
    assert_eq!(
        json["machine"]["dynamic"],
        serde_json::json!({"runs": 1, "skipped": 0, "deselected": 0})
    );
    assert_eq!(json["jobs"][0]["dynamic_runs"], 1);
}

#[test]
fn a_module_pytest_skips_counts_once_for_the_interpreter_given() {
    // `--python` is the interpreter static collection reads too: its
    // missing module makes the module one skip, as pytest counts it.
    let python =
        std::env::var("PROCTOR_TEST_PYTHON").expect("PROCTOR_TEST_PYTHON is set by scripts/test");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "test_gone.py", "import pytest\nyaml_like = pytest.importorskip('no_such_module_xyz')\n\ndef test_a():\n    pass\n\ndef test_b():\n    pass\n");
    write(dir.path(), "test_here.py", "def test_c():\n    pass\n");
    let output = run_env(
        dir.path(),
        &["plan", "--python", &python],
        &[("VIRTUAL_ENV", None)],
    );
    assert!(
        output.contains("1 run, 1 skipped, 0 deselected."),
        "{output}"
    );
    assert!(output.contains("SKIPPED [1] could not import 'no_such_module_xyz': No module named 'no_such_module_xyz'"), "{output}");
}
