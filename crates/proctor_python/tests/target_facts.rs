//! A `skipif`/`xfail` condition computed from what the target interpreter
//! decides stays as written in the collected markers, however it is
//! spelled (`from sys import platform`, a module-level flag, an alias of
//! `sys`), because `plan` decides it per CI job; other conditions are
//! folded to their value. The suite is `tests/suites/interpreter_facts`
//! (the differential test checks it against pytest).

use proctor_python::Collection;
use serde_json::{json, Value};

fn collect() -> Collection {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/suites/interpreter_facts")
        .canonicalize()
        .unwrap();
    let settings = proctor_python::CollectSettings::new(root.clone());
    proctor_python::collect(&settings, &[], &root, &["test_spelled.py".into()])
}

/// The condition of the item's one `skipif`/`xfail` marker.
fn condition(collection: &Collection, test: &str) -> Value {
    let nodeid = format!("test_spelled.py::{test}");
    let item = collection
        .items
        .iter()
        .find(|i| i.nodeid == nodeid)
        .unwrap_or_else(|| panic!("no item {nodeid}"));
    let marker = item
        .markers
        .iter()
        .find(|m| m.name == "skipif" || m.name == "xfail")
        .unwrap_or_else(|| panic!("no skipif/xfail on {nodeid}"));
    marker
        .args
        .first()
        .or_else(|| marker.kwargs.get("condition"))
        .cloned()
        .unwrap_or_else(|| panic!("no condition on {nodeid}"))
}

#[test]
fn conditions_on_the_target_stay_as_written_however_spelled() {
    let collection = collect();
    for (test, text) in [
        ("test_imported_platform", r#"platform == "win32""#),
        ("test_module_flag", "ON_WINDOWS"),
        ("test_imported_version", "version_info < (3, 9)"),
        ("test_aliased_sys", r#"system.platform == "darwin""#),
        ("test_imported_os_name", r#"os_name == "nt""#),
    ] {
        assert_eq!(
            condition(&collection, test),
            json!({ "expr": text }),
            "{test}"
        );
    }
    assert_eq!(condition(&collection, "test_plain_condition"), json!(false));
}
