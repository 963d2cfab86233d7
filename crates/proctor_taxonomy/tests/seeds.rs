//! The marker rules of the five seed projects, expressed as proctor
//! configuration and applied to items built by hand: effective markers,
//! provenance and notes for each scenario the seeds describe.

mod common;

use common::{broken_companion_rules, item, mark, show, taxonomy};
use proctor_python::MarkerSource::{Class, Function, Module, Param};
use proctor_taxonomy::{Note, Taxonomy};

/// Mellea: exactly one tier with `unit` auto-applied and never written,
/// `llm` a deprecated alias of `e2e`, `qualitative` per function and only
/// with `e2e`, backend markers only on e2e/qualitative tests, vLLM tests
/// carrying `openai` too, and markers removed in favour of `require_gpu`.
const MELLEA: &str = r#"
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
default = "unit"
write-default = false

[axes.backend]
markers = ["ollama", "openai", "watsonx", "huggingface", "vllm", "litellm", "bedrock"]
cardinality = "any"

[markers.llm]
alias-of = "e2e"
deprecated = true

[markers.qualitative]
requires-any = ["e2e"]
scope = ["function"]

[markers.ollama]
only-with = ["e2e", "qualitative"]
[markers.openai]
only-with = ["e2e", "qualitative"]
[markers.huggingface]
only-with = ["e2e", "qualitative"]
[markers.vllm]
only-with = ["e2e", "qualitative"]
implies = ["openai"]

[markers.requires_gpu]
removed = "use `require_gpu(min_vram_gb=N)` from test.predicates instead"
[markers.requires_heavy_ram]
removed = "use `require_ram(min_gb=N)` from test.predicates instead"
"#;

fn mellea() -> Taxonomy {
    taxonomy(MELLEA)
}

#[test]
fn mellea_unit_is_auto_applied_where_no_tier_is_written() {
    let taxonomy = mellea();
    let effective = taxonomy.effective(&item("test/core/test_base.py::test_format", vec![]));
    assert_eq!(show(&effective), ["unit <- default of tier"]);
    assert!(effective.notes.is_empty());

    // Any other marker does not count as a tier.
    let effective = taxonomy.effective(&item(
        "test/core/test_base.py::test_slow_format",
        vec![mark("slow", Function)],
    ));
    assert_eq!(
        show(&effective),
        ["slow <- written function", "unit <- default of tier"]
    );

    // A written tier suppresses the default.
    let effective = taxonomy.effective(&item(
        "test/stdlib/test_session.py::test_sdk",
        vec![mark("integration", Function)],
    ));
    assert_eq!(show(&effective), ["integration <- written function"]);
}

#[test]
fn mellea_llm_is_a_deprecated_alias_of_e2e() {
    let taxonomy = mellea();
    let effective = taxonomy.effective(&item(
        "test/backends/test_ollama.py::test_chat",
        vec![mark("llm", Function), mark("ollama", Module)],
    ));
    assert_eq!(
        show(&effective),
        ["e2e <- alias llm (function)", "ollama <- written module"]
    );
    assert_eq!(
        effective.notes,
        [
            Note::Alias {
                written: "llm".into(),
                target: "e2e".into(),
                source: Function,
            },
            Note::Deprecated {
                name: "llm".into(),
                source: Function,
            },
        ]
    );
    assert!(effective.has("e2e") && !effective.has("llm") && !effective.has("unit"));

    // An alias in `pytest.param(..., marks=...)` keeps its source.
    let effective = taxonomy.effective(&item(
        "test/backends/test_ollama.py::test_models[granite]",
        vec![mark("llm", Param)],
    ));
    assert_eq!(show(&effective), ["e2e <- alias llm (param)"]);
}

#[test]
fn mellea_qualitative_requires_e2e() {
    let taxonomy = mellea();
    let rule = taxonomy.rule("qualitative").unwrap();
    assert_eq!(rule.requires_any.as_deref(), Some(&["e2e".to_owned()][..]));
    assert_eq!(
        rule.scope.as_deref(),
        Some(&[proctor_config::MarkerScope::Function][..])
    );

    // `pytestmark = [pytest.mark.e2e, pytest.mark.ollama]` with a
    // `@pytest.mark.qualitative` function.
    let effective = taxonomy.effective(&item(
        "test/backends/test_ollama.py::test_greeting_content",
        vec![
            mark("qualitative", Function),
            mark("e2e", Module),
            mark("ollama", Module),
        ],
    ));
    assert_eq!(
        show(&effective),
        [
            "qualitative <- written function",
            "e2e <- written module",
            "ollama <- written module"
        ]
    );
    assert!(broken_companion_rules(&taxonomy, &effective).is_empty());

    // Without `e2e`, the item is a unit test and the rule is broken.
    let effective = taxonomy.effective(&item(
        "test/core/test_x.py::test_content",
        vec![mark("qualitative", Function)],
    ));
    assert_eq!(
        show(&effective),
        ["qualitative <- written function", "unit <- default of tier"]
    );
    assert_eq!(
        broken_companion_rules(&taxonomy, &effective),
        ["qualitative: requires-any e2e"]
    );
}

#[test]
fn mellea_backends_only_with_e2e_and_vllm_carries_openai() {
    let taxonomy = mellea();
    assert_eq!(taxonomy.axis_of("vllm").unwrap().name, "backend");

    // `pytestmark = [pytest.mark.e2e, pytest.mark.openai, pytest.mark.vllm,
    // require_gpu(min_vram_gb=8)]`, minus `openai`: vllm implies it.
    let effective = taxonomy.effective(&item(
        "test/backends/test_openai_vllm.py::test_generate",
        vec![mark("e2e", Module), mark("vllm", Module)],
    ));
    assert_eq!(
        show(&effective),
        [
            "e2e <- written module",
            "vllm <- written module",
            "openai <- implied by vllm"
        ]
    );
    assert!(broken_companion_rules(&taxonomy, &effective).is_empty());

    // A backend marker on a unit test breaks `only-with`, for the written
    // marker and for the one it implies.
    let effective = taxonomy.effective(&item(
        "test/core/test_y.py::test_fake_backend",
        vec![mark("vllm", Function)],
    ));
    assert_eq!(
        show(&effective),
        [
            "vllm <- written function",
            "openai <- implied by vllm",
            "unit <- default of tier"
        ]
    );
    assert_eq!(
        broken_companion_rules(&taxonomy, &effective),
        [
            "vllm: only-with e2e|qualitative",
            "openai: only-with e2e|qualitative"
        ]
    );
}

#[test]
fn mellea_removed_markers_stay_and_are_noted() {
    let taxonomy = mellea();
    let effective = taxonomy.effective(&item(
        "test/backends/test_hf.py::test_load",
        vec![
            mark("e2e", Class),
            mark("huggingface", Class),
            mark("requires_gpu", Function),
        ],
    ));
    assert_eq!(
        show(&effective),
        [
            "e2e <- written class",
            "huggingface <- written class",
            "requires_gpu <- written function"
        ]
    );
    assert_eq!(
        effective.notes,
        [Note::Removed {
            name: "requires_gpu".into(),
            message: "use `require_gpu(min_vram_gb=N)` from test.predicates instead".into(),
            source: Function,
        }]
    );
}

/// indx: `unit` is the default and never written, `integration` is
/// explicit.
const INDX: &str = r#"
[axes.tier]
markers = ["unit", "integration"]
cardinality = "exactly-one"
default = "unit"
write-default = false

[markers.live]
conflicts = ["unit"]
"#;

#[test]
fn indx_unit_by_default_integration_when_written() {
    let taxonomy = taxonomy(INDX);
    let tier = &taxonomy.axes()[0];
    assert_eq!(tier.default.as_deref(), Some("unit"));
    assert!(!tier.write_default);

    let unit = taxonomy.effective(&item(
        "tests/unit/store/test_jsonl.py::test_roundtrip",
        vec![],
    ));
    assert_eq!(show(&unit), ["unit <- default of tier"]);

    let integration = taxonomy.effective(&item(
        "tests/integration/store/test_qdrant.py::test_qdrant_upsert_and_search",
        vec![mark("integration", Function)],
    ));
    assert_eq!(show(&integration), ["integration <- written function"]);

    // A class decorator marks every method.
    let method = taxonomy.effective(&item(
        "tests/integration/llm/test_ollama.py::TestOllama::test_generate",
        vec![mark("integration", Class)],
    ));
    assert_eq!(show(&method), ["integration <- written class"]);

    // `--live` tests are a need, not a tier: they still get the default.
    let live = taxonomy.effective(&item(
        "tests/unit/embed/test_openai.py::test_openai_embedder_live",
        vec![mark("live", Function)],
    ));
    assert_eq!(
        show(&live),
        ["live <- written function", "unit <- default of tier"]
    );
}

/// `MASEval`: two axes that compose freely, and `credentialed` implies `live`
/// so that `-m "not live"` is a fully offline run.
const MASEVAL: &str = r#"
[axes.area]
markers = ["core", "interface", "contract", "benchmark"]

[axes.needs]
markers = ["live", "credentialed", "slow", "smoke"]

[markers.credentialed]
implies = ["live"]
"#;

#[test]
fn maseval_credentialed_implies_live() {
    let taxonomy = taxonomy(MASEVAL);
    let effective = taxonomy.effective(&item(
        "tests/test_interface/test_model_integration/test_openai.py::test_live_chat",
        vec![mark("credentialed", Function), mark("interface", Module)],
    ));
    assert_eq!(
        show(&effective),
        [
            "credentialed <- written function",
            "interface <- written module",
            "live <- implied by credentialed"
        ]
    );

    // Written `live` is not implied a second time.
    let effective = taxonomy.effective(&item(
        "tests/test_interface/test_x.py::test_y",
        vec![mark("live", Function), mark("credentialed", Function)],
    ));
    assert_eq!(
        show(&effective),
        [
            "live <- written function",
            "credentialed <- written function"
        ]
    );
}

#[test]
fn maseval_two_axes_compose_without_defaults() {
    let taxonomy = taxonomy(MASEVAL);
    assert_eq!(
        taxonomy
            .axes()
            .iter()
            .map(|a| a.name.as_str())
            .collect::<Vec<_>>(),
        ["area", "needs"]
    );
    // `@benchmark @live @slow def test_download_data` in a `core` module.
    let effective = taxonomy.effective(&item(
        "tests/test_benchmarks/test_tau2/test_data.py::test_download_data",
        vec![
            mark("benchmark", Function),
            mark("live", Function),
            mark("slow", Function),
            mark("core", Module),
        ],
    ));
    assert_eq!(
        show(&effective),
        [
            "benchmark <- written function",
            "live <- written function",
            "slow <- written function",
            "core <- written module"
        ]
    );
    assert_eq!(taxonomy.axis_of("benchmark").unwrap().name, "area");
    assert_eq!(taxonomy.axis_of("slow").unwrap().name, "needs");
    // Neither axis has a default: an unmarked test stays unmarked, which the
    // jobs audit reports.
    assert!(taxonomy
        .effective(&item("tests/test_core/test_a.py::test_b", vec![]))
        .markers
        .is_empty());
}

/// nl2sql: everything under `integration/` is `integration`, everything
/// under `realdb/` is `realdb`; `llm` is declared per module next to a
/// comment.
const NL2SQL: &str = r#"
[axes.scope]
markers = ["integration", "realdb"]

[markers.llm]
needs-comment = true
scope = ["module"]

[[paths]]
glob = "packages/nl2sql/tests/integration/**"
markers = ["integration"]

[[paths]]
glob = "packages/nl2sql/tests/realdb"
markers = ["realdb"]
"#;

#[test]
fn nl2sql_everything_under_integration_is_integration() {
    let taxonomy = taxonomy(NL2SQL);
    let effective = taxonomy.effective(&item(
        "packages/nl2sql/tests/integration/test_schema_index.py::test_index_chinook",
        vec![],
    ));
    assert_eq!(
        show(&effective),
        ["integration <- path packages/nl2sql/tests/integration/**"]
    );

    // A glob naming a directory covers everything inside it.
    let effective = taxonomy.effective(&item(
        "packages/nl2sql/tests/realdb/postgres/test_pg.py::TestPg::test_select",
        vec![],
    ));
    assert_eq!(
        show(&effective),
        ["realdb <- path packages/nl2sql/tests/realdb"]
    );

    let effective = taxonomy.effective(&item(
        "packages/nl2sql/tests/unit/test_registry.py::test_lookup",
        vec![],
    ));
    assert!(effective.markers.is_empty());

    // The per-module `llm` marker composes with the path rule.
    let effective = taxonomy.effective(&item(
        "packages/nl2sql/tests/integration/test_ast_planner_real_data.py::test_plan",
        vec![mark("llm", Module)],
    ));
    assert_eq!(
        show(&effective),
        [
            "llm <- written module",
            "integration <- path packages/nl2sql/tests/integration/**"
        ]
    );
    assert_eq!(taxonomy.rule("llm").unwrap().needs_comment, Some(true));
}

#[test]
fn nl2sql_a_written_marker_is_not_applied_again_by_its_path() {
    let taxonomy = taxonomy(NL2SQL);
    let effective = taxonomy.effective(&item(
        "packages/nl2sql/tests/integration/test_a.py::test_b",
        vec![mark("integration", Function)],
    ));
    assert_eq!(show(&effective), ["integration <- written function"]);
    assert_eq!(
        taxonomy
            .path_rules_for("packages/nl2sql/tests/integration/test_a.py")
            .len(),
        1,
        "lint can still tell that the written marker is redundant"
    );
}

#[test]
fn path_rules_match_the_collecting_module_not_the_defining_one() {
    // Transformers-style: a test inherited from a mixin in another module
    // is collected from the subclass's module, which is what a conftest hook
    // sees as `item.path`.
    let taxonomy = taxonomy(NL2SQL);
    let mut inherited = item(
        "packages/nl2sql/tests/integration/test_models.py::TestBert::test_forward",
        vec![],
    );
    inherited.file = "packages/nl2sql/tests/common/mixins.py".to_owned();
    assert_eq!(
        show(&taxonomy.effective(&inherited)),
        ["integration <- path packages/nl2sql/tests/integration/**"]
    );
}
