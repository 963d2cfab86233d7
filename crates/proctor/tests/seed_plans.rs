//! The example suites in `examples/` model the five seed documents. For
//! each, `proctor plan --json` must name exactly the tests that no CI job
//! runs, with the right reasons, and each job must run the number of tests
//! counted by hand from the suite and its jobs (not copied from proctor's
//! output). `proctor check` must report only the findings planted on
//! purpose.

use std::path::PathBuf;
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
    "WATSONX_API_KEY",
    "WATSONX_URL",
    "WATSONX_PROJECT_ID",
    "QDRANT_URL",
    "PGVECTOR_ADDRESS",
    "_MELLEA_SKIP_RESOURCE_CHECKS",
    "PROCTOR_SKIP_RESOURCE_CHECKS",
    "PYTEST_ADDOPTS",
];

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn proctor(name: &str, args: &[&str]) -> (i32, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_proctor"));
    command.args(args).current_dir(example(name));
    for var in CLEAN {
        command.env_remove(var);
    }
    let output = command.output().expect("proctor runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn plan(name: &str) -> Value {
    let (code, stdout) = proctor(
        name,
        &[
            "plan",
            "--json",
            "--assume",
            "python.version=3.11",
            "--assume",
            "gpu.count=0",
        ],
    );
    assert_eq!(
        code, 1,
        "{name}: some test is run by no job, so plan exits 1\n{stdout}"
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{name}: plan --json is JSON: {e}\n{stdout}"))
}

/// `unrun`: node id → the phrases its `why` must contain (in order of the
/// jobs). `runs`: job → tests it runs.
fn assert_plan(name: &str, unrun: &[(&str, &[&str])], runs: &[(&str, u64)]) -> Value {
    let doc = plan(name);
    let got: Vec<(&str, &str)> = doc["unrun"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["nodeid"].as_str().unwrap(), u["why"].as_str().unwrap()))
        .collect();
    let mut got_ids: Vec<&str> = got.iter().map(|(id, _)| *id).collect();
    got_ids.sort_unstable();
    let mut want_ids: Vec<&str> = unrun.iter().map(|(id, _)| *id).collect();
    want_ids.sort_unstable();
    assert_eq!(got_ids, want_ids, "{name}: the tests no job runs");
    for (id, phrases) in unrun {
        let why = got.iter().find(|(g, _)| g == id).unwrap().1;
        for phrase in *phrases {
            assert!(
                why.contains(phrase),
                "{name}: {id}: `{phrase}` not in the reason:\n  {why}"
            );
        }
    }
    let jobs: Vec<(&str, u64)> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["name"].as_str().unwrap(), j["runs"].as_u64().unwrap()))
        .collect();
    assert_eq!(jobs, runs, "{name}: tests each job runs");
    doc
}

/// The verdict of `nodeid` in `job`.
fn verdict<'a>(doc: &'a Value, nodeid: &str, job: &str) -> &'a Value {
    let item = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["nodeid"] == nodeid)
        .unwrap_or_else(|| panic!("no item {nodeid}"));
    &item["jobs"][job]
}

/// `proctor check`'s findings as (code, file), sorted.
fn check(name: &str) -> (i32, Vec<(String, String)>) {
    let (code, stdout) = proctor(name, &["check", "--format", "json"]);
    let findings: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{name}: check --format json: {e}\n{stdout}"));
    let mut pairs: Vec<(String, String)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["file"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    pairs.sort();
    (code, pairs)
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn mellea() {
    // PR: CICD=1, Ollama up, no GPU, no keys; nightly: qualitative on,
    // Ollama up, one 80 GB GPU, no keys; both keep addopts' `not slow`.
    let doc = assert_plan(
        "mellea",
        &[
            (
                "test/stdlib/test_sampling.py::test_best_of_n_large_budget_converges",
                &[
                    "`pr`: deselected by -m \"not slow\"",
                    "`nightly`: deselected by -m \"not slow\"",
                ],
            ),
            (
                "test/backends/test_openai.py::test_instruct_haiku_real_api_has_three_lines",
                &[
                    "`pr`: selected but skipped (`qualitative` tests are skipped when CICD=1)",
                    "`nightly`: selected but skipped (OPENAI_API_KEY not set)",
                ],
            ),
            (
                "test/backends/test_openai.py::test_chat_completion_real_api_returns_message",
                &[
                    "`pr`: selected but skipped (OPENAI_API_KEY not set)",
                    "`nightly`: selected but skipped (OPENAI_API_KEY not set)",
                ],
            ),
            (
                "test/backends/test_huggingface.py::test_generate_70b_model_loads_on_one_gpu",
                &[
                    "`pr`: selected but skipped (no GPU detected",
                    "`nightly`: selected but skipped (Insufficient VRAM: 80 GB < 200 GB required)",
                ],
            ),
            (
                "docs/examples/notebooks/untagged.ipynb::untagged.ipynb",
                &[
                    "`notebooks`: selected but skipped (notebook has no `mellea` metadata block",
                    "`nightly-notebooks`: deselected by -m \"e2e\" (job `nightly-notebooks`)",
                    "`nightly`: selected but skipped (notebook has no `mellea` metadata block",
                ],
            ),
        ],
        // pr (test/ only): 3 unit + 2 integration + 4 ollama e2e
        // (structured, chat, the `llm` legacy test, OpenAI-via-Ollama) = 9.
        // notebooks: getting_started (docling_rag is slow, untagged has no
        // block) = 1. nightly-notebooks: getting_started and docling_rag = 2.
        // nightly: the 9, the qualitative ollama test, huggingface 20 GB,
        // vLLM 8 GB, the two opted-in examples and getting_started = 15.
        &[
            ("pr", 9),
            ("notebooks", 1),
            ("nightly-notebooks", 2),
            ("nightly", 15),
        ],
    );
    let qualitative = "test/backends/test_ollama.py::test_greeting_instruct_contains_salutation";
    assert_eq!(verdict(&doc, qualitative, "pr")["verdict"], "skipped");
    assert_eq!(verdict(&doc, qualitative, "nightly")["verdict"], "run");
    assert_eq!(verdict(&doc, qualitative, "nightly")["phase"], "ollama");
    let nightly = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["name"] == "nightly")
        .unwrap();
    // JSON lists every phase of the axis, empty ones with 0.
    let phases: Vec<(&str, u64)> = nightly["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap(), p[1].as_u64().unwrap()))
        .filter(|(_, n)| *n > 0)
        .collect();
    assert_eq!(
        phases,
        [
            ("ollama", 7),
            ("huggingface", 2),
            ("openai", 1),
            ("(none)", 5)
        ]
    );
    // Planted: the deprecated `llm` alias (PRC004); the seed's own
    // `addopts = -m "not slow"` (PRC202, information); the predicates
    // the seed documents that this small suite's tests do not call
    // (`require_ram`, `require_package`, `require_python`: PRC104, once each);
    // an example without the opt-in comment (PRC402, information) and a
    // notebook without its `mellea` block (PRC403). The opted-in examples and
    // notebooks are not test modules: `[check] file-name` leaves them alone.
    let (code, found) = check("mellea");
    assert_eq!(
        found,
        pairs(&[
            ("PRC004", "test/backends/test_ollama_legacy.py"),
            ("PRC104", "pyproject.toml"),
            ("PRC104", "pyproject.toml"),
            ("PRC104", "pyproject.toml"),
            ("PRC202", "pyproject.toml"),
            ("PRC402", "docs/examples/draft_agent.py"),
            ("PRC403", "docs/examples/notebooks/untagged.ipynb"),
        ])
    );
    assert_eq!(code, 1);
}

#[test]
fn indx() {
    let doc = assert_plan(
        "indx",
        &[
            (
                "tests/plugins/test_discovery.py::test_fake_plugin_entry_point_resolves",
                &[
                    "`unit`: deselected by the job's paths",
                    "`integration`: deselected by the job's paths",
                    "`live`: deselected by the job's paths",
                ],
            ),
            (
                "tests/integration/store/test_pgvector.py::test_pgvector_upsert_and_search",
                &["`integration`: selected but skipped (service postgres not available)"],
            ),
            (
                "tests/integration/llm/test_anthropic_live.py::test_anthropic_llm_live_completes",
                &[
                    "`integration`: selected but skipped (talks to real services: pass --live)",
                    "`live`: selected but skipped (ANTHROPIC_API_KEY not set)",
                ],
            ),
        ],
        // unit and package: the 9 items under tests/unit (one parametrized
        // twice). integration: 8 selected, minus the two `live` tests and
        // pgvector = 5. live: the OpenAI and Anthropic live tests, 1 runs.
        &[("unit", 9), ("package", 9), ("integration", 5), ("live", 1)],
    );
    assert_eq!(
        verdict(
            &doc,
            "tests/integration/embed/test_openai_live.py::test_openai_embedder_live",
            "live"
        )["verdict"],
        "run"
    );
    assert_eq!(check("indx"), (0, vec![]));
}

#[test]
fn maseval() {
    let contract = [
        "`test-core`: deselected by -m \"core\"",
        "`test-credentialed`: deselected by -m \"credentialed\"",
    ];
    let doc = assert_plan(
        "maseval",
        &[
            ("tests/test_contract/test_model_adapters.py::test_all_model_adapters_return_same_message_shape", &contract),
            ("tests/test_contract/test_model_adapters.py::test_all_agent_adapters_record_traces", &contract),
            (
                "tests/test_interface/test_model_integration/test_providers.py::test_google_adapter_live_chat",
                &[
                    "`test-interface`: deselected by -m \"not slow and not credentialed and not smoke\" (pytest addopts)",
                    "`test-credentialed`: selected but skipped (GOOGLE_API_KEY not set)",
                ],
            ),
        ],
        // core: 2 + 2 parametrized; interface: smolagents, langgraph, the
        // mocked OpenAI contract; benchmark: tau2 import, tau2 live, macs;
        // slow: tau2 integrity; smoke: macs pipeline; credentialed: OpenAI
        // and Anthropic (Google lacks its key).
        &[
            ("test-core", 4),
            ("test-interface", 3),
            ("test-benchmark", 3),
            ("test-slow", 1),
            ("test-smoke", 1),
            ("test-credentialed", 2),
        ],
    );
    // `credentialed` implies `live`: the offline benchmark job, whose
    // default excludes credentialed, never sees the live chat tests.
    let openai = "tests/test_interface/test_model_integration/test_providers.py::test_openai_adapter_live_chat";
    assert_eq!(
        verdict(&doc, openai, "test-interface")["verdict"],
        "deselected"
    );
    // Planted: the seed's own default `addopts -m` (PRC202, information only,
    // so check exits 0).
    assert_eq!(
        check("maseval"),
        (0, pairs(&[("PRC202", "pyproject.toml")]))
    );
}

#[test]
fn transformers() {
    let file = "tests/models/mymodel/test_modeling_mymodel.py";
    let from_pretrained = format!("{file}::MyModelTest::test_model_from_pretrained");
    let seventy = format!("{file}::MyModelIntegrationTest::test_inference_70b");
    let doc = assert_plan(
        "transformers",
        &[
            (
                &from_pretrained,
                &["`tests_torch`: selected but skipped (test is slow)", "`nightly_slow`: deselected by -k \"IntegrationTest\""],
            ),
            (
                &seventy,
                &[
                    "`tests_torch`: selected but skipped (test is slow)",
                    "`nightly_slow`: selected but skipped (Insufficient VRAM: 24 GB < 80 GB required)",
                ],
            ),
            (
                "tests/quantization/test_bnb.py::Bnb4BitTest::test_quantized_model_generates",
                &["`tests_torch`: deselected by the job's paths", "`nightly_slow`: deselected by the job's paths"],
            ),
        ],
        // tests_torch: 13 items under tests/models (7 of MyModelTest, 4 of
        // them inherited from the mixins; 3 integration; 3 tokenizer), 4
        // slow = 9. nightly_slow: the 3 integration tests, 70B skipped = 2.
        &[("tests_torch", 9), ("nightly_slow", 2)],
    );
    // Mixin-generated tests are items of the subclass.
    assert_eq!(
        verdict(
            &doc,
            &format!("{file}::MyModelTest::test_greedy_generate"),
            "tests_torch"
        )["verdict"],
        "run"
    );
    assert_eq!(check("transformers"), (0, vec![]));
}

#[test]
fn nl2sql() {
    let llm = [
        "`test`: deselected by -m \"not integration and not realdb\"",
        "`integration`: deselected by -m \"integration and not llm\"",
        "`realdb`: deselected by -m \"realdb\"",
    ];
    let doc = assert_plan(
        "nl2sql",
        &[
            ("packages/nl2sql/tests/integration/test_ast_planner_real_data.py::test_planner_builds_join_plan", &llm),
            ("packages/nl2sql/tests/integration/test_answer_synthesizer_real_data.py::test_synthesizer_cites_rows", &llm),
            (
                "packages/nl2sql/tests/realdb/test_mssql.py::test_mssql_windows_auth_connects",
                &["`realdb`: selected but skipped (runs only on win32)"],
            ),
        ],
        // test: 5 unit + 1 cli + 1 e2e + 2 api = 9; integration: the two
        // key-free modules' 2 tests; realdb: 3 selected, Windows-only one
        // skipped = 2.
        &[("test", 9), ("integration", 2), ("realdb", 2)],
    );
    // The path rule makes integration/ tests `integration`.
    assert_eq!(
        verdict(
            &doc,
            "packages/nl2sql/tests/integration/test_schema_retrieval.py::test_local_embedder_indexes_chinook",
            "test"
        )["verdict"],
        "deselected"
    );
    // Planted: the shadowed [tool.pytest.ini_options] table (PRC201).
    assert_eq!(check("nl2sql"), (1, pairs(&[("PRC201", "pyproject.toml")])));
}
