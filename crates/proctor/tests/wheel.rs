//! The Python distribution, as `pip install .` builds it: the root
//! `pyproject.toml` built into a wheel by the pinned maturin (fetched from
//! the Python Package Index, no cache), installed into a fresh virtualenv,
//! and run from there: `proctor --version` is the crate's, and `proctor
//! collect` of a fixture suite prints what the cargo-built binary prints.
//!
//! The build is a release build of the whole binary (minutes), so the test
//! runs only with `PROCTOR_TEST_WHEEL=1`, which `.ci/run` sets; without it
//! it passes with a notice. It is a Rust test rather than a script so that
//! `scripts/test` runs it with the rest and compares with the very binary
//! the other CLI tests run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The maturin the wheel is built with: `[build-system] requires` allows
/// `>=1.16,<2`, and this test pins one exactly.
const MATURIN: &str = "maturin==1.16.0";

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Runs `command`, panicking with its output when it fails; returns stdout.
fn checked(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A fresh virtualenv at `dir`, made by `python3` (or `$PYTHON`).
fn venv(dir: &Path) -> PathBuf {
    let python = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    checked(Command::new(python).args(["-m", "venv"]).arg(dir));
    dir.join("bin")
}

#[test]
#[expect(
    clippy::print_stderr,
    reason = "the skip notice and the build time are for the person running the tests"
)]
fn wheel_installs_a_working_proctor() {
    if std::env::var_os("PROCTOR_TEST_WHEEL").is_none_or(|v| v != "1") {
        eprintln!(
            "skipped: set PROCTOR_TEST_WHEEL=1 to build and install the wheel (a release build)"
        );
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let constraints = temp.path().join("constraints.txt");
    std::fs::write(&constraints, format!("{MATURIN}\n")).unwrap();

    // `pip wheel .` as `pip install .` runs it: in an isolated build
    // environment with `[build-system] requires`, held to the pin (pip
    // passes PIP_CONSTRAINT on to the build environment's install).
    let build = venv(&temp.path().join("build"));
    let dist = temp.path().join("dist");
    let started = std::time::Instant::now();
    checked(
        Command::new(build.join("pip"))
            .args([
                "wheel",
                "--no-deps",
                "--no-cache-dir",
                "--disable-pip-version-check",
                "-w",
            ])
            .arg(&dist)
            .arg(repository())
            .env("PIP_CONSTRAINT", &constraints)
            .env_remove("PIP_NO_BUILD_ISOLATION"),
    );
    eprintln!("wheel built in {:.0} s", started.elapsed().as_secs_f64());
    let wheels: Vec<PathBuf> = std::fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(wheels.len(), 1, "{wheels:?}");
    let wheel = &wheels[0];
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        name.starts_with(&format!("proctor_cli-{version}-py3-none-")),
        "{name}"
    );

    // A fresh virtualenv gets `proctor` from the wheel alone (no index).
    let bin = venv(&temp.path().join("venv"));
    checked(
        Command::new(bin.join("pip"))
            .args([
                "install",
                "--no-index",
                "--no-cache-dir",
                "--disable-pip-version-check",
            ])
            .arg(wheel),
    );
    let record = checked(Command::new(bin.join("python")).args([
        "-c",
        "import importlib.metadata as m; d = m.distribution('proctor-cli'); print(d.version); print(d.read_text('WHEEL'))",
    ]));
    assert!(record.starts_with(&format!("{version}\n")), "{record}");
    let generator = format!(
        "Generator: maturin ({})",
        MATURIN.trim_start_matches("maturin==")
    );
    assert!(record.contains(&generator), "{record}");

    let proctor = bin.join("proctor");
    assert_eq!(
        checked(Command::new(&proctor).arg("--version")),
        format!("proctor {version}\n")
    );
    let suite = common::copy_of(&repository().join("tests/suites/basics"));
    let collect = |program: &Path| {
        checked(
            Command::new(program)
                .arg("collect")
                .current_dir(suite.path())
                .env_remove("PYTEST_ADDOPTS"),
        )
    };
    let installed = collect(&proctor);
    assert!(installed.contains("test_functions.py::"), "{installed}");
    assert_eq!(
        common::without_timings(&installed),
        common::without_timings(&collect(Path::new(env!("CARGO_BIN_EXE_proctor"))))
    );
}
