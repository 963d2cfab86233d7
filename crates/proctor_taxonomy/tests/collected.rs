//! Real suites collected statically by `proctor_python`, then run through
//! the taxonomy: node ids, marker sources and file paths as the collector
//! really produces them.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{show, taxonomy_in};
use proctor_python::{collect, CollectSettings, Item};
use proctor_taxonomy::Taxonomy;

/// Writes `files` under `root`, then collects the suite and returns each
/// item's node id with its effective markers, and the items.
fn effective_markers(
    root: &Path,
    taxonomy: &Taxonomy,
    files: &[(&str, &str)],
) -> (BTreeMap<String, Vec<String>>, Vec<Item>) {
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let settings = CollectSettings::new(root.to_path_buf());
    let collection = collect(&settings, &[], root, &[]);
    assert!(collection.errors.is_empty(), "{:?}", collection.errors);
    let found = collection
        .items
        .iter()
        .map(|item| (item.nodeid.clone(), show(&taxonomy.effective(item))))
        .collect();
    (found, collection.items)
}

fn root() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

#[test]
fn a_mellea_style_suite() {
    let (_dir, root) = root();
    let taxonomy = taxonomy_in(
        &root,
        r#"
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
default = "unit"
write-default = false

[axes.backend]
markers = ["ollama", "openai", "vllm"]

[markers.llm]
alias-of = "e2e"
deprecated = true

[markers.qualitative]
requires-any = ["e2e"]
scope = ["function"]

[markers.vllm]
implies = ["openai"]
"#,
    );
    let (found, items) = effective_markers(
        &root,
        &taxonomy,
        &[
            (
                "test/backends/test_ollama.py",
                "import pytest\n\
                 pytestmark = [pytest.mark.e2e, pytest.mark.ollama]\n\
                 \n\
                 @pytest.mark.qualitative\n\
                 def test_greeting():\n    pass\n\
                 \n\
                 def test_structure():\n    pass\n",
            ),
            (
                "test/backends/test_vllm.py",
                "import pytest\n\
                 pytestmark = [pytest.mark.e2e, pytest.mark.vllm]\n\
                 \n\
                 def test_generate():\n    pass\n",
            ),
            (
                "test/core/test_base.py",
                "import pytest\n\
                 \n\
                 def test_plain():\n    pass\n\
                 \n\
                 @pytest.mark.llm\n\
                 def test_legacy():\n    pass\n\
                 \n\
                 @pytest.mark.integration\n\
                 class TestSdk:\n    def test_call(self):\n        pass\n\
                 \n\
                 @pytest.mark.parametrize('m', ['a', pytest.param('b', marks=pytest.mark.llm)])\n\
                 def test_models(m):\n    pass\n",
            ),
        ],
    );
    let expected: BTreeMap<String, Vec<String>> = [
        (
            "test/backends/test_ollama.py::test_greeting",
            &[
                "qualitative <- written function",
                "e2e <- written module",
                "ollama <- written module",
            ][..],
        ),
        (
            "test/backends/test_ollama.py::test_structure",
            &["e2e <- written module", "ollama <- written module"],
        ),
        (
            "test/backends/test_vllm.py::test_generate",
            &[
                "e2e <- written module",
                "vllm <- written module",
                "openai <- implied by vllm",
            ],
        ),
        (
            "test/core/test_base.py::test_plain",
            &["unit <- default of tier"],
        ),
        (
            "test/core/test_base.py::test_legacy",
            &["e2e <- alias llm (function)"],
        ),
        (
            "test/core/test_base.py::TestSdk::test_call",
            &["integration <- written class"],
        ),
        (
            "test/core/test_base.py::test_models[a]",
            &["parametrize <- written function", "unit <- default of tier"],
        ),
        (
            "test/core/test_base.py::test_models[b]",
            &[
                "parametrize <- written function",
                "e2e <- alias llm (param)",
            ],
        ),
    ]
    .into_iter()
    .map(|(id, markers)| {
        (
            id.to_owned(),
            markers.iter().map(|m| (*m).to_owned()).collect(),
        )
    })
    .collect();
    assert_eq!(found, expected);
    assert_eq!(items.len(), 8);
}

#[test]
fn an_nl2sql_style_suite_with_path_rules_and_inherited_tests() {
    let (_dir, root) = root();
    let taxonomy = taxonomy_in(
        &root,
        r#"
[axes.tier]
markers = ["unit", "integration"]
default = "unit"

[[paths]]
glob = "tests/integration/**"
markers = ["integration"]
"#,
    );
    let (found, items) = effective_markers(
        &root,
        &taxonomy,
        &[
            ("tests/__init__.py", ""),
            ("tests/common/__init__.py", ""),
            (
                "tests/common/mixins.py",
                "class SharedChecks:\n    def test_shared(self):\n        pass\n",
            ),
            ("tests/integration/__init__.py", ""),
            (
                "tests/integration/test_chinook.py",
                "from tests.common.mixins import SharedChecks\n\
                 \n\
                 class TestChinook(SharedChecks):\n    def test_index(self):\n        pass\n",
            ),
            ("tests/unit/__init__.py", ""),
            (
                "tests/unit/test_registry.py",
                "def test_lookup():\n    pass\n",
            ),
        ],
    );
    let expected: BTreeMap<String, Vec<String>> = [
        (
            "tests/integration/test_chinook.py::TestChinook::test_shared",
            "integration <- path tests/integration/**",
        ),
        (
            "tests/integration/test_chinook.py::TestChinook::test_index",
            "integration <- path tests/integration/**",
        ),
        (
            "tests/unit/test_registry.py::test_lookup",
            "unit <- default of tier",
        ),
    ]
    .into_iter()
    .map(|(id, marker)| (id.to_owned(), vec![marker.to_owned()]))
    .collect();
    assert_eq!(found, expected);
    // The inherited test is defined in the mixin's module, yet the path rule
    // applies by the module that collects it.
    let shared = items
        .iter()
        .find(|item| item.nodeid.ends_with("::test_shared"))
        .unwrap();
    assert_eq!(shared.file, "tests/common/mixins.py");
}

/// The Transformers seed: `@slow` and `@require_torch` are plain decorators
/// imported from `transformers.testing_utils`, and a project helper
/// returning a mark stands for `gpu`, which implies `slow`.
#[test]
fn a_transformers_style_suite_maps_decorators_to_markers() {
    let (_dir, root) = root();
    let taxonomy = taxonomy_in(
        &root,
        r#"
[markers.gpu]
implies = ["slow"]

[decorators]
"transformers.testing_utils.slow" = "slow"
"transformers.testing_utils.require_torch" = "torch"
"predicates.require_gpu" = "gpu"
"#,
    );
    let (found, _) = effective_markers(
        &root,
        &taxonomy,
        &[
            (
                "tests/predicates.py",
                "import pytest\n\
                 def require_gpu(min_vram_gb):\n    return pytest.mark.skipif(True, reason='gpu')\n",
            ),
            (
                "tests/test_model.py",
                "import unittest\n\
                 from transformers.testing_utils import require_torch, slow\n\
                 from predicates import require_gpu\n\
                 \n\
                 @require_torch\n\
                 class ModelTest(unittest.TestCase):\n    @slow\n    def test_generate(self):\n        pass\n\
                 \n    def test_config(self):\n        pass\n\
                 \n\
                 @require_gpu(min_vram_gb=8)\n\
                 def test_big_model():\n    pass\n",
            ),
        ],
    );
    let expected: BTreeMap<String, Vec<String>> = [
        (
            "tests/test_model.py::ModelTest::test_config",
            &["torch <- decorator transformers.testing_utils.require_torch"][..],
        ),
        (
            "tests/test_model.py::ModelTest::test_generate",
            &[
                "slow <- decorator transformers.testing_utils.slow",
                "torch <- decorator transformers.testing_utils.require_torch",
            ],
        ),
        (
            "tests/test_model.py::test_big_model",
            &[
                "gpu <- decorator predicates.require_gpu",
                "slow <- implied by gpu",
            ],
        ),
    ]
    .into_iter()
    .map(|(id, markers)| {
        (
            id.to_string(),
            markers.iter().map(ToString::to_string).collect(),
        )
    })
    .collect();
    assert_eq!(found, expected);
}
