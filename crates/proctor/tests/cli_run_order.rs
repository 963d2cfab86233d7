//! CLI tests for `[run] order` and a job's `order`: the default order of
//! `proctor run` when `--order` is not given, its seed printed.
//!
//! Needs `PROCTOR_TEST_PYTHON` (scripts/test sets it).

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use common::{run, text, write};

fn proctor(dir: &Path, args: &[&str]) -> Output {
    let python = std::env::var_os("PROCTOR_TEST_PYTHON")
        .expect("PROCTOR_TEST_PYTHON names a Python with pytest (scripts/test sets it)");
    Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["run", "--no-history", "-v", "--python"])
        .arg(python)
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap()
}

fn order_of(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| l.ends_with(" PASSED"))
        .map(|l| l.trim_end_matches(" PASSED").to_owned())
        .collect()
}

fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for module in ["a", "b", "c", "d"] {
        let tests = (0..5).fold(String::new(), |mut text, i| {
            let _ = write!(text, "def test_{module}{i}():\n    pass\n\n");
            text
        });
        write(dir.path(), &format!("test_{module}.py"), &tests);
    }
    write(dir.path(), "proctor.toml", config);
    dir
}

#[test]
fn run_order_random_in_config_shuffles_and_prints_the_seed() {
    let dir = project(
        "[run]\norder = \"random\"\n\n[jobs.ordered]\norder = \"pytest\"\n\n[jobs.plain]\n",
    );
    let root = dir.path();
    let configured = proctor(root, &["--seed", "1234"]);
    assert!(
        text(&configured).contains("random order (--seed 1234)"),
        "{}",
        text(&configured)
    );
    let asked = proctor(root, &["--order", "random", "--seed", "1234"]);
    assert_eq!(order_of(&configured).len(), 20);
    assert_eq!(order_of(&configured), order_of(&asked));
    // Without a seed a fresh one is printed.
    let fresh = proctor(root, &[]);
    assert!(
        text(&fresh).contains(", random order (--seed "),
        "{}",
        text(&fresh)
    );
    // `--order pytest` and a job's `order = "pytest"` win over `[run]`.
    let pytest_order: Vec<String> = ["a", "b", "c", "d"]
        .iter()
        .flat_map(|m| (0..5).map(move |i| format!("test_{m}.py::test_{m}{i}")))
        .collect();
    for args in [&["--order", "pytest"][..], &["--job", "ordered"][..]] {
        let output = proctor(root, args);
        assert!(
            !text(&output).contains("random order"),
            "{args:?}: {}",
            text(&output)
        );
        assert_eq!(order_of(&output), pytest_order, "{args:?}");
    }
    // A job without `order` takes `[run] order`.
    let plain = proctor(root, &["--job", "plain", "--seed", "1234"]);
    assert_eq!(order_of(&plain), order_of(&asked), "{}", text(&plain));
}

#[test]
fn an_unknown_run_order_is_a_configuration_error() {
    let dir = project("[run]\norder = \"sideways\"\n");
    let out = run(dir.path(), &["run", "--collect-only"]);
    assert!(out.starts_with("exit: 4\n"), "{out}");
    assert!(out.contains("sideways"), "{out}");
}
