//! Bad input never panics. A property test feeds arbitrary bytes and
//! shuffled fragments of pytest code to the collector (test module, an
//! imported helper and a conftest); the named cases check that broken files
//! become error entries while the rest of the suite is still collected.
//! The same entry is available to cargo-fuzz in `fuzz/`.

use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "import pytest\n",
    "from pytest import mark\n",
    "from x import *\n",
    "from x import Base, helper as h\n",
    "@pytest.mark.parametrize('a,b', [(1, 2), pytest.param(3, 4, id='x')])\n",
    "@pytest.mark.parametrize('a', [])\n",
    "@pytest.mark.parametrize(('a',), [[1]], ids=lambda v: v)\n",
    "@mark.parametrize('a', [1.5, -0.0, 'é', b'\\xff', None, True, object()])\n",
    "@pytest.fixture(params=[1, 2], scope='module')\n",
    "def a(request):\n    return request.param\n",
    "def test_a(a, b):\n    pass\n",
    "def test_b():\n    yield 1\n",
    "class TestX(Base):\n    def test_m(self, a):\n        pass\n",
    "class Base:\n    pytestmark = [pytest.mark.slow]\n    def test_base(self): pass\n",
    "pytestmark = pytest.mark.skipif(True, reason='r')\n",
    "from .x import *\n",
    "from . import y as z\n",
    "if True:\n    def test_c(): pass\n",
    "x = x\n",
    "Base = Base\n",
    "class A(A): pass\n",
    "class B(C): pass\nclass C(B): pass\n",
    "def pytest_generate_tests(metafunc): pass\n",
    "\u{e9}\u{65e5}\n",
    "    ",
    "(",
    "\"\"\"",
];

fn source() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..256),
        proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..24)
            .prop_map(|parts| parts.concat().into_bytes()),
    ]
}

fn collect(dir: &std::path::Path) -> proctor_python::Collection {
    let settings = proctor_python::CollectSettings::new(dir.to_path_buf());
    proctor_python::collect(&settings, &[], dir, &[])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn collection_never_panics(main in source(), helper in source(), conftest in source()) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("test_fuzz.py"), &main).unwrap();
        std::fs::write(dir.path().join("x.py"), &helper).unwrap();
        std::fs::write(dir.path().join("conftest.py"), &conftest).unwrap();
        let collection = collect(dir.path());
        for item in &collection.items {
            prop_assert!(item.nodeid.starts_with("test_fuzz.py") || item.dynamic.is_some(), "{}", item.nodeid);
        }
    }
}

#[test]
fn broken_files_become_errors_and_the_rest_is_collected() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("test_bin.py"), b"\x00\x01\x02\xff").unwrap();
    std::fs::write(
        dir.path().join("test_latin.py"),
        b"s = '\xe9'\ndef test_x(): pass\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("test_cookie.py"),
        b"# -*- coding: latin-1 -*-\ns = '\xe9'\ndef test_x(): pass\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("test_syntax.py"), b"x = 1\ndef test_x(:\n").unwrap();
    std::fs::write(
        dir.path().join("test_yield.py"),
        b"def test_y():\n    yield 1\ndef test_z(): pass\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("test_ok.py"), b"def test_ok(): pass\n").unwrap();
    let collection = collect(dir.path());
    let ids: Vec<&str> = collection.items.iter().map(|i| i.nodeid.as_str()).collect();
    assert_eq!(ids, ["test_cookie.py::test_x", "test_ok.py::test_ok"]);
    let files: Vec<&str> = collection.errors.iter().map(|e| e.file.as_str()).collect();
    assert_eq!(
        files,
        [
            "test_bin.py",
            "test_latin.py",
            "test_syntax.py",
            "test_yield.py"
        ]
    );
    assert_eq!(collection.errors[2].line, 2, "{:?}", collection.errors[2]);
    assert!(collection.errors[3]
        .message
        .contains("'yield' keyword is allowed in fixtures"));
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_reported_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("test_a.py"), b"def test_a(): pass\n").unwrap();
    std::os::unix::fs::symlink(dir.path(), sub.join("loop")).unwrap();
    let collection = collect(dir.path());
    assert_eq!(collection.items.len(), 1);
    assert!(
        collection
            .errors
            .iter()
            .any(|e| e.message.contains("symlink loop")),
        "{:?}",
        collection.errors
    );
}

#[test]
fn files_over_the_size_limit_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("test_big.py"), vec![b'#'; 4096]).unwrap();
    let mut settings = proctor_python::CollectSettings::new(dir.path().to_path_buf());
    settings.max_file_size = 1024;
    let collection = proctor_python::collect(&settings, &[], dir.path(), &[]);
    assert!(collection.items.is_empty());
    assert!(collection.errors[0].message.contains("limit"));
}
