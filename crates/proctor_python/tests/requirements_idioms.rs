//! Requirement idioms that are not decorators are recorded as decorators:
//! non-mark entries of module and class `pytestmark` lists, and top-level
//! `pytest.importorskip(...)` calls of a test module.

use proctor_python::{Collection, Decorator, Item, MarkerSource};
use serde_json::json;

/// Writes `files` (path, text) under a temporary rootdir and collects it.
fn collect(files: &[(&str, &str)]) -> Collection {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let settings = proctor_python::CollectSettings::new(dir.path().to_path_buf());
    proctor_python::collect(&settings, &[], dir.path(), &[])
}

fn item<'c>(collection: &'c Collection, nodeid: &str) -> &'c Item {
    collection
        .items
        .iter()
        .find(|i| i.nodeid == nodeid)
        .unwrap_or_else(|| {
            panic!(
                "no item {nodeid} in {:?}",
                collection
                    .items
                    .iter()
                    .map(|i| &i.nodeid)
                    .collect::<Vec<_>>()
            )
        })
}

/// The decorators of an item as (path, args, kwargs, source) for comparison.
fn decorators(item: &Item) -> Vec<(String, serde_json::Value, serde_json::Value, MarkerSource)> {
    item.decorators
        .iter()
        .map(|d: &std::sync::Arc<Decorator>| {
            (d.path.clone(), json!(d.args), json!(d.kwargs), d.source)
        })
        .collect()
}

fn markers(item: &Item) -> Vec<&str> {
    item.markers.iter().map(|m| m.name.as_str()).collect()
}

const PREDICATES: &str = "import pytest\n\ndef require_gpu(min_vram_gb=0):\n    return pytest.mark.skipif(True, reason='gpu')\n";

const MODULE_PYTESTMARK: &str = "\
import pytest
from pkg.predicates import require_gpu

pytestmark = [pytest.mark.e2e, pytest.mark.huggingface, require_gpu(min_vram_gb=20)]

def test_a():
    pass
";

#[test]
fn module_pytestmark_helper_in_the_suite() {
    let collection = collect(&[
        ("pkg/__init__.py", "from pkg.predicates import require_gpu\n"),
        ("pkg/predicates.py", PREDICATES),
        ("test_mod.py", MODULE_PYTESTMARK),
        // Resolved through the suite: the re-export names the defining module.
        ("test_reexport.py", "from pkg import require_gpu\npytestmark = [require_gpu(min_vram_gb=20)]\n\ndef test_b():\n    pass\n"),
    ]);
    let expected = vec![(
        "pkg.predicates.require_gpu".to_string(),
        json!([]),
        json!({"min_vram_gb": 20}),
        MarkerSource::Module,
    )];
    let item_a = item(&collection, "test_mod.py::test_a");
    assert_eq!(decorators(item_a), expected);
    assert_eq!(markers(item_a), vec!["e2e", "huggingface"]);
    assert_eq!(
        decorators(item(&collection, "test_reexport.py::test_b")),
        expected
    );
}

#[test]
fn module_pytestmark_helper_outside_the_suite() {
    let collection = collect(&[("test_mod.py", MODULE_PYTESTMARK)]);
    let item = item(&collection, "test_mod.py::test_a");
    assert_eq!(
        decorators(item),
        vec![(
            "pkg.predicates.require_gpu".to_string(),
            json!([]),
            json!({"min_vram_gb": 20}),
            MarkerSource::Module
        )]
    );
    assert_eq!(markers(item), vec!["e2e", "huggingface"]);
}

#[test]
fn module_pytestmark_single_helper_and_bare_name() {
    let collection = collect(&[(
        "test_mod.py",
        "from helpers import require_gpu, needs_network\nGPU = require_gpu(8)\npytestmark = (GPU, needs_network)\n\ndef test_a():\n    pass\n",
    )]);
    let item = item(&collection, "test_mod.py::test_a");
    assert_eq!(
        decorators(item),
        vec![
            (
                "helpers.require_gpu".to_string(),
                json!([8]),
                json!({}),
                MarkerSource::Module
            ),
            (
                "helpers.needs_network".to_string(),
                json!([]),
                json!({}),
                MarkerSource::Module
            ),
        ]
    );
}

#[test]
fn class_pytestmark_helper() {
    let collection = collect(&[(
        "test_cls.py",
        "\
import pytest
from pkg.predicates import require_gpu

class TestGpu:
    pytestmark = [pytest.mark.slow, require_gpu(min_vram_gb=8)]

    def test_m(self):
        pass

class TestDerived(TestGpu):
    def test_d(self):
        pass

def test_free():
    pass
",
    )]);
    let expected = vec![(
        "pkg.predicates.require_gpu".to_string(),
        json!([]),
        json!({"min_vram_gb": 8}),
        MarkerSource::Class,
    )];
    let method = item(&collection, "test_cls.py::TestGpu::test_m");
    assert_eq!(decorators(method), expected);
    assert_eq!(markers(method), vec!["slow"]);
    assert_eq!(
        decorators(item(&collection, "test_cls.py::TestDerived::test_d")),
        expected
    );
    assert!(item(&collection, "test_cls.py::test_free")
        .decorators
        .is_empty());
}

#[test]
fn plain_marks_in_pytestmark_are_not_decorators() {
    let collection = collect(&[(
        "test_mod.py",
        "import pytest\nfrom pytest import mark\npytestmark = [pytest.mark.x, mark.y(1), pytest.mark.skipif(True, reason='r')]\n\ndef test_a():\n    pass\n",
    )]);
    let item = item(&collection, "test_mod.py::test_a");
    assert!(item.decorators.is_empty(), "{:?}", item.decorators);
    assert_eq!(markers(item), vec!["x", "y", "skipif"]);
}

#[test]
fn module_importorskip_with_and_without_assignment() {
    let collection = collect(&[(
        "test_mod.py",
        "\
import pytest as pt
from pytest import importorskip

pt.importorskip(\"torch\")
np = importorskip(\"numpy\", minversion=\"1.2\")
jax: object = pt.importorskip(\"jax\")

def test_a():
    pass

class TestC:
    def test_m(self):
        pass
",
    )]);
    let expected = vec![
        (
            "pytest.importorskip".to_string(),
            json!(["torch"]),
            json!({}),
            MarkerSource::Module,
        ),
        (
            "pytest.importorskip".to_string(),
            json!(["numpy"]),
            json!({"minversion": "1.2"}),
            MarkerSource::Module,
        ),
        (
            "pytest.importorskip".to_string(),
            json!(["jax"]),
            json!({}),
            MarkerSource::Module,
        ),
    ];
    assert_eq!(
        decorators(item(&collection, "test_mod.py::test_a")),
        expected
    );
    assert_eq!(
        decorators(item(&collection, "test_mod.py::TestC::test_m")),
        expected
    );
    assert!(item(&collection, "test_mod.py::test_a").markers.is_empty());
}

#[test]
fn importorskip_in_functions_and_conditionals_is_not_recorded() {
    let collection = collect(&[(
        "test_mod.py",
        "\
import sys
import pytest

if sys.platform == \"linux\":
    pytest.importorskip(\"torch\")
else:
    torch = pytest.importorskip(\"torch\")

def helper():
    pytest.importorskip(\"numpy\")

def test_a():
    pytest.importorskip(\"jax\")

class TestC:
    pytest.importorskip(\"pandas\")

    def test_m(self):
        pass
",
    )]);
    assert!(item(&collection, "test_mod.py::test_a")
        .decorators
        .is_empty());
    assert!(item(&collection, "test_mod.py::TestC::test_m")
        .decorators
        .is_empty());
}

#[test]
fn decorators_are_ordered_function_class_module() {
    let collection = collect(&[(
        "test_mod.py",
        "\
import pytest
from pkg.predicates import require_gpu, require_ram, require_key, slow

pytest.importorskip(\"torch\")
pytestmark = [pytest.mark.e2e, require_gpu(min_vram_gb=20)]

@require_key(\"OPENAI_API_KEY\")
class TestOuter:
    pytestmark = require_ram(16)

    class TestInner:
        @slow
        def test_m(self):
            pass
",
    )]);
    let item = item(&collection, "test_mod.py::TestOuter::TestInner::test_m");
    assert_eq!(
        decorators(item),
        vec![
            (
                "pkg.predicates.slow".to_string(),
                json!([]),
                json!({}),
                MarkerSource::Function
            ),
            (
                "pkg.predicates.require_key".to_string(),
                json!(["OPENAI_API_KEY"]),
                json!({}),
                MarkerSource::Class
            ),
            (
                "pkg.predicates.require_ram".to_string(),
                json!([16]),
                json!({}),
                MarkerSource::Class
            ),
            (
                "pytest.importorskip".to_string(),
                json!(["torch"]),
                json!({}),
                MarkerSource::Module
            ),
            (
                "pkg.predicates.require_gpu".to_string(),
                json!([]),
                json!({"min_vram_gb": 20}),
                MarkerSource::Module
            ),
        ]
    );
    assert_eq!(markers(item), vec!["e2e"]);
}
