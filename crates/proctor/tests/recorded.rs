//! Recorded expansions against real pytest: after one `proctor run` of a
//! suite with functions static collection calls dynamic (a module's and a
//! class's `pytest_generate_tests`, a conftest's, one parametrizing from an
//! imported module), static `collect --json` lists exactly the items
//! `pytest --collect-only` lists, each recorded one with its provenance;
//! after an edit of a test module, of a module it imports or of its
//! conftest, that module's functions are dynamic again (with the static
//! reason) while the others stay recorded and still equal pytest's.
//! Needs `PROCTOR_TEST_PYTHON`.

mod common;

use std::path::Path;
use std::process::Command;

use common::{copy_of, proctor_run, repo, test_python, text, write};

/// `pytest --collect-only -q`'s node ids, in its order.
fn pytest_ids(dir: &Path) -> Vec<String> {
    let output = Command::new(test_python())
        .args([
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        ])
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("PYTHONPATH")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .take_while(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Static `collect --json`'s items: node id, dynamic reason, provenance.
fn static_items(dir: &Path) -> Vec<(String, Option<String>, Option<String>)> {
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["collect", "--json"])
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("PYTHONPATH")
        .output()
        .unwrap();
    let doc: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&output)));
    let field = |item: &serde_json::Value, name: &str| item[name].as_str().map(str::to_owned);
    doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                field(item, "nodeid").unwrap(),
                field(item, "dynamic"),
                field(item, "recorded"),
            )
        })
        .collect()
}

fn ids_of<'a>(items: &'a [(String, Option<String>, Option<String>)], file: &str) -> Vec<&'a str> {
    items
        .iter()
        .map(|(id, _, _)| id.as_str())
        .filter(|id| id.starts_with(file))
        .collect()
}

fn pytest_of<'a>(ids: &'a [String], file: &str) -> Vec<&'a str> {
    ids.iter()
        .map(String::as_str)
        .filter(|id| id.starts_with(file))
        .collect()
}

fn append(dir: &Path, path: &str, text: &str) {
    let mut old = std::fs::read_to_string(dir.join(path)).unwrap();
    old.push_str(text);
    write(dir, path, &old);
}

/// `proctor run -q`, which must pass.
fn run_suite(dir: &Path) {
    let output = proctor_run(dir, &["-q"]);
    assert!(output.status.success(), "{}", text(&output));
}

#[test]
fn recorded_expansions_equal_pytest_until_their_inputs_change() {
    let copy = copy_of(&repo().join("tests/suites/dynamic"));
    let dir = copy.path();
    // The static commands read the suite for the interpreter the run uses.
    write(
        dir,
        "proctor.toml",
        &format!("python = {:?}\n", test_python().display().to_string()),
    );
    write(
        dir,
        "test_from_values.py",
        "from values import VALUES\n\n\ndef pytest_generate_tests(metafunc):\n    if \"v\" in metafunc.fixturenames:\n        metafunc.parametrize(\"v\", VALUES)\n\n\ndef test_values(v):\n    pass\n",
    );
    let recorded_files = [
        "hooked/test_conftest_hook.py",
        "test_from_values.py",
        "test_generate_module.py",
        "test_nonliteral.py",
    ];

    // Before a run: those modules' functions are dynamic, and the static
    // items are not pytest's.
    let before = static_items(dir);
    let real = pytest_ids(dir);
    for file in recorded_files {
        assert!(
            ids_of(&before, file) != pytest_of(&real, file),
            "{file} must have dynamic items for this test to prove anything: {before:?}"
        );
    }
    assert!(before.iter().all(|(_, _, recorded)| recorded.is_none()));
    let dynamic_reason = |items: &[(String, Option<String>, Option<String>)], id: &str| {
        items
            .iter()
            .find(|(nodeid, _, _)| nodeid == id)
            .and_then(|(_, dynamic, _)| dynamic.clone())
    };
    let reason = dynamic_reason(&before, "test_from_values.py::test_values")
        .expect("test_values is dynamic statically");
    let hooked_reason = dynamic_reason(&before, "hooked/test_conftest_hook.py::test_conftest_hook")
        .expect("test_conftest_hook is dynamic statically");

    let dynamic_before: std::collections::HashSet<&str> = before
        .iter()
        .filter(|(_, dynamic, _)| dynamic.is_some())
        .map(|(id, _, _)| id.as_str())
        .collect();
    assert!(recorded_files
        .iter()
        .all(|file| dynamic_before.iter().any(|id| id.starts_with(file))));

    // After one run: static collection is pytest's, item for item, and
    // says where the recorded items came from.
    run_suite(dir);
    let after = static_items(dir);
    let ids: Vec<&str> = after.iter().map(|(id, _, _)| id.as_str()).collect();
    let real_ids: Vec<&str> = real.iter().map(String::as_str).collect();
    assert_eq!(ids, real_ids, "static items after a run: {after:?}");
    assert!(
        after.iter().all(|(_, dynamic, _)| dynamic.is_none()),
        "{after:?}"
    );
    for (id, _, recorded) in &after {
        // Recorded exactly where static collection could not expand the
        // function before the run.
        let function = id.split('[').next().unwrap_or(id);
        let from_run = dynamic_before.contains(function);
        assert_eq!(recorded.is_some(), from_run, "{id}: {recorded:?}");
        if let Some(recorded) = recorded {
            assert!(
                recorded.starts_with("recorded in the run of 20"),
                "{recorded}"
            );
        }
    }
    let summary = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("collect")
        .current_dir(dir)
        .output()
        .unwrap();
    let recorded_count = after.iter().filter(|(_, _, r)| r.is_some()).count();
    assert!(
        text(&summary).contains(&format!(" ({recorded_count} recorded in a run) in ")),
        "{}",
        text(&summary)
    );

    // `plan`'s counts are pytest's, with no dynamic item left.
    let plan = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("plan")
        .current_dir(dir)
        .output()
        .unwrap();
    let plan = text(&plan);
    assert!(
        plan.contains(&format!("): {} run, 0 skipped, 0 deselected.", real.len()))
            && !plan.contains("dynamic"),
        "{plan}"
    );

    // A module it imports changes: that module's function is dynamic
    // again, with the static reason; the others stay recorded.
    write(
        dir,
        "values.py",
        "VALUES = [1, 2, 3, 4]\n\n\ndef load_cases():\n    return [(\"a\", 1), (\"b\", 2)]\n",
    );
    let edited = static_items(dir);
    assert_eq!(
        dynamic_reason(&edited, "test_from_values.py::test_values").as_deref(),
        Some(reason.as_str())
    );
    let real = pytest_ids(dir);
    for file in ["hooked/test_conftest_hook.py", "test_generate_module.py"] {
        assert_eq!(ids_of(&edited, file), pytest_of(&real, file), "{file}");
    }
    // Another run records the new items.
    run_suite(dir);
    let after = static_items(dir);
    assert_eq!(
        ids_of(&after, "test_from_values.py"),
        pytest_of(&real, "test_from_values.py")
    );

    // The test module itself changes.
    append(dir, "test_generate_module.py", "\n# edited\n");
    let edited = static_items(dir);
    assert!(
        ids_of(&edited, "test_generate_module.py") != pytest_of(&real, "test_generate_module.py")
    );
    assert!(edited
        .iter()
        .filter(|(id, _, _)| id.starts_with("test_generate_module.py"))
        .all(|(_, _, recorded)| recorded.is_none()));
    assert_eq!(
        ids_of(&edited, "hooked/test_conftest_hook.py"),
        pytest_of(&real, "hooked/test_conftest_hook.py")
    );

    // Its conftest changes.
    append(dir, "hooked/conftest.py", "\n# edited\n");
    let edited = static_items(dir);
    assert_eq!(
        dynamic_reason(&edited, "hooked/test_conftest_hook.py::test_conftest_hook").as_deref(),
        Some(hooked_reason.as_str())
    );
    assert_eq!(
        ids_of(&edited, "test_from_values.py"),
        pytest_of(&real, "test_from_values.py"),
        "an unrelated conftest's edit keeps the other recordings"
    );
}
